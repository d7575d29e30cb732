//! The golden stdin payloads under `tests/golden/claude-code/` parse into the
//! events the black-box tests rely on.

use context_mode_sdk::{EventKind, NormalizedEvent, SessionSource, ToolKind};

use crate::parse::parse;
use context_mode_sdk::adapter::ParseInput;

macro_rules! golden {
    ($case:literal) => {
        (
            $case,
            include_str!(concat!(
                "../../../../tests/golden/claude-code/",
                $case,
                ".stdin.json"
            )),
        )
    };
}

const PRE_TOOL_USE: &[(&str, &str)] = &[
    golden!("webfetch"),
    golden!("mcp-fetch"),
    golden!("curl"),
    golden!("curl-silent"),
    golden!("gh-body-mention"),
    golden!("which-curl"),
    golden!("python-requests"),
    golden!("gradlew"),
    golden!("read-large"),
    golden!("read-range"),
    golden!("read-small"),
    golden!("grep"),
    golden!("git-status"),
    golden!("task-launch"),
    golden!("sudo-chain"),
];

const PROJECT: &str = "/tmp/golden-project";

fn parse_case(native: &str, stdin: &str) -> NormalizedEvent {
    let input = ParseInput {
        native_event: native.to_owned(),
        stdin: stdin.replace("__PROJECT__", PROJECT),
        env: Vec::new(),
        parent_pid: 1,
    };
    parse(&input).unwrap_or_else(|error| panic!("{native}: {error:?}"))
}

fn assert_session_is_transcript_uuid(event: &NormalizedEvent, stdin: &str) {
    assert_eq!(event.session_id.len(), 36);
    assert!(stdin.contains(&format!("/{}.jsonl", event.session_id)));
    assert_eq!(event.project_dir.as_deref(), Some(PROJECT));
}

#[test]
fn pre_tool_use_payloads_normalize() {
    for (case, stdin) in PRE_TOOL_USE {
        let event = parse_case("pretooluse", stdin);
        assert_eq!(event.kind, EventKind::PreToolUse, "{case}");
        assert_session_is_transcript_uuid(&event, stdin);
        let tool = event.tool.unwrap_or_else(|| panic!("{case} has no tool"));
        let expected_kind = match *case {
            "webfetch" => ToolKind::WebFetch,
            "read-large" | "read-range" | "read-small" => ToolKind::Read,
            "grep" => ToolKind::Grep,
            "task-launch" => ToolKind::Agent,
            "mcp-fetch" => ToolKind::Mcp,
            _ => ToolKind::Shell,
        };
        assert_eq!(tool.kind, expected_kind, "{case}");
        match *case {
            "curl" => assert_eq!(
                tool.command.as_deref(),
                Some("curl https://example.com/api")
            ),
            "gh-body-mention" => {
                assert_eq!(
                    tool.command.as_deref(),
                    Some(r#"gh issue edit 12 --body "curl it""#)
                )
            }
            "python-requests" => assert_eq!(
                tool.command.as_deref(),
                Some(r#"python3 -c "import requests; requests.get('http://x')""#)
            ),
            "sudo-chain" => {
                assert_eq!(
                    tool.command.as_deref(),
                    Some("echo ok && sudo rm -rf /tmp/x")
                )
            }
            "webfetch" => assert!(
                tool.url
                    .as_deref()
                    .is_some_and(|u| u.starts_with("https://"))
            ),
            "read-large" | "read-small" => {
                assert!(!tool.has_range);
                assert!(tool.path.as_deref().is_some_and(|p| p.starts_with(PROJECT)));
            }
            "read-range" => assert!(tool.has_range),
            "grep" => assert_eq!(tool.pattern.as_deref(), Some("TODO")),
            "mcp-fetch" => {
                assert_eq!(tool.mcp_server.as_deref(), Some("fetch"));
                assert_eq!(tool.mcp_tool.as_deref(), Some("fetch"));
            }
            "task-launch" => assert!(
                tool.prompt
                    .as_deref()
                    .is_some_and(|p| p.starts_with("Find where"))
            ),
            _ => {}
        }
    }
}

#[test]
fn other_event_payloads_normalize() {
    let (_, post) = golden!("posttooluse-bash");
    let event = parse_case("posttooluse", post);
    assert_session_is_transcript_uuid(&event, post);
    let outcome = event.outcome.unwrap();
    assert!(
        outcome
            .output
            .starts_with("9f3c2e1 Fix flaky search test\n")
    );
    assert!(!outcome.is_error);

    let (_, prompt) = golden!("userpromptsubmit");
    let event = parse_case("userpromptsubmit", prompt);
    assert!(event.prompt.unwrap().contains("gradle"));

    let (_, compact) = golden!("precompact");
    assert_eq!(
        parse_case("precompact", compact).trigger.as_deref(),
        Some("auto")
    );

    let (_, startup) = golden!("sessionstart-startup");
    assert_eq!(
        parse_case("sessionstart", startup).source,
        Some(SessionSource::Startup)
    );
    let (_, after_compact) = golden!("sessionstart-compact");
    assert_eq!(
        parse_case("sessionstart", after_compact).source,
        Some(SessionSource::Compact)
    );

    let (_, stop) = golden!("stop");
    let event = parse_case("stop", stop);
    assert_eq!(event.kind, EventKind::Stop);
    assert_session_is_transcript_uuid(&event, stop);
}

context_mode_sdk::generated_parse_test!("claude-code");

//! `cm setup` for Pi and OMP, driven like a user would: a temp HOME with the host's own
//! files (its models, an extension of the user's, an AGENTS.md of theirs), the real
//! `cm`, the files compared before, after, on a second run and after `--remove`, and
//! `cm doctor`'s row for the extension. Both hosts install here; that their loaders
//! import the written extension is `tests/e2e` (`pi_0_73_1`, `omp_18_2_3`).

use crate::common;
use crate::common::setup_files::{Round, cm_path, doctor_rows, read, write};

use std::path::Path;

use common::Sandbox;
use serde_json::Value;

const MODELS: &str = "{\"providers\": {}}\n";
const USER_EXTENSION: &str =
    "export default function (pi) { pi.on(\"tool_call\", () => undefined); }\n";
const USER_AGENTS_MD: &str = "# House rules\n\nRun the tests before every commit.\n";

/// The extension as written: this adapter's id, the `cm` that ran setup, and the
/// events and tool forwarding of the shim.
fn assert_extension(path: &Path, adapter: &str, client: &str) {
    let text = read(path);
    assert!(
        text.contains(&format!("const CM = {};", Value::from(cm_path().as_str()))),
        "{text}"
    );
    assert!(text.contains(&format!("const ADAPTER = \"{adapter}\";")));
    assert!(text.contains(&format!("const CLIENT = \"{client}\";")));
    assert!(!text.contains("__CM__"));
    for event in [
        "tool_call",
        "tool_result",
        "session_start",
        "session_before_compact",
    ] {
        assert!(text.contains(&format!("pi.on(\"{event}\"")), "{event}");
    }
    assert!(text.contains("spawn(BINARY, [\"serve\"]"));
    assert!(text.contains("const BINARY = CM === "));
}

#[test]
fn pi_gets_the_extension_beside_the_users_and_keeps_their_files() {
    let sandbox = Sandbox::new();
    let agent = sandbox.home.join(".pi/agent");
    let models = agent.join("models.json");
    let theirs = agent.join("extensions/theirs.ts");
    let ours = agent.join("extensions/context-mode.js");
    let agents_md = agent.join("AGENTS.md");
    write(&models, MODELS);
    write(&theirs, USER_EXTENSION);
    write(&agents_md, USER_AGENTS_MD);
    let round = Round {
        sandbox: &sandbox,
        env: Vec::new(),
        display: "Pi Coding Agent (pi)",
        files: vec![
            (models.clone(), Some(MODELS.to_owned())),
            (theirs.clone(), Some(USER_EXTENSION.to_owned())),
            (agents_md.clone(), Some(USER_AGENTS_MD.to_owned())),
            (ours.clone(), None),
        ],
    };
    // Detected from ~/.pi: no --agents.
    round.apply(&["--routing"]);
    assert_extension(&ours, "pi", "pi-coding-agent");
    let rules = read(&agents_md);
    assert!(rules.starts_with(USER_AGENTS_MD), "{rules}");
    assert!(rules.contains("`ctx_execute` instead of `bash`"), "{rules}");
    assert!(!sandbox.home.join(".omp").exists());
    let rows = doctor_rows(&sandbox, &[], "pi");
    assert_eq!(rows, [("pi hooks".to_owned(), "PASS".to_owned())]);

    round.second_run_changes_nothing(&["--routing"]);
    round.remove_restores_everything();
}

#[test]
fn pi_coding_agent_dir_moves_the_extension() {
    let sandbox = Sandbox::new();
    let moved = sandbox.home.join("elsewhere/pi-agent");
    std::fs::create_dir_all(&moved).unwrap();
    let env = vec![("PI_CODING_AGENT_DIR", moved.as_path())];
    let round = Round {
        sandbox: &sandbox,
        env: env.clone(),
        display: "Pi Coding Agent (pi)",
        files: vec![(moved.join("extensions/context-mode.js"), None)],
    };
    round.apply(&["--agents", "pi"]);
    assert!(!sandbox.home.join(".pi").exists());
    let rows = doctor_rows(&sandbox, &env, "pi");
    assert_eq!(rows, [("pi hooks".to_owned(), "PASS".to_owned())]);
    round.second_run_changes_nothing(&["--agents", "pi"]);
    round.remove_restores_everything();
}

#[test]
fn omp_keeps_to_its_own_directory() {
    let sandbox = Sandbox::new();
    let agent = sandbox.home.join(".omp/agent");
    let models = agent.join("models.yml");
    let ours = agent.join("extensions/context-mode.js");
    let agents_md = agent.join("AGENTS.md");
    write(&models, MODELS);
    // A Pi install beside it, and Pi's directory variable set for Pi.
    let pi_dir = sandbox.home.join(".pi/agent");
    std::fs::create_dir_all(&pi_dir).unwrap();
    let env = vec![("PI_CODING_AGENT_DIR", pi_dir.as_path())];
    let round = Round {
        sandbox: &sandbox,
        env: env.clone(),
        display: "OMP (Oh My Pi) (omp)",
        files: vec![
            (models.clone(), Some(MODELS.to_owned())),
            (ours.clone(), None),
            (agents_md.clone(), None),
        ],
    };
    round.apply(&["--agents", "omp", "--routing"]);
    assert_extension(&ours, "omp", "omp-coding-agent");
    assert!(read(&agents_md).contains("`bash` or `eval`"));
    let in_pi: Vec<_> = std::fs::read_dir(&pi_dir).unwrap().collect();
    assert!(in_pi.is_empty(), "OMP's setup wrote into Pi's directory");
    let rows = doctor_rows(&sandbox, &env, "omp");
    assert_eq!(rows, [("omp hooks".to_owned(), "PASS".to_owned())]);

    round.second_run_changes_nothing(&["--agents", "omp", "--routing"]);
    round.remove_restores_everything();
}

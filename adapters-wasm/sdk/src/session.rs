//! Session identity helpers.

use crate::types::SessionSource;

/// The session UUID in a transcript file name, e.g.
/// `~/.claude/projects/-home-me-app/0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1b.jsonl`.
///
/// The transcript name is the most stable id a host gives: it survives
/// `--resume` in hosts whose `session_id` field changes.
pub fn session_id_from_transcript(path: &str) -> Option<String> {
    let file_name = path.rsplit(['/', '\\']).next()?;
    let bytes = file_name.as_bytes();
    (0..bytes.len())
        .find(|&start| is_uuid_at(bytes, start))
        .map(|start| file_name[start..start + UUID_LEN].to_ascii_lowercase())
}

const UUID_LEN: usize = 36;
const UUID_DASHES: [usize; 4] = [8, 13, 18, 23];

fn is_uuid_at(bytes: &[u8], start: usize) -> bool {
    let Some(candidate) = bytes.get(start..start + UUID_LEN) else {
        return false;
    };
    let shape_ok = candidate.iter().enumerate().all(|(i, b)| {
        if UUID_DASHES.contains(&i) {
            *b == b'-'
        } else {
            b.is_ascii_hexdigit()
        }
    });
    // A UUID glued to more hex digits is some other token, not a UUID.
    let before_ok = start == 0 || !bytes[start - 1].is_ascii_hexdigit();
    let after_ok = bytes
        .get(start + UUID_LEN)
        .is_none_or(|b| !b.is_ascii_hexdigit());
    shape_ok && before_ok && after_ok
}

/// The value of an environment variable the host passed in, when set and not blank.
pub fn env_value<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The last-resort session id: the agent process, which lives as long as the session.
pub fn pid_session_id(parent_pid: u32) -> String {
    format!("pid-{parent_pid}")
}

/// A host's "why did the session start" word.
pub fn session_source(word: &str) -> SessionSource {
    match word.trim().to_ascii_lowercase().as_str() {
        "startup" | "start" | "new" => SessionSource::Startup,
        "resume" | "continue" => SessionSource::Resume,
        "clear" => SessionSource::Clear,
        "compact" => SessionSource::Compact,
        _ => SessionSource::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1b";

    #[test]
    fn finds_the_uuid_in_a_claude_transcript_name() {
        let path = format!("/home/me/.claude/projects/-home-me-app/{ID}.jsonl");
        assert_eq!(session_id_from_transcript(&path).as_deref(), Some(ID));
    }

    #[test]
    fn ignores_uuids_in_directories_and_handles_windows_paths() {
        let in_dir = format!("/tmp/{ID}/transcript.jsonl");
        assert_eq!(session_id_from_transcript(&in_dir), None);
        let windows = format!("C:\\Users\\me\\.claude\\projects\\x\\{ID}.jsonl");
        assert_eq!(session_id_from_transcript(&windows).as_deref(), Some(ID));
    }

    #[test]
    fn finds_a_uuid_inside_a_longer_name_and_lowercases_it() {
        let upper = ID.to_ascii_uppercase();
        let path = format!("/x/session-{upper}.json");
        assert_eq!(session_id_from_transcript(&path).as_deref(), Some(ID));
    }

    #[test]
    fn rejects_near_misses() {
        for name in [
            "",
            "/",
            "transcript.jsonl",
            "0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1.jsonl",
            "0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1bc.jsonl",
            "0b6f8d2e_1c3a_4f5b_9e7d_2a4c6e8f0a1b.jsonl",
            "0b6f8d2g-1c3a-4f5b-9e7d-2a4c6e8f0a1b.jsonl",
            "ü0b6f8d2e-1c3a-4f5b-9e7d-2a4c6e8f0a1",
        ] {
            assert_eq!(session_id_from_transcript(name), None, "{name}");
        }
    }

    #[test]
    fn env_value_skips_blank_and_absent() {
        let env = vec![
            ("A".to_owned(), " x ".to_owned()),
            ("B".to_owned(), "  ".to_owned()),
        ];
        assert_eq!(env_value(&env, "A"), Some("x"));
        assert_eq!(env_value(&env, "B"), None);
        assert_eq!(env_value(&env, "C"), None);
    }

    #[test]
    fn pid_fallback_and_sources() {
        assert_eq!(pid_session_id(4242), "pid-4242");
        assert_eq!(session_source("startup"), SessionSource::Startup);
        assert_eq!(session_source("Resume"), SessionSource::Resume);
        assert_eq!(session_source("clear"), SessionSource::Clear);
        assert_eq!(session_source("compact"), SessionSource::Compact);
        assert_eq!(session_source("whatever"), SessionSource::Unknown);
    }
}

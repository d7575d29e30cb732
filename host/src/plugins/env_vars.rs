//! Which environment variables an adapter may ask for in its descriptor's `env-vars`
//! (ADR 0013). The host hands `parse` the values of exactly those variables, so the
//! list is a grant: only names that mark a host or point at its directories, never a
//! name shaped like a secret. Checked at `cm plugin add` and again whenever an adapter
//! is described for use, so a plugin installed before this rule, or copied in by hand,
//! never receives a refused value either.

use super::PluginError;

/// Parts of a name that mark it as holding a secret, wherever they appear in it
/// (`PASS` also covers `PASSWORD`, `PASSWD` and `PASSPHRASE`; `CRED` covers `CREDENTIALS`).
/// The first part found is the one the refusal names, so the telling ones come first.
/// `URL`, `URI` and `DSN`: connection strings carry credentials (`postgres://u:p@h`).
const SECRET_PARTS: &[&str] = &[
    "SECRET",
    "TOKEN",
    "PASS",
    "PWD",
    "CRED",
    "AUTH",
    "COOKIE",
    "PRIVATE",
    "SESSION_KEY",
    "KEY",
    "CERT",
    "SALT",
    "SIGNATURE",
    "URL",
    "URI",
    "DSN",
];

/// Endings of names that point at a host's directories or identify its session.
const HOST_SUFFIXES: &[&str] = &["_HOME", "_DIR", "_DIRS", "_ID"];

/// The operating systems' own directory variables, which no suffix marks: Windows
/// keeps hosts' settings under them (Zed's `%APPDATA%\Zed\`).
const OS_DIRECTORIES: &[&str] = &["APPDATA", "LOCALAPPDATA", "USERPROFILE"];

/// The longest variable name an adapter may ask for.
const NAME_MAX_CHARS: usize = 64;

/// Refuses a descriptor that asks for a variable outside the rule; the message names it.
pub fn check(adapter_id: &str, names: &[String]) -> Result<(), PluginError> {
    match names
        .iter()
        .find_map(|name| refusal(adapter_id, name).map(|why| (name, why)))
    {
        None => Ok(()),
        Some((name, why)) => Err(PluginError::Invalid(format!(
            "{adapter_id} asks for the environment variable {name}, which {why}; an adapter \
             may read only host markers and paths (docs/adr/0013-plugin-trust.md)"
        ))),
    }
}

/// Why `name` may not be given to the adapter `adapter_id`; `None` when it may.
pub fn refusal(adapter_id: &str, name: &str) -> Option<String> {
    let well_formed = name.len() <= NAME_MAX_CHARS
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !well_formed {
        return Some(format!(
            "is not an upper-case variable name of at most {NAME_MAX_CHARS} characters"
        ));
    }
    if let Some(part) = SECRET_PARTS.iter().find(|part| name.contains(*part)) {
        return Some(format!("looks like a secret (it contains {part})"));
    }
    let marker = host_marker_prefix(adapter_id);
    let host_shaped = HOST_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
        || OS_DIRECTORIES.contains(&name)
        || marker
            .as_deref()
            .is_some_and(|prefix| name.starts_with(prefix));
    if host_shaped {
        return None;
    }
    Some(format!(
        "is neither a host directory nor a session marker (names ending in {}{}, or {})",
        HOST_SUFFIXES.join(", "),
        marker.map_or_else(String::new, |prefix| format!(", or starting with {prefix}")),
        OS_DIRECTORIES.join(", ")
    ))
}

/// The prefix of the host's own variables: the first word of the adapter id, upper-cased
/// (`claude-code` → `CLAUDE_`, `gemini-cli` → `GEMINI_`).
fn host_marker_prefix(adapter_id: &str) -> Option<String> {
    let word = adapter_id.split(['-', '_']).next()?;
    (!word.is_empty()).then(|| format!("{}_", word.to_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_markers_and_directories_pass() {
        for (adapter, name) in [
            ("claude-code", "CLAUDE_PROJECT_DIR"),
            ("claude-code", "CLAUDE_CODE_ENTRYPOINT"),
            ("gemini-cli", "GEMINI_SESSION_ID"),
            ("codex", "CODEX_HOME"),
            ("aider", "XDG_CONFIG_HOME"),
            ("aider", "CURSOR_TRACE_ID"),
            ("zed", "APPDATA"),
            ("zed", "LOCALAPPDATA"),
        ] {
            assert_eq!(refusal(adapter, name), None, "{adapter} {name}");
        }
    }

    #[test]
    fn secret_shaped_and_unrelated_names_are_refused() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "GITHUB_TOKEN",
            "CLAUDE_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "DB_PASSWORD",
            "CLAUDE_SESSION_KEY",
            "NPM_CONFIG__AUTH",
            "PRIVATE_DIR",
            "DATABASE_URL",
            "CLAUDE_PROXY_URL",
        ] {
            let why = refusal("claude-code", name).expect(name);
            assert!(why.starts_with("looks like a secret"), "{name}: {why}");
        }
        for name in [
            "PATH",
            "USER",
            "LD_PRELOAD",
            "GEMINI_MODEL",
            "lower_dir",
            "",
        ] {
            assert!(refusal("claude-code", name).is_some(), "{name}");
        }
    }

    #[test]
    fn the_message_names_the_variable_on_one_line() {
        let err = check(
            "claude-code",
            &["CLAUDE_PROJECT_DIR".into(), "AWS_SECRET_ACCESS_KEY".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("AWS_SECRET_ACCESS_KEY"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

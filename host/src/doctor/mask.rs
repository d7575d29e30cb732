//! Nothing secret leaves the doctor: values of secret-named environment variables,
//! token shapes and `key=value` secrets become `[REDACTED]`, and the home directory
//! prefix is shown as `~`.

use super::Check;
use crate::journal::redact::{REDACTED, is_secret_key, redact};

/// Shortest environment value that is masked wherever it appears (shorter ones, like
/// `1` or `true`, would mask unrelated text).
const MASKED_VALUE_MIN_CHARS: usize = 4;

pub struct Masker {
    home: Option<String>,
    secrets: Vec<String>,
}

impl Masker {
    /// Masks the values of this process's secret-named variables and its `HOME`.
    pub fn from_env() -> Self {
        Self::new(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
            crate::paths::home_dir().map(|h| h.display().to_string()),
        )
    }

    pub fn new(vars: impl Iterator<Item = (String, String)>, home: Option<String>) -> Self {
        let mut secrets: Vec<String> = vars
            .filter(|(name, value)| {
                secret_var(name) && value.trim().chars().count() >= MASKED_VALUE_MIN_CHARS
            })
            .map(|(_, value)| value.trim().to_string())
            .collect();
        // Longest first, so a value containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let home = home
            .map(|h| h.trim_end_matches('/').to_string())
            .filter(|h| !h.is_empty());
        Masker { home, secrets }
    }

    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.secrets {
            out = out.replace(secret.as_str(), REDACTED);
        }
        let mut out = redact(&out);
        if let Some(home) = &self.home {
            // A quoted path keeps working when `~` moves outside the quotes.
            out = out.replace(&format!("'{home}/"), "~/'");
            out = replace_path_prefix(&out, home);
        }
        out
    }

    pub fn check(&self, check: Check) -> Check {
        Check {
            name: self.text(&check.name),
            detail: self.text(&check.detail),
            fix: check.fix.map(|f| self.text(&f)),
            ..check
        }
    }
}

/// Whether a variable's value is never shown: names with TOKEN, SECRET, KEY, PASSWORD
/// (any case) or that the journal's redaction calls secret.
fn secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "KEY",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
    ]
    .iter()
    .any(|word| upper.contains(word))
        || is_secret_key(name)
}

/// `home` → `~` where it is a whole path prefix (followed by `/`, a quote, space or end),
/// so `/home/u` never turns `/home/user2` into `~ser2`.
fn replace_path_prefix(text: &str, home: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(home) {
        let after = &rest[at + home.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| c == '/' || c.is_whitespace() || "'\"`,;:)]".contains(c));
        out.push_str(&rest[..at]);
        out.push_str(if whole { "~" } else { home });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masker() -> Masker {
        Masker::new(
            [
                ("GITHUB_TOKEN".to_string(), "s3cr3t-value-42".to_string()),
                ("MY_API_KEY".to_string(), "abcd1234efgh".to_string()),
                ("DEBUG".to_string(), "1".to_string()),
                ("EDITOR".to_string(), "vim-with-a-long-name".to_string()),
            ]
            .into_iter(),
            Some("/home/u".to_string()),
        )
    }

    #[test]
    fn secret_env_values_never_show() {
        let shown = masker().text("root /data/s3cr3t-value-42/x key abcd1234efgh");
        assert_eq!(shown, "root /data/[REDACTED]/x key [REDACTED]");
    }

    #[test]
    fn other_env_values_and_short_values_stay() {
        assert_eq!(
            masker().text("vim-with-a-long-name 1"),
            "vim-with-a-long-name 1"
        );
    }

    #[test]
    fn token_shapes_are_redacted_even_when_not_in_env() {
        let shown = masker().text("/tmp/ghp_abcdefghijklmnopqrstuvwxyz0123/data");
        assert!(!shown.contains("ghp_abcdefghij"), "{shown}");
    }

    #[test]
    fn home_becomes_tilde_only_as_a_whole_prefix() {
        let m = masker();
        assert_eq!(m.text("/home/u/.context-mode"), "~/.context-mode");
        assert_eq!(m.text("at /home/u"), "at ~");
        assert_eq!(m.text("/home/user2/x"), "/home/user2/x");
        assert_eq!(m.text("rm -f '/home/u/a b/c'"), "rm -f ~/'a b/c'");
    }
}

//! The one-line failure of a fetch. Its `Debug` is its `Display` on purpose: whatever
//! formats it (`{:?}`, anyhow, `?` in a test) prints one readable line, never a dump.

use std::fmt;
use std::time::Duration;

/// Why a fetch failed, precise enough for tests and callers to branch on.
#[derive(Clone, PartialEq, Eq)]
pub enum FetchFailure {
    /// The text is not a URL at all.
    InvalidUrl(String),
    /// A scheme other than http/https (`file:`, `data:`, `ftp:` …).
    Scheme(String),
    /// An address the policy refuses; `reason` is a whole clause such as
    /// "address 169.254.169.254 is link-local (blocked)".
    Blocked(String),
    /// A redirect hop was refused; `target` is the Location, `reason` why.
    RedirectRefused {
        target: String,
        reason: Box<FetchFailure>,
    },
    /// More redirects than allowed.
    TooManyRedirects(usize),
    /// A 3xx without a usable Location header.
    BadRedirect(u16),
    /// The host name did not resolve.
    Resolve(String),
    /// Nothing listens on the port.
    ConnectionRefused,
    /// Any other connect failure, already a short phrase.
    Connect(String),
    /// The TLS handshake failed.
    Tls(String),
    /// The HTTP exchange failed after connecting.
    Protocol(String),
    /// A non-success status.
    Status(u16),
    /// A body we do not index (images, archives …).
    NotText(String),
    /// The whole fetch exceeded its time budget.
    Timeout(Duration),
}

impl fmt::Display for FetchFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl(why) => write!(f, "invalid URL ({why})"),
            Self::Scheme(scheme) => {
                write!(
                    f,
                    "scheme \"{scheme}:\" is not allowed (only http and https)"
                )
            }
            Self::Blocked(reason) => f.write_str(reason),
            Self::RedirectRefused { target, reason } => {
                write!(f, "redirect to {target} refused: {reason}")
            }
            Self::TooManyRedirects(max) => write!(f, "too many redirects (more than {max})"),
            Self::BadRedirect(status) => {
                write!(f, "HTTP {status} redirect without a valid Location")
            }
            Self::Resolve(host) => write!(f, "cannot resolve host {host}"),
            Self::ConnectionRefused => f.write_str("connection refused"),
            Self::Connect(why) => f.write_str(why),
            Self::Tls(why) => write!(f, "TLS handshake failed: {why}"),
            Self::Protocol(why) => f.write_str(why),
            Self::Status(code) => write!(f, "HTTP {code}"),
            Self::NotText(content_type) => {
                write!(f, "content type {content_type} is not text (not indexed)")
            }
            Self::Timeout(budget) => write!(f, "timed out after {}", seconds(*budget)),
        }
    }
}

/// "30 s", "0.3 s", "1.25 s": a budget the way a person reads it.
fn seconds(budget: Duration) -> String {
    let ms = budget.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        let text = format!("{:.3}", budget.as_secs_f64());
        format!("{} s", text.trim_end_matches('0'))
    }
}

/// `Failed to fetch <url>: <failure>` — always a single line.
#[derive(Clone, PartialEq, Eq)]
pub struct FetchError {
    /// The URL as the caller gave it.
    pub url: String,
    pub failure: FetchFailure,
}

impl FetchError {
    pub fn new(url: &str, failure: FetchFailure) -> Self {
        Self {
            url: url.to_string(),
            failure,
        }
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = format!("Failed to fetch {}: {}", self.url, self.failure);
        // Messages quote text from outside (URLs, server errors); keep them on one line.
        f.write_str(&line.replace(['\r', '\n'], " "))
    }
}

impl fmt::Debug for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Debug for FetchFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for FetchError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_as_seconds() {
        assert_eq!(seconds(Duration::from_millis(30_000)), "30 s");
        assert_eq!(seconds(Duration::from_millis(300)), "0.3 s");
        assert_eq!(seconds(Duration::from_millis(1_250)), "1.25 s");
    }

    #[test]
    fn error_is_one_line_in_display_and_debug() {
        let err = FetchError::new(
            "http://x/\nInjected",
            FetchFailure::Protocol("line one\r\nline two".into()),
        );
        let shown = err.to_string();
        assert_eq!(
            shown,
            "Failed to fetch http://x/ Injected: line one  line two"
        );
        assert_eq!(format!("{err:?}"), shown);
    }

    #[test]
    fn failures_read_as_short_phrases() {
        let line = |f| FetchError::new("http://h/", f).to_string();
        assert_eq!(
            line(FetchFailure::Resolve("nowhere.invalid".into())),
            "Failed to fetch http://h/: cannot resolve host nowhere.invalid"
        );
        assert_eq!(
            line(FetchFailure::BadRedirect(302)),
            "Failed to fetch http://h/: HTTP 302 redirect without a valid Location"
        );
        assert_eq!(
            line(FetchFailure::Timeout(Duration::from_millis(
                crate::limits::FETCH_TIMEOUT_MS
            ))),
            "Failed to fetch http://h/: timed out after 30 s"
        );
    }

    #[test]
    fn redirect_refusal_names_target_and_reason() {
        let err = FetchError::new(
            "http://127.0.0.1:1/r",
            FetchFailure::RedirectRefused {
                target: "http://169.254.169.254/".into(),
                reason: Box::new(FetchFailure::Blocked(
                    "address 169.254.169.254 is link-local (blocked)".into(),
                )),
            },
        );
        assert_eq!(
            err.to_string(),
            "Failed to fetch http://127.0.0.1:1/r: redirect to http://169.254.169.254/ refused: \
             address 169.254.169.254 is link-local (blocked)"
        );
    }
}

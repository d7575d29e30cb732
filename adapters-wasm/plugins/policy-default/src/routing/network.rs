//! Shell commands that would print a network response into the agent's
//! context: `curl` / `wget` without a silent download to a file, and inline
//! interpreter code that makes HTTP requests.

use crate::shell::{ShellCommand, Word, basename};

/// A `curl` / `wget` call whose response or progress output reaches the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintingFetch {
    pub program: &'static str,
    /// The first URL on the command line, when one is literal.
    pub url: Option<String>,
}

/// Programs that consume a piped download instead of printing it
/// (`curl -fsSL https://… | sh`, `wget -qO- … | tar xz`).
const CONSUMERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "tar", "gunzip", "gzip", "bunzip2", "xz", "unzip", "bsdtar",
    "sudo", "dd", "python", "python3", "node", "ruby", "perl", "apt-key", "gpg", "cpio", "zstd",
];

const CURL_SHORT_WITH_VALUE: &str = "AbcCdDeEFHKmoPQrtTuUwxXYyz";
const CURL_LONG_WITH_VALUE: &[&str] = &[
    "--output",
    "--data",
    "--data-ascii",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--header",
    "--request",
    "--user",
    "--user-agent",
    "--cookie",
    "--cookie-jar",
    "--form",
    "--form-string",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--retry-delay",
    "--retry-max-time",
    "--write-out",
    "--proxy",
    "--referer",
    "--cert",
    "--key",
    "--cacert",
    "--config",
    "--upload-file",
    "--url",
    "--range",
    "--dump-header",
    "--resolve",
    "--limit-rate",
    "--max-filesize",
    "--output-dir",
    "--continue-at",
    "--interface",
    "--json",
    "--oauth2-bearer",
    "--unix-socket",
    "--proxy-user",
    "--connect-to",
    "--variable",
    "--expand-url",
    "--aws-sigv4",
    "--trace",
    "--trace-ascii",
    "--stderr",
];
const WGET_SHORT_WITH_VALUE: &str = "OoaeitTwQPUIXDAlRBY";

/// When `command` is a `curl` or `wget` call that would print: which, and its URL.
pub fn printing_fetch(command: &ShellCommand) -> Option<PrintingFetch> {
    let argv = command.effective_argv();
    let program = basename(&argv.first()?.text);
    let program = program.strip_suffix(".exe").unwrap_or(program);
    let stdout_captured = command.redirects.iter().any(|r| r.captures_stdout())
        || command
            .pipes_into
            .as_deref()
            .is_some_and(|next| CONSUMERS.contains(&next));
    let stderr_captured = command.redirects.iter().any(|r| r.captures_stderr());
    let (name, printing) = match program {
        "curl" => (
            "curl",
            curl_prints(&argv[1..], stdout_captured, stderr_captured),
        ),
        "wget" => (
            "wget",
            wget_prints(&argv[1..], stdout_captured, stderr_captured),
        ),
        _ => return None,
    };
    printing.map(|url| PrintingFetch { program: name, url })
}

/// A cursor over a command's arguments, so an option can take the next one as its value.
struct Options<'a> {
    args: &'a [Word],
    index: usize,
}

impl<'a> Options<'a> {
    fn next_value(&mut self) -> Option<&'a str> {
        let value = self.args.get(self.index).map(|w| w.text.as_str());
        self.index += 1;
        value
    }
}

/// `Some(url)` when curl would print the response (or its progress meter).
fn curl_prints(
    args: &[Word],
    stdout_captured: bool,
    stderr_captured: bool,
) -> Option<Option<String>> {
    let (mut silent, mut to_file, mut info_only) = (stderr_captured, stdout_captured, false);
    let mut url: Option<String> = None;
    let mut options = Options { args, index: 0 };
    let mut only_operands = false;
    while let Some(arg) = options.next_value() {
        if only_operands || !arg.starts_with('-') || arg == "-" {
            url.get_or_insert_with(|| arg.to_string());
        } else if arg == "--" {
            only_operands = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let name = format!("--{name}");
            let mut value = || inline.or_else(|| options.next_value());
            match name.as_str() {
                "--version" | "--help" | "--manual" | "--head" => info_only = true,
                "--silent" => silent = true,
                "--remote-name" | "--remote-name-all" => to_file = true,
                "--output" => to_file |= value().is_some_and(|v| v != "-"),
                "--url" => url = value().map(str::to_string).or(url),
                n if CURL_LONG_WITH_VALUE.contains(&n) => {
                    value();
                }
                _ => {}
            }
        } else {
            let cluster: Vec<char> = arg[1..].chars().collect();
            for (k, flag) in cluster.iter().enumerate() {
                match flag {
                    's' => silent = true,
                    'V' | 'h' | 'M' | 'I' => info_only = true,
                    'O' => to_file = true,
                    c if CURL_SHORT_WITH_VALUE.contains(*c) => {
                        let attached: String = cluster[k + 1..].iter().collect();
                        let value = if attached.is_empty() {
                            options.next_value().map(str::to_string)
                        } else {
                            Some(attached)
                        };
                        if *c == 'o' {
                            to_file |= value.is_some_and(|v| v != "-");
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    let quiet_download = to_file && silent;
    (!info_only && !quiet_download && url.is_some()).then_some(url)
}

/// `Some(url)` when wget would print the document or its progress output.
fn wget_prints(
    args: &[Word],
    stdout_captured: bool,
    stderr_captured: bool,
) -> Option<Option<String>> {
    let (mut quiet, mut to_stdout, mut info_only) = (stderr_captured, false, false);
    let mut url: Option<String> = None;
    let mut options = Options { args, index: 0 };
    while let Some(arg) = options.next_value() {
        if !arg.starts_with('-') {
            url.get_or_insert_with(|| arg.to_string());
        } else if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let mut value = || inline.or_else(|| options.next_value());
            match name {
                "version" | "help" | "spider" => info_only = true,
                "quiet" | "no-verbose" => quiet = true,
                "output-document" => to_stdout = value() == Some("-"),
                "output-file" | "append-output" => {
                    value();
                    quiet = true;
                }
                _ => {}
            }
        } else if arg.len() == 3 && arg.starts_with("-n") {
            quiet |= arg == "-nv";
        } else {
            let cluster: Vec<char> = arg[1..].chars().collect();
            for (k, flag) in cluster.iter().enumerate() {
                match flag {
                    'q' => quiet = true,
                    'V' | 'h' => info_only = true,
                    c if WGET_SHORT_WITH_VALUE.contains(*c) => {
                        let attached: String = cluster[k + 1..].iter().collect();
                        let value = if attached.is_empty() {
                            options.next_value().map(str::to_string)
                        } else {
                            Some(attached)
                        };
                        match c {
                            'O' => to_stdout = value.as_deref() == Some("-"),
                            'o' | 'a' => quiet = true,
                            _ => {}
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    let body_printed = to_stdout && !stdout_captured;
    (!info_only && url.is_some() && (body_printed || !quiet)).then_some(url)
}

/// Calls in interpreter code that make an HTTP request.
const HTTP_CALL_MARKERS: &[&str] = &[
    "requests.",
    "urlopen(",
    "urllib.request",
    "urllib3",
    "http.client",
    "httpx.",
    "aiohttp",
    "fetch(",
    "http.get(",
    "https.get(",
    "http.request(",
    "https.request(",
    "axios",
    "got(",
    "require('https')",
    "require(\"https\")",
    "require('http')",
    "require(\"http\")",
    "Net::HTTP",
    "URI.open",
    "open-uri",
    "Faraday",
    "HTTParty",
    "LWP::",
    "HTTP::Tiny",
    "file_get_contents('http",
    "file_get_contents(\"http",
    "curl_exec(",
    "httr::",
    "download.file(",
    "HTTPoison",
    "Req.get",
    ":httpc.",
];

/// True when `command` runs inline interpreter code (`python3 -c`, `node -e`,
/// an interpreter reading a heredoc) that makes HTTP requests.
pub fn inline_http(command: &ShellCommand) -> bool {
    command
        .inline_code()
        .is_some_and(|(_, code)| HTTP_CALL_MARKERS.iter().any(|marker| code.contains(marker)))
}

#[cfg(test)]
mod tests;

//! What a parsed command runs: its program once wrappers (`sudo`, `env`,
//! `timeout`, …) are looked through, the strings rules are matched against,
//! and code it hands to another shell or interpreter.

use super::{ShellCommand, Word};
use crate::embedded::Language;

/// How many nested wrappers (`sudo timeout 5 nice …`) are looked through.
const MAX_WRAPPERS: usize = 16;

impl ShellCommand {
    /// The words after leading `NAME=value` assignments.
    pub fn argv(&self) -> &[Word] {
        let assignments = self.words.iter().take_while(|w| is_assignment(w)).count();
        &self.words[assignments..]
    }

    /// The argument vectors from the outermost program to the innermost one:
    /// `sudo timeout 5 curl x` gives `sudo …`, `timeout …`, `curl x`.
    pub fn unwrapped(&self) -> Vec<&[Word]> {
        let mut levels = vec![self.argv()];
        while levels.len() <= MAX_WRAPPERS {
            let Some(inner) = levels.last().and_then(|argv| strip_wrapper(argv)) else {
                break;
            };
            levels.push(inner);
        }
        levels
    }

    /// The program that finally runs, with its arguments.
    pub fn effective_argv(&self) -> &[Word] {
        let mut argv = self.argv();
        for _ in 0..MAX_WRAPPERS {
            match strip_wrapper(argv) {
                Some(inner) => argv = inner,
                None => break,
            }
        }
        argv
    }

    /// The base name of the program that finally runs (`curl` for `/usr/bin/curl`).
    pub fn program(&self) -> Option<&str> {
        self.effective_argv().first().map(|w| basename(&w.text))
    }

    /// The command as written, words joined by one space (assignments included).
    pub fn text(&self) -> String {
        join(self.words.iter().map(|w| w.raw.as_str()))
    }

    /// The strings a `Bash(…)` rule is matched against. The command as written
    /// and with quotes removed, so `"sudo" rm` cannot slip past `Bash(sudo *)`.
    /// With `look_through_wrappers`, also each program under a wrapper
    /// (`sudo rm -rf /` is also `rm -rf /`): used for deny and ask rules only,
    /// so an allow rule for `rm` never grants `sudo rm`.
    pub fn rule_candidates(&self, look_through_wrappers: bool) -> Vec<String> {
        let mut out = vec![self.text()];
        let levels = self.unwrapped();
        let used = if look_through_wrappers {
            levels.len()
        } else {
            1
        };
        for argv in &levels[..used] {
            out.push(join(argv.iter().map(|w| w.raw.as_str())));
            out.push(join(argv.iter().map(|w| w.text.as_str())));
        }
        out.retain(|s| !s.is_empty());
        out.dedup();
        out
    }

    /// The code and its language when this command runs inline interpreter
    /// code: `python3 -c CODE`, `node -e CODE`, `ruby -e`, `perl -e`, `php -r`,
    /// or an interpreter reading a heredoc on stdin.
    pub fn inline_code(&self) -> Option<(Language, String)> {
        let argv = self.effective_argv();
        let program = basename(&argv.first()?.text);
        let (language, flags): (Language, &[&str]) = if program.starts_with("python") {
            (Language::Python, &["-c"])
        } else if matches!(program, "node" | "nodejs" | "bun") {
            (Language::JavaScript, &["-e", "--eval", "-p", "--print"])
        } else if program == "deno" {
            (Language::JavaScript, &["eval"])
        } else if program == "ruby" {
            (Language::Ruby, &["-e"])
        } else if program == "perl" {
            (Language::Perl, &["-e", "-E"])
        } else if program == "php" {
            (Language::Php, &["-r"])
        } else if program == "Rscript" {
            (Language::R, &["-e"])
        } else if program == "elixir" {
            (Language::Elixir, &["-e"])
        } else {
            return None;
        };
        let mut args = argv[1..].iter();
        while let Some(arg) = args.next() {
            if flags.contains(&arg.text.as_str()) {
                return args.next().map(|code| (language, code.text.clone()));
            }
            if let Some(code) = flags
                .iter()
                .find_map(|f| arg.text.strip_prefix(&format!("{f}=")))
            {
                return Some((language, code.to_string()));
            }
        }
        let reads_script_file = argv[1..].iter().any(|w| !w.text.starts_with('-'));
        if !self.stdin_texts.is_empty() && !reads_script_file {
            return Some((language, self.stdin_texts.join("\n")));
        }
        None
    }
}

/// The part of a path after its last `/` (or `\`).
pub fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Quotes `word` for a POSIX shell when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn join<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    parts.collect::<Vec<_>>().join(" ")
}

fn is_assignment(word: &Word) -> bool {
    let Some((name, _)) = word.raw.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Options of each wrapper that take a separate value.
fn wrapper_value_options(wrapper: &str) -> Option<&'static [&'static str]> {
    Some(match wrapper {
        "sudo" | "doas" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"],
        "env" => &["-u", "-C", "--unset", "--chdir"],
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p", "-P", "-u"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "stdbuf" => &["-i", "-o", "-e"],
        "xargs" => &[
            "-I",
            "-n",
            "-P",
            "-d",
            "-L",
            "-s",
            "-E",
            "-a",
            "-e",
            "--max-args",
            "--max-procs",
            "--delimiter",
        ],
        "npx" | "bunx" | "pnpx" => &["-p", "--package"],
        "exec" => &["-a"],
        "nohup" | "builtin" | "unbuffer" | "chronic" | "command" => &[],
        _ => return None,
    })
}

/// The program under a wrapper: `sudo -u bob make` → `make`.
fn strip_wrapper(argv: &[Word]) -> Option<&[Word]> {
    let wrapper = basename(&argv.first()?.text);
    let value_options = wrapper_value_options(wrapper)?;
    let mut i = 1;
    while let Some(word) = argv.get(i) {
        let arg = word.text.as_str();
        if arg == "--" {
            i += 1;
            break;
        }
        if wrapper == "command" && matches!(arg, "-v" | "-V") {
            // `command -v curl` asks where curl is; it runs nothing.
            return None;
        }
        if wrapper == "env" && is_assignment(word) {
            i += 1;
        } else if arg.starts_with('-') && arg.len() > 1 {
            i += if value_options.contains(&arg) { 2 } else { 1 };
        } else {
            break;
        }
    }
    if wrapper == "timeout" {
        i += 1; // the duration
    }
    let inner = argv.get(i..)?;
    (!inner.is_empty()).then_some(inner)
}

/// The code a command hands to another shell: `bash -c CODE`, `sh -lc CODE`,
/// `su -c CODE`, `eval WORDS…`, `watch WORDS…`.
pub(super) fn shell_string_argument(argv: &[Word]) -> Option<String> {
    let program = basename(&argv.first()?.text);
    let rest = &argv[1..];
    match program {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish" | "su" => {
            let mut args = rest.iter();
            while let Some(arg) = args.next() {
                let text = arg.text.as_str();
                if let Some(code) = text.strip_prefix("--command=") {
                    return Some(code.to_string());
                }
                let is_c_cluster = text.starts_with('-')
                    && !text.starts_with("--")
                    && text[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && text.contains('c');
                if is_c_cluster || text == "--command" {
                    return args.next().map(|code| code.text.clone());
                }
                if !text.starts_with('-') && program != "su" {
                    return None;
                }
            }
            None
        }
        "eval" => Some(join(rest.iter().map(|w| w.text.as_str()))),
        "watch" => {
            let mut i = 0;
            while let Some(word) = rest.get(i) {
                if !word.text.starts_with('-') {
                    break;
                }
                i += if matches!(word.text.as_str(), "-n" | "--interval") {
                    2
                } else {
                    1
                };
            }
            let words = rest.get(i..)?;
            (!words.is_empty()).then(|| join(words.iter().map(|w| w.text.as_str())))
        }
        _ => None,
    }
}

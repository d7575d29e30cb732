//! A quote-, heredoc- and substitution-aware reading of shell command lines.
//!
//! Permission rules and routing rules look at the *commands* a line runs, never
//! at text that is only data: `gh issue edit --body "mention curl"` runs `gh`,
//! while `echo "$(curl -s x)"` runs both `echo` and `curl`. [`split`] turns a
//! line into every simple command it would run, including the ones inside
//! `$(…)`, backticks, `( … )` subshells, `sh -c '…'` strings and shell calls
//! embedded in `python3 -c` / `node -e` code.

mod command;
mod parser;
mod syntax;

pub use command::{basename, shell_quote};

use crate::embedded;

/// How deep `sh -c` strings and interpreter code are read structurally;
/// deeper code is read flat (see `parser::parse_flat`).
const MAX_NESTING: usize = 8;

/// One word of a command after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The value the program receives (quotes removed, escapes applied).
    pub text: String,
    /// The word as written on the line.
    pub raw: String,
    /// True when any part of the word was quoted.
    pub quoted: bool,
}

/// One redirection of a simple command, e.g. `2>/dev/null` or `> out.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor written before the operator, if any (`2` in `2>`).
    pub fd: Option<u32>,
    /// The operator: `>`, `>>`, `>|`, `<`, `<>`, `>&`, `<&`, `&>`, `&>>`, `<<`, `<<-`, `<<<`.
    pub op: String,
    /// The target word (file, descriptor, heredoc delimiter or here-string).
    pub target: String,
}

impl Redirect {
    /// True when this redirection sends standard output to a real file, so the
    /// command's output never reaches the agent.
    pub fn captures_stdout(&self) -> bool {
        let writes_stdout = match self.op.as_str() {
            ">" | ">>" | ">|" | ">&" => self.fd.is_none_or(|fd| fd == 1),
            "&>" | "&>>" => true,
            _ => false,
        };
        writes_stdout && is_file_target(&self.target)
    }

    /// True when this redirection sends standard error away from the agent.
    pub fn captures_stderr(&self) -> bool {
        match self.op.as_str() {
            "&>" | "&>>" => is_file_target(&self.target),
            ">" | ">>" | ">|" => self.fd == Some(2) && is_file_target(&self.target),
            _ => false,
        }
    }
}

fn is_file_target(target: &str) -> bool {
    !target.is_empty()
        && !target.chars().all(|c| c.is_ascii_digit() || c == '-')
        && !matches!(
            target,
            "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/fd/1"
        )
}

/// Where a command sits, which decides whether its output reaches the agent.
/// Ordered: a nested command keeps the strongest origin of its ancestors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// Runs with its output going to the call's output (top level, subshell, `sh -c`).
    Direct,
    /// Inside `$(…)`, backticks or `<(…)`: its output is captured by the line.
    Captured,
    /// A shell call found in interpreter code (`os.system(…)` inside `python3 -c`).
    Embedded,
}

/// One simple command: words, redirections, and what it reads on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCommand {
    /// All words, leading `NAME=value` assignments included; reserved words
    /// (`if`, `then`, `do`, `{`, `!`, `time`, …) removed.
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Heredoc bodies and here-strings fed to the command.
    pub stdin_texts: Vec<String>,
    /// True when the command reads the previous command's output through `|`.
    pub piped_in: bool,
    /// The program the output is piped into (`head` in `git log | head`).
    pub pipes_into: Option<String>,
    pub origin: Origin,
}

/// Every simple command `line` would run, in source order for each level of
/// nesting (commands of `$(…)`, `sh -c`, and embedded interpreter code follow
/// the commands that contain them).
pub fn split(line: &str) -> Vec<ShellCommand> {
    split_nested(line, Origin::Direct, 0)
}

fn split_nested(line: &str, origin: Origin, depth: usize) -> Vec<ShellCommand> {
    if depth > MAX_NESTING {
        return parser::parse_flat(line, origin);
    }
    let mut commands = parser::parse(line, origin);
    let mut nested = Vec::new();
    for command in &commands {
        let argv = command.effective_argv();
        if let Some(code) = command::shell_string_argument(argv) {
            nested.extend(split_nested(&code, command.origin, depth + 1));
        }
        if let Some((language, code)) = command.inline_code() {
            for shell_call in embedded::shell_commands(language, &code) {
                nested.extend(split_nested(&shell_call, Origin::Embedded, depth + 1));
            }
        }
    }
    commands.extend(nested);
    commands
}

#[cfg(test)]
mod tests;

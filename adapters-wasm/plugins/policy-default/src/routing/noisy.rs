//! Shell commands whose output is large by nature: build tools (redirected)
//! and searches, recursive listings, logs and test runs (one nudge).

use crate::shell::{ShellCommand, Word};

/// Programs that bound what reaches the agent when output is piped into them.
const BOUNDING_FILTERS: &[&str] = &["head", "tail", "wc", "grep", "egrep", "fgrep", "rg"];

/// True when the command's output never reaches the agent whole: piped into
/// a filter that bounds it, or written to a file.
fn output_bounded(command: &ShellCommand) -> bool {
    command
        .pipes_into
        .as_deref()
        .is_some_and(|next| BOUNDING_FILTERS.contains(&next))
        || command.redirects.iter().any(|r| r.captures_stdout())
}

fn texts(args: &[Word]) -> impl Iterator<Item = &str> {
    args.iter().map(|w| w.text.as_str())
}

/// A short-option cluster (`-laR`) containing `flag`, or the long form.
fn has_flag(args: &[Word], short: char, long: &str) -> bool {
    texts(args).any(|a| {
        a == long
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a[1..].chars().all(|c| c.is_ascii_alphanumeric())
                && a[1..].contains(short))
    })
}

/// The program name without a Windows script suffix (`gradlew.bat` → `gradlew`).
fn program_of(command: &ShellCommand) -> Option<&str> {
    let program = command.program()?;
    Some(
        program
            .strip_suffix(".bat")
            .or_else(|| program.strip_suffix(".cmd"))
            .unwrap_or(program),
    )
}

/// Gradle, Maven and sbt runs that print their whole build log.
pub fn is_build_tool(command: &ShellCommand) -> bool {
    let Some(program) = program_of(command) else {
        return false;
    };
    if !matches!(program, "gradle" | "gradlew" | "mvn" | "mvnw" | "sbt") || output_bounded(command)
    {
        return false;
    }
    let args = &command.effective_argv()[1..];
    let probe_or_quiet = texts(args).any(|a| {
        matches!(
            a,
            "-v" | "--version"
                | "-version"
                | "-h"
                | "--help"
                | "-help"
                | "help"
                | "-q"
                | "--quiet"
                | "-quiet"
                | "about"
        )
    });
    !probe_or_quiet
}

/// Commands that print a lot for their kind: recursive finds and listings,
/// recursive greps, log dumps, unbounded `git log`, test and build runs.
/// Returns the short name used in the nudge (e.g. `git log`).
pub fn noisy_command(command: &ShellCommand) -> Option<String> {
    if output_bounded(command) {
        return None;
    }
    let argv = command.effective_argv();
    let program = program_of(command)?;
    let args = &argv[1..];
    let named = |noisy: bool, name: String| noisy.then_some(name);
    let plain = |noisy: bool| noisy.then(|| program.to_string());
    let with_operand = |noisy: bool| {
        noisy.then(|| format!("{program} {}", first_operand(args).unwrap_or_default()))
    };
    match program {
        "find" => {
            let start: Vec<&str> = texts(args)
                .take_while(|a| !a.starts_with('-') && !matches!(*a, "(" | "!"))
                .collect();
            let wide = start.is_empty()
                || start
                    .iter()
                    .any(|s| matches!(*s, "." | "./" | "/" | "~" | "~/" | ".." | "$HOME"));
            plain(wide && !texts(args).any(|a| matches!(a, "-maxdepth" | "-quit")))
        }
        "ls" => plain(has_flag(args, 'R', "--recursive")),
        "tree" => {
            plain(!texts(args).any(|a| a.starts_with("-L") || a == "--help" || a == "--version"))
        }
        "grep" | "egrep" | "fgrep" => {
            let recursive = has_flag(args, 'r', "--recursive")
                || has_flag(args, 'R', "--dereference-recursive");
            plain(recursive && !quiet_search(args))
        }
        "rg" | "ag" | "ack" => plain(
            !quiet_search(args)
                && !texts(args).any(|a| matches!(a, "--version" | "-V" | "--help" | "-h")),
        ),
        "cat" | "bat" | "less" | "more" => plain(texts(args).any(is_log_path)),
        "git" => {
            let (subcommand, rest) = git_subcommand(args)?;
            named(git_noisy(subcommand, rest), format!("git {subcommand}"))
        }
        "docker" | "podman" | "kubectl" | "oc" | "docker-compose" => {
            named(logs_without_tail(args), format!("{program} logs"))
        }
        "journalctl" => {
            plain(!texts(args).any(|a| a.starts_with("-n") || a.starts_with("--lines")))
        }
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = test_script(args)?;
            Some(format!("{program} {script}"))
        }
        "pytest" | "py.test" | "jest" | "vitest" | "mocha" | "rspec" | "phpunit" | "tox"
        | "nox" => plain(true),
        "python" | "python3" => {
            let words: Vec<&str> = texts(args).collect();
            let module = words
                .windows(2)
                .find(|w| w[0] == "-m" && matches!(w[1], "pytest" | "unittest"))?;
            Some(format!("{program} -m {}", module[1]))
        }
        "cargo" => with_operand(matches!(
            first_operand(args),
            Some("test" | "build" | "clippy" | "nextest")
        )),
        "go" | "mix" => with_operand(first_operand(args) == Some("test")),
        "dotnet" => with_operand(matches!(first_operand(args), Some("test" | "build"))),
        _ => None,
    }
}

fn first_operand(args: &[Word]) -> Option<&str> {
    texts(args).find(|a| !a.starts_with('-'))
}

/// `-q`, `-l`, `-c` style flags make a search print little.
fn quiet_search(args: &[Word]) -> bool {
    texts(args).any(|a| {
        matches!(
            a,
            "--quiet"
                | "--count"
                | "--files-with-matches"
                | "--files-without-match"
                | "--count-matches"
        ) || (a.starts_with('-')
            && !a.starts_with("--")
            && a[1..].chars().any(|c| matches!(c, 'q' | 'l' | 'c' | 'L')))
    })
}

fn is_log_path(arg: &str) -> bool {
    arg.ends_with(".log") || arg.contains(".log.") || arg.starts_with("/var/log/")
}

/// The git subcommand after global options (`git -C dir --no-pager log`), and its arguments.
fn git_subcommand(args: &[Word]) -> Option<(&str, &[Word])> {
    let mut i = 0;
    while let Some(arg) = args.get(i).map(|w| w.text.as_str()) {
        if matches!(arg, "-C" | "-c" | "--git-dir" | "--work-tree") {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            return Some((arg, &args[i + 1..]));
        }
    }
    None
}

/// `git log` without a count or date limit, and `git grep`.
fn git_noisy(subcommand: &str, args: &[Word]) -> bool {
    match subcommand {
        "log" => !texts(args).any(|a| {
            a == "-n"
                || a.starts_with("--max-count")
                || a.starts_with("--since")
                || a.starts_with("--after")
                || (a.len() > 2
                    && a.starts_with("-n")
                    && a[2..].chars().all(|c| c.is_ascii_digit()))
                || (a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| c.is_ascii_digit()))
        }),
        "grep" => true,
        _ => false,
    }
}

/// `docker logs`, `docker compose logs`, `kubectl logs` without `--tail`.
fn logs_without_tail(args: &[Word]) -> bool {
    let words: Vec<&str> = texts(args).collect();
    let has_logs = words.iter().take(3).any(|w| *w == "logs");
    has_logs
        && !words
            .iter()
            .any(|w| w.starts_with("--tail") || *w == "-n" || w.starts_with("--since"))
}

/// `npm test`, `npm t`, `npm run test:unit`, `yarn test`, `bun test`, …: the script words.
fn test_script(args: &[Word]) -> Option<String> {
    let operands: Vec<&str> = texts(args).filter(|a| !a.starts_with('-')).collect();
    match operands.as_slice() {
        [first, ..] if matches!(*first, "test" | "t" | "tst") => Some(first.to_string()),
        [run, script, ..] if matches!(*run, "run" | "run-script") && script.starts_with("test") => {
            Some(format!("{run} {script}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;

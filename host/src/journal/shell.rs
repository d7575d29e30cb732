//! Rows from successful shell commands: git operations, environment changes (cwd,
//! virtualenvs, node/python/rust versions, worktrees), package installs and issue
//! references of `gh`.

use super::Category;
use super::extract::{Extracted, NewEntry};
use super::redact::redact;
use super::text::{clip, command_words, cut, one_line, program_name, shell_segments, with_fields};
use super::view::JournalView;
use crate::limits::JOURNAL_SUMMARY_MAX_BYTES;

/// Programs that only set up the real command of a line.
const SETUP_PROGRAMS: &[&str] = &[
    "cd", "pushd", "popd", "export", "source", ".", "set", "true", ":", "unset",
];

/// `program subcommand` of the first real command of a line: `cd x && cargo test -p a`
/// → `cargo test`; `npm run build` → `npm run build`.
pub fn main_command(command: &str) -> String {
    main_call(command).0
}

/// [`main_command`] and the words that follow the program in that command.
pub fn main_call(command: &str) -> (String, Vec<String>) {
    for segment in shell_segments(command) {
        let words = command_words(&segment);
        let Some(first) = words.first() else {
            continue;
        };
        let program = program_name(first);
        if SETUP_PROGRAMS.contains(&program) {
            continue;
        }
        let args: Vec<&str> = words[1..]
            .iter()
            .map(String::as_str)
            .filter(|w| !w.starts_with('-'))
            .collect();
        let mut key = program.to_string();
        if let Some(sub) = args.first() {
            key.push(' ');
            key.push_str(sub);
            if matches!(*sub, "run" | "exec" | "x" | "dlx" | "run-script")
                && let Some(script) = args.get(1)
            {
                key.push(' ');
                key.push_str(script);
            }
        }
        return (key, words[1..].to_vec());
    }
    (String::new(), Vec::new())
}

/// Git subcommands that change state (P2); `add` is P3; read-only ones P4.
const GIT_CHANGES: &[&str] = &[
    "checkout",
    "switch",
    "commit",
    "merge",
    "rebase",
    "stash",
    "push",
    "pull",
    "reset",
    "revert",
    "cherry-pick",
    "am",
    "apply",
    "restore",
    "rm",
    "mv",
    "tag",
    "clone",
    "fetch",
    "init",
    "worktree",
    "branch",
];
const GIT_READS: &[&str] = &["status", "diff", "log", "show"];

/// The rows of a successful shell command.
pub fn rows(command: &str, output: &str, view: &JournalView<'_>, out: &mut Extracted) {
    let command = redact(command);
    for segment in shell_segments(&command) {
        let words = command_words(&segment);
        let Some(first) = words.first() else {
            continue;
        };
        let program = program_name(first).to_string();
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        if program == "git" {
            git_row(&segment, &args, output, out);
        }
        env_rows(&program, &args, &segment, view, out);
        if program == "gh"
            && matches!(args.first(), Some(&("issue" | "pr")))
            && let Some(number) = args
                .iter()
                .skip(2)
                .find(|a| a.chars().all(|c| c.is_ascii_digit()) && !a.is_empty())
        {
            out.push(NewEntry::new(
                Category::Reference,
                format!("reference #{number}"),
            ));
        }
    }
}

fn git_row(segment: &str, args: &[&str], output: &str, out: &mut Extracted) {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match *arg {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(sub) = args.get(i).copied() else {
        return;
    };
    let rest = &args[i + 1..];
    let priority = if sub == "branch"
        && !rest
            .iter()
            .any(|a| !a.starts_with('-') || matches!(*a, "-d" | "-D" | "-m" | "-M" | "-c" | "-C"))
    {
        4
    } else if GIT_CHANGES.contains(&sub) {
        2
    } else if sub == "add" {
        3
    } else if GIT_READS.contains(&sub) {
        4
    } else {
        return;
    };
    let shown = segment.find("git").map_or(segment, |at| &segment[at..]);
    let mut entry = NewEntry::new(
        Category::Git,
        clip(&one_line(shown), JOURNAL_SUMMARY_MAX_BYTES),
    )
    .priority(priority);
    if priority == 2 {
        entry = entry.data(cut(&redact(cut(output, 2048)), 400).to_string());
    }
    out.push(entry);
}

fn env_rows(
    program: &str,
    args: &[&str],
    segment: &str,
    view: &JournalView<'_>,
    out: &mut Extracted,
) {
    let first = args.first().copied().unwrap_or("");
    let second = args.get(1).copied().unwrap_or("");
    let slot_row = |slot: &str, summary: String, out: &mut Extracted| {
        let current = view
            .latest_slot(Category::Env, slot)
            .map(|r| r.summary.as_str());
        if current != Some(summary.as_str()) {
            out.push(
                NewEntry::new(Category::Env, summary)
                    .data(with_fields(&[("slot", slot.to_string())], ""))
                    .refresh(),
            );
        }
    };
    match (program, first) {
        ("cd" | "pushd", dir) if !dir.is_empty() && dir != "-" => {
            slot_row("cwd", format!("cwd: {}", clip(dir, 200)), out);
        }
        ("source" | ".", script) if script.ends_with("/activate") => {
            let env = script
                .trim_end_matches("/activate")
                .trim_end_matches("/bin")
                .trim_end_matches("/Scripts");
            slot_row(
                "python-env",
                format!("python venv: {}", clip(env, 200)),
                out,
            );
        }
        ("deactivate", _) => slot_row("python-env", "python venv: none".into(), out),
        ("conda" | "mamba" | "micromamba", "activate") if !second.is_empty() => {
            slot_row(
                "python-env",
                format!("conda env: {}", clip(second, 120)),
                out,
            );
        }
        ("conda" | "mamba" | "micromamba", "deactivate") => {
            slot_row("python-env", "python venv: none".into(), out)
        }
        ("nvm" | "fnm", "use") if !second.is_empty() => {
            slot_row("node", format!("node: {}", clip(second, 60)), out)
        }
        ("pyenv", "local" | "shell" | "global") if !second.is_empty() => {
            slot_row("python", format!("python: {}", clip(second, 60)), out);
        }
        ("rustup", "default") if !second.is_empty() => {
            slot_row("rust", format!("rust toolchain: {}", clip(second, 60)), out)
        }
        ("git", "worktree") if second == "add" => {
            out.push(NewEntry::new(
                Category::Env,
                clip(
                    &format!("worktree: {}", one_line(&args[2..].join(" "))),
                    JOURNAL_SUMMARY_MAX_BYTES,
                ),
            ));
        }
        _ => {}
    }
    let venv = matches!((program, first), ("virtualenv", _) | ("uv", "venv"))
        || (program.starts_with("python") && first == "-m" && second == "venv");
    let install = match program {
        "npm" | "pnpm" | "yarn" | "bun" => matches!(first, "install" | "i" | "add" | "ci"),
        "pip" | "pip3" | "gem" | "brew" | "apt" | "apt-get" | "dnf" | "yum" | "apk" => {
            first == "install" || first == "add"
        }
        "uv" => first == "add" || (first == "pip" && second == "install"),
        "poetry" | "cargo" => matches!(first, "add" | "install"),
        "go" => matches!(first, "get" | "install"),
        "composer" => first == "require",
        "dotnet" => first == "add" && second == "package",
        p if p.starts_with("python") => {
            first == "-m" && second == "pip" && args.get(2) == Some(&"install")
        }
        _ => false,
    };
    if venv || install {
        let what = if venv { "created venv" } else { "installed" };
        out.push(NewEntry::new(
            Category::Env,
            clip(
                &format!("{what}: {}", one_line(segment)),
                JOURNAL_SUMMARY_MAX_BYTES,
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_command_skips_setup_and_keeps_the_subcommand() {
        assert_eq!(
            main_command("cd host && cargo test -p parser 2>&1 | tail -30"),
            "cargo test"
        );
        assert_eq!(
            main_command("FOO=1 npm run build -- --watch"),
            "npm run build"
        );
        assert_eq!(
            main_command("source .venv/bin/activate; pytest tests/a.py -x"),
            "pytest tests/a.py"
        );
        assert_eq!(main_command("ls"), "ls");
    }

    #[test]
    fn git_and_env_rows() {
        let rows_of = |command: &str| {
            let mut out = Extracted::default();
            rows(
                command,
                "[main 1a2b3c4] fix parser",
                &JournalView::new(&[]),
                &mut out,
            );
            out.entries
                .into_iter()
                .map(|e| (e.category, e.priority, e.summary))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            rows_of("cd app && git add -A && git commit -m \"fix parser\""),
            vec![
                (Category::Env, 3, "cwd: app".to_string()),
                (Category::Git, 3, "git add -A".to_string()),
                (Category::Git, 2, "git commit -m \"fix parser\"".to_string()),
            ]
        );
        assert_eq!(
            rows_of("git -C repo status")[0],
            (Category::Git, 4, "git -C repo status".into())
        );
        assert_eq!(rows_of("git branch")[0].1, 4);
        assert_eq!(rows_of("git branch -D old")[0].1, 2);
        assert!(rows_of("git rev-parse HEAD").is_empty());
        assert_eq!(rows_of("pnpm add zod")[0].2, "installed: pnpm add zod");
        assert_eq!(
            rows_of("source .venv/bin/activate")[0].2,
            "python venv: .venv"
        );
        assert_eq!(rows_of("nvm use 20")[0].2, "node: 20");
        assert_eq!(
            rows_of("git worktree add ../wt feature")[1].2,
            "worktree: ../wt feature"
        );
        assert_eq!(rows_of("gh pr view 42")[0].2, "reference #42");
        assert!(rows_of("echo 'git push'").is_empty());
    }
}

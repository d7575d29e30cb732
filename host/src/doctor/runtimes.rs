//! One row per sandbox language: the program that runs it and its version, or how to
//! install it. Each language is probed on its own thread (see `super::run`).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Check;
use crate::limits::DOCTOR_VERSION_PROBE_TIMEOUT_MS;
use crate::sandbox::catalog::{self, RuntimeSpec};
use crate::sandbox::detect::{Lookup, Os, Rejected, Runtimes};

/// A language check to run on its own thread.
pub type RuntimeCheck = Box<dyn FnOnce() -> Vec<Check> + Send>;

/// The row name of a language.
pub fn row_name(language: &str) -> String {
    format!("runtime {language}")
}

/// One check per known language (embedded and `<data root>/runtimes/*.toml`).
pub fn checks(deadline: Instant) -> Vec<(String, RuntimeCheck)> {
    let user_dir = crate::paths::data_root()
        .ok()
        .map(|root| root.join("runtimes"));
    let specs = catalog::load(user_dir.as_deref());
    let path = std::env::var_os("PATH");
    let lookup = Lookup::current(path.as_deref());
    let runtimes = Arc::new(Runtimes::from_specs_with(specs.clone(), &lookup));
    let path = Arc::new(path.unwrap_or_default());
    specs
        .into_iter()
        .map(|spec| {
            let name = row_name(&spec.name);
            let runtimes = runtimes.clone();
            let path = path.clone();
            let os = lookup.os;
            let check: RuntimeCheck =
                Box::new(move || vec![language_check(&runtimes, &spec, &path, os, deadline)]);
            (name, check)
        })
        .collect()
}

/// The row of one language: the program that will run it (on Windows for `shell`:
/// Git Bash, or the fallback shell with a warning that says why), or why none can.
fn language_check(
    runtimes: &Runtimes,
    spec: &RuntimeSpec,
    path: &OsStr,
    os: Os,
    deadline: Instant,
) -> Check {
    let name = row_name(&spec.name);
    let hint = || install_hint(&spec.install, path, os.name());
    match runtimes.resolve(&spec.name) {
        Ok(resolved) => {
            let candidate = resolved.candidate();
            let command = &candidate.command;
            let argv = candidate
                .version
                .clone()
                .unwrap_or_else(|| vec!["{cmd}".into(), "--version".into()]);
            let limit = Duration::from_millis(DOCTOR_VERSION_PROBE_TIMEOUT_MS)
                .min(deadline.saturating_duration_since(Instant::now()));
            let version = version_of(&argv, &resolved.program, command, limit)
                .unwrap_or_else(|| "version unknown".into());
            let shown = match candidate.locate.as_deref() {
                Some("git-bash") => format!("Git Bash {version}"),
                _ => format!("{command} {version}"),
            };
            let detail = format!("{shown} ({})", resolved.program.display());
            match &candidate.note {
                Some(note) => Check::warn(name, format!("{detail}: {note}"), hint()),
                None => Check::pass(name, detail),
            }
        }
        Err(_) => {
            let rejected = runtimes.rejected(&spec.name);
            let missing: Vec<&str> = spec
                .candidates
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    c.os.as_ref()
                        .is_none_or(|o| o.iter().any(|o| o == os.name()))
                })
                .filter(|(i, _)| !rejected.iter().any(|r| r.candidate_index == *i))
                .map(|(_, c)| match c.locate.as_deref() {
                    Some("git-bash") => "Git Bash",
                    _ => c.command.as_str(),
                })
                .collect();
            Check::warn(name, unavailable(&spec.name, &missing, &rejected), hint())
        }
    }
}

/// Why no program runs `language`: the ones on `PATH` that fall short of a minimum
/// version (which version, and what the minimum is for), then the ones not found.
fn unavailable(language: &str, missing: &[&str], rejected: &[Rejected]) -> String {
    let mut reasons: Vec<String> = rejected
        .iter()
        .map(|r| {
            let needs = r.why.as_deref().unwrap_or(language);
            match &r.version {
                Some(version) => format!(
                    "{} {version} found ({}), {needs} needs {} ≥ {}",
                    r.command,
                    r.program.display(),
                    r.command,
                    r.min_version
                ),
                None => format!(
                    "{} found ({}) but its version check failed ({needs} needs ≥ {})",
                    r.command,
                    r.program.display(),
                    r.min_version
                ),
            }
        })
        .collect();
    match missing {
        [] => {}
        [one] => reasons.push(format!("{one} not found on PATH")),
        many => reasons.push(format!("none of {} found on PATH", many.join(", "))),
    }
    format!(
        "not available: {}; ctx_execute cannot run {language}",
        reasons.join("; ")
    )
}

/// The install command that fits this machine: the package manager found on `PATH`,
/// else the platform's usual one, else the generic one.
pub fn install_hint(install: &BTreeMap<String, String>, path: &OsStr, os: &str) -> Option<String> {
    let on_path = |program: &str| {
        std::env::split_paths(path)
            .any(|dir| !dir.as_os_str().is_empty() && dir.join(program).is_file())
    };
    let found = [("apt", "apt-get"), ("dnf", "dnf"), ("brew", "brew")]
        .into_iter()
        .find(|(key, program)| install.contains_key(*key) && on_path(program))
        .map(|(key, _)| key);
    let usual = match os {
        "macos" => "brew",
        "windows" => "winget",
        _ => "apt",
    };
    found
        .and_then(|key| install.get(key))
        .or_else(|| install.get(usual))
        .or_else(|| install.get("other"))
        .or_else(|| install.values().next())
        .cloned()
}

/// The version a runtime reports, e.g. `3.1.2`, within `limit`.
fn version_of(argv: &[String], program: &Path, command: &str, limit: Duration) -> Option<String> {
    let argv: Vec<String> = argv
        .iter()
        .map(|a| a.replace("{cmd}", &program.to_string_lossy()))
        .collect();
    let (first, rest) = argv.split_first()?;
    let text = run_bounded(Command::new(first).args(rest), limit)?;
    pick_version(&text, command)
}

/// stdout and stderr of a command that finished within `limit` (killed otherwise).
/// Version output is a few lines, far below a pipe's buffer, so reading after exit
/// cannot deadlock.
fn run_bounded(command: &mut Command, limit: Duration) -> Option<String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut text = String::new();
    child.stdout.take()?.read_to_string(&mut text).ok()?;
    let mut err = String::new();
    let _ = child.stderr.take()?.read_to_string(&mut err);
    text.push('\n');
    text.push_str(&err);
    Some(text)
}

/// The first `N.N(.N)*` of the line naming the command (else of the first line that has
/// one): `Elixir 1.14.0 (compiled with Erlang/OTP 24)` → `1.14.0`.
fn pick_version(text: &str, command: &str) -> Option<String> {
    let command = command.to_ascii_lowercase();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| first_version(l).is_some())
        .collect();
    let line = lines
        .iter()
        .find(|l| l.to_ascii_lowercase().contains(&command))
        .or_else(|| lines.first())?;
    first_version(line)
}

fn first_version(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            let candidate = line[start..i].trim_end_matches('.');
            if candidate.contains('.') {
                return Some(candidate.to_string());
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_found_in_real_outputs() {
        let cases = [
            (
                "ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu]",
                "ruby",
                "3.1.2",
            ),
            ("v20.20.2", "node", "20.20.2"),
            ("go version go1.19.8 linux/amd64", "go", "1.19.8"),
            (
                "\nThis is perl 5, version 36, subversion 0 (v5.36.0) built for x86_64",
                "perl",
                "5.36.0",
            ),
            (
                "Erlang/OTP 25 [erts-13.1.5] [source]\n\nElixir 1.14.0 (compiled with Erlang/OTP 24)",
                "elixir",
                "1.14.0",
            ),
            ("tsx v4.23.15\nnode v20.20.2", "tsx", "4.23.15"),
            (
                "Rscript (R) version 4.2.2 Patched (2022-11-10 r83330)",
                "Rscript",
                "4.2.2",
            ),
        ];
        for (text, command, expected) in cases {
            assert_eq!(
                pick_version(text, command).as_deref(),
                Some(expected),
                "{text}"
            );
        }
        assert_eq!(pick_version("no digits", "x"), None);
    }

    #[test]
    fn the_install_hint_follows_the_package_manager_on_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let install: BTreeMap<String, String> = [
            ("apt", "sudo apt-get install -y ruby"),
            ("brew", "brew install ruby"),
            ("dnf", "sudo dnf install -y ruby"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let empty = dir.path().as_os_str();
        assert_eq!(
            install_hint(&install, empty, "linux").as_deref(),
            Some("sudo apt-get install -y ruby")
        );
        assert_eq!(
            install_hint(&install, empty, "macos").as_deref(),
            Some("brew install ruby")
        );
        std::fs::write(dir.path().join("dnf"), "").expect("write");
        assert_eq!(
            install_hint(&install, empty, "linux").as_deref(),
            Some("sudo dnf install -y ruby")
        );
        assert_eq!(install_hint(&BTreeMap::new(), empty, "linux"), None);
    }

    #[test]
    fn on_windows_the_shell_row_names_git_bash_or_warns_about_the_fallback() {
        use crate::sandbox::detect::tests::{touch, windows};
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let shell: RuntimeSpec = catalog::embedded()
            .into_iter()
            .find(|s| s.name == "shell")
            .expect("shell");
        let row = |path: &[&str]| {
            let lookup = windows(root, path, None);
            let runtimes = Runtimes::from_specs_with(vec![shell.clone()], &lookup);
            let deadline = Instant::now() + Duration::from_secs(2);
            language_check(&runtimes, &shell, OsStr::new(""), Os::Windows, deadline)
        };
        let none = row(&["Windows/System32"]);
        assert_eq!(none.status, super::super::Status::Warn);
        assert!(
            none.detail
                .contains("none of Git Bash, pwsh, powershell, cmd found"),
            "{}",
            none.detail
        );
        assert_eq!(
            none.fix.as_deref(),
            Some("winget install --id Git.Git -e --source winget")
        );
        let cmd = touch(root, "Windows/System32/cmd.exe");
        let fallback = row(&["Windows/System32"]);
        assert_eq!(fallback.status, super::super::Status::Warn);
        assert!(
            fallback.detail.contains(&cmd.display().to_string()),
            "{}",
            fallback.detail
        );
        assert!(
            fallback.detail.contains("ran in cmd.exe, not bash"),
            "{}",
            fallback.detail
        );
        assert!(
            fallback
                .fix
                .as_deref()
                .is_some_and(|f| f.contains("Git.Git"))
        );
        let bash = touch(root, "Program Files/Git/bin/bash.exe");
        let git_bash = row(&["Windows/System32"]);
        assert_eq!(git_bash.status, super::super::Status::Pass);
        assert!(
            git_bash.detail.starts_with("Git Bash "),
            "{}",
            git_bash.detail
        );
        assert!(
            git_bash.detail.ends_with(&format!("({})", bash.display())),
            "{}",
            git_bash.detail
        );
    }

    /// Node 20 on `PATH` cannot strip types: the row names it, its version and the
    /// minimum, instead of counting it among the programs not found.
    #[test]
    fn a_program_below_the_minimum_is_named_with_its_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        crate::sandbox::detect::tests::fake_program(dir.path(), "node", "echo v20.20.2");
        let typescript: RuntimeSpec = catalog::embedded()
            .into_iter()
            .find(|s| s.name == "typescript")
            .expect("typescript");
        let runtimes = Runtimes::from_specs(vec![typescript.clone()], Some(dir.path().as_os_str()));
        let deadline = Instant::now() + Duration::from_secs(5);
        let row = language_check(
            &runtimes,
            &typescript,
            OsStr::new(""),
            Os::current(),
            deadline,
        );
        assert_eq!(row.status, super::super::Status::Warn);
        let node = dir.path().join("node");
        assert_eq!(
            row.detail,
            format!(
                "not available: node 20.20.2 found ({}), type stripping needs node ≥ 22.6; \
                 none of bun, tsx, deno found on PATH; ctx_execute cannot run typescript",
                node.display()
            )
        );
    }

    #[test]
    fn unavailable_says_what_falls_short_and_what_is_missing() {
        let rejected = |version: Option<&str>, why: Option<&str>| Rejected {
            candidate_index: 1,
            command: "dotnet".into(),
            program: "/usr/bin/dotnet".into(),
            version: version.map(str::to_string),
            min_version: "10".into(),
            why: why.map(str::to_string),
        };
        assert_eq!(
            unavailable(
                "csharp",
                &["dotnet-script"],
                &[rejected(Some("8.0.100"), None)]
            ),
            "not available: dotnet 8.0.100 found (/usr/bin/dotnet), csharp needs dotnet ≥ 10; \
             dotnet-script not found on PATH; ctx_execute cannot run csharp"
        );
        assert_eq!(
            unavailable("csharp", &[], &[rejected(None, Some("a .cs file"))]),
            "not available: dotnet found (/usr/bin/dotnet) but its version check failed \
             (a .cs file needs ≥ 10); ctx_execute cannot run csharp"
        );
        assert_eq!(
            unavailable("ruby", &["ruby"], &[]),
            "not available: ruby not found on PATH; ctx_execute cannot run ruby"
        );
    }

    #[test]
    fn every_embedded_language_says_how_to_install_it() {
        for spec in catalog::embedded() {
            assert!(
                !spec.install.is_empty(),
                "runtimes/{}.toml has no [install]",
                spec.name
            );
        }
    }
}

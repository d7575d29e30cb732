//! Which runtimes this machine has. Detection is a `PATH` lookup per candidate at
//! server start (no process is spawned, so it costs well under a millisecond); a
//! candidate with a `probe` (e.g. "node ≥ 22.6 for TypeScript") is checked
//! lazily, once, the first time its language is needed.
//!
//! The lookup follows the system it runs for, chosen in one place ([`Os::current`])
//! and passed in as data ([`Lookup`]), so the Windows rules are tested on any OS over
//! a fake directory tree: candidates marked for another system (`os` in
//! `runtimes/*.toml`) are skipped; on Windows a command is found with `PATHEXT`
//! (`.exe`, `.com`, `.bat`, `.cmd` only: nothing is ever started through a file
//! association), and `shell` runs in Git for Windows' bash, found where its installer
//! puts it ([`Lookup::git_bash`]; never WSL's `System32\bash.exe`), else in
//! PowerShell, else in `cmd.exe`, with a note saying so.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::catalog::{self, Candidate, Probe, RuntimeSpec};
use super::error::SandboxError;

pub use crate::platform::Os;

/// The environment variables a Windows lookup reads besides `PATH` and `PATHEXT`.
const WINDOWS_VARS: [&str; 4] = [
    "ProgramFiles",
    "ProgramW6432",
    "ProgramFiles(x86)",
    "LOCALAPPDATA",
];

/// `PATHEXT` when the variable is unset (Windows' own default, the launchable part).
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// The extensions CreateProcess starts without a file association (`.bat`/`.cmd`
/// through `cmd.exe`, which Rust's `Command` quotes for): any other `PATHEXT` entry
/// (`.JS`, `.VBS`, `.PY`, `.PS1` …) would open whatever program the user associated.
const LAUNCHABLE: [&str; 4] = [".exe", ".com", ".bat", ".cmd"];

/// Everything a program lookup reads: the system, `PATH`'s directories, `PATHEXT`,
/// the install-location variables, and how a file is judged runnable.
#[derive(Debug, Clone)]
pub struct Lookup {
    pub os: Os,
    pub path: Vec<PathBuf>,
    /// Lower-case extensions tried after a bare command on Windows, in order.
    pub pathext: Vec<String>,
    /// `ProgramFiles`, `ProgramW6432`, `ProgramFiles(x86)`, `LOCALAPPDATA` when set.
    pub vars: Vec<(String, PathBuf)>,
    pub is_program: fn(&Path) -> bool,
}

impl Lookup {
    /// This process's system and environment, with `path` as `PATH`.
    pub fn current(path: Option<&OsStr>) -> Lookup {
        let os = Os::current();
        let vars = if os == Os::Windows {
            WINDOWS_VARS
                .iter()
                .filter_map(|name| {
                    let value = std::env::var_os(name).filter(|v| !v.is_empty())?;
                    Some((name.to_string(), PathBuf::from(value)))
                })
                .collect()
        } else {
            Vec::new()
        };
        let pathext = std::env::var("PATHEXT").ok();
        Lookup::new(os, path, pathext.as_deref(), vars)
    }

    /// A lookup for `os` over the given `PATH` value, `PATHEXT` value and variables:
    /// files are runnable when executable (Unix) or present (Windows).
    pub fn new(
        os: Os,
        path: Option<&OsStr>,
        pathext: Option<&str>,
        vars: Vec<(String, PathBuf)>,
    ) -> Lookup {
        let path = path.map(|p| split_path(os, p)).unwrap_or_default();
        let pathext = match os {
            Os::Windows => pathext
                .filter(|p| !p.trim().is_empty())
                .unwrap_or(DEFAULT_PATHEXT)
                .split(';')
                .map(|e| e.trim().to_ascii_lowercase())
                .filter(|e| LAUNCHABLE.contains(&e.as_str()))
                .collect(),
            _ => Vec::new(),
        };
        Lookup {
            os,
            path,
            pathext,
            vars,
            is_program: match os {
                Os::Windows => Path::is_file,
                _ => is_executable,
            },
        }
    }

    fn var(&self, name: &str) -> Option<&Path> {
        self.vars
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_path())
    }

    /// Where `candidate` runs from on this system, if anywhere.
    pub fn locate(&self, candidate: &Candidate) -> Option<PathBuf> {
        if let Some(systems) = &candidate.os
            && !systems.iter().any(|s| s == self.os.name())
        {
            return None;
        }
        match candidate.locate.as_deref() {
            Some("git-bash") => self.git_bash(),
            _ => self.find(&candidate.command),
        }
    }

    /// `command` as a program: a path as given (with `PATHEXT` on Windows), or the
    /// first match on `PATH`.
    pub fn find(&self, command: &str) -> Option<PathBuf> {
        let is_path = match self.os {
            Os::Windows => command.contains(['/', '\\']),
            _ => command.contains('/'),
        };
        if is_path {
            return self.with_extensions(PathBuf::from(command));
        }
        self.path
            .iter()
            .filter(|dir| !dir.as_os_str().is_empty())
            .find_map(|dir| self.with_extensions(dir.join(command)))
    }

    /// `path` itself when it is runnable and, on Windows, already has a launchable
    /// extension; else `path` + each `PATHEXT` extension.
    fn with_extensions(&self, path: PathBuf) -> Option<PathBuf> {
        if self.os != Os::Windows {
            return (self.is_program)(&path).then_some(path);
        }
        let has_ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy().to_ascii_lowercase()))
            .is_some_and(|e| LAUNCHABLE.contains(&e.as_str()));
        if has_ext && (self.is_program)(&path) {
            return Some(path);
        }
        self.pathext.iter().find_map(|ext| {
            let mut name = path.clone().into_os_string();
            name.push(ext);
            let candidate = PathBuf::from(name);
            (self.is_program)(&candidate).then_some(candidate)
        })
    }

    /// Git for Windows' `bash.exe`, where upstream context-mode looks for it:
    /// `%ProgramFiles%`, `%ProgramW6432%`, `%ProgramFiles(x86)%` and
    /// `%LOCALAPPDATA%\Programs` (per-user install) + `Git\bin\bash.exe`; then beside
    /// the `git.exe` on `PATH` (`Git\cmd\git.exe` or `Git\mingw64\bin\git.exe` →
    /// `Git\bin\bash.exe`); then a `bash.exe` on `PATH` (MSYS2, Cygwin) that is not
    /// WSL's launcher (`System32`, `Sysnative`, `WindowsApps`), which would run the
    /// script in Linux. `bin\bash.exe` is Git's wrapper that puts its `usr\bin` tools
    /// (`cat`, `sed`, `grep` …) on `PATH` before starting bash.
    pub fn git_bash(&self) -> Option<PathBuf> {
        if self.os != Os::Windows {
            return None;
        }
        let installed = ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"]
            .iter()
            .filter_map(|name| self.var(name).map(Path::to_path_buf))
            .chain(self.var("LOCALAPPDATA").map(|d| d.join("Programs")))
            .map(|root| root.join("Git").join("bin").join("bash.exe"));
        let beside_git = self.find("git").into_iter().flat_map(|git| {
            let dir = git.parent().map(Path::to_path_buf).unwrap_or_default();
            [dir.parent(), dir.parent().and_then(Path::parent)]
                .into_iter()
                .flatten()
                .map(|root| root.join("bin").join("bash.exe"))
                .collect::<Vec<_>>()
        });
        let on_path = self.find("bash").filter(|bash| !is_wsl_launcher(bash));
        installed
            .chain(beside_git)
            .find(|bash| (self.is_program)(bash))
            .or(on_path)
    }
}

/// `PATH`'s directories: `;`-separated on Windows (quotes around an entry removed),
/// the platform's own separator elsewhere.
fn split_path(os: Os, path: &OsStr) -> Vec<PathBuf> {
    match os {
        Os::Windows => path
            .to_string_lossy()
            .split(';')
            .map(|dir| PathBuf::from(dir.trim().trim_matches('"')))
            .filter(|dir| !dir.as_os_str().is_empty())
            .collect(),
        _ => std::env::split_paths(path).collect(),
    }
}

/// A `bash.exe` that starts WSL rather than a Windows bash: Windows ships it in
/// `System32` (and `Sysnative` for 32-bit callers) and as a `WindowsApps` alias.
fn is_wsl_launcher(path: &Path) -> bool {
    path.to_string_lossy().split(['\\', '/']).any(|part| {
        ["system32", "sysnative", "windowsapps"].contains(&part.to_ascii_lowercase().as_str())
    })
}

/// The detected runtimes of every known language.
#[derive(Debug)]
pub struct Runtimes {
    languages: Vec<LanguageSlot>,
}

#[derive(Debug)]
struct LanguageSlot {
    spec: Arc<RuntimeSpec>,
    /// The spec as a candidate with its own preludes sees it: (index, spec).
    variants: Vec<(usize, Arc<RuntimeSpec>)>,
    /// Candidates whose command is on `PATH`, in preference order: (index, program).
    found: Vec<(usize, PathBuf)>,
    /// Index into `found` of the candidate in use, decided on first need.
    chosen: OnceLock<Option<usize>>,
    /// Whether the candidate's `note` was handed out (it is said once per server).
    noted: AtomicBool,
}

/// The runtime picked for one language.
#[derive(Debug, Clone)]
pub struct ResolvedRuntime {
    pub spec: Arc<RuntimeSpec>,
    candidate_index: usize,
    /// The candidate's program as found on `PATH`.
    pub program: PathBuf,
}

impl ResolvedRuntime {
    pub fn candidate(&self) -> &Candidate {
        &self.spec.candidates[self.candidate_index]
    }

    /// The script file's extension for this candidate.
    pub fn extension(&self) -> &str {
        self.candidate()
            .extension
            .as_deref()
            .unwrap_or(&self.spec.extension)
    }
}

/// A candidate found on `PATH` that its probe turned away, and what the probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The candidate's index in its spec.
    pub candidate_index: usize,
    pub command: String,
    pub program: PathBuf,
    /// The version it reported; `None` when the probe failed or printed none.
    pub version: Option<String>,
    pub min_version: String,
    pub why: Option<String>,
}

/// One language's state, for `ctx_doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeStatus {
    pub language: String,
    /// The program that runs it, or `None` when none is available.
    pub program: Option<PathBuf>,
}

impl Runtimes {
    /// Embedded runtimes plus `<data root>/runtimes/*.toml`, looked up on this
    /// process's `PATH`.
    pub fn detect() -> Runtimes {
        let user_dir = crate::paths::data_root()
            .ok()
            .map(|root| root.join("runtimes"));
        Runtimes::from_specs(
            catalog::load(user_dir.as_deref()),
            std::env::var_os("PATH").as_deref(),
        )
    }

    /// Detection over the given specs and `PATH` value on this system (tests use a
    /// fake `PATH`).
    pub fn from_specs(specs: Vec<RuntimeSpec>, path: Option<&OsStr>) -> Runtimes {
        Runtimes::from_specs_with(specs, &Lookup::current(path))
    }

    /// Detection over the given specs as `lookup` sees the machine (tests pass
    /// another system's rules and a fake tree).
    pub fn from_specs_with(specs: Vec<RuntimeSpec>, lookup: &Lookup) -> Runtimes {
        let languages = specs
            .into_iter()
            .map(|spec| {
                let found = spec
                    .candidates
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| lookup.locate(c).map(|p| (i, p)))
                    .collect();
                let spec = Arc::new(spec);
                let variants = spec
                    .candidates
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.source_prelude.is_some() || c.file_prelude.is_some())
                    .map(|(i, c)| {
                        let mut variant = (*spec).clone();
                        if let Some(prelude) = &c.source_prelude {
                            variant.source.prelude = prelude.clone();
                        }
                        if let Some(prelude) = &c.file_prelude {
                            variant.file.prelude = prelude.clone();
                            variant.file.prelude_unwrapped = None;
                            variant.file.companion = None;
                        }
                        (i, Arc::new(variant))
                    })
                    .collect();
                LanguageSlot {
                    spec,
                    variants,
                    found,
                    chosen: OnceLock::new(),
                    noted: AtomicBool::new(false),
                }
            })
            .collect();
        Runtimes { languages }
    }

    /// The canonical name of the language `language` names (a name or alias, any
    /// case), installed or not: what runs is judged as that language.
    pub fn canonical_name(&self, language: &str) -> Option<&str> {
        let wanted = language.trim().to_ascii_lowercase();
        self.languages
            .iter()
            .find(|s| s.spec.answers_to(&wanted))
            .map(|s| s.spec.name.as_str())
    }

    /// The runtime for `language` (a name or alias, any case). Blocks for a
    /// probe the first time a probed candidate is considered.
    pub fn resolve(&self, language: &str) -> Result<ResolvedRuntime, SandboxError> {
        let wanted = language.trim().to_ascii_lowercase();
        let unavailable = || SandboxError::Unavailable {
            language: if wanted.is_empty() {
                "(no language)".into()
            } else {
                wanted.clone()
            },
            available: self.available_list(),
        };
        let slot = self
            .languages
            .iter()
            .find(|s| s.spec.answers_to(&wanted))
            .ok_or_else(unavailable)?;
        let chosen = slot.chosen().ok_or_else(unavailable)?;
        let (candidate_index, program) = slot.found[chosen].clone();
        Ok(ResolvedRuntime {
            spec: slot.spec_for(candidate_index),
            candidate_index,
            program,
        })
    }

    /// [`Runtimes::resolve`] when it can answer without running a probe: `None`
    /// when a probe (a short blocking process) or the error message needs one.
    pub fn resolve_without_probe(&self, language: &str) -> Option<ResolvedRuntime> {
        let wanted = language.trim().to_ascii_lowercase();
        let slot = self.languages.iter().find(|s| s.spec.answers_to(&wanted))?;
        let first_needs_probe = slot
            .found
            .first()
            .is_none_or(|(index, _)| slot.spec.candidates[*index].probe.is_some());
        if slot.chosen.get().is_none() && first_needs_probe {
            return None;
        }
        let (candidate_index, program) = slot.found.get(slot.chosen()?)?.clone();
        Some(ResolvedRuntime {
            spec: slot.spec_for(candidate_index),
            candidate_index,
            program,
        })
    }

    /// The resolved candidate's `note` (a fallback the user should know about, such as
    /// `shell` in PowerShell without Git Bash) as one line naming the program, the
    /// first time it is asked for its language; `None` after that and for candidates
    /// without a note.
    pub fn note_once(&self, resolved: &ResolvedRuntime) -> Option<String> {
        let note = resolved.candidate().note.as_deref()?;
        let slot = self
            .languages
            .iter()
            .find(|s| s.spec.name == resolved.spec.name)?;
        if slot.noted.swap(true, Ordering::Relaxed) {
            return None;
        }
        Some(format!("cm: {note} ({})", resolved.program.display()))
    }

    /// The candidates of `language` found on `PATH` whose probe turns them away, each
    /// probed again to say what it reported (a doctor's answer to "node is installed,
    /// why can it not run TypeScript?").
    pub fn rejected(&self, language: &str) -> Vec<Rejected> {
        let wanted = language.trim().to_ascii_lowercase();
        let Some(slot) = self.languages.iter().find(|s| s.spec.answers_to(&wanted)) else {
            return Vec::new();
        };
        slot.found
            .iter()
            .filter_map(|(index, program)| {
                let candidate = &slot.spec.candidates[*index];
                let probe = candidate.probe.as_ref()?;
                let version = probe_version(probe, program);
                if version.as_ref().is_some_and(|v| meets(v, probe)) {
                    return None;
                }
                Some(Rejected {
                    candidate_index: *index,
                    command: candidate.command.clone(),
                    program: program.clone(),
                    version: version
                        .map(|v| v.iter().map(u64::to_string).collect::<Vec<_>>().join(".")),
                    min_version: probe.min_version.clone(),
                    why: probe.why.clone(),
                })
            })
            .collect()
    }

    /// Canonical names of the languages that can run here.
    pub fn available(&self) -> Vec<&str> {
        self.languages
            .iter()
            .filter(|s| s.chosen().is_some())
            .map(|s| s.spec.name.as_str())
            .collect()
    }

    /// Every known language and the program that runs it, if any.
    pub fn statuses(&self) -> Vec<RuntimeStatus> {
        self.languages
            .iter()
            .map(|s| RuntimeStatus {
                language: s.spec.name.clone(),
                program: s.chosen().map(|i| s.found[i].1.clone()),
            })
            .collect()
    }

    fn available_list(&self) -> String {
        let names = self.available();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }
}

impl LanguageSlot {
    fn spec_for(&self, candidate_index: usize) -> Arc<RuntimeSpec> {
        self.variants
            .iter()
            .find(|(i, _)| *i == candidate_index)
            .map_or_else(|| self.spec.clone(), |(_, spec)| spec.clone())
    }

    fn chosen(&self) -> Option<usize> {
        *self.chosen.get_or_init(|| {
            self.found.iter().position(|(index, program)| {
                match &self.spec.candidates[*index].probe {
                    None => true,
                    Some(probe) => probe_passes(probe, program),
                }
            })
        })
    }
}

/// A file this user may run (an execute bit on Unix, a `PATHEXT` extension on Windows).
fn is_executable(path: &Path) -> bool {
    crate::platform::fs::is_executable(path)
}

/// Runs the probe and compares the highest version number it prints with `min_version`.
fn probe_passes(probe: &Probe, program: &Path) -> bool {
    probe_version(probe, program).is_some_and(|found| meets(&found, probe))
}

fn meets(found: &[u64], probe: &Probe) -> bool {
    parse_version(&probe.min_version)
        .is_some_and(|min| compare_versions(found, &min) != std::cmp::Ordering::Less)
}

/// The highest version number the probe prints (bounded by `RUNTIME_PROBE_TIMEOUT_MS`).
fn probe_version(probe: &Probe, program: &Path) -> Option<Vec<u64>> {
    let argv: Vec<OsString> = probe
        .argv
        .iter()
        .map(|a| OsString::from(a.replace("{cmd}", &program.to_string_lossy())))
        .collect();
    let (first, rest) = argv.split_first()?;
    let text = run_bounded(
        Command::new(first).args(rest),
        Duration::from_millis(crate::limits::RUNTIME_PROBE_TIMEOUT_MS),
    )?;
    highest_version(&text)
}

/// stdout of a command that exited 0 within `limit`; the probe's output is tiny.
fn run_bounded(command: &mut Command, limit: Duration) -> Option<String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut text = String::new();
                child.stdout.take()?.read_to_string(&mut text).ok()?;
                return status.success().then_some(text);
            }
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The highest `N(.N)*` that starts a whitespace-separated word (an optional `v`
/// before it), e.g. `v20.20.2` or `10.0.100 [/usr/share/dotnet/sdk]`.
fn highest_version(text: &str) -> Option<Vec<u64>> {
    text.split_whitespace()
        .filter_map(|word| parse_version(word.strip_prefix('v').unwrap_or(word)))
        .max_by(|a, b| compare_versions(a, b))
}

fn parse_version(word: &str) -> Option<Vec<u64>> {
    let digits: &str = word
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .filter(|s| s.starts_with(|c: char| c.is_ascii_digit()))?;
    digits
        .split('.')
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().ok())
        .collect()
}

fn compare_versions(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let len = a.len().max(b.len());
    (0..len)
        .map(|i| {
            (
                a.get(i).copied().unwrap_or(0),
                b.get(i).copied().unwrap_or(0),
            )
        })
        .map(|(x, y)| x.cmp(&y))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn fake_program(dir: &Path, name: &str, script: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).expect("write");
        crate::platform::fs::set_mode_bits(&path, 0o755).expect("chmod");
    }

    /// A program `name` in `dir` that this OS's lookup finds but that is never run:
    /// `name.exe` on Windows (found by its extension), else `name` with execute bits.
    fn never_run_program(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(Os::current().executable_name(name));
        std::fs::write(&path, "").expect("write");
        crate::platform::fs::set_mode_bits(&path, 0o755).expect("chmod");
        path
    }

    fn spec(text: &str) -> RuntimeSpec {
        RuntimeSpec::parse("test.toml", text).expect("spec")
    }

    #[test]
    fn first_candidate_on_path_wins_and_aliases_resolve() {
        let dir = tempfile::tempdir().expect("tempdir");
        let second = never_run_program(dir.path(), "second");
        never_run_program(dir.path(), "third");
        let lang = spec(
            "name = \"demo\"\naliases = [\"dm\"]\nextension = \"d\"\n\
             [[candidates]]\ncommand = \"first\"\nrun = [\"{cmd}\"]\n\
             [[candidates]]\ncommand = \"second\"\nrun = [\"{cmd}\"]\n\
             [[candidates]]\ncommand = \"third\"\nrun = [\"{cmd}\"]\n",
        );
        let runtimes = Runtimes::from_specs(vec![lang], Some(dir.path().as_os_str()));
        let resolved = runtimes.resolve(" DM ").expect("resolves");
        assert_eq!(resolved.program, second);
        assert_eq!(resolved.candidate().command, "second");
    }

    #[test]
    fn unavailable_and_unknown_languages_name_what_is_available() {
        let dir = tempfile::tempdir().expect("tempdir");
        never_run_program(dir.path(), "have");
        let have = spec(
            "name = \"have\"\nextension = \"h\"\n[[candidates]]\ncommand = \"have\"\nrun = [\"{cmd}\"]\n",
        );
        let lack = spec(
            "name = \"lack\"\nextension = \"l\"\n[[candidates]]\ncommand = \"lack\"\nrun = [\"{cmd}\"]\n",
        );
        let runtimes = Runtimes::from_specs(vec![have, lack], Some(dir.path().as_os_str()));
        let message = |lang: &str| runtimes.resolve(lang).err().map(|e| e.to_string());
        assert_eq!(
            message("lack").as_deref(),
            Some("lack is not available here; available: have")
        );
        assert_eq!(
            message("cobol").as_deref(),
            Some("cobol is not available here; available: have")
        );
        assert_eq!(runtimes.available(), vec!["have"]);
    }

    #[test]
    fn a_probe_below_the_minimum_version_falls_through_to_the_next_candidate() {
        let dir = tempfile::tempdir().expect("tempdir");
        fake_program(dir.path(), "oldtool", "echo v20.20.2");
        fake_program(dir.path(), "newtool", "echo 'newtool 22.18.0 (x)'");
        let lang = spec(
            "name = \"demo\"\nextension = \"d\"\n\
             [[candidates]]\ncommand = \"oldtool\"\nrun = [\"{cmd}\"]\nprobe = { argv = [\"{cmd}\"], min_version = \"22.6\" }\n\
             [[candidates]]\ncommand = \"newtool\"\nrun = [\"{cmd}\"]\nprobe = { argv = [\"{cmd}\"], min_version = \"22.6\" }\n",
        );
        let runtimes = Runtimes::from_specs(vec![lang], Some(dir.path().as_os_str()));
        assert_eq!(
            runtimes.resolve("demo").expect("newtool").program,
            dir.path().join("newtool")
        );
    }

    #[test]
    fn version_parsing() {
        assert_eq!(highest_version("v20.20.2\n"), Some(vec![20, 20, 2]));
        assert_eq!(
            highest_version("8.0.100 [/usr/dotnet10/sdk]\n10.0.100 [/x]\n"),
            Some(vec![10, 0, 100])
        );
        assert_eq!(highest_version("no version here"), None);
        assert_eq!(
            compare_versions(&[22, 6], &[22, 6, 0]),
            std::cmp::Ordering::Equal
        );
        assert_eq!(
            compare_versions(&[22, 5, 9], &[22, 6]),
            std::cmp::Ordering::Less
        );
    }

    /// Detection runs on every `ctx_execute`: it only looks files up; a version probe
    /// runs when a probed candidate is first considered, never while detecting.
    #[test]
    fn detection_lists_every_language_and_runs_no_program() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ran = dir.path().join("ran");
        for name in ["python3", "node", "bash", "sh", "ruby", "go"] {
            fake_program(
                dir.path(),
                name,
                &format!("echo {name} >> '{}'", ran.display()),
            );
        }
        let runtimes = Runtimes::from_specs(catalog::embedded(), Some(dir.path().as_os_str()));
        assert!(!ran.exists(), "detection ran a program");
        // Listing them may probe (a probed candidate is checked when first considered).
        let statuses = runtimes.statuses();
        assert_eq!(statuses.len(), 12);
        assert!(
            statuses.iter().any(|s| s.program.is_some()),
            "the fake programs are found"
        );
    }

    /// `root` joined with each `/`-separated part of `rel`: the path the lookup builds
    /// itself, so it compares and displays the same on every OS (Windows shows a
    /// `root.join("a/b")` as `root\a/b`).
    pub(crate) fn under(root: &Path, rel: &str) -> PathBuf {
        rel.split('/')
            .fold(root.to_path_buf(), |path, part| path.join(part))
    }

    /// A file at `root/rel` (directories made), for fake Windows trees.
    pub(crate) fn touch(root: &Path, rel: &str) -> PathBuf {
        let path = under(root, rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, "").expect("write");
        path
    }

    /// A Windows lookup over a fake tree: `PATH` entries relative to `root`, the
    /// install variables pointing into it.
    pub(crate) fn windows(root: &Path, path: &[&str], pathext: Option<&str>) -> Lookup {
        let path = path
            .iter()
            .map(|dir| under(root, dir).to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(";");
        let vars = vec![
            ("ProgramFiles".to_string(), root.join("Program Files")),
            (
                "ProgramFiles(x86)".to_string(),
                root.join("Program Files (x86)"),
            ),
            (
                "LOCALAPPDATA".to_string(),
                under(root, "Users/Jane Doe/AppData/Local"),
            ),
        ];
        Lookup::new(Os::Windows, Some(OsStr::new(&path)), pathext, vars)
    }

    fn embedded(name: &str) -> RuntimeSpec {
        catalog::embedded()
            .into_iter()
            .find(|s| s.name == name)
            .expect("embedded")
    }

    #[test]
    fn the_current_system_is_chosen_in_one_place() {
        let os = Os::current();
        assert_eq!(os == Os::Windows, cfg!(windows));
        assert_eq!(os == Os::Macos, cfg!(target_os = "macos"));
        assert_eq!(Lookup::current(None).os, os);
        for os in [Os::Linux, Os::Macos, Os::Windows] {
            assert!(catalog::OS_NAMES.contains(&os.name()));
        }
        assert_eq!(Os::Linux.executable_name("main"), "main");
        assert_eq!(Os::Macos.executable_name("main"), "main");
        assert_eq!(Os::Windows.executable_name("main"), "main.exe");
    }

    #[test]
    fn windows_commands_are_found_with_pathext_never_through_an_association() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let node = touch(root, "nodejs/node.exe");
        let tsx = touch(root, "npm/tsx.cmd");
        touch(root, "npm/tsx");
        touch(root, "scripts/tool.js");
        touch(root, "scripts/tool.vbs");
        touch(root, "scripts/tool.ps1");
        let com = touch(root, "both/x.com");
        touch(root, "both/x.exe");
        let lookup = windows(
            root,
            &["nodejs", "npm", "scripts", "both"],
            Some(".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC;.PY;.PS1"),
        );
        assert_eq!(lookup.pathext, [".com", ".exe", ".bat", ".cmd"]);
        assert_eq!(lookup.find("node"), Some(node.clone()));
        assert_eq!(lookup.find("node.exe"), Some(node.clone()));
        // The extensionless npm shell shim beside tsx.cmd is not runnable on Windows.
        assert_eq!(lookup.find("tsx"), Some(tsx));
        assert_eq!(
            lookup.find("tool"),
            None,
            "a .js/.vbs/.ps1 opens by association"
        );
        assert_eq!(lookup.find("x"), Some(com), "PATHEXT order");
        assert_eq!(lookup.find("missing"), None);
        // A path is taken as given, with PATHEXT.
        let direct = root.join("nodejs/node").to_string_lossy().into_owned();
        assert_eq!(lookup.find(&direct), Some(node));
        // Unset PATHEXT: Windows' default.
        assert_eq!(
            windows(root, &[], None).pathext,
            [".com", ".exe", ".bat", ".cmd"]
        );
    }

    #[test]
    fn git_bash_is_found_where_git_for_windows_puts_it_and_never_wsl() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        // WSL's launcher on PATH only: no Git Bash.
        touch(root, "Windows/System32/bash.exe");
        touch(
            root,
            "Users/Jane Doe/AppData/Local/Microsoft/WindowsApps/bash.exe",
        );
        let path = [
            "Windows/System32",
            "Users/Jane Doe/AppData/Local/Microsoft/WindowsApps",
        ];
        assert_eq!(windows(root, &path, None).git_bash(), None);
        // Beside git.exe: Git\cmd\git.exe and Git\mingw64\bin\git.exe → Git\bin\bash.exe.
        touch(root, "PortableGit/cmd/git.exe");
        let portable = touch(root, "PortableGit/bin/bash.exe");
        let mut with_git = path.to_vec();
        with_git.push("PortableGit/cmd");
        assert_eq!(windows(root, &with_git, None).git_bash(), Some(portable));
        touch(root, "G/mingw64/bin/git.exe");
        let g = touch(root, "G/bin/bash.exe");
        assert_eq!(windows(root, &["G/mingw64/bin"], None).git_bash(), Some(g));
        // MSYS2 / Cygwin bash on PATH counts (after the Git locations).
        let msys = touch(root, "msys64/usr/bin/bash.exe");
        assert_eq!(
            windows(root, &["msys64/usr/bin"], None).git_bash(),
            Some(msys)
        );
        // Per-user install, then the machine-wide one wins over everything else.
        let user = touch(
            root,
            "Users/Jane Doe/AppData/Local/Programs/Git/bin/bash.exe",
        );
        assert_eq!(windows(root, &with_git, None).git_bash(), Some(user));
        let x86 = touch(root, "Program Files (x86)/Git/bin/bash.exe");
        assert_eq!(windows(root, &with_git, None).git_bash(), Some(x86));
        let machine = touch(root, "Program Files/Git/bin/bash.exe");
        assert_eq!(windows(root, &with_git, None).git_bash(), Some(machine));
        // Not a Windows lookup: no Git Bash rule at all.
        let linux = Lookup::new(Os::Linux, None, None, Vec::new());
        assert_eq!(linux.git_bash(), None);
    }

    #[test]
    fn windows_shell_is_git_bash_else_powershell_else_cmd_and_says_so_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let shell = || vec![embedded("shell")];
        // Wine: only cmd.exe (and WSL's bash, which must not be taken).
        touch(root, "Windows/System32/bash.exe");
        let cmd = touch(root, "Windows/System32/cmd.exe");
        let path = [
            "Windows/System32",
            "Windows/System32/WindowsPowerShell/v1.0",
            "pwsh",
        ];
        let runtimes = Runtimes::from_specs_with(shell(), &windows(root, &path, None));
        let resolved = runtimes.resolve("bash").expect("cmd");
        assert_eq!(resolved.program, cmd);
        assert_eq!(resolved.extension(), "cmd");
        assert_eq!(resolved.spec.source.prelude, "@echo off\n");
        let note = runtimes.note_once(&resolved).expect("note");
        assert!(note.contains("ran in cmd.exe"), "{note}");
        assert!(note.ends_with(&format!("({})", cmd.display())), "{note}");
        assert_eq!(runtimes.note_once(&resolved), None, "said once");
        // Windows PowerShell, then PowerShell 7 before it.
        let powershell = touch(
            root,
            "Windows/System32/WindowsPowerShell/v1.0/powershell.exe",
        );
        let runtimes = Runtimes::from_specs_with(shell(), &windows(root, &path, None));
        assert_eq!(runtimes.resolve("shell").expect("ps").program, powershell);
        let pwsh = touch(root, "pwsh/pwsh.exe");
        let runtimes = Runtimes::from_specs_with(shell(), &windows(root, &path, None));
        let resolved = runtimes.resolve("shell").expect("pwsh");
        assert_eq!(resolved.program, pwsh);
        assert_eq!(resolved.extension(), "ps1");
        assert!(resolved.spec.file.prelude.contains("Get-Content -Raw"));
        assert!(resolved.candidate().run.contains(&"-File".to_string()));
        assert!(
            runtimes
                .note_once(&resolved)
                .expect("note")
                .contains("PowerShell")
        );
        // Git Bash: bash on the script itself, the POSIX preludes, no note.
        let bash = touch(root, "Program Files/Git/bin/bash.exe");
        let runtimes = Runtimes::from_specs_with(shell(), &windows(root, &path, None));
        let resolved = runtimes.resolve("shell").expect("git bash");
        assert_eq!(resolved.program, bash);
        assert_eq!(resolved.extension(), "sh");
        assert_eq!(resolved.candidate().run, ["{cmd}", "{file}"]);
        assert!(resolved.spec.file.prelude.contains("FILE_CONTENT=\"$(cat"));
        assert_eq!(runtimes.note_once(&resolved), None);
    }

    #[test]
    fn python_on_windows_tries_the_launcher_first_and_unix_names_elsewhere() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        touch(root, "Apps/python3.exe");
        touch(root, "Apps/python.exe");
        touch(root, "Py/py.exe");
        let runtimes = Runtimes::from_specs_with(
            vec![embedded("python")],
            &windows(root, &["Apps", "Py"], None),
        );
        let slot = &runtimes.languages[0];
        let found: Vec<(&str, &Path)> = slot
            .found
            .iter()
            .map(|(i, p)| (slot.spec.candidates[*i].command.as_str(), p.as_path()))
            .collect();
        assert_eq!(
            found,
            [
                ("py", under(root, "Py/py.exe").as_path()),
                ("python", under(root, "Apps/python.exe").as_path()),
                ("python3", under(root, "Apps/python3.exe").as_path()),
            ]
        );
        // Each Windows candidate is probed (the Store stub prints no version).
        assert!(found.iter().all(|(command, _)| {
            slot.spec
                .candidates
                .iter()
                .filter(|c| c.os.as_deref() == Some(&["windows".to_string()][..]))
                .any(|c| c.command == *command && c.probe.is_some())
        }));
        // On Linux the Windows-only launcher is never taken, even when present. The
        // files are apart from `Py/` (one name on a case-insensitive file system) and
        // count as programs by being there, whatever the host's execute rules.
        touch(root, "bin/py");
        let python3 = touch(root, "bin/python3");
        let bin = python3.parent().expect("bin");
        let linux = Lookup {
            is_program: Path::is_file,
            ..Lookup::new(Os::Linux, Some(bin.as_os_str()), None, Vec::new())
        };
        let runtimes = Runtimes::from_specs_with(vec![embedded("python")], &linux);
        let resolved = runtimes.resolve("python").expect("python3");
        assert_eq!(resolved.candidate().command, "python3");
    }
}

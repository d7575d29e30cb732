//! Which runtimes this machine has. Detection is a `PATH` lookup per candidate at
//! server start (no process is spawned, so it costs well under a millisecond); a
//! candidate with a `probe` (e.g. "node ≥ 22.6 for TypeScript") is checked
//! lazily, once, the first time its language is needed.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::catalog::{self, Candidate, Probe, RuntimeSpec};
use super::error::SandboxError;

/// The detected runtimes of every known language.
#[derive(Debug)]
pub struct Runtimes {
    languages: Vec<LanguageSlot>,
}

#[derive(Debug)]
struct LanguageSlot {
    spec: Arc<RuntimeSpec>,
    /// Candidates whose command is on `PATH`, in preference order: (index, program).
    found: Vec<(usize, PathBuf)>,
    /// Index into `found` of the candidate in use, decided on first need.
    chosen: OnceLock<Option<usize>>,
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

    /// Detection over the given specs and `PATH` value (tests use a fake `PATH`).
    pub fn from_specs(specs: Vec<RuntimeSpec>, path: Option<&OsStr>) -> Runtimes {
        let path: OsString = path.map(OsStr::to_os_string).unwrap_or_default();
        let languages = specs
            .into_iter()
            .map(|spec| {
                let found = spec
                    .candidates
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| find_program(&c.command, &path).map(|p| (i, p)))
                    .collect();
                LanguageSlot {
                    spec: Arc::new(spec),
                    found,
                    chosen: OnceLock::new(),
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
            spec: slot.spec.clone(),
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
            spec: slot.spec.clone(),
            candidate_index,
            program,
        })
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

/// `command` as an executable file: a path as given, or the first match on `path`.
fn find_program(command: &str, path: &OsStr) -> Option<PathBuf> {
    if command.contains('/') {
        let direct = PathBuf::from(command);
        return is_executable(&direct).then_some(direct);
    }
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(command))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    crate::platform::fs::is_executable(path)
}

/// Runs the probe (bounded by `RUNTIME_PROBE_TIMEOUT_MS`) and compares the highest
/// version number it prints with `min_version`.
fn probe_passes(probe: &Probe, program: &Path) -> bool {
    let argv: Vec<OsString> = probe
        .argv
        .iter()
        .map(|a| OsString::from(a.replace("{cmd}", &program.to_string_lossy())))
        .collect();
    let Some((first, rest)) = argv.split_first() else {
        return false;
    };
    let output = run_bounded(
        Command::new(first).args(rest),
        Duration::from_millis(crate::limits::RUNTIME_PROBE_TIMEOUT_MS),
    );
    let Some(text) = output else { return false };
    let (Some(found), Some(min)) = (highest_version(&text), parse_version(&probe.min_version))
    else {
        return false;
    };
    compare_versions(&found, &min) != std::cmp::Ordering::Less
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
mod tests {
    use super::*;

    fn fake_program(dir: &Path, name: &str, script: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).expect("write");
        crate::platform::fs::set_mode_bits(&path, 0o755).expect("chmod");
    }

    fn spec(text: &str) -> RuntimeSpec {
        RuntimeSpec::parse("test.toml", text).expect("spec")
    }

    #[test]
    fn first_candidate_on_path_wins_and_aliases_resolve() {
        let dir = tempfile::tempdir().expect("tempdir");
        fake_program(dir.path(), "second", "exit 0");
        fake_program(dir.path(), "third", "exit 0");
        let lang = spec(
            "name = \"demo\"\naliases = [\"dm\"]\nextension = \"d\"\n\
             [[candidates]]\ncommand = \"first\"\nrun = [\"{cmd}\"]\n\
             [[candidates]]\ncommand = \"second\"\nrun = [\"{cmd}\"]\n\
             [[candidates]]\ncommand = \"third\"\nrun = [\"{cmd}\"]\n",
        );
        let runtimes = Runtimes::from_specs(vec![lang], Some(dir.path().as_os_str()));
        let resolved = runtimes.resolve(" DM ").expect("resolves");
        assert_eq!(resolved.program, dir.path().join("second"));
        assert_eq!(resolved.candidate().command, "second");
    }

    #[test]
    fn unavailable_and_unknown_languages_name_what_is_available() {
        let dir = tempfile::tempdir().expect("tempdir");
        fake_program(dir.path(), "have", "exit 0");
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

    #[test]
    fn detection_without_probes_is_cheap() {
        let started = Instant::now();
        let runtimes =
            Runtimes::from_specs(catalog::embedded(), std::env::var_os("PATH").as_deref());
        let elapsed = started.elapsed();
        assert_eq!(runtimes.statuses().len(), 12);
        assert!(
            elapsed < Duration::from_millis(50),
            "detection took {elapsed:?}"
        );
    }
}

//! One `ctx_execute` / `ctx_execute_file` call: resolve the runtime, write the
//! script into a private temp dir, compile if the language needs it, run it.

use crate::platform::fs::Canonical as _;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::background::{self, BackgroundJob};
use super::confine;
use super::detect::{Os, ResolvedRuntime, Runtimes};
use super::env;
use super::error::SandboxError;
use super::process::{self, ProcessResult, ProcessSpec};
use super::source::{self, ArgvPaths};
use super::tempdir::TempDir;
use crate::limits;

/// Environment variables naming the file of `ctx_execute_file` (every language's
/// file prelude reads the file they name; shell scripts get them directly).
pub const FILE_PATH_VARIABLES: [&str; 3] = ["FILE_CONTENT_PATH", "FILE_PATH", "file_path"];

/// Runs scripts. One per server; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Sandbox {
    /// Detected on first use when the sandbox was made by
    /// [`Sandbox::detecting_on_first_use`]: `cm serve` answers its handshake first.
    runtimes: std::sync::OnceLock<Arc<Runtimes>>,
    /// The environment children start from; `None` = this process's, read per call.
    base_env: Option<Vec<(OsString, OsString)>>,
    capture_max_bytes: usize,
    /// Where background runs write their logs; `None` when there is no data root.
    background_root: Option<PathBuf>,
    background: Mutex<Vec<Arc<BackgroundJob>>>,
    /// Confinement (`CONTEXT_MODE_CONFINE`, or the project's settings through
    /// [`Sandbox::with_confinement`]), fixed at start; `None` = off.
    confine: Option<confine::Settings>,
}

/// One script to run.
#[derive(Debug, Clone)]
pub struct ExecRequest<'a> {
    /// Language name or alias.
    pub language: &'a str,
    pub code: &'a str,
    /// The project directory: the default working directory and the bound for `cwd`.
    pub project_dir: &'a Path,
    /// Working directory, relative to the project or absolute inside it.
    pub cwd: Option<&'a str>,
    /// Lowers `EXEC_TIMEOUT_MS`; `None` or 0 = the default.
    pub timeout_ms: Option<u64>,
    /// Leave the process running at the deadline instead of killing it.
    pub background: bool,
    /// `ctx_execute_file`: the file, already checked by the routing policy.
    pub file: Option<&'a Path>,
}

/// What a script did.
#[derive(Debug, Clone, Default)]
pub struct ExecOutcome {
    /// Captured stdout: whole up to `EXEC_CAPTURE_MAX_BYTES`, else head and tail
    /// around an omission line.
    pub stdout: String,
    /// Captured stderr, bounded the same way.
    pub stderr: String,
    pub exit_code: Option<i32>,
    /// The signal that ended the process, if one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// Still running after the call (only with `background`).
    pub backgrounded: bool,
    pub duration: Duration,
    pub stdout_total_bytes: u64,
    pub stderr_total_bytes: u64,
    /// The compile step failed (stdout/stderr are the compiler's).
    pub compile_failed: bool,
    /// Set when `backgrounded`: where the process keeps writing.
    pub background: Option<BackgroundProcess>,
}

/// A process left running by `background: true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundProcess {
    /// Its process id, which is also its process-group id.
    pub pid: u32,
    pub stdout_log: PathBuf,
    pub stderr_log: PathBuf,
}

impl ExecOutcome {
    /// Whether the tool reply is an error (`isError`): a compile failure, a
    /// non-zero exit, a signal, or a timeout that was not a requested background.
    pub fn is_error(&self) -> bool {
        if self.backgrounded {
            return false;
        }
        self.compile_failed || self.timed_out || self.exit_code != Some(0)
    }

    /// The last `max_bytes` (at most) of stderr, starting at a character boundary.
    pub fn stderr_tail(&self, max_bytes: usize) -> &str {
        let mut start = self.stderr.len().saturating_sub(max_bytes);
        while !self.stderr.is_char_boundary(start) {
            start += 1;
        }
        &self.stderr[start..]
    }
}

impl Sandbox {
    pub fn new(runtimes: Arc<Runtimes>) -> Sandbox {
        let sandbox = Sandbox::detecting_on_first_use();
        let _ = sandbox.runtimes.set(runtimes);
        sandbox
    }

    /// A sandbox over this machine's runtimes, detected (the catalog read, `PATH`
    /// searched) when a call first needs them.
    pub fn detecting_on_first_use() -> Sandbox {
        Sandbox {
            runtimes: std::sync::OnceLock::new(),
            base_env: None,
            capture_max_bytes: limits::EXEC_CAPTURE_MAX_BYTES,
            background_root: crate::paths::data_root()
                .ok()
                .map(|root| crate::paths::background_dir(&root)),
            background: Mutex::new(Vec::new()),
            confine: confine::from_env(),
        }
    }

    /// Confinement on (`Some`) or off, in place of what the environment alone says (the
    /// service passes [`confine::resolve`] for its project).
    pub fn with_confinement(mut self, settings: Option<confine::Settings>) -> Sandbox {
        self.confine = settings;
        self
    }

    /// Background runs write their logs under `dir` (default: the data root's
    /// `background/`).
    pub fn with_background_root(mut self, dir: PathBuf) -> Sandbox {
        self.background_root = Some(dir);
        self
    }

    /// Children start from `env` instead of this process's environment (tests,
    /// and callers that want a fixed environment).
    pub fn with_base_env(mut self, env: Vec<(OsString, OsString)>) -> Sandbox {
        self.base_env = Some(env);
        self
    }

    /// Keeps at most `bytes` of each stream in memory (default `EXEC_CAPTURE_MAX_BYTES`).
    pub fn with_capture_max_bytes(mut self, bytes: usize) -> Sandbox {
        self.capture_max_bytes = bytes;
        self
    }

    pub fn runtimes(&self) -> &Runtimes {
        self.shared_runtimes()
    }

    fn shared_runtimes(&self) -> &Arc<Runtimes> {
        self.runtimes.get_or_init(|| Arc::new(Runtimes::detect()))
    }

    /// Runs one script. `Err` means it could not be started; a script that ran
    /// and failed is an `Ok` outcome with [`ExecOutcome::is_error`].
    pub async fn execute(&self, request: ExecRequest<'_>) -> Result<ExecOutcome, SandboxError> {
        let started = Instant::now();
        let runtime = self.resolve(request.language).await?;
        let cwd = resolve_cwd(request.project_dir, request.cwd)?;
        let budget = effective_timeout(request.timeout_ms);
        let deadline = started + budget;

        let work = TempDir::new("cm-exec-").map_err(|e| SandboxError::Prepare(e.to_string()))?;
        let script = write_sources(&runtime, request.code, request.file.is_some(), work.path())?;
        let binary = work.path().join(Os::current().executable_name("main"));
        let paths = ArgvPaths {
            program: &runtime.program,
            script: &script.main,
            companions: &script.companions,
            binary: &binary,
            dir: work.path(),
        };
        let mut env = self.child_env(&runtime, request.file);
        let candidate = runtime.candidate();
        let ruleset = match &self.confine {
            None => None,
            Some(settings) => {
                let project = request
                    .project_dir
                    .canonical()
                    .unwrap_or_else(|_| request.project_dir.to_path_buf());
                let plan = confine::plan(
                    settings,
                    &project,
                    work.path(),
                    &runtime.spec.confine_write,
                    &env,
                );
                let ruleset = crate::platform::child::confinement(&plan)
                    .map_err(|reason| SandboxError::Unconfinable(confine::refusal(&reason)))?;
                // Temp files go where the child may write them.
                env.retain(|(name, _)| name != "TMPDIR");
                env.push(("TMPDIR".into(), work.path().as_os_str().to_os_string()));
                Some(ruleset)
            }
        };

        if let Some(compile) = &candidate.compile {
            let result = process::run(ProcessSpec {
                argv: source::expand_argv(compile, &paths),
                cwd: work.path().to_path_buf(),
                env: env.clone(),
                timeout: deadline.saturating_duration_since(Instant::now()),
                capture_max_bytes: self.capture_max_bytes,
                background_root: None,
                confine: ruleset.clone(),
            })
            .await?;
            if result.timed_out || result.exit_code != Some(0) {
                let mut outcome = outcome_from(result, started, None);
                if ruleset.is_some() {
                    note_refusal(&mut outcome);
                }
                outcome.compile_failed = !outcome.timed_out;
                return Ok(outcome);
            }
        }

        let background_root = match request.background {
            true => Some(self.background_root.clone().ok_or_else(|| {
                SandboxError::Prepare(
                    "background runs need a data root: set HOME or CONTEXT_MODE_DIR".into(),
                )
            })?),
            false => None,
        };
        let result = process::run(ProcessSpec {
            argv: source::expand_argv(&candidate.run, &paths),
            cwd,
            env,
            timeout: deadline.saturating_duration_since(Instant::now()),
            capture_max_bytes: self.capture_max_bytes,
            background_root,
            confine: ruleset.clone(),
        })
        .await?;
        let background = result.background.clone().map(|job| {
            let mut jobs = self.lock_background();
            remove_oldest_finished(&mut jobs, limits::BACKGROUND_FINISHED_LOGS_KEPT);
            jobs.push(job.clone());
            drop(jobs);
            BackgroundProcess {
                pid: job.tree.leader(),
                stdout_log: job.stdout_log(),
                stderr_log: job.stderr_log(),
            }
        });
        let mut outcome = outcome_from(result, started, background);
        if ruleset.is_some() {
            note_refusal(&mut outcome);
        }
        // A fallback runtime (Windows `shell` without Git Bash) says so once per server.
        if let Some(note) = self.runtimes().note_once(&runtime) {
            push_line(&mut outcome.stderr, &note);
        }
        Ok(outcome)
    }

    /// Process ids (= group ids) of background runs started by this sandbox that
    /// are still running.
    pub fn background_processes(&self) -> Vec<u32> {
        let list = self.lock_background();
        list.iter()
            .filter(|job| job.tree.any_alive())
            .map(|job| job.tree.leader())
            .collect()
    }

    /// Stops every background run and everything it started (server exit: a
    /// background run may outlive its call, never the server), and removes their
    /// log directories. Blocks up to `EXEC_KILL_GRACE_MS`.
    pub fn terminate_background(&self) {
        let jobs: Vec<Arc<BackgroundJob>> = self.lock_background().drain(..).collect();
        let trees: Vec<_> = jobs.iter().map(|job| job.tree.clone()).collect();
        process::terminate_blocking(&trees);
        for job in jobs {
            if let Err(e) = std::fs::remove_dir_all(&job.dir)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!("could not remove {}: {e}", job.dir.display());
            }
        }
    }

    /// Removes log directories left by servers that are gone (killed before they
    /// could clean up).
    pub fn remove_stale_background_dirs(&self) {
        if let Some(root) = &self.background_root {
            let removed = background::remove_stale_job_dirs(root);
            if removed > 0 {
                tracing::info!("removed {removed} stale background log directories");
            }
        }
    }

    fn lock_background(&self) -> std::sync::MutexGuard<'_, Vec<Arc<BackgroundJob>>> {
        self.background
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Resolving may run a probe (a short blocking process) the first time; that
    /// happens on the blocking pool, the common case inline.
    async fn resolve(&self, language: &str) -> Result<ResolvedRuntime, SandboxError> {
        if let Some(resolved) = self.runtimes().resolve_without_probe(language) {
            return Ok(resolved);
        }
        let runtimes = self.shared_runtimes().clone();
        let language = language.to_string();
        tokio::task::spawn_blocking(move || runtimes.resolve(&language))
            .await
            .map_err(|e| SandboxError::Prepare(e.to_string()))?
    }

    fn child_env(
        &self,
        runtime: &ResolvedRuntime,
        file: Option<&Path>,
    ) -> Vec<(OsString, OsString)> {
        let base = match &self.base_env {
            Some(env) => env.clone(),
            None => std::env::vars_os().collect(),
        };
        let mut env = env::child_env(
            base,
            runtime
                .spec
                .env
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        if let Some(file) = file {
            env.retain(|(name, _)| !FILE_PATH_VARIABLES.iter().any(|v| name == v));
            for name in FILE_PATH_VARIABLES {
                env.push((name.into(), file.as_os_str().to_os_string()));
            }
        }
        env
    }
}

/// Under confinement, a failed run whose stderr shows a refused access says that
/// confinement may be why (one line at the end of stderr).
fn note_refusal(outcome: &mut ExecOutcome) {
    if outcome.exit_code != Some(0) && confine::looks_refused(&outcome.stderr) {
        push_line(&mut outcome.stderr, confine::REFUSED_NOTE);
    }
}

/// Adds `line` as a line of its own at the end of `stream`.
fn push_line(stream: &mut String, line: &str) {
    if !stream.is_empty() && !stream.ends_with('\n') {
        stream.push('\n');
    }
    stream.push_str(line);
    stream.push('\n');
}

/// Drops the oldest finished background runs (and their log directories) until at
/// most `keep` finished ones remain; running ones are never touched.
fn remove_oldest_finished(jobs: &mut Vec<Arc<BackgroundJob>>, keep: usize) {
    let finished = jobs.iter().filter(|job| !job.tree.any_alive()).count();
    let mut excess = finished.saturating_sub(keep);
    jobs.retain(|job| {
        if excess == 0 || job.tree.any_alive() {
            return true;
        }
        excess -= 1;
        if let Err(e) = std::fs::remove_dir_all(&job.dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!("could not remove {}: {e}", job.dir.display());
        }
        false
    });
}

/// `EXEC_TIMEOUT_MS` unless the caller asks for less.
pub fn effective_timeout(timeout_ms: Option<u64>) -> Duration {
    let max = limits::EXEC_TIMEOUT_MS;
    Duration::from_millis(timeout_ms.filter(|t| *t > 0).map_or(max, |t| t.min(max)))
}

/// The working directory: the project, or `cwd` resolved inside it (symlinks
/// followed, so a link pointing out of the project is refused).
pub fn resolve_cwd(project_dir: &Path, cwd: Option<&str>) -> Result<PathBuf, SandboxError> {
    let project = project_dir
        .canonical()
        .map_err(|_| SandboxError::CwdNotADirectory(project_dir.display().to_string()))?;
    let Some(cwd) = cwd.map(str::trim).filter(|c| !c.is_empty()) else {
        return Ok(project);
    };
    let resolved = project
        .join(cwd)
        .canonical()
        .map_err(|_| SandboxError::CwdNotADirectory(cwd.to_string()))?;
    if !resolved.starts_with(&project) {
        return Err(SandboxError::CwdOutsideProject(cwd.to_string()));
    }
    if !resolved.is_dir() {
        return Err(SandboxError::CwdNotADirectory(cwd.to_string()));
    }
    Ok(resolved)
}

struct WrittenSources {
    main: PathBuf,
    companions: Vec<PathBuf>,
}

fn write_sources(
    runtime: &ResolvedRuntime,
    code: &str,
    with_file: bool,
    dir: &Path,
) -> Result<WrittenSources, SandboxError> {
    let sources = source::compose(&runtime.spec, code, with_file);
    let prepare = |e: std::io::Error| SandboxError::Prepare(e.to_string());
    let main = dir.join(format!("script.{}", runtime.extension()));
    std::fs::write(&main, sources.main).map_err(prepare)?;
    let mut companions = Vec::with_capacity(sources.companions.len());
    for (name, text) in sources.companions {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(prepare)?;
        companions.push(path);
    }
    Ok(WrittenSources { main, companions })
}

fn outcome_from(
    result: ProcessResult,
    started: Instant,
    background: Option<BackgroundProcess>,
) -> ExecOutcome {
    let backgrounded = result.backgrounded();
    ExecOutcome {
        stdout: result.stdout,
        stderr: result.stderr,
        exit_code: result.exit_code,
        signal: result.signal,
        timed_out: result.timed_out,
        backgrounded,
        duration: started.elapsed(),
        stdout_total_bytes: result.stdout_total_bytes,
        stderr_total_bytes: result.stderr_total_bytes,
        compile_failed: false,
        background,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::child::ProcessTree;

    #[test]
    fn only_the_oldest_finished_background_logs_are_removed() {
        let root = tempfile::tempdir().expect("tempdir");
        let mut running = crate::platform::process::running_child();
        let exited = crate::platform::process::exited_child_pid();
        let job = |name: &str, pid: u32| {
            let dir = root.path().join(name);
            std::fs::create_dir_all(&dir).expect("mkdir");
            Arc::new(BackgroundJob {
                tree: Arc::new(ProcessTree::of_pid(pid)),
                dir,
            })
        };
        let mut jobs = vec![
            job("old", exited),
            job("live", running.id()),
            job("mid", exited),
            job("new", exited),
        ];
        remove_oldest_finished(&mut jobs, 2);
        let left: Vec<_> = jobs.iter().map(|j| j.dir.clone()).collect();
        assert_eq!(
            left,
            ["live", "mid", "new"].map(|n| root.path().join(n)).to_vec()
        );
        assert!(!root.path().join("old").exists());
        assert!(root.path().join("live").exists());
        let _ = running.kill();
        let _ = running.wait();
    }

    #[test]
    fn timeout_is_lowered_never_raised() {
        assert_eq!(
            effective_timeout(None),
            Duration::from_millis(limits::EXEC_TIMEOUT_MS)
        );
        assert_eq!(
            effective_timeout(Some(0)),
            Duration::from_millis(limits::EXEC_TIMEOUT_MS)
        );
        assert_eq!(effective_timeout(Some(1_500)), Duration::from_millis(1_500));
        assert_eq!(
            effective_timeout(Some(limits::EXEC_TIMEOUT_MS * 10)),
            Duration::from_millis(limits::EXEC_TIMEOUT_MS)
        );
    }

    #[test]
    fn cwd_must_stay_inside_the_project() {
        let root = tempfile::tempdir().expect("tempdir");
        let project = root.path().join("project");
        std::fs::create_dir_all(project.join("sub")).expect("mkdir");
        crate::platform::fs::symlink(root.path(), project.join("escape")).expect("symlink");
        let canonical = project.canonical().expect("canonical");
        assert_eq!(resolve_cwd(&project, None), Ok(canonical.clone()));
        assert_eq!(
            resolve_cwd(&project, Some("sub")),
            Ok(canonical.join("sub"))
        );
        let outside = |cwd: &str| {
            resolve_cwd(&project, Some(cwd))
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(
            outside("..").as_deref(),
            Some("cwd .. is outside the project directory")
        );
        assert_eq!(
            outside("/").as_deref(),
            Some("cwd / is outside the project directory")
        );
        assert_eq!(
            outside("escape").as_deref(),
            Some("cwd escape is outside the project directory")
        );
        assert_eq!(
            outside("nope").as_deref(),
            Some("cwd nope is not an existing directory")
        );
    }

    #[test]
    fn stderr_tail_respects_characters() {
        let outcome = ExecOutcome {
            stderr: "ab€".into(),
            ..Default::default()
        };
        assert_eq!(outcome.stderr_tail(2), "");
        assert_eq!(outcome.stderr_tail(3), "€");
        assert_eq!(outcome.stderr_tail(100), "ab€");
    }
}

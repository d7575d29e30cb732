//! Runs one child process with a deadline, bounded output capture, and a stop of
//! every process it started ([`ProcessTree`]: a request to end, then a kill after
//! `EXEC_KILL_GRACE_MS`) when the deadline passes.
//!
//! Async on tokio: the child is a `tokio::process::Child`, its stdout and stderr
//! are drained by two tasks into [`Capture`]s (or, for a background run, into
//! [`BoundedLog`]s), so nothing blocks a runtime thread.
//!
//! When the main process exits, output is drained until the pipes close. If
//! processes it left behind still hold the pipes after `EXEC_DRAIN_AFTER_EXIT_MS`,
//! the tree is stopped (they would die of SIGPIPE on their next write anyway);
//! leftovers that redirected their output (`nohup server >log &`) are left alone
//! unless they stayed in the group, as a user running that in a terminal would
//! expect.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, timeout};

use super::background::{self, BackgroundJob, BoundedLog};
use super::capture::Capture;
use super::error::SandboxError;
use super::tempdir::TempDir;
use crate::limits;
use crate::platform::child::{self, ChildConfinement, ProcessTree};

/// What to run and how.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    /// Bytes of stdout (and, separately, stderr) kept in memory.
    pub capture_max_bytes: usize,
    /// `Some(root)`: a background run. Output goes to bounded logs in a fresh
    /// directory under `root`, and the process is left running at the deadline
    /// instead of being stopped.
    pub background_root: Option<PathBuf>,
    /// Confinement (ADR 0026): the child restricts itself with this ruleset before exec.
    pub confine: Option<ChildConfinement>,
}

/// How one child ended (or was left running).
#[derive(Debug, Clone, Default)]
pub struct ProcessResult {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout_total_bytes: u64,
    pub stderr_total_bytes: u64,
    /// Process id, which is also the process-group id.
    pub pid: u32,
    /// Set when the run was left running in the background.
    pub background: Option<Arc<BackgroundJob>>,
}

impl ProcessResult {
    pub fn backgrounded(&self) -> bool {
        self.background.is_some()
    }
}

/// How long to wait for the output pipes once the tree has been killed.
const PIPE_CLOSE_WAIT: Duration = Duration::from_millis(200);
/// Poll interval while waiting for a terminated tree to disappear.
const TREE_POLL: Duration = Duration::from_millis(10);

pub async fn run(spec: ProcessSpec) -> Result<ProcessResult, SandboxError> {
    let Some(root) = spec.background_root.clone() else {
        let (stdout, stderr) = (
            Capture::new(spec.capture_max_bytes),
            Capture::new(spec.capture_max_bytes),
        );
        return run_to(spec, stdout, stderr, None).await;
    };
    let prepare = |e: std::io::Error| SandboxError::Prepare(e.to_string());
    let dir = background::create_job_dir(&root).map_err(prepare)?;
    let stdout = BoundedLog::create(dir.path().join("stdout.log")).map_err(prepare)?;
    let stderr = BoundedLog::create(dir.path().join("stderr.log")).map_err(prepare)?;
    run_to(spec, stdout, stderr, Some(dir)).await
}

/// Where a stream's bytes go: an in-memory capture, or a background log file.
trait Sink: Send + 'static {
    fn push(&mut self, bytes: &[u8]);
    /// Called when no bytes came for `BACKGROUND_LOG_REWRITE_MS`, and at the end.
    fn flush(&mut self) {}
    fn render(&self) -> (String, u64);
}

impl Sink for Capture {
    fn push(&mut self, bytes: &[u8]) {
        Capture::push(self, bytes);
    }

    fn render(&self) -> (String, u64) {
        (Capture::render(self), self.total_bytes())
    }
}

impl Sink for BoundedLog {
    fn push(&mut self, bytes: &[u8]) {
        BoundedLog::push(self, bytes);
    }

    fn flush(&mut self) {
        BoundedLog::flush(self);
    }

    fn render(&self) -> (String, u64) {
        (BoundedLog::render(self), self.total_bytes())
    }
}

fn command(spec: &ProcessSpec) -> Result<tokio::process::Command, SandboxError> {
    let program = spec
        .argv
        .first()
        .map(|p| p.to_string_lossy().into_owned());
    let mut command =
        child::command(&spec.argv, spec.confine.as_ref()).map_err(|reason| SandboxError::Spawn {
            program: program.clone().unwrap_or_else(|| "(nothing)".into()),
            reason: match (&spec.confine, program) {
                (Some(_), Some(_)) => super::confine::refusal(&reason),
                _ => reason,
            },
        })?;
    command
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(false);
    Ok(command)
}

fn spawn_error(spec: &ProcessSpec, e: std::io::Error) -> SandboxError {
    let program = spec.argv.first().map(|p| p.to_string_lossy().into_owned());
    SandboxError::Spawn {
        program: program.unwrap_or_default(),
        reason: e.to_string(),
    }
}

/// Runs the child with its output pumped into `stdout` / `stderr`. With a
/// `background_dir`, a child still running at the deadline is left running, its
/// pumps handed to a task. The directory outlives the run, so the agent can read
/// the log of a server that crashed; the sandbox removes it (server exit, or when
/// too many finished logs are kept).
async fn run_to<S: Sink>(
    spec: ProcessSpec,
    stdout: S,
    stderr: S,
    background_dir: Option<TempDir>,
) -> Result<ProcessResult, SandboxError> {
    let mut child = command(&spec)?.spawn().map_err(|e| spawn_error(&spec, e))?;
    let pid = child.id().unwrap_or(0);
    let tree = match ProcessTree::attach(&child) {
        Ok(tree) => Arc::new(tree),
        Err(e) => {
            // A child that cannot be tracked is not left running untracked.
            let _ = child.start_kill();
            let _ = child.wait().await;
            return Err(spawn_error(&spec, e));
        }
    };
    let mut guard = KillOnDrop::new(tree.clone());

    let sinks = [Arc::new(Mutex::new(stdout)), Arc::new(Mutex::new(stderr))];
    let mut pumps = [
        child
            .stdout
            .take()
            .map(|r| tokio::spawn(pump(r, sinks[0].clone()))),
        child
            .stderr
            .take()
            .map(|r| tokio::spawn(pump(r, sinks[1].clone()))),
    ];

    let deadline = Instant::now() + spec.timeout;
    let exited = tokio::select! {
        status = child.wait() => status.ok(),
        _ = tokio::time::sleep_until(deadline) => None,
    };
    let timed_out = exited.is_none();
    let mut background = None;
    let status = match (exited, background_dir) {
        (Some(status), _) => {
            let drain = Duration::from_millis(limits::EXEC_DRAIN_AFTER_EXIT_MS);
            if !wait_pumps(&mut pumps, drain).await {
                terminate(&tree, &mut child).await;
                wait_pumps(&mut pumps, PIPE_CLOSE_WAIT).await;
            }
            Some(status)
        }
        (None, Some(dir)) => {
            let job = Arc::new(BackgroundJob {
                tree: tree.clone(),
                dir: dir.path().to_path_buf(),
            });
            background = Some(job);
            let pumps = std::mem::take(&mut pumps);
            tokio::spawn(async move {
                let _ = child.wait().await;
                for pump in pumps.into_iter().flatten() {
                    let _ = pump.await;
                }
                let _ = dir.keep();
            });
            None
        }
        (None, None) => {
            terminate(&tree, &mut child).await;
            wait_pumps(&mut pumps, PIPE_CLOSE_WAIT).await;
            timeout(PIPE_CLOSE_WAIT, child.wait())
                .await
                .ok()
                .and_then(Result::ok)
        }
    };
    for pump in pumps.into_iter().flatten() {
        pump.abort();
    }
    guard.disarm();

    let (stdout, stdout_total_bytes) = lock(&sinks[0]).render();
    let (stderr, stderr_total_bytes) = lock(&sinks[1]).render();
    Ok(ProcessResult {
        stdout,
        stderr,
        exit_code: status.and_then(|s| s.code()),
        signal: status.as_ref().and_then(crate::platform::process::exit_signal),
        timed_out,
        stdout_total_bytes,
        stderr_total_bytes,
        pid,
        background,
    })
}

async fn pump<R: AsyncRead + Unpin, S: Sink>(mut reader: R, sink: Arc<Mutex<S>>) {
    let mut buf = vec![0u8; 64 * 1024];
    let idle = Duration::from_millis(limits::BACKGROUND_LOG_REWRITE_MS);
    loop {
        match timeout(idle, reader.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => lock(&sink).push(&buf[..n]),
            Err(_) => lock(&sink).flush(),
        }
    }
    lock(&sink).flush();
}

/// Whether both pumps reached end-of-file within `limit`; a finished pump's
/// slot is emptied (a join handle must not be awaited twice).
async fn wait_pumps(pumps: &mut [Option<JoinHandle<()>>; 2], limit: Duration) -> bool {
    let all_finished = async {
        for slot in pumps.iter_mut() {
            if let Some(handle) = slot {
                let _ = handle.await;
                *slot = None;
            }
        }
    };
    timeout(limit, all_finished).await.is_ok()
}

fn lock<T>(sink: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    sink.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// SIGTERM to the whole tree, then [`ProcessTree::kill_all`] if anything of it is
/// still alive after `EXEC_KILL_GRACE_MS`. Reaps the leader meanwhile.
async fn terminate(tree: &ProcessTree, child: &mut tokio::process::Child) {
    tree.terminate();
    let deadline = Instant::now() + Duration::from_millis(limits::EXEC_KILL_GRACE_MS);
    loop {
        let _ = child.try_wait();
        if !tree.any_alive() {
            return;
        }
        if Instant::now() >= deadline {
            tree.kill_all();
            let _ = timeout(PIPE_CLOSE_WAIT, child.wait()).await;
            return;
        }
        sleep(TREE_POLL).await;
    }
}

/// The same for several trees at once, blocking (server exit, where no runtime
/// may be left to poll on).
pub fn terminate_blocking(trees: &[Arc<ProcessTree>]) {
    for tree in trees {
        tree.terminate();
    }
    let deadline = std::time::Instant::now() + Duration::from_millis(limits::EXEC_KILL_GRACE_MS);
    while trees.iter().any(|t| t.any_alive()) {
        if std::time::Instant::now() >= deadline {
            trees.iter().for_each(|t| t.kill_all());
            return;
        }
        std::thread::sleep(TREE_POLL);
    }
}

/// Kills the whole tree if the call is abandoned midway (its future dropped), so
/// a cancelled request leaves nothing running.
struct KillOnDrop {
    tree: Arc<ProcessTree>,
    armed: bool,
}

impl KillOnDrop {
    fn new(tree: Arc<ProcessTree>) -> KillOnDrop {
        lock(&LIVE_TREES).push(tree.clone());
        KillOnDrop { tree, armed: true }
    }

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        lock(&LIVE_TREES).retain(|tree| !Arc::ptr_eq(tree, &self.tree));
        if self.armed {
            self.tree.kill_all();
        }
    }
}

/// The trees of the calls running now (a background run leaves it when handed off).
static LIVE_TREES: Mutex<Vec<Arc<ProcessTree>>> = Mutex::new(Vec::new());

/// Stops the trees of every call still running (server exit, which may not wait for the
/// calls' own futures to be dropped). Blocks up to `EXEC_KILL_GRACE_MS`.
pub fn terminate_running() {
    let trees: Vec<Arc<ProcessTree>> = lock(&LIVE_TREES).clone();
    terminate_blocking(&trees);
}

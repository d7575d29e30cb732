//! Runs one child process in its own process group, with a deadline, bounded
//! output capture, and a kill of the whole group (SIGTERM, then SIGKILL after
//! `EXEC_KILL_GRACE_MS`) when the deadline passes.
//!
//! Async on tokio: the child is a `tokio::process::Child`, its stdout and stderr
//! are drained by two tasks into [`Capture`]s, so nothing blocks a runtime thread.
//!
//! When the main process exits, output is drained until the pipes close. If
//! processes it left behind still hold the pipes after `EXEC_DRAIN_AFTER_EXIT_MS`,
//! the group is terminated (they would die of SIGPIPE on their next write
//! anyway); leftovers that redirected their output (`nohup server >log &`) are
//! left alone, as a user running that in a terminal would expect.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, timeout};

use super::capture::Capture;
use super::error::SandboxError;
use crate::limits;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    /// Bytes of stdout (and, separately, stderr) kept in memory.
    pub capture_max_bytes: usize,
    /// `Some(dir)`: write output to `dir/stdout.log` and `dir/stderr.log` and
    /// leave the process running at the deadline instead of killing it.
    pub background_log_dir: Option<PathBuf>,
}

/// How one child ended (or was left running).
#[derive(Debug, Clone, Default)]
pub struct ProcessResult {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub backgrounded: bool,
    pub stdout_total_bytes: u64,
    pub stderr_total_bytes: u64,
    /// Process id, which is also the process-group id.
    pub pid: u32,
}

/// How long to wait for the output pipes once the group has been killed.
const PIPE_CLOSE_WAIT: Duration = Duration::from_millis(200);
/// Poll interval while waiting for a killed group to disappear.
const GROUP_POLL: Duration = Duration::from_millis(10);

pub async fn run(spec: ProcessSpec) -> Result<ProcessResult, SandboxError> {
    match spec.background_log_dir.clone() {
        Some(dir) => run_to_files(spec, &dir).await,
        None => run_with_pipes(spec).await,
    }
}

fn command(spec: &ProcessSpec) -> Result<tokio::process::Command, SandboxError> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(SandboxError::Spawn {
            program: "(nothing)".into(),
            reason: "empty command".into(),
        });
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .process_group(0)
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

async fn run_with_pipes(spec: ProcessSpec) -> Result<ProcessResult, SandboxError> {
    let mut command = command(&spec)?;
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| spawn_error(&spec, e))?;
    let pid = child.id().unwrap_or(0);
    let mut guard = GroupGuard::new(pid);

    let stdout_capture = Arc::new(Mutex::new(Capture::new(spec.capture_max_bytes)));
    let stderr_capture = Arc::new(Mutex::new(Capture::new(spec.capture_max_bytes)));
    let mut pumps = [
        child
            .stdout
            .take()
            .map(|r| tokio::spawn(pump(r, stdout_capture.clone()))),
        child
            .stderr
            .take()
            .map(|r| tokio::spawn(pump(r, stderr_capture.clone()))),
    ];

    let deadline = Instant::now() + spec.timeout;
    let exited = tokio::select! {
        status = child.wait() => status.ok(),
        _ = tokio::time::sleep_until(deadline) => None,
    };
    let timed_out = exited.is_none();
    let status = match exited {
        Some(status) => {
            let drain = Duration::from_millis(limits::EXEC_DRAIN_AFTER_EXIT_MS);
            if !wait_pumps(&mut pumps, drain).await {
                terminate_group(pid, &mut child).await;
                wait_pumps(&mut pumps, PIPE_CLOSE_WAIT).await;
            }
            Some(status)
        }
        None => {
            terminate_group(pid, &mut child).await;
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

    let (stdout, stdout_total_bytes) = render(&stdout_capture);
    let (stderr, stderr_total_bytes) = render(&stderr_capture);
    Ok(ProcessResult {
        stdout,
        stderr,
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        timed_out,
        backgrounded: false,
        stdout_total_bytes,
        stderr_total_bytes,
        pid,
    })
}

/// Output to files so a process left running never blocks on a full pipe and its
/// log stays readable after the call.
async fn run_to_files(spec: ProcessSpec, dir: &Path) -> Result<ProcessResult, SandboxError> {
    let prepare = |e: std::io::Error| SandboxError::Prepare(e.to_string());
    let stdout_path = dir.join("stdout.log");
    let stderr_path = dir.join("stderr.log");
    let mut command = command(&spec)?;
    command
        .stdout(File::create(&stdout_path).map_err(prepare)?)
        .stderr(File::create(&stderr_path).map_err(prepare)?);
    let mut child = command.spawn().map_err(|e| spawn_error(&spec, e))?;
    let pid = child.id().unwrap_or(0);
    let mut guard = GroupGuard::new(pid);

    let exited = tokio::select! {
        status = child.wait() => status.ok(),
        _ = sleep(spec.timeout) => None,
    };
    guard.disarm();
    let backgrounded = exited.is_none();
    if backgrounded {
        // Reap it whenever it ends; it keeps running in its own group meanwhile.
        tokio::spawn(async move {
            let _ = child.wait().await;
        });
    }
    let (stdout, stdout_total_bytes) = read_bounded(&stdout_path, spec.capture_max_bytes);
    let (stderr, stderr_total_bytes) = read_bounded(&stderr_path, spec.capture_max_bytes);
    Ok(ProcessResult {
        stdout,
        stderr,
        exit_code: exited.and_then(|s: ExitStatus| s.code()),
        signal: exited.and_then(|s| s.signal()),
        timed_out: backgrounded,
        backgrounded,
        stdout_total_bytes,
        stderr_total_bytes,
        pid,
    })
}

async fn pump<R: AsyncRead + Unpin>(mut reader: R, capture: Arc<Mutex<Capture>>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => lock(&capture).push(&buf[..n]),
        }
    }
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

fn lock(capture: &Mutex<Capture>) -> std::sync::MutexGuard<'_, Capture> {
    capture
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn render(capture: &Mutex<Capture>) -> (String, u64) {
    let capture = lock(capture);
    (capture.render(), capture.total_bytes())
}

/// Head and tail of a log file, without reading the middle of a huge one.
fn read_bounded(path: &Path, max_bytes: usize) -> (String, u64) {
    let mut capture = Capture::new(max_bytes);
    let Ok(mut file) = File::open(path) else {
        return (String::new(), 0);
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let half = (max_bytes / 2) as u64;
    let read_range = |file: &mut File, len: u64, capture: &mut Capture| {
        let mut buf = Vec::new();
        let _ = file.take(len).read_to_end(&mut buf);
        capture.push(&buf);
    };
    if size <= max_bytes as u64 {
        read_range(&mut file, size, &mut capture);
    } else {
        read_range(&mut file, half, &mut capture);
        let tail_len = max_bytes as u64 - half;
        if file.seek(SeekFrom::Start(size - tail_len)).is_ok() {
            capture.count_skipped(size - tail_len - half);
            read_range(&mut file, tail_len, &mut capture);
        }
    }
    (capture.render(), capture.total_bytes())
}

/// SIGTERM to the group, then SIGKILL if anything of it is still alive after
/// `EXEC_KILL_GRACE_MS`. Reaps the leader meanwhile.
async fn terminate_group(pgid: u32, child: &mut tokio::process::Child) {
    if !signal_group(pgid, libc::SIGTERM) {
        return;
    }
    let deadline = Instant::now() + Duration::from_millis(limits::EXEC_KILL_GRACE_MS);
    loop {
        let _ = child.try_wait();
        if !group_alive(pgid) {
            return;
        }
        if Instant::now() >= deadline {
            signal_group(pgid, libc::SIGKILL);
            let _ = timeout(PIPE_CLOSE_WAIT, child.wait()).await;
            return;
        }
        sleep(GROUP_POLL).await;
    }
}

/// Sends `signal` to process group `pgid`; false when the group is gone. Never
/// signals group 0 or 1 (that would be our own group or init's).
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    if pgid <= 1 {
        return false;
    }
    // SAFETY: killpg only sends a signal; pgid is a group this module created.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// Whether any process of the group is still running (zombies don't count: a
/// container's init may never reap them).
pub fn group_alive(pgid: u32) -> bool {
    if !signal_group(pgid, 0) {
        return false;
    }
    if cfg!(target_os = "linux") {
        return live_members_in_proc(pgid);
    }
    true
}

fn live_members_in_proc(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.filter_map(Result::ok).any(|entry| {
        let name = entry.file_name();
        let Some(name) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            return false;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{name}/stat")) else {
            return false;
        };
        // Fields after the parenthesised command: state ppid pgrp …
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            return false;
        };
        let mut fields = after.split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        group == Some(pgid) && state != "Z" && state != "X"
    })
}

/// Kills the group with SIGKILL if the call is abandoned midway (its future
/// dropped), so a cancelled request leaves nothing running.
struct GroupGuard {
    pgid: u32,
    armed: bool,
}

impl GroupGuard {
    fn new(pgid: u32) -> GroupGuard {
        GroupGuard { pgid, armed: true }
    }

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            signal_group(self.pgid, libc::SIGKILL);
        }
    }
}

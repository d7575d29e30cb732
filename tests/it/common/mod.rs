//! Shared harness of the black-box tests: a throwaway HOME, data root and project, the
//! built `cm` binary, and a real `cm serve` when a test needs a live server.

pub mod golden;
mod plugins;
pub mod setup_files;

pub use plugins::test_plugin;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const CM: &str = env!("CARGO_BIN_EXE_cm");

/// The repository root (tests/ lives in it).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ is inside the repo")
        .to_path_buf()
}

/// The built-in plugins compiled once for this test binary (by `cm doctor`, which loads
/// every built-in), so no test's first hook compiles them inside its watchdog: an
/// installed `cm` compiles them once per install, not once per call, and on a loaded
/// machine a cold compile in each of a hundred fresh data roots is what timed hooks out.
fn warm_cwasm_dir() -> Option<&'static Path> {
    static WARM: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    WARM.get_or_init(|| {
        // Keyed by the binary, so a rebuilt `cm` (new engine, new built-ins) gets its own.
        let built = std::fs::metadata(CM).ok()?;
        let stamp = built
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos();
        let parent = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let name = format!("warm-cwasm-{}-{stamp}", built.len());
        let warm = parent.join(&name);
        if !warm.join("cwasm").is_dir() {
            let scratch = tempfile::Builder::new()
                .prefix("warm-cwasm-scratch")
                .tempdir_in(&parent)
                .ok()?;
            let home = scratch.path().join("home");
            std::fs::create_dir_all(&home).ok()?;
            Command::new(CM)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", &home)
                .env("CONTEXT_MODE_DIR", scratch.path().join("data"))
                .current_dir(&home)
                // Compiles every built-in and waits for it (`cm doctor` stops at its
                // budget, which a loaded machine overruns, leaving the cache partial).
                .args(["plugin", "compile"])
                .stdin(Stdio::null())
                .output()
                .ok()?;
            let _ = std::fs::create_dir_all(&warm);
            let _ = std::fs::rename(scratch.path().join("data/cache/cwasm"), warm.join("cwasm"));
            for old in std::fs::read_dir(&parent).ok()?.flatten() {
                let old_name = old.file_name().to_string_lossy().into_owned();
                if old_name.starts_with("warm-cwasm-") && old_name != name {
                    let _ = std::fs::remove_dir_all(old.path());
                }
            }
        }
        Some(warm.join("cwasm"))
    })
    .as_deref()
}

/// Links the warm `.cwasm` entries into a new data root (entries are written by rename
/// and never changed in place, so a shared link is safe).
fn seed_builtin_cwasm(root: &Path) {
    let Some(warm) = warm_cwasm_dir() else { return };
    let Ok(entries) = std::fs::read_dir(warm) else {
        return;
    };
    let cache = root.join("cache/cwasm");
    if std::fs::create_dir_all(&cache).is_err() {
        return;
    }
    for entry in entries.flatten() {
        let target = cache.join(entry.file_name());
        if std::fs::hard_link(entry.path(), &target).is_err() {
            let _ = std::fs::copy(entry.path(), &target);
        }
    }
}

/// A sandbox: HOME, data root and project directory, all temporary.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub root: PathBuf,
    pub project: PathBuf,
}

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let root = dir.path().join("data");
        let project = dir.path().join("project");
        for d in [&home, &root, &project] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        seed_builtin_cwasm(&root);
        // Canonical paths, so what the hook sees matches what the test expects.
        let canon = |p: &Path| p.canonicalize().expect("canonicalize");
        Self {
            home: canon(&home),
            root: canon(&root),
            project: canon(&project),
            _dir: dir,
        }
    }

    /// A `cm` command with this sandbox's environment and nothing inherited that could
    /// change behaviour.
    pub fn cm(&self) -> Command {
        self.command(Path::new(CM))
    }

    /// Like [`Sandbox::cm`], for another build of `cm` (an A/B bench's baseline).
    pub fn command(&self, binary: &Path) -> Command {
        let mut command = Command::new(binary);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("CONTEXT_MODE_DIR", &self.root)
            .env("RUST_BACKTRACE", "1")
            .current_dir(&self.project);
        command
    }

    /// Runs `cm hook <platform> <event>` with `stdin` and returns what it did.
    pub fn hook(&self, platform: &str, event: &str, stdin: &[u8]) -> Output {
        self.hook_with(self.cm(), platform, event, stdin)
    }

    pub fn hook_with(&self, command: Command, platform: &str, event: &str, stdin: &[u8]) -> Output {
        hook_output(command, platform, event, stdin)
    }

    pub fn write(&self, relative: &str, contents: &[u8]) -> PathBuf {
        let path = self.project.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, contents).expect("write");
        path
    }

    /// Writes `permissions` into the project's `.claude/settings.json`.
    pub fn project_permissions(&self, permissions: serde_json::Value) {
        let settings = serde_json::json!({ "permissions": permissions });
        self.write(".claude/settings.json", settings.to_string().as_bytes());
    }

    pub fn hook_errors(&self) -> Vec<String> {
        std::fs::read_to_string(self.root.join("hook-errors.log"))
            .map(|s| s.lines().map(String::from).collect())
            .unwrap_or_default()
    }

    /// Starts a real `cm serve` and waits until its readiness marker exists.
    pub fn live_server(&self) -> McpClient {
        let client = McpClient::spawn(self.cm());
        let servers = self.root.join("servers");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let ready = std::fs::read_dir(&servers)
                .map(|d| {
                    d.flatten()
                        .any(|e| e.path().extension().is_some_and(|x| x == "json"))
                })
                .unwrap_or(false);
            if ready {
                return client;
            }
            assert!(
                Instant::now() < deadline,
                "cm serve wrote no readiness marker"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A minimal MCP client over the stdio of a real `cm serve`.
pub struct McpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    pub initialize_reply: serde_json::Value,
}

impl McpClient {
    pub fn spawn(mut command: Command) -> Self {
        Self::spawn_as(command.arg("serve"), "claude-code")
    }

    pub fn spawn_as(command: &mut Command, client_name: &str) -> Self {
        Self::spawn_with_stderr(command, client_name, Stdio::inherit())
    }

    /// Like [`McpClient::spawn_as`], with the server's stderr (its log) sent to `stderr`.
    pub fn spawn_with_stderr(command: &mut Command, client_name: &str, stderr: Stdio) -> Self {
        let mut client = Self::start(command, stderr);
        client.initialize_reply = client.request(
            "initialize",
            serde_json::json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": client_name, "version": "1.0.0" }
            }),
        );
        client.notify("notifications/initialized", serde_json::json!({}));
        client
    }

    /// Starts `command` (which must run `cm serve`) with no handshake yet.
    pub fn start(command: &mut Command, stderr: Stdio) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn cm serve");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            stdin,
            stdout,
            next_id: 1,
            initialize_reply: serde_json::Value::Null,
        }
    }

    pub fn send(&mut self, message: &serde_json::Value) {
        let stdin = self.stdin.as_mut().expect("server stdin open");
        writeln!(stdin, "{message}").expect("write to cm serve");
        stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: serde_json::Value) {
        self.send(&serde_json::json!({"jsonrpc":"2.0","method":method,"params":params}));
    }

    /// Sends a request and returns its `result` (or the whole error object).
    pub fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&serde_json::json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .expect("read from cm serve");
            assert!(
                n > 0,
                "cm serve closed stdout while we waited for reply {id}"
            );
            let message: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("cm serve wrote a non-JSON line {line:?}: {e}"));
            if message.get("id") == Some(&serde_json::json!(id)) {
                return message
                    .get("result")
                    .cloned()
                    .unwrap_or_else(|| message.get("error").cloned().unwrap_or_default());
            }
        }
    }

    /// Sends a `tools/call` without waiting for its reply; returns the request's id.
    pub fn start_tool_call(&mut self, name: &str, arguments: serde_json::Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &serde_json::json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":name,"arguments":arguments}}),
        );
        id
    }

    /// The replies to the requests `ids` (sent with [`McpClient::start_tool_call`]), in
    /// whatever order the server answers: (id, text of all content blocks, isError).
    pub fn tool_replies(&mut self, ids: &[u64]) -> Vec<(u64, String, bool)> {
        let mut replies = Vec::new();
        while replies.len() < ids.len() {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .expect("read from cm serve");
            assert!(n > 0, "cm serve closed stdout with replies outstanding");
            let message: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("cm serve wrote a non-JSON line {line:?}: {e}"));
            let Some(id) = message.get("id").and_then(serde_json::Value::as_u64) else {
                continue;
            };
            if !ids.contains(&id) {
                continue;
            }
            let result = &message["result"];
            let text = content_text(result).unwrap_or_else(|| message.to_string());
            replies.push((id, text, result["isError"].as_bool().unwrap_or(false)));
        }
        replies
    }

    /// Closes the server's stdin (the agent going away) without waiting.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits for the exit, at most `limit` (a liveness bound); then everything the server
    /// wrote to stdout after what was already read.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<(std::process::ExitStatus, String)> {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut self.stdout, &mut rest);
        Some((status, rest))
    }

    /// Calls a tool; returns (text of all content blocks, isError).
    pub fn call_tool(&mut self, name: &str, arguments: serde_json::Value) -> (String, bool) {
        let result = self.request(
            "tools/call",
            serde_json::json!({"name": name, "arguments": arguments}),
        );
        let text = content_text(&result).unwrap_or_else(|| result.to_string());
        (text, result["isError"].as_bool().unwrap_or(false))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's exit status if it has exited, without waiting.
    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().expect("try_wait")
    }

    /// Closes stdin and waits for the server to exit on its own.
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "cm serve did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Damages an index file the way issue 12 did: its WAL copied in first (what a server
/// does once the WAL is large), then 16 KB of zeros right after its first page.
pub fn damage_index_file(path: &Path) {
    use std::io::{Seek, SeekFrom};
    rusqlite::Connection::open(path)
        .expect("open index file")
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    let mut handle = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open for damage");
    handle.seek(SeekFrom::Start(8_192)).expect("seek");
    handle.write_all(&[0u8; 16 * 1024]).expect("zeros");
}

/// The text of every content block of a tool result, joined by newlines; `None` when
/// the result has no content list.
fn content_text(result: &serde_json::Value) -> Option<String> {
    let blocks = result["content"].as_array()?;
    Some(
        blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// `command hook <platform> <event>` run to its end with `stdin` written to it.
pub fn hook_output(mut command: Command, platform: &str, event: &str, stdin: &[u8]) -> Output {
    let mut child = command
        .args(["hook", platform, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cm hook");
    let mut pipe = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    // A writer thread, so a hook that answers before reading everything can't deadlock us.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let output = child.wait_with_output().expect("wait cm hook");
    let _ = writer.join();
    output
}

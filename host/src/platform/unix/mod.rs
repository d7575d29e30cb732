//! What Linux, macOS and the other Unixes share: signals, process groups, mode bits.

use std::ffi::OsStr;
use std::path::Path;

pub mod tree;

/// The desktop's opener: freedesktop's everywhere but macOS.
pub const FILE_OPENER: &str = if cfg!(target_os = "macos") {
    "open"
} else {
    "xdg-open"
};

/// Where the user's home directory is named.
pub const HOME_VARIABLES: &[&str] = &["HOME"];

/// This process's parent.
pub fn parent_pid() -> u32 {
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() as u32 }
}

/// Whether process `pid` exists (a process of another user counts: `EPERM`).
pub fn exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let delivered = unsafe { libc::kill(pid, 0) } == 0;
    delivered || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The signal that ended a process, if one did.
pub fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

/// Its own process group: an agent that kills the hook's group on a timeout does
/// not take a detached helper with it.
pub fn detach(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

/// A command for `argv` in a process group of its own (the caller adds what its OS
/// needs before exec).
pub fn group_command(argv: &[std::ffi::OsString]) -> Result<tokio::process::Command, String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("empty command".into());
    };
    let mut command = tokio::process::Command::new(program);
    command.args(args).process_group(0);
    Ok(command)
}

/// Sends `signal` to one process; never to pid 0 or 1, or this process.
pub fn signal_pid(pid: u32, signal: i32) -> bool {
    let Ok(target) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if target <= 1 || pid == std::process::id() {
        return false;
    }
    // SAFETY: kill only sends a signal; the pid is a member a tree found.
    unsafe { libc::kill(target, signal) == 0 }
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
    // SAFETY: killpg only sends a signal; pgid is a group the sandbox created.
    unsafe { libc::killpg(pgid, signal) == 0 }
}

/// SIGTERM, SIGINT and SIGHUP, registered when created.
pub struct Termination {
    signals: Option<[tokio::signal::unix::Signal; 3]>,
}

impl Termination {
    pub fn install() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let signals = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(term), Ok(int), Ok(hup)) => Some([term, int, hup]),
            _ => {
                tracing::warn!("cannot listen for termination signals");
                None
            }
        };
        Termination { signals }
    }

    pub async fn received(&mut self) {
        let Some([term, int, hup]) = self.signals.as_mut() else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = hup.recv() => {}
        }
    }
}

/// A regular file with an execute bit.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The names `program` may have on disk: itself (Unix has no `PATHEXT`).
pub fn executable_names(program: &OsStr) -> Vec<std::ffi::OsString> {
    vec![program.to_os_string()]
}

/// Creates one directory only this user can enter (mode 0700).
pub fn create_private_dir(path: &Path, recursive: bool) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(recursive)
        .mode(0o700)
        .create(path)
}

/// Opens for reading without blocking on a FIFO swapped in after a type check.
pub fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// What a file that is neither a regular file nor a directory is.
pub fn special_kind(kind: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

/// Device and inode: what makes two paths the same file.
pub fn file_identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// The access mode bits of a file (for tests and doctor rows that show them).
pub fn mode_bits(meta: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(meta.permissions().mode() & 0o7777)
}

/// Sets the access mode bits.
pub fn set_mode_bits(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// A symbolic link at `link` to `target`.
/// The default SIGPIPE action back (see the facade).
pub fn end_quietly_when_stdout_closes() {
    // SAFETY: setting a signal's disposition to the default touches no Rust state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A plain rename: the Unixes without Linux's exchange flag (see the facade).
#[cfg_attr(target_os = "linux", allow(dead_code))]
pub fn replace_state_file(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)
}

pub fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// Unix paths have no verbatim form.
pub fn without_verbatim_prefix(path: std::path::PathBuf) -> std::path::PathBuf {
    path
}

/// `cm serve`'s stdin. A pipe (what every agent gives its server) is read by the async
/// workers themselves, woken by the reactor: tokio's own stdin reads on a thread of its
/// blocking pool, one more thread to wake per message. Setting the pipe non-blocking
/// touches no one else: the agent holds the other end, and every child `cm` starts gets
/// its own stdin. Anything else (a terminal, a file) keeps tokio's reader.
pub fn serve_stdin() -> Box<dyn tokio::io::AsyncRead + Send + Unpin> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let pipe = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .ok()
        .filter(|file| file.metadata().is_ok_and(|m| m.file_type().is_fifo()))
        .and_then(|file| tokio::net::unix::pipe::Receiver::from_file(file).ok());
    match pipe {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdin()),
    }
}

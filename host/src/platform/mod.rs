//! Everything that differs per operating system, behind one interface (issue 28,
//! ADR 0032). The rest of the host calls only this module: no other file tests the OS
//! with `#[cfg]` or reaches for `libc`, `/proc` or `std::os::*`.
//!
//! | facility | Linux | macOS | Windows |
//! |---|---|---|---|
//! | process table (agent ancestor, start identity) | `/proc/<pid>/stat` | `libproc` (`proc_pidinfo`) | Toolhelp snapshot, `GetProcessTimes` |
//! | every process a call started | subreaper + group + pipe holders, frozen then killed | group + descendants walked in the table (no subreaper: a `setsid` child re-parented to launchd escapes) | a Job Object, killed on close |
//! | confinement | Landlock | Seatbelt profile via `sandbox-exec` | refused with one line |
//! | termination signals | SIGTERM, SIGINT, SIGHUP | the same | Ctrl-C, Ctrl-Break, console close |
//! | private dirs, executables | mode bits | mode bits | ACL default, `PATHEXT` |
//! | replacing a state file | `renameat2(RENAME_EXCHANGE)` (no ext4 flush) | rename | rename (`MoveFileEx`) |
//!
//! File locks need nothing here: `std::fs::File::lock` is portable.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(all(unix, not(any(target_os = "linux", target_os = "macos"))))]
mod other_unix;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(target_os = "linux")]
use linux as os;
#[cfg(target_os = "macos")]
use macos as os;
#[cfg(all(unix, not(any(target_os = "linux", target_os = "macos"))))]
use other_unix as os;
#[cfg(windows)]
use windows as os;

pub mod child;
pub mod fs;
pub mod process;
/// The macOS mechanism's profile text: pure, so its goldens run on every OS.
pub mod seatbelt;

/// Makes a standard output whose reader went away end this process the way it ends
/// `ls` or `cat` (`cm plugin list | head -1`), not with a panic and exit 101. Unix: the
/// default SIGPIPE action, which Rust's runtime replaces with "ignore". Windows, which
/// has no such signal: a print to a closed pipe exits 0. Not for `cm hook`, `cm serve`
/// or `cm statusline`, whose writes check their own errors.
pub fn end_quietly_when_stdout_closes() {
    os::end_quietly_when_stdout_closes();
}

/// The operating system whose rules a run-time choice follows (runtime detection,
/// config paths), passed around as data so the other systems' rules stay testable
/// here. Any Unix other than macOS follows Linux's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Macos,
    Windows,
}

impl Os {
    /// The system this binary was built for.
    pub const fn current() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::Macos
        } else {
            Os::Linux
        }
    }

    /// The file name of a program built as `stem` (`{bin}` of the runtime catalog):
    /// Windows starts only files with an executable extension.
    pub fn executable_name(self, stem: &str) -> String {
        match self {
            Os::Windows => format!("{stem}.exe"),
            _ => stem.to_string(),
        }
    }

    /// The directory names of a path written the way this system writes paths, in
    /// order, empty ones dropped: Windows accepts `\` and `/` alike, the others only
    /// `/` (where `\` is an ordinary character of a file name). A string, not a
    /// `Path`, so every system's rules are testable on any one.
    pub fn path_words(self, path: &str) -> Vec<&str> {
        let separators: &[char] = match self {
            Os::Windows => &['\\', '/'],
            _ => &['/'],
        };
        path.split(separators).filter(|w| !w.is_empty()).collect()
    }

    /// Whether two file names are the same file's: Windows' file systems ignore case.
    pub fn same_name(self, a: &str, b: &str) -> bool {
        match self {
            Os::Windows => a.eq_ignore_ascii_case(b),
            _ => a == b,
        }
    }

    /// Its name in `runtimes/*.toml` (`os = [...]`) and in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Macos => "macos",
            Os::Windows => "windows",
        }
    }
}

/// Resolves at the first request to end the process: SIGTERM, SIGINT or SIGHUP on
/// Unix; Ctrl-C, Ctrl-Break or the console closing on Windows. Create it before the
/// handshake, so a signal that arrives early is caught rather than killing the
/// process with a signal status. Must be created inside the tokio runtime.
pub struct Termination(os::Termination);

impl Termination {
    pub fn install() -> Termination {
        Termination(os::Termination::install())
    }

    pub async fn received(&mut self) {
        self.0.received().await
    }
}

/// `cm serve`'s stdin, read as cheaply as the OS allows (a pipe through the reactor on
/// Unix; tokio's reader elsewhere).
pub fn serve_stdin() -> Box<dyn tokio::io::AsyncRead + Send + Unpin> {
    os::serve_stdin()
}

/// The user's home directory: the first of the OS's variables for it that is set and
/// not empty (`HOME`; on Windows, where Git Bash sets `HOME` and everything else
/// sets `USERPROFILE`, then `USERPROFILE`).
pub fn home_dir() -> Option<std::path::PathBuf> {
    os::HOME_VARIABLES
        .iter()
        .filter_map(std::env::var_os)
        .find(|value| !value.is_empty())
        .map(std::path::PathBuf::from)
}

/// The program that opens a file with the desktop's default application.
pub const FILE_OPENER: &str = os::FILE_OPENER;

/// Hands freed heap back to the system where the allocator keeps it (glibc keeps
/// freed memory in its arenas); nothing elsewhere.
pub fn release_freed_heap() {
    os::release_freed_heap();
}

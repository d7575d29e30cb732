//! Windows: a Toolhelp snapshot for the process table, a Job Object per sandboxed run
//! (every process it starts is in the job; closing the job kills them all), Ctrl-C /
//! Ctrl-Break / console close as termination, `PATHEXT` for executables. No
//! confinement mechanism: a confined call is refused with one line.

use std::ffi::{OsStr, OsString};
use std::path::Path;

mod job;
mod table;

pub use job::ProcessTree;
pub use table::{parent_pid, process_info};

use crate::platform::child::{Net, Plan};

/// Explorer opens a file with its associated application.
pub const FILE_OPENER: &str = "explorer";

/// Where the user's home directory is named: Git Bash sets `HOME`, Windows `USERPROFILE`.
pub const HOME_VARIABLES: &[&str] = &["HOME", "USERPROFILE"];

/// Whether process `pid` exists and has not exited.
pub fn exists(pid: u32) -> bool {
    process_info(pid).is_some_and(|p| p.alive)
}

/// Windows processes end with an exit code, never a signal.
pub fn exit_signal(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// A new process group without a console window, so a console Ctrl-C aimed at the
/// hook's group does not reach the helper.
pub fn detach(command: &mut std::process::Command) {
    use std::os::windows::process::CommandExt;
    use windows_sys::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW};
    command.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
}

/// Ctrl-C, Ctrl-Break and the console closing.
pub struct Termination {
    signals: Option<(
        tokio::signal::windows::CtrlC,
        tokio::signal::windows::CtrlBreak,
        tokio::signal::windows::CtrlClose,
    )>,
}

impl Termination {
    pub fn install() -> Self {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
        let signals = match (ctrl_c(), ctrl_break(), ctrl_close()) {
            (Ok(c), Ok(b), Ok(close)) => Some((c, b, close)),
            _ => {
                tracing::warn!("cannot listen for console control events");
                None
            }
        };
        Termination { signals }
    }

    pub async fn received(&mut self) {
        let Some((c, b, close)) = self.signals.as_mut() else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = c.recv() => {}
            _ = b.recv() => {}
            _ = close.recv() => {}
        }
    }
}

/// `PATHEXT`'s extensions, lower case (`.com;.exe;.bat;.cmd` when unset).
fn path_extensions() -> Vec<String> {
    let value = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    value
        .split(';')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| e.starts_with('.') && e.len() > 1)
        .collect()
}

/// A file whose extension `PATHEXT` lists.
pub fn is_executable(path: &Path) -> bool {
    let Some(ext) = path.extension() else {
        return false;
    };
    let ext = format!(".{}", ext.to_string_lossy().to_ascii_lowercase());
    path.is_file() && path_extensions().contains(&ext)
}

/// `program` with each `PATHEXT` extension (as `cmd` searches), or as given when it
/// already has one of them.
pub fn executable_names(program: &OsStr) -> Vec<OsString> {
    let extensions = path_extensions();
    let given = Path::new(program)
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_ascii_lowercase()));
    if given.is_some_and(|e| extensions.contains(&e)) {
        return vec![program.to_os_string()];
    }
    extensions
        .iter()
        .map(|ext| {
            let mut name = program.to_os_string();
            name.push(ext);
            name
        })
        .collect()
}

/// A directory under the user's profile or temp dir inherits an ACL that only the
/// user (and administrators) can use: nothing to narrow.
pub fn create_private_dir(path: &Path, recursive: bool) -> std::io::Result<()> {
    if recursive {
        std::fs::create_dir_all(path)
    } else {
        std::fs::create_dir(path)
    }
}

/// `\\?\C:\dir` → `C:\dir` when the plain form means the same file: a drive path
/// within `MAX_PATH` whose components are no reserved device names and end in no dot
/// or space (what the `dunce` crate checks). UNC verbatim paths stay as they are.
pub fn without_verbatim_prefix(path: std::path::PathBuf) -> std::path::PathBuf {
    const MAX_PATH_CHARS: usize = 260;
    let Some(text) = path.to_str() else {
        return path;
    };
    let Some(plain) = text.strip_prefix(r"\\?\") else {
        return path;
    };
    let bytes = plain.as_bytes();
    let drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":\\";
    let reserved = |c: &str| {
        let stem = c.split('.').next().unwrap_or("").to_ascii_uppercase();
        matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
            || ((stem.starts_with("COM") || stem.starts_with("LPT"))
                && stem.len() == 4
                && stem.as_bytes()[3].is_ascii_digit())
    };
    let plain_ok = drive
        && plain.len() < MAX_PATH_CHARS
        && plain[3..]
            .split('\\')
            .filter(|c| !c.is_empty())
            .all(|c| !reserved(c) && !c.ends_with('.') && !c.ends_with(' '));
    if plain_ok {
        std::path::PathBuf::from(plain)
    } else {
        path
    }
}

/// Windows has no FIFOs a plain open could block on.
pub fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

pub fn special_kind(_kind: &std::fs::FileType) -> Option<&'static str> {
    None
}

/// std keeps the volume serial and file index unstable on Windows: no identity.
pub fn file_identity(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

pub fn mode_bits(_meta: &std::fs::Metadata) -> Option<u32> {
    None
}

/// Only the read-only flag exists: it follows the owner's write bit.
pub fn set_mode_bits(path: &Path, mode: u32) -> std::io::Result<()> {
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_readonly(mode & 0o200 == 0);
    std::fs::set_permissions(path, permissions)
}

/// Windows has no SIGPIPE: std's print panics with "failed printing to stdout: …" when
/// the pipe is closed, and that panic alone ends the command with exit 0 instead.
pub fn end_quietly_when_stdout_closes() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") {
            std::process::exit(0);
        }
        previous(info);
    }));
}

/// `MoveFileEx` with `REPLACE_EXISTING`, through std: atomic for readers on NTFS.
pub fn replace_state_file(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)
}

pub fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    let resolved = link
        .parent()
        .map_or(target.to_path_buf(), |p| p.join(target));
    if resolved.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

/// No confinement mechanism is used on Windows; a value of this type is never made.
#[derive(Debug, Clone)]
pub enum ChildConfinement {}

const NO_CONFINEMENT: &str =
    "Windows has no confinement mechanism cm can use (Landlock and Seatbelt are Linux and macOS)";

/// What makes confinement possible when it is not.
pub const CONFINEMENT_FIX: &str = "run cm on Linux or macOS for confinement";

pub fn confinement(_plan: &Plan) -> Result<ChildConfinement, String> {
    Err(NO_CONFINEMENT.into())
}

pub fn confinement_support(_net: Option<&Net>) -> Result<String, String> {
    Err(NO_CONFINEMENT.into())
}

/// The command for one sandboxed child: started suspended (so it cannot start anything
/// before [`ProcessTree::attach`] has put it in its job), in a new process group,
/// without a console window.
pub fn command(
    argv: &[OsString],
    confine: Option<&ChildConfinement>,
) -> Result<tokio::process::Command, String> {
    use windows_sys::Win32::System::Threading::{
        CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, CREATE_SUSPENDED,
    };
    if let Some(never) = confine {
        match *never {}
    }
    let Some((program, args)) = argv.split_first() else {
        return Err("empty command".into());
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .creation_flags(CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
    Ok(command)
}

/// The system heap returns freed pages itself.
pub fn release_freed_heap() {}

/// `cm serve`'s stdin: tokio's reader (its blocking pool), the one that works for every
/// kind of handle here.
pub fn serve_stdin() -> Box<dyn tokio::io::AsyncRead + Send + Unpin> {
    Box::new(tokio::io::stdin())
}

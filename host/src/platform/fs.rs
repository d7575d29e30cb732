//! File-system facts that differ per OS: executables, private directories, special
//! files, file identity, mode bits.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::os;

/// `Path::canonicalize` without Windows' verbatim prefix: `C:\dir`, not
/// `\\?\C:\dir`, which `cmd.exe` refuses as a working directory and which reads
/// badly in a reply. Paths the prefix is needed for (over `MAX_PATH`, reserved names)
/// keep it. Elsewhere the same as `canonicalize`.
pub trait Canonical {
    fn canonical(&self) -> std::io::Result<PathBuf>;
}

impl<P: AsRef<Path> + ?Sized> Canonical for P {
    fn canonical(&self) -> std::io::Result<PathBuf> {
        std::fs::canonicalize(self.as_ref()).map(os::without_verbatim_prefix)
    }
}

/// Whether `path` is a file this user may run (Unix: an execute bit; Windows: a file
/// whose extension is in `PATHEXT`).
pub fn is_executable(path: &Path) -> bool {
    os::is_executable(path)
}

/// The first executable named `program` (with the extensions Windows tries) in the
/// absolute directories of `path`.
pub fn find_on_path(program: &str, path: &OsStr) -> Option<PathBuf> {
    let names: Vec<OsString> = os::executable_names(OsStr::new(program));
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

/// Creates one directory only this user can enter (Unix: mode 0700; Windows: the
/// default ACL of the user's profile). With `recursive`, missing parents too.
pub fn create_private_dir(path: &Path, recursive: bool) -> std::io::Result<()> {
    os::create_private_dir(path, recursive)
}

/// Opens a file for reading; on Unix without blocking when a FIFO was swapped in.
pub fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    os::open_nonblocking(path)
}

/// "a FIFO", "a device", "a socket" for a special file; `None` otherwise.
pub fn special_kind(kind: &std::fs::FileType) -> Option<&'static str> {
    os::special_kind(kind)
}

/// What makes two paths the same file (device and inode), where the OS says.
pub fn file_identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    os::file_identity(meta)
}

/// Unix mode bits (`None` on Windows).
pub fn mode_bits(meta: &std::fs::Metadata) -> Option<u32> {
    os::mode_bits(meta)
}

/// Sets Unix mode bits; on Windows only the read-only flag follows the owner's
/// write bit.
pub fn set_mode_bits(path: &Path, mode: u32) -> std::io::Result<()> {
    os::set_mode_bits(path, mode)
}

/// Puts the file `from` in place of `to`, atomically for readers and for a process
/// killed mid-way, but without the data flush ext4 makes on a rename over an existing
/// file (over 1 ms per write on the bench machine, on every hook that switches session).
/// Only for state that readers take leniently and that is rebuilt when lost: after a
/// power cut `to` may be empty, never a mix. Users' files keep `std::fs::rename`.
pub fn replace_state_file(from: &Path, to: &Path) -> std::io::Result<()> {
    os::replace_state_file(from, to)
}

/// A symbolic link at `link` pointing to `target` (a directory link on Windows when
/// the target is a directory; creating one may need developer mode there).
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> std::io::Result<()> {
    os::symlink(target.as_ref(), link.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_dirs_are_private_where_modes_exist() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("a/b");
        create_private_dir(&dir, true).expect("create");
        let meta = std::fs::metadata(&dir).expect("meta");
        assert!(meta.is_dir());
        if let Some(mode) = mode_bits(&meta) {
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[test]
    fn the_current_exe_is_executable_and_found_on_a_path_naming_its_dir() {
        let exe = std::env::current_exe().expect("exe");
        assert!(is_executable(&exe));
        let dir = exe.parent().expect("dir");
        let stem = exe
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let path = std::env::join_paths([Path::new("relative"), dir]).expect("join");
        let found = find_on_path(&stem, &path).expect("found");
        assert_eq!(found.file_stem(), exe.file_stem());
        let dir = tempfile::tempdir().expect("tempdir");
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "x").expect("write");
        assert!(!is_executable(&text));
    }

    #[test]
    fn a_state_file_is_replaced_whole_and_the_temp_file_goes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (tmp, state) = (dir.path().join(".state.tmp"), dir.path().join("state.json"));
        std::fs::write(&tmp, "first").expect("write");
        replace_state_file(&tmp, &state).expect("first replace: nothing to swap with");
        std::fs::write(&tmp, "second, longer").expect("write");
        replace_state_file(&tmp, &state).expect("replace an existing file");
        assert_eq!(
            std::fs::read_to_string(&state).expect("read"),
            "second, longer"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["state.json"]);
        assert!(
            replace_state_file(&tmp, &state).is_err(),
            "no temp file: an error"
        );
        assert_eq!(
            std::fs::read_to_string(&state).expect("read"),
            "second, longer"
        );
    }
}

//! Reading a plugin file: regular files only, never more than `PLUGIN_FILE_MAX_BYTES`.
//! A FIFO would block the reader forever and a device (`/dev/zero`) never ends.

use std::io::Read;
use std::path::Path;

use super::PluginError;
use crate::limits::PLUGIN_FILE_MAX_BYTES;

/// The whole file, when it is a regular file within the size limit. Messages do not
/// repeat the path: callers say which file they read.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, PluginError> {
    let cannot = |e: std::io::Error| PluginError::Io(format!("cannot read it: {e}"));
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    check(&std::fs::metadata(path).map_err(cannot)?)?;
    // O_NONBLOCK: a FIFO swapped in after the check opens at once instead of blocking;
    // the check of the opened file below then refuses it.
    let file = crate::platform::fs::open_nonblocking(path).map_err(cannot)?;
    check(&file.metadata().map_err(cannot)?)?;
    let mut bytes = Vec::new();
    file.take(PLUGIN_FILE_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > PLUGIN_FILE_MAX_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn check(meta: &std::fs::Metadata) -> Result<(), PluginError> {
    if !meta.is_file() {
        return Err(PluginError::Io(format!(
            "not a regular file ({}); a plugin is a .wasm file",
            kind_of(meta)
        )));
    }
    if meta.len() > PLUGIN_FILE_MAX_BYTES {
        return Err(too_large());
    }
    Ok(())
}

fn too_large() -> PluginError {
    PluginError::Io(format!(
        "larger than the {} MiB a plugin file may be",
        PLUGIN_FILE_MAX_BYTES / (1024 * 1024)
    ))
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        "a directory"
    } else {
        crate::platform::fs::special_kind(&kind).unwrap_or("not a file")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_are_read_and_others_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let small = dir.path().join("small.wasm");
        std::fs::write(&small, b"\0asm").expect("write");
        assert_eq!(read_bounded(&small).expect("read"), b"\0asm");

        let big = dir.path().join("big.wasm");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(PLUGIN_FILE_MAX_BYTES + 1))
            .expect("sparse file");
        assert!(
            read_bounded(&big)
                .unwrap_err()
                .to_string()
                .contains("64 MiB")
        );

        let error = read_bounded(dir.path()).unwrap_err().to_string();
        assert!(error.contains("a directory"), "{error}");
        let error = read_bounded(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("a device"), "{error}");
    }
}

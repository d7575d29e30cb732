//! The downloadable archive of one target: `cm-<version>-<triple>.tar.gz` (`.zip` for
//! Windows, which opens it without extra tools) holding one folder with the binary and the
//! README, and beside it `<archive>.sha256` in `sha256sum -c` format.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::targets::Target;

pub struct Archive {
    pub path: PathBuf,
    pub sha256: String,
}

/// How hard gzip works: the shipped archive is written once and downloaded often; a trial
/// build's 100+ MB debug binary is packed for a test and thrown away.
#[derive(Debug, Clone, Copy)]
pub enum Effort {
    Smallest,
    Fastest,
}

pub fn write(
    out_dir: &Path,
    version: &str,
    target: &Target,
    binary: &Path,
    readme: &Path,
    effort: Effort,
) -> Result<Archive> {
    let folder = format!("cm-{version}-{}", target.triple);
    let path = if target.windows() {
        let path = out_dir.join(format!("{folder}.zip"));
        write_zip(&path, &folder, target, binary, readme)?;
        path
    } else {
        let path = out_dir.join(format!("{folder}.tar.gz"));
        write_tar_gz(&path, &folder, target, binary, readme, effort)?;
        path
    };
    let sha256 = sha256_file(&path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sum_path = PathBuf::from(format!("{}.sha256", path.display()));
    std::fs::write(&sum_path, format!("{sha256}  {name}\n"))
        .with_context(|| format!("cannot write {}", sum_path.display()))?;
    Ok(Archive { path, sha256 })
}

fn write_tar_gz(
    path: &Path,
    folder: &str,
    target: &Target,
    binary: &Path,
    readme: &Path,
    effort: Effort,
) -> Result<()> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let level = match effort {
        Effort::Smallest => flate2::Compression::best(),
        Effort::Fastest => flate2::Compression::fast(),
    };
    let gz = flate2::write::GzEncoder::new(file, level);
    let mut tar = tar::Builder::new(gz);
    for (source, name, mode) in [
        (binary, target.exe_name(), 0o755),
        (readme, "README.md", 0o644),
    ] {
        let bytes = read(source)?;
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(mode);
        header.set_mtime(0);
        header.set_cksum();
        tar.append_data(&mut header, format!("{folder}/{name}"), bytes.as_slice())
            .with_context(|| format!("cannot add {name} to {}", path.display()))?;
    }
    let gz = tar.into_inner().context("cannot finish the tar stream")?;
    gz.finish()
        .with_context(|| format!("cannot finish {}", path.display()))?
        .sync_all()
        .with_context(|| format!("cannot sync {}", path.display()))?;
    Ok(())
}

fn write_zip(
    path: &Path,
    folder: &str,
    target: &Target,
    binary: &Path,
    readme: &Path,
) -> Result<()> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    for (source, name, mode) in [
        (binary, target.exe_name(), 0o755),
        (readme, "README.md", 0o644),
    ] {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode);
        zip.start_file(format!("{folder}/{name}"), options)
            .with_context(|| format!("cannot add {name} to {}", path.display()))?;
        zip.write_all(&read(source)?)
            .with_context(|| format!("cannot add {name} to {}", path.display()))?;
    }
    zip.finish()
        .with_context(|| format!("cannot finish {}", path.display()))?
        .sync_all()
        .with_context(|| format!("cannot sync {}", path.display()))?;
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

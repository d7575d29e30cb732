//! Builds `cm` for one target with the toolchains of ADR 34 (zig for Linux and macOS,
//! mingw for Windows), through tests/cross/env.sh so the paths are the tests' own.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::targets::{Builder, Target};

/// The profile the archives and npm packages ship (Cargo.toml `[profile.dist]`).
pub const SHIPPED_PROFILE: &str = "dist";

pub struct Build<'a> {
    pub root: &'a Path,
    pub target: &'a Target,
    pub profile: &'a str,
}

impl Build<'_> {
    /// A trial profile (`dev`, `release`) for the machine's own target builds natively
    /// into target/<profile>/, where `cargo test` already put it; what ships is always
    /// cross-built, so a Linux binary never asks for a newer glibc than it must.
    fn native(&self) -> bool {
        self.profile != SHIPPED_PROFILE && Target::host() == Some(self.target)
    }

    fn profile_dir(&self) -> &str {
        if self.profile == "dev" {
            "debug"
        } else {
            self.profile
        }
    }

    /// Where cargo leaves the binary.
    pub fn output(&self) -> PathBuf {
        let mut dir = self.root.join("target");
        if !self.native() {
            dir.push(self.target.triple);
        }
        dir.join(self.profile_dir()).join(self.target.exe_name())
    }

    pub fn run(&self) -> Result<PathBuf> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut args: Vec<String> = Vec::new();
        if self.native() {
            args.extend(["build".into()]);
        } else {
            ensure_rust_target(self.target.triple)?;
            match self.target.builder {
                Builder::Zig => {
                    args.extend(["zigbuild".into(), "--target".into()]);
                    args.push(self.target.zig_triple());
                }
                Builder::Cargo => {
                    args.extend(["build".into(), "--target".into()]);
                    args.push(self.target.triple.into());
                }
            }
        }
        args.extend([
            "-p".into(),
            "cm".into(),
            "--locked".into(),
            "--profile".into(),
        ]);
        args.push(self.profile.into());
        let line = format!("{cargo} {}", args.join(" "));
        eprintln!("xtask: {line}");
        let mut command = if self.native() {
            // Exactly the environment `cargo test` had: another one (env.sh's) would make
            // build scripts that track the C toolchain run again.
            Command::new(&cargo)
        } else {
            // env.sh puts zig and cargo-zigbuild (cached outside the clone) on PATH.
            let mut command = Command::new("bash");
            command
                .arg("-c")
                .arg(r#". tests/cross/env.sh && exec "$@""#)
                .arg("xtask-build")
                .arg(&cargo);
            command
        };
        without_the_callers_package_env(&mut command);
        let status = command
            .args(&args)
            .current_dir(self.root)
            .status()
            .with_context(|| format!("cannot run {line}"))?;
        if !status.success() {
            let hint = if self.target.builder == Builder::Zig && !self.native() {
                " (zig and cargo-zigbuild come from tests/cross/install.sh)"
            } else {
                ""
            };
            bail!("{line} failed{hint}");
        }
        let out = self.output();
        if !out.is_file() {
            bail!("{line} succeeded but left no {}", out.display());
        }
        Ok(out)
    }
}

/// `cargo xtask` (a `cargo run`) and `cargo test` hand their child the package variables
/// of the crate they run (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, `OUT_DIR`, …). Build
/// scripts that track one of them (ring tracks `CARGO_MANIFEST_DIR`) would see a value
/// other than a plain `cargo build` or `cargo test` saw and rebuild, with `cm` after them,
/// back and forth on every run. The nested build gets the caller's environment without
/// them; cargo's own settings (`CARGO_HOME`, `CARGO_TARGET_DIR`, `CARGO_BUILD_*`) stay.
fn without_the_callers_package_env(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let setting = ["CARGO_HOME", "CARGO_TARGET_DIR"].contains(&name.as_ref())
            || name.starts_with("CARGO_BUILD_")
            || name.starts_with("CARGO_PROFILE_")
            || name.starts_with("CARGO_REGISTRIES_")
            || name.starts_with("CARGO_NET_")
            || name.starts_with("CARGO_TARGET_");
        if (name.starts_with("CARGO_") && !setting) || name == "OUT_DIR" {
            command.env_remove(name.as_ref());
        }
    }
}

fn ensure_rust_target(triple: &str) -> Result<()> {
    let listed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("cannot run rustup to check the installed targets")?;
    if String::from_utf8_lossy(&listed.stdout)
        .lines()
        .any(|l| l.trim() == triple)
    {
        return Ok(());
    }
    eprintln!("xtask: rustup target add {triple}");
    let status = Command::new("rustup")
        .args(["target", "add", triple])
        .status()
        .context("cannot run rustup")?;
    if !status.success() {
        bail!("rustup target add {triple} failed");
    }
    Ok(())
}

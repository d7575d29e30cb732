//! The platforms `cm` ships for: one Rust target, one npm platform package and one archive
//! each. The npm names follow Node's `process.platform`-`process.arch`, as the launcher
//! looks them up (npm/launcher/bin/cm.js).

/// How the C parts (SQLite, ring, zstd) and the link are done for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builder {
    /// `cargo zigbuild`: zig is the C compiler and linker, no SDK or sysroot needed.
    /// For Linux it also pins the glibc the binary asks for (see [`LINUX_GLIBC`]).
    Zig,
    /// Plain `cargo build`; the linker comes from .cargo/config.toml (mingw for Windows).
    Cargo,
}

/// The oldest glibc a Linux `cm` runs on: 2.28 is the first with `renameat2`, which the
/// platform layer calls for its atomic state-file swap (Debian 10, Ubuntu 18.10, RHEL 8).
pub const LINUX_GLIBC: &str = "2.28";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub triple: &'static str,
    /// Node's `process.platform`.
    pub node_os: &'static str,
    /// Node's `process.arch`.
    pub node_cpu: &'static str,
    pub builder: Builder,
}

pub const TARGETS: &[Target] = &[
    Target {
        triple: "x86_64-unknown-linux-gnu",
        node_os: "linux",
        node_cpu: "x64",
        builder: Builder::Zig,
    },
    Target {
        triple: "aarch64-unknown-linux-gnu",
        node_os: "linux",
        node_cpu: "arm64",
        builder: Builder::Zig,
    },
    Target {
        triple: "x86_64-apple-darwin",
        node_os: "darwin",
        node_cpu: "x64",
        builder: Builder::Zig,
    },
    Target {
        triple: "aarch64-apple-darwin",
        node_os: "darwin",
        node_cpu: "arm64",
        builder: Builder::Zig,
    },
    Target {
        triple: "x86_64-pc-windows-gnu",
        node_os: "win32",
        node_cpu: "x64",
        builder: Builder::Cargo,
    },
];

impl Target {
    /// `linux-x64`, `darwin-arm64`, `win32-x64`: the npm package's suffix.
    pub fn platform(&self) -> String {
        format!("{}-{}", self.node_os, self.node_cpu)
    }

    pub fn npm_package(&self) -> String {
        format!("@context-mode/cm-{}", self.platform())
    }

    pub fn windows(&self) -> bool {
        self.node_os == "win32"
    }

    pub fn exe_name(&self) -> &'static str {
        if self.windows() { "cm.exe" } else { "cm" }
    }

    /// The target as `cargo zigbuild` takes it: Linux gets the glibc suffix.
    pub fn zig_triple(&self) -> String {
        if self.node_os == "linux" {
            format!("{}.{LINUX_GLIBC}", self.triple)
        } else {
            self.triple.to_string()
        }
    }

    /// Looks a target up by its Rust triple or its npm platform name.
    pub fn find(name: &str) -> Option<&'static Target> {
        TARGETS
            .iter()
            .find(|t| t.triple == name || t.platform() == name)
    }

    /// The target this xtask was compiled for (the machine it runs on), if we ship it.
    pub fn host() -> Option<&'static Target> {
        let os = match std::env::consts::OS {
            "linux" => "linux",
            "macos" => "darwin",
            "windows" => "win32",
            _ => return None,
        };
        let cpu = match std::env::consts::ARCH {
            "x86_64" => "x64",
            "aarch64" => "arm64",
            _ => return None,
        };
        TARGETS
            .iter()
            .find(|t| t.node_os == os && t.node_cpu == cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_is_found_by_triple_and_by_npm_platform() {
        for t in TARGETS {
            assert_eq!(Target::find(t.triple), Some(t));
            assert_eq!(Target::find(&t.platform()), Some(t));
        }
        assert_eq!(Target::find("sparc-sun-solaris"), None);
    }

    #[test]
    fn npm_names_are_nodes_platform_and_arch() {
        let names: Vec<String> = TARGETS.iter().map(Target::npm_package).collect();
        assert_eq!(
            names,
            [
                "@context-mode/cm-linux-x64",
                "@context-mode/cm-linux-arm64",
                "@context-mode/cm-darwin-x64",
                "@context-mode/cm-darwin-arm64",
                "@context-mode/cm-win32-x64",
            ]
        );
    }

    #[test]
    fn only_linux_pins_a_glibc() {
        assert_eq!(
            Target::find("linux-arm64").map(Target::zig_triple),
            Some("aarch64-unknown-linux-gnu.2.28".to_string())
        );
        assert_eq!(
            Target::find("darwin-arm64").map(Target::zig_triple),
            Some("aarch64-apple-darwin".to_string())
        );
    }
}

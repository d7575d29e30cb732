//! Builds the built-in plugins (adapters-wasm/) and the test plugins (tests/plugins/)
//! for wasm32-wasip2 from this repository's sources, so a fresh clone needs no
//! prebuilt binaries. The built-ins are embedded in `cm`; the test plugins are only
//! pointed at (`CM_TEST_PLUGINS_DIR`) for the test suite.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (id, kind, crate file name) of every built-in plugin. A new built-in adapter is one line here.
const BUILTINS: &[(&str, &str, &str)] = &[
    ("claude-code", "Adapter", "claude_code.wasm"),
    ("gemini-cli", "Adapter", "gemini_cli.wasm"),
    ("cursor", "Adapter", "cursor.wasm"),
    ("codex", "Adapter", "codex.wasm"),
    ("default", "Policy", "policy_default.wasm"),
];

const GUEST_TARGET: &str = "wasm32-wasip2";

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let repo = manifest_dir
        .parent()
        .expect("host/ lives inside the repository")
        .to_path_buf();
    let out_dir = PathBuf::from(env("OUT_DIR"));
    // Guests get their own target dir: the outer cargo holds the lock on ours.
    let guest_target = repo.join("target").join("wasm-guests");

    for watched in ["wit", "adapters-wasm", "tests/plugins", "configs"] {
        watch_tree(&repo.join(watched));
    }

    let builtins_release = build_guests(&repo.join("adapters-wasm/Cargo.toml"), &guest_target);
    let mut generated = String::from(
        "/// Built-in plugins, compiled from adapters-wasm/ by build.rs.\n\
         pub const BUILTIN_PLUGINS: &[BuiltinPlugin] = &[\n",
    );
    for (id, kind, file) in BUILTINS {
        let built = builtins_release.join(file);
        let bytes = std::fs::read(&built)
            .unwrap_or_else(|e| panic!("built-in plugin {} missing: {e}", built.display()));
        let embedded = out_dir.join(file);
        std::fs::write(&embedded, &bytes).expect("copy built-in plugin into OUT_DIR");
        generated.push_str(&format!(
            "    BuiltinPlugin {{ id: {id:?}, kind: PluginKind::{kind}, sha256: {:?}, bytes: include_bytes!({:?}) }},\n",
            sha256_hex(&bytes),
            embedded.display().to_string(),
        ));
    }
    generated.push_str("];\n");
    std::fs::write(out_dir.join("builtin_plugins.rs"), generated).expect("write builtin table");

    let test_plugins = build_guests(&repo.join("tests/plugins/Cargo.toml"), &guest_target);
    println!(
        "cargo:rustc-env=CM_TEST_PLUGINS_DIR={}",
        test_plugins.display()
    );
}

/// Builds one guest workspace in release mode and returns the directory of its `.wasm` files.
fn build_guests(manifest: &Path, target_dir: &Path) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--release", "--quiet", "--target", GUEST_TARGET])
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    // The outer build's flags and target are for the host, not for the guests.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_MAKEFLAGS",
    ] {
        command.env_remove(var);
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo for {}: {e}", manifest.display()));
    if !status.success() {
        panic!(
            "building the wasm plugins in {} failed; is the target installed? \
             run: rustup target add {GUEST_TARGET}",
            manifest.display()
        );
    }
    target_dir.join(GUEST_TARGET).join("release")
}

fn watch_tree(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            watch_tree(&path);
        } else {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name}"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}

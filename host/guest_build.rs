// How a guest workspace (adapters-wasm/, tests/plugins/) is built for wasm32-wasip2:
// the one command both `host/build.rs` (the built-ins) and the test harness (the test
// plugins, tests/it/common/plugins.rs) run. Included by both with `include!`.

/// The wasm target every guest is built for.
const GUEST_TARGET: &str = "wasm32-wasip2";

/// Builds the guest workspace of `manifest` in release mode into `target_dir` with
/// `cargo`, and returns the directory of its `.wasm` files. Panics with the fix when
/// the build fails (the usual cause: the wasm target is not installed).
fn build_guest_workspace(
    cargo: &std::ffi::OsStr,
    manifest: &std::path::Path,
    target_dir: &std::path::Path,
) -> std::path::PathBuf {
    let mut command = std::process::Command::new(cargo);
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

//! The wasm test plugins (`tests/plugins/`): built here, once per test process, not by
//! `host/build.rs`, so `cargo build`, `cargo install` and release builds never compile
//! them (ADR 16). Cargo's lock on the target dir serialises test processes that build
//! at the same time; a build that has nothing to do returns at once.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::repo_root;

include!("../../../host/guest_build.rs");

/// Where the built test plugins are: the guest target dir `host/build.rs` also uses.
fn built_plugins_dir() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let repo = repo_root();
        let target_dir = repo.join("target").join("wasm-guests");
        // The cargo running the tests; the one that compiled them if it is not set.
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
        build_guest_workspace(&cargo, &repo.join("tests/plugins/Cargo.toml"), &target_dir)
    })
}

/// The `.wasm` of the test plugin in `tests/plugins/<name>/`, built on first use.
pub fn test_plugin(name: &str) -> PathBuf {
    built_plugins_dir().join(format!("test_{}.wasm", name.replace('-', "_")))
}

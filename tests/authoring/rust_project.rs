//! Rust plugin projects as an author makes them: written by `cm plugin new` outside the
//! clone, built by running the build line `cm plugin new` printed, installed with
//! `cm plugin add`. The builds share one cargo target dir in a cache outside the clone,
//! `${CONTEXT_MODE_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-~/.cache}/context-mode-toolchains}/rust-target`,
//! so wit-bindgen and serde_json compile once, not once per run; cargo's own lock on
//! that dir serializes the builds of parallel tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::Sandbox;

/// A project `cm plugin new` wrote, with the two next steps it printed.
pub struct NewProject {
    pub dir: PathBuf,
    /// `cd <dir> && <the template's build line>`.
    pub build_line: String,
    /// The component `cm plugin add` is told to install.
    pub printed_output: PathBuf,
}

/// Runs `cm plugin new <args…>` in the sandbox.
pub fn plugin_new(sandbox: &Sandbox, args: &[&str]) -> Output {
    sandbox
        .cm()
        .args(["plugin", "new"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run cm plugin new")
}

/// `cm plugin new <kind> --lang rust <HOME>/work/<name> --id <id>`, which must succeed.
pub fn new_rust_project(sandbox: &Sandbox, kind: &str, name: &str, id: &str) -> NewProject {
    let dir = sandbox.home.join("work").join(name);
    let dir_arg = dir.to_str().expect("a UTF-8 temp path");
    let out = plugin_new(sandbox, &[kind, "--lang", "rust", dir_arg, "--id", id]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "cm plugin new {kind}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let next: Vec<&str> = stdout
        .lines()
        .skip_while(|line| *line != "next:")
        .skip(1)
        .map(str::trim)
        .collect();
    let [build_line, add_line] = next[..] else {
        panic!("cm plugin new prints two next steps after `next:`: {stdout}")
    };
    let printed_output = add_line
        .strip_prefix("cm plugin add ")
        .unwrap_or_else(|| panic!("the last step installs the component: {stdout}"))
        .trim_matches('\'');
    NewProject {
        dir,
        build_line: build_line.to_owned(),
        printed_output: PathBuf::from(printed_output),
    }
}

/// The cargo target dir all authoring builds share.
pub fn shared_target_dir() -> PathBuf {
    crate::toolchains::cache_root().join("rust-target")
}

/// Runs the printed build line with `sh` (the author's toolchain, the author's
/// environment, only the target dir moved to the shared cache) and returns the
/// component it wrote.
pub fn build(project: &NewProject) -> PathBuf {
    let target_dir = shared_target_dir();
    let mut command = Command::new("sh");
    command.arg("-c").arg(&project.build_line);
    // This test's own build settings are for `cm`, not for the author's project.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_MAKEFLAGS",
    ] {
        command.env_remove(var);
    }
    let out = command
        .env("CARGO_TARGET_DIR", &target_dir)
        .stdin(Stdio::null())
        .output()
        .expect("run sh");
    assert!(
        out.status.success(),
        "`{}` failed (is the wasm32-wasip2 target installed? `rustup target add wasm32-wasip2`): {}",
        project.build_line,
        String::from_utf8_lossy(&out.stderr)
    );
    // The printed path is in the project's own `target/`; CARGO_TARGET_DIR moved it.
    let inside_target = project
        .printed_output
        .strip_prefix(project.dir.join("target"))
        .unwrap_or_else(|_| {
            panic!(
                "the printed component {} is not under {}/target",
                project.printed_output.display(),
                project.dir.display()
            )
        });
    let built = target_dir.join(inside_target);
    assert!(built.is_file(), "{} was not written", built.display());
    built
}

/// `cm plugin add <wasm>`, which must succeed; returns what it printed.
pub fn install(sandbox: &Sandbox, wasm: &Path) -> String {
    let out = sandbox
        .cm()
        .args(["plugin", "add"])
        .arg(wasm)
        .stdin(Stdio::null())
        .output()
        .expect("run cm plugin add");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "cm plugin add {}: {stdout}{}",
        wasm.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The JSON a hook printed, with its exit code checked: hooks always exit 0.
pub fn hook_json(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "hook exit: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("hook printed no JSON ({e}): {stdout}"))
}

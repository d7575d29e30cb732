//! Builds the built-in plugins (adapters-wasm/) for wasm32-wasip2 from this
//! repository's sources, so a fresh clone needs no prebuilt binaries, and embeds them
//! in `cm`. Which crates are built-ins is read from the adapters workspace: every
//! member that declares `[package.metadata.context-mode]` (ADR 16). The test plugins
//! (tests/plugins/) are not built here: the test harness builds them. The project
//! templates of `cm plugin new` (adapters-wasm/templates/) are embedded as files, never
//! built (template_embed.rs).

use std::path::{Path, PathBuf};

include!("guest_build.rs");
include!("template_embed.rs");

/// One built-in plugin, as its crate's manifest declares it.
struct Builtin {
    id: String,
    /// `Adapter` or `Policy`: the `PluginKind` variant.
    kind: &'static str,
    /// Position among the built-ins of its kind (`order`, else after every ordered one).
    order: u64,
    /// The `.wasm` file cargo writes for the crate.
    file: String,
}

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let repo = manifest_dir
        .parent()
        .expect("host/ lives inside the repository")
        .to_path_buf();
    let out_dir = PathBuf::from(env("OUT_DIR"));
    // Guests get their own target dir: the outer cargo holds the lock on ours.
    let guest_target = repo.join("target").join("wasm-guests");
    let workspace = repo.join("adapters-wasm");

    watch_tree(&repo.join("wit"));
    watch_tree(&repo.join("configs"));
    // Directories, not files: cargo scans them whole, so a new plugin folder reruns
    // this script. The workspace root itself is not watched (its `target/` is there).
    for watched in ["sdk", "plugins"] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    for watched in ["Cargo.toml", "Cargo.lock"] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }

    let builtins = builtins(&workspace);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let release = build_guest_workspace(&cargo, &workspace.join("Cargo.toml"), &guest_target);
    let mut generated = String::from(
        "/// Built-in plugins, compiled from adapters-wasm/ by build.rs.\n\
         pub const BUILTIN_PLUGINS: &[BuiltinPlugin] = &[\n",
    );
    for builtin in &builtins {
        let built = release.join(&builtin.file);
        let bytes = std::fs::read(&built)
            .unwrap_or_else(|e| panic!("built-in plugin {} missing: {e}", built.display()));
        let embedded = out_dir.join(&builtin.file);
        std::fs::write(&embedded, &bytes).expect("copy built-in plugin into OUT_DIR");
        generated.push_str(&format!(
            "    BuiltinPlugin {{ id: {:?}, kind: PluginKind::{}, sha256: {:?}, bytes: include_bytes!({:?}) }},\n",
            builtin.id,
            builtin.kind,
            sha256_hex(&bytes),
            embedded.display().to_string(),
        ));
    }
    generated.push_str("];\n");
    std::fs::write(out_dir.join("builtin_plugins.rs"), generated).expect("write builtin table");
    embed_templates(&repo, &out_dir);
}

/// The built-ins of the adapters workspace, adapters first, each kind by `order` then id.
fn builtins(workspace: &Path) -> Vec<Builtin> {
    let root = read_toml(&workspace.join("Cargo.toml"));
    let members = root
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
        .expect("adapters-wasm/Cargo.toml lists workspace.members");
    let mut builtins: Vec<Builtin> = members
        .iter()
        .filter_map(toml::Value::as_str)
        .flat_map(|member| member_dirs(workspace, member))
        .filter_map(|dir| builtin(&dir))
        .collect();
    builtins.sort_by(|a, b| (a.kind, a.order, &a.id).cmp(&(b.kind, b.order, &b.id)));
    for pair in builtins.windows(2) {
        if pair[0].kind == pair[1].kind && pair[0].id == pair[1].id {
            panic!(
                "two built-in {} plugins have the id {:?}",
                pair[0].kind, pair[0].id
            );
        }
    }
    builtins
}

/// The crate directories a `members` entry names: a path, or `<dir>/*` for every
/// directory in `<dir>` that holds a Cargo.toml (the only glob the workspace uses).
fn member_dirs(workspace: &Path, member: &str) -> Vec<PathBuf> {
    let Some(parent) = member.strip_suffix("/*") else {
        return vec![workspace.join(member)];
    };
    let dir = workspace.join(parent);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("workspace member dir {}: {e}", dir.display()));
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The built-in a crate declares in `[package.metadata.context-mode]`, if any:
/// `kind = "adapter" | "policy"`, optional `id` (default and, for an adapter, always
/// the package name) and optional `order`.
fn builtin(crate_dir: &Path) -> Option<Builtin> {
    let manifest_path = crate_dir.join("Cargo.toml");
    let manifest = read_toml(&manifest_path);
    let package = manifest.get("package")?;
    let declared = package.get("metadata")?.get("context-mode")?;
    let name = package
        .get("name")
        .and_then(toml::Value::as_str)
        .unwrap_or_else(|| panic!("{}: no package.name", manifest_path.display()));
    let kind = match declared.get("kind").and_then(toml::Value::as_str) {
        Some("adapter") => "Adapter",
        Some("policy") => "Policy",
        other => panic!(
            "{}: package.metadata.context-mode.kind is {other:?}, expected \"adapter\" or \"policy\"",
            manifest_path.display()
        ),
    };
    let id = declared
        .get("id")
        .and_then(toml::Value::as_str)
        .unwrap_or(name)
        .to_owned();
    // An adapter names itself by its package name (the SDK's `ADAPTER_ID`).
    if kind == "Adapter" && id != name {
        panic!(
            "{}: an adapter's id is its package name {name:?}; drop `id = {id:?}` or rename the package",
            manifest_path.display()
        );
    }
    let order = declared
        .get("order")
        .and_then(toml::Value::as_integer)
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(u64::MAX);
    let lib_name = manifest
        .get("lib")
        .and_then(|lib| lib.get("name"))
        .and_then(toml::Value::as_str)
        .map_or_else(|| name.replace('-', "_"), str::to_owned);
    Some(Builtin {
        id,
        kind,
        order,
        file: format!("{lib_name}.wasm"),
    })
}

fn read_toml(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display()))
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

// Embeds what `cm plugin new` writes: every file of the project templates
// (adapters-wasm/templates/<lang>-<kind>/) and every released contract's WIT
// (wit/plugin@<version>/plugin.wit). Included by build.rs; the generated table is
// included by host/src/cli/plugin_new.rs. The templates are not crates of the adapters
// workspace (its members are sdk/ and plugins/*), so nothing builds them here.

/// Names inside a template folder that are build or editor leftovers, never template files.
const TEMPLATE_SKIPPED_NAMES: &[&str] =
    &["target", "node_modules", "__pycache__", ".git", ".DS_Store"];

/// Writes `<out_dir>/plugin_templates.rs`: `TEMPLATE_FILES` (template folder, path
/// inside it, bytes) and `CONTRACT_WITS` (version, WIT text), and has cargo rerun
/// this script when a template file is added, changed or removed.
fn embed_templates(repo: &Path, out_dir: &Path) {
    let templates = repo.join("adapters-wasm").join("templates");
    // A directory: cargo scans it whole, so a new template or file reruns this script.
    println!("cargo:rerun-if-changed={}", templates.display());
    let mut files = Vec::new();
    if templates.is_dir() {
        collect_template_files(&templates, &templates, &mut files);
    }
    files.sort();
    let mut generated = String::from(
        "/// Every file of adapters-wasm/templates/, embedded by build.rs.\n\
         pub const TEMPLATE_FILES: &[TemplateFile] = &[\n",
    );
    for relative in &files {
        let Some((template, path)) = relative.split_once('/') else {
            continue; // a file beside the template folders belongs to none of them
        };
        generated.push_str(&format!(
            "    TemplateFile {{ template: {template:?}, path: {path:?}, bytes: include_bytes!({:?}) }},\n",
            templates.join(relative).display().to_string(),
        ));
    }
    generated.push_str(
        "];\n\n/// Each released contract's WIT, by version (wit/plugin@<version>/plugin.wit).\n",
    );
    generated.push_str("pub const CONTRACT_WITS: &[(&str, &str)] = &[\n");
    let mut wits: Vec<(String, PathBuf)> = std::fs::read_dir(repo.join("wit"))
        .expect("wit/ holds the contract versions")
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix("plugin@")?.to_owned();
            let wit = entry.path().join("plugin.wit");
            wit.is_file().then_some((version, wit))
        })
        .collect();
    wits.sort();
    for (version, wit) in &wits {
        generated.push_str(&format!(
            "    ({version:?}, include_str!({:?})),\n",
            wit.display().to_string()
        ));
    }
    generated.push_str("];\n");
    std::fs::write(out_dir.join("plugin_templates.rs"), generated)
        .expect("write the template table");
}

/// Paths under `root` of every file below `dir`, `/`-separated.
fn collect_template_files(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("template dir {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if TEMPLATE_SKIPPED_NAMES.contains(&name.as_str()) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            collect_template_files(root, &path, files);
        } else if path.is_file() {
            let relative = path.strip_prefix(root).expect("below the templates root");
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
}

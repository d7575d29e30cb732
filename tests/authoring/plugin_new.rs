//! `cm plugin new` itself: what it writes, what it prints, what it refuses (each
//! refusal one line, nothing written).

use std::path::Path;

use crate::common::{Sandbox, repo_root};
use crate::rust_project::plugin_new;

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).expect("below root");
                out.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn one_line_error(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn it_writes_the_template_with_placeholders_replaced_and_the_newest_wit() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join("work/Team Rules");
    let out = plugin_new(
        &sandbox,
        &["policy", "--lang", "rust", dir.to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let files = files_under(&dir);
    assert_eq!(
        files,
        [
            ".gitignore",
            "Cargo.toml",
            "README.md",
            "src/lib.rs",
            "wit/plugin.wit"
        ],
        "template.toml stays behind"
    );
    for file in &files {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(!text.contains("{{"), "{file} keeps a placeholder");
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"team-rules\""), "{manifest}");
    assert!(manifest.contains("contract 0.4.0"), "{manifest}");
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(lib.contains("id: \"team-rules\".into()"), "{lib}");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(readme.contains("release/team_rules.wasm"), "{readme}");
    assert_eq!(
        std::fs::read_to_string(dir.join("wit/plugin.wit")).unwrap(),
        std::fs::read_to_string(repo_root().join("wit/plugin@0.4.0/plugin.wit")).unwrap()
    );

    let shown = format!("'{}'", dir.display());
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!(
                "wrote a rust policy plugin `team-rules` (contract 0.4.0) in {}:",
                dir.display()
            )
            .as_str(),
            "  .gitignore",
            "  Cargo.toml",
            "  README.md",
            "  src/lib.rs",
            "  wit/plugin.wit",
            "next:",
            format!("  cd {shown} && cargo build --release --target wasm32-wasip2").as_str(),
            format!(
                "  cm plugin add '{}/target/wasm32-wasip2/release/team_rules.wasm'",
                dir.display()
            )
            .as_str(),
        ]
    );
}

#[test]
fn the_adapter_template_names_the_host_after_the_id() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join("work/x");
    let out = plugin_new(
        &sandbox,
        &[
            "adapter",
            "--lang",
            "rust",
            dir.to_str().unwrap(),
            "--id",
            "acme-agent",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("pub const ADAPTER_ID: &str = \"acme-agent\";"),
        "{lib}"
    );
    for file in files_under(&dir) {
        let text = std::fs::read_to_string(dir.join(&file)).unwrap();
        assert!(!text.contains("{{"), "{file} keeps a placeholder");
    }
}

#[test]
fn a_non_empty_directory_is_refused_and_left_as_it_is() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join("work/mine");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "keep me").unwrap();
    let out = plugin_new(
        &sandbox,
        &["policy", "--lang", "rust", dir.to_str().unwrap()],
    );
    let err = one_line_error(&out);
    assert!(err.contains("is not empty"), "{err}");
    assert_eq!(files_under(&dir), ["notes.txt"]);

    // An empty one is fine: a folder made beforehand.
    let empty = sandbox.home.join("work/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = plugin_new(
        &sandbox,
        &["policy", "--lang", "rust", empty.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `.`: the current directory, named after what it is (the sandbox's `project`).
    let out = plugin_new(&sandbox, &["adapter", "--lang", "rust", "."]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("wrote a rust adapter plugin `project` (contract 0.4.0) in .:"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sandbox.project.join("src/lib.rs").is_file());
}

#[test]
fn bad_ids_are_refused_before_anything_is_written() {
    let sandbox = Sandbox::new();
    let work = sandbox.home.join("work");
    let given = work.join("fine");
    for bad in ["Upper", "has space", "dot.ted", "9lives"] {
        let out = plugin_new(
            &sandbox,
            &[
                "policy",
                "--lang",
                "rust",
                given.to_str().unwrap(),
                "--id",
                bad,
            ],
        );
        let err = one_line_error(&out);
        assert!(err.contains("must be 1-64 characters"), "{bad}: {err}");
    }
    // A directory name with nothing usable in it needs an --id.
    let digits = work.join("2024");
    let out = plugin_new(
        &sandbox,
        &["policy", "--lang", "rust", digits.to_str().unwrap()],
    );
    let err = one_line_error(&out);
    assert!(err.contains("give one with --id"), "{err}");
    assert!(!work.exists(), "nothing was written");
}

#[test]
fn an_unknown_language_names_the_ones_there_are() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join("work/p");
    let out = plugin_new(
        &sandbox,
        &["policy", "--lang", "cobol", dir.to_str().unwrap()],
    );
    let err = one_line_error(&out);
    assert!(
        err.starts_with(
            "cm: no cobol template for a policy plugin; languages available for a policy: "
        ),
        "{err}"
    );
    assert!(err.contains("rust"), "{err}");
    assert!(!dir.exists());
}

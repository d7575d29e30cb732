//! Scans the crate's sources for `crate::<module>` references and checks them against
//! [`LAYERS`]. Test code is left out: a module's tests may drive it through a higher one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{BEHIND_THE_SERVICE, LAYERS, layer_of};

/// One `crate::<to>` reference in module `from`'s code.
#[derive(Debug, Clone)]
struct Reference {
    from: String,
    to: String,
    at: String,
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read host/src")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The module a file belongs to: its top-level folder, or its own name at the top.
fn module_of(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// Test files by the crate's one scheme: `tests.rs`, or anything under a `tests/` folder.
fn is_test_file(relative: &Path) -> bool {
    relative.file_name().is_some_and(|n| n == "tests.rs")
        || relative.components().any(|c| c.as_os_str() == "tests")
}

/// The code lines of a file: comments dropped, and an inline `mod tests { … }` (the
/// last item of a file, by the crate's convention) cut off.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].trim_start();
        if line.starts_with("#[cfg(test)]") {
            let next = lines[index + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
                .unwrap_or("");
            if next.starts_with("mod ") && next.ends_with('{') {
                break;
            }
        }
        if !line.starts_with("//") {
            code.push((index + 1, lines[index]));
        }
        index += 1;
    }
    code
}

/// The modules named right after `crate::` in `line`, including `crate::{a, b::c}`.
fn referenced_modules(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` in a macro, or a longer identifier ending in `crate`.
        if before.is_some_and(|c| c == '$' || c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut word = String::new();
            let mut expecting = true;
            for c in group.chars() {
                if depth == 0 && (c.is_alphanumeric() || c == '_') {
                    if expecting {
                        word.push(c);
                    }
                    continue;
                }
                if !word.is_empty() {
                    found.push(std::mem::take(&mut word));
                    expecting = false;
                }
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expecting = true,
                    _ => {}
                }
            }
            if !word.is_empty() {
                found.push(word);
            }
        } else {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !word.is_empty() {
                found.push(word);
            }
        }
    }
    found
}

fn references() -> Vec<Reference> {
    let root = source_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut references = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).expect("under src").to_path_buf();
        let from = module_of(&relative);
        if matches!(from.as_str(), "lib" | "main") || is_test_file(&relative) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read source");
        for (number, line) in code_lines(&text) {
            for to in referenced_modules(line) {
                if to != from {
                    references.push(Reference {
                        from: from.clone(),
                        to,
                        at: format!("host/src/{}:{number}", relative.display()),
                    });
                }
            }
        }
    }
    references
}

/// Every module of the crate, from `lib.rs`'s `mod` lines.
fn declared_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(source_root().join("lib.rs")).expect("lib.rs");
    lib.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            line.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(String::from)
        })
        .filter(|module| module != "layers")
        .collect()
}

/// Upward references: a module using one of a higher layer.
fn upward(references: &[Reference]) -> Vec<String> {
    references
        .iter()
        .filter_map(|r| {
            let (from, to) = (layer_of(&r.from)?, layer_of(&r.to)?);
            (to > from).then(|| {
                format!(
                    "{} ({}) uses {} ({}), a higher layer, at {}",
                    r.from, LAYERS[from].0, r.to, LAYERS[to].0, r.at
                )
            })
        })
        .collect()
}

/// Loops in the graph of modules: each as `a → b → … → a`, with where its first step is.
fn cycles(references: &[Reference]) -> Vec<String> {
    let mut edges: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for r in references {
        edges
            .entry(r.from.as_str())
            .or_default()
            .entry(r.to.as_str())
            .or_insert(r.at.as_str());
    }
    let mut loops = BTreeSet::new();
    for &start in edges.keys() {
        // Shortest way back to `start`, breadth first.
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut frontier = vec![start];
        let mut closed = None;
        while closed.is_none() && !frontier.is_empty() {
            let mut next = Vec::new();
            for &node in &frontier {
                for &to in edges.get(node).map(|e| e.keys()).into_iter().flatten() {
                    if to == start {
                        closed = Some(node);
                        break;
                    }
                    if !came_from.contains_key(to) {
                        came_from.insert(to, node);
                        next.push(to);
                    }
                }
                if closed.is_some() {
                    break;
                }
            }
            frontier = next;
        }
        let Some(mut node) = closed else { continue };
        let mut path = vec![start];
        while node != start {
            path.push(node);
            node = came_from[node];
        }
        path.push(start);
        let last = path.len() - 1;
        path[1..last].reverse();
        // One loop is reported once, from its smallest module.
        let smallest = path[..path.len() - 1]
            .iter()
            .min()
            .copied()
            .unwrap_or(start);
        if smallest == start {
            loops.insert(format!(
                "{} (first step at {})",
                path.join(" → "),
                edges[path[0]][path[1]]
            ));
        }
    }
    loops.into_iter().collect()
}

/// Front ends using the knowledge base directly, past the service's rule checks.
fn bypasses(references: &[Reference]) -> Vec<String> {
    let front_ends = LAYERS.last().map(|(_, m)| *m).unwrap_or(&[]);
    references
        .iter()
        .filter(|r| {
            front_ends.contains(&r.from.as_str()) && BEHIND_THE_SERVICE.contains(&r.to.as_str())
        })
        .map(|r| format!("{} uses {} directly at {}", r.from, r.to, r.at))
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    let modules = declared_modules();
    assert!(modules.len() > 10, "lib.rs modules: {modules:?}");
    let unplaced: Vec<&String> = modules.iter().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "add these modules to LAYERS in host/src/layers.rs (and ADR 0018): {unplaced:?}"
    );
}

#[test]
fn no_module_uses_a_higher_layer() {
    let found = upward(&references());
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn no_two_folders_use_each_other() {
    let found = cycles(&references());
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn front_ends_reach_the_knowledge_base_through_the_service() {
    let found = bypasses(&references());
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn the_scan_sees_each_kind_of_reference() {
    assert_eq!(referenced_modules("use crate::store::Store;"), ["store"]);
    assert_eq!(
        referenced_modules("use crate::{paths, plugins::registry::{A, B}, store};"),
        ["paths", "plugins", "store"]
    );
    assert_eq!(
        referenced_modules("let x = crate::paths::data_root()?; crate::mcp::serve()"),
        ["paths", "mcp"]
    );
    assert!(referenced_modules("$crate::x; my_crate::y").is_empty());
    let text = "use crate::a;\n// crate::b in a comment\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\n";
    let kept: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(kept, ["use crate::a;"]);
}

#[test]
fn a_loop_and_an_upward_step_are_caught() {
    let reference = |from: &str, to: &str| Reference {
        from: from.into(),
        to: to.into(),
        at: format!("{from}.rs"),
    };
    let loop_of_three = [
        reference("doctor", "mcp"),
        reference("mcp", "service"),
        reference("service", "doctor"),
        reference("service", "store"),
    ];
    assert_eq!(
        cycles(&loop_of_three),
        ["doctor → mcp → service → doctor (first step at doctor.rs)"]
    );
    let up = upward(&loop_of_three);
    assert_eq!(up.len(), 1, "{up:?}");
    assert!(
        up[0].starts_with("doctor (diagnostics) uses mcp (front ends)"),
        "{up:?}"
    );
    assert_eq!(bypasses(&[reference("cli", "search")]).len(), 1);
    assert!(bypasses(&[reference("service", "search")]).is_empty());
}

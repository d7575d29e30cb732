//! Turns submitted code into the source files a runtime gets, and a candidate's
//! argv template into a real argument list.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::catalog::RuntimeSpec;

/// The files to write into the private temp dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    /// The script itself.
    pub main: String,
    /// Extra source files (file name, text), e.g. Go's ctx_execute_file variables.
    pub companions: Vec<(String, String)>,
}

/// Builds the script for `code`; `with_file` adds the `ctx_execute_file` variables.
pub fn compose(spec: &RuntimeSpec, code: &str, with_file: bool) -> Sources {
    let file_rules = &spec.file;
    let inline_file = with_file && file_rules.companion.is_none();
    let wrap = spec.source.wrap.as_ref().filter(|w| {
        let trimmed = code.trim_start();
        !w.unless_contains.iter().any(|m| code.contains(m.as_str()))
            && !w
                .unless_starts_with
                .iter()
                .any(|m| trimmed.starts_with(m.as_str()))
    });
    let mut prelude = spec.source.prelude.clone();
    let main = match wrap {
        Some(wrap) => {
            if inline_file {
                prelude.push_str(&file_rules.prelude);
            }
            if wrap.template.contains("{prelude}") {
                fill(&wrap.template, &prelude, code)
            } else {
                let wrapped = fill(&wrap.template, "", code);
                insert_after_header(&wrapped, &prelude, &spec.source.header_prefixes)
            }
        }
        None => {
            if inline_file {
                let unwrapped = file_rules.prelude_unwrapped.as_ref();
                prelude.push_str(unwrapped.unwrap_or(&file_rules.prelude));
            }
            insert_after_header(code, &prelude, &spec.source.header_prefixes)
        }
    };
    let companions = match (&file_rules.companion, with_file) {
        (Some(name), true) => vec![(name.clone(), file_rules.prelude.clone())],
        _ => Vec::new(),
    };
    Sources { main, companions }
}

/// Replaces `{prelude}` and `{code}` in one pass, so text inside the code that
/// looks like a placeholder is left alone.
fn fill(template: &str, prelude: &str, code: &str) -> String {
    let mut out = String::with_capacity(template.len() + prelude.len() + code.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        if let Some(after) = tail.strip_prefix("{prelude}") {
            out.push_str(prelude);
            rest = after;
        } else if let Some(after) = tail.strip_prefix("{code}") {
            out.push_str(code);
            rest = after;
        } else {
            out.push('{');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Puts `prelude` after the leading lines that start with a header prefix (blank
/// lines between them included), or at the very top when there are none.
fn insert_after_header(code: &str, prelude: &str, header_prefixes: &[String]) -> String {
    if prelude.is_empty() {
        return code.to_string();
    }
    let mut split_at = 0;
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.trim().is_empty() {
            offset += line.len();
            continue;
        }
        if header_prefixes
            .iter()
            .any(|p| trimmed.starts_with(p.as_str()))
        {
            offset += line.len();
            split_at = offset;
        } else {
            break;
        }
    }
    let (header, body) = code.split_at(split_at);
    let mut out = String::with_capacity(code.len() + prelude.len() + 1);
    out.push_str(header);
    if !header.is_empty() && !header.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(prelude);
    if !prelude.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(body);
    out
}

/// Paths an argv template can refer to.
pub struct ArgvPaths<'a> {
    pub program: &'a Path,
    pub script: &'a Path,
    pub companions: &'a [PathBuf],
    pub binary: &'a Path,
    pub dir: &'a Path,
}

/// Expands `{cmd}`, `{file}`, `{bin}`, `{dir}` inside arguments and `{sources}`
/// (an argument of its own) into the script followed by its companion files.
pub fn expand_argv(template: &[String], paths: &ArgvPaths<'_>) -> Vec<OsString> {
    let mut argv = Vec::with_capacity(template.len() + paths.companions.len());
    for arg in template {
        if arg == "{sources}" {
            argv.push(paths.script.as_os_str().to_os_string());
            argv.extend(
                paths
                    .companions
                    .iter()
                    .map(|p| p.as_os_str().to_os_string()),
            );
            continue;
        }
        match arg.as_str() {
            "{cmd}" => argv.push(paths.program.as_os_str().to_os_string()),
            "{file}" => argv.push(paths.script.as_os_str().to_os_string()),
            "{bin}" => argv.push(paths.binary.as_os_str().to_os_string()),
            "{dir}" => argv.push(paths.dir.as_os_str().to_os_string()),
            _ => argv.push(OsString::from(
                arg.replace("{cmd}", &paths.program.to_string_lossy())
                    .replace("{file}", &paths.script.to_string_lossy())
                    .replace("{bin}", &paths.binary.to_string_lossy())
                    .replace("{dir}", &paths.dir.to_string_lossy()),
            )),
        }
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::catalog;

    fn spec(name: &str) -> RuntimeSpec {
        catalog::embedded()
            .into_iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn python_future_imports_stay_first() {
        let code = "from __future__ import annotations\nprint(len(FILE_CONTENT))\n";
        let out = compose(&spec("python"), code, true).main;
        assert!(
            out.starts_with("from __future__ import annotations\nimport os as __cm_os\n"),
            "{out}"
        );
        assert!(out.ends_with("print(len(FILE_CONTENT))\n"));
    }

    #[test]
    fn rust_fragment_is_wrapped_with_the_prelude_inside_main() {
        let out = compose(&spec("rust"), "println!(\"{}\", file_content.len());", true).main;
        let main_at = out.find("fn main() {").expect("wrapped");
        let prelude_at = out.find("let file_content").expect("prelude");
        assert!(main_at < prelude_at, "{out}");
        let whole = compose(
            &spec("rust"),
            "fn main() { println!(\"{}\", file_content.len()); }",
            true,
        )
        .main;
        assert!(whole.starts_with("static file_content_path"), "{whole}");
    }

    #[test]
    fn php_gets_an_opening_tag_once_and_the_prelude_after_it() {
        let fragment = compose(&spec("php"), "echo strlen($FILE_CONTENT);", true).main;
        assert!(
            fragment.starts_with("<?php\n$FILE_CONTENT_PATH"),
            "{fragment}"
        );
        let tagged = compose(
            &spec("php"),
            "<?php\ndeclare(strict_types=1);\necho 1;",
            true,
        )
        .main;
        assert!(
            tagged.starts_with("<?php\ndeclare(strict_types=1);\n$FILE_CONTENT_PATH"),
            "{tagged}"
        );
        assert_eq!(tagged.matches("<?php").count(), 1);
    }

    #[test]
    fn go_file_variables_are_a_companion_file() {
        let sources = compose(&spec("go"), "fmt.Println(len(FILE_CONTENT))", true);
        assert!(
            sources
                .main
                .contains("func main() {\nfmt.Println(len(FILE_CONTENT))\n}")
        );
        assert_eq!(sources.companions.len(), 1);
        assert_eq!(sources.companions[0].0, "cm_file.go");
        assert!(
            compose(&spec("go"), "fmt.Println(1)", false)
                .companions
                .is_empty()
        );
    }

    #[test]
    fn code_that_looks_like_a_placeholder_is_kept() {
        let out = compose(&spec("rust"), "println!(\"{prelude} {code}\");", false).main;
        assert!(out.contains("println!(\"{prelude} {code}\");"), "{out}");
    }

    #[test]
    fn argv_expansion() {
        let companions = vec![PathBuf::from("/t/cm_file.go")];
        let paths = ArgvPaths {
            program: Path::new("/usr/bin/go"),
            script: Path::new("/t/script.go"),
            companions: &companions,
            binary: Path::new("/t/main"),
            dir: Path::new("/t"),
        };
        let template: Vec<String> = ["{cmd}", "build", "-o", "{bin}", "{sources}", "--x={dir}"]
            .map(String::from)
            .to_vec();
        let argv = expand_argv(&template, &paths);
        let shown: Vec<_> = argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            shown,
            [
                "/usr/bin/go",
                "build",
                "-o",
                "/t/main",
                "/t/script.go",
                "/t/cm_file.go",
                "--x=/t"
            ]
        );
    }
}

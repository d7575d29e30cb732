//! Telling code from prose, cheaply: a look at how lines start and end.

/// File extensions read as source code.
pub(super) fn is_code_extension(ext: &str) -> bool {
    matches!(
        ext,
        "rs" | "ts"
            | "tsx"
            | "js"
            | "jsx"
            | "mjs"
            | "cjs"
            | "py"
            | "pyi"
            | "go"
            | "java"
            | "kt"
            | "kts"
            | "scala"
            | "c"
            | "h"
            | "cc"
            | "cpp"
            | "cxx"
            | "hpp"
            | "hh"
            | "cs"
            | "fs"
            | "rb"
            | "php"
            | "swift"
            | "m"
            | "mm"
            | "sh"
            | "bash"
            | "zsh"
            | "fish"
            | "ps1"
            | "sql"
            | "toml"
            | "yaml"
            | "yml"
            | "ini"
            | "cfg"
            | "css"
            | "scss"
            | "sass"
            | "less"
            | "vue"
            | "svelte"
            | "lua"
            | "r"
            | "ex"
            | "exs"
            | "erl"
            | "hs"
            | "ml"
            | "pl"
            | "pm"
            | "dart"
            | "zig"
            | "nim"
            | "proto"
            | "graphql"
            | "gql"
            | "xml"
            | "gradle"
            | "cmake"
            | "mk"
            | "dockerfile"
            | "tf"
            | "hcl"
            | "nix"
            | "patch"
            | "diff"
            | "wit"
            | "jl"
            | "clj"
    )
}

const CODE_STARTS: &[&str] = &[
    "import ",
    "from ",
    "export ",
    "def ",
    "class ",
    "fn ",
    "pub ",
    "let ",
    "const ",
    "var ",
    "function ",
    "return ",
    "if (",
    "for (",
    "while (",
    "#include",
    "package ",
    "use ",
    "//",
    "/*",
    "async ",
    "await ",
    "struct ",
    "impl ",
    "interface ",
    "type ",
    "func ",
    "@",
    "#!",
    "} ",
    "elif ",
    "else ",
    "else:",
    "try:",
    "except",
    "catch",
    "$ ",
    "<div",
    "<template",
    "</",
];

const CODE_ENDS: &[u8] = b";{}()[],=>";

/// Whether most non-blank lines look like code (at most 200 lines are looked at).
pub fn looks_like_code(text: &str) -> bool {
    let mut lines = 0u32;
    let mut code = 0u32;
    for line in text.lines().take(200) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        lines += 1;
        let ends_like_code = trimmed
            .as_bytes()
            .last()
            .is_some_and(|b| CODE_ENDS.contains(b));
        let starts_like_code = CODE_STARTS.iter().any(|s| trimmed.starts_with(s));
        if ends_like_code || starts_like_code {
            code += 1;
        }
    }
    lines > 0 && code * 5 >= lines * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_and_prose() {
        assert!(looks_like_code(
            "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n"
        ));
        assert!(looks_like_code(
            "import os\nfrom sys import argv\n\ndef run(a):\n    return a\n"
        ));
        assert!(!looks_like_code(
            "The server starts on port 8080.\nIt reads its config at start.\n"
        ));
        assert!(!looks_like_code(
            "2024-01-01 INFO started\n2024-01-01 WARN slow request 1.2s\n"
        ));
    }
}

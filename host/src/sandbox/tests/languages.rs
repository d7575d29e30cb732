//! Every language, with real runtimes: each one installed here computes a known
//! answer over a fixture through `ctx_execute_file`'s variables and a plain
//! `ctx_execute`; each one missing answers "<lang> is not available here; …".

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::sandbox::{ExecRequest, Runtimes, Sandbox, SandboxError};

/// The fixtures committed under `tests/fixtures/` (one definition, in `chunk`).
pub fn fixtures_dir() -> PathBuf {
    crate::chunk::fixtures_dir()
}

const NEEDLE: &str = "\" 404 ";

/// (language, code over the file, plain code printing 6 * 7).
const PROGRAMS: &[(&str, &str, &str)] = &[
    (
        "javascript",
        r#"const { basename } = require("node:path");
await new Promise((resolve) => setTimeout(resolve, 1));
console.log(FILE_CONTENT.split("\n").filter((l) => l.includes('" 404 ')).length);"#,
        "console.log(await Promise.resolve(6 * 7));",
    ),
    (
        "typescript",
        r#"const lines: string[] = FILE_CONTENT.split("\n");
console.log(lines.filter((l: string) => l.includes('" 404 ')).length);"#,
        "const answer: number = await Promise.resolve(6 * 7);\nconsole.log(answer);",
    ),
    (
        "python",
        "from __future__ import annotations\nprint(sum(1 for l in FILE_CONTENT.splitlines() if '\" 404 ' in l))",
        "print(6 * 7)",
    ),
    (
        "shell",
        r#"printf '%s\n' "$FILE_CONTENT" | grep -c '" 404 '"#,
        "echo $((6 * 7))",
    ),
    (
        "ruby",
        r#"puts FILE_CONTENT.lines.count { |l| l.include?('" 404 ') }"#,
        "puts 6 * 7",
    ),
    (
        "go",
        r#"n := 0
for _, l := range strings.Split(FILE_CONTENT, "\n") {
	if strings.Contains(l, "\" 404 ") {
		n++
	}
}
fmt.Println(n)"#,
        "fmt.Println(6 * 7)",
    ),
    (
        "rust",
        r#"println!("{}", file_content.lines().filter(|l| l.contains("\" 404 ")).count());"#,
        "fn main() { println!(\"{}\", 6 * 7); }",
    ),
    (
        "php",
        r#"$n = 0;
foreach (explode("\n", $FILE_CONTENT) as $l) { if (strpos($l, '" 404 ') !== false) { $n++; } }
echo $n, "\n";"#,
        "<?php\necho 6 * 7, \"\\n\";",
    ),
    (
        "perl",
        r#"use strict; use warnings;
print scalar(grep { /" 404 / } split /\n/, $FILE_CONTENT), "\n";"#,
        "print 6 * 7, \"\\n\";",
    ),
    (
        "r",
        r#"lines <- strsplit(FILE_CONTENT, "\n")[[1]]
cat(sum(grepl('" 404 ', lines, fixed = TRUE)), "\n", sep = "")"#,
        "cat(6 * 7, \"\\n\", sep = \"\")",
    ),
    (
        "elixir",
        r#"file_content |> String.split("\n") |> Enum.count(&String.contains?(&1, "\" 404 ")) |> IO.puts"#,
        "IO.puts(6 * 7)",
    ),
    (
        "csharp",
        r#"System.Console.WriteLine(System.Linq.Enumerable.Count(FILE_CONTENT.Split('\n'), l => l.Contains("\" 404 ")));"#,
        "System.Console.WriteLine(6 * 7);",
    ),
];

fn expected_count(fixture: &Path) -> usize {
    let text = std::fs::read_to_string(fixture).expect("fixture");
    text.lines().filter(|l| l.contains(NEEDLE)).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_language_computes_the_answer_or_says_it_is_missing() {
    let fixtures = fixtures_dir();
    let fixture = fixtures
        .join("access.log")
        .canonical()
        .expect("access.log fixture");
    let expected = expected_count(&fixture);
    assert!(expected > 0, "the fixture must contain matches");

    let sandbox = Sandbox::new(Arc::new(Runtimes::detect()));
    let available = sandbox.runtimes().available().join(", ");
    let mut ran = Vec::new();
    let mut missing = Vec::new();
    for (language, file_code, plain_code) in PROGRAMS {
        let request = |code, file| ExecRequest {
            language,
            code,
            project_dir: &fixtures,
            cwd: None,
            timeout_ms: Some(120_000),
            background: false,
            file,
        };
        match sandbox.execute(request(file_code, Some(&fixture))).await {
            Err(SandboxError::Unavailable {
                language: named,
                available: listed,
            }) => {
                assert_eq!(named, *language);
                assert_eq!(listed, available);
                let message = sandbox
                    .execute(request(plain_code, None))
                    .await
                    .err()
                    .map(|e| e.to_string());
                assert_eq!(
                    message,
                    Some(format!(
                        "{language} is not available here; available: {available}"
                    ))
                );
                missing.push(*language);
            }
            Err(other) => panic!("{language}: {other}"),
            Ok(outcome) => {
                assert!(!outcome.is_error(), "{language} failed: {outcome:?}");
                assert_eq!(
                    outcome.stdout.trim(),
                    expected.to_string(),
                    "{language}: {outcome:?}"
                );
                let plain = sandbox
                    .execute(request(plain_code, None))
                    .await
                    .expect("plain run");
                assert!(!plain.is_error(), "{language} plain failed: {plain:?}");
                assert_eq!(plain.stdout.trim(), "42", "{language}: {plain:?}");
                ran.push(*language);
            }
        }
    }
    eprintln!(
        "languages run: {}; not available here: {}",
        ran.join(", "),
        missing.join(", ")
    );
    // A Linux machine that builds `cm` has these (the base system's shell, python3 and perl,
    // and the Rust toolchain); they must be found, never skipped.
    for required in ["shell", "python", "javascript", "perl", "rust"] {
        assert!(
            ran.contains(&required),
            "{required} must be available and pass here"
        );
    }
    assert_eq!(ran.len() + missing.len(), 12);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_and_go_full_programs_see_the_file_too() {
    let fixtures = fixtures_dir();
    let fixture = fixtures.join("access.log").canonical().expect("fixture");
    let expected = expected_count(&fixture).to_string();
    let sandbox = Sandbox::new(Arc::new(Runtimes::detect()));
    let programs = [
        (
            "rust",
            "#![allow(unused)]\nuse std::io::Write;\nfn main() {\n    let n = FILE_CONTENT.lines().filter(|l| l.contains(\"\\\" 404 \")).count();\n    println!(\"{n}\");\n}",
        ),
        (
            "go",
            "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc main() {\n\tfmt.Println(strings.Count(FILE_CONTENT, \"\\\" 404 \"))\n}",
        ),
    ];
    for (language, code) in programs {
        if sandbox.runtimes().resolve(language).is_err() {
            continue;
        }
        let outcome = sandbox
            .execute(ExecRequest {
                language,
                code,
                project_dir: &fixtures,
                cwd: None,
                timeout_ms: Some(120_000),
                background: false,
                file: Some(&fixture),
            })
            .await
            .expect("runs");
        assert_eq!(outcome.stdout.trim(), expected, "{language}: {outcome:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compile_error_is_reported_as_one() {
    let sandbox = Sandbox::new(Arc::new(Runtimes::detect()));
    if sandbox.runtimes().resolve("rust").is_err() {
        return;
    }
    let project = tempfile::tempdir().expect("tempdir");
    let outcome = sandbox
        .execute(ExecRequest {
            language: "rs",
            code: "let x: i32 = \"text\";",
            project_dir: project.path(),
            cwd: None,
            timeout_ms: Some(120_000),
            background: false,
            file: None,
        })
        .await
        .expect("runs the compiler");
    assert!(outcome.compile_failed && outcome.is_error(), "{outcome:?}");
    assert!(
        outcome.stderr.contains("mismatched types"),
        "{}",
        outcome.stderr
    );
    let script = outcome
        .stderr
        .split_whitespace()
        .find_map(|w| w.split(':').next().filter(|p| p.ends_with("script.rs")))
        .map(PathBuf::from)
        .expect("the compiler names the script");
    assert!(
        !script.parent().expect("dir").exists(),
        "temp dir left behind: {}",
        script.display()
    );
}

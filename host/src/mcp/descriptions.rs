//! Tool descriptions, and the contract every one of them follows so a model reads every
//! tool the same way: a one-line imperative headline (≤ 120 chars), then `WHEN:`,
//! `WHEN NOT:`, `RETURNS:`, `EXAMPLE:` sections of `- ` bullets, ≤ 1,000 chars in all,
//! none of the shouting words. Only
//! `ctx_purge` may add `DESTRUCTIVE:` and `SCOPES:`.

pub const CTX_EXECUTE: &str = "\
Run code in a local sandbox; only what it prints comes back.
WHEN:
- Output would be large: tests, builds, logs, API calls, git history, data files
- You want a count, a filter or a summary rather than the raw data
WHEN NOT:
- Reading a small file you are about to edit: use the normal read tool
RETURNS:
- Printed output whole up to 4 KB; larger output is indexed, and you get the parts matching `intent` (or a head/tail preview) plus a ctx_search hint
- isError with the exit code and the stderr tail when the code fails; the code has full network access
EXAMPLE:
- {\"language\": \"shell\", \"code\": \"npm test 2>&1 | tail -40\", \"intent\": \"failing tests\"}
- languages: javascript, typescript, python, shell, ruby, go, rust, php, perl, r, elixir, csharp";

pub const CTX_EXECUTE_FILE: &str = "\
Run code over one file so its content stays out of the context.
WHEN:
- Analysing a large file: logs, CSV, JSON, generated code
- The script reads the path from FILE_PATH and the text from FILE_CONTENT (env vars in shell, variables in other languages)
WHEN NOT:
- Editing the file: use the normal read and edit tools
RETURNS:
- What the script prints, shaped like ctx_execute output (indexed when large)
- A refusal naming the permission rule to add when the path is outside the project
EXAMPLE:
- {\"path\": \"logs/access.log\", \"language\": \"python\", \"code\": \"print(sum(' 500 ' in l for l in FILE_CONTENT.splitlines()))\"}";

pub const CTX_BATCH_EXECUTE: &str = "\
Run several commands, index all their output and answer several queries in one call.
WHEN:
- Gathering context from many commands at once (git log, ls, grep, test runs)
- Searching that output right away without a second call
WHEN NOT:
- A single short command: use ctx_execute
RETURNS:
- Per command: label, exit code and size; then the best matches for each query
- Commands past the shared timeout budget are marked skipped
EXAMPLE:
- {\"commands\": [{\"label\": \"log\", \"command\": \"git log --oneline -50\"}], \"queries\": [\"fix login\"]}";

pub const CTX_INDEX: &str = "\
Index text, a file or a directory into the local knowledge base for ctx_search.
WHEN:
- Docs, source trees or notes you will search more than once
- Content you already have as text (pass content and a source label)
WHEN NOT:
- A URL: use ctx_fetch_and_index
RETURNS:
- The source label, files and chunks indexed, and bytes kept out of the context
EXAMPLE:
- {\"path\": \"docs\", \"include\": [\"**/*.md\"], \"source\": \"project docs\"}
- {\"content\": \"# Notes ...\", \"source\": \"meeting notes\"}";

pub const CTX_SEARCH: &str = "\
Search the indexed knowledge base with one or more queries.
WHEN:
- Finding the relevant part of output that ctx_execute, ctx_index or ctx_fetch_and_index indexed
- Looking up identifiers, error messages or headings; typos are corrected
WHEN NOT:
- Nothing was indexed yet: index or execute first
RETURNS:
- Per query: up to `limit` snippets (default 3) with source, heading path and origin (this session, earlier session, memory)
EXAMPLE:
- {\"queries\": [\"rate limit\", \"useEffect cleanup\"], \"source\": \"react docs\", \"limit\": 5}";

pub const CTX_FETCH_AND_INDEX: &str = "\
Fetch URLs, convert them to markdown, index them and get a short preview back.
WHEN:
- Reading web docs, API references, issues or any page
- Several URLs at once (requests, concurrency up to 8)
WHEN NOT:
- Local files: use ctx_index
RETURNS:
- Per URL: source label, chunk count, a short preview, and whether it came from the 24 h cache; then search with ctx_search
EXAMPLE:
- {\"url\": \"https://docs.example.com/guide\", \"source\": \"example guide\"}
- {\"requests\": [{\"url\": \"https://a.example/x\"}, {\"url\": \"https://b.example/y\"}], \"force\": true}";

pub const CTX_PURGE: &str = "\
Delete indexed content from the knowledge base.
WHEN:
- Stale or wrong content keeps matching searches
- The user asks to forget a session, a source or the whole project
WHEN NOT:
- Routine cleanup: content older than 14 days is removed automatically
RETURNS:
- What was deleted: sources and chunk counts
EXAMPLE:
- {\"confirm\": true, \"scope\": \"source\", \"source\": \"old docs\"}
DESTRUCTIVE:
- Deletion cannot be undone; confirm must be true
SCOPES:
- session (this or a given sessionId), source (partial label match), project (everything)";

pub const CTX_RESUME: &str = "\
Show this session's saved working state, or one journal row in full.
WHEN:
- After a compaction or resume, to recover the task, edited files, decisions and open errors
- A state block line points at a row: pass its number as seq
WHEN NOT:
- Searching earlier tool output or docs: use ctx_search
RETURNS:
- Without seq: the state block (last request, tasks, errors, files, decisions), at most 2 KB
- With seq: that row's category, summary and full redacted data, at most 2 KB
EXAMPLE:
- {}
- {\"seq\": 42}";

pub const CTX_DOCTOR: &str = "\
Check this context-mode installation and show how to fix what is wrong.
WHEN:
- A ctx_* tool fails in a way that points at the setup: a missing runtime, a database error, a plugin error
- The user asks whether context-mode is installed and working
WHEN NOT:
- Debugging the user's own code or tests: use ctx_execute
RETURNS:
- A table with one row per check (version, SQLite + FTS5, data root, project database, runtimes, plugins, .cwasm cache, hook errors, a cm serve self-test), each PASS, WARN or FAIL with a detail and the command that fixes it
- Secrets are masked and the home directory is shown as ~; nothing is changed
EXAMPLE:
- {}";

pub const CTX_UPGRADE: &str = "\
Get the commands that rebuild and reinstall cm from its source and refresh the agents' hooks.
WHEN:
- The user asks to upgrade or update context-mode, or hooks point at an old cm path
- You want the installed version and the version of the source tree cm was built from
WHEN NOT:
- Checking whether the hooks and the server work: use ctx_doctor
RETURNS:
- The installed version, the source tree with its version and commit, or that it no longer exists
- Shell commands to run in order: git pull, cargo install, then cm upgrade (refreshes the hooks of agents already set up, drops stale plugin cache entries); this call runs and downloads nothing
EXAMPLE:
- {}";

pub const CTX_STATS: &str = "\
Show how many bytes the ctx_* tools kept out of the context, per tool and in all.
WHEN:
- The user asks what context-mode saved, in this session, this project or all projects
- Checking whether large output really stayed out of the context
WHEN NOT:
- Diagnosing a broken setup: use ctx_doctor
RETURNS:
- Per scope: calls, raw and returned bytes per tool, the kept-out share with a text bar, tokens (bytes / 4)
- ctx_fetch_and_index cache hits and hook latency p50/p95/max per platform and event
EXAMPLE:
- {}";

pub const CTX_INSIGHT: &str = "\
Write the local insight report (one HTML file) and get its path.
WHEN:
- The user wants charts: kept-out bytes per day and per tool, largest sources, hook latency, journal
WHEN NOT:
- A quick figure in the conversation: use ctx_stats
RETURNS:
- The path of a self-contained HTML file under the data root (no script, no network) and a two-line summary
EXAMPLE:
- {}";

/// Why a description breaks the contract, if it does.
pub fn contract_violations(tool: &str, description: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if description.len() > 1_000 {
        problems.push(format!("{} chars (limit 1,000)", description.len()));
    }
    let mut lines = description.lines();
    let headline = lines.next().unwrap_or("");
    if headline.is_empty() || headline.len() > 120 {
        problems.push(format!("headline of {} chars (1-120)", headline.len()));
    }
    if headline.ends_with(':') || !headline.starts_with(|c: char| c.is_ascii_uppercase()) {
        problems.push("headline is not an imperative sentence".into());
    }
    let mut allowed = vec!["WHEN:", "WHEN NOT:", "RETURNS:", "EXAMPLE:"];
    if tool == "ctx_purge" {
        allowed.extend(["DESTRUCTIVE:", "SCOPES:"]);
    }
    let mut seen = Vec::new();
    let mut section_has_bullet = true;
    for line in lines {
        if line.ends_with(':') && !line.starts_with("- ") {
            if !section_has_bullet {
                problems.push(format!(
                    "section {} has no bullet",
                    seen.last().unwrap_or(&"?")
                ));
            }
            if !allowed.contains(&line) {
                problems.push(format!("unknown section {line:?}"));
            }
            seen.push(line);
            section_has_bullet = false;
        } else if line.starts_with("- ") && !seen.is_empty() {
            section_has_bullet = true;
        } else {
            problems.push(format!(
                "line is neither a section nor a `- ` bullet: {line:?}"
            ));
        }
    }
    if !section_has_bullet {
        problems.push("last section has no bullet".into());
    }
    let required = ["WHEN:", "WHEN NOT:", "RETURNS:", "EXAMPLE:"];
    let order: Vec<&str> = seen
        .iter()
        .copied()
        .filter(|s| required.contains(s))
        .collect();
    if order != required {
        problems.push(format!(
            "sections {order:?}, expected {required:?} in that order"
        ));
    }
    for word in [
        "MANDATORY",
        "NEVER",
        "Do NOT",
        "DO NOT",
        "BLOCKED",
        "IMPORTANT",
        "CRITICAL",
    ] {
        if description.contains(word) {
            problems.push(format!("uses {word:?}"));
        }
    }
    if description
        .chars()
        .any(|c| matches!(c as u32, 0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF))
    {
        problems.push("uses emoji".into());
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[(&str, &str)] = &[
        ("ctx_execute", CTX_EXECUTE),
        ("ctx_execute_file", CTX_EXECUTE_FILE),
        ("ctx_batch_execute", CTX_BATCH_EXECUTE),
        ("ctx_index", CTX_INDEX),
        ("ctx_search", CTX_SEARCH),
        ("ctx_fetch_and_index", CTX_FETCH_AND_INDEX),
        ("ctx_purge", CTX_PURGE),
        ("ctx_resume", CTX_RESUME),
        ("ctx_doctor", CTX_DOCTOR),
        ("ctx_upgrade", CTX_UPGRADE),
        ("ctx_stats", CTX_STATS),
        ("ctx_insight", CTX_INSIGHT),
    ];

    #[test]
    fn every_description_follows_the_contract() {
        for (tool, description) in ALL {
            assert_eq!(
                contract_violations(tool, description),
                Vec::<String>::new(),
                "{tool}"
            );
        }
    }

    #[test]
    fn the_contract_catches_broken_descriptions() {
        let broken = "\
MANDATORY: use this tool for everything, it is the best tool ever written by anyone anywhere at any time, really, truly, honestly
WHEN:
- always
EXTRA:
- 🚀 fast";
        let problems = contract_violations("ctx_broken", broken);
        for expected in [
            "headline of",
            "unknown section \"EXTRA:\"",
            "uses \"MANDATORY\"",
            "uses emoji",
            "expected",
        ] {
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{expected} not in {problems:?}"
            );
        }
        let purge_sections_elsewhere = CTX_PURGE;
        assert!(!contract_violations("ctx_search", purge_sections_elsewhere).is_empty());
        assert!(
            !contract_violations(
                "ctx_x",
                &format!("{CTX_SEARCH}\n{}", "- padding ".repeat(100))
            )
            .is_empty()
        );
    }
}

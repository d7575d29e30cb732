//! The contract every tool description follows, so a model reading tools/list can tell
//! when each tool fits at a glance: a one-line imperative headline (≤ 120 chars), then
//! `WHEN:`, `WHEN NOT:`, `RETURNS:`, `EXAMPLE:` sections of `- ` bullets, ≤ 1,000 chars in all, none of the shouting words. Only
//! `ctx_purge` may add `DESTRUCTIVE:` and `SCOPES:`.

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

    fn description_of(tool: &str) -> &'static str {
        super::super::all()
            .into_iter()
            .find(|t| t.name == tool)
            .map(|t| t.description)
            .expect("registered")
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
        let purge_sections_elsewhere = description_of("ctx_purge");
        assert!(!contract_violations("ctx_search", purge_sections_elsewhere).is_empty());
        assert!(
            !contract_violations(
                "ctx_x",
                &format!(
                    "{}\n{}",
                    description_of("ctx_search"),
                    "- padding ".repeat(100)
                )
            )
            .is_empty()
        );
    }
}

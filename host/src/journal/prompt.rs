//! What a user prompt says beyond the request itself: decisions and corrections,
//! constraints, blockers (and their clearing), role directives, the session's intent,
//! external references, slash commands, and pasted data.
//!
//! Classification is by phrases, sentence by sentence; questions are never decisions.

use super::Category;
use super::extract::{Extracted, NewEntry, Paste};
use super::redact::redact;
use super::text::{clean, clip, cut, one_line, seq_list, with_fields};
use super::view::JournalView;
use crate::human::first_line;
use crate::limits::{JOURNAL_SUMMARY_MAX_BYTES, PASTE_BY_REFERENCE_BYTES};

/// Bytes of a pasted prompt kept in its row (the whole paste is indexed).
const PASTE_HEAD_BYTES: usize = PASTE_BY_REFERENCE_BYTES / 2;

/// The rows of one prompt.
pub fn entries(raw: &str, view: &JournalView<'_>, out: &mut Extracted) {
    let prompt = redact(&clean(raw));
    let prompt = prompt.trim();
    if prompt.is_empty() {
        return;
    }
    let classified = if prompt.len() > PASTE_BY_REFERENCE_BYTES {
        let hash = crate::store::content_hash(prompt);
        let label = format!("pasted data {}", &hash[..8]);
        let size = crate::human::bytes(prompt.len() as u64);
        out.push(
            NewEntry::new(
                Category::Prompt,
                clip(
                    &format!(
                        "{} ({size} pasted, indexed as \"{label}\")",
                        one_line(first_line(prompt))
                    ),
                    JOURNAL_SUMMARY_MAX_BYTES,
                ),
            )
            .data(format!(
                "{}\n… ({size} in all; ctx_search with source \"{label}\" reaches the rest)",
                cut(prompt, PASTE_HEAD_BYTES)
            )),
        );
        out.push(
            NewEntry::new(
                Category::Paste,
                format!("pasted data ({size}) indexed as \"{label}\""),
            )
            .data(with_fields(&[("source", label.clone())], cut(prompt, 200))),
        );
        out.pastes.push(Paste {
            label,
            text: prompt.to_string(),
        });
        cut(prompt, PASTE_BY_REFERENCE_BYTES)
    } else {
        out.push(
            NewEntry::new(
                Category::Prompt,
                clip(&one_line(prompt), JOURNAL_SUMMARY_MAX_BYTES),
            )
            .data(prompt),
        );
        prompt
    };

    if let Some(command) = slash_command(prompt) {
        out.push(NewEntry::new(
            Category::Skill,
            format!("slash command {command}"),
        ));
    }
    let mut clears_blockers = false;
    for sentence in sentences(classified) {
        let lower = sentence.to_lowercase();
        let category = if is_role(&lower) {
            Some(Category::Role)
        } else if is_unblock(&lower) {
            clears_blockers = true;
            None
        } else if is_blocker(&lower) {
            Some(Category::Blocker)
        } else if is_decision(&lower) {
            Some(Category::Decision)
        } else if is_constraint(&lower) {
            Some(Category::Constraint)
        } else {
            None
        };
        if let Some(category) = category {
            out.push(
                NewEntry::new(
                    category,
                    clip(&one_line(sentence), JOURNAL_SUMMARY_MAX_BYTES),
                )
                .data(sentence),
            );
        }
    }
    if clears_blockers {
        let open: Vec<i64> = view.open_blockers().iter().map(|r| r.seq).collect();
        if !open.is_empty() {
            out.push(
                NewEntry::new(
                    Category::Unblocked,
                    format!("blockers cleared: {}", seq_list(&open)),
                )
                .data(with_fields(&[("resolves", seq_list(&open))], "")),
            );
        }
    }
    if let Some(intent) = intent(classified) {
        let current = view
            .latest(Category::Intent)
            .map(|r| r.summary.trim_start_matches("intent: ").to_string());
        if current.as_deref() != Some(intent) {
            out.push(
                NewEntry::new(Category::Intent, format!("intent: {intent}"))
                    .data(with_fields(&[("slot", "intent".into())], "")),
            );
        }
    }
    for reference in references(classified) {
        out.push(NewEntry::new(
            Category::Reference,
            format!("reference {reference}"),
        ));
    }
}

/// Sentences and lines of a prompt, list bullets removed.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            let ends = matches!(b, b'.' | b'!' | b'?' | b';')
                && bytes.get(i + 1).is_none_or(|n| *n == b' ');
            if ends {
                push_sentence(&mut found, &line[start..=i]);
                start = i + 1;
            }
        }
        push_sentence(&mut found, &line[start..]);
    }
    found
}

fn push_sentence<'a>(found: &mut Vec<&'a str>, sentence: &'a str) {
    let trimmed = sentence
        .trim()
        .trim_start_matches(['-', '*', '•', '>'])
        .trim_start();
    if trimmed.chars().any(char::is_alphabetic) {
        found.push(trimmed);
    }
}

/// Whether `phrase` occurs in `text` as whole words.
pub fn has_phrase(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        let before_ok = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = !phrase.ends_with(|c: char| c.is_alphanumeric())
            || text[at + phrase.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
        before_ok && after_ok
    })
}

/// The sentence without leading fillers ("ok, please use …" → "use …").
fn opening(lower: &str) -> &str {
    const FILLERS: &[&str] = &[
        "ok", "okay", "please", "and", "also", "so", "but", "then", "hey", "now", "alright",
        "great", "thanks", "well",
    ];
    let mut rest = lower.trim_start();
    loop {
        let before = rest;
        for filler in FILLERS {
            if let Some(after) = rest.strip_prefix(filler)
                && after.starts_with([' ', ','])
            {
                rest = after.trim_start_matches([' ', ',']);
            }
        }
        if rest == before {
            return rest;
        }
    }
}

fn starts_with_any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| {
        text.strip_prefix(p).is_some_and(|rest| {
            !p.ends_with(|c: char| c.is_alphanumeric())
                || rest.is_empty()
                || rest.starts_with(|c: char| !c.is_alphanumeric())
        })
    })
}

fn contains_any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| has_phrase(text, p))
}

/// "use pnpm instead of npm", "don't touch the migrations", "no, the other file".
pub fn is_decision(lower: &str) -> bool {
    if lower.trim_end().ends_with('?') {
        return false;
    }
    let open = opening(lower);
    if open.starts_with("never mind") {
        return false;
    }
    const OPENERS: &[&str] = &[
        "use",
        "switch to",
        "go with",
        "stick with",
        "stick to",
        "prefer",
        "always",
        "never",
        "don't",
        "do not",
        "dont",
        "stop",
        "avoid",
        "keep using",
        "instead",
        "from now on",
        "let's use",
        "lets use",
        "let's go with",
        "let's switch",
        "let's stick",
        "we'll use",
        "we will use",
        "we should use",
        "make sure",
        "remember to",
        "no,",
        "no.",
        "nope",
        "wrong",
        "that's wrong",
        "that's not",
        "thats not",
        "not that",
        "actually",
        "i said",
        "i meant",
        "you should have",
    ];
    const ANYWHERE: &[&str] = &[
        "rather than",
        "we decided",
        "decided to",
        "from now on",
        "let's use",
        "let's go with",
        "we'll use",
        "we will use",
        "i prefer",
        "i'd prefer",
        "don't use",
        "do not use",
        "never use",
        "don't touch",
        "do not touch",
        "don't change",
        "do not change",
        "don't add",
        "do not add",
        "don't run",
        "do not run",
    ];
    const WITH_INSTEAD: &[&str] = &[
        "use", "let's", "we'll", "switch", "go with", "prefer", "should", "try",
    ];
    starts_with_any(open, OPENERS)
        || contains_any(lower, ANYWHERE)
        || (has_phrase(lower, "instead") && contains_any(lower, WITH_INSTEAD))
}

/// "it must run on Windows", "docker is not supported here", "we can't use the network".
pub fn is_constraint(lower: &str) -> bool {
    if lower.trim_end().ends_with('?') {
        return false;
    }
    contains_any(
        lower,
        &[
            "not supported",
            "isn't supported",
            "unsupported",
            "not allowed",
            "isn't allowed",
            "not permitted",
            "must",
            "mustn't",
            "can't use",
            "cannot use",
            "can not use",
            "we can't",
            "we cannot",
            "no network",
            "no internet",
            "offline",
            "without network",
            "don't have access",
            "do not have access",
            "no access to",
            "read-only",
            "permission denied",
            "only works with",
            "has to stay",
            "have to stay",
        ],
    )
}

/// "blocked on the API key", "waiting for the design review".
pub fn is_blocker(lower: &str) -> bool {
    contains_any(
        lower,
        &[
            "blocked on",
            "blocked by",
            "waiting for",
            "waiting on",
            "can't proceed until",
            "cannot proceed until",
            "can't continue until",
            "cannot continue until",
            "on hold",
            "is blocking",
        ],
    )
}

/// "we're unblocked", "no longer waiting on ops".
pub fn is_unblock(lower: &str) -> bool {
    contains_any(
        lower,
        &[
            "unblocked",
            "no longer blocked",
            "not blocked anymore",
            "no longer waiting",
            "blocker is resolved",
            "blocker resolved",
            "blocker is gone",
            "blockers are resolved",
        ],
    )
}

/// "you are a senior Rust reviewer", "act as a security auditor".
pub fn is_role(lower: &str) -> bool {
    starts_with_any(
        opening(lower),
        &[
            "you are a ",
            "you are an ",
            "you are the ",
            "you're a ",
            "you're an ",
            "act as ",
            "acting as ",
            "pretend to be ",
            "pretend you are ",
            "behave like ",
            "behave as ",
            "your role is",
            "you will act as",
            "as a senior ",
            "as an expert ",
        ],
    )
}

/// The kind of work a prompt asks for, from its earliest telling phrase.
pub fn intent(text: &str) -> Option<&'static str> {
    const KINDS: &[(&str, &[&str])] = &[
        (
            "discuss",
            &[
                "what do you think",
                "should we",
                "pros and cons",
                "discuss",
                "your opinion",
                "which is better",
                "trade-off",
                "tradeoff",
                "thoughts on",
                "compare",
            ],
        ),
        (
            "review",
            &[
                "review",
                "audit",
                "look over",
                "critique",
                "check the pr",
                "code review",
            ],
        ),
        (
            "investigate",
            &[
                "why",
                "investigate",
                "figure out",
                "find out",
                "look into",
                "debug",
                "diagnose",
                "root cause",
                "how does",
                "where is",
                "explain",
                "what causes",
            ],
        ),
        (
            "implement",
            &[
                "implement",
                "add",
                "fix",
                "build",
                "create",
                "write",
                "refactor",
                "change",
                "update",
                "make",
                "remove",
                "rename",
                "migrate",
                "port",
                "set up",
                "delete",
            ],
        ),
    ];
    let lower = text.to_lowercase();
    let mut best: Option<(usize, usize, &'static str)> = None;
    for (rank, (kind, phrases)) in KINDS.iter().enumerate() {
        for phrase in *phrases {
            let at = lower.match_indices(phrase).map(|(at, _)| at).find(|&at| {
                lower[..at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
                    && lower[at + phrase.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric())
            });
            if let Some(at) = at
                && best.is_none_or(|(b_at, b_rank, _)| (at, rank) < (b_at, b_rank))
            {
                best = Some((at, rank, kind));
            }
        }
    }
    best.map(|(_, _, kind)| kind)
}

/// URLs and issue references (`#123`, `owner/repo#123`) in a text, in order, once each.
pub fn references(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut push = |r: String| {
        if !found.contains(&r) {
            found.push(r);
        }
    };
    for (at, _) in text.match_indices("http") {
        let rest = &text[at..];
        if !(rest.starts_with("http://") || rest.starts_with("https://")) {
            continue;
        }
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
        {
            continue;
        }
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | ')' | ']' | '}' | '`')
            })
            .unwrap_or(rest.len());
        let url = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
        if url.len() > "https://".len() {
            push(cut(url, 300).to_string());
        }
    }
    for (at, _) in text.match_indices('#') {
        let digits: String = text[at + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let after = text[at + 1 + digits.len()..].chars().next();
        if digits.is_empty() || digits.len() > 6 || after.is_some_and(char::is_alphanumeric) {
            continue;
        }
        let before = &text[..at];
        let repo: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if repo.is_empty() {
            if before
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | ',' | '['))
            {
                push(format!("#{digits}"));
            }
        } else if repo.contains('/') && !repo.starts_with('/') && !before.ends_with("://") {
            push(format!("{repo}#{digits}"));
        }
    }
    found
}

/// `/name` when the prompt is a slash command.
pub fn slash_command(prompt: &str) -> Option<&str> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-')))
        .unwrap_or(rest.len());
    let next = rest[len..].chars().next();
    (len > 0 && next.is_none_or(char::is_whitespace)).then(|| &prompt.trim_start()[..len + 1])
}

#[cfg(test)]
mod tests;

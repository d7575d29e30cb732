//! `text` edits. A file setup created (or is about to create) is ours whole; a file
//! that exists and is not ours (AGENTS.md: the user writes it too) gets our content as
//! a marked block at its end, and only that block is ever replaced or taken out.

use super::error::ContentError;
use super::model::{Change, ChangeKind, MergeOutcome, Op};

pub const BLOCK_BEGIN: &str = "<!-- context-mode:begin -->";
pub const BLOCK_END: &str = "<!-- context-mode:end -->";

/// Merges `content` into a text file. `ours_whole`: setup created this file, so it is
/// rewritten whole rather than given a block.
pub fn merge(
    existing: Option<&str>,
    content: &str,
    ours_whole: bool,
) -> Result<MergeOutcome, ContentError> {
    let unchanged = |text: &str| MergeOutcome {
        text: text.to_owned(),
        ..MergeOutcome::default()
    };
    let Some(existing) = existing else {
        return Ok(whole_file(None, content));
    };
    if existing == content {
        return Ok(unchanged(existing));
    }
    if ours_whole {
        return Ok(whole_file(Some(existing), content));
    }
    let block = block(content);
    let lines = format!("{} lines", content.lines().count());
    match find_block(existing)? {
        Some((start, end)) => {
            if existing[start..end] == block {
                return Ok(unchanged(existing));
            }
            let text = format!("{}{block}{}", &existing[..start], &existing[end..]);
            let before = format!(
                "{} lines",
                existing[start..end].lines().count().saturating_sub(2)
            );
            Ok(MergeOutcome {
                text,
                changes: vec![change(ChangeKind::Replace, Some(before), Some(lines))],
                ops: vec![Op::TextBlock {
                    separator: String::new(),
                }],
                notes: Vec::new(),
            })
        }
        None => {
            let separator = separator_after(existing);
            Ok(MergeOutcome {
                text: format!("{existing}{separator}{block}"),
                changes: vec![change(ChangeKind::Add, None, Some(lines))],
                ops: vec![Op::TextBlock {
                    separator: separator.to_owned(),
                }],
                notes: Vec::new(),
            })
        }
    }
}

/// Takes our block out of a file the user edited since setup (the separator we put
/// before it too, when it is still there). A file that was ours whole is left as is.
pub fn unmerge(text: &str, ops: &[Op]) -> Result<MergeOutcome, ContentError> {
    let mut outcome = MergeOutcome {
        text: text.to_owned(),
        ..MergeOutcome::default()
    };
    let Some(separator) = ops.iter().find_map(|op| match op {
        Op::TextBlock { separator } => Some(separator.as_str()),
        _ => None,
    }) else {
        outcome.notes.push("changed since setup; left as is".into());
        return Ok(outcome);
    };
    let Some((start, end)) = find_block(text)? else {
        outcome
            .notes
            .push("the context-mode block is no longer there; left as is".into());
        return Ok(outcome);
    };
    let head = &text[..start];
    let head = head.strip_suffix(separator).unwrap_or(head);
    let lines = text[start..end].lines().count().saturating_sub(2);
    outcome.text = format!("{head}{}", &text[end..]);
    outcome.changes.push(change(
        ChangeKind::Remove,
        Some(format!("{lines} lines")),
        None,
    ));
    Ok(outcome)
}

fn whole_file(existing: Option<&str>, content: &str) -> MergeOutcome {
    let change = Change {
        kind: if existing.is_some() {
            ChangeKind::Replace
        } else {
            ChangeKind::Add
        },
        path: "(file)".into(),
        before: existing.map(|t| format!("{} lines", t.lines().count())),
        after: Some(format!("whole file ({} lines)", content.lines().count())),
    };
    MergeOutcome {
        text: content.to_owned(),
        changes: vec![change],
        ops: vec![Op::WholeFile],
        notes: Vec::new(),
    }
}

fn change(kind: ChangeKind, before: Option<String>, after: Option<String>) -> Change {
    Change {
        kind,
        path: "(context-mode block)".into(),
        before,
        after,
    }
}

/// Our content between the markers, each on its own line.
pub fn block(content: &str) -> String {
    let newline = if content.ends_with('\n') || content.is_empty() {
        ""
    } else {
        "\n"
    };
    format!("{BLOCK_BEGIN}\n{content}{newline}{BLOCK_END}\n")
}

/// What goes between the user's text and an appended block: a blank line.
fn separator_after(text: &str) -> &'static str {
    if text.is_empty() || text.ends_with("\n\n") {
        ""
    } else if text.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    }
}

/// The byte range of our block: from its begin marker's line to the end of its end
/// marker's line (its newline included).
fn find_block(text: &str) -> Result<Option<(usize, usize)>, ContentError> {
    let Some(start) = marker_line(text, BLOCK_BEGIN, 0) else {
        return Ok(None);
    };
    let Some(end_marker) = marker_line(text, BLOCK_END, start) else {
        return Err(ContentError::UnterminatedBlock {
            begin: BLOCK_BEGIN,
            end: BLOCK_END,
        });
    };
    let after = end_marker + BLOCK_END.len();
    let end = match text[after..].find('\n') {
        Some(i) => after + i + 1,
        None => text.len(),
    };
    Ok(Some((start, end)))
}

/// The offset of the first line at or after `from` that is `marker` (trailing spaces
/// and a `\r` allowed).
fn marker_line(text: &str, marker: &str, from: usize) -> Option<usize> {
    let mut offset = from;
    for line in text[from..].split_inclusive('\n') {
        if line.trim_end() == marker {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const OURS: &str = "# Routing\nUse ctx_execute.\n";

    fn applied(existing: &str) -> MergeOutcome {
        merge(Some(existing), OURS, false).unwrap()
    }

    #[test]
    fn a_missing_file_is_created_with_the_content_plainly() {
        let out = merge(None, OURS, false).unwrap();
        assert_eq!(out.text, OURS);
        assert_eq!(out.ops, vec![Op::WholeFile]);
    }

    #[test]
    fn a_users_file_gets_a_block_at_its_end_and_loses_only_it_again() {
        for user in ["# Mine\n", "# Mine", "# Mine\n\n", "", "a\r\nb\r\n"] {
            let out = applied(user);
            assert!(out.text.starts_with(user), "{user:?}");
            assert!(out.text.ends_with(&block(OURS)), "{:?}", out.text);
            assert_eq!(out.changes.len(), 1);
            let again = applied(&out.text);
            assert!(again.changes.is_empty() && again.text == out.text);
            let removed = unmerge(&out.text, &out.ops).unwrap();
            assert_eq!(removed.text, user, "{user:?}");
        }
        assert_eq!(
            applied("# Mine\n").text,
            format!("# Mine\n\n{}", block(OURS))
        );
    }

    #[test]
    fn a_stale_block_is_replaced_in_place_and_the_users_text_around_it_stays() {
        let old = format!("top\n\n{}bottom\n", block("old rules\n"));
        let out = applied(&old);
        assert_eq!(out.text, format!("top\n\n{}bottom\n", block(OURS)));
        assert_eq!(out.changes[0].kind, ChangeKind::Replace);
        // The user edited around the block since: remove keeps their edits.
        let edited = format!("top\nmore\n\n{}bottom\n", block(OURS));
        let ops = [Op::TextBlock {
            separator: "\n".into(),
        }];
        assert_eq!(unmerge(&edited, &ops).unwrap().text, "top\nmore\nbottom\n");
    }

    #[test]
    fn a_file_setup_created_is_rewritten_whole() {
        let out = merge(Some("old rules\n"), OURS, true).unwrap();
        assert_eq!(out.text, OURS);
        assert_eq!(out.ops, vec![Op::WholeFile]);
        let left = unmerge("edited\n", &[Op::WholeFile]).unwrap();
        assert_eq!(left.text, "edited\n");
        assert_eq!(left.notes, ["changed since setup; left as is"]);
    }

    #[test]
    fn an_unterminated_block_is_refused_in_one_line() {
        let err = merge(Some(&format!("x\n{BLOCK_BEGIN}\nhalf\n")), OURS, false)
            .unwrap_err()
            .to_string();
        assert!(err.contains(BLOCK_END) && !err.contains('\n'), "{err}");
    }

    #[test]
    fn content_without_a_final_newline_still_gets_marker_lines() {
        assert_eq!(block("x"), format!("{BLOCK_BEGIN}\nx\n{BLOCK_END}\n"));
        let text = format!("a\n{BLOCK_BEGIN}\nx\n{BLOCK_END}");
        let out = unmerge(
            &text,
            &[Op::TextBlock {
                separator: String::new(),
            }],
        )
        .unwrap();
        assert_eq!(out.text, "a\n");
    }
}

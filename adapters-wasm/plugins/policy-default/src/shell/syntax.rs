//! Shell syntax that is not a program call: reserved words, compound
//! statement heads, and the structure-free reading used past nesting limits.

use super::Word;

/// Words at the start of a command that belong to shell syntax, not to the program.
const LEADING_RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac",
    "time",
];
/// Commands that open a compound statement whose words are not a program call.
const COMPOUND_HEADS: &[&str] = &["for", "select", "case", "function"];

/// `text` with its structure removed: brackets, braces, `$` and backticks
/// become command separators; quotes, backslashes and `<` become blanks.
pub(super) fn flatten(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '$' | '(' | ')' | '`' | '{' | '}' => ';',
            '"' | '\'' | '\\' | '<' => ' ',
            other => other,
        })
        .collect()
}

/// Where the code of `sh -c CODE…` starts, for flattened text.
pub(super) fn shell_code_start(words: &[Word]) -> Option<usize> {
    let program = super::basename(&words.first()?.text);
    if !matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "su" | "eval"
    ) {
        return None;
    }
    if program == "eval" {
        return (words.len() > 1).then_some(1);
    }
    let flag = words.iter().position(|w| {
        w.text.starts_with('-') && !w.text.starts_with("--") && w.text[1..].contains('c')
    })?;
    (flag + 1 < words.len()).then_some(flag + 1)
}

pub(super) fn strip_syntax_words(words: &mut Vec<Word>) {
    let mut leading = 0;
    while let Some(word) = words.get(leading) {
        let follows_time = leading > 0 && words[leading - 1].text == "time";
        if word.quoted {
            break;
        } else if LEADING_RESERVED.contains(&word.text.as_str())
            || (follows_time && word.text == "-p")
        {
            leading += 1;
        } else {
            break;
        }
    }
    words.drain(..leading);
    if words
        .first()
        .is_some_and(|w| !w.quoted && COMPOUND_HEADS.contains(&w.text.as_str()))
    {
        words.clear();
    }
}

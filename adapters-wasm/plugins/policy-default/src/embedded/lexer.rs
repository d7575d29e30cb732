//! A token reader good enough to find process-spawning calls in the sandbox
//! languages: identifiers, string literals, command literals (backticks,
//! `%x(…)`, `qx(…)`) and punctuation, with comments skipped.

use super::Language;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Ident(String),
    /// A string literal's contents; `backtick` marks a JS template literal.
    Str {
        text: String,
        backtick: bool,
    },
    /// A literal that runs its text as a shell command (`` `…` `` in Ruby/Perl/PHP, `%x(…)`, `qx(…)`).
    Command(String),
    Punct(char),
}

pub(super) fn tokenize(code: &str, language: Language) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let hash_comments = matches!(
        language,
        Language::Python
            | Language::Ruby
            | Language::Perl
            | Language::R
            | Language::Elixir
            | Language::Php
    );
    let slash_comments = matches!(
        language,
        Language::JavaScript | Language::Go | Language::Rust | Language::Php | Language::CSharp
    );
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if (hash_comments && c == '#')
            || (slash_comments && c == '/' && chars.get(i + 1) == Some(&'/'))
        {
            i = skip_line(&chars, i);
        } else if slash_comments && c == '/' && chars.get(i + 1) == Some(&'*') {
            i = find(&chars, i + 2, &['*', '/']).map_or(chars.len(), |end| end + 2);
        } else if c == '"' || (c == '\'' && !is_rust_lifetime(&chars, i, language)) {
            let (text, next) = read_quoted(&chars, i, language);
            tokens.push(Token::Str {
                text,
                backtick: false,
            });
            i = next;
        } else if c == '`' {
            let (text, next) = read_quoted(&chars, i, language);
            tokens.push(match language {
                Language::Ruby | Language::Perl | Language::Php => Token::Command(text),
                Language::JavaScript => Token::Str {
                    text,
                    backtick: true,
                },
                _ => Token::Str {
                    text,
                    backtick: false,
                },
            });
            i = next;
        } else if is_ident_start(c, language) {
            let start = i;
            i += 1;
            while i < chars.len() && is_ident_char(chars[i], language) {
                i += 1;
            }
            let ident: String = chars[start..i].iter().collect();
            if let Some((token, next)) = literal_with_prefix(&ident, &chars, i, language) {
                tokens.push(token);
                i = next;
            } else {
                tokens.push(Token::Ident(ident));
            }
        } else if let Some((token, next)) = (c == '%' && language == Language::Ruby)
            .then(|| ruby_percent_literal(&chars, i))
            .flatten()
        {
            tokens.push(token);
            i = next;
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

fn is_ident_start(c: char, language: Language) -> bool {
    c.is_alphabetic()
        || c == '_'
        || (c == '$'
            && matches!(
                language,
                Language::JavaScript | Language::Php | Language::Perl
            ))
}

fn is_ident_char(c: char, language: Language) -> bool {
    c.is_alphanumeric() || c == '_' || (c == '$' && language == Language::JavaScript)
}

fn is_rust_lifetime(chars: &[char], i: usize, language: Language) -> bool {
    language == Language::Rust && chars.get(i + 1) != Some(&'\\') && chars.get(i + 2) != Some(&'\'')
}

fn skip_line(chars: &[char], i: usize) -> usize {
    find(chars, i, &['\n']).unwrap_or(chars.len())
}

fn find(chars: &[char], from: usize, needle: &[char]) -> Option<usize> {
    (from..chars.len()).find(|&i| chars[i..].starts_with(needle))
}

/// Prefixed literals: Python `f"…"`/`rb'…'`, Rust `r#"…"#`, Ruby `%x(…)`/`%w(…)`,
/// Perl `qx(…)`/`qq{…}`.
fn literal_with_prefix(
    ident: &str,
    chars: &[char],
    i: usize,
    language: Language,
) -> Option<(Token, usize)> {
    let next = *chars.get(i)?;
    match language {
        Language::Python if matches!(next, '"' | '\'') && ident.len() <= 2 => {
            let lower = ident.to_ascii_lowercase();
            if lower.chars().all(|c| "rbuf".contains(c)) {
                let (text, end) = read_quoted(chars, i, language);
                return Some((
                    Token::Str {
                        text,
                        backtick: false,
                    },
                    end,
                ));
            }
            None
        }
        Language::Rust if ident == "r" && matches!(next, '"' | '#') => {
            let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
            if chars.get(i + hashes) != Some(&'"') {
                return None;
            }
            let mut closing = vec!['"'];
            closing.extend(std::iter::repeat_n('#', hashes));
            let start = i + hashes + 1;
            let end = find(chars, start, &closing).unwrap_or(chars.len());
            let text = chars[start..end].iter().collect();
            Some((
                Token::Str {
                    text,
                    backtick: false,
                },
                (end + closing.len()).min(chars.len()),
            ))
        }
        Language::Perl if matches!(ident, "qx" | "q" | "qq" | "qw") && is_perl_delimiter(next) => {
            let (text, end) = read_delimited(chars, i);
            let token = if ident == "qx" {
                Token::Command(text)
            } else {
                Token::Str {
                    text,
                    backtick: false,
                }
            };
            Some((token, end))
        }
        _ => None,
    }
}

/// Ruby `%x(…)` runs a command; `%w(…)`, `%q(…)`, `%(…)` are strings.
fn ruby_percent_literal(chars: &[char], i: usize) -> Option<(Token, usize)> {
    let kind = *chars.get(i + 1)?;
    let (is_command, open) = if "xwWqQiI".contains(kind) {
        (kind == 'x', i + 2)
    } else {
        (false, i + 1)
    };
    let delimiter = *chars.get(open)?;
    if !matches!(delimiter, '(' | '{' | '[' | '<' | '|' | '!' | '/') {
        return None;
    }
    let (text, end) = read_delimited(chars, open);
    let token = if is_command {
        Token::Command(text)
    } else {
        Token::Str {
            text,
            backtick: false,
        }
    };
    Some((token, end))
}

fn is_perl_delimiter(c: char) -> bool {
    matches!(c, '(' | '{' | '[' | '<' | '/' | '|' | '!' | '#')
}

/// Reads `(…)`, `{…}`, `[…]`, `<…>` with nesting, or `/…/` style, from the
/// opening delimiter at `i`; returns the contents and the index after the closer.
pub(super) fn read_delimited(chars: &[char], i: usize) -> (String, usize) {
    let open = chars[i];
    let close = match open {
        '(' => ')',
        '{' => '}',
        '[' => ']',
        '<' => '>',
        other => other,
    };
    let mut depth = 0usize;
    let mut text = String::new();
    let mut j = i + 1;
    while j < chars.len() {
        let c = chars[j];
        j += 1;
        if c == '\\' && j < chars.len() {
            text.push(chars[j]);
            j += 1;
        } else if c == close && depth == 0 {
            return (text, j);
        } else {
            if c == open && open != close {
                depth += 1;
            } else if c == close {
                depth -= 1;
            }
            text.push(c);
        }
    }
    (text, j)
}

/// Reads a quoted literal starting at the quote at `i` (triple quotes in
/// Python); escapes keep the escaped character.
fn read_quoted(chars: &[char], i: usize, language: Language) -> (String, usize) {
    let quote = chars[i];
    let triple = language == Language::Python
        && chars.get(i + 1) == Some(&quote)
        && chars.get(i + 2) == Some(&quote);
    let mut j = if triple { i + 3 } else { i + 1 };
    let mut text = String::new();
    while j < chars.len() {
        let c = chars[j];
        if c == '\\' && !(quote == '`' && language == Language::Go) {
            if let Some(&next) = chars.get(j + 1) {
                text.push(match next {
                    'n' | 't' | 'r' => ' ',
                    other => other,
                });
            }
            j += 2;
            continue;
        }
        if triple {
            if chars[j..].starts_with(&[quote, quote, quote]) {
                return (text, j + 3);
            }
        } else if c == quote {
            return (text, j + 1);
        }
        text.push(c);
        j += 1;
    }
    (text, j)
}

//! The character-level reader behind [`super::split`]: POSIX/bash quoting,
//! operators, redirections, heredocs and command substitution.

use super::{Origin, Redirect, ShellCommand, Word, syntax};

/// Nesting of `$(…)`, subshells and backticks read structurally; deeper text
/// is read flat ([`parse_flat`]). Bounds recursion and the copies each level
/// makes, so a hostile line can neither exhaust the stack nor the deadline.
const MAX_DEPTH: usize = 16;

/// Reads `text` without structure: brackets, braces, `$` and backticks become
/// command separators, quotes and redirections from stdin become blanks. Used
/// past the nesting limits so a command buried deeper than any limit is still
/// seen; data may then be read as commands, which only errs toward matching a
/// deny rule, and only on lines no one writes by hand.
pub(super) fn parse_flat(text: &str, origin: Origin) -> Vec<ShellCommand> {
    let mut parser = Parser::new(&syntax::flatten(text), MAX_DEPTH);
    parser.parse_list(origin, None);
    let mut commands = Vec::new();
    let mut pending = parser.finish();
    // With quotes gone, `bash -c 'sudo x'` reads as one command: the words
    // after a shell's `-c` become a command of their own.
    while let Some(mut command) = pending.pop() {
        command.origin = command.origin.max(origin);
        if let Some(at) = syntax::shell_code_start(&command.words) {
            let mut inner = command.clone();
            inner.words = command.words.split_off(at);
            inner.redirects.clear();
            pending.push(inner);
        }
        commands.push(command);
    }
    commands.reverse();
    commands
}

/// Every simple command in `src`, the ones nested in substitutions included.
pub(super) fn parse(src: &str, origin: Origin) -> Vec<ShellCommand> {
    let mut parser = Parser::new(src, 0);
    parser.parse_list(origin, None);
    let mut commands = parser.finish();
    for command in &mut commands {
        command.origin = command.origin.max(origin);
    }
    commands
}

struct PendingHeredoc {
    delimiter: String,
    strip_tabs: bool,
    expands: bool,
    owner: usize,
}

struct Slot {
    command: ShellCommand,
    pipe_to: Option<usize>,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    slots: Vec<Slot>,
    pending: Vec<PendingHeredoc>,
    depth: usize,
}

impl Parser {
    fn new(src: &str, depth: usize) -> Self {
        Parser {
            chars: src.chars().collect(),
            pos: 0,
            slots: Vec::new(),
            pending: Vec::new(),
            depth,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    /// Resolves pipe links into program names, strips shell syntax words and
    /// drops commands that run nothing.
    fn finish(self) -> Vec<ShellCommand> {
        let mut commands: Vec<ShellCommand> = Vec::with_capacity(self.slots.len());
        let mut names: Vec<Option<String>> = Vec::with_capacity(self.slots.len());
        let mut links = Vec::with_capacity(self.slots.len());
        for slot in self.slots {
            let mut command = slot.command;
            syntax::strip_syntax_words(&mut command.words);
            names.push(
                command
                    .effective_argv()
                    .first()
                    .map(|w| super::basename(&w.text).to_string()),
            );
            links.push(slot.pipe_to);
            commands.push(command);
        }
        for (command, link) in commands.iter_mut().zip(&links) {
            command.pipes_into = link.and_then(|next| names.get(next).cloned().flatten());
        }
        commands.retain(|c| !c.words.is_empty() || !c.stdin_texts.is_empty());
        commands
    }

    fn start_command(&mut self, origin: Origin, pipe_from: Option<usize>) -> usize {
        let index = self.slots.len();
        self.slots.push(Slot {
            command: ShellCommand {
                words: Vec::new(),
                redirects: Vec::new(),
                stdin_texts: Vec::new(),
                piped_in: pipe_from.is_some(),
                pipes_into: None,
                origin,
            },
            pipe_to: None,
        });
        if let Some(from) = pipe_from {
            self.slots[from].pipe_to = Some(index);
        }
        index
    }

    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\r' {
                self.pos += 1;
            } else if c == '\\' && self.peek_at(1) == Some('\n') {
                self.pos += 2;
            } else {
                break;
            }
        }
    }

    /// Reads commands until `close` (consumed) or the end of input.
    fn parse_list(&mut self, origin: Origin, close: Option<char>) {
        let mut current: Option<usize> = None;
        let mut pipe_from: Option<usize> = None;
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { break };
            if Some(c) == close {
                self.pos += 1;
                break;
            }
            match c {
                '\n' => {
                    self.pos += 1;
                    current = None;
                    pipe_from = None;
                    self.read_pending_heredocs();
                }
                ';' => {
                    self.pos += 1;
                    while matches!(self.peek(), Some(';' | '&')) {
                        self.pos += 1;
                    }
                    current = None;
                    pipe_from = None;
                }
                '&' if self.peek_at(1) == Some('>') => {
                    let index = *current
                        .get_or_insert_with(|| self.start_command(origin, pipe_from.take()));
                    self.read_redirect(index, None);
                }
                '&' => {
                    self.pos += if self.peek_at(1) == Some('&') { 2 } else { 1 };
                    current = None;
                    pipe_from = None;
                }
                '|' => {
                    if self.peek_at(1) == Some('|') {
                        self.pos += 2;
                        pipe_from = None;
                    } else {
                        self.pos += if self.peek_at(1) == Some('&') { 2 } else { 1 };
                        pipe_from = current;
                    }
                    current = None;
                }
                '(' => {
                    let has_words =
                        current.is_some_and(|i| !self.slots[i].command.words.is_empty());
                    if has_words && self.is_function_parens() {
                        // `name() { …; }`: a definition, not a call of `name`.
                        if let Some(i) = current {
                            self.slots[i].command.words.clear();
                        }
                        current = None;
                    } else if self.peek_at(1) == Some('(') && !has_words {
                        self.skip_balanced('(', ')');
                    } else {
                        self.pos += 1;
                        self.nested_list(origin, ')');
                        current = None;
                    }
                }
                ')' => {
                    // A `case` pattern or a stray parenthesis: a separator.
                    self.pos += 1;
                    current = None;
                    pipe_from = None;
                }
                '<' | '>' if self.peek_at(1) == Some('(') => {
                    self.pos += 2;
                    let index = *current
                        .get_or_insert_with(|| self.start_command(origin, pipe_from.take()));
                    let start = self.pos - 2;
                    self.nested_list(Origin::Captured, ')');
                    let raw: String = self.chars[start..self.pos].iter().collect();
                    self.slots[index].command.words.push(Word {
                        text: raw.clone(),
                        raw,
                        quoted: false,
                    });
                }
                '<' | '>' => {
                    let index = *current
                        .get_or_insert_with(|| self.start_command(origin, pipe_from.take()));
                    self.read_redirect(index, None);
                }
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => {
                    let index = *current
                        .get_or_insert_with(|| self.start_command(origin, pipe_from.take()));
                    if let Some(fd) = self.fd_before_redirect() {
                        self.read_redirect(index, Some(fd));
                    } else {
                        let word = self.read_word();
                        self.slots[index].command.words.push(word);
                    }
                }
            }
        }
    }

    fn nested_list(&mut self, origin: Origin, close: char) {
        if self.depth >= MAX_DEPTH {
            let start = self.pos;
            self.pos -= 1;
            self.skip_balanced('(', close);
            let end = if self.pos > start && self.chars[self.pos - 1] == close {
                self.pos - 1
            } else {
                self.pos
            };
            let inner: String = self.chars[start..end].iter().collect();
            self.adopt(parse_flat(&inner, origin));
            return;
        }
        self.depth += 1;
        self.parse_list(origin, Some(close));
        self.depth -= 1;
    }

    fn is_function_parens(&self) -> bool {
        let mut i = self.pos + 1;
        while matches!(self.chars.get(i), Some(' ' | '\t')) {
            i += 1;
        }
        self.chars.get(i) == Some(&')')
    }

    /// `2>` / `10>>`: the digits are a file descriptor, not a word.
    fn fd_before_redirect(&mut self) -> Option<u32> {
        let mut i = self.pos;
        while self.chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        if i == self.pos || !matches!(self.chars.get(i), Some('<' | '>')) {
            return None;
        }
        let digits: String = self.chars[self.pos..i].iter().collect();
        let fd = digits.parse().ok()?;
        self.pos = i;
        Some(fd)
    }

    fn read_redirect(&mut self, owner: usize, fd: Option<u32>) {
        const OPERATORS: &[&str] = &[
            "&>>", "&>", "<<<", "<<-", "<<", "<&", "<>", "<", ">>", ">|", ">&", ">",
        ];
        let rest: String = self.chars[self.pos..(self.pos + 3).min(self.chars.len())]
            .iter()
            .collect();
        let op = OPERATORS
            .iter()
            .find(|op| rest.starts_with(**op))
            .copied()
            .unwrap_or(">");
        self.pos += op.chars().count();
        self.skip_blanks();
        let target = match self.peek() {
            None | Some('\n' | ';' | '|' | '&' | ')' | '<' | '>') => Word {
                text: String::new(),
                raw: String::new(),
                quoted: false,
            },
            _ => self.read_word(),
        };
        match op {
            "<<" | "<<-" => self.pending.push(PendingHeredoc {
                delimiter: target.text.clone(),
                strip_tabs: op == "<<-",
                expands: !target.quoted && !target.raw.contains('\\'),
                owner,
            }),
            "<<<" => self.slots[owner]
                .command
                .stdin_texts
                .push(target.text.clone()),
            _ => {}
        }
        self.slots[owner].command.redirects.push(Redirect {
            fd,
            op: op.to_string(),
            target: target.text,
        });
    }

    fn read_pending_heredocs(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for heredoc in pending {
            let mut body = String::new();
            loop {
                if self.pos >= self.chars.len() {
                    break;
                }
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                if self.peek() == Some('\n') {
                    self.pos += 1;
                }
                let line = line.strip_suffix('\r').unwrap_or(&line);
                let compared = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if compared == heredoc.delimiter {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if heredoc.expands {
                // An unquoted delimiter: `$(…)` and backticks in the body run.
                self.parse_detached(&body, true);
            }
            self.slots[heredoc.owner].command.stdin_texts.push(body);
        }
    }

    /// Parses `text` with a fresh reader (backtick contents, heredoc bodies)
    /// and adopts its commands as captured ones.
    fn parse_detached(&mut self, text: &str, as_double_quoted: bool) {
        if self.depth >= MAX_DEPTH {
            self.adopt(parse_flat(text, Origin::Captured));
            return;
        }
        let mut inner = Parser::new(text, self.depth + 1);
        if as_double_quoted {
            let mut sink = String::new();
            inner.read_double_quoted(&mut sink, None);
        } else {
            inner.parse_list(Origin::Captured, None);
        }
        let commands = inner.finish();
        self.adopt(commands.into_iter().map(|mut command| {
            command.origin = command.origin.max(Origin::Captured);
            command
        }));
    }

    /// Takes over commands read by another parser (already finished).
    fn adopt(&mut self, commands: impl IntoIterator<Item = ShellCommand>) {
        self.slots.extend(commands.into_iter().map(|command| Slot {
            command,
            pipe_to: None,
        }));
    }

    fn read_word(&mut self) -> Word {
        let start = self.pos;
        let mut text = String::new();
        let mut quoted = false;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' | ')' => break,
                '(' => {
                    // `arr=(a b)` and extglob `@(a|b)` keep their parentheses.
                    if text.ends_with(['=', '@', '?', '*', '+', '!']) {
                        let from = self.pos;
                        self.skip_balanced('(', ')');
                        text.extend(&self.chars[from..self.pos]);
                    } else {
                        break;
                    }
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            text.push(next);
                            self.pos += 1;
                            quoted = true;
                        }
                        None => text.push('\\'),
                    }
                }
                '\'' => {
                    quoted = true;
                    self.pos += 1;
                    while let Some(q) = self.peek() {
                        self.pos += 1;
                        if q == '\'' {
                            break;
                        }
                        text.push(q);
                    }
                }
                '"' => {
                    quoted = true;
                    self.pos += 1;
                    self.read_double_quoted(&mut text, Some('"'));
                }
                '$' if self.peek_at(1) == Some('\'') => {
                    quoted = true;
                    self.pos += 2;
                    self.read_ansi_c(&mut text);
                }
                '$' if self.peek_at(1) == Some('"') => {
                    quoted = true;
                    self.pos += 2;
                    self.read_double_quoted(&mut text, Some('"'));
                }
                '$' => self.read_dollar(&mut text),
                '`' => self.read_backticks(&mut text),
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        Word {
            text,
            raw: self.chars[start..self.pos].iter().collect(),
            quoted,
        }
    }

    /// Reads up to `close` (consumed), or to the end when `close` is `None`.
    fn read_double_quoted(&mut self, text: &mut String, close: Option<char>) {
        while let Some(c) = self.peek() {
            if Some(c) == close {
                self.pos += 1;
                return;
            }
            match c {
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some(next @ ('"' | '\\' | '$' | '`')) => {
                            text.push(next);
                            self.pos += 1;
                        }
                        Some('\n') => self.pos += 1,
                        _ => text.push('\\'),
                    }
                }
                '$' => self.read_dollar(text),
                '`' => self.read_backticks(text),
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$(…)`, `$((…))`, `${…}` or a plain `$`; the text keeps the source form.
    fn read_dollar(&mut self, text: &mut String) {
        let start = self.pos;
        match self.peek_at(1) {
            Some('(') if self.peek_at(2) == Some('(') => {
                self.pos += 1;
                self.skip_balanced('(', ')');
            }
            Some('(') => {
                self.pos += 2;
                self.nested_list(Origin::Captured, ')');
            }
            Some('{') => {
                self.pos += 1;
                self.skip_balanced('{', '}');
            }
            _ => self.pos += 1,
        }
        text.extend(&self.chars[start..self.pos]);
    }

    fn read_backticks(&mut self, text: &mut String) {
        let start = self.pos;
        self.pos += 1;
        let mut inner = String::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '`' => break,
                '\\' => match self.peek() {
                    Some(next @ ('`' | '\\' | '$')) => {
                        inner.push(next);
                        self.pos += 1;
                    }
                    _ => inner.push('\\'),
                },
                _ => inner.push(c),
            }
        }
        text.extend(&self.chars[start..self.pos]);
        self.parse_detached(&inner, false);
    }

    fn read_ansi_c(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    if let Some(next) = self.peek() {
                        self.pos += 1;
                        text.push(match next {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            other => other,
                        });
                    }
                }
                _ => text.push(c),
            }
        }
    }

    /// From an opening `open` at `pos`, moves past its matching `close`,
    /// stepping over quoted text.
    fn skip_balanced(&mut self, open: char, close: char) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\\' => self.pos += 1,
                '\'' | '"' => {
                    while let Some(q) = self.peek() {
                        self.pos += 1;
                        if q == '\\' && c == '"' {
                            self.pos += 1;
                        } else if q == c {
                            break;
                        }
                    }
                }
                _ if c == open => depth += 1,
                _ if c == close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
        self.pos = self.pos.min(self.chars.len());
    }
}

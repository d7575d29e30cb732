//! Shell commands embedded in code of the sandbox languages: `os.system(…)`,
//! `subprocess.run([…])`, `child_process.execSync(…)`, `` Bun.$`…` ``, Ruby and
//! Perl backticks, `shell_exec(…)`, `exec.Command(…)`, `Command::new(…)`, ….
//! Each found call becomes one shell command line, so the user's `Bash(…)`
//! rules apply to code run through `ctx_execute` as they do to the Bash tool.
//! Only literal text is known; computed parts (variables) are left out.

mod lexer;

use crate::shell::shell_quote;
use lexer::Token;

/// A sandbox language, by the names `ctx_execute` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Shell,
    Python,
    JavaScript,
    Ruby,
    Perl,
    Php,
    Go,
    Rust,
    R,
    Elixir,
    CSharp,
}

impl Language {
    /// The language named `name` (case-insensitive), with every alias the host's
    /// runtime catalog accepts (`runtimes/*.toml`): code is judged as what runs it.
    pub fn from_name(name: &str) -> Option<Language> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "shell" | "sh" | "bash" | "zsh" | "dash" | "ksh" | "shellscript" | "shell-script" => {
                Language::Shell
            }
            "python" | "python3" | "py" => Language::Python,
            "javascript" | "js" | "node" | "nodejs" | "mjs" | "cjs" | "typescript" | "ts"
            | "mts" | "tsx" | "bun" | "deno" => Language::JavaScript,
            "ruby" | "rb" => Language::Ruby,
            "perl" | "pl" => Language::Perl,
            "php" => Language::Php,
            "go" | "golang" => Language::Go,
            "rust" | "rs" => Language::Rust,
            "r" | "rscript" => Language::R,
            "elixir" | "ex" | "exs" => Language::Elixir,
            "csharp" | "c#" | "cs" | "csx" | "dotnet" => Language::CSharp,
            _ => return None,
        })
    }
}

/// How a spawning function takes its command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// One shell string (`os.system("…")`); later arguments are options or callbacks.
    ShellString,
    /// A program and its arguments, as separate strings and/or lists.
    Argv,
}

/// The shell command lines that `code` in `language` would spawn, as far as
/// literal strings tell.
pub fn shell_commands(language: Language, code: &str) -> Vec<String> {
    if language == Language::Shell {
        return vec![code.to_string()];
    }
    let tokens = lexer::tokenize(code, language);
    let python_names = if language == Language::Python {
        PythonNames::collect(&tokens)
    } else {
        PythonNames::default()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Token::Command(text) = &tokens[i] {
            out.push(text.clone());
        } else if let Some(text) = tagged_template(&tokens, i, language) {
            out.push(text);
        } else if let Some((form, open)) = spawning_call(&tokens, i, language, &python_names) {
            let (args, end) = call_arguments(&tokens, open);
            let skip = usize::from(is_context_first(&tokens, i));
            let mut values: Vec<ArgValue> = args
                .iter()
                .skip(skip)
                .map(|a| arg_value(a, language))
                .collect();
            if language == Language::Rust {
                values.extend(rust_builder_args(&tokens, end));
            }
            if let Some(command) = command_line(form, values) {
                out.push(command);
            }
        } else if let Some(command) = call_without_parens(&tokens, i, language) {
            out.push(command);
        }
        i += 1;
    }
    out.retain(|c| !c.trim().is_empty());
    out
}

const PY_OS_FUNCTIONS: &[&str] = &["system", "popen", "execvp", "execlp", "spawnlp", "spawnvp"];
const PY_SUBPROCESS_FUNCTIONS: &[&str] = &[
    "run",
    "call",
    "check_call",
    "check_output",
    "Popen",
    "getoutput",
    "getstatusoutput",
];
const JS_FUNCTIONS: &[&str] = &[
    "exec",
    "execSync",
    "spawn",
    "spawnSync",
    "execFile",
    "execFileSync",
    "execa",
    "execaSync",
    "execaCommand",
    "execaCommandSync",
];
const RUBY_FUNCTIONS: &[&str] = &[
    "system",
    "exec",
    "spawn",
    "popen",
    "capture2",
    "capture2e",
    "capture3",
    "popen2",
    "popen3",
];
const PERL_FUNCTIONS: &[&str] = &["system", "exec"];
const PHP_FUNCTIONS: &[&str] = &[
    "shell_exec",
    "exec",
    "system",
    "passthru",
    "popen",
    "proc_open",
];
const R_FUNCTIONS: &[&str] = &["system", "system2", "shell"];

/// Names under which Python code reaches `os` and `subprocess`.
#[derive(Default)]
struct PythonNames {
    os_modules: Vec<String>,
    subprocess_modules: Vec<String>,
    bare_functions: Vec<String>,
}

impl PythonNames {
    fn collect(tokens: &[Token]) -> PythonNames {
        let mut names = PythonNames {
            os_modules: vec!["os".into()],
            subprocess_modules: vec!["subprocess".into()],
            bare_functions: vec![],
        };
        for (i, token) in tokens.iter().enumerate() {
            match (
                token,
                tokens.get(i + 1),
                tokens.get(i + 2),
                tokens.get(i + 3),
            ) {
                (
                    Token::Ident(kw),
                    Some(Token::Ident(module)),
                    Some(Token::Ident(as_kw)),
                    Some(Token::Ident(alias)),
                ) if kw == "import" && as_kw == "as" => match module.as_str() {
                    "os" => names.os_modules.push(alias.clone()),
                    "subprocess" => names.subprocess_modules.push(alias.clone()),
                    _ => {}
                },
                (
                    Token::Ident(kw),
                    Some(Token::Ident(module)),
                    Some(Token::Ident(import_kw)),
                    _,
                ) if kw == "from"
                    && import_kw == "import"
                    && matches!(module.as_str(), "os" | "subprocess") =>
                {
                    let known = if module == "os" {
                        PY_OS_FUNCTIONS
                    } else {
                        PY_SUBPROCESS_FUNCTIONS
                    };
                    let mut j = i + 3;
                    if punct(tokens, j, '(') {
                        j += 1;
                    }
                    while let Some(name) = ident(tokens, j) {
                        let bound = if ident(tokens, j + 1) == Some("as") {
                            j += 2;
                            ident(tokens, j)
                        } else {
                            Some(name)
                        };
                        if let Some(bound) = bound.filter(|_| known.contains(&name)) {
                            names.bare_functions.push(bound.to_string());
                        }
                        if !punct(tokens, j + 1, ',') {
                            break;
                        }
                        j += 2;
                    }
                }
                _ => {}
            }
        }
        names
    }
}

fn ident(tokens: &[Token], i: usize) -> Option<&str> {
    match tokens.get(i) {
        Some(Token::Ident(name)) => Some(name),
        _ => None,
    }
}

fn punct(tokens: &[Token], i: usize, c: char) -> bool {
    tokens.get(i) == Some(&Token::Punct(c))
}

/// `module.function(` at `i`: the function name when the module matches.
fn qualified(tokens: &[Token], i: usize, modules: &[&str]) -> Option<String> {
    let module = ident(tokens, i)?;
    (modules.contains(&module) && punct(tokens, i + 1, '.') && punct(tokens, i + 3, '('))
        .then(|| ident(tokens, i + 2).map(str::to_string))
        .flatten()
}

/// When a spawning call starts at token `i`: its form and the index of its `(`.
fn spawning_call(
    tokens: &[Token],
    i: usize,
    language: Language,
    python: &PythonNames,
) -> Option<(Form, usize)> {
    let name = ident(tokens, i)?;
    let after_dot = i > 0 && punct(tokens, i - 1, '.');
    let defines = i > 0
        && matches!(
            ident(tokens, i - 1),
            Some("def" | "function" | "fn" | "func" | "sub")
        );
    if defines {
        return None;
    }
    let shell_string_or_argv = |f: &str| {
        if matches!(f, "system" | "popen" | "getoutput" | "getstatusoutput") {
            Form::ShellString
        } else {
            Form::Argv
        }
    };
    match language {
        Language::Python => {
            if !after_dot
                && python.bare_functions.iter().any(|f| f == name)
                && punct(tokens, i + 1, '(')
            {
                return Some((shell_string_or_argv(name), i + 1));
            }
            if after_dot {
                return None;
            }
            let os: Vec<&str> = python.os_modules.iter().map(String::as_str).collect();
            let sp: Vec<&str> = python
                .subprocess_modules
                .iter()
                .map(String::as_str)
                .collect();
            let function =
                qualified(tokens, i, &os).filter(|f| PY_OS_FUNCTIONS.contains(&f.as_str()));
            let function = function.or_else(|| {
                qualified(tokens, i, &sp).filter(|f| PY_SUBPROCESS_FUNCTIONS.contains(&f.as_str()))
            });
            function.map(|f| (shell_string_or_argv(&f), i + 3))
        }
        Language::JavaScript => {
            let command_fn = matches!(
                name,
                "exec" | "execSync" | "execaCommand" | "execaCommandSync"
            );
            (JS_FUNCTIONS.contains(&name) && punct(tokens, i + 1, '(')).then_some((
                if command_fn {
                    Form::ShellString
                } else {
                    Form::Argv
                },
                i + 1,
            ))
        }
        Language::Ruby => (RUBY_FUNCTIONS.contains(&name) && punct(tokens, i + 1, '('))
            .then_some((Form::Argv, i + 1)),
        Language::Perl => {
            (!after_dot && PERL_FUNCTIONS.contains(&name) && punct(tokens, i + 1, '('))
                .then_some((Form::Argv, i + 1))
        }
        Language::Php => (!after_dot && PHP_FUNCTIONS.contains(&name) && punct(tokens, i + 1, '('))
            .then_some((Form::ShellString, i + 1)),
        Language::R => (R_FUNCTIONS.contains(&name) && punct(tokens, i + 1, '('))
            .then_some((Form::Argv, i + 1)),
        Language::Go => qualified(tokens, i, &["exec"])
            .filter(|f| matches!(f.as_str(), "Command" | "CommandContext"))
            .map(|_| (Form::Argv, i + 3)),
        Language::Rust => (name == "Command"
            && punct(tokens, i + 1, ':')
            && punct(tokens, i + 2, ':')
            && ident(tokens, i + 3) == Some("new")
            && punct(tokens, i + 4, '('))
        .then_some((Form::Argv, i + 4)),
        Language::Elixir => {
            let system =
                qualified(tokens, i, &["System"]).filter(|f| matches!(f.as_str(), "cmd" | "shell"));
            let os = qualified(tokens, i, &["os"]).filter(|f| f == "cmd");
            system.or(os).map(|f| {
                (
                    if f == "cmd" && name == "System" {
                        Form::Argv
                    } else {
                        Form::ShellString
                    },
                    i + 3,
                )
            })
        }
        Language::CSharp => {
            if qualified(tokens, i, &["Process"]).is_some_and(|f| f == "Start") {
                Some((Form::Argv, i + 3))
            } else {
                (name == "ProcessStartInfo" && punct(tokens, i + 1, '('))
                    .then_some((Form::Argv, i + 1))
            }
        }
        Language::Shell => None,
    }
}

/// `exec.CommandContext(ctx, …)`: the first argument is not part of the command.
fn is_context_first(tokens: &[Token], i: usize) -> bool {
    ident(tokens, i + 2) == Some("CommandContext")
}

/// `` $`cmd` `` (zx, Bun shell) and `` Bun.$`cmd` ``.
fn tagged_template(tokens: &[Token], i: usize, language: Language) -> Option<String> {
    if language != Language::JavaScript || !matches!(ident(tokens, i), Some("$" | "execa")) {
        return None;
    }
    match tokens.get(i + 1) {
        Some(Token::Str {
            text,
            backtick: true,
        }) => Some(text.clone()),
        _ => None,
    }
}

/// Ruby `system "cmd"` and Perl `system "cmd", "arg"` without parentheses.
fn call_without_parens(tokens: &[Token], i: usize, language: Language) -> Option<String> {
    let functions = match language {
        Language::Ruby => RUBY_FUNCTIONS,
        Language::Perl => PERL_FUNCTIONS,
        _ => return None,
    };
    let name = ident(tokens, i)?;
    if !functions.contains(&name) || (i > 0 && punct(tokens, i - 1, '.')) {
        return None;
    }
    let mut values = Vec::new();
    let mut j = i + 1;
    while let Some(Token::Str { text, .. }) = tokens.get(j) {
        values.push(ArgValue::Text(text.clone()));
        if !punct(tokens, j + 1, ',') {
            break;
        }
        j += 2;
    }
    command_line(Form::Argv, values)
}

/// Rust `.arg("x")` / `.args(["a", "b"])` calls chained after `Command::new(…)`.
fn rust_builder_args(tokens: &[Token], mut i: usize) -> Vec<ArgValue> {
    let mut values = Vec::new();
    while punct(tokens, i, '.')
        && matches!(ident(tokens, i + 1), Some("arg" | "args"))
        && punct(tokens, i + 2, '(')
    {
        let (args, end) = call_arguments(tokens, i + 2);
        values.extend(args.iter().map(|a| arg_value(a, Language::Rust)));
        i = end;
    }
    values
}

/// Splits the arguments of the call whose `(` is at `open`; returns them and
/// the index after the closing `)`.
fn call_arguments(tokens: &[Token], open: usize) -> (Vec<Vec<Token>>, usize) {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    let mut i = open;
    while let Some(token) = tokens.get(i) {
        i += 1;
        match token {
            Token::Punct('(' | '[' | '{') => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            Token::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            Token::Punct(',') if depth == 1 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(token.clone());
        }
    }
    args.retain(|a| !a.is_empty());
    (args, i)
}

enum ArgValue {
    Text(String),
    List(Vec<String>),
    Other,
}

fn strings_in(tokens: &[Token]) -> Option<String> {
    let pieces: Vec<&str> = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Str { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!pieces.is_empty()).then(|| pieces.concat())
}

fn arg_value(tokens: &[Token], language: Language) -> ArgValue {
    let keyword = match (tokens.first(), tokens.get(1), tokens.get(2)) {
        (Some(Token::Ident(name)), Some(Token::Punct('=')), next)
            if next != Some(&Token::Punct('=')) =>
        {
            Some(name.as_str())
        }
        (Some(Token::Ident(name)), Some(Token::Punct(':')), next)
            if next != Some(&Token::Punct(':')) =>
        {
            Some(name.as_str())
        }
        _ => None,
    };
    if let Some(name) = keyword {
        return if matches!(name, "args" | "cmd" | "command") {
            arg_value(&tokens[2..], language)
        } else {
            ArgValue::Other
        };
    }
    let is_callback = tokens.iter().enumerate().any(|(k, t)| {
        matches!(t, Token::Punct('{')) && k > 0
            || matches!(t, Token::Ident(name) if matches!(name.as_str(), "function" | "lambda" | "def" | "fn"))
            || (matches!(t, Token::Punct('=')) && tokens.get(k + 1) == Some(&Token::Punct('>')))
    });
    if is_callback || tokens.first() == Some(&Token::Punct('{')) {
        return ArgValue::Other;
    }
    let list_body = match tokens.first() {
        Some(Token::Punct('[')) if tokens.get(1) == Some(&Token::Punct(']')) => {
            // Go `[]string{"a", "b"}`
            tokens
                .iter()
                .position(|t| t == &Token::Punct('{'))
                .map(|open| &tokens[open + 1..])
        }
        Some(Token::Punct('[')) => Some(&tokens[1..]),
        Some(Token::Ident(c))
            if c == "c" && language == Language::R && tokens.get(1) == Some(&Token::Punct('(')) =>
        {
            Some(&tokens[2..])
        }
        _ => None,
    };
    if let Some(body) = list_body {
        let elements = body
            .split(|t| t == &Token::Punct(','))
            .filter_map(strings_in)
            .collect();
        return ArgValue::List(elements);
    }
    strings_in(tokens).map_or(ArgValue::Other, ArgValue::Text)
}

fn command_line(form: Form, values: Vec<ArgValue>) -> Option<String> {
    let values: Vec<ArgValue> = values
        .into_iter()
        .filter(|v| !matches!(v, ArgValue::Other))
        .collect();
    match (form, values.as_slice()) {
        (_, [ArgValue::Text(text), ..]) if form == Form::ShellString || values.len() == 1 => {
            Some(text.clone())
        }
        (Form::ShellString, [ArgValue::List(list), ..]) => Some(quote_all(list.iter())),
        (_, []) => None,
        _ => {
            let argv = values.iter().flat_map(|v| match v {
                ArgValue::Text(text) => std::slice::from_ref(text).iter(),
                ArgValue::List(list) => list.iter(),
                ArgValue::Other => [].iter(),
            });
            Some(quote_all(argv))
        }
    }
}

fn quote_all<'a>(words: impl Iterator<Item = &'a String>) -> String {
    words.map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;

//! `cm plugin new <adapter|policy> --lang <lang> <dir>`: writes a plugin project from
//! one of the templates embedded at build time (adapters-wasm/templates/<lang>-<kind>/)
//! plus the newest contract's WIT, so it builds out of tree with that language's own
//! toolchain and installs with `cm plugin add`.

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};
use clap::{Args, ValueEnum};

use crate::plugins::ContractVersion;

/// One file of a template folder, embedded by host/build.rs (template_embed.rs).
pub struct TemplateFile {
    /// The template folder, `<lang>-<kind>`, e.g. `rust-policy`.
    pub template: &'static str,
    /// The path inside the folder, `/`-separated; may hold placeholders.
    pub path: &'static str,
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/plugin_templates.rs"));

/// A template's own settings; never copied into the project.
const TEMPLATE_SETTINGS_FILE: &str = "template.toml";
/// Where the project gets the contract's WIT (the templates carry no copy).
const PROJECT_WIT_PATH: &str = "wit/plugin.wit";
/// The longest id the registry accepts.
const ID_MAX_CHARS: usize = 64;

#[derive(Args)]
pub struct NewArgs {
    /// What the plugin is: a platform adapter (a new agent host) or a routing policy.
    pub kind: NewKind,
    /// The language of the project: rust, js or python.
    #[arg(long)]
    pub lang: String,
    /// The project directory to create (must not exist, or be empty).
    pub dir: PathBuf,
    /// The plugin id (default: the directory's name, lower-cased; a-z, 0-9, '-', '_').
    #[arg(long)]
    pub id: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NewKind {
    Adapter,
    Policy,
}

impl NewKind {
    fn name(self) -> &'static str {
        match self {
            Self::Adapter => "adapter",
            Self::Policy => "policy",
        }
    }
}

/// What `template.toml` says: how to build the project and what the build writes.
struct TemplateSettings {
    build: String,
    output: String,
}

pub fn run(args: NewArgs) -> anyhow::Result<()> {
    let kind = args.kind.name();
    let lang = args.lang.trim().to_ascii_lowercase();
    let template = format!("{lang}-{kind}");
    let files: Vec<&TemplateFile> = TEMPLATE_FILES
        .iter()
        .filter(|f| f.template == template)
        .collect();
    if files.is_empty() {
        bail!(
            "no {lang} template for a {kind} plugin; languages available for a {kind}: {}",
            languages_for(kind).join(", ")
        );
    }
    let id = match &args.id {
        Some(given) => checked_id(given)?,
        None => id_from_dir(&args.dir)?,
    };
    refuse_non_empty(&args.dir)?;
    let placeholders = Placeholders::new(&id);
    let settings = settings_of(&template, &files, &placeholders)?;
    let mut written = Vec::new();
    for file in files.iter().filter(|f| f.path != TEMPLATE_SETTINGS_FILE) {
        let relative = placeholders.apply(file.path);
        write_file(&args.dir, &relative, &placeholders.apply_bytes(file.bytes))?;
        written.push(relative);
    }
    write_file(&args.dir, PROJECT_WIT_PATH, newest_wit()?.as_bytes())?;
    written.push(PROJECT_WIT_PATH.to_owned());
    written.sort();
    println!(
        "wrote a {lang} {kind} plugin `{id}` (contract {}) in {}:",
        ContractVersion::NEWEST.number(),
        args.dir.display()
    );
    for path in &written {
        println!("  {path}");
    }
    println!("next:");
    println!(
        "  cd {} && {}",
        shell_word(&args.dir.display().to_string()),
        settings.build
    );
    println!(
        "  cm plugin add {}",
        shell_word(&args.dir.join(&settings.output).display().to_string())
    );
    Ok(())
}

/// The languages with a template for `kind`, sorted.
fn languages_for(kind: &str) -> Vec<&'static str> {
    let suffix = format!("-{kind}");
    let mut languages: Vec<&str> = TEMPLATE_FILES
        .iter()
        .filter_map(|f| f.template.strip_suffix(suffix.as_str()))
        .collect();
    languages.sort_unstable();
    languages.dedup();
    if languages.is_empty() {
        languages.push("none in this build");
    }
    languages
}

/// An id as given with `--id`: taken as it is or refused, never silently changed.
fn checked_id(id: &str) -> anyhow::Result<String> {
    let valid = id.len() <= ID_MAX_CHARS
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if valid {
        Ok(id.to_owned())
    } else {
        // It names the package, the crate or module and `cm hook <id>`: every toolchain
        // and the registry must accept it as it is.
        bail!(
            "id {id:?} must be 1-{ID_MAX_CHARS} characters of a-z, 0-9, '-' or '_', starting with a letter"
        )
    }
}

/// The id a directory's name gives: lower-cased, every other character a `-`, runs of
/// `-` collapsed, cut to start with a letter and end with a letter or digit.
fn id_from_dir(dir: &Path) -> anyhow::Result<String> {
    // `.` (an empty directory made beforehand) is named by what it resolves to.
    let resolved = dir.canonical().unwrap_or_else(|_| dir.to_path_buf());
    let name = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut id = String::new();
    for c in name.to_lowercase().chars() {
        let kept = if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' {
            c
        } else {
            '-'
        };
        if !(kept == '-' && id.ends_with('-')) {
            id.push(kept);
        }
    }
    let id = id
        .trim_start_matches(|c: char| !c.is_ascii_lowercase())
        .trim_end_matches(['-', '_']);
    let id: String = id.chars().take(ID_MAX_CHARS).collect();
    let id = id.trim_end_matches(['-', '_']).to_owned();
    if id.is_empty() {
        bail!("cannot make a plugin id of the directory name {name:?}; give one with --id <id>");
    }
    Ok(id)
}

fn refuse_non_empty(dir: &Path) -> anyhow::Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!(
                    "{} is not empty; give a new directory so nothing of yours is overwritten",
                    dir.display()
                );
            }
            Ok(())
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if dir.exists() && !dir.is_dir() => {
            bail!("{} exists and is not a directory", dir.display())
        }
        Err(err) => bail!("cannot read {}: {err}", dir.display()),
    }
}

/// The template's `template.toml`, its placeholders replaced.
fn settings_of(
    template: &str,
    files: &[&TemplateFile],
    placeholders: &Placeholders,
) -> anyhow::Result<TemplateSettings> {
    let file = files
        .iter()
        .find(|f| f.path == TEMPLATE_SETTINGS_FILE)
        .ok_or_else(|| anyhow!("template {template} has no {TEMPLATE_SETTINGS_FILE}"))?;
    let text = std::str::from_utf8(file.bytes)
        .map_err(|_| anyhow!("{template}/{TEMPLATE_SETTINGS_FILE} is not UTF-8"))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| anyhow!("{template}/{TEMPLATE_SETTINGS_FILE} is not valid TOML: {e}"))?;
    let field = |name: &str| {
        table
            .get(name)
            .and_then(toml::Value::as_str)
            .map(|value| placeholders.apply(value))
            .ok_or_else(|| anyhow!("{template}/{TEMPLATE_SETTINGS_FILE} has no `{name}` string"))
    };
    Ok(TemplateSettings {
        build: field("build")?,
        output: field("output")?,
    })
}

fn newest_wit() -> anyhow::Result<&'static str> {
    let newest = ContractVersion::NEWEST.number();
    CONTRACT_WITS
        .iter()
        .find(|(version, _)| *version == newest)
        .map(|(_, text)| *text)
        .ok_or_else(|| anyhow!("this cm was built without wit/plugin@{newest}/plugin.wit"))
}

fn write_file(dir: &Path, relative: &str, bytes: &[u8]) -> anyhow::Result<()> {
    let path = dir.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(&path, bytes).map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}

/// The values of a template's placeholders.
struct Placeholders {
    pairs: [(&'static str, String); 3],
}

impl Placeholders {
    fn new(id: &str) -> Self {
        Self {
            pairs: [
                ("{{id}}", id.to_owned()),
                // Module and crate names (Rust, Python) take no `-`.
                ("{{id_snake}}", id.replace('-', "_")),
                ("{{contract}}", ContractVersion::NEWEST.number().to_owned()),
            ],
        }
    }

    fn apply(&self, text: &str) -> String {
        self.pairs
            .iter()
            .fold(text.to_owned(), |text, (placeholder, value)| {
                text.replace(placeholder, value)
            })
    }

    /// Text files get their placeholders replaced; any other file is copied as it is.
    fn apply_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.apply(text).into_bytes(),
            Err(_) => bytes.to_vec(),
        }
    }
}

/// A path as one word of a shell line: bare when safe, else single-quoted.
fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c));
    if safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_directory_names() {
        for (dir, id) in [
            ("my-policy", "my-policy"),
            ("/tmp/x/My Agent", "my-agent"),
            ("Team_Rules.v2", "team_rules-v2"),
            ("2fast", "fast"),
            ("--a--b--", "a-b"),
        ] {
            assert_eq!(id_from_dir(Path::new(dir)).unwrap(), id, "{dir}");
        }
        for dir in ["", "/", "1234", "---", "éé"] {
            let err = id_from_dir(Path::new(dir)).unwrap_err().to_string();
            assert!(err.contains("--id"), "{dir}: {err}");
        }
    }

    #[test]
    fn a_given_id_is_checked_not_changed() {
        assert_eq!(checked_id("ask-before-push").unwrap(), "ask-before-push");
        for bad in ["", "My-Id", "1abc", "a b", "a.b", &"a".repeat(65)] {
            let err = checked_id(bad).unwrap_err().to_string();
            assert!(err.contains("starting with a letter"), "{bad}: {err}");
        }
    }

    #[test]
    fn placeholders_are_replaced_in_text() {
        let p = Placeholders::new("my-rules");
        assert_eq!(
            p.apply("{{id}} {{id_snake}} @{{contract}}"),
            format!("my-rules my_rules @{}", ContractVersion::NEWEST.number())
        );
        assert_eq!(p.apply_bytes(&[0xff, b'{']), vec![0xff, b'{']);
    }

    #[test]
    fn every_embedded_template_has_its_settings_and_the_newest_wit_is_embedded() {
        assert!(
            newest_wit()
                .unwrap()
                .contains("package context-mode:plugin@")
        );
        let mut templates: Vec<&str> = TEMPLATE_FILES.iter().map(|f| f.template).collect();
        templates.dedup();
        assert!(templates.contains(&"rust-policy") && templates.contains(&"rust-adapter"));
        for template in templates {
            let files: Vec<&TemplateFile> = TEMPLATE_FILES
                .iter()
                .filter(|f| f.template == template)
                .collect();
            let settings = settings_of(template, &files, &Placeholders::new("x-y")).unwrap();
            assert!(!settings.build.is_empty(), "{template}");
            assert!(settings.output.ends_with(".wasm"), "{template}");
            assert!(
                !files.iter().any(|f| f.path.starts_with("wit/")),
                "{template} carries its own WIT; cm plugin new writes it"
            );
            let readme = files
                .iter()
                .find(|f| f.path == "README.md")
                .map(|f| Placeholders::new("x-y").apply_bytes(f.bytes));
            let readme = String::from_utf8(readme.expect("a README.md")).unwrap();
            assert!(
                readme.contains(&settings.build),
                "{template}: README.md must show the build line of template.toml: {}",
                settings.build
            );
        }
    }

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("./my-policy"), "./my-policy");
        assert_eq!(shell_word("/tmp/a b"), "'/tmp/a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}

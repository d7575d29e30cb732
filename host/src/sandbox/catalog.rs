//! The runtime catalog: one TOML file per language (`runtimes/*.toml` at the repo
//! root, documented in `runtimes/README.md`), embedded at build time so the
//! installed `cm` is a single binary, plus optional user files that replace or
//! add languages without a rebuild.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// The embedded runtime files. Adding a language = adding its file to
/// `runtimes/` and one line here (a test checks that the two agree).
const EMBEDDED: &[(&str, &str)] = &[
    (
        "javascript",
        include_str!("../../../runtimes/javascript.toml"),
    ),
    (
        "typescript",
        include_str!("../../../runtimes/typescript.toml"),
    ),
    ("python", include_str!("../../../runtimes/python.toml")),
    ("shell", include_str!("../../../runtimes/shell.toml")),
    ("ruby", include_str!("../../../runtimes/ruby.toml")),
    ("go", include_str!("../../../runtimes/go.toml")),
    ("rust", include_str!("../../../runtimes/rust.toml")),
    ("php", include_str!("../../../runtimes/php.toml")),
    ("perl", include_str!("../../../runtimes/perl.toml")),
    ("r", include_str!("../../../runtimes/r.toml")),
    ("elixir", include_str!("../../../runtimes/elixir.toml")),
    ("csharp", include_str!("../../../runtimes/csharp.toml")),
];

/// How to run one language: the parsed form of a `runtimes/<lang>.toml` file.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RuntimeSpec {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub extension: String,
    pub candidates: Vec<Candidate>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub source: SourceRules,
    #[serde(default)]
    pub file: FileRules,
    /// How to install the language, by package manager (`apt`, `dnf`, `brew`, `other`);
    /// `cm doctor` shows the one that fits this machine.
    #[serde(default)]
    pub install: BTreeMap<String, String>,
    /// Under confinement (`CONTEXT_MODE_CONFINE`), the caches this runtime may write
    /// besides the project and its temp dir: `"$GOCACHE|~/.cache/go-build"` takes the
    /// first alternative that resolves (ADR 0026).
    #[serde(default)]
    pub confine_write: Vec<String>,
}

/// One program that can run the language, in order of preference.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    pub command: String,
    pub run: Vec<String>,
    #[serde(default)]
    pub compile: Option<Vec<String>>,
    #[serde(default)]
    pub extension: Option<String>,
    #[serde(default)]
    pub probe: Option<Probe>,
    /// argv that prints the version, for `cm doctor` (default `{cmd} --version`).
    #[serde(default)]
    pub version: Option<Vec<String>>,
    /// The systems this candidate is for (`linux`, `macos`, `windows`); every one when
    /// absent. Detection skips a candidate for another system.
    #[serde(default)]
    pub os: Option<Vec<String>>,
    /// A named way to find the program instead of a `PATH` lookup of `command`:
    /// `git-bash` is Git for Windows' bash (see [`super::detect::Lookup::git_bash`]).
    #[serde(default)]
    pub locate: Option<String>,
    /// Said once when this candidate runs, and by `cm doctor` as a warning: a fallback
    /// the user should know about (e.g. `shell` in PowerShell without Git Bash).
    #[serde(default)]
    pub note: Option<String>,
    /// Replace `source.prelude` and `file.prelude` for this candidate (a fallback of
    /// another language, e.g. PowerShell or `cmd.exe` for `shell`).
    #[serde(default)]
    pub source_prelude: Option<String>,
    #[serde(default)]
    pub file_prelude: Option<String>,
}

/// The systems a candidate's `os` may name.
pub const OS_NAMES: [&str; 3] = ["linux", "macos", "windows"];

/// The names `locate` knows.
pub const LOCATORS: [&str; 1] = ["git-bash"];

/// A check run once, lazily, before a candidate is trusted (e.g. a minimum version).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    pub argv: Vec<String>,
    pub min_version: String,
    /// What the minimum is for ("type stripping"), said when a program falls short.
    #[serde(default)]
    pub why: Option<String>,
}

/// How the submitted code becomes a source file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SourceRules {
    #[serde(default)]
    pub prelude: String,
    #[serde(default)]
    pub header_prefixes: Vec<String>,
    #[serde(default)]
    pub wrap: Option<Wrap>,
}

/// A template for code that is a fragment rather than a whole program.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Wrap {
    #[serde(default)]
    pub unless_contains: Vec<String>,
    #[serde(default)]
    pub unless_starts_with: Vec<String>,
    pub template: String,
}

/// How `ctx_execute_file` exposes the file to the script.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileRules {
    #[serde(default)]
    pub prelude: String,
    #[serde(default)]
    pub prelude_unwrapped: Option<String>,
    #[serde(default)]
    pub companion: Option<String>,
}

/// Why a runtime file was rejected.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("runtime file {file}: {reason}")]
    Invalid { file: String, reason: String },
}

impl RuntimeSpec {
    /// Parses and checks one runtime file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<RuntimeSpec, CatalogError> {
        let invalid = |reason: String| CatalogError::Invalid {
            file: file.to_string(),
            reason,
        };
        let spec: RuntimeSpec =
            toml::from_str(text).map_err(|e| invalid(e.message().to_string()))?;
        if spec.name.trim().is_empty() || spec.name != spec.name.to_ascii_lowercase() {
            return Err(invalid("`name` must be a non-empty lower-case name".into()));
        }
        if spec.candidates.is_empty() {
            return Err(invalid(
                "at least one [[candidates]] entry is needed".into(),
            ));
        }
        for candidate in &spec.candidates {
            if candidate.run.is_empty() {
                return Err(invalid(format!(
                    "candidate {:?} has an empty `run`",
                    candidate.command
                )));
            }
            if let Some(os) = candidate
                .os
                .iter()
                .flatten()
                .find(|o| !OS_NAMES.contains(&o.as_str()))
            {
                return Err(invalid(format!(
                    "candidate {:?}: unknown os {os:?} (known: {})",
                    candidate.command,
                    OS_NAMES.join(", ")
                )));
            }
            if let Some(locate) = candidate
                .locate
                .as_ref()
                .filter(|l| !LOCATORS.contains(&l.as_str()))
            {
                return Err(invalid(format!(
                    "candidate {:?}: unknown locate {locate:?} (known: {})",
                    candidate.command,
                    LOCATORS.join(", ")
                )));
            }
            if candidate.compile.as_ref().is_some_and(Vec::is_empty) {
                return Err(invalid(format!(
                    "candidate {:?} has an empty `compile`",
                    candidate.command
                )));
            }
        }
        if spec
            .source
            .wrap
            .as_ref()
            .is_some_and(|w| !w.template.contains("{code}"))
        {
            return Err(invalid("`source.wrap.template` must contain {code}".into()));
        }
        Ok(spec)
    }

    /// Whether `name` (already lower-cased and trimmed) names this language.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// The embedded runtimes, in the table's order. The embedded files are part of
/// the build, so a parse failure is a bug caught by this module's tests; such a
/// file is skipped (and logged) rather than taking the server down.
pub fn embedded() -> Vec<RuntimeSpec> {
    EMBEDDED
        .iter()
        .filter_map(|(name, text)| match RuntimeSpec::parse(name, text) {
            Ok(spec) => Some(spec),
            Err(e) => {
                tracing::error!("{e}");
                None
            }
        })
        .collect()
}

/// The embedded runtimes, with each `*.toml` of `user_dir` (when it exists)
/// replacing the language of the same name or adding a new one. A bad user file
/// is logged and skipped.
pub fn load(user_dir: Option<&Path>) -> Vec<RuntimeSpec> {
    let mut specs = embedded();
    let Some(dir) = user_dir else { return specs };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return specs;
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for path in files {
        let shown = path.display().to_string();
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| CatalogError::Invalid {
                file: shown.clone(),
                reason: e.to_string(),
            })
            .and_then(|text| RuntimeSpec::parse(&shown, &text));
        match parsed {
            Ok(spec) => match specs.iter_mut().find(|s| s.name == spec.name) {
                Some(existing) => *existing = spec,
                None => specs.push(spec),
            },
            Err(e) => tracing::warn!("{e}"),
        }
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUIRED: [&str; 12] = [
        "javascript",
        "typescript",
        "python",
        "shell",
        "ruby",
        "go",
        "rust",
        "php",
        "perl",
        "r",
        "elixir",
        "csharp",
    ];

    #[test]
    fn every_embedded_file_parses_and_the_twelve_are_there() {
        for (name, text) in EMBEDDED {
            let spec = RuntimeSpec::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&spec.name, name, "table key and file name disagree");
        }
        let names: Vec<String> = embedded().into_iter().map(|s| s.name).collect();
        assert_eq!(names, REQUIRED);
    }

    #[test]
    fn the_table_lists_every_file_of_the_runtimes_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtimes");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".toml")
                    .map(str::to_string)
            })
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = EMBEDDED.iter().map(|(n, _)| n.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed);
    }

    #[test]
    fn aliases_are_unique_across_languages() {
        let specs = embedded();
        let mut seen = std::collections::HashMap::new();
        for spec in &specs {
            for name in std::iter::once(&spec.name).chain(&spec.aliases) {
                let key = name.to_ascii_lowercase();
                if let Some(other) = seen.insert(key.clone(), spec.name.clone()) {
                    panic!("{key:?} names both {other} and {}", spec.name);
                }
            }
        }
    }

    #[test]
    fn bad_files_are_rejected_with_the_reason() {
        let err = RuntimeSpec::parse("x.toml", "name = \"x\"\nextension = \"x\"\ncandidates = []")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("runtime file x.toml: at least one [[candidates]] entry is needed")
        );
        assert!(RuntimeSpec::parse("y.toml", "name = \"y\"\nbogus = 1").is_err());
        let candidate = |extra: &str| {
            RuntimeSpec::parse(
                "z.toml",
                &format!("name = \"z\"\nextension = \"z\"\n[[candidates]]\ncommand = \"z\"\nrun = [\"{{cmd}}\"]\n{extra}\n"),
            )
            .err()
            .map(|e| e.to_string())
        };
        assert_eq!(
            candidate("os = [\"windows\", \"beos\"]").as_deref(),
            Some(
                "runtime file z.toml: candidate \"z\": unknown os \"beos\" (known: linux, macos, windows)"
            )
        );
        assert_eq!(
            candidate("locate = \"where\"").as_deref(),
            Some(
                "runtime file z.toml: candidate \"z\": unknown locate \"where\" (known: git-bash)"
            )
        );
        assert_eq!(candidate("os = [\"linux\"]\nlocate = \"git-bash\""), None);
    }

    #[test]
    fn user_files_replace_and_add_languages() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("perl.toml"),
            "name = \"perl\"\nextension = \"pl\"\n[[candidates]]\ncommand = \"perl6\"\nrun = [\"{cmd}\", \"{file}\"]\n",
        )
        .expect("write");
        std::fs::write(
            dir.path().join("lua.toml"),
            "name = \"lua\"\nextension = \"lua\"\n[[candidates]]\ncommand = \"lua\"\nrun = [\"{cmd}\", \"{file}\"]\n",
        )
        .expect("write");
        std::fs::write(dir.path().join("broken.toml"), "name = ").expect("write");
        let specs = load(Some(dir.path()));
        let perl = specs.iter().find(|s| s.name == "perl").expect("perl");
        assert_eq!(perl.candidates[0].command, "perl6");
        assert!(specs.iter().any(|s| s.name == "lua"));
        assert_eq!(specs.len(), 13);
    }
}

//! What the rules are shown for each ctx tool: the decoded parameters — exactly what
//! will run, be read or be fetched — never the agent's raw arguments. The lenient
//! decoders accept many shapes (a list as JSON text, one object for a list, bare
//! strings for requests); were the policy to decode the raw arguments itself, any shape
//! it reads differently from the host would run unchecked.

use std::path::Path;

use serde_json::{Value, json};

use crate::fetch::FetchAndIndexParams;
use crate::sandbox::{BatchExecuteParams, ExecuteFileParams, ExecuteParams, Runtimes};

/// `language` is the canonical name of the runtime that will run the code (see
/// [`canonical_language`]), so an alias the policy does not know (`nodejs`, `tsx`)
/// cannot pass JavaScript off as shell text.
pub(super) fn execute(params: &ExecuteParams, language: &str) -> Value {
    json!({ "language": language, "code": params.code, "cwd": params.cwd })
}

pub(super) fn execute_file(params: &ExecuteFileParams, language: &str, file: &Path) -> Value {
    json!({
        "path": file.to_string_lossy(),
        "language": language,
        "code": params.code,
    })
}

/// The runtime catalog's name for `language`; an unknown one stays as given (it
/// cannot run: the sandbox refuses it).
pub(super) fn canonical_language<'a>(runtimes: &'a Runtimes, language: &'a str) -> &'a str {
    runtimes.canonical_name(language).unwrap_or(language)
}

/// Each command exactly as the sandbox runs it, as `{label, command}`.
pub(super) fn batch_execute(params: &BatchExecuteParams) -> Value {
    let commands: Vec<Value> = params
        .commands
        .iter()
        .map(|c| json!({ "label": c.label, "command": c.command }))
        .collect();
    json!({ "commands": commands, "cwd": params.cwd })
}

/// Every URL that will be fetched, as `requests: [{url}]` (already normalised, see
/// [`FetchAndIndexParams::normalised`]).
pub(super) fn fetch_and_index(params: &FetchAndIndexParams) -> Value {
    let requests: Vec<Value> = params.urls().map(|url| json!({ "url": url })).collect();
    json!({ "requests": requests })
}

pub(super) fn index(path: &Path) -> Value {
    json!({ "path": path.to_string_lossy() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode<T: serde::de::DeserializeOwned>(raw: &str) -> T {
        serde_json::from_str(raw).expect("params")
    }

    #[test]
    fn a_batch_command_sent_as_object_text_is_shown_as_it_runs() {
        for raw in [
            r#"{"commands":"{\"label\":\"a\",\"command\":\"rm -rf x\"}"}"#,
            r#"{"commands":"   {\"label\":\"a\",\"command\":\"rm -rf x\"}"}"#,
            r#"{"commands":"[\"rm -rf x\"]"}"#,
            r#"{"commands":{"command":"rm -rf x"}}"#,
            r#"{"commands":"rm -rf x"}"#,
        ] {
            let params: BatchExecuteParams = decode(raw);
            assert_eq!(
                batch_execute(&params)["commands"][0]["command"],
                "rm -rf x",
                "{raw}"
            );
        }
    }

    #[test]
    fn a_language_alias_is_shown_as_the_runtime_it_names() {
        let runtimes = Runtimes::detect();
        for (alias, canonical) in [
            ("nodejs", "javascript"),
            ("TSX", "typescript"),
            ("shell-script", "shell"),
            ("dotnet", "csharp"),
            ("python3", "python"),
        ] {
            assert_eq!(canonical_language(&runtimes, alias), canonical, "{alias}");
        }
        assert_eq!(canonical_language(&runtimes, "cobol"), "cobol");
    }

    #[test]
    fn every_url_to_fetch_is_listed_normalised() {
        let params: FetchAndIndexParams = decode(
            r#"{"url":["http://2130706433/a"," http://0x7f.1/b"],"requests":["http://127.1/c",{"url":"http://[::ffff:127.0.0.1]/d"}]}"#,
        );
        let shown = fetch_and_index(&params.normalised());
        assert_eq!(
            shown["requests"],
            json!([
                {"url": "http://127.0.0.1/a"},
                {"url": "http://127.0.0.1/b"},
                {"url": "http://127.0.0.1/c"},
                {"url": "http://[::ffff:7f00:1]/d"},
            ])
        );
    }
}

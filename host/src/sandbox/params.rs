//! Inputs of `ctx_execute`, `ctx_execute_file` and `ctx_batch_execute`, named as
//! in the upstream project, accepted leniently (see `crate::lenient`).

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use super::batch::BatchCommand;

/// `ctx_execute`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ExecuteParams {
    /// Runtime: javascript, typescript, python, shell, ruby, go, rust, php, perl, r, elixir, csharp (or an alias such as js, ts, py, sh, bash).
    pub language: String,
    /// Source code to run; only what it prints comes back.
    pub code: String,
    /// Time limit in milliseconds (default and maximum 600000).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub timeout: Option<u64>,
    /// What you are looking for; large output is indexed and only the matching parts return.
    #[serde(default)]
    pub intent: Option<String>,
    /// Working directory inside the project (relative or absolute); default the project root.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Leave the process running when the timeout passes and return what it printed so far (dev servers, watchers).
    #[serde(default, deserialize_with = "crate::lenient::opt_bool")]
    pub background: Option<bool>,
}

/// `ctx_execute_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ExecuteFileParams {
    /// File to process; its content never enters the context.
    pub path: String,
    /// Runtime, as for ctx_execute.
    pub language: String,
    /// Code that uses FILE_CONTENT (the file's text) and FILE_CONTENT_PATH / FILE_PATH / file_path (its absolute path); Rust and Elixir use lower case: file_content, file_content_path, file_path.
    pub code: String,
    /// Time limit in milliseconds (default and maximum 600000).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub timeout: Option<u64>,
    /// What you are looking for; large output is indexed and only the matching parts return.
    #[serde(default)]
    pub intent: Option<String>,
}

/// `ctx_batch_execute`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct BatchExecuteParams {
    /// Shell commands, each {label, command}; a plain string is accepted too.
    #[serde(deserialize_with = "crate::lenient::item_list")]
    pub commands: Vec<BatchCommand>,
    /// Questions answered from the indexed output of all commands.
    #[serde(default, deserialize_with = "crate::lenient::string_list")]
    pub queries: Vec<String>,
    /// Time budget in milliseconds shared by all commands (default and maximum 600000).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub timeout: Option<u64>,
    /// Commands run at once, 1 to 8 (default 1: in order).
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub concurrency: Option<u64>,
    /// Working directory inside the project; default the project root.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Search only this batch's output (batch, default) or the whole index (global).
    #[serde(default)]
    pub query_scope: Option<QueryScope>,
}

/// Where `ctx_batch_execute` answers its queries from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueryScope {
    /// Only the output of this batch.
    #[default]
    Batch,
    /// Everything indexed for the project.
    Global,
}

impl<'de> Deserialize<'de> for QueryScope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        match text.trim().to_ascii_lowercase().as_str() {
            "batch" | "" => Ok(QueryScope::Batch),
            "global" | "all" | "project" => Ok(QueryScope::Global),
            other => Err(serde::de::Error::custom(format!(
                "query_scope must be batch or global, got {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_inputs_are_accepted_leniently() {
        let p: ExecuteParams = serde_json::from_str(
            r#"{"language":"py","code":"print(1)","timeout":"5000","background":"true"}"#,
        )
        .expect("execute");
        assert_eq!((p.timeout, p.background), (Some(5000), Some(true)));

        let b: BatchExecuteParams = serde_json::from_str(
            r#"{"commands":"[{\"label\":\"a\",\"command\":\"ls\"}]","queries":"errors","concurrency":"3","query_scope":"GLOBAL"}"#,
        )
        .expect("batch");
        assert_eq!(b.commands[0].label, "a");
        assert_eq!(b.queries, vec!["errors"]);
        assert_eq!(
            (b.concurrency, b.query_scope),
            (Some(3), Some(QueryScope::Global))
        );

        let f: ExecuteFileParams =
            serde_json::from_str(r#"{"path":"a.log","language":"shell","code":"wc -l"}"#)
                .expect("file");
        assert_eq!((f.path.as_str(), f.timeout), ("a.log", None));
    }

    #[test]
    fn schemas_name_the_upstream_parameters() {
        let schema =
            serde_json::to_value(schemars::schema_for!(BatchExecuteParams)).expect("schema");
        let properties = schema["properties"].as_object().expect("properties");
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "commands",
                "concurrency",
                "cwd",
                "queries",
                "query_scope",
                "timeout"
            ]
        );
        assert_eq!(schema["required"], serde_json::json!(["commands"]));
        let execute = serde_json::to_value(schemars::schema_for!(ExecuteParams)).expect("schema");
        assert_eq!(execute["required"], serde_json::json!(["language", "code"]));
        assert!(
            execute["properties"]["timeout"]["description"]
                .as_str()
                .is_some()
        );
    }
}

//! One `tools/call`: its arguments decoded into the tool's parameter struct, then run.
//! Decoding is separate so every registered tool's decoding can be thrown generated
//! arguments (property tests below) without running anything.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::fetch::FetchAndIndexParams;
use crate::sandbox::{BatchExecuteParams, ExecuteFileParams, ExecuteParams};
use crate::search::{IndexParams, PurgeParams, SearchParams};
use crate::service::{
    self, DoctorParams, InsightParams, Reply, ResumeParams, Service, StatsParams, UpgradeParams,
};

/// A tool call whose arguments fit the tool's parameters.
#[derive(Debug)]
pub enum ToolCall {
    Execute(ExecuteParams),
    ExecuteFile(ExecuteFileParams),
    BatchExecute(BatchExecuteParams),
    FetchAndIndex(FetchAndIndexParams),
    Index(IndexParams),
    Search(SearchParams),
    Purge(PurgeParams),
    Resume(ResumeParams),
    Doctor(DoctorParams),
    Upgrade(UpgradeParams),
    Stats,
    Insight,
}

/// Why a call cannot run.
#[derive(Debug)]
pub enum Undecodable {
    /// No tool has this name: a protocol error (-32602) per the MCP spec.
    UnknownTool,
    /// The arguments don't fit: a tool result with `isError`, one line the model
    /// reads and corrects (MCP 2025-11-25: input validation errors are tool errors).
    Arguments(Reply),
}

impl ToolCall {
    pub fn decode(name: &str, raw: &Value) -> Result<ToolCall, Undecodable> {
        let call = match name {
            "ctx_execute" => ToolCall::Execute(parse(name, raw)?),
            "ctx_execute_file" => ToolCall::ExecuteFile(parse(name, raw)?),
            "ctx_batch_execute" => ToolCall::BatchExecute(parse(name, raw)?),
            "ctx_fetch_and_index" => ToolCall::FetchAndIndex(parse(name, raw)?),
            "ctx_index" => ToolCall::Index(parse(name, raw)?),
            "ctx_search" => ToolCall::Search(parse(name, raw)?),
            "ctx_purge" => ToolCall::Purge(parse(name, raw)?),
            "ctx_resume" => ToolCall::Resume(parse(name, raw)?),
            "ctx_doctor" => ToolCall::Doctor(parse(name, raw)?),
            "ctx_upgrade" => ToolCall::Upgrade(parse(name, raw)?),
            "ctx_stats" => parse::<StatsParams>(name, raw).map(|_| ToolCall::Stats)?,
            "ctx_insight" => parse::<InsightParams>(name, raw).map(|_| ToolCall::Insight)?,
            _ => return Err(Undecodable::UnknownTool),
        };
        Ok(call)
    }

    /// Runs the call. Dropping the future abandons it: a child process it started
    /// is killed with its group (the sandbox's guard), blocking store work finishes
    /// on its own and its result is discarded.
    pub async fn run(self, s: &Arc<Service>, raw: Value) -> Reply {
        let blocking = match self {
            ToolCall::Execute(p) => return service::execute(s, p, &raw).await,
            ToolCall::ExecuteFile(p) => return service::execute_file(s, p, &raw).await,
            ToolCall::BatchExecute(p) => return service::batch_execute(s, p, &raw).await,
            ToolCall::FetchAndIndex(p) => return service::fetch_and_index(s, p, &raw).await,
            blocking => blocking,
        };
        // SQLite work, and ctx_upgrade's reading of the source tree, are blocking:
        // kept off the async workers.
        let service = s.clone();
        let joined = tokio::task::spawn_blocking(move || match blocking {
            ToolCall::Index(p) => service::index(&service, p, &raw),
            ToolCall::Search(p) => service::search(&service, p),
            ToolCall::Purge(p) => service::purge(&service, p),
            ToolCall::Resume(p) => service::resume(&service, p),
            ToolCall::Doctor(p) => service::doctor(&service, p),
            ToolCall::Upgrade(p) => service::upgrade(p),
            ToolCall::Stats => service::stats(&service),
            ToolCall::Insight => service::insight(&service),
            ToolCall::Execute(_)
            | ToolCall::ExecuteFile(_)
            | ToolCall::BatchExecute(_)
            | ToolCall::FetchAndIndex(_) => {
                Reply::error("internal: an async tool on the blocking pool")
            }
        })
        .await;
        joined.unwrap_or_else(|e| Reply::error(format!("tool failed: {e}")))
    }
}

/// Arguments into a parameter struct; a failure is one line for the model.
/// Deserialized from the borrowed value: a large `content` is copied once, not cloned first.
fn parse<T: DeserializeOwned>(tool: &str, raw: &Value) -> Result<T, Undecodable> {
    T::deserialize(raw).map_err(|e| {
        Undecodable::Arguments(Reply::error(format!("{tool}: invalid arguments: {e}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Any JSON value, nested a few levels.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
            Just(Value::String("[\"a\", 1]".into())),
            Just(Value::String("{\"label\":\"x\"}".into())),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,8}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// An arguments object for `tool`: its own property names (and a stray one)
    /// with values of any type.
    fn arguments_for(tool: &super::super::tools::ToolSpec) -> impl Strategy<Value = Value> + use<> {
        let mut names: Vec<String> = tool
            .schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        names.push("unexpected".into());
        prop::collection::vec((prop::sample::select(names), any_json()), 0..6)
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64)
        ))]

        /// Every registered tool decodes any arguments object without panicking:
        /// into its parameters, or into one line the model reads.
        #[test]
        fn every_tool_decodes_generated_arguments_or_says_why_in_one_line(
            (name, raw) in prop::sample::select(super::super::tools::all().iter().map(|t| t.name).collect::<Vec<_>>())
                .prop_flat_map(|name| {
                    let tools = super::super::tools::all();
                    let tool = tools.iter().find(|t| t.name == name).expect("registered");
                    (Just(name), arguments_for(tool))
                })
        ) {
            match ToolCall::decode(name, &raw) {
                Ok(_) => {}
                Err(Undecodable::Arguments(reply)) => {
                    prop_assert!(reply.is_error);
                    prop_assert!(!reply.text.contains('\n'), "{}", reply.text);
                    prop_assert!(reply.text.starts_with(name), "{}", reply.text);
                }
                Err(Undecodable::UnknownTool) => prop_assert!(false, "{name} is registered"),
            }
        }

        /// Arguments that are not an object at all are refused the same way.
        #[test]
        fn non_object_arguments_are_one_line_refusals(raw in any_json().prop_filter("not an object", |v| !v.is_object())) {
            for tool in super::super::tools::all() {
                match ToolCall::decode(tool.name, &raw) {
                    Ok(_) => {}
                    Err(Undecodable::Arguments(reply)) => prop_assert!(!reply.text.contains('\n')),
                    Err(Undecodable::UnknownTool) => prop_assert!(false),
                }
            }
        }
    }

    #[test]
    fn every_registered_tool_is_decodable_and_nothing_else_is() {
        for tool in super::super::tools::all() {
            assert!(
                !matches!(
                    ToolCall::decode(tool.name, &Value::Object(Default::default())),
                    Err(Undecodable::UnknownTool)
                ),
                "{}",
                tool.name
            );
        }
        assert!(matches!(
            ToolCall::decode("ctx_nope", &Value::Null),
            Err(Undecodable::UnknownTool)
        ));
    }
}

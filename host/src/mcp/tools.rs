//! The registry of `ctx_*` tools: name, description, input schema and annotations.
//! Only tools that really work are registered.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};

use super::descriptions as d;
use crate::fetch::FetchAndIndexParams;
use crate::sandbox::{BatchExecuteParams, ExecuteFileParams, ExecuteParams};
use crate::search::{IndexParams, PurgeParams, SearchParams};
use crate::service::{DoctorParams, InsightParams, ResumeParams, StatsParams, UpgradeParams};

/// One registered tool.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Arc<JsonObject>,
    pub annotations: ToolAnnotations,
}

impl ToolSpec {
    pub fn to_tool(&self) -> Tool {
        Tool::new(self.name, self.description, self.schema.clone())
            .with_annotations(self.annotations.clone())
    }
}

/// Every tool `cm serve` offers.
pub fn all() -> Vec<ToolSpec> {
    vec![
        spec::<ExecuteParams>(
            "ctx_execute",
            d::CTX_EXECUTE,
            hints(false, false, false, true),
        ),
        spec::<ExecuteFileParams>(
            "ctx_execute_file",
            d::CTX_EXECUTE_FILE,
            hints(false, false, false, true),
        ),
        spec::<BatchExecuteParams>(
            "ctx_batch_execute",
            d::CTX_BATCH_EXECUTE,
            hints(false, false, false, true),
        ),
        spec::<IndexParams>("ctx_index", d::CTX_INDEX, hints(false, false, true, false)),
        spec::<SearchParams>("ctx_search", d::CTX_SEARCH, hints(true, false, true, false)),
        spec::<FetchAndIndexParams>(
            "ctx_fetch_and_index",
            d::CTX_FETCH_AND_INDEX,
            hints(false, false, true, true),
        ),
        spec::<PurgeParams>("ctx_purge", d::CTX_PURGE, hints(false, true, true, false)),
        spec::<ResumeParams>("ctx_resume", d::CTX_RESUME, hints(true, false, true, false)),
        spec::<DoctorParams>("ctx_doctor", d::CTX_DOCTOR, hints(true, false, true, false)),
        spec::<UpgradeParams>(
            "ctx_upgrade",
            d::CTX_UPGRADE,
            hints(true, false, true, false),
        ),
        spec::<StatsParams>("ctx_stats", d::CTX_STATS, hints(true, false, true, false)),
        // Writes (and rewrites) one report file under the data root; nothing else.
        spec::<InsightParams>(
            "ctx_insight",
            d::CTX_INSIGHT,
            hints(false, false, true, false),
        ),
    ]
}

fn spec<T: schemars::JsonSchema>(
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> ToolSpec {
    ToolSpec {
        name,
        description,
        schema: schema_of::<T>(),
        annotations,
    }
}

/// The JSON schema of a parameter struct, as MCP wants it (always an object schema).
fn schema_of<T: schemars::JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::schema_for!(T);
    let mut map = match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    map.entry("type").or_insert_with(|| "object".into());
    Arc::new(map)
}

/// Tool annotations: (read-only, destructive, idempotent, open-world).
fn hints(
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
) -> ToolAnnotations {
    ToolAnnotations::from_raw(
        None,
        Some(read_only),
        Some(destructive),
        Some(idempotent),
        Some(open_world),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_tool_follows_the_description_contract() {
        for tool in all() {
            assert!(tool.name.starts_with("ctx_"));
            assert_eq!(
                d::contract_violations(tool.name, tool.description),
                Vec::<String>::new(),
                "{}",
                tool.name
            );
            assert_eq!(
                tool.schema.get("type").and_then(|t| t.as_str()),
                Some("object"),
                "{}",
                tool.name
            );
        }
    }

    #[test]
    fn only_purge_is_destructive_and_only_insight_of_the_others_writes() {
        for tool in all() {
            assert_eq!(
                tool.annotations.destructive_hint,
                Some(tool.name == "ctx_purge"),
                "{}",
                tool.name
            );
            assert_eq!(
                tool.annotations.read_only_hint,
                Some(matches!(
                    tool.name,
                    "ctx_search" | "ctx_resume" | "ctx_doctor" | "ctx_upgrade" | "ctx_stats"
                )),
                "{}",
                tool.name
            );
        }
    }

    #[test]
    fn the_reports_are_idempotent_and_stay_local() {
        for tool in all()
            .iter()
            .filter(|t| matches!(t.name, "ctx_stats" | "ctx_insight"))
        {
            assert_eq!(
                tool.annotations.idempotent_hint,
                Some(true),
                "{}",
                tool.name
            );
            assert_eq!(
                tool.annotations.open_world_hint,
                Some(false),
                "{}",
                tool.name
            );
        }
        assert_eq!(
            all()
                .iter()
                .filter(|t| matches!(t.name, "ctx_stats" | "ctx_insight"))
                .count(),
            2
        );
    }
}

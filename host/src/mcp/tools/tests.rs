//! The registry: every tool's description, schema and annotations, and its decoding of
//! any arguments an agent may send.

use proptest::prelude::*;
use serde_json::Value;

use super::*;

#[test]
fn every_registered_tool_follows_the_description_contract() {
    for tool in all() {
        assert!(tool.name.starts_with("ctx_"));
        assert_eq!(
            contract::contract_violations(tool.name, tool.description),
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
fn names_are_unique() {
    let mut names = names();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "{names:?}");
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

#[test]
fn the_calls_that_carry_megabytes_are_bulk() {
    let bulk: Vec<&str> = all().iter().filter(|t| t.bulk).map(|t| t.name).collect();
    assert_eq!(
        bulk,
        [
            "ctx_execute",
            "ctx_execute_file",
            "ctx_batch_execute",
            "ctx_batch",
            "ctx_index",
            "ctx_fetch_and_index",
            "ctx_purge",
        ]
    );
}

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
fn arguments_for(tool: &ToolSpec) -> impl Strategy<Value = Value> + use<> {
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
        (name, raw) in prop::sample::select(names())
            .prop_flat_map(|name| {
                let tools = all();
                let tool = tools.iter().find(|t| t.name == name).expect("registered");
                (Just(name), arguments_for(tool))
            })
    ) {
        let tools = all();
        let tool = tools.iter().find(|t| t.name == name).expect("registered");
        match tool.decode(&raw) {
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
        for tool in all() {
            match tool.decode(&raw) {
                Ok(_) => {}
                Err(Undecodable::Arguments(reply)) => prop_assert!(!reply.text.contains('\n')),
                Err(Undecodable::UnknownTool) => prop_assert!(false),
            }
        }
    }
}

#[test]
fn only_registered_names_are_found() {
    let tools = all();
    for name in names() {
        assert!(lookup(&tools, name).is_ok(), "{name}");
    }
    assert!(matches!(
        lookup(&tools, "ctx_nope"),
        Err(Undecodable::UnknownTool)
    ));
}

#[test]
fn every_registered_tool_decodes_empty_arguments_or_says_why() {
    for tool in all() {
        assert!(
            !matches!(
                tool.decode(&Value::Object(Default::default())),
                Err(Undecodable::UnknownTool)
            ),
            "{}",
            tool.name
        );
    }
}

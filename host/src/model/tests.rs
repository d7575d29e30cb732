use super::{CTX_TOOLS, CtxToolNames};

#[test]
fn a_prefix_names_every_tool_and_is_recovered() {
    let names = CtxToolNames::with_prefix("mcp__context-mode__");
    assert_eq!(names.name("ctx_search"), "mcp__context-mode__ctx_search");
    assert_eq!(names.prefix(), "mcp__context-mode__");
    assert_eq!(names.iter().count(), CTX_TOOLS.len());
    assert_eq!(
        CtxToolNames::with_prefix("").name("ctx_execute"),
        "ctx_execute"
    );
}

#[test]
fn names_that_are_no_prefix_give_an_empty_one() {
    let names =
        CtxToolNames::from_fn(|tool| Ok::<_, ()>(format!("{}@ctx", tool.replace('_', "-"))))
            .expect("names");
    assert_eq!(names.name("ctx_execute"), "ctx-execute@ctx");
    assert_eq!(names.prefix(), "");
    // A tool the table does not know keeps its own name.
    assert_eq!(names.name("ctx_future"), "ctx_future");
    assert_eq!(CtxToolNames::from_fn(|_| Err::<String, _>("no")), Err("no"));
}

/// The table names every tool the MCP server registers, and nothing else.
#[test]
fn the_tool_table_is_the_servers_tool_list() {
    let served: Vec<&str> = crate::mcp::tools::all().iter().map(|t| t.name).collect();
    assert_eq!(served, CTX_TOOLS);
}

/// The guest SDK classifies a bare `ctx_*` name as ours from its own copy of the list
/// (guests cannot link the host); the copy must name exactly the tools the server has.
#[test]
fn the_guest_sdks_tool_list_names_the_same_tools() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters-wasm/sdk/src/tool_name.rs");
    let source = std::fs::read_to_string(&path).expect("the SDK's tool_name.rs");
    let list = source
        .split_once("pub const CTX_TOOLS: &[&str] = &[")
        .and_then(|(_, rest)| rest.split_once("];"))
        .map(|(list, _)| list)
        .expect("CTX_TOOLS in the SDK");
    let mut theirs: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
    let mut ours = CTX_TOOLS.to_vec();
    theirs.sort_unstable();
    ours.sort_unstable();
    assert_eq!(theirs, ours, "{}", path.display());
}

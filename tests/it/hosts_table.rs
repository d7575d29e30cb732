//! The README's table of agent hosts says what the built-in adapters say: one row per
//! built-in adapter, with its `cm hook` events and, per capability, the events whose reply
//! can express it (from each adapter's own descriptor). A new adapter without a row, or a
//! capability changed without the table, fails here with the row to paste.

use crate::common::{Sandbox, repo_root};
use cm::model::{Capabilities, Descriptor};

const TABLE_HEADING: &str = "## Agent hosts";

/// (column, flag), in the table's order after the `events` column.
const CAPABILITY_COLUMNS: &[(&str, Capabilities)] = &[
    ("block", Capabilities::BLOCK),
    ("ask", Capabilities::ASK),
    ("rewrite input", Capabilities::REWRITE_INPUT),
    ("rewrite output", Capabilities::REWRITE_OUTPUT),
    ("inject context", Capabilities::INJECT_CONTEXT),
];

fn events_with(descriptor: &Descriptor, flag: Capabilities) -> String {
    let events: Vec<&str> = descriptor
        .events
        .iter()
        .filter(|e| e.capabilities.contains(flag))
        .map(|e| e.native.as_str())
        .collect();
    if events.is_empty() {
        "–".to_owned()
    } else {
        events.join(", ")
    }
}

/// The cells the descriptor decides: id, events, one per capability.
fn expected_cells(descriptor: &Descriptor) -> Vec<String> {
    let events: Vec<&str> = descriptor
        .events
        .iter()
        .map(|e| e.native.as_str())
        .collect();
    let events = if events.is_empty() {
        "– (MCP only)".to_owned()
    } else {
        events.join(", ")
    };
    let mut cells = vec![format!("`{}`", descriptor.id), events];
    cells.extend(
        CAPABILITY_COLUMNS
            .iter()
            .map(|(_, flag)| events_with(descriptor, *flag)),
    );
    cells
}

/// The table's rows under [`TABLE_HEADING`], split into trimmed cells.
fn table_rows(readme: &str) -> Vec<Vec<String>> {
    let start = readme
        .find(TABLE_HEADING)
        .unwrap_or_else(|| panic!("README has no {TABLE_HEADING:?} section"));
    readme[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

#[test]
fn every_built_in_adapter_has_a_row_with_its_events_and_capabilities() {
    let sandbox = Sandbox::new();
    let agents = cm::setup::load_all(&sandbox.root).expect("adapters load");
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README");
    let rows = table_rows(&readme);
    let mut problems = Vec::new();
    for agent in &agents {
        let d = &agent.descriptor;
        let expected = expected_cells(d);
        let row = rows.iter().find(|row| row.get(1) == Some(&expected[0]));
        let wanted = format!(
            "| {} | {} | <registers in> | <checked against> |",
            d.display_name,
            expected.join(" | ")
        );
        match row {
            None => problems.push(format!("no row for {}: {wanted}", d.id)),
            Some(row) if row.get(1..1 + expected.len()) != Some(&expected[..]) => {
                problems.push(format!("row of {} differs; wanted {wanted}", d.id))
            }
            Some(_) => {}
        }
    }
    let ids: Vec<String> = agents
        .iter()
        .map(|a| format!("`{}`", a.descriptor.id))
        .collect();
    for row in &rows {
        if row.get(1).is_some_and(|id| !ids.contains(id)) {
            problems.push(format!("row for an adapter cm does not have: {row:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(agents.len() >= 4, "{} adapters", agents.len());
}

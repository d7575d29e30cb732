//! One realistic agent task per row: count, find, or summarise with an intent and search
//! afterwards. The script runs in the sandbox; the expected answer is computed here from
//! the same bytes, independently, and the task is correct only when the reply holds it.

mod data_tasks;
mod text_tasks;

use crate::bench_savings::agent::Agent;
use crate::bench_savings::corpora::Corpus;
use data_tasks::*;
use text_tasks::*;

pub struct Task {
    pub name: &'static str,
    pub run: fn(&mut Agent, &Corpus) -> Check,
}

/// Whether the answer the agent got is right, and what was expected.
pub struct Check {
    pub correct: bool,
    pub expected: String,
}

impl Check {
    /// The reply, trimmed, is exactly `expected`.
    pub fn exact(reply: &str, expected: String) -> Check {
        Check {
            correct: reply.trim() == expected,
            expected,
        }
    }

    /// Every one of `needles` appears in `replies`.
    pub fn contains_all(replies: &[&str], needles: &[String]) -> Check {
        let correct = !needles.is_empty()
            && needles
                .iter()
                .all(|n| replies.iter().any(|r| r.contains(n.as_str())));
        Check {
            correct,
            expected: needles.join(" | "),
        }
    }
}

pub fn tasks_for(corpus: &Corpus) -> Vec<Task> {
    let t = |name, run| Task { name, run };
    match corpus.name.as_str() {
        "access.log" => vec![
            t("count responses by status class", access_count),
            t("find paths with most 4xx/5xx", access_find),
            t("intent \"500\" + search \"403\"", access_intent),
        ],
        "analytics.csv" => vec![
            t("count events by status", analytics_count),
            t("find 3 slowest successful events", analytics_find),
            t("intent timeout + search a timestamp", analytics_intent),
        ],
        "git-log.txt" => vec![
            t("count commits per author", git_count),
            t("find first stripe commit", git_find),
            t("intent race condition + search tailwindcss", git_intent),
        ],
        "github-issues.json" => vec![
            t("count issues per label", issues_count),
            t("find issue with longest body", issues_find),
            t("intent devtools + search useDeferredValue", issues_intent),
        ],
        "mcp-tools.json" => vec![
            t("count tools and required params", tools_count),
            t("find tools with most parameters", tools_find),
            t("intent database migration + search docker", tools_intent),
        ],
        "playwright-snapshot.txt" => vec![
            t("count stories and comments", snapshot_count),
            t("find top story by points", snapshot_find),
            t("intent Show HN + search a site", snapshot_intent),
        ],
        "generated-app.log" => vec![
            t("count errors by class", app_count),
            t("find slowest requests", app_find),
            t("intent OutOfMemoryError + search deadlock", app_intent),
        ],
        "generated-orders.json" => vec![
            t("count orders by status, paid total", orders_count),
            t("find top customer by paid total", orders_find),
            t("intent chargeback + search an order id", orders_intent),
        ],
        other => panic!("no bench task for {other}: add one"),
    }
}

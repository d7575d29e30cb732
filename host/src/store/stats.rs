//! Per-call byte counts (what the agent would have received against what it did
//! receive) and hook timings.

use rusqlite::params;

use super::{Result, Store, now_ms};

/// Totals of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolStatsSummary {
    pub tool: String,
    pub calls: u64,
    pub raw_bytes: u64,
    pub returned_bytes: u64,
    pub cache_hits: u64,
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl Store {
    /// Records one tool call.
    pub fn record_tool_stats(
        &mut self,
        session_id: &str,
        tool: &str,
        raw_bytes: u64,
        returned_bytes: u64,
        cache_hit: bool,
    ) -> Result<()> {
        self.write(|tx| {
            tx.prepare_cached(
                "INSERT INTO tool_stats(session_id, tool, raw_bytes, returned_bytes, cache_hit, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                session_id,
                tool,
                to_i64(raw_bytes),
                to_i64(returned_bytes),
                cache_hit,
                now_ms()
            ])?;
            Ok(())
        })
    }

    /// Records hook runs' whole durations, `(platform, event, duration_us, at_ms)` each,
    /// in one transaction.
    pub fn record_hook_timings(&mut self, runs: &[(String, String, u64, i64)]) -> Result<()> {
        self.write(|tx| {
            let mut prune = false;
            for (platform, event, duration_us, at_ms) in runs {
                tx.prepare_cached(
                    "INSERT INTO hook_timings(platform, event, duration_us, created_at) VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![platform, event, to_i64(*duration_us), at_ms])?;
                prune |= super::reclaim::prunes_after(tx.last_insert_rowid());
            }
            if prune {
                super::reclaim::prune_hook_timings(tx)?;
            }
            Ok(())
        })
    }

    /// Records one hook run's whole duration.
    pub fn record_hook_timing(
        &mut self,
        platform: &str,
        event: &str,
        duration_us: u64,
    ) -> Result<()> {
        self.record_hook_timings(&[(platform.to_owned(), event.to_owned(), duration_us, now_ms())])
    }

    /// Per-tool totals for one session, or all time when `session_id` is `None`;
    /// largest raw total first.
    pub fn tool_stats_summary(&self, session_id: Option<&str>) -> Result<Vec<ToolStatsSummary>> {
        // Two statements: `?1 IS NULL OR session_id = ?1` would keep SQLite from using
        // the session index, and the status line reads one session of a long history.
        let mut stmt = self.conn.prepare_cached(if session_id.is_some() {
            "SELECT tool, count(*), sum(raw_bytes), sum(returned_bytes), sum(cache_hit)
             FROM tool_stats WHERE session_id = ?1
             GROUP BY tool ORDER BY sum(raw_bytes) DESC, tool"
        } else {
            "SELECT tool, count(*), sum(raw_bytes), sum(returned_bytes), sum(cache_hit)
             FROM tool_stats WHERE ?1 IS NULL
             GROUP BY tool ORDER BY sum(raw_bytes) DESC, tool"
        })?;
        let rows = stmt.query_map([session_id], |r| {
            Ok(ToolStatsSummary {
                tool: r.get(0)?,
                calls: to_u64(r.get(1)?),
                raw_bytes: to_u64(r.get(2)?),
                returned_bytes: to_u64(r.get(3)?),
                cache_hits: to_u64(r.get(4)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_totals_per_session_and_all_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
        store
            .record_tool_stats("a", "ctx_execute", 50_000, 500, false)
            .expect("1");
        store
            .record_tool_stats("a", "ctx_execute", 10_000, 100, false)
            .expect("2");
        store
            .record_tool_stats("b", "ctx_fetch_and_index", 9_000, 0, true)
            .expect("3");
        let a = store.tool_stats_summary(Some("a")).expect("a");
        assert_eq!(
            a,
            vec![ToolStatsSummary {
                tool: "ctx_execute".into(),
                calls: 2,
                raw_bytes: 60_000,
                returned_bytes: 600,
                cache_hits: 0
            }]
        );
        let all = store.tool_stats_summary(None).expect("all");
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].cache_hits, 1);
    }

    #[test]
    fn hook_durations_keep_the_newest_runs_per_event_sorted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
        for us in 1..=100 {
            store
                .record_hook_timing("claude-code", "pretooluse", us * 10)
                .expect("timing");
        }
        store
            .record_hook_timing("gemini-cli", "stop", 7)
            .expect("timing");
        let all = store.hook_durations(1000).expect("durations");
        assert_eq!(all.len(), 101);
        assert_eq!(
            (all[0].platform.as_str(), all[0].duration_us),
            ("claude-code", 10)
        );
        assert_eq!(
            (all[100].platform.as_str(), all[100].duration_us),
            ("gemini-cli", 7)
        );
        let newest = store.hook_durations(10).expect("durations");
        let claude: Vec<u64> = newest
            .iter()
            .filter(|d| d.platform == "claude-code")
            .map(|d| d.duration_us)
            .collect();
        assert_eq!(claude, (91..=100).map(|us| us * 10).collect::<Vec<_>>());
        assert_eq!(newest.len(), 11);
    }
}

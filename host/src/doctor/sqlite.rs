//! SQLite itself: its version, and whether FTS5 with both tokenizers the store uses
//! (`porter unicode61` and `trigram`) really indexes and answers a query.

use rusqlite::Connection;

use super::Check;

const NAME: &str = "sqlite + fts5";

/// Which step of the FTS5 probe failed.
#[derive(Debug, thiserror::Error)]
enum ProbeError {
    #[error("cannot open: {0}")]
    Open(rusqlite::Error),
    #[error("FTS5 tokenizer {tokenizer:?} unavailable: {error}")]
    Tokenizer {
        tokenizer: &'static str,
        error: rusqlite::Error,
    },
    #[error("FTS5 {tokenizer:?} query failed: {error}")]
    Query {
        tokenizer: &'static str,
        error: rusqlite::Error,
    },
    #[error("FTS5 {tokenizer:?} found {hits} rows for {query:?}, expected 1")]
    WrongHits {
        tokenizer: &'static str,
        query: &'static str,
        hits: i64,
    },
}

pub fn check() -> Check {
    let version = rusqlite::version();
    match probe() {
        Ok(()) => Check::pass(
            NAME,
            format!("SQLite {version}; FTS5 porter unicode61 and trigram index and match"),
        ),
        Err(problem) => Check::fail(
            NAME,
            format!("SQLite {version}: {problem}"),
            Some(crate::upgrade::reinstall_line()),
        ),
    }
}

fn probe() -> Result<(), ProbeError> {
    let conn = Connection::open_in_memory().map_err(ProbeError::Open)?;
    for (table, tokenizer, query) in [
        ("words", "porter unicode61", "running"),
        ("grams", "trigram", "ctx_exec"),
    ] {
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize = '{tokenizer}');
             INSERT INTO {table}(body) VALUES ('the runner runs ctx_execute');"
        ))
        .map_err(|error| ProbeError::Tokenizer { tokenizer, error })?;
        let hits: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM {table} WHERE {table} MATCH ?1"),
                [format!("\"{query}\"")],
                |row| row.get(0),
            )
            .map_err(|error| ProbeError::Query { tokenizer, error })?;
        if hits != 1 {
            return Err(ProbeError::WrongHits {
                tokenizer,
                query,
                hits,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bundled_sqlite_passes() {
        let row = super::check();
        assert_eq!(row.status, super::super::Status::Pass, "{}", row.detail);
    }
}

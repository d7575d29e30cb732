//! SQLite itself: its version, and whether FTS5 with both tokenizers the store uses
//! (`porter unicode61` and `trigram`) really indexes and answers a query.

use rusqlite::Connection;

use super::Check;

const NAME: &str = "sqlite + fts5";

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
            Some("cargo install --locked --force --path host   # in the context-mode checkout: rebuilds cm with its bundled SQLite".into()),
        ),
    }
}

fn probe() -> Result<(), String> {
    let conn = Connection::open_in_memory().map_err(|e| format!("cannot open: {e}"))?;
    for (table, tokenizer, query) in [
        ("words", "porter unicode61", "running"),
        ("grams", "trigram", "ctx_exec"),
    ] {
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize = '{tokenizer}');
             INSERT INTO {table}(body) VALUES ('the runner runs ctx_execute');"
        ))
        .map_err(|e| format!("FTS5 tokenizer {tokenizer:?} unavailable: {e}"))?;
        let hits: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM {table} WHERE {table} MATCH ?1"),
                [format!("\"{query}\"")],
                |row| row.get(0),
            )
            .map_err(|e| format!("FTS5 {tokenizer:?} query failed: {e}"))?;
        if hits != 1 {
            return Err(format!(
                "FTS5 {tokenizer:?} found {hits} rows for {query:?}, expected 1"
            ));
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

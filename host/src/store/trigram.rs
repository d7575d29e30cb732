//! `cm_trigram`, the FTS5 tokenizer of the substring index (`chunks_trigram`).
//!
//! It emits what SQLite's built-in `trigram` tokenizer emits (every run of three
//! characters, case-folded), with two differences:
//!
//! - Each token starts with two characters derived from a hash of the trigram. FTS5
//!   keeps pending terms in a hash table whose hash function barely mixes short keys:
//!   the 16,069 distinct trigrams of the 5 MB benchmark document fall into 2,730
//!   distinct hash values, so every insert walked chains of about five entries, each a
//!   cache miss and a `memcmp`. With the prefix they spread like whole words (1.3
//!   probes per lookup) and filling the index costs about 45 % less (ADR 10).
//! - Whitespace separates: the indexed text is one identifier per line, and a trigram
//!   across two identifiers would only ever match by accident.
//!
//! Queries go through the same tokenizer, so a quoted phrase `"useEff"` becomes the
//! phrase of its trigrams, exactly as with the built-in tokenizer. Fewer than three
//! characters give no token (and match nothing).

use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr;

use rusqlite::{Connection, ffi};

/// The name the substring table's `tokenize=` option uses (`schema::SUBSTRINGS_DDL`).
const TOKENIZER_NAME: &CStr = c"cm_trigram";

/// Characters a hash prefix is drawn from (printable, so `fts5vocab` rows stay text).
const PREFIX_ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// Registers `cm_trigram` on `conn`. Every connection that reads or writes the
/// substring table needs it: FTS5 resolves a table's tokenizer when it first opens it.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: `handle` is the live connection's pointer; it is only used for the calls
    // below, on this thread, while `conn` is borrowed.
    let db = unsafe { conn.handle() };
    let api = fts5_api(db)?;
    let mut tokenizer = ffi::fts5_tokenizer {
        xCreate: Some(x_create),
        xDelete: Some(x_delete),
        xTokenize: Some(x_tokenize),
    };
    // SAFETY: `api` came from this connection's `fts5()` function and lives as long as
    // the connection; FTS5 copies the tokenizer struct, so a stack value is fine.
    let rc = unsafe {
        match (*api).xCreateTokenizer {
            Some(create) => create(
                api,
                TOKENIZER_NAME.as_ptr(),
                ptr::null_mut(),
                &mut tokenizer,
                None,
            ),
            None => ffi::SQLITE_ERROR,
        }
    };
    check(rc, "cannot register the cm_trigram tokenizer")
}

/// The connection's `fts5_api` (the documented `SELECT fts5(?1)` handshake).
fn fts5_api(db: *mut ffi::sqlite3) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
    // SAFETY: plain SQLite C API use on a live handle; the statement is finalized on
    // every path and `api` outlives the step that writes it.
    unsafe {
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        check(rc, "FTS5 is not available")?;
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&raw mut api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
    }
    if api.is_null() {
        return Err(failure(ffi::SQLITE_ERROR, "FTS5 is not available"));
    }
    Ok(api)
}

fn check(rc: c_int, what: &str) -> rusqlite::Result<()> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(failure(rc, what))
    }
}

fn failure(rc: c_int, what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(what.to_string()))
}

/// The tokenizer has no state: every instance is this one address.
static INSTANCE: u8 = 0;

unsafe extern "C" fn x_create(
    _user_data: *mut c_void,
    _args: *mut *const c_char,
    n_args: c_int,
    out: *mut *mut ffi::Fts5Tokenizer,
) -> c_int {
    if n_args != 0 || out.is_null() {
        return ffi::SQLITE_ERROR;
    }
    // SAFETY: FTS5 passes a valid out-pointer; the instance is never written through.
    unsafe {
        *out = (&raw const INSTANCE)
            .cast_mut()
            .cast::<ffi::Fts5Tokenizer>()
    };
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_delete(_tokenizer: *mut ffi::Fts5Tokenizer) {}

type TokenCallback = unsafe extern "C" fn(
    ctx: *mut c_void,
    flags: c_int,
    token: *const c_char,
    n_token: c_int,
    start: c_int,
    end: c_int,
) -> c_int;

unsafe extern "C" fn x_tokenize(
    _tokenizer: *mut ffi::Fts5Tokenizer,
    ctx: *mut c_void,
    _flags: c_int,
    text: *const c_char,
    n_text: c_int,
    emit: Option<TokenCallback>,
) -> c_int {
    let Some(emit) = emit else {
        return ffi::SQLITE_ERROR;
    };
    let bytes: &[u8] = match usize::try_from(n_text) {
        // SAFETY: FTS5 passes `n_text` readable bytes at `text`, alive for this call.
        Ok(len) if len > 0 && !text.is_null() => unsafe {
            std::slice::from_raw_parts(text.cast::<u8>(), len)
        },
        _ => return ffi::SQLITE_OK,
    };
    // A panic must not unwind into C; it becomes an error for this statement.
    std::panic::catch_unwind(|| {
        let mut rc = ffi::SQLITE_OK;
        for_each_trigram(bytes, |token, start, end| {
            // Offsets fit: FTS5 texts are at most `c_int::MAX` bytes long.
            let (start, end) = (start as c_int, end as c_int);
            // SAFETY: `emit` and `ctx` are FTS5's, valid for this call; `token` lives
            // across the call.
            rc = unsafe {
                emit(
                    ctx,
                    0,
                    token.as_ptr().cast::<c_char>(),
                    token.len() as c_int,
                    start,
                    end,
                )
            };
            rc == ffi::SQLITE_OK
        });
        rc
    })
    .unwrap_or(ffi::SQLITE_ERROR)
}

/// Calls `emit(token, start, end)` for each trigram of each whitespace-separated run of
/// `text` (byte offsets into `text`), stopping when `emit` returns false. Invalid UTF-8
/// separates like whitespace.
pub fn for_each_trigram(text: &[u8], mut emit: impl FnMut(&[u8], usize, usize) -> bool) {
    // (folded char, byte offset of the source char) for the current run.
    let mut run: Vec<(char, usize)> = Vec::with_capacity(64);
    let mut token: Vec<u8> = Vec::with_capacity(16);
    let mut offset = 0;
    for chunk in text.utf8_chunks() {
        for (i, c) in chunk.valid().char_indices() {
            if c.is_whitespace() {
                if !flush(&run, offset + i, &mut token, &mut emit) {
                    return;
                }
                run.clear();
            } else {
                run.push((fold(c), offset + i));
            }
        }
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            if !flush(&run, offset, &mut token, &mut emit) {
                return;
            }
            run.clear();
            offset += chunk.invalid().len();
        }
    }
    flush(&run, offset, &mut token, &mut emit);
}

/// Emits the trigrams of one run that ends at byte `end`.
fn flush(
    run: &[(char, usize)],
    end: usize,
    token: &mut Vec<u8>,
    emit: &mut impl FnMut(&[u8], usize, usize) -> bool,
) -> bool {
    for (i, window) in run.windows(3).enumerate() {
        token.clear();
        token.extend_from_slice(b"..");
        let mut utf8 = [0u8; 4];
        for (c, _) in window {
            token.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
        let hash = fnv1a(&token[2..]);
        token[0] = PREFIX_ALPHABET[(hash % 36) as usize];
        token[1] = PREFIX_ALPHABET[((hash / 36) % 36) as usize];
        let start = window[0].1;
        let stop = run.get(i + 3).map_or(end, |next| next.1);
        if !emit(token, start, stop) {
            return false;
        }
    }
    true
}

/// One-to-one case folding (a character whose lowercase is several characters stays).
fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |hash, &b| {
        (hash ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trigrams(text: &str) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        for_each_trigram(text.as_bytes(), |token, start, end| {
            out.push((
                String::from_utf8_lossy(&token[2..]).into_owned(),
                start,
                end,
            ));
            true
        });
        out
    }

    fn table() -> Connection {
        let conn = Connection::open_in_memory().expect("db");
        register(&conn).expect("register");
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(body, content='', contentless_delete=1, tokenize='{}')",
            TOKENIZER_NAME.to_string_lossy()
        ))
        .expect("table");
        conn
    }

    fn hits(conn: &Connection, query: &str) -> Vec<i64> {
        let mut stmt = conn
            .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY rowid")
            .expect("prepare");
        stmt.query_map([query], |r| r.get(0))
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows")
    }

    #[test]
    fn trigrams_are_folded_split_at_whitespace_and_carry_byte_offsets() {
        assert_eq!(
            trigrams("AbCd\nxy\n日本語テ"),
            vec![
                ("abc".into(), 0, 3),
                ("bcd".into(), 1, 4),
                ("日本語".into(), 8, 17),
                ("本語テ".into(), 11, 20),
            ]
        );
        assert!(
            trigrams("ab cd").is_empty(),
            "runs under three characters give none"
        );
    }

    #[test]
    fn invalid_utf8_separates_and_never_panics() {
        let mut seen = Vec::new();
        for_each_trigram(b"abc\xffdef\xc3", |token, start, end| {
            seen.push((token[2..].to_vec(), start, end));
            true
        });
        assert_eq!(seen, vec![(b"abc".to_vec(), 0, 3), (b"def".to_vec(), 4, 7)]);
    }

    #[test]
    fn emitting_stops_when_the_callback_says_so() {
        let mut n = 0;
        for_each_trigram(b"abcdefgh ijklmnop", |_, _, _| {
            n += 1;
            n < 3
        });
        assert_eq!(n, 3);
    }

    #[test]
    fn phrase_queries_find_substrings_case_insensitively() {
        let conn = table();
        for (id, body) in [
            (1, "useLayoutEffect\nsrc/main.rs\n"),
            (2, "useEffect\nTS2339\n"),
            (3, "日本語テキスト\n"),
        ] {
            conn.execute("INSERT INTO t(rowid, body) VALUES (?1, ?2)", (id, body))
                .expect("insert");
        }
        assert_eq!(hits(&conn, "\"useEff\""), vec![2]);
        assert_eq!(hits(&conn, "\"LAYOUTEFF\""), vec![1]);
        assert_eq!(hits(&conn, "\"Effect\""), vec![1, 2]);
        assert_eq!(hits(&conn, "\"c/main.r\""), vec![1]);
        assert_eq!(hits(&conn, "\"2339\""), vec![2]);
        assert_eq!(hits(&conn, "\"本語テ\""), vec![3]);
        assert_eq!(hits(&conn, "\"effectus\""), Vec::<i64>::new());
        assert_eq!(hits(&conn, "\"xyzzy\" OR \"2339\""), vec![2]);
    }

    #[test]
    fn a_connection_without_the_tokenizer_cannot_use_the_table() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.db");
        {
            let conn = Connection::open(&path).expect("db");
            register(&conn).expect("register");
            conn.execute_batch(
                "CREATE VIRTUAL TABLE t USING fts5(body, tokenize='cm_trigram');
                 INSERT INTO t(body) VALUES ('someIdentifier');",
            )
            .expect("table");
        }
        let bare = Connection::open(&path).expect("reopen");
        let err = bare
            .query_row(
                "SELECT count(*) FROM t WHERE t MATCH '\"ident\"'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .expect_err("unknown tokenizer");
        assert!(err.to_string().contains("cm_trigram"), "{err}");
        register(&bare).expect("register");
        let n: i64 = bare
            .query_row(
                "SELECT count(*) FROM t WHERE t MATCH '\"ident\"'",
                [],
                |r| r.get(0),
            )
            .expect("query with the tokenizer");
        assert_eq!(n, 1);
    }
}

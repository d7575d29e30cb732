//! Indexing a text as one source, and the distinctive terms of a source (the
//! "searchable terms" a reply can list after indexing large output).

use std::collections::HashMap;

use super::query::is_stopword;
use crate::chunk::{Format, chunk_text};
use crate::limits::INDEX_PARALLEL_MIN_BYTES;
use crate::store::{IndexedSource, NewSource, Store, StoreError};

/// Chunks `text` as `format` and stores it as `source` (its `bytes` set from `text`;
/// pass a `content_hash` when the caller will look the source up by it).
pub fn index_document(
    store: &mut Store,
    source: NewSource<'_>,
    text: &str,
    format: Format,
) -> Result<IndexedSource, StoreError> {
    let chunks = chunk_text(text, format);
    let mut source = source;
    source.bytes = text.len();
    let indexed = store.index_source(&source, &chunks);
    // Freeing thousands of chunk strings takes milliseconds the reply need not wait for.
    if text.len() >= INDEX_PARALLEL_MIN_BYTES {
        std::thread::spawn(move || drop(chunks));
    }
    indexed
}

/// Up to `n` words that characterize a source: frequent in it, spread over several of
/// its chunks, not stopwords or numbers, preferring words in its titles.
pub fn distinctive_terms(
    store: &Store,
    source_id: i64,
    n: usize,
) -> Result<Vec<String>, StoreError> {
    let chunks = store.source_chunks(source_id)?;
    let mut counts: HashMap<String, (u32, u32, usize)> = HashMap::new(); // tf, chunks seen in, last chunk
    for (i, (title, content)) in chunks.iter().enumerate() {
        for (text, weight) in [(title.as_str(), 3), (content.as_str(), 1)] {
            for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if word.len() < 4
                    || word.len() > 40
                    || word.chars().all(|c| c.is_ascii_digit() || c == '_')
                {
                    continue;
                }
                let lower = word.to_lowercase();
                if is_stopword(&lower) {
                    continue;
                }
                let entry = counts.entry(lower).or_insert((0, 0, usize::MAX));
                entry.0 += weight;
                if entry.2 != i {
                    entry.1 += 1;
                    entry.2 = i;
                }
            }
        }
    }
    let spread_chunks = chunks.len().max(1) as f64;
    let mut scored: Vec<(f64, String)> = counts
        .into_iter()
        .map(|(word, (tf, seen_in, _))| {
            // Words in every chunk say little about where to look: favour the middle.
            let spread = f64::from(seen_in) / spread_chunks;
            let focus = if spread > 0.8 && spread_chunks > 3.0 {
                0.5
            } else {
                1.0
            };
            ((f64::from(tf)).ln_1p() * focus, word)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(scored.into_iter().take(n).map(|(_, w)| w).collect())
}

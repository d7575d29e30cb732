//! Search quality on the shared fixtures (real tool outputs) and a guide written here:
//! what an agent asking these questions must get back.

use crate::chunk::{Format, fixtures_dir};
use crate::search::*;
use crate::store::{NewJournalEntry, NewSource, SourceKind};

const GUIDE: &str = r#"# Operations Guide

Everything about running the shop service in production.

## Deploy

### Kubernetes
The service runs on Kubernetes. Apply the manifests with `kubectl apply -f deploy/`
and watch the rollout with `kubectl rollout status deployment/shop`.

### Response cache
Product pages are cached for ten minutes in Redis; a purge happens after each release.

## Incidents

### Restoring service
When an outage hits, first check the status page and the error dashboards, then agree
with the on-call engineer how to proceed. If the cause is a bad deploy, run the database
migration rollback script right away. Keep the incident channel updated every fifteen
minutes and note each action in the incident timeline for the review.

### Postmortems
Database owners write the postmortem. Every migration gets a reviewer.
A rollback needs sign-off. Database and migration tickets: each rollback is recorded.

## Login

### Single sign-on
Users sign in through OAuth2 with the company identity provider; authentication tokens
live for one hour and refresh silently.

## 国际化
所有用户界面文本都存放在翻译文件中，缺失的翻译会回退到英文。

## Snippets

```python
def rollout_status(name):
    return run(["kubectl", "rollout", "status", f"deployment/{name}"])
```
"#;

struct Fixture {
    _db: tempfile::TempDir,
    store: Store,
}

/// A store holding every fixture file (labelled by file name) and the guide, indexed
/// by session "s-old", plus nothing else.
fn indexed() -> Fixture {
    let db = tempfile::tempdir().expect("db dir");
    let mut store = Store::open_path(&db.path().join("context.db")).expect("store");
    let dir = fixtures_dir();
    let report = index_path(
        &mut store,
        &dir,
        &dir,
        None,
        Some("s-old"),
        &WalkOptions::default(),
    )
    .expect("index fixtures (set CM_FIXTURES_DIR)");
    assert!(report.files >= 20, "{report:?}");
    index_document(
        &mut store,
        NewSource::new(
            "ops-guide.md",
            SourceKind::Content,
            Some("s-old"),
            GUIDE.len(),
        ),
        GUIDE,
        Format::Markdown,
    )
    .expect("index guide");
    Fixture { _db: db, store }
}

fn top(fixture: &Fixture, query: &str) -> SearchOutcome {
    search(&fixture.store, query, &SearchOptions::new("s-now")).expect("search")
}

fn first(outcome: &SearchOutcome) -> &SearchHit {
    outcome
        .hits
        .first()
        .unwrap_or_else(|| panic!("no hits: {outcome:?}"))
}

#[test]
fn exact_identifiers_find_their_file() {
    let f = indexed();
    assert_eq!(
        first(&top(&f, "CreateUserSchema")).source_label,
        "source-example.ts"
    );
    let tsc = top(&f, "TS2339");
    assert_eq!(first(&tsc).source_label, "tsc-errors.txt");
    assert!(first(&tsc).snippet.contains("TS2339"));
}

#[test]
fn a_stem_finds_inflected_forms() {
    let f = indexed();
    let outcome = search(
        &f.store,
        "caching",
        &SearchOptions {
            source: Some("ops-guide"),
            ..SearchOptions::new("s")
        },
    )
    .expect("search");
    let hit = first(&outcome);
    assert_eq!(hit.title, "Operations Guide > Deploy > Response cache");
    assert!(hit.snippet.contains("cached"));
}

#[test]
fn identifier_substrings_match_inside_words() {
    let f = indexed();
    for (query, word) in [("useEff", "useEffect"), ("LayoutEff", "LayoutEffect")] {
        let outcome = top(&f, query);
        let hit = first(&outcome);
        assert_eq!(hit.source_label, "context7-react-docs.md", "{query}");
        assert!(hit.snippet.contains(word), "{query}: {}", hit.snippet);
    }
}

#[test]
fn lowercase_identifier_parts_and_word_prefixes_match() {
    let f = indexed();
    let hit = top(&f, "layouteff");
    assert_eq!(first(&hit).source_label, "context7-react-docs.md");
    assert!(first(&hit).snippet.contains("LayoutEffect"), "{hit:?}");
    let prefix = search(
        &f.store,
        "rollou",
        &SearchOptions {
            source: Some("ops-guide"),
            ..SearchOptions::new("s")
        },
    )
    .expect("search");
    assert!(first(&prefix).snippet.contains("rollout"), "{prefix:?}");
}

/// "kuberntes" was searched as "kubernetes", and the guide's section came first.
fn kubernetes_corrected(outcome: &SearchOutcome) {
    assert_eq!(
        outcome.corrections,
        vec![("kuberntes".to_string(), "kubernetes".to_string())]
    );
    assert_eq!(
        first(outcome).title,
        "Operations Guide > Deploy > Kubernetes"
    );
}

#[test]
fn typos_are_corrected_against_the_vocabulary() {
    let f = indexed();
    kubernetes_corrected(&top(&f, "kuberntes"));

    let outcome = top(&f, "autentication");
    assert_eq!(
        outcome.corrections,
        vec![("autentication".to_string(), "authentication".to_string())]
    );
    assert!(
        outcome
            .hits
            .iter()
            .any(|h| h.snippet.to_lowercase().contains("authentication")),
        "{outcome:?}"
    );
}

#[test]
fn partial_words_find_the_words_they_are_part_of() {
    let f = indexed();
    // Longer than the porter stem ("authent"), or from inside the word: neither is a
    // word prefix the porter index can match.
    for query in ["authenticat", "authenticatio", "thenticat", "ubernete"] {
        let outcome = search(
            &f.store,
            query,
            &SearchOptions {
                source: Some("ops-guide"),
                ..SearchOptions::new("s")
            },
        )
        .expect("search");
        assert!(outcome.corrections.is_empty(), "{query}: {outcome:?}");
        let hit = first(&outcome);
        assert!(
            hit.title.ends_with("Single sign-on") || hit.title.ends_with("Kubernetes"),
            "{query}: {hit:?}"
        );
    }
    let commits = top(&f, "authenticat");
    assert!(
        commits
            .hits
            .iter()
            .any(|h| h.source_label == "git-log.txt"
                && h.snippet.contains("magic link authentication")),
        "{commits:?}"
    );
}

/// Among the 20,000 words of a generated document and a word the porter stems put one
/// edit from the typo ("autentication" → "autent", "attention" → "attent"), in more
/// chunks than the right one: whole words decide, and the first letter may be the typo.
#[test]
fn typos_are_corrected_among_tens_of_thousands_of_words() {
    let mut f = indexed();
    let generated = super::bench::generated_markdown(1_000_000);
    let attention: String = (0..60)
        .map(|i| format!("## Note {i}\n\nPay attention to step {i}.\n\n"))
        .collect();
    for (label, text) in [("generated.md", generated), ("notes.md", attention)] {
        index_document(
            &mut f.store,
            NewSource::new(label, SourceKind::Content, Some("s-old"), text.len()),
            &text,
            Format::Markdown,
        )
        .expect("index");
    }
    let distinct: i64 = f
        .store
        .search_conn()
        .expect("conn")
        .query_row("SELECT count(*) FROM vocabulary", [], |r| r.get(0))
        .expect("vocabulary");
    assert!(distinct > 15_000, "{distinct} words");
    for (typo, word) in [
        ("autentication", "authentication"),
        ("kuberntes", "kubernetes"),
        ("lubernetes", "kubernetes"),
        ("rollbakc", "rollback"),
    ] {
        let outcome = top(&f, typo);
        assert_eq!(
            outcome.corrections,
            vec![(typo.to_string(), word.to_string())],
            "{outcome:?}"
        );
        assert!(
            first(&outcome).snippet.to_lowercase().contains(word),
            "{outcome:?}"
        );
    }
}

#[test]
fn a_typo_next_to_a_known_word_is_corrected_too() {
    let f = indexed();
    let options = SearchOptions {
        source: Some("ops-guide"),
        ..SearchOptions::new("s")
    };
    kubernetes_corrected(&search(&f.store, "kuberntes manifests", &options).expect("search"));
}

#[test]
fn words_close_together_rank_first() {
    let f = indexed();
    // Both sections hold all three words; only one holds them side by side.
    let options = SearchOptions {
        limit: 20,
        ..SearchOptions::new("s")
    };
    let outcome = search(&f.store, "database migration rollback", &options).expect("search");
    assert_eq!(
        first(&outcome).title,
        "Operations Guide > Incidents > Restoring service"
    );
    let scattered = outcome
        .hits
        .iter()
        .position(|h| h.title == "Operations Guide > Incidents > Postmortems");
    assert!(
        scattered.is_some_and(|p| p > 0),
        "the scattered section ranks lower: {outcome:?}"
    );
}

#[test]
fn cjk_substrings_are_found() {
    let f = indexed();
    let hit = top(&f, "编码测试");
    assert_eq!(first(&hit).source_label, "utf8-content.txt");
    assert_eq!(first(&top(&f, "日本語")).source_label, "utf8-content.txt");
    let two_chars = top(&f, "翻译");
    assert_eq!(first(&two_chars).source_label, "ops-guide.md");
    assert!(first(&two_chars).snippet.contains("翻译文件"));
}

#[test]
fn content_type_filters_code_and_prose() {
    let f = indexed();
    for kind in [ContentType::Code, ContentType::Prose] {
        let options = SearchOptions {
            content_type: Some(kind),
            limit: 10,
            ..SearchOptions::new("s")
        };
        let outcome = search(&f.store, "useEffect", &options).expect("search");
        assert!(!outcome.hits.is_empty(), "{kind:?}");
        assert!(
            outcome.hits.iter().all(|h| h.content_type == kind),
            "{kind:?}: {outcome:?}"
        );
    }
}

#[test]
fn limit_is_honoured_as_given() {
    let f = indexed();
    for limit in [1, 5, 12] {
        let options = SearchOptions {
            limit,
            ..SearchOptions::new("s")
        };
        assert_eq!(
            search(&f.store, "user", &options)
                .expect("search")
                .hits
                .len(),
            limit
        );
    }
}

#[test]
fn stopword_only_queries_return_nothing() {
    let f = indexed();
    for query in ["the", "what is the", "and or not", "how to do it"] {
        let outcome = top(&f, query);
        assert!(
            outcome.hits.is_empty() && outcome.nothing_to_search,
            "{query}: {outcome:?}"
        );
    }
}

#[test]
fn fts_syntax_in_queries_never_errors() {
    let f = indexed();
    let long = "x".repeat(10_000);
    let nasty = [
        r#"NEAR("a" "b") OR * ^:"#,
        "\"unbalanced",
        "a AND",
        "( ) { } [ ]",
        "title:deploy",
        "-rollout",
        "rollout*",
        "^start",
        "'single'",
        "back\\slash",
        "nul\u{0}byte",
        "emoji 🔒 lock",
        "a\"b\"c",
        "NOT kubectl",
        "kubectl NEAR/2 rollout",
        "+plus",
        "col:*",
        &long,
        "📦📦📦",
        "\u{200b}zero",
    ];
    for query in nasty {
        search(&f.store, query, &SearchOptions::new("s"))
            .unwrap_or_else(|e| panic!("{query:?}: {e}"));
    }
    let outcome = top(&f, "kubectl: rollout*");
    assert_eq!(first(&outcome).source_label, "ops-guide.md");
}

#[test]
fn origins_scope_source_and_timeline() {
    let mut f = indexed();
    let note = "The staging cluster nickname is bluefin.";
    index_document(
        &mut f.store,
        NewSource::new("today-note", SourceKind::Content, Some("s-now"), note.len()),
        note,
        Format::Text,
    )
    .expect("index");
    let entry = NewJournalEntry {
        session_id: "s-now",
        category: "decision",
        priority: 1,
        summary: "decided bluefin stays on staging",
        data: "",
        dedup: true,
    };
    f.store.journal_insert(&entry).expect("journal");

    let outcome = top(&f, "bluefin");
    assert_eq!(outcome.hits.len(), 2);
    assert!(
        outcome
            .hits
            .iter()
            .all(|h| h.origin == HitOrigin::ThisSession)
    );
    assert!(
        outcome
            .hits
            .iter()
            .any(|h| h.source_label == "journal #1" && h.title == "decision")
    );
    assert_eq!(first(&top(&f, "kubectl")).origin, HitOrigin::EarlierSession);
    let later =
        search(&f.store, "bluefin staging", &SearchOptions::new("s-later")).expect("search");
    let journal = later
        .hits
        .iter()
        .find(|h| h.title == "decision")
        .expect("journal hit");
    assert_eq!(
        (journal.source_label.as_str(), journal.origin),
        ("journal #1 of session s-now", HitOrigin::EarlierSession)
    );

    let session_only = SearchOptions {
        scope: Scope::Session,
        ..SearchOptions::new("s-now")
    };
    assert!(
        search(&f.store, "kubectl", &session_only)
            .expect("search")
            .hits
            .is_empty()
    );
    let by_source = SearchOptions {
        source: Some("REACT"),
        limit: 10,
        ..SearchOptions::new("s")
    };
    let hits = search(&f.store, "component", &by_source)
        .expect("search")
        .hits;
    assert!(
        !hits.is_empty()
            && hits
                .iter()
                .all(|h| h.source_label == "context7-react-docs.md")
    );

    let timeline = SearchOptions {
        sort: Sort::Timeline,
        limit: 4,
        ..SearchOptions::new("s-now")
    };
    let hits = search(&f.store, "bluefin kubectl", &timeline)
        .expect("search")
        .hits;
    assert!(
        hits.windows(2).all(|w| w[0].created_at <= w[1].created_at),
        "{hits:?}"
    );
}

#[test]
fn snippets_stay_within_budget_and_show_the_match() {
    let f = indexed();
    let options = SearchOptions {
        limit: 20,
        ..SearchOptions::new("s")
    };
    for query in [
        "error",
        "GET /api/users",
        "ViewTransition",
        "redis caching layer",
    ] {
        for hit in search(&f.store, query, &options).expect("search").hits {
            assert!(
                hit.snippet.len() <= crate::limits::SNIPPET_MAX_BYTES,
                "{query}"
            );
        }
    }
    let hit = top(&f, "ViewTransition onEnter cleanup");
    assert!(first(&hit).snippet.contains("onEnter"), "{hit:?}");
}

/// A store holding `documents` (label, markdown), indexed by session "s".
fn store_of(documents: &[(&str, &str)]) -> Fixture {
    let db = tempfile::tempdir().expect("db dir");
    let mut store = Store::open_path(&db.path().join("context.db")).expect("store");
    for (label, text) in documents {
        index_document(
            &mut store,
            NewSource::new(label, SourceKind::Content, Some("s"), text.len()),
            text,
            Format::Markdown,
        )
        .expect("index");
    }
    Fixture { _db: db, store }
}

/// Issue 31: a section longer than a chunk is one answer, not two of the three slots.
#[test]
fn two_chunks_of_one_section_are_one_result() {
    let paragraph = "The parse function reads an address and returns its parts. ".repeat(30);
    let long_section = format!("# ipaddr\n\n## API\n\n{paragraph}\n\n{paragraph}\n\n{paragraph}\n");
    let f = store_of(&[
        ("ipaddr.md", long_section.as_str()),
        // Each of the others holds one word of the query only: ranked on their own, both
        // chunks of the long section would come before them.
        (
            "other.md",
            "# Other\n\n## Numbers\n\nTo parse a number, call parse.\n",
        ),
        (
            "third.md",
            "# Third\n\n## Contacts\n\nAn address book keeps contacts.\n",
        ),
    ]);
    let hits = top(&f, "parse address").hits;
    let sections: Vec<(&str, &str)> = hits
        .iter()
        .map(|h| (h.source_label.as_str(), h.title.as_str()))
        .collect();
    assert_eq!(sections.len(), 3, "{sections:?}");
    let mut distinct = sections.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "{sections:?}");
}

/// Issue 31: badge and link markup stays out of the result line and of what matches.
#[test]
fn heading_markup_stays_out_of_titles_and_matching() {
    let f = store_of(&[(
        "lib.md",
        "# lib [![Build Status](https://travis-ci.org/acme/lib.svg)](https://travis-ci.org/acme/lib)\n\n\
         Intro text.\n\n## Usage with [Express](https://expressjs.com)\n\nMount it.\n",
    )]);
    let hits = top(&f, "usage express").hits;
    assert_eq!(first_title(&hits), "lib > Usage with Express");
    assert!(top(&f, "travis").hits.is_empty());
}

fn first_title(hits: &[SearchHit]) -> &str {
    hits.first().map_or("", |h| h.title.as_str())
}

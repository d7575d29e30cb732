//! Every tunable number of the product, with its unit in its name. One place, so a
//! reviewer can see all of them at once and check them against the documented targets
//! (`docs/BENCHMARKS.md`) and the ADRs that chose them.

/// The most any tool reply puts into the agent's context.
pub const OUTPUT_CAP_BYTES: usize = 16_384;
/// Output up to this size is returned whole; above it, output is indexed and replaced.
pub const REPLACE_TRIGGER_BYTES: usize = 4_096;
/// The largest chunk the indexer stores.
pub const MAX_CHUNK_BYTES: usize = 4_096;
/// The largest snippet one search result returns.
pub const SNIPPET_MAX_BYTES: usize = 800;
/// Results per query when the caller gives no `limit`.
pub const SEARCH_DEFAULT_LIMIT: usize = 3;
/// Reciprocal Rank Fusion constant: score = Σ 1 / (RRF_K + rank).
pub const RRF_K: f64 = 60.0;
/// bm25 weight of a chunk's title against its content (content weight is 1); in the
/// words index the title is the section's own heading (ADR 44).
pub const BM25_TITLE_WEIGHT: f64 = 5.0;
/// Rerank factor for a heading that holds every query word: the score is multiplied by
/// up to 1 + this (ADR 44). A ratio, no unit.
pub const HEADING_MATCH_BOOST: f64 = 0.5;
/// How much a query word in a heading above the section counts, against one in the
/// section's own heading (ADR 44). A ratio, no unit.
pub const HEADING_ANCESTOR_SHARE: f64 = 0.5;
/// Length of the words the vocabulary keeps (ADR 22): shorter ones hold no trigram to
/// be found by, longer ones are not words.
pub const VOCABULARY_WORD_MIN_CHARS: usize = 3;
pub const VOCABULARY_WORD_MAX_CHARS: usize = 40;
/// A typo up to this long is also compared with every word of its first letter: it may
/// share no trigram with the word it stands for ("cahce", "cache").
pub const TYPO_FIRST_LETTER_MAX_CHARS: usize = 6;

/// SQLite busy timeout: how long a writer waits for another process's lock.
pub const DB_TIMEOUT_MS: u64 = 5_000;
/// The busy handler's first steps: short, so a hook meeting a write that ends soon goes
/// on at once (`DB_BUSY_SHORT_STEPS` of them: 20 ms in all) ...
pub const DB_BUSY_STEP_US: u64 = 250;
pub const DB_BUSY_SHORT_STEPS: u64 = 80;
/// ... then longer ones, up to `DB_TIMEOUT_MS`.
pub const DB_BUSY_LONG_STEP_MS: u64 = 5;
/// Prepared statements a store connection keeps compiled (every distinct statement the
/// hooks, the server and the indexer run fits).
pub const STORE_STATEMENTS_CACHED_MAX: usize = 128;
/// The longest a bulk writer (a directory `ctx_index`) waits between two files for the
/// writes of hooks an agent is waiting on (`store::let_urgent_writes_in`).
pub const URGENT_WRITE_YIELD_MAX_MS: u64 = 50;
/// How long the timings of served hooks wait to be written together, after the replies.
pub const SERVED_TIMINGS_FLUSH_MS: u64 = 100;
/// SQLite page cache of one connection, at most (filled as pages are read).
pub const DB_PAGE_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// A store closes with a WAL checkpoint (TRUNCATE, never waiting) only when its WAL is
/// at least this big: every process that is a project's only connection re-reads the
/// whole WAL when it opens, so the WAL must stay small (see store/mod.rs).
pub const STORE_CLOSE_CHECKPOINT_WAL_BYTES: u64 = 1024 * 1024;
/// After the WAL restarts, SQLite truncates the file to this size.
pub const STORE_WAL_SIZE_LIMIT_BYTES: u64 = 1024 * 1024;
/// Indexed content older than this is removed when the server starts.
pub const CONTENT_MAX_AGE_DAYS: u64 = 14;

/// A whole hook process must finish within this; it fails open before it.
pub const HOOK_TIMEOUT_MS: u64 = 5_000;
/// How long `cm setup` / `cm doctor` wait for an agent's `--version` (Claude Code
/// answers in 0.1–0.3 s) before planning as for an unknown version.
pub const HOST_VERSION_PROBE_TIMEOUT_MS: u64 = 3_000;
/// The most stdin a hook reads; more is treated as bad input (fail open).
pub const HOOK_STDIN_MAX_BYTES: usize = 32 * 1024 * 1024;

/// Loaded adapter instances (per platform) and policy chains `cm serve` keeps idle for
/// the next served hook (ADR 35): a burst of parallel hooks loads more, and the extra
/// ones beyond this are dropped when their call ends. Instances, not time.
pub const SERVED_HOOK_IDLE_INSTANCES_MAX: usize = 8;
/// Permission settings files whose last parse a process remembers (three per project:
/// project-local, project, user); past this the memory starts over. Files, not bytes.
pub const PARSED_SETTINGS_FILES_MAX: usize = 48;
/// Adapter descriptors whose server-name plan key a process remembers (one per platform
/// it answers hooks for); past this the memory starts over. Descriptors, not bytes.
pub const PLANNED_ADAPTERS_MAX: usize = 24;
/// The longest MCP message (one JSON-RPC line) `cm serve` reads; longer ones are
/// answered with an error. Room for an `INDEX_FILE_MAX_BYTES` document with JSON escapes.
pub const MCP_MESSAGE_MAX_BYTES: usize = 32 * 1024 * 1024;
/// The longest reply `cm serve` writes to stdout straight from the async worker; a
/// longer one goes through tokio's blocking pool. Well inside a pipe's buffer (64 KiB on
/// Linux, 16 KiB on macOS), so the write does not wait for the agent to read.
pub const MCP_DIRECT_WRITE_MAX_BYTES: usize = 8 * 1024;
/// How long before HOOK_TIMEOUT_MS the hook watchdog gives up, leaving time to answer and exit.
pub const HOOK_WATCHDOG_MARGIN_MS: u64 = 750;
/// The most context text a session holds for a later event when the event that produced it
/// cannot carry context (Codex and Gemini pre-tool-use); the oldest is dropped first.
pub const HELD_CONTEXT_MAX_BYTES: usize = 4_096;
/// The largest reply text an adapter may render; more is garbage.
pub const PLUGIN_RENDERED_MAX_BYTES: usize = 4 * 1024 * 1024;
/// The longest name an adapter may give one of our MCP tools (`ctx-tool-name`).
pub const CTX_TOOL_NAME_MAX_BYTES: usize = 256;
/// The longest reason a policy may give; reasons are read by a model and must be short.
pub const POLICY_REASON_MAX_BYTES: usize = 4_096;
/// Large output shown without a matching intent: this many bytes of head and of tail.
pub const PREVIEW_EDGE_BYTES: usize = 1_536;
/// Wall-clock budget of one plugin call (epoch deadline).
pub const PLUGIN_CALL_TIMEOUT_MS: u64 = 1_000;
/// The epoch tick of the plugin deadline timer.
pub const PLUGIN_EPOCH_TICK_MS: u64 = 10;
/// Linear memory one plugin instance may grow to.
pub const PLUGIN_MEMORY_MAX_BYTES: usize = 256 * 1024 * 1024;
/// Component instances, tables and linear memories one plugin store may create. Real
/// toolchains nest instances: componentize-py's `--stub-wasi` build makes 17 (ADR 24).
pub const PLUGIN_INSTANCES_MAX: usize = 64;
pub const PLUGIN_TABLES_MAX: usize = 64;
pub const PLUGIN_MEMORIES_MAX: usize = 16;
/// A plugin up to this size with no compiled cache entry is compiled inside the hook that
/// needs it (the built-ins, 170–250 KB, take about 100 ms); a larger one is skipped for that call and compiled
/// in the background, so no hook waits seconds for Cranelift (ADR 24).
pub const PLUGIN_INLINE_COMPILE_MAX_BYTES: u64 = 512 * 1024;

/// Default and maximum time of one sandboxed execution.
pub const EXEC_TIMEOUT_MS: u64 = 600_000;
/// How long a killed process group gets between SIGTERM and SIGKILL.
pub const EXEC_KILL_GRACE_MS: u64 = 2_000;
/// After SIGTERM/SIGINT/SIGHUP or the end of stdin, how long `cm serve` lets its service
/// loop wind down, and then a blocking store call commit, before it exits anyway (an
/// agent sends SIGKILL a few seconds after SIGTERM; ADR 20).
pub const SERVE_EXIT_GRACE_MS: u64 = 500;
/// Bytes of a child's stdout (and, separately, stderr) kept in memory; the rest is counted, not kept.
pub const EXEC_CAPTURE_MAX_BYTES: usize = 8 * 1024 * 1024;
/// Bytes of stderr tail shown with a non-zero exit.
pub const STDERR_TAIL_BYTES: usize = 2_048;

/// Fetch: the whole request, connect to last byte.
pub const FETCH_TIMEOUT_MS: u64 = 30_000;
/// Fetch: the largest body read; more is cut and marked.
pub const FETCH_BODY_MAX_BYTES: usize = 10 * 1024 * 1024;
/// Fetch: redirects followed (each hop re-checked).
pub const FETCH_MAX_REDIRECTS: usize = 5;
/// Fetch cache: a (source, url) fetched within this is answered from the index.
pub const FETCH_TTL_DEFAULT_MS: u64 = 24 * 60 * 60 * 1_000;
/// Fetch: bytes of preview returned to the agent.
pub const FETCH_PREVIEW_BYTES: usize = 1_024;
/// Fetch: requests of one `ctx_fetch_and_index` call in flight at once when the call gives no `concurrency`.
pub const FETCH_CONCURRENCY_DEFAULT: usize = 4;
/// Fetch: the most requests in flight at once (`concurrency` is clamped to 1..=this).
pub const FETCH_CONCURRENCY_MAX: usize = 8;

/// Search flood guard window.
pub const FLOOD_WINDOW_MS: u64 = 60_000;
/// Calls per window answered normally.
pub const FLOOD_NORMAL_CALLS: u32 = 3;
/// Calls per window answered with one result per query; beyond it, a redirect to batch.
pub const FLOOD_REDUCED_CALLS: u32 = 8;

/// The whole injection after compaction: the state block and the line that names
/// `ctx_resume` / `ctx_search` together.
pub const STATE_BUDGET_BYTES: usize = 2_048;
/// One `ctx_resume` reply.
pub const RESUME_CAP_BYTES: usize = 2_048;
/// The routing block injected at session start.
pub const ROUTING_BLOCK_MAX_BYTES: usize = 1_536;
/// Journal rows matching a prompt, injected on the next prompt.
pub const PROMPT_MATCH_MAX_BYTES: usize = 1_024;
/// A call slower than this is journalled as slow.
pub const SLOW_CALL_MS: u64 = 5_000;
/// The journal rows a session keeps, per priority P1..P4 (2,000 in all); beyond it the
/// oldest rows of that priority go, so old state never outlives newer state.
pub const JOURNAL_MAX_ROWS_PER_PRIORITY: [usize; 4] = [400, 600, 600, 400];
/// The most data one journal row holds (the full text stays reachable by search).
pub const JOURNAL_DATA_MAX_BYTES: usize = 4_096;
/// The longest summary line of one journal row.
pub const JOURNAL_SUMMARY_MAX_BYTES: usize = 240;
/// The longest line of a state block or prompt-match block; a longer one is cut and
/// ends with a `ctx_resume(seq)` pointer.
pub const STATE_LINE_MAX_BYTES: usize = 240;
/// The newest journal rows a hook reads to relate an event to earlier ones (error → fix,
/// retry loops, pending calls).
pub const JOURNAL_CONTEXT_ROWS: usize = 150;
/// A prompt larger than this is pasted data: indexed whole, the journal row points at it.
pub const PASTE_BY_REFERENCE_BYTES: usize = 1_024;
/// Characters of a sub-agent's prompt, and of its result, kept in the journal.
pub const SUBAGENT_EXCERPT_CHARS: usize = 500;
/// After a sandboxed process exits, how long its output pipes may stay open (held
/// by processes it left behind) before its process group is terminated.
pub const EXEC_DRAIN_AFTER_EXIT_MS: u64 = 500;
/// Wall-clock budget of one runtime probe (e.g. `node --version`), run once lazily.
pub const RUNTIME_PROBE_TIMEOUT_MS: u64 = 3_000;
/// Commands of one `ctx_batch_execute` run at once when the caller gives no
/// `concurrency`: one, so commands that depend on each other's effects keep their order.
pub const BATCH_DEFAULT_CONCURRENCY: usize = 1;
/// The most commands of one `ctx_batch_execute` run at once.
pub const BATCH_MAX_CONCURRENCY: usize = 8;

/// Files one `ctx_index` of a directory indexes when the call gives no `maxFiles`.
pub const INDEX_WALK_MAX_FILES: usize = 1_000;
/// The largest file `ctx_index` (and memory-file indexing) reads; larger ones are skipped.
pub const INDEX_FILE_MAX_BYTES: usize = 8 * 1024 * 1024;
/// A document at least this large fills its two index files on two threads while the
/// main connection stores its chunks; below it, starting threads costs more than it saves.
pub const INDEX_PARALLEL_MIN_BYTES: usize = 256 * 1024;
/// Page cache of each index file's writer connection. Index writes append new segments
/// and rarely re-read a page, so a large cache would only hold memory (measured: a 5 MB
/// document fills the words index as fast with 512 KB as with 32 MB).
pub const INDEX_WRITER_CACHE_BYTES: usize = 512 * 1024;

/// `cm doctor`: every check has answered by then, or is reported as not finished.
pub const DOCTOR_BUDGET_MS: u64 = 1_800;
/// `cm doctor` with no compiled built-in plugins yet (a fresh install, a new version):
/// the plugin and agent rows compile them first (5.2 s measured with the dist build, load
/// average 2 on the 2-core machine), so they are waited for this long instead of [`DOCTOR_BUDGET_MS`].
pub const DOCTOR_FIRST_COMPILE_BUDGET_MS: u64 = 60_000;
/// `cm doctor`: the `cm serve` self-test (spawn, handshake, tools/list, exit).
pub const DOCTOR_SERVE_TIMEOUT_MS: u64 = 1_500;
/// `cm doctor`: one runtime's version probe (e.g. `ruby --version`).
pub const DOCTOR_VERSION_PROBE_TIMEOUT_MS: u64 = 1_200;
/// Bytes of one message in `hook-errors.log`; a longer one is cut and ends in `…`.
pub const HOOK_ERROR_LINE_MAX_BYTES: usize = 500;
/// `cm doctor`: hook errors younger than this are reported.
pub const DOCTOR_HOOK_ERRORS_WINDOW_MS: u64 = 24 * 60 * 60 * 1_000;
/// `cm doctor`: bytes read from the end of `hook-errors.log`.
pub const DOCTOR_HOOK_LOG_TAIL_BYTES: u64 = 64 * 1024;

/// The longest value `cm setup` shows on one line of its plan before cutting it.
pub const SETUP_PREVIEW_MAX_CHARS: usize = 160;

/// Characters of one text bar in `cm stats` / `ctx_stats` (`█` kept out, `░` returned).
pub const STATS_BAR_WIDTH_CHARS: usize = 24;
/// Projects listed by name in the all-projects part of the stats; the rest are summed up.
pub const STATS_TOP_PROJECTS: usize = 10;
/// Most recent runs per (platform, event) that hook latency percentiles are taken over.
pub const HOOK_LATENCY_RUNS_PER_EVENT: usize = 1_000;
/// The most stdin `cm statusline` reads (the agent's status JSON is a few hundred bytes).
pub const STATUSLINE_STDIN_MAX_BYTES: usize = 64 * 1024;
/// How long `cm statusline` waits for its stdin to close before answering without it.
pub const STATUSLINE_STDIN_WAIT_MS: u64 = 100;
/// Days of history the insight report charts.
pub const INSIGHT_DAYS: usize = 30;
/// Indexed sources the insight report lists, largest first.
pub const INSIGHT_TOP_SOURCES: usize = 10;
/// Directory under the data root that holds insight reports.
pub const INSIGHT_DIR_NAME: &str = "insight";
/// An insight report's file name: this prefix, the project key, `.html`.
pub const INSIGHT_FILE_PREFIX: &str = "insight-";

// Plugin host (issue 12: bounded plugin files, one policy-chain budget).

/// The largest plugin file `cm plugin add` (and a hook loading it) reads: room for real
/// toolchains (componentize-py output is ~18 MB, StarlingMonkey ~12 MB).
pub const PLUGIN_FILE_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Wall-clock time the whole policy chain of one call (one hook call, one ctx tool call)
/// may take in its guests, instantiation and every decision included. Installed policies
/// share it less `POLICY_BUILTIN_RESERVE_MS`, each call getting what is left (at most
/// `PLUGIN_CALL_TIMEOUT_MS`); once it is spent the remaining installed policies are skipped.
pub const POLICY_CHAIN_BUDGET_MS: u64 = 2_000;
/// The part of `POLICY_CHAIN_BUDGET_MS` kept for the built-in policy: each of its calls gets
/// this, however long the installed policies took, so the user's rules always decide (it
/// answers in well under a millisecond).
pub const POLICY_BUILTIN_RESERVE_MS: u64 = 500;
/// An installed policy is not started with less than this left of the chain's budget
/// (an epoch deadline is only tick-accurate): it is skipped instead.
pub const POLICY_CALL_MIN_MS: u64 = 50;

// Store and search (issue 12: bounded queries, bounded tables, space given back).
/// The longest search query that is searched; a longer one is cut at a character
/// boundary and the reply says so (a pasted file is not a query).
pub const SEARCH_QUERY_MAX_BYTES: usize = 1_024;
/// The longest single word, identifier or path of a query; a longer one is cut (its
/// prefix still finds it: words match as prefixes, identifiers as substrings).
pub const SEARCH_TERM_MAX_BYTES: usize = 128;
/// The most queries one `ctx_search` or `ctx_batch_execute` call answers; a call with
/// more is refused with one line (their answers would not fit OUTPUT_CAP_BYTES anyway).
pub const SEARCH_MAX_QUERIES: usize = 32;
/// `hook_timings` keeps the newest this many rows; latency percentiles read at most
/// HOOK_LATENCY_RUNS_PER_EVENT per (platform, event).
pub const HOOK_TIMINGS_MAX_ROWS: i64 = 20_000;
/// Older hook timings are deleted on every this-many-th insert (and at server start),
/// so a hook run pays for one range delete now and then, not on every run.
pub const HOOK_TIMINGS_PRUNE_EVERY_ROWS: i64 = 256;
/// After a purge, a database file whose free pages are at least this share of it is
/// vacuumed (its size given back to the file system).
pub const PURGE_VACUUM_MIN_FREE_PERCENT: i64 = 25;

// MCP framing (issue 12: every request answered).
/// serde_json's nesting limit: a message nested deeper is answered "invalid params".
pub const JSON_NESTING_MAX_LEVELS: usize = 128;

// Sandbox: background runs (issue 12).
/// Bytes of the start of a background run's stdout (and, separately, stderr) its log keeps.
pub const BACKGROUND_LOG_HEAD_BYTES: usize = 1024 * 1024;
/// Bytes of the end of a background run's stdout (and, separately, stderr) its log keeps,
/// as a rolling tail; what lies between head and tail is only counted.
pub const BACKGROUND_LOG_TAIL_BYTES: usize = 1024 * 1024;
/// Once a background log is past its head, how often its file is rewritten with the
/// current tail (and once more when the output ends).
pub const BACKGROUND_LOG_REWRITE_MS: u64 = 250;
/// Directory under the data root that holds the logs of background runs.
pub const BACKGROUND_DIR_NAME: &str = "background";
/// Logs of finished background runs a server keeps readable (each at most
/// BACKGROUND_LOG_HEAD_BYTES + BACKGROUND_LOG_TAIL_BYTES); older ones are removed
/// when a new run starts, the rest at server exit.
pub const BACKGROUND_FINISHED_LOGS_KEPT: usize = 8;

/// `CONTEXT_MODE_EXTERNAL_MCP_NUDGE_EVERY`: the tip about large payloads of other MCP
/// servers is shown on the 1st, (N+1)th, (2N+1)th… such call of a session; upstream's
/// default and range, an invalid value meaning the default.
pub const EXTERNAL_MCP_NUDGE_EVERY_CALLS_DEFAULT: u64 = 10;
pub const EXTERNAL_MCP_NUDGE_EVERY_CALLS_MIN: u64 = 1;
pub const EXTERNAL_MCP_NUDGE_EVERY_CALLS_MAX: u64 = 100;

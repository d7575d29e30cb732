//! `ctx_execute`, `ctx_execute_file`, `ctx_batch_execute`: rules first, then the sandbox,
//! then output shaping and stats.

use std::fmt::Write as _;

use super::{Reply, Service, canonical_in_project, rule_input};
use crate::limits::OUTPUT_CAP_BYTES;
use crate::sandbox::{
    BatchExecuteParams, BatchOptions, CommandStatus, ExecRequest, ExecuteFileParams, ExecuteParams,
    QueryScope, render_markdown,
};
use crate::search::{SearchOptions, index_document, search};
use crate::store::{NewSource, SourceKind};

/// `_raw` is what the agent sent; the rules see the decoded parameters, which are what
/// runs (see `rule_input`).
pub async fn execute(service: &Service, params: ExecuteParams, _raw: &serde_json::Value) -> Reply {
    let language = rule_input::canonical_language(service.sandbox.runtimes(), &params.language);
    let input = rule_input::execute(&params, language);
    if let Err(refusal) = service.check_rules("ctx_execute", &input, None) {
        return refusal;
    }
    let request = ExecRequest {
        language: &params.language,
        code: &params.code,
        project_dir: &service.project_dir,
        cwd: params.cwd.as_deref(),
        timeout_ms: params.timeout,
        background: params.background.unwrap_or(false),
        file: None,
    };
    match service.sandbox.execute(request).await {
        // The label names the language only: replies never echo the submitted code.
        Ok(outcome) => service.shape_execution(
            "ctx_execute",
            &params.language,
            &outcome,
            params.intent.as_deref(),
        ),
        Err(err) => Reply::error(err.to_string()),
    }
}

pub async fn execute_file(
    service: &Service,
    params: ExecuteFileParams,
    _raw: &serde_json::Value,
) -> Reply {
    let path = match canonical_in_project(&service.project_dir, &params.path) {
        Ok(path) => path,
        Err(reply) => return reply,
    };
    if !path.is_file() {
        return Reply::error(format!("{} is not a file", params.path));
    }
    let language = rule_input::canonical_language(service.sandbox.runtimes(), &params.language);
    let input = rule_input::execute_file(&params, language, &path);
    if let Err(refusal) = service.check_rules("ctx_execute_file", &input, Some(&path)) {
        return refusal;
    }
    let request = ExecRequest {
        language: &params.language,
        code: &params.code,
        project_dir: &service.project_dir,
        cwd: None,
        timeout_ms: params.timeout,
        background: false,
        file: Some(&path),
    };
    match service.sandbox.execute(request).await {
        Ok(mut outcome) => {
            // What the agent would have read without us: the file itself.
            let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            outcome.stdout_total_bytes += file_bytes;
            service.shape_execution(
                "ctx_execute_file",
                &format!("{} over {}", params.language, params.path),
                &outcome,
                params.intent.as_deref(),
            )
        }
        Err(err) => Reply::error(err.to_string()),
    }
}

pub async fn batch_execute(
    service: &Service,
    params: BatchExecuteParams,
    _raw: &serde_json::Value,
) -> Reply {
    if params.commands.is_empty() {
        return Reply::error("ctx_batch_execute needs at least one command");
    }
    if let Some(refusal) =
        crate::search::too_many_queries("ctx_batch_execute", params.queries.len())
    {
        return Reply::error(format!("{refusal}; no command was run"));
    }
    let input = rule_input::batch_execute(&params);
    if let Err(refusal) = service.check_rules("ctx_batch_execute", &input, None) {
        return refusal;
    }
    let options = BatchOptions {
        project_dir: &service.project_dir,
        cwd: params.cwd.as_deref(),
        timeout_ms: params.timeout,
        concurrency: params.concurrency,
    };
    let results = match service
        .sandbox
        .execute_batch(&params.commands, options)
        .await
    {
        Ok(results) => results,
        Err(err) => return Reply::error(err.to_string()),
    };
    let combined = render_markdown(&results);
    let labels: Vec<&str> = results.iter().map(|r| r.label.as_str()).collect();
    let label = service.source_label("batch", &labels.join(", "));

    let mut text = String::new();
    let mut raw_bytes = 0u64;
    for result in &results {
        let line = match &result.status {
            CommandStatus::Ran(outcome) => {
                raw_bytes += outcome.stdout_total_bytes + outcome.stderr_total_bytes;
                let state = if outcome.timed_out {
                    "timed out".to_string()
                } else {
                    match outcome.exit_code {
                        Some(code) => format!("exit {code}"),
                        None => "killed".to_string(),
                    }
                };
                format!(
                    "- {}: {state}, {}",
                    result.label,
                    crate::human::bytes(outcome.stdout_total_bytes + outcome.stderr_total_bytes)
                )
            }
            CommandStatus::Skipped => format!("- {}: skipped (time budget used up)", result.label),
            CommandStatus::NotStarted(why) => format!("- {}: not started: {why}", result.label),
        };
        text.push_str(&line);
        text.push('\n');
    }

    let session_id = service.session_id();
    let indexed = {
        let mut store = match service.store() {
            Ok(store) => store,
            Err(reply) => return reply,
        };
        let source = NewSource::new(&label, SourceKind::Batch, Some(&session_id), combined.len());
        index_document(
            &mut store,
            source,
            &combined,
            crate::chunk::Format::Markdown,
        )
    };
    match indexed {
        Ok(_) => {
            let _ = writeln!(text, "Output indexed as source \"{label}\".");
        }
        Err(err) => {
            let _ = writeln!(text, "Output could not be indexed: {err}");
        }
    }

    if params.queries.is_empty() {
        if combined.len() <= crate::limits::REPLACE_TRIGGER_BYTES {
            text.push('\n');
            text.push_str(&combined);
        } else {
            let _ = writeln!(
                text,
                "Search it: {}(queries: [\"…\"], source: \"{label}\")",
                service.reply_names().name("ctx_search")
            );
        }
    } else {
        let store = match service.store() {
            Ok(store) => store,
            Err(reply) => return reply,
        };
        let mut answers = Vec::new();
        for query in &params.queries {
            let mut options = SearchOptions::new(&session_id);
            if params.query_scope.unwrap_or_default() == QueryScope::Batch {
                options.source = Some(&label);
                options.include_journal = false;
            }
            let outcome = search(&store, query, &options).unwrap_or_default();
            answers.push((crate::search::searched_query(query), outcome));
        }
        text.push('\n');
        text.push_str(&crate::search::query_cut_note(&params.queries).unwrap_or_default());
        let budget = OUTPUT_CAP_BYTES.saturating_sub(text.len() + 64);
        text.push_str(&crate::search::format_search_answers(
            &answers,
            false,
            budget,
            &service.reply_names(),
        ));
    }
    let text = crate::search::cap_reply(text);
    service.record_stats("ctx_batch_execute", raw_bytes, text.len() as u64, false);
    let none_succeeded = results
        .iter()
        .all(|r| !matches!(&r.status, CommandStatus::Ran(o) if !o.is_error()));
    Reply {
        text,
        is_error: none_succeeded,
    }
}

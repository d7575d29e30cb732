//! `ctx_resume`: the session state, or one journal row in full, after a compaction.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Reply, Service};
use crate::store::Store;

/// `ctx_resume` parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResumeParams {
    /// A journal row number (the `#12` of a state block line); omit for the session state.
    #[serde(default, deserialize_with = "crate::lenient::opt_u64")]
    pub seq: Option<u64>,
}

/// The session whose journal the server reads: its own id when the hooks journalled
/// under it, else the project's most recently active session (the hooks and the MCP
/// server learn the session id from different places and need not agree).
fn journal_session(store: &Store, own: &str) -> Result<String, crate::store::StoreError> {
    if !own.trim().is_empty() && store.journal_count(own)? > 0 {
        return Ok(own.to_string());
    }
    Ok(store
        .most_recent_session()?
        .unwrap_or_else(|| own.to_string()))
}

pub fn resume(service: &Service, params: ResumeParams) -> Reply {
    let store = match service.store() {
        Ok(store) => store,
        Err(reply) => return reply,
    };
    let Ok(seq) = params.seq.map(i64::try_from).transpose() else {
        return Reply::error("ctx_resume: seq is too large");
    };
    let result = journal_session(&store, &service.session_id())
        .and_then(|session| crate::journal::resume(&store, &session, seq));
    drop(store);
    let reply = match result {
        Ok(text) => Reply::ok(text),
        Err(err) => Reply::error(format!(
            "ctx_resume: the session journal cannot be read: {err}"
        )),
    };
    let returned = reply.text.len() as u64;
    service.record_stats("ctx_resume", returned, returned, false);
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventKind, NormalizedEvent};

    fn prompt(session: &str, text: &str) -> NormalizedEvent {
        NormalizedEvent {
            kind: EventKind::UserPrompt,
            native_event: "userpromptsubmit".into(),
            session_id: session.into(),
            project_dir: None,
            transcript_path: None,
            tool: None,
            outcome: None,
            prompt: Some(text.into()),
            source: None,
            trigger: None,
        }
    }

    #[test]
    fn the_server_reads_its_own_session_else_the_most_recent_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("store");
        assert_eq!(journal_session(&store, "server").expect("read"), "server");
        crate::journal::record(&mut store, &prompt("older", "Rename the parser.")).expect("record");
        crate::journal::record(&mut store, &prompt("hook", "Fix the build.")).expect("record");
        assert_eq!(journal_session(&store, "server").expect("read"), "hook");
        assert_eq!(journal_session(&store, "older").expect("read"), "older");
    }
}

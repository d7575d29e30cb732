//! The user's permission rules applied to our own tools before anything runs. The same
//! routing-policy chain as the hooks decides (one rule implementation, in wasm); here only
//! its security verdicts matter — a redirect or a nudge is meaningless inside a ctx tool.

use std::path::Path;

use super::{Reply, Service, policy_context};
use crate::model::{Action, MCP_SERVER_NAME, PolicyContext, ToolCall, ToolKind};
use crate::plugins::{PolicyChain, Registry};

/// The loaded policy chain and the rules it decides with, for one tool call.
pub(super) struct RuleCheck {
    chain: PolicyChain,
    context: PolicyContext,
}

impl Service {
    /// Checks one ctx tool call against the rules; `Err` is the refusal the agent reads.
    /// `path` is the canonical path the call touches, when it touches one.
    pub(super) fn check_rules(
        &self,
        tool: &str,
        input: &serde_json::Value,
        path: Option<&Path>,
    ) -> Result<(), Reply> {
        self.rule_check()?.check_ctx(tool, input, path)
    }

    /// The policy chain and rules, loaded once for a call that asks several questions.
    pub(super) fn rule_check(&self) -> Result<RuleCheck, Reply> {
        if let Some(reason) = &self.no_project {
            return Err(Reply::error(reason.to_string()));
        }
        let engine = self.engine().map_err(|e| {
            Reply::error(format!("security check unavailable ({e}); nothing was run"))
        })?;
        let registry = Registry::load(&self.root).unwrap_or_else(|err| {
            tracing::warn!("{err}; installed policies skipped");
            Registry::default()
        });
        let platform = self.platform();
        let (mut context, unreadable) =
            policy_context(&self.project_dir, platform.id, platform.ctx_tools);
        // A settings file we cannot read may hold a deny rule for this very call.
        if let Some(file) = unreadable.first() {
            tracing::warn!("{file}");
            return Err(Reply::error(file.refusal()));
        }
        // The call is being served: this server is live.
        context.server_live = true;
        Ok(RuleCheck {
            chain: PolicyChain::load(engine, &registry),
            context,
        })
    }
}

impl RuleCheck {
    /// The verdict on a ctx tool call (see [`Service::check_rules`]).
    pub(super) fn check_ctx(
        &mut self,
        tool: &str,
        input: &serde_json::Value,
        path: Option<&Path>,
    ) -> Result<(), Reply> {
        let call = ToolCall {
            name: self.context.ctx_tools.name(tool).to_string(),
            kind: ToolKind::Ctx,
            input_json: input.to_string(),
            command: None,
            path: path.map(|p| p.to_string_lossy().into_owned()),
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: Some(MCP_SERVER_NAME.into()),
            mcp_tool: Some(tool.into()),
        };
        self.decide(&call)
    }

    /// Whether the user's rules let `file` be read, asked as a plain `Read` of it: a
    /// directory walk reads every file it indexes, so a `Read(**/.env*)` deny rule must
    /// keep `.env` files out even when only their directory was named. Confinement is
    /// the walk's job (`confine_to`), so only the rules speak here, not routing.
    pub(super) fn check_read(&mut self, file: &Path) -> Result<(), Reply> {
        let file = file.to_string_lossy().into_owned();
        let call = ToolCall {
            name: "Read".into(),
            kind: ToolKind::Read,
            input_json: serde_json::json!({ "file_path": file }).to_string(),
            command: None,
            path: Some(file),
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: None,
            mcp_tool: None,
        };
        // Without a live server the policy applies the user's rules and nothing else.
        let live = std::mem::replace(&mut self.context.server_live, false);
        let verdict = self.decide(&call);
        self.context.server_live = live;
        verdict
    }

    fn decide(&mut self, call: &ToolCall) -> Result<(), Reply> {
        let outcome = self.chain.decide_next(call, &self.context);
        for failure in &outcome.failures {
            tracing::warn!("{failure}");
        }
        // The built-in rules must have been consulted: if they could not be, fail closed.
        if let Some(failure) = &outcome.builtin_failure {
            return Err(Reply::error(format!(
                "security check failed ({failure}); nothing was run"
            )));
        }
        match outcome.decision.action {
            Action::Deny(reason) | Action::Ask(reason) => Err(Reply::error(reason)),
            _ => Ok(()),
        }
    }
}

//! The user's permission rules applied to our own tools before anything runs. The same
//! routing-policy chain as the hooks decides (one rule implementation, in wasm); here only
//! its security verdicts matter — a redirect or a nudge is meaningless inside a ctx tool.

use std::path::Path;

use super::{Reply, Service};
use crate::plugins::bindings::{Action, PermissionRule, PolicyContext, ToolCall, ToolKind};
use crate::plugins::{PolicyChain, Registry, policy::BUILTIN_POLICY_LABEL};

impl Service {
    /// Checks one ctx tool call against the rules; `Err` is the refusal the agent reads.
    /// `path` is the canonical path the call touches, when it touches one.
    pub(super) fn check_rules(
        &self,
        tool: &str,
        input: &serde_json::Value,
        path: Option<&Path>,
    ) -> Result<(), Reply> {
        let engine = self.engine.as_ref().map_err(|e| {
            Reply::error(format!("security check unavailable ({e}); nothing was run"))
        })?;
        let registry = Registry::load(&self.root).unwrap_or_else(|err| {
            tracing::warn!("{err}; installed policies skipped");
            Registry::default()
        });
        let platform = self.platform();
        let call = ToolCall {
            name: format!("{}{tool}", platform.ctx_tool_prefix),
            kind: ToolKind::Ctx,
            input_json: input.to_string(),
            command: None,
            path: path.map(|p| p.to_string_lossy().into_owned()),
            has_range: false,
            url: None,
            prompt: None,
            pattern: None,
            mcp_server: Some("context-mode".into()),
            mcp_tool: Some(tool.into()),
        };
        let home = crate::paths::home_dir();
        let (rules, problems) = crate::permissions::load(&self.project_dir, home.as_deref());
        for problem in problems {
            tracing::warn!("{problem}");
        }
        let context = PolicyContext {
            platform: platform.id,
            ctx_tool_prefix: platform.ctx_tool_prefix,
            server_live: true,
            rules: rules.into_iter().map(PermissionRule::from).collect(),
            nudges_shown: Vec::new(),
            file_size_bytes: None,
            project_dir: self.project_dir.to_string_lossy().into_owned(),
        };
        let outcome = PolicyChain::load(engine, &registry).decide(&call, &context);
        for failure in &outcome.failures {
            tracing::warn!("{failure}");
        }
        // The built-in rules must have been consulted: if it failed, fail closed.
        if let Some(failure) = outcome
            .failures
            .iter()
            .find(|f| f.to_string().contains(BUILTIN_POLICY_LABEL))
        {
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

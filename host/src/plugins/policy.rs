//! One loaded routing policy: describe and decide, each call sandboxed and bounded.

use wasmtime::Store;
use wasmtime::component::Component;

use super::bindings::policy_world::PolicyPlugin;
use super::bindings::{Action, Decision, PolicyContext, PolicyInfo, ToolCall};
use super::engine::{PluginState, arm_deadline, arm_deadline_ms};
use super::{PluginEngine, PluginError};

use crate::limits::PLUGIN_CALL_TIMEOUT_MS;
use crate::limits::POLICY_REASON_MAX_BYTES as REASON_MAX_BYTES;

/// One instantiated routing policy.
pub struct Policy {
    label: String,
    store: Store<PluginState>,
    bindings: PolicyPlugin,
}

impl Policy {
    pub fn instantiate(
        engine: &PluginEngine,
        component: &Component,
        label: &str,
    ) -> Result<Self, PluginError> {
        Self::instantiate_within(engine, component, label, PLUGIN_CALL_TIMEOUT_MS)
    }

    /// Instantiates under a deadline of `ms` (a chain's budget may leave less than a call's).
    pub fn instantiate_within(
        engine: &PluginEngine,
        component: &Component,
        label: &str,
        ms: u64,
    ) -> Result<Self, PluginError> {
        let mut store = engine.new_store();
        arm_deadline_ms(&mut store, ms);
        let bindings = PolicyPlugin::instantiate(&mut store, component, engine.linker()?)
            .map_err(|e| PluginError::from_call(label, e).with_deadline_ms(ms))?;
        Ok(Self {
            label: label.to_string(),
            store,
            bindings,
        })
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn describe(&mut self) -> Result<PolicyInfo, PluginError> {
        arm_deadline(&mut self.store);
        let info = self
            .bindings
            .context_mode_plugin_routing_policy()
            .call_describe(&mut self.store)
            .map_err(|e| PluginError::from_call(&self.label, e))?;
        if info.id.trim().is_empty() {
            return Err(self.garbage("describe returned an empty id".into()));
        }
        Ok(info)
    }

    pub fn decide(
        &mut self,
        call: &ToolCall,
        context: &PolicyContext,
    ) -> Result<Decision, PluginError> {
        self.decide_within(call, context, PLUGIN_CALL_TIMEOUT_MS)
    }

    /// Decides under a deadline of `ms`.
    pub fn decide_within(
        &mut self,
        call: &ToolCall,
        context: &PolicyContext,
        ms: u64,
    ) -> Result<Decision, PluginError> {
        arm_deadline_ms(&mut self.store, ms);
        let decision = self
            .bindings
            .context_mode_plugin_routing_policy()
            .call_decide(&mut self.store, call, context)
            .map_err(|e| PluginError::from_call(&self.label, e).with_deadline_ms(ms))?;
        validate(&decision).map_err(|message| self.garbage(message))?;
        Ok(decision)
    }

    fn garbage(&self, message: String) -> PluginError {
        PluginError::Garbage {
            plugin: self.label.clone(),
            message,
        }
    }
}

/// Rejects decisions no host should pass on: empty, oversized or control-laden reasons,
/// rewrites that change nothing.
fn validate(decision: &Decision) -> Result<(), String> {
    let text = match &decision.action {
        Action::Redirect(reason) | Action::Deny(reason) | Action::Ask(reason) => reason,
        Action::AddContext(text) => text,
        Action::Rewrite(rewrite) => {
            if rewrite.command.is_none() && rewrite.prompt.is_none() {
                return Err("a rewrite that changes nothing".into());
            }
            match &rewrite.reason {
                // The reason may become a denial the model reads: same rules as one.
                Some(reason) => reason,
                None => return Ok(()),
            }
        }
        Action::NoOpinion | Action::Allow => return Ok(()),
    };
    if text.trim().is_empty() {
        return Err("an empty reason".into());
    }
    if text.len() > REASON_MAX_BYTES {
        return Err(format!(
            "a {} B reason (limit {REASON_MAX_BYTES} B)",
            text.len()
        ));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err("a reason with control characters".into());
    }
    Ok(())
}

/// How the built-in policy is named in errors and in `ChainOutcome::decided_by`.
pub const BUILTIN_POLICY_LABEL: &str = "policy default";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::bindings::Rewrite;

    fn decision(action: Action) -> Decision {
        Decision {
            action,
            nudge: None,
        }
    }

    #[test]
    fn validation_rejects_garbage_reasons() {
        assert!(validate(&decision(Action::Deny(String::new()))).is_err());
        assert!(
            validate(&decision(Action::Redirect(
                "x".repeat(REASON_MAX_BYTES + 1)
            )))
            .is_err()
        );
        assert!(validate(&decision(Action::Ask("a\u{1b}[31mred".into()))).is_err());
        assert!(
            validate(&decision(Action::Rewrite(Rewrite {
                command: None,
                prompt: None,
                reason: None,
            })))
            .is_err()
        );
        assert!(
            validate(&decision(Action::Deny(
                "denied by security policy: rule".into()
            )))
            .is_ok()
        );
        assert!(validate(&decision(Action::NoOpinion)).is_ok());
    }
}

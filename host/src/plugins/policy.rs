//! Loaded routing policies and the chain that asks them in order.

use wasmtime::Store;
use wasmtime::component::Component;

use super::bindings::policy_world::PolicyPlugin;
use super::bindings::{Action, Decision, PolicyContext, PolicyInfo, ToolCall};
use super::engine::{PluginState, arm_deadline};
use super::{PluginEngine, PluginError};

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
        let mut store = engine.new_store();
        arm_deadline(&mut store);
        let bindings = PolicyPlugin::instantiate(&mut store, component, engine.linker()?)
            .map_err(|e| PluginError::from_call(label, e))?;
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
        arm_deadline(&mut self.store);
        let decision = self
            .bindings
            .context_mode_plugin_routing_policy()
            .call_decide(&mut self.store, call, context)
            .map_err(|e| PluginError::from_call(&self.label, e))?;
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

/// What the chain decided, who decided it, and which policies failed on the way.
pub struct ChainOutcome {
    pub decision: Decision,
    pub decided_by: Option<String>,
    pub failures: Vec<PluginError>,
}

/// Installed policies in their order, then the built-in one. The first decision other
/// than no-opinion wins; a policy that fails is skipped (and reported), so a broken
/// community policy can neither hang the agent nor switch off the built-in rules.
#[derive(Default)]
pub struct PolicyChain {
    policies: Vec<Policy>,
    failures: Vec<PluginError>,
}

impl PolicyChain {
    /// Installed policies in their order, then the built-in `default` policy.
    pub fn load(engine: &PluginEngine, registry: &super::Registry) -> Self {
        let mut chain = PolicyChain::default();
        for installed in registry.policies() {
            let label = format!("policy {}", installed.id);
            chain.push(
                registry
                    .load_component(engine, installed)
                    .and_then(|c| Policy::instantiate(engine, &c, &label)),
            );
        }
        if let Some(default) = super::builtin(super::PluginKind::Policy, "default") {
            chain.push(
                engine
                    .load(default.bytes, default.sha256)
                    .and_then(|c| Policy::instantiate(engine, &c, BUILTIN_POLICY_LABEL)),
            );
        }
        chain
    }

    pub fn push(&mut self, policy: Result<Policy, PluginError>) {
        match policy {
            Ok(policy) => self.policies.push(policy),
            Err(err) => self.failures.push(err),
        }
    }

    pub fn decide(mut self, call: &ToolCall, context: &PolicyContext) -> ChainOutcome {
        self.decide_next(call, context)
    }

    /// Decides one call and keeps the instances for the next (a directory walk asks
    /// about every file). Load failures are reported with the first call only.
    pub fn decide_next(&mut self, call: &ToolCall, context: &PolicyContext) -> ChainOutcome {
        let mut failures = std::mem::take(&mut self.failures);
        for policy in &mut self.policies {
            match policy.decide(call, context) {
                Ok(decision) if matches!(decision.action, Action::NoOpinion) => {}
                Ok(decision) => {
                    return ChainOutcome {
                        decision,
                        decided_by: Some(policy.label().to_string()),
                        failures,
                    };
                }
                Err(err) => failures.push(err),
            }
        }
        ChainOutcome {
            decision: Decision {
                action: Action::NoOpinion,
                nudge: None,
            },
            decided_by: None,
            failures,
        }
    }
}

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

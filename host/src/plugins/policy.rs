//! One loaded routing policy: describe and decide, each call sandboxed and bounded.
//! Speaks whichever contract version the component was built for.

use wasmtime::Store;
use wasmtime::component::Component;

use super::contract::{self, ContractVersion, on_version, v0_2, v0_3, v0_4};
use super::engine::{PluginState, arm_deadline, arm_deadline_ms};
use super::{PluginEngine, PluginError, PluginKind};
use crate::model::{Action, Decision, PolicyContext, PolicyInfo, ToolCall};

use crate::limits::PLUGIN_CALL_TIMEOUT_MS;
use crate::limits::POLICY_REASON_MAX_BYTES as REASON_MAX_BYTES;

/// The generated bindings of the component's contract version.
enum Bindings {
    V0_2(v0_2::PolicyPlugin),
    V0_3(v0_3::PolicyPlugin),
    V0_4(v0_4::PolicyPlugin),
}

/// One instantiated routing policy.
pub struct Policy {
    label: String,
    store: Store<PluginState>,
    bindings: Bindings,
}

/// One question to the policies of a chain, in each contract version's types: lowered
/// once per version asked, however many policies of that version answer it.
pub struct Question<'a> {
    call: &'a ToolCall,
    context: &'a PolicyContext,
    v0_2: Option<v0_2::PolicyQuestion>,
    v0_3: Option<v0_3::PolicyQuestion>,
    v0_4: Option<v0_4::PolicyQuestion>,
}

impl<'a> Question<'a> {
    pub fn new(call: &'a ToolCall, context: &'a PolicyContext) -> Self {
        Self {
            call,
            context,
            v0_2: None,
            v0_3: None,
            v0_4: None,
        }
    }
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
        let version = match contract::classify(engine, component)? {
            (PluginKind::Policy, version) => version,
            (PluginKind::Adapter, _) => {
                return Err(PluginError::Invalid(format!(
                    "{label} is an adapter, not a routing policy"
                )));
            }
        };
        let mut store = engine.new_store();
        let _ticking = arm_deadline_ms(&mut store, ms);
        let bindings = engine
            .instantiate(&mut store, component)
            .and_then(|instance| match version {
                ContractVersion::V0_2 => {
                    v0_2::PolicyPlugin::new(&mut store, &instance).map(Bindings::V0_2)
                }
                ContractVersion::V0_3 => {
                    v0_3::PolicyPlugin::new(&mut store, &instance).map(Bindings::V0_3)
                }
                ContractVersion::V0_4 => {
                    v0_4::PolicyPlugin::new(&mut store, &instance).map(Bindings::V0_4)
                }
            })
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

    /// The contract version the component was built for.
    pub fn contract(&self) -> ContractVersion {
        match self.bindings {
            Bindings::V0_2(_) => ContractVersion::V0_2,
            Bindings::V0_3(_) => ContractVersion::V0_3,
            Bindings::V0_4(_) => ContractVersion::V0_4,
        }
    }

    pub fn describe(&mut self) -> Result<PolicyInfo, PluginError> {
        let _ticking = arm_deadline(&mut self.store);
        let store = &mut self.store;
        let info: PolicyInfo = on_version!(&self.bindings, plugin => plugin
            .context_mode_plugin_routing_policy()
            .call_describe(store)
            .map(Into::into))
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
        self.decide_within(&mut Question::new(call, context), PLUGIN_CALL_TIMEOUT_MS)
    }

    /// Decides under a deadline of `ms`.
    pub fn decide_within(
        &mut self,
        question: &mut Question<'_>,
        ms: u64,
    ) -> Result<Decision, PluginError> {
        let _ticking = arm_deadline_ms(&mut self.store, ms);
        let store = &mut self.store;
        let (call, context) = (question.call, question.context);
        let decision: Decision = match &self.bindings {
            Bindings::V0_2(plugin) => {
                let (call, context) = question
                    .v0_2
                    .get_or_insert_with(|| v0_2::policy_question(call, context));
                plugin
                    .context_mode_plugin_routing_policy()
                    .call_decide(store, call, context)
                    .map(Into::into)
            }
            Bindings::V0_3(plugin) => {
                let (call, context) = question
                    .v0_3
                    .get_or_insert_with(|| v0_3::policy_question(call, context));
                plugin
                    .context_mode_plugin_routing_policy()
                    .call_decide(store, call, context)
                    .map(Into::into)
            }
            Bindings::V0_4(plugin) => {
                let (call, context) = question
                    .v0_4
                    .get_or_insert_with(|| v0_4::policy_question(call, context));
                plugin
                    .context_mode_plugin_routing_policy()
                    .call_decide(store, call, context)
                    .map(Into::into)
            }
        }
        .map_err(|e| PluginError::from_call(&self.label, e).with_deadline_ms(ms))?;
        validate(&decision).map_err(|bad| self.garbage(bad.to_string()))?;
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
/// What makes a decision unfit to pass on; shown after "returned garbage:".
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum BadDecision {
    #[error("a rewrite that changes nothing")]
    EmptyRewrite,
    #[error("an empty reason")]
    EmptyReason,
    #[error("a {bytes} B reason (limit {REASON_MAX_BYTES} B)")]
    LongReason { bytes: usize },
    #[error("a reason with control characters")]
    ControlCharacters,
}

fn validate(decision: &Decision) -> Result<(), BadDecision> {
    let text = match &decision.action {
        Action::Redirect(reason) | Action::Deny(reason) | Action::Ask(reason) => reason,
        Action::AddContext(text) => text,
        Action::Rewrite(rewrite) => {
            if rewrite.command.is_none() && rewrite.prompt.is_none() {
                return Err(BadDecision::EmptyRewrite);
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
        return Err(BadDecision::EmptyReason);
    }
    if text.len() > REASON_MAX_BYTES {
        return Err(BadDecision::LongReason { bytes: text.len() });
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(BadDecision::ControlCharacters);
    }
    Ok(())
}

/// How the built-in policy is named in errors and in `ChainOutcome::decided_by`.
pub const BUILTIN_POLICY_LABEL: &str = "policy default";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Rewrite;

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

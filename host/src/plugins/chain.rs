//! The routing-policy chain of one hook call or one ctx tool call (ADR 0013).
//!
//! The built-in policy is asked first: its verdict carries the user's permission rules,
//! and a denial there is final, whatever an installed policy would say. Installed
//! policies are asked next, in their order; the first decision other than no-opinion
//! wins, except that it cannot lift the user's ask (only a denial is stricter) and a
//! rewrite is checked again, as rewritten, against the user's rules. When no installed
//! policy decides, the built-in decision stands. All installed policies of one chain
//! share one time budget; the built-in policy has its own reserve, so it always decides.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::policy::{BUILTIN_POLICY_LABEL, Question};
use super::{PluginEngine, PluginError, Policy, Registry};
use crate::limits::{
    PLUGIN_CALL_TIMEOUT_MS, POLICY_BUILTIN_RESERVE_MS, POLICY_CALL_MIN_MS, POLICY_CHAIN_BUDGET_MS,
    SERVED_HOOK_IDLE_INSTANCES_MAX,
};
use crate::model::{Action, Decision, PolicyContext, ToolCall};

/// What the chain decided, who decided it, and which policies failed on the way.
pub struct ChainOutcome {
    pub decision: Decision,
    pub decided_by: Option<String>,
    pub failures: Vec<PluginError>,
    /// Why the built-in policy (the user's rules) could not decide, when it could not:
    /// a caller that must not run anything unchecked fails closed on it.
    pub builtin_failure: Option<PluginError>,
}

/// The time installed policies of one chain may still spend in their guests.
struct Budget {
    left: Duration,
}

impl Budget {
    fn new() -> Self {
        Self {
            left: Duration::from_millis(POLICY_CHAIN_BUDGET_MS - POLICY_BUILTIN_RESERVE_MS),
        }
    }

    /// The deadline of the next installed call; `None` once the budget is spent.
    fn next_call_ms(&self) -> Option<u64> {
        let left_ms = u64::try_from(self.left.as_millis()).unwrap_or(u64::MAX);
        (left_ms >= POLICY_CALL_MIN_MS).then(|| left_ms.min(PLUGIN_CALL_TIMEOUT_MS))
    }

    fn charge(&mut self, since: Instant) {
        self.left = self.left.saturating_sub(since.elapsed());
    }
}

/// The built-in policy, then the installed policies, for one call.
pub struct PolicyChain {
    builtin: Result<Policy, PluginError>,
    installed: Vec<Policy>,
    /// Load failures of installed policies, reported with the first decision only.
    failures: Vec<PluginError>,
    budget: Budget,
    /// How many installed policies the registry named when the chain was loaded.
    named: usize,
}

impl PolicyChain {
    /// Installed policies in their order, and the built-in `default` policy.
    pub fn load(engine: &PluginEngine, registry: &Registry) -> Self {
        let builtin = match super::builtin(super::PluginKind::Policy, "default") {
            Some(default) => engine.load(default.bytes, default.sha256).and_then(|c| {
                Policy::instantiate_within(
                    engine,
                    &c,
                    BUILTIN_POLICY_LABEL,
                    POLICY_BUILTIN_RESERVE_MS,
                )
            }),
            None => Err(PluginError::Invalid(format!(
                "{BUILTIN_POLICY_LABEL} is not built into this cm"
            ))),
        };
        let mut chain = Self {
            builtin,
            installed: Vec::new(),
            failures: Vec::new(),
            budget: Budget::new(),
            named: 0,
        };
        let policies = registry.policies();
        chain.named = policies.len();
        for installed in policies {
            let label = format!("policy {}", installed.id);
            let Some(ms) = chain.budget.next_call_ms() else {
                chain.failures.push(skipped(label));
                continue;
            };
            // Only guest time is charged: compiling is the host's work (cached at install).
            let loaded = registry
                .load_compiled(engine, installed)
                .and_then(|component| {
                    let started = Instant::now();
                    let policy = Policy::instantiate_within(engine, &component, &label, ms);
                    chain.budget.charge(started);
                    policy
                });
            match loaded {
                Ok(policy) => chain.installed.push(policy),
                Err(err) => chain.failures.push(err),
            }
        }
        chain
    }

    /// Every policy the registry named is loaded and none was dropped after a failure:
    /// the chain answers a next call as a freshly loaded one would.
    fn intact(&self) -> bool {
        self.builtin.is_ok() && self.failures.is_empty() && self.installed.len() == self.named
    }

    pub fn decide(mut self, call: &ToolCall, context: &PolicyContext) -> ChainOutcome {
        self.decide_next(call, context)
    }

    /// Decides one call and keeps the instances for the next (a directory walk asks
    /// about every file, all within the one budget of its tool call).
    pub fn decide_next(&mut self, call: &ToolCall, context: &PolicyContext) -> ChainOutcome {
        let mut outcome = ChainOutcome {
            decision: no_opinion(),
            decided_by: None,
            failures: std::mem::take(&mut self.failures),
            builtin_failure: None,
        };
        let mut question = Question::new(call, context);
        let user = match self.ask_builtin(&mut question) {
            Ok(decision) => Some(decision),
            Err(err) => {
                outcome.fail_builtin(err);
                None
            }
        };
        if let Some(decision) = user
            .as_ref()
            .filter(|d| matches!(d.action, Action::Deny(_)))
        {
            return outcome.by_builtin(decision.clone());
        }
        let mut index = 0;
        while index < self.installed.len() {
            let Some(ms) = self.budget.next_call_ms() else {
                let rest = self.installed.drain(index..);
                outcome
                    .failures
                    .extend(rest.map(|p| skipped(p.label().into())));
                break;
            };
            let started = Instant::now();
            let answer = self.installed[index].decide_within(&mut question, ms);
            self.budget.charge(started);
            match answer {
                Ok(decision) if matches!(decision.action, Action::NoOpinion) => index += 1,
                Ok(decision) => {
                    let label = self.installed[index].label().to_string();
                    return self.settle(outcome, decision, label, user, call, context);
                }
                Err(err) => {
                    if err.poisons_instance() {
                        self.installed.remove(index);
                    } else {
                        index += 1;
                    }
                    outcome.failures.push(err);
                }
            }
        }
        match user {
            Some(decision) => outcome.by_builtin(decision),
            None => outcome,
        }
    }

    /// An installed policy's decision, unless the user's rules outrank it.
    fn settle(
        &mut self,
        mut outcome: ChainOutcome,
        decision: Decision,
        label: String,
        user: Option<Decision>,
        call: &ToolCall,
        context: &PolicyContext,
    ) -> ChainOutcome {
        // The user asked to be asked: only a denial is stricter than that.
        if let Some(ask) = user.filter(|d| matches!(d.action, Action::Ask(_)))
            && !matches!(decision.action, Action::Deny(_))
        {
            return outcome.by_builtin(ask);
        }
        // What runs is the rewritten call: the user's rules judge that, not the original.
        if let Action::Rewrite(rewrite) = &decision.action {
            let mut rewritten = call.clone();
            rewritten.command = rewrite.command.clone().or(rewritten.command);
            rewritten.prompt = rewrite.prompt.clone().or(rewritten.prompt);
            match self.ask_builtin(&mut Question::new(&rewritten, context)) {
                Ok(verdict) if matches!(verdict.action, Action::Deny(_) | Action::Ask(_)) => {
                    return outcome.by_builtin(verdict);
                }
                Ok(_) => {}
                Err(err) => outcome.fail_builtin(err),
            }
        }
        outcome.decision = decision;
        outcome.decided_by = Some(label);
        outcome
    }

    /// The built-in policy's decision, or why it cannot give one.
    fn ask_builtin(&mut self, question: &mut Question<'_>) -> Result<Decision, PluginError> {
        let builtin = self.builtin.as_mut().map_err(|err| err.clone())?;
        let decision = builtin.decide_within(question, POLICY_BUILTIN_RESERVE_MS);
        if let Err(err) = &decision
            && err.poisons_instance()
        {
            self.builtin = Err(err.clone());
        }
        decision
    }
}

/// Policy chains kept loaded between the calls of one `cm serve` (ADR 35): a call takes
/// an idle chain loaded from the same installed policies (ids, hashes, file stamps), or
/// loads one; it gives the chain back when it is still whole. Loading again happens only
/// when the registry or a policy file changed, or after a policy failed.
#[derive(Default)]
pub struct ChainPool {
    idle: Mutex<Vec<(String, PolicyChain)>>,
}

/// A chain taken from a [`ChainPool`], with what it was loaded from.
pub struct PooledChain {
    key: String,
    pub chain: PolicyChain,
}

impl ChainPool {
    /// An idle chain of the registry's current policies (its budget renewed), or a new one.
    pub fn take(&self, engine: &PluginEngine, registry: &Registry) -> PooledChain {
        let key = chain_key(registry);
        let idle = self.idle.lock().ok().and_then(|mut idle| {
            let at = idle.iter().rposition(|(k, _)| *k == key)?;
            Some(idle.swap_remove(at).1)
        });
        let chain = match idle {
            Some(mut chain) => {
                chain.budget = Budget::new();
                chain
            }
            None => PolicyChain::load(engine, registry),
        };
        PooledChain { key, chain }
    }

    /// Keeps a chain for a later call, unless a policy failed or is missing in it; chains
    /// of an older registry are dropped.
    pub fn give_back(&self, taken: PooledChain) {
        if !taken.chain.intact() {
            return;
        }
        if let Ok(mut idle) = self.idle.lock() {
            idle.retain(|(k, _)| *k == taken.key);
            if idle.len() < SERVED_HOOK_IDLE_INSTANCES_MAX {
                idle.push((taken.key, taken.chain));
            }
        }
    }

    /// How many chains are idle (for tests and the warm-up).
    pub fn idle(&self) -> usize {
        self.idle.lock().map(|idle| idle.len()).unwrap_or(0)
    }
}

/// What a chain was loaded from: each installed policy's id, hash and file stamp, in order.
fn chain_key(registry: &Registry) -> String {
    registry
        .policies()
        .iter()
        .map(|p| {
            let (len, mtime) = registry.stamp_of(p).unwrap_or_default();
            format!("{}:{}:{len}:{mtime};", p.id, p.sha256)
        })
        .collect()
}

impl ChainOutcome {
    fn by_builtin(mut self, decision: Decision) -> Self {
        self.decision = decision;
        self.decided_by = Some(BUILTIN_POLICY_LABEL.to_string());
        self
    }

    fn fail_builtin(&mut self, err: PluginError) {
        self.failures.push(err.clone());
        self.builtin_failure = Some(err);
    }
}

fn no_opinion() -> Decision {
    Decision {
        action: Action::NoOpinion,
        nudge: None,
    }
}

fn skipped(plugin: String) -> PluginError {
    PluginError::Skipped {
        plugin,
        budget_ms: POLICY_CHAIN_BUDGET_MS,
    }
}

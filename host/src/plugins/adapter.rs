//! A loaded platform adapter: describe / parse / render / setup-plan, each call
//! sandboxed and bounded. Speaks whichever contract version the component was built
//! for and answers in the host model.

use wasmtime::Store;
use wasmtime::component::Component;

use super::contract::{self, ContractVersion, on_version, v0_2, v0_3, v0_4};
use super::engine::{PluginState, arm_deadline};
use super::{PluginEngine, PluginError, PluginKind};
use crate::model::{
    CtxToolNames, Descriptor, MCP_SERVER_NAME, NormalizedEvent, ParseError, ParseInput, Rendered,
    Reply, SetupInput, SetupPlan,
};

use crate::limits::CTX_TOOL_NAME_MAX_BYTES;
use crate::limits::PLUGIN_RENDERED_MAX_BYTES as RENDERED_MAX_BYTES;

/// The generated bindings of the component's contract version.
enum Bindings {
    V0_2(v0_2::AdapterPlugin),
    V0_3(v0_3::AdapterPlugin),
    V0_4(v0_4::AdapterPlugin),
}

/// The same call on the bindings of every version that names the ctx tools itself
/// (0.3.0 on); `None` from a 0.2.0 adapter.
macro_rules! on_named_tools_version {
    ($bindings:expr, $plugin:ident, $module:ident => $call:expr) => {
        match $bindings {
            Bindings::V0_2(_) => None,
            Bindings::V0_3($plugin) => {
                #[allow(unused_imports)]
                use v0_3 as $module;
                Some($call)
            }
            Bindings::V0_4($plugin) => {
                #[allow(unused_imports)]
                use v0_4 as $module;
                Some($call)
            }
        }
    };
}

/// One instantiated adapter. A trap poisons the instance, so after an error the
/// caller should not expect further calls to succeed.
pub struct Adapter {
    label: String,
    store: Store<PluginState>,
    bindings: Bindings,
}

impl Adapter {
    pub fn instantiate(
        engine: &PluginEngine,
        component: &Component,
        label: &str,
    ) -> Result<Self, PluginError> {
        let version = match contract::classify(engine, component)? {
            (PluginKind::Adapter, version) => version,
            (PluginKind::Policy, _) => {
                return Err(PluginError::Invalid(format!(
                    "{label} is a routing policy, not an adapter"
                )));
            }
        };
        let mut store = engine.new_store();
        let _ticking = arm_deadline(&mut store);
        let bindings = engine
            .instantiate(&mut store, component)
            .and_then(|instance| match version {
                ContractVersion::V0_2 => {
                    v0_2::AdapterPlugin::new(&mut store, &instance).map(Bindings::V0_2)
                }
                ContractVersion::V0_3 => {
                    v0_3::AdapterPlugin::new(&mut store, &instance).map(Bindings::V0_3)
                }
                ContractVersion::V0_4 => {
                    v0_4::AdapterPlugin::new(&mut store, &instance).map(Bindings::V0_4)
                }
            })
            .map_err(|e| PluginError::from_call(label, e))?;
        Ok(Self {
            label: label.to_string(),
            store,
            bindings,
        })
    }

    /// The contract version the component was built for.
    pub fn contract(&self) -> ContractVersion {
        match self.bindings {
            Bindings::V0_2(_) => ContractVersion::V0_2,
            Bindings::V0_3(_) => ContractVersion::V0_3,
            Bindings::V0_4(_) => ContractVersion::V0_4,
        }
    }

    /// The descriptor, with the names its host shows for our tools when the server is
    /// registered as [`MCP_SERVER_NAME`].
    pub fn describe(&mut self) -> Result<Descriptor, PluginError> {
        let _ticking = arm_deadline(&mut self.store);
        let label = &self.label;
        let store = &mut self.store;
        let named = on_named_tools_version!(&self.bindings, plugin, version => {
            let adapter = plugin.context_mode_plugin_adapter();
            adapter.call_describe(&mut *store).and_then(|d| {
                let names = CtxToolNames::from_fn(|tool| {
                    let _ticking = arm_deadline(&mut *store);
                    adapter.call_ctx_tool_name(&mut *store, MCP_SERVER_NAME, tool)
                })?;
                Ok(version::descriptor(d, names))
            })
        });
        let descriptor = match (named, &self.bindings) {
            (Some(described), _) => described,
            (None, Bindings::V0_2(plugin)) => plugin
                .context_mode_plugin_adapter()
                .call_describe(&mut *store)
                .map(v0_2::descriptor),
            (None, _) => unreachable!("every version from 0.3.0 on names its ctx tools"),
        }
        .map_err(|e| PluginError::from_call(label, e))?;
        if descriptor.id.trim().is_empty() {
            return Err(self.garbage("describe returned an empty id"));
        }
        let bad_name = |name: &str| {
            name.trim().is_empty()
                || name.len() > CTX_TOOL_NAME_MAX_BYTES
                || name.chars().any(char::is_control)
        };
        if descriptor.ctx_tools.iter().any(|(_, name)| bad_name(name)) {
            return Err(self.garbage(&format!(
                "a ctx tool name that is empty, over {CTX_TOOL_NAME_MAX_BYTES} B or has control characters"
            )));
        }
        // The variables it asks for are handed to `parse`: only those the rule allows.
        super::env_vars::check(&descriptor.id, &descriptor.env_vars)?;
        Ok(descriptor)
    }

    /// The names the host shows for our tools when the server is registered under
    /// `server`; `None` from a contract 0.2.0 adapter, which has one fixed prefix.
    pub fn ctx_tool_names(&mut self, server: &str) -> Result<Option<CtxToolNames>, PluginError> {
        let store = &mut self.store;
        let names = on_named_tools_version!(&self.bindings, plugin, _version => {
            let adapter = plugin.context_mode_plugin_adapter();
            CtxToolNames::from_fn(|tool| {
                let _ticking = arm_deadline(&mut *store);
                adapter.call_ctx_tool_name(&mut *store, server, tool)
            })
        });
        let Some(names) = names else {
            return Ok(None);
        };
        let names = names.map_err(|e| PluginError::from_call(&self.label, e))?;
        let bad = names.iter().any(|(_, name)| {
            name.trim().is_empty()
                || name.len() > CTX_TOOL_NAME_MAX_BYTES
                || name.chars().any(char::is_control)
        });
        if bad {
            return Err(self.garbage(&format!(
                "a ctx tool name that is empty, over {CTX_TOOL_NAME_MAX_BYTES} B or has control characters"
            )));
        }
        Ok(Some(names))
    }

    pub fn parse(
        &mut self,
        input: ParseInput,
    ) -> Result<Result<NormalizedEvent, ParseError>, PluginError> {
        let _ticking = arm_deadline(&mut self.store);
        let store = &mut self.store;
        on_version!(&self.bindings, plugin => plugin
            .context_mode_plugin_adapter()
            .call_parse(store, &input.into())
            .map(|parsed| parsed.map(Into::into).map_err(Into::into)))
        .map_err(|e| PluginError::from_call(&self.label, e))
    }

    /// Renders a reply; output that no host could read (oversized, or not JSON when
    /// non-empty and the adapter claims JSON) is garbage.
    pub fn render(&mut self, reply: Reply) -> Result<Rendered, PluginError> {
        let _ticking = arm_deadline(&mut self.store);
        let store = &mut self.store;
        let rendered: Rendered = on_version!(&self.bindings, plugin => plugin
            .context_mode_plugin_adapter()
            .call_render(store, &reply.into())
            .map(Into::into))
        .map_err(|e| PluginError::from_call(&self.label, e))?;
        if rendered.stdout.len() > RENDERED_MAX_BYTES || rendered.stderr.len() > RENDERED_MAX_BYTES
        {
            return Err(self.garbage("render returned an oversized reply"));
        }
        let trimmed = rendered.stdout.trim();
        if !trimmed.is_empty() && serde_json::from_str::<serde_json::Value>(trimmed).is_err() {
            return Err(self.garbage("render returned stdout that is not JSON"));
        }
        Ok(rendered)
    }

    pub fn setup_plan(&mut self, input: SetupInput) -> Result<SetupPlan, PluginError> {
        let _ticking = arm_deadline(&mut self.store);
        let store = &mut self.store;
        on_version!(&self.bindings, plugin => plugin
            .context_mode_plugin_adapter()
            .call_setup(store, &input.into())
            .map(Into::into))
        .map_err(|e| PluginError::from_call(&self.label, e))
    }

    /// The program whose `--version` names the host's version, when the adapter's plan
    /// depends on it (contract 0.4.0 on): only a bare program name is taken, so a plugin
    /// can never make `cm` run a path or pass arguments of its choosing.
    pub fn host_version_command(&mut self) -> Result<Option<String>, PluginError> {
        let _ticking = arm_deadline(&mut self.store);
        let store = &mut self.store;
        let Bindings::V0_4(plugin) = &self.bindings else {
            return Ok(None);
        };
        let command = plugin
            .context_mode_plugin_adapter()
            .call_host_version_command(store)
            .map_err(|e| PluginError::from_call(&self.label, e))?;
        Ok(command.filter(|name| is_bare_program_name(name)))
    }

    /// The setup plan for the host version `cm` found; `setup_plan` for an adapter built
    /// before contract 0.4.0.
    pub fn setup_plan_for_version(
        &mut self,
        input: SetupInput,
        host_version: &str,
    ) -> Result<SetupPlan, PluginError> {
        let Bindings::V0_4(plugin) = &self.bindings else {
            return self.setup_plan(input);
        };
        let _ticking = arm_deadline(&mut self.store);
        plugin
            .context_mode_plugin_adapter()
            .call_setup_for_version(&mut self.store, &input.into(), host_version)
            .map(Into::into)
            .map_err(|e| PluginError::from_call(&self.label, e))
    }

    fn garbage(&self, message: &str) -> PluginError {
        PluginError::Garbage {
            plugin: self.label.clone(),
            message: message.to_string(),
        }
    }
}

/// A program name `cm` may look up on PATH: letters, digits, `-`, `_` and `.`, not
/// starting with `.` or `-`, at most 64 bytes.
fn is_bare_program_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod program_name_tests {
    use super::is_bare_program_name;

    #[test]
    fn only_bare_names_are_programs_cm_runs() {
        assert!(is_bare_program_name("claude"));
        assert!(is_bare_program_name("gemini-cli_2.x"));
        for refused in [
            "",
            "/bin/sh",
            "../claude",
            "claude --evil",
            "-rf",
            ".hidden",
            "a;b",
            "c\\d",
        ] {
            assert!(!is_bare_program_name(refused), "{refused:?}");
        }
        assert!(!is_bare_program_name(&"x".repeat(65)));
    }
}

//! A loaded platform adapter: describe / parse / render / setup-plan, each call
//! sandboxed and bounded. Speaks whichever contract version the component was built
//! for and answers in the host model.

use wasmtime::Store;
use wasmtime::component::Component;

use super::contract::{self, ContractVersion, on_version, v0_2, v0_3};
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
        arm_deadline(&mut store);
        let bindings = engine
            .instantiate(&mut store, component)
            .and_then(|instance| match version {
                ContractVersion::V0_2 => {
                    v0_2::AdapterPlugin::new(&mut store, &instance).map(Bindings::V0_2)
                }
                ContractVersion::V0_3 => {
                    v0_3::AdapterPlugin::new(&mut store, &instance).map(Bindings::V0_3)
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
        }
    }

    /// The descriptor, with the names its host shows for our tools when the server is
    /// registered as [`MCP_SERVER_NAME`].
    pub fn describe(&mut self) -> Result<Descriptor, PluginError> {
        arm_deadline(&mut self.store);
        let label = &self.label;
        let store = &mut self.store;
        let descriptor = match &self.bindings {
            Bindings::V0_2(plugin) => plugin
                .context_mode_plugin_adapter()
                .call_describe(&mut *store)
                .map(v0_2::descriptor),
            Bindings::V0_3(plugin) => {
                let adapter = plugin.context_mode_plugin_adapter();
                adapter.call_describe(&mut *store).and_then(|d| {
                    let names = CtxToolNames::from_fn(|tool| {
                        arm_deadline(&mut *store);
                        adapter.call_ctx_tool_name(&mut *store, MCP_SERVER_NAME, tool)
                    })?;
                    Ok(v0_3::descriptor(d, names))
                })
            }
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
        let Bindings::V0_3(plugin) = &self.bindings else {
            return Ok(None);
        };
        let adapter = plugin.context_mode_plugin_adapter();
        let store = &mut self.store;
        let names = CtxToolNames::from_fn(|tool| {
            arm_deadline(&mut *store);
            adapter.call_ctx_tool_name(&mut *store, server, tool)
        })
        .map_err(|e| PluginError::from_call(&self.label, e))?;
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
        arm_deadline(&mut self.store);
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
        arm_deadline(&mut self.store);
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
        arm_deadline(&mut self.store);
        let store = &mut self.store;
        on_version!(&self.bindings, plugin => plugin
            .context_mode_plugin_adapter()
            .call_setup(store, &input.into())
            .map(Into::into))
        .map_err(|e| PluginError::from_call(&self.label, e))
    }

    fn garbage(&self, message: &str) -> PluginError {
        PluginError::Garbage {
            plugin: self.label.clone(),
            message: message.to_string(),
        }
    }
}

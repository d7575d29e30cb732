//! A loaded platform adapter: describe / parse / render / setup-plan, each call
//! sandboxed and bounded.

use wasmtime::Store;
use wasmtime::component::Component;

use super::bindings::adapter_world::AdapterPlugin;
use super::bindings::{
    Descriptor, NormalizedEvent, ParseError, ParseInput, Rendered, Reply, SetupInput, SetupPlan,
};
use super::engine::{PluginState, arm_deadline};
use super::{PluginEngine, PluginError};

use crate::limits::PLUGIN_RENDERED_MAX_BYTES as RENDERED_MAX_BYTES;

/// One instantiated adapter. A trap poisons the instance, so after an error the
/// caller should not expect further calls to succeed.
pub struct Adapter {
    label: String,
    store: Store<PluginState>,
    bindings: AdapterPlugin,
}

impl Adapter {
    pub fn instantiate(
        engine: &PluginEngine,
        component: &Component,
        label: &str,
    ) -> Result<Self, PluginError> {
        let mut store = engine.new_store();
        arm_deadline(&mut store);
        let bindings = AdapterPlugin::instantiate(&mut store, component, engine.linker()?)
            .map_err(|e| PluginError::from_call(label, e))?;
        Ok(Self {
            label: label.to_string(),
            store,
            bindings,
        })
    }

    pub fn describe(&mut self) -> Result<Descriptor, PluginError> {
        arm_deadline(&mut self.store);
        let descriptor = self
            .bindings
            .context_mode_plugin_adapter()
            .call_describe(&mut self.store)
            .map_err(|e| PluginError::from_call(&self.label, e))?;
        if descriptor.id.trim().is_empty() {
            return Err(self.garbage("describe returned an empty id"));
        }
        // The variables it asks for are handed to `parse`: only those the rule allows.
        super::env_vars::check(&descriptor.id, &descriptor.env_vars)?;
        Ok(descriptor)
    }

    pub fn parse(
        &mut self,
        input: &ParseInput,
    ) -> Result<Result<NormalizedEvent, ParseError>, PluginError> {
        arm_deadline(&mut self.store);
        self.bindings
            .context_mode_plugin_adapter()
            .call_parse(&mut self.store, input)
            .map_err(|e| PluginError::from_call(&self.label, e))
    }

    /// Renders a reply; output that no host could read (oversized, or not JSON when
    /// non-empty and the adapter claims JSON) is garbage.
    pub fn render(&mut self, reply: &Reply) -> Result<Rendered, PluginError> {
        arm_deadline(&mut self.store);
        let rendered = self
            .bindings
            .context_mode_plugin_adapter()
            .call_render(&mut self.store, reply)
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

    pub fn setup_plan(&mut self, input: &SetupInput) -> Result<SetupPlan, PluginError> {
        arm_deadline(&mut self.store);
        self.bindings
            .context_mode_plugin_adapter()
            .call_setup(&mut self.store, input)
            .map_err(|e| PluginError::from_call(&self.label, e))
    }

    fn garbage(&self, message: &str) -> PluginError {
        PluginError::Garbage {
            plugin: self.label.clone(),
            message: message.to_string(),
        }
    }
}

//! Which agent host the MCP client is: the adapter `CONTEXT_MODE_PLATFORM` names, else
//! its `clientInfo.name` against the adapters' client names, else their environment
//! markers.

use super::{Platform, Service};
use crate::model::Descriptor;
use crate::plugins::{Adapter, BUILTIN_PLUGINS, PluginKind, Registry};

/// Forces detection to an adapter id.
pub const PLATFORM_ENV: &str = crate::env::PLATFORM;

impl Service {
    /// Detects the platform once per server; calls while it runs wait for it, later
    /// calls do nothing.
    pub fn detect_platform(&self, client_name: &str) {
        if self.platform.get().is_some() {
            return;
        }
        self.platform_detected
            .get_or_init(|| self.detect_platform_once(client_name));
    }

    fn detect_platform_once(&self, client_name: &str) {
        // Loading an adapter on a cold `.cwasm` cache compiles it: stop at the first
        // adapter that claims the client; only an unknown client needs all of them.
        let env_platform = std::env::var(PLATFORM_ENV).ok();
        let forced = env_platform.as_deref().map(str::trim).unwrap_or("");
        // Forced: only the named adapter ends the loading (one named by no adapter
        // loads them all, and detection goes on as if unset).
        let claims = |d: &Descriptor| {
            if forced.is_empty() {
                claims_client(d, client_name)
            } else {
                d.id.eq_ignore_ascii_case(forced)
            }
        };
        let descriptors = self.adapter_descriptors(claims);
        let found = choose(
            &descriptors,
            client_name,
            |var| std::env::var_os(var).is_some(),
            env_platform.as_deref(),
        );
        if let Some(descriptor) = found {
            let ctx_tools = self
                .registered_names(descriptor)
                .unwrap_or_else(|| descriptor.ctx_tools.clone());
            self.set_platform(Platform {
                id: descriptor.id.clone(),
                ctx_tools,
            });
            tracing::info!("agent host {} (MCP client {client_name:?})", descriptor.id);
        } else {
            tracing::info!("no adapter claims MCP client {client_name:?}");
        }
    }

    /// Our tools' names under the server name this host registered us by (ADR 19), when
    /// it is not the default the descriptor was named for.
    fn registered_names(&self, descriptor: &Descriptor) -> Option<crate::model::CtxToolNames> {
        let engine = self.engine().ok()?;
        let registry = Registry::load(&self.root).unwrap_or_default();
        let mut adapter = match registry.adapter(&descriptor.id) {
            Some(installed) => registry
                .load_compiled(engine, installed)
                .and_then(|c| Adapter::instantiate(engine, &c, &installed.id)),
            None => {
                let builtin = crate::plugins::builtin(PluginKind::Adapter, &descriptor.id)?;
                engine
                    .load(builtin.bytes, builtin.sha256)
                    .and_then(|c| Adapter::instantiate(engine, &c, builtin.id))
            }
        }
        .ok()?;
        let project = self.project().ok()?;
        super::server_name::renamed_tools(&mut adapter, descriptor, &self.root, &project)
            .ok()
            .flatten()
    }

    /// Descriptors of the adapters, installed ones first and overriding built-ins of the
    /// same id, up to and including the first one `stop_at` accepts.
    fn adapter_descriptors(&self, stop_at: impl Fn(&Descriptor) -> bool) -> Vec<Descriptor> {
        let Ok(engine) = self.engine() else {
            return Vec::new();
        };
        let registry = Registry::load(&self.root).unwrap_or_default();
        let mut descriptors: Vec<Descriptor> = Vec::new();
        let installed = registry
            .plugins
            .iter()
            .filter(|p| p.kind == PluginKind::Adapter);
        for plugin in installed {
            let described = registry
                .load_compiled(engine, plugin)
                .and_then(|c| Adapter::instantiate(engine, &c, &plugin.id))
                .and_then(|mut a| a.describe());
            match described {
                Ok(d) if stop_at(&d) => {
                    descriptors.push(d);
                    return descriptors;
                }
                Ok(d) => descriptors.push(d),
                Err(err) => tracing::warn!("{err}"),
            }
        }
        for builtin in BUILTIN_PLUGINS
            .iter()
            .filter(|p| p.kind == PluginKind::Adapter)
        {
            if descriptors.iter().any(|d| d.id == builtin.id) {
                continue;
            }
            let described = engine
                .load(builtin.bytes, builtin.sha256)
                .and_then(|c| Adapter::instantiate(engine, &c, builtin.id))
                .and_then(|mut a| a.describe());
            match described {
                Ok(d) if stop_at(&d) => {
                    descriptors.push(d);
                    return descriptors;
                }
                Ok(d) => descriptors.push(d),
                Err(err) => tracing::warn!("{err}"),
            }
        }
        descriptors
    }
}

/// True when one of the adapter's client names is `client_name`, ignoring case; a name
/// ending in `*` matches every client name it starts (Qwen Code appends a version).
fn claims_client(descriptor: &Descriptor, client_name: &str) -> bool {
    let client = client_name.trim().to_ascii_lowercase();
    descriptor.client_names.iter().any(|pattern| {
        let pattern = pattern.trim().to_ascii_lowercase();
        match pattern.strip_suffix('*') {
            Some(prefix) => !prefix.is_empty() && client.starts_with(prefix),
            None => pattern == client,
        }
    })
}

/// The adapter for this client: the one `CONTEXT_MODE_PLATFORM` names (upstream pins
/// it in an agent's MCP entry so that it wins over everything else), else by client
/// name, else by environment marker. An override no adapter has is logged and ignored.
fn choose<'a>(
    descriptors: &'a [Descriptor],
    client_name: &str,
    env_is_set: impl Fn(&str) -> bool,
    override_id: Option<&str>,
) -> Option<&'a Descriptor> {
    let forced = override_id.map(str::trim).filter(|id| !id.is_empty());
    let by_override = forced.and_then(|wanted| {
        let found = descriptors
            .iter()
            .find(|d| d.id.eq_ignore_ascii_case(wanted));
        if found.is_none() {
            tracing::warn!("{PLATFORM_ENV}={wanted:?} names no adapter; detecting instead");
        }
        found
    });
    let by_name = || descriptors.iter().find(|d| claims_client(d, client_name));
    by_override.or_else(by_name).or_else(|| {
        descriptors
            .iter()
            .find(|d| d.env_markers.iter().any(|m| env_is_set(m)))
    })
}

#[cfg(test)]
mod client_name_tests {
    use super::*;

    fn descriptor(id: &str, names: &[&str]) -> Descriptor {
        Descriptor {
            id: id.to_owned(),
            display_name: id.to_owned(),
            version: "0".to_owned(),
            client_names: names.iter().map(|n| n.to_string()).collect(),
            env_markers: Vec::new(),
            file_markers: Vec::new(),
            events: Vec::new(),
            env_vars: Vec::new(),
            ctx_tools: Default::default(),
        }
    }

    #[test]
    fn a_trailing_star_matches_by_prefix_and_case_is_ignored() {
        let qwen = descriptor("qwen-code", &["qwen-cli-mcp-client-*"]);
        let copilot = descriptor("copilot-cli", &["GitHub Copilot CLI", "copilot-cli"]);
        assert!(claims_client(&qwen, "qwen-cli-mcp-client-0.24.4"));
        assert!(claims_client(&qwen, "Qwen-CLI-MCP-Client-x"));
        assert!(!claims_client(&qwen, "qwen-cli"));
        assert!(claims_client(&copilot, " github copilot cli "));
        assert!(!claims_client(&copilot, "GitHub Copilot CLI 2"));
        assert!(!claims_client(&descriptor("x", &["*"]), "anything"));
        let all = [copilot, qwen];
        let found = choose(&all, "qwen-cli-mcp-client-1", |_| false, None);
        assert_eq!(found.map(|d| d.id.as_str()), Some("qwen-code"));
    }
}

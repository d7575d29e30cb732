//! How an agent host names context-mode's MCP tools. Hosts prefix an MCP server's
//! tools after the name the server is registered under (`mcp__<server>__ctx_execute`,
//! `mcp_<server>_ctx_execute`, plain `ctx_execute`, ...), so the names are asked of
//! the adapter once per load and carried as a table.

/// The name `cm setup` registers the MCP server under.
pub const MCP_SERVER_NAME: &str = "context-mode";

/// The server tool that answers a hook in-server (ADR 27): called by the agent's own hook
/// entries, never listed to the model.
pub const SERVED_HOOK_TOOL: &str = "ctx_hook";

/// The server's own names of every tool it offers, in the order the server lists them.
pub const CTX_TOOLS: &[&str] = &[
    "ctx_execute",
    "ctx_execute_file",
    "ctx_batch_execute",
    "ctx_batch",
    "ctx_index",
    "ctx_search",
    "ctx_fetch_and_index",
    "ctx_purge",
    "ctx_resume",
    "ctx_doctor",
    "ctx_upgrade",
    "ctx_stats",
    "ctx_insight",
];

/// The name the model sees for each of our tools on one platform. The default names
/// every tool by its own name, for a client whose host is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CtxToolNames {
    /// (server's tool name, name the model sees), one per entry of [`CTX_TOOLS`].
    names: Vec<(String, String)>,
}

impl CtxToolNames {
    /// Names each tool of [`CTX_TOOLS`] with `name_of(tool)`.
    pub fn from_fn<E>(mut name_of: impl FnMut(&str) -> Result<String, E>) -> Result<Self, E> {
        let names = CTX_TOOLS
            .iter()
            .map(|tool| Ok((tool.to_string(), name_of(tool)?)))
            .collect::<Result<_, E>>()?;
        Ok(Self { names })
    }

    /// Every tool named `prefix` + its own name (how contract 0.2.0 described it).
    pub fn with_prefix(prefix: &str) -> Self {
        Self {
            names: CTX_TOOLS
                .iter()
                .map(|tool| (tool.to_string(), format!("{prefix}{tool}")))
                .collect(),
        }
    }

    /// The name the model sees for `tool`; a tool missing from the table keeps its own.
    pub fn name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.names
            .iter()
            .find(|(own, _)| own == tool)
            .map_or(tool, |(_, name)| name.as_str())
    }

    /// What stands before `ctx_execute` in its name: the one prefix a policy built for
    /// contract 0.2.0 can be told. Empty when the host names it some other way.
    pub fn prefix(&self) -> &str {
        let tool = CTX_TOOLS[0];
        self.name(tool).strip_suffix(tool).unwrap_or("")
    }

    /// (server's tool name, name the model sees) pairs.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.names.iter().map(|(t, n)| (t.as_str(), n.as_str()))
    }
}

//! The registry of `ctx_*` tools. A tool is one registration in one file of this folder —
//! name, parameter type, description, annotations, handler, bulk flag — listed once in
//! [`all`]; tools/list, dispatch and the heap release after bulk calls all read it.
//! Only tools that really work are registered.

mod batch_execute;
pub mod contract;
mod doctor;
mod execute;
mod execute_file;
mod fetch_and_index;
mod hook;
mod index;
mod insight;
pub mod portable;
mod purge;
mod resume;
mod search;
mod stats;
mod upgrade;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::service::{Reply, Service};

/// Every tool `cm serve` offers, in the order tools/list shows them.
pub fn all() -> Vec<ToolSpec> {
    vec![
        execute::spec(),
        execute_file::spec(),
        batch_execute::spec(),
        batch_execute::spec_2_0(),
        index::spec(),
        search::spec(),
        fetch_and_index::spec(),
        purge::spec(),
        resume::spec(),
        doctor::spec(),
        upgrade::spec(),
        stats::spec(),
        insight::spec(),
    ]
}

/// The tools `cm serve` answers but does not list: the agent's own hook entries call
/// them, the model never does (ADR 27).
pub fn unlisted() -> Vec<ToolSpec> {
    vec![hook::spec()]
}

/// The names of every registered tool (what `cm serve`'s self-test expects it to list).
pub fn names() -> Vec<&'static str> {
    all().iter().map(|tool| tool.name).collect()
}

/// The registered tool of this name.
pub fn lookup<'a>(tools: &'a [ToolSpec], name: &str) -> Result<&'a ToolSpec, Undecodable> {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .ok_or(Undecodable::UnknownTool)
}

/// A reply still being worked out; dropping it abandons the call.
pub type PendingReply = Pin<Box<dyn Future<Output = Reply> + Send>>;

/// A call whose arguments fit the tool's parameters, ready to run on the service with
/// the raw arguments (kept for the rules, see `service::rule_input`).
pub type Prepared = Box<dyn FnOnce(Arc<Service>, Value) -> PendingReply + Send>;

/// How a tool's service runs.
pub enum Handler<P> {
    /// SQLite work, reading files: on the blocking pool, off the async workers.
    Blocking(fn(&Service, P, &Value) -> Reply),
    /// Blocking work of well under a millisecond that answers an agent waiting on it (a
    /// served hook): run where the call arrived, since the blocking pool's two thread
    /// hops cost more than the work. When `quick` says all it needs is loaded, on the
    /// worker itself (the other worker goes on reading stdin); else the worker hands its
    /// other tasks to another thread meanwhile (`block_in_place`), which costs a thread
    /// wake-up but keeps a slow call (a plugin to load, a store lock to wait for) from
    /// holding a worker.
    InPlace {
        run: fn(&Service, P, &Value) -> Reply,
        quick: fn(&P) -> bool,
    },
    /// A child process or a fetch: async, so a cancelled call drops it (a child is
    /// killed with its group by the sandbox's guard).
    Async(fn(Arc<Service>, P, Value) -> PendingReply),
}

/// Annotations a client may show or act on.
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Hints {
    /// Reads and reports; nothing changes.
    pub const READS: Hints = Hints::of(true, false, true, false);
    /// Adds to what is kept under the data root; the same call again adds nothing new.
    pub const STORES: Hints = Hints::of(false, false, true, false);
    /// Runs code, which may do and reach anything.
    pub const RUNS_CODE: Hints = Hints::of(false, false, false, true);
    /// Fetches from the network into the store.
    pub const FETCHES: Hints = Hints::of(false, false, true, true);
    /// Deletes from the store.
    pub const DELETES: Hints = Hints::of(false, true, true, false);

    const fn of(read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> Self {
        Hints {
            read_only,
            destructive,
            idempotent,
            open_world,
        }
    }
}

/// What one tool file registers.
pub struct Registration<P> {
    pub name: &'static str,
    pub description: &'static str,
    pub hints: Hints,
    /// Calls can hold megabytes at once (a document, a command's output, a page).
    pub bulk: bool,
    pub handler: Handler<P>,
}

/// Why a call cannot run.
#[derive(Debug)]
pub enum Undecodable {
    /// No tool has this name: a protocol error (-32602) per the MCP spec.
    UnknownTool,
    /// The arguments don't fit: a tool result with `isError`, one line the model
    /// reads and corrects (MCP 2025-11-25: input validation errors are tool errors).
    Arguments(Reply),
}

type Decoder = Box<dyn Fn(&Value) -> Result<Prepared, Undecodable> + Send + Sync>;

/// One registered tool.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Arc<JsonObject>,
    pub annotations: ToolAnnotations,
    pub bulk: bool,
    decode: Decoder,
}

impl ToolSpec {
    pub fn new<P>(registration: Registration<P>) -> ToolSpec
    where
        P: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    {
        let Registration {
            name,
            description,
            hints,
            bulk,
            handler,
        } = registration;
        let decode: Decoder = match handler {
            Handler::Blocking(run) => Box::new(move |raw| {
                let params = parse::<P>(name, raw)?;
                let prepared: Prepared = Box::new(move |service, raw| {
                    Box::pin(async move {
                        let running = super::lifecycle::BlockingCall::start();
                        tokio::task::spawn_blocking(move || {
                            let _running = running;
                            run(&service, params, &raw)
                        })
                        .await
                        .unwrap_or_else(|e| Reply::error(format!("tool failed: {e}")))
                    })
                });
                Ok(prepared)
            }),
            Handler::InPlace { run, quick } => Box::new(move |raw| {
                let params = parse::<P>(name, raw)?;
                let prepared: Prepared = Box::new(move |service, raw| {
                    Box::pin(async move {
                        let _running = super::lifecycle::BlockingCall::start();
                        let flavor = tokio::runtime::Handle::current().runtime_flavor();
                        // A one-thread runtime has no worker to hand tasks to.
                        if flavor == tokio::runtime::RuntimeFlavor::MultiThread && !quick(&params) {
                            tokio::task::block_in_place(|| run(&service, params, &raw))
                        } else {
                            run(&service, params, &raw)
                        }
                    })
                });
                Ok(prepared)
            }),
            Handler::Async(run) => Box::new(move |raw| {
                let params = parse::<P>(name, raw)?;
                let prepared: Prepared = Box::new(move |service, raw| run(service, params, raw));
                Ok(prepared)
            }),
        };
        ToolSpec {
            name,
            description,
            schema: schema_of::<P>(),
            annotations: ToolAnnotations::from_raw(
                None,
                Some(hints.read_only),
                Some(hints.destructive),
                Some(hints.idempotent),
                Some(hints.open_world),
            ),
            bulk,
            decode,
        }
    }

    pub fn to_tool(&self) -> Tool {
        Tool::new(self.name, self.description, self.schema.clone())
            .with_annotations(self.annotations.clone())
    }

    /// The call these arguments make, or the one line that says why they don't fit.
    /// Decoding is apart from running so every tool's decoding can be thrown generated
    /// arguments without running anything (the tests).
    pub fn decode(&self, raw: &Value) -> Result<Prepared, Undecodable> {
        (self.decode)(raw)
    }
}

/// Arguments into a parameter struct; a failure is one line for the model.
/// Deserialized from the borrowed value: a large `content` is copied once, not cloned first.
fn parse<T: DeserializeOwned>(tool: &str, raw: &Value) -> Result<T, Undecodable> {
    T::deserialize(raw).map_err(|e| {
        Undecodable::Arguments(Reply::error(format!("{tool}: invalid arguments: {e}")))
    })
}

/// The JSON schema of a parameter struct, as MCP wants it (always an object schema),
/// in the subset every client accepts ([`portable`]).
fn schema_of<T: schemars::JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::schema_for!(T);
    let value = serde_json::to_value(schema).unwrap_or_default();
    Arc::new(portable::portable(value))
}

#[cfg(test)]
mod tests;

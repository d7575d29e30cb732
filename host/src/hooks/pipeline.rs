//! The steps of one hook call: read stdin, load the adapter, parse, decide, render.

use crate::platform::fs::Canonical as _;
use std::io::Read;
use std::path::Path;

use super::failure::HookFailure;
use super::{Fallback, HookOutput, error_log, reply, session_state};
use crate::limits::HOOK_STDIN_MAX_BYTES;
use crate::model::{
    Action, Capabilities, Decision, Descriptor, EventBinding, EventKind, NormalizedEvent,
    ParseError, ParseInput, PolicyContext, Rendered, Reply, ToolCall, ToolKind,
};
use crate::permissions;
use crate::plugins::{
    Adapter, ChainPool, PluginEngine, PluginKind, PolicyChain, Registry, builtin,
};
use crate::service::continuity;

/// A hook call that got as far as a loaded adapter and a known event.
pub(super) struct Loaded {
    pub(super) adapter: Adapter,
    pub(super) descriptor: Descriptor,
    pub(super) binding: EventBinding,
}

/// What every step of one answer needs besides the adapter: the engine and registry the
/// adapter came from, the data root, and where the journal is written.
pub(super) struct Answering<'a> {
    pub(super) engine: &'a PluginEngine,
    pub(super) registry: &'a Registry,
    pub(super) root: &'a Path,
    /// The open store of `cm serve`'s own project, which an in-server hook writes
    /// through; `None` for a `cm hook` process, which opens the store itself.
    pub(super) shared_store: Option<continuity::SharedStore>,
    pub(super) started: std::time::Instant,
    /// Added to the event name the call's timing is kept under.
    pub(super) event_suffix: &'static str,
    /// Policy chains kept loaded between calls (`cm serve`); `None` loads one per call.
    pub(super) chains: Option<&'a ChainPool>,
    /// A server answers this call itself, so one is live without looking for its marker.
    pub(super) in_server: bool,
}

/// What a `cm hook` run still holds once it has answered (the engine, the adapter's
/// instance, the registry): dropped after the reply is on its way, not before it.
pub(super) type Leftover = Box<dyn std::any::Any + Send>;

pub(super) fn run(
    platform: &str,
    event: &str,
    root: Option<&Path>,
    fallback: &Fallback,
    started: std::time::Instant,
) -> Result<(HookOutput, Leftover), HookFailure> {
    let root = root.ok_or(HookFailure::NoDataRoot)?;
    let log = |message: &str| error_log::append(Some(root), platform, event, message);

    let registry = Registry::load(root).unwrap_or_else(|err| {
        log(&err.to_string());
        Registry::default()
    });
    let engine = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(root)))?;
    let mut loaded = load_adapter(&engine, &registry, platform, event, &log)?;
    let fallback_output = no_opinion_output(&mut loaded)?;
    if let Ok(mut slot) = fallback.lock() {
        *slot = fallback_output;
    }

    let stdin = read_stdin()?;
    let answering = Answering {
        engine: &engine,
        registry: &registry,
        root,
        shared_store: None,
        started,
        event_suffix: "",
        chains: None,
        in_server: false,
    };
    let output = answer(&answering, &mut loaded, stdin, &log)?;
    drop(answering);
    Ok((output, Box::new((loaded, registry, engine))))
}

/// What the host is told when the hook has nothing to say: its "allow" reply.
pub(super) fn no_opinion_output(loaded: &mut Loaded) -> Result<HookOutput, HookFailure> {
    let reply = reply::no_opinion(loaded.binding.kind, &loaded.binding.native, None);
    Ok(output_of(loaded.adapter.render(reply)?))
}

/// One hook call from its stdin to the host's reply: parse, decide, journal, render.
/// The same steps for a `cm hook` process and for a hook `cm serve` answers.
pub(super) fn answer(
    answering: &Answering<'_>,
    loaded: &mut Loaded,
    stdin: String,
    log: &dyn Fn(&str),
) -> Result<HookOutput, HookFailure> {
    let root = answering.root;
    let platform = loaded.descriptor.id.clone();
    let event_name = loaded.binding.native.clone();
    let model = crate::agent_session::payload_model(&stdin);
    // The agent both this hook and `cm serve` run under (ADR 0021); its pid is the one
    // the adapter derives a session id from when the payload names none.
    let agent = crate::agent_session::agent_of_this_process();
    let input = ParseInput {
        native_event: loaded.binding.native.clone(),
        stdin,
        env: loaded
            .descriptor
            .env_vars
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|value| (name.clone(), value)))
            .collect(),
        parent_pid: agent.map_or_else(crate::platform::process::parent_pid, |a| a.pid),
    };
    let parsed = loaded.adapter.parse(input)?;
    let event = parsed.map_err(|err| match err {
        ParseError::UnknownEvent(name) => HookFailure::EventNotHandled(name),
        ParseError::BadInput(why) => HookFailure::BadStdin(why),
    })?;

    if let Some(agent) = agent
        && !event.session_id.trim().is_empty()
    {
        let announcement = crate::agent_session::Announcement {
            session_id: event.session_id.clone(),
            platform: platform.clone(),
            model,
        };
        if let Err(err) = crate::agent_session::announce(root, agent, &announcement) {
            log(&format!("cannot announce the session to the server: {err}"));
        }
    }

    // No project (the working directory was deleted): nothing to decide for or journal
    // into; the caller answers with the allow reply and logs this line.
    // The event's project by the one rule `cm serve` uses too, so both name one store.
    let project_dir = crate::paths::project_dir_of(event.project_dir.as_deref().map(Path::new))?;
    let ctx_tools = loaded.descriptor.ctx_tools.clone();
    name_tools_as_registered(loaded, root, &project_dir, log);
    let mut event = event;
    if let Some(tool) = event.tool.as_mut()
        && tool.kind == ToolKind::Mcp
        && loaded
            .descriptor
            .ctx_tools
            .iter()
            .any(|(_, name)| name == tool.name)
    {
        // One of ours under a server name the adapter's own spelling check misses.
        tool.kind = ToolKind::Ctx;
    }
    let mut store =
        continuity::HookStore::new(root, &project_dir).sharing(answering.shared_store.clone());
    let mut reply = match (event.kind, event.tool.clone()) {
        (EventKind::PreToolUse, Some(tool)) => {
            let reply = pre_tool_use(answering, loaded, (&event, &project_dir), tool, log);
            continuity::after_pre_tool_use(
                &mut store,
                &loaded.descriptor,
                &event,
                reply.verdict,
                log,
            );
            reply
        }
        (kind, tool) => {
            let mut reply = reply::no_opinion(kind, &loaded.binding.native, tool);
            reply.additional_context =
                continuity::on_event(&mut store, &loaded.descriptor, &loaded.binding, &event, log);
            reply.updated_output = continuity::replacement_output(
                &mut store,
                &loaded.descriptor,
                &loaded.binding,
                &event,
                log,
            );
            if !loaded
                .binding
                .capabilities
                .contains(Capabilities::INJECT_CONTEXT)
                && let Some(text) = reply.additional_context.take()
                && host_can_inject(&loaded.descriptor)
                && let Err(err) = session_state::hold_context(root, &event.session_id, &text)
            {
                log(&format!("cannot hold context for a later event: {err}"));
            }
            reply
        }
    };
    if loaded
        .binding
        .capabilities
        .contains(Capabilities::INJECT_CONTEXT)
    {
        let held =
            session_state::take_held_context(root, &event.session_id).unwrap_or_else(|err| {
                log(&format!("cannot take held context: {err}"));
                Vec::new()
            });
        reply.additional_context = reply::deliver_held(held, reply.additional_context.take());
    }
    let rendered = loaded.adapter.render(reply);
    // A warm adapter answers the next call too: its tool names are the descriptor's
    // own again, renamed per call for the call's project.
    loaded.descriptor.ctx_tools = ctx_tools;
    let rendered = rendered?;
    let timed_as = format!("{event_name}{}", answering.event_suffix);
    continuity::record_timing(
        &mut store,
        &platform,
        &timed_as,
        answering.started.elapsed(),
    );
    Ok(output_of(rendered))
}

/// Names our tools after the server name the host registered us under (ADR 19), when
/// it is not the one the descriptor was named for.
fn name_tools_as_registered(
    loaded: &mut Loaded,
    root: &Path,
    project_dir: &Path,
    log: &dyn Fn(&str),
) {
    let renamed = crate::service::server_name::renamed_tools(
        &mut loaded.adapter,
        &loaded.descriptor,
        root,
        project_dir,
    );
    match renamed {
        Ok(Some(names)) => loaded.descriptor.ctx_tools = names,
        Ok(None) => {}
        Err(err) => log(&err.to_string()),
    }
}

pub(super) fn load_adapter(
    engine: &PluginEngine,
    registry: &Registry,
    platform: &str,
    event: &str,
    log: &dyn Fn(&str),
) -> Result<Loaded, HookFailure> {
    let (adapter, descriptor) = load_described(engine, registry, platform, log)?;
    let binding = binding_for(&descriptor, event)?;
    Ok(Loaded {
        adapter,
        descriptor,
        binding,
    })
}

/// The platform's adapter, described: the installed one when it loads, else the
/// built-in of that id.
pub(super) fn load_described(
    engine: &PluginEngine,
    registry: &Registry,
    platform: &str,
    log: &dyn Fn(&str),
) -> Result<(Adapter, Descriptor), HookFailure> {
    let mut described = None;
    let mut installed_failure = None;
    if let Some(installed) = registry.adapter(platform) {
        let label = format!("adapter {platform} (installed)");
        // Described before use: a descriptor outside the env-vars rule is refused here too.
        let loaded = registry.load_compiled(engine, installed).and_then(|c| {
            let mut adapter = Adapter::instantiate(engine, &c, &label)?;
            let descriptor = adapter.describe()?;
            Ok((adapter, descriptor))
        });
        match loaded {
            Ok(found) => described = Some(found),
            Err(err) if builtin(PluginKind::Adapter, platform).is_some() => {
                log(&format!("{err}; using the built-in adapter"));
            }
            // A host only an installed adapter knows: nothing else can answer it.
            Err(err) => installed_failure = Some(err),
        }
    }
    if let Some(err) = installed_failure {
        return Err(HookFailure::Plugin(err));
    }
    let found = match described {
        Some(found) => found,
        None => {
            let plugin = builtin(PluginKind::Adapter, platform).ok_or_else(|| {
                HookFailure::UnknownPlatform {
                    platform: platform.to_owned(),
                    known: known_platforms(registry),
                }
            })?;
            let c = engine.load(plugin.bytes, plugin.sha256)?;
            let mut adapter = Adapter::instantiate(engine, &c, &format!("adapter {platform}"))?;
            let descriptor = adapter.describe()?;
            (adapter, descriptor)
        }
    };
    Ok(found)
}

/// The descriptor's binding of `event` (case-insensitive), or why there is none.
pub(super) fn binding_for(
    descriptor: &Descriptor,
    event: &str,
) -> Result<EventBinding, HookFailure> {
    if descriptor.events.is_empty() {
        return Err(HookFailure::NoHookEvents {
            platform: descriptor.id.clone(),
        });
    }
    descriptor
        .events
        .iter()
        .find(|b| b.native.eq_ignore_ascii_case(event))
        .cloned()
        .ok_or_else(|| {
            let known: Vec<_> = descriptor
                .events
                .iter()
                .map(|b| b.native.as_str())
                .collect();
            HookFailure::UnknownEvent {
                event: event.to_owned(),
                platform: descriptor.id.clone(),
                known: known.join(", "),
            }
        })
}

fn known_platforms(registry: &Registry) -> String {
    let mut ids: Vec<&str> = crate::plugins::BUILTIN_PLUGINS
        .iter()
        .filter(|p| p.kind == PluginKind::Adapter)
        .map(|p| p.id)
        .chain(
            registry
                .plugins
                .iter()
                .filter(|p| p.kind == PluginKind::Adapter)
                .map(|p| p.id.as_str()),
        )
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.join(", ")
}

fn pre_tool_use(
    answering: &Answering<'_>,
    loaded: &Loaded,
    (event, project_dir): (&NormalizedEvent, &Path),
    tool: ToolCall,
    log: &dyn Fn(&str),
) -> Reply {
    let root = answering.root;
    let (context, unknown_rules) =
        policy_context(answering, loaded, event, &tool, project_dir, log);

    let decision = match unknown_rules.filter(|file| !repairs(&tool, file, project_dir)) {
        // Fail closed: the unreadable file may hold a deny rule for this call.
        Some(file) => Decision {
            action: Action::Deny(file.refusal()),
            nudge: None,
        },
        None => {
            let (engine, registry) = (answering.engine, answering.registry);
            let outcome = match answering.chains {
                Some(pool) => {
                    let mut taken = pool.take(engine, registry);
                    let outcome = taken.chain.decide_next(&tool, &context);
                    pool.give_back(taken);
                    outcome
                }
                None => PolicyChain::load(engine, registry).decide(&tool, &context),
            };
            for failure in &outcome.failures {
                log(&failure.to_string());
            }
            outcome.decision
        }
    };
    let decision = with_external_mcp_tip(decision, loaded, root, (event, &tool), &context, log);
    let nudge = decision.nudge.clone();
    let expressible = reply::Expressible {
        capabilities: loaded.binding.capabilities,
        can_hold_context: host_can_inject(&loaded.descriptor),
    };
    let shaped = reply::shape(decision, expressible, &loaded.binding.native, tool);
    if let Some(text) = &shaped.held_context
        && let Err(err) = session_state::hold_context(root, &event.session_id, text)
    {
        log(&format!("cannot hold context for a later event: {err}"));
    }
    if let (true, Some(nudge)) = (shaped.nudge_delivered, nudge)
        && let Err(err) = session_state::record_nudge(root, &event.session_id, &nudge)
    {
        log(&format!("cannot record nudge {nudge}: {err}"));
    }
    shaped.reply
}

fn policy_context(
    answering: &Answering<'_>,
    loaded: &Loaded,
    event: &NormalizedEvent,
    tool: &ToolCall,
    project_dir: &Path,
    log: &dyn Fn(&str),
) -> (PolicyContext, Option<permissions::Unreadable>) {
    let (mut context, unreadable) = crate::service::policy_context(
        project_dir,
        loaded.descriptor.id.clone(),
        loaded.descriptor.ctx_tools.clone(),
    );
    for file in &unreadable {
        log(&file.to_string());
    }
    context.file_size_bytes = match (tool.kind, &tool.path) {
        (ToolKind::Read, Some(path)) => std::fs::metadata(project_dir.join(path))
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len()),
        _ => None,
    };
    let root = answering.root;
    context.server_live = answering.in_server || crate::readiness::server_live(root);
    context.nudges_shown = session_state::load(root, &event.session_id).nudges_shown;
    (context, unreadable.into_iter().next())
}

/// A call of another MCP server's tool that nothing else has an opinion on gets the
/// periodic tip about large payloads, where this event can carry context and the ctx
/// tools it names are reachable.
fn with_external_mcp_tip(
    decision: Decision,
    loaded: &Loaded,
    root: &Path,
    (event, tool): (&NormalizedEvent, &ToolCall),
    context: &PolicyContext,
    log: &dyn Fn(&str),
) -> Decision {
    let applies = tool.kind == ToolKind::Mcp
        && matches!(decision.action, Action::NoOpinion)
        && context.server_live
        && loaded
            .binding
            .capabilities
            .contains(Capabilities::INJECT_CONTEXT);
    if !applies {
        return decision;
    }
    match super::external_mcp::on_call(root, &event.session_id, &loaded.descriptor.ctx_tools) {
        Ok(Some(tip)) => Decision {
            action: Action::AddContext(tip),
            nudge: None,
        },
        Ok(None) => decision,
        Err(err) => {
            log(&format!("cannot count the external MCP call: {err}"));
            decision
        }
    }
}

/// A Read or an edit of the unreadable settings file itself: refusing it would leave
/// the agent unable to repair the file it was told to fix.
fn repairs(tool: &ToolCall, file: &permissions::Unreadable, project_dir: &Path) -> bool {
    matches!(tool.kind, ToolKind::Read | ToolKind::Edit)
        && tool.path.as_deref().is_some_and(|path| {
            let path = project_dir.join(path);
            path == file.path
                || matches!(
                    (path.canonical(), file.path.canonical()),
                    (Ok(a), Ok(b)) if a == b
                )
        })
}

/// Reads stdin up to the cap; more is bad input, not a reason to run out of memory.
pub(super) fn read_stdin() -> Result<String, HookFailure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(HOOK_STDIN_MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(HookFailure::Stdin)?;
    if bytes.len() > HOOK_STDIN_MAX_BYTES {
        return Err(HookFailure::StdinTooLarge);
    }
    String::from_utf8(bytes).map_err(|_| HookFailure::StdinNotUtf8)
}

fn output_of(rendered: Rendered) -> HookOutput {
    HookOutput {
        stdout: rendered.stdout,
        stderr: rendered.stderr,
        exit_code: rendered.exit_code,
    }
}

/// True when some event of the host can add text to the model's context, so context an
/// event cannot carry is worth holding for it.
fn host_can_inject(descriptor: &crate::model::Descriptor) -> bool {
    descriptor
        .events
        .iter()
        .any(|b| b.capabilities.contains(Capabilities::INJECT_CONTEXT))
}

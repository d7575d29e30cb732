//! `cm serve`: the `ctx_*` tools over MCP stdio. Speaks only JSON-RPC on stdout, logs
//! to stderr, writes a readiness marker while it runs, exits 0 when stdin closes or on a signal
//! ([`lifecycle`]).

pub mod framing;
mod lifecycle;
mod scan;
mod server;
pub mod tools;
pub mod transport;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rmcp::ServiceExt;

use crate::service::Service;

pub use server::CmServer;

use lifecycle::{Ending, Lifecycle, Termination};

pub fn serve() -> anyhow::Result<()> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = runtime.block_on(run());
    // Never drop the runtime: it would wait for tokio's stdin reader, a thread in a
    // blocking read nothing interrupts (ADR 20).
    match outcome {
        Ok(()) => std::process::exit(0),
        Err(err) => {
            eprintln!("cm: {}", crate::human::one_line(&format!("{err:#}")));
            std::process::exit(1)
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let mut termination = Termination::install();
    let root = crate::paths::data_root()?;
    let project = crate::paths::project_dir();
    let session = crate::agent_session::ServerSession::of_this_process(root.clone());
    let service = Arc::new(Service::new(root.clone(), project, session));
    // The tool list is the client's next request: made beside the handshake.
    tokio::task::spawn_blocking(CmServer::prepare);
    let lifecycle = Lifecycle::new();
    let server = CmServer::new(service.clone());
    let transport = transport::StdioTransport::new(
        crate::platform::serve_stdin(),
        transport::Stdout::default(),
        lifecycle.clone(),
    );
    let running = tokio::select! {
        running = server.serve(transport) => running.context("MCP handshake failed")?,
        () = termination.received() => {
            lifecycle.close();
            wind_down(&service).await;
            return Ok(());
        }
    };
    {
        // Old content and memory files are housekeeping (this opens the store too):
        // never in the way of the handshake.
        let service = service.clone();
        tokio::task::spawn_blocking(move || service.start_up_cleanup());
    }
    {
        // What the first served hooks need, loaded once in the background (ADR 35).
        let service = service.clone();
        let client = running
            .peer_info()
            .map(|info| info.client_info.name.clone());
        tokio::task::spawn_blocking(move || warm_hooks(&service, client.as_deref()));
    }
    // Written after the handshake: a marker means a server that can answer tool calls.
    let marker = crate::readiness::ReadinessMarker::write(&root)
        .map_err(|e| tracing::warn!("cannot write readiness marker: {e}"))
        .ok();
    let cancel = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    let ending = tokio::select! {
        quit = &mut waiting => {
            if let Err(err) = quit {
                tracing::warn!("server task ended abnormally: {err}");
            }
            None
        }
        () = lifecycle.wait_input_end() => Some(Ending::InputClosed),
        () = termination.received() => Some(Ending::Signal),
    };
    if let Some(ending) = ending {
        tracing::info!("ending: {ending:?}");
        let grace = Duration::from_millis(crate::limits::SERVE_EXIT_GRACE_MS);
        // Input closed right after a request (`printf … | cm serve`): a call that ends
        // within the grace still gets its reply; a signal gets none.
        let finished = ending == Ending::InputClosed
            && tokio::time::timeout(grace, &mut waiting).await.is_ok();
        if !finished {
            lifecycle.close();
            // Cancels every running call: its future is dropped, a child killed with its group.
            cancel.cancel();
            let _ = tokio::time::timeout(grace, &mut waiting).await;
        }
    }
    wind_down(&service).await;
    drop(marker);
    Ok(())
}

/// Loads what the first served hooks need (ADR 35): the platform the MCP client is (so
/// a first tool call does not detect it inline), its adapter, the policy chain, the
/// hooks' own store connection. Calls arriving meanwhile share each load.
fn warm_hooks(service: &Service, client_name: Option<&str>) {
    if let Some(name) = client_name {
        service.detect_platform(name);
    }
    let Ok(engine) = service.engine() else { return };
    let project = service.project().ok();
    let platform = service.platform().id;
    let platforms: Vec<String> = (platform != "unknown")
        .then_some(platform)
        .into_iter()
        .collect();
    crate::hooks::warm_served(
        crate::hooks::ServedBy {
            engine,
            root: &service.root,
            project: project.as_deref(),
        },
        &platforms,
    );
}

/// The last steps on every way out: a blocking call (a store write) gets a moment to
/// commit, then every child still alive, foreground or background, is stopped.
async fn wind_down(service: &Service) {
    let grace = Duration::from_millis(crate::limits::SERVE_EXIT_GRACE_MS);
    if !lifecycle::blocking_calls_done(grace).await {
        tracing::warn!("a store call still runs at exit; SQLite rolls it back on next open");
    }
    service.terminate_children();
    crate::service::deferred_timings::flush();
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env(crate::env::LOG)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

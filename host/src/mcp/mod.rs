//! `cm serve`: the `ctx_*` tools over MCP stdio. Speaks only JSON-RPC on stdout, logs
//! to stderr, writes a readiness marker while it runs, exits when stdin closes.

pub mod framing;
mod scan;
mod server;
pub mod tools;
pub mod transport;

use std::sync::Arc;

use anyhow::Context as _;
use rmcp::ServiceExt;

use crate::service::Service;

pub use server::CmServer;

pub fn serve() -> anyhow::Result<()> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let root = crate::paths::data_root()?;
        let project = crate::paths::project_dir();
        let session = crate::agent_session::ServerSession::of_this_process(root.clone());
        let service = Arc::new(Service::new(root.clone(), project, session));
        {
            // Old content and memory files are housekeeping: never in the way of the handshake.
            let service = service.clone();
            tokio::task::spawn_blocking(move || service.start_up_cleanup());
        }
        let server = CmServer::new(service.clone());
        let running = server
            .serve(transport::StdioTransport::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
            .context("MCP handshake failed")?;
        // Written after the handshake: a marker means a server that can answer tool calls.
        let marker = crate::readiness::ReadinessMarker::write(&root)
            .map_err(|e| tracing::warn!("cannot write readiness marker: {e}"))
            .ok();
        let cancel = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        let (quit, signalled) = tokio::select! {
            quit = &mut waiting => (Some(quit), false),
            _ = wait_for_termination() => {
                cancel.cancel();
                // The service loop may wait on the stdin reader, which sits in a blocking
                // read nothing can interrupt: give it a moment, then leave without it.
                let grace = std::time::Duration::from_millis(crate::limits::SERVE_EXIT_GRACE_MS);
                (tokio::time::timeout(grace, &mut waiting).await.ok(), true)
            }
        };
        drop(marker);
        service.terminate_background();
        if let Some(Err(err)) = quit {
            tracing::warn!("server task ended abnormally: {err}");
        }
        if signalled {
            // Dropping the runtime would wait for that blocked stdin thread.
            std::process::exit(0);
        }
        Ok(())
    })
}

async fn wait_for_termination() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("CM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

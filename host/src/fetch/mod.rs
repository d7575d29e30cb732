//! Fetching web pages for `ctx_fetch_and_index`: a hardened HTTP client (only http/https,
//! every address checked before connecting, redirects re-checked, bounded size and time)
//! and the tool that fetches, indexes through a [`FetchSink`] and replies briefly.

mod address;
mod client;
mod decode;
mod error;
mod reply;
mod tool;

#[cfg(test)]
mod net_trace;
#[cfg(test)]
mod test_server;
#[cfg(test)]
mod test_tls;

pub use address::{AddressClass, STRICT_ENV, classify, unknown_strict_value};
pub use client::{FetchOptions, FetchedPage, HopCheck, fetch_url};
pub use error::{FetchError, FetchFailure};
pub use tool::{
    FetchAndIndexParams, FetchReport, FetchRequest, FetchSink, IndexedSummary, PageIndexed,
    RequestOutcome, default_source, fetch_and_index,
};

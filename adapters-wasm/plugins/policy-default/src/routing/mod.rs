//! Detectors for the routing rules: which shell commands print network
//! responses, which print large output by nature, and which other servers'
//! tools fetch a page.

pub mod fetch_tool;
pub mod network;
pub mod noisy;

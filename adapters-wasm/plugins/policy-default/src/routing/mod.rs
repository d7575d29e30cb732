//! Detectors for the routing rules: which shell commands print network
//! responses, and which print large output by nature.

pub mod network;
pub mod noisy;

//! A policy that loops on every call (see ../../loop-forever/policy.rs).

include!("../../loop-forever/policy.rs");

//! `ctx_upgrade`: the commands that rebuild and reinstall `cm` and refresh the agents'
//! hooks, for the agent to run. Runs nothing itself.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Reply;

/// `ctx_upgrade` takes no parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct UpgradeParams {}

pub fn upgrade(_params: UpgradeParams) -> Reply {
    Reply::ok(crate::upgrade::report(&crate::upgrade::info()))
}

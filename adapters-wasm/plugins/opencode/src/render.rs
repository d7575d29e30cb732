//! Normalized reply → the reply object the shim applies
//! (`context_mode_sdk::opencode_wire`, shared with KiloCode).

use context_mode_sdk::adapter::{Rendered, Reply};
use context_mode_sdk::opencode_wire::render_opencode_reply;

pub fn render(reply: &Reply) -> Rendered {
    render_opencode_reply(reply)
}

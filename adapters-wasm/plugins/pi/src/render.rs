//! Normalized reply → what the extension applies (`context_mode_sdk::pi_wire`).

use context_mode_sdk::adapter::{Rendered, Reply};
use context_mode_sdk::pi_wire::render_pi_reply;

pub fn render(reply: &Reply) -> Rendered {
    render_pi_reply(reply)
}

//! The shim's event JSON → normalized event (`context_mode_sdk::opencode_wire`, shared
//! with OpenCode).

use context_mode_sdk::NormalizedEvent;
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::opencode_wire::parse_opencode_payload;

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    parse_opencode_payload(input)
}

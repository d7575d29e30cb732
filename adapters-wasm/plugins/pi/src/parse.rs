//! The extension's payload → normalized event (`context_mode_sdk::pi_wire`, shared with OMP).

use context_mode_sdk::NormalizedEvent;
use context_mode_sdk::adapter::{ParseError, ParseInput};
use context_mode_sdk::pi_wire::parse_pi_payload;

use crate::describe::EVENTS;

pub fn parse(input: &ParseInput) -> Result<NormalizedEvent, ParseError> {
    parse_pi_payload(input, EVENTS)
}

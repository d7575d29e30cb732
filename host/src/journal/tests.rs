//! Unit tests of `journal`, one file per topic.

mod events;
mod inject;
mod session;
mod support;

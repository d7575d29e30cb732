//! Unit tests of `sandbox`, one file per topic.

mod languages;
mod process;

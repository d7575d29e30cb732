//! Unit tests of `search`, one file per topic.

mod bench;
mod quality;
mod tools;

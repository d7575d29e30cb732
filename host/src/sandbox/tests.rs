//! Unit tests of `sandbox`, one file per topic.

// Both drive real shells, process groups and `/proc`: Unix only (Windows has the
// Wine smoke test, tests/wine).
#[cfg(unix)]
mod languages;
#[cfg(unix)]
mod process;

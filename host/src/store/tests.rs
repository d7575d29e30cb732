//! Unit tests of `store`, one file per topic.

mod index_files;
mod multiprocess;

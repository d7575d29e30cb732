//! The plugin author's side of the contract: components built out of tree with each
//! language's own toolchain (installed from its registry into a cache outside the
//! clone), installed with `cm plugin add` and run by real `cm` processes.

#[path = "../support/cache_dir.rs"]
mod cache_dir;
#[path = "../support/file_lock.rs"]
mod file_lock;
// Languages: toolchains, the JavaScript and Python examples, their templates.
mod examples_js_py;
mod templates_js_py;
mod toolchain_defaults;
mod toolchains;

// Templates: `cm plugin new`, the Rust templates, a community adapter.
#[path = "../it/common/mod.rs"]
#[allow(dead_code, unused_imports)]
mod common;
mod community_adapter;
mod plugin_new;
mod rust_project;
mod templates_rust;

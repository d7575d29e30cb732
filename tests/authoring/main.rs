//! The plugin author's side of the contract: components built out of tree with each
//! language's own toolchain (installed from its registry into a cache outside the
//! clone), installed with `cm plugin add` and run by real `cm` processes.

// Languages: toolchains, the JavaScript and Python examples, their templates.

// Templates: `cm plugin new`, the Rust templates, a community adapter.

//! What the routing policies are told about a call besides the call itself, built in one
//! place for the hooks and for our own tools: the platform, the user's permission rules
//! and the project. The callers fill in what only they know (a live server, the nudges
//! this session has seen, the size of a file to be read).

use std::path::Path;

use crate::model::{CtxToolNames, PermissionRule, PolicyContext};
use crate::permissions::{self, Unreadable};

/// The context of `platform` (whose ctx tools the model sees as `ctx_tools`) in
/// `project_dir`, with no live server, no nudges shown and no file size; and the
/// settings files that could not be read, whose rules are unknown (the caller fails
/// closed on what they could govern).
pub fn policy_context(
    project_dir: &Path,
    platform: String,
    ctx_tools: CtxToolNames,
) -> (PolicyContext, Vec<Unreadable>) {
    let home = crate::paths::home_dir();
    let (rules, unreadable) = permissions::load(project_dir, home.as_deref());
    let context = PolicyContext {
        platform,
        ctx_tools,
        server_live: false,
        rules: rules.into_iter().map(PermissionRule::from).collect(),
        nudges_shown: Vec::new(),
        file_size_bytes: None,
        project_dir: project_dir.to_string_lossy().into_owned(),
    };
    (context, unreadable)
}

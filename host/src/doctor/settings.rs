//! The user's permission settings and the switches that change what the rules allow:
//! a settings file that cannot be parsed (every call its rules could govern is refused
//! until it is fixed), a working directory that is gone (no project), and an
//! unknown `CTX_FETCH_STRICT` value (strict mode, the safe side).

use std::path::{Path, PathBuf};

use super::Check;
use crate::fetch::STRICT_ENV;
use crate::lenient::EnvFlag;
use crate::paths::ProjectDirError;

pub fn checks(project: &Result<PathBuf, ProjectDirError>) -> Vec<Check> {
    let mut rows = vec![project_row(project)];
    match project {
        Ok(dir) => rows.extend(permission_rows(dir)),
        Err(_) => rows.push(Check::warn(
            "permission settings",
            "not checked: no project",
            None,
        )),
    }
    rows.extend(strict_row());
    rows
}

fn project_row(project: &Result<PathBuf, ProjectDirError>) -> Check {
    match project {
        Ok(dir) => Check::pass("project directory", dir.display().to_string()),
        Err(err) => Check::fail(
            "project directory",
            format!("{err}; cm serve answers every tool call with this line"),
            None,
        ),
    }
}

fn permission_rows(project_dir: &Path) -> Vec<Check> {
    let home = crate::paths::home_dir();
    let (rules, unreadable) = crate::permissions::load(project_dir, home.as_deref());
    if unreadable.is_empty() {
        return vec![Check::pass(
            "permission settings",
            format!("{} rules read", rules.len()),
        )];
    }
    unreadable
        .iter()
        .map(|file| {
            Check::fail(
                format!("permission settings {}", file.path.display()),
                format!(
                    "{}; until it is fixed, ctx tools and hooked tool calls are denied",
                    file.reason
                ),
                None,
            )
        })
        .collect()
}

fn strict_row() -> Option<Check> {
    match EnvFlag::read(STRICT_ENV) {
        EnvFlag::Unknown(value) => Some(Check::warn(
            STRICT_ENV,
            crate::fetch::unknown_strict_value(&value),
            Some(format!("export {STRICT_ENV}=on")),
        )),
        EnvFlag::Set(true) => Some(Check::pass(
            STRICT_ENV,
            "on: loopback and private addresses are refused",
        )),
        EnvFlag::Set(false) | EnvFlag::Unset => None,
    }
}

//! Confinement (ADR 0026): whether this system can enforce it (Landlock's ABI on Linux,
//! Seatbelt on macOS; nothing on Windows) and whether `CONTEXT_MODE_CONFINE` switches it
//! on for the sandbox's children.

use super::Check;
use crate::platform::child::{CONFINEMENT_FIX, confinement_support};
use crate::sandbox::confine::{self, CONFINE_ENV, Net};

/// The row for a server working on `project` (the environment, else its settings files).
pub fn check(project: Option<&std::path::Path>) -> Check {
    let settings = match project {
        Some(project) => confine::resolve(project, crate::paths::home_dir().as_deref()),
        None => confine::from_env(),
    };
    let support = confinement_support(settings.as_ref().map(|s| &s.net));
    row(settings, support)
}

/// `support`: what enforces confinement here (`Ok`), or why nothing can (`Err`).
fn row(settings: Option<confine::Settings>, support: Result<String, String>) -> Check {
    let name = "confinement";
    match (settings, support) {
        (None, Ok(mechanism)) => Check::pass(
            name,
            format!(
                "off ({mechanism}: supported); switch it on with {CONFINE_ENV}=1 or \"contextMode\": {{\"confine\": true}} in .claude/settings.json"
            ),
        ),
        (None, Err(why)) => Check::pass(name, format!("off ({why})")),
        (Some(settings), Ok(mechanism)) => Check::pass(
            name,
            format!(
                "on ({CONFINE_ENV} or contextMode.confine; {mechanism}): children write only in the project, their temp dir and runtime caches; network {}",
                match settings.net {
                    Net::On => "unchanged".to_string(),
                    Net::Off => "off".to_string(),
                    Net::Ports(p) => format!(
                        "limited to TCP ports {}",
                        p.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
                    ),
                }
            ),
        ),
        (Some(_), Err(why)) => Check::fail(
            name,
            format!("on ({CONFINE_ENV}) but {why}, so the sandbox refuses to run"),
            Some(format!("unset {CONFINE_ENV}, or {CONFINEMENT_FIX}")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_say_support_and_switch() {
        let on = Some(confine::Settings { net: Net::On });
        let landlock = || Ok("kernel Landlock ABI 7".to_string());
        assert_eq!(row(None, landlock()).status, super::super::Status::Pass);
        assert!(
            row(None, landlock())
                .detail
                .contains("off (kernel Landlock ABI 7: supported)")
        );
        assert!(row(on.clone(), landlock()).detail.starts_with("on ("));
        let refused = row(on, Err("the kernel has no Landlock".into()));
        assert_eq!(refused.status, super::super::Status::Fail);
        assert!(
            refused.detail.contains("refuses to run"),
            "{}",
            refused.detail
        );
    }

    #[test]
    fn this_systems_row_follows_what_it_can_enforce() {
        let off_net = Some(confine::Settings { net: Net::Off });
        let support = confinement_support(Some(&Net::Off));
        let expected = if support.is_ok() {
            super::super::Status::Pass
        } else {
            super::super::Status::Fail
        };
        assert_eq!(row(off_net, support).status, expected);
    }
}

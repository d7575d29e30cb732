//! Confinement (ADR 0026): whether the kernel can enforce it (its Landlock ABI) and
//! whether `CONTEXT_MODE_CONFINE` switches it on for the sandbox's children.

use super::Check;
use crate::sandbox::confine::{self, CONFINE_ENV, FS_ABI, NET_ABI, Net};

/// The row for a server working on `project` (the environment, else its settings files).
pub fn check(project: Option<&std::path::Path>) -> Check {
    let settings = match project {
        Some(project) => confine::resolve(project, crate::paths::home_dir().as_deref()),
        None => confine::from_env(),
    };
    row(settings, confine::kernel_abi())
}

fn row(settings: Option<confine::Settings>, abi: Result<i32, &'static str>) -> Check {
    let name = "confinement";
    let need = match settings.as_ref().map(|s| &s.net) {
        Some(Net::Off | Net::Ports(_)) => NET_ABI as i32,
        _ => FS_ABI as i32,
    };
    let kernel = match abi {
        Ok(v) => format!("kernel Landlock ABI {v}"),
        Err(why) => why.to_string(),
    };
    let enforceable = abi.is_ok_and(|v| v >= need);
    match (settings, enforceable) {
        (None, true) => Check::pass(
            name,
            format!(
                "off ({kernel}: supported); switch it on with {CONFINE_ENV}=1 or \"contextMode\": {{\"confine\": true}} in .claude/settings.json"
            ),
        ),
        (None, false) => Check::pass(
            name,
            format!("off ({kernel}: confinement needs Landlock ABI {need} or later)"),
        ),
        (Some(settings), true) => Check::pass(
            name,
            format!(
                "on ({CONFINE_ENV} or contextMode.confine; {kernel}): children write only in the project, their temp dir and runtime caches; network {}",
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
        (Some(_), false) => Check::fail(
            name,
            format!(
                "on ({CONFINE_ENV}) but {kernel}: it needs Landlock ABI {need}, so the sandbox refuses to run"
            ),
            Some(format!(
                "unset {CONFINE_ENV}, or boot a kernel with Landlock enabled (lsm=…,landlock)"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_say_support_and_switch() {
        let on = Some(confine::Settings { net: Net::On });
        assert_eq!(row(None, Ok(7)).status, super::super::Status::Pass);
        assert!(
            row(None, Ok(7))
                .detail
                .contains("off (kernel Landlock ABI 7: supported)")
        );
        assert!(row(on.clone(), Ok(7)).detail.starts_with("on ("));
        let refused = row(on, Err("the kernel has no Landlock"));
        assert_eq!(refused.status, super::super::Status::Fail);
        assert!(
            refused.detail.contains("refuses to run"),
            "{}",
            refused.detail
        );
        let off_net = Some(confine::Settings { net: Net::Off });
        assert_eq!(row(off_net, Ok(3)).status, super::super::Status::Fail);
    }
}

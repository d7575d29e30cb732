//! Landlock confinement (ADR 0026): the ruleset of one call's [`Plan`], built in the
//! parent; the child only calls `prctl(PR_SET_NO_NEW_PRIVS)` and
//! `landlock_restrict_self` between fork and exec (async-signal-safe: two syscalls,
//! no allocation). A kernel that cannot enforce every handled right makes the call
//! fail with one line, never run unconfined.
//!
//! Reads: everywhere, except the denied files, which Landlock can only express by
//! granting every sibling along the path from `/` to a denied file instead.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, NetPort,
    PathBeneath, PathFd, RestrictSelf, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr,
    RulesetStatus,
};

use crate::sandbox::confine::{Net, Plan};

/// The Landlock ABI whose file-system rights are handled: V3 is the first that also
/// controls truncation, so every way of changing a file outside the grants is refused.
pub const FS_ABI: ABI = ABI::V3;
/// The ABI of TCP connect/bind rules, needed only when the network is limited.
pub const NET_ABI: ABI = ABI::V4;

/// What the kernel offers: the Landlock ABI, or why there is none.
pub fn kernel_abi() -> Result<i32, &'static str> {
    // Without flags and without no_new_privs this only probes the kernel.
    match RestrictSelf::default().no_new_privs(false).apply() {
        Ok(status) => match status.landlock {
            LandlockStatus::Available {
                effective_abi,
                kernel_abi,
            } => Ok(kernel_abi.unwrap_or(effective_abi as i32)),
            LandlockStatus::NotEnabled => Err("Landlock is built into the kernel but not enabled"),
            LandlockStatus::NotImplemented => Err("the kernel has no Landlock"),
        },
        Err(_) => Err("the Landlock probe failed"),
    }
}

/// A ruleset ready for children: each spawn restricts itself with a duplicate of it.
#[derive(Debug, Clone)]
pub struct ChildConfinement(Arc<RulesetCreated>);

impl ChildConfinement {
    /// A fresh handle for one child (a `dup` of the ruleset's descriptor).
    pub fn for_child(&self) -> std::io::Result<RulesetCreated> {
        self.0.try_clone()
    }
}

/// Restricts the calling process. Runs in the child between fork and exec: only the
/// `prctl` and `landlock_restrict_self` syscalls, no allocation.
pub fn restrict_child(ruleset: RulesetCreated) -> std::io::Result<()> {
    match ruleset.restrict_self() {
        Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => Ok(()),
        Ok(_) => Err(std::io::Error::from_raw_os_error(libc::EOPNOTSUPP)),
        Err(_) => Err(std::io::Error::from_raw_os_error(libc::EPERM)),
    }
}

/// Builds the ruleset of `plan`; `Err` is one line (the kernel cannot enforce it).
pub fn build(plan: &Plan) -> Result<ChildConfinement, String> {
    let read = AccessFs::from_read(FS_ABI);
    let write = AccessFs::from_write(FS_ABI);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(FS_ABI))
        .map_err(|e| e.to_string())?;
    if plan.net.is_some() {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(NET_ABI))
            .map_err(|e| e.to_string())?;
    }
    let mut created = ruleset.create().map_err(|e| e.to_string())?;
    if plan.read_denied.is_empty() {
        grant(&mut created, Path::new("/"), read)?;
    } else {
        // Listing is allowed everywhere; reading and executing everywhere but the denied.
        grant(&mut created, Path::new("/"), AccessFs::ReadDir.into())?;
        grant_around(Path::new("/"), &plan.read_denied, &mut |p| {
            grant(&mut created, p, read)
        })?;
    }
    for path in &plan.write {
        grant(&mut created, path, write)?;
    }
    if let Some(Net::Ports(ports)) = &plan.net {
        for port in ports {
            (&mut created)
                .add_rule(NetPort::new(*port, AccessNet::ConnectTcp))
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(ChildConfinement(Arc::new(created)))
}

/// Grants `access` beneath `path` (only the file rights when it is not a directory);
/// a path that is gone has nothing to grant.
fn grant(
    created: &mut RulesetCreated,
    path: &Path,
    access: landlock::BitFlags<AccessFs>,
) -> Result<(), String> {
    let Ok(fd) = PathFd::new(path) else {
        return Ok(());
    };
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(FS_ABI)
    };
    if access.is_empty() {
        return Ok(());
    }
    created
        .add_rule(PathBeneath::new(fd, access))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Grants `grant` on every entry of `dir` that is neither denied nor on the way to a
/// denied path, descending into the ones on the way.
fn grant_around(
    dir: &Path,
    denied: &[PathBuf],
    grant: &mut dyn FnMut(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        // A link is judged by what it reaches (its target is what a grant opens).
        let real = path.canonicalize().unwrap_or_else(|_| path.clone());
        if denied.iter().any(|d| *d == real || *d == path) {
            continue;
        }
        let on_the_way = |p: &Path| denied.iter().any(|d| d.starts_with(p) && d != p);
        if on_the_way(&path) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            grant_around(&path, denied, grant)?;
        } else if on_the_way(&real) || denied.iter().any(|d| real.starts_with(d)) {
            // A link into or above a denied path: not granted.
            continue;
        } else {
            grant(&path)?;
        }
    }
    Ok(())
}


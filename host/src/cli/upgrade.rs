//! `cm upgrade`: says which version is installed and how (npm, cargo, a source build, a
//! release archive; ADR 37), prints the commands that update it that way, refreshes the agents already set up (new
//! `cm` path, new matchers) and drops stale `.cwasm` cache entries. Downloads nothing.

use anyhow::anyhow;

use crate::plugins::PluginEngine;
use crate::plugins::cache_prune::prune_cwasm_cache;
use crate::setup::{self, Plan};

pub fn run() -> anyhow::Result<()> {
    let root = super::data_root()?;
    let home = crate::paths::home_dir().ok_or_else(|| anyhow!("no home directory: set HOME"))?;
    println!("{}", crate::upgrade::report(&crate::upgrade::info()));

    let cm = setup::cm_command().map_err(|e| anyhow!(e))?;
    let set_up = setup::already_set_up(&root, &home, &cm).map_err(|e| anyhow!(e))?;
    if set_up.is_empty() {
        println!("no agent is set up yet; run `cm setup` to register one");
    }
    let mut plan = Plan::default();
    for (id, extras) in &set_up {
        let agents = setup::load_all(&root).map_err(|e| anyhow!(e))?;
        let mut agents =
            setup::select(agents, Some(std::slice::from_ref(id)), &home).map_err(|e| anyhow!(e))?;
        let part = setup::apply::plan(&root, &mut agents, &cm, &home, None, *extras)
            .map_err(|e| anyhow!(e))?;
        plan.agents.extend(part.agents);
        plan.files.extend(part.files);
    }
    for agent in &plan.agents {
        let changed: Vec<_> = plan
            .files_of(&agent.id)
            .filter(|f| f.changes_anything())
            .collect();
        if changed.is_empty() {
            println!(
                "{} ({}): hooks and server up to date, no changes",
                agent.display_name, agent.id
            );
        } else {
            println!("{} ({}): refreshing", agent.display_name, agent.id);
            for file in changed {
                println!("  {}", super::setup::shown(&file.path, &home));
                for change in &file.changes {
                    println!("    {}", change.line());
                }
            }
        }
    }
    if let Some(backup) = setup::apply::apply(&root, &plan).map_err(|e| anyhow!(e))? {
        println!(
            "backed up {} file(s) to {}",
            backup.entries.len(),
            backup.dir.display()
        );
    }

    let engine = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(&root)))?;
    let pruned = prune_cwasm_cache(&engine, &root)?;
    println!(
        "plugin cache: {} stale entr{} removed",
        pruned.len(),
        if pruned.len() == 1 { "y" } else { "ies" }
    );
    // A new cm compiles for a new engine key: done here, so no hook finds a plugin
    // uncompiled (ADR 24).
    let registry = crate::plugins::Registry::load(&root)?;
    let mut announce = |plugin: &crate::plugins::InstalledPlugin| {
        eprintln!("compiling {} {} for this cm…", plugin.kind, plugin.id);
    };
    let compiled =
        crate::plugins::background::compile_missing(&engine, &registry, true, &mut announce)
            .unwrap_or_default();
    for done in &compiled {
        match &done.outcome {
            Ok(took) => println!(
                "plugin {} {}: compiled in {:.1} s",
                done.plugin.kind,
                done.plugin.id,
                took.as_secs_f64()
            ),
            Err(err) => println!("plugin {} {}: {err}", done.plugin.kind, done.plugin.id),
        }
    }
    Ok(())
}

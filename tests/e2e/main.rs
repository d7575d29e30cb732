//! Real agents driving `cm` end to end: Claude Code (a line that sends MCP tools inline
//! and one that defers them behind ToolSearch), Gemini CLI, Codex, GitHub Copilot CLI,
//! Qwen Code, OpenCode, KiloCode and Kimi Code, each installed from npm into a cache
//! outside the clone, set up with `cm setup`, and run non-interactively against a
//! scripted model server on 127.0.0.1 (ADR 23).

mod agents;
#[path = "../support/cache_dir.rs"]
mod cache_dir;
mod checks;
mod copilot_plugin;
mod extension;
#[path = "../support/file_lock.rs"]
mod file_lock;
mod http;
mod install;
mod kimi;
mod model;
mod npm_plugins;
mod openclaw;
mod opencode;
mod parallel;
mod pi;
mod plugin;
mod registry;
mod script;
mod served;
mod session;
mod wire;

#[test]
fn claude_code_2_1_197_tools_inline() {
    session::run(&agents::CLAUDE_INLINE).assert_all();
}

/// Its tool hooks are answered by the running `cm serve` (ADR 27).
#[test]
fn claude_code_2_1_332_tools_deferred() {
    session::run(&agents::CLAUDE_DEFERRED).assert_all();
}

/// The served hooks' server never starts: Claude Code must go on as without hooks.
#[test]
fn claude_code_2_1_332_hooks_fail_open_when_the_server_is_gone() {
    session::run_with(&agents::CLAUDE_DEFERRED, session::Variation::ServerGone).assert_all();
}

/// The served hooks' server never answers: Claude Code must go on once a hook times out.
#[test]
fn claude_code_2_1_332_hooks_fail_open_when_the_server_hangs() {
    session::run_with(&agents::CLAUDE_DEFERRED, session::Variation::ServerSilent).assert_all();
}

/// A first turn of 8 tool calls at once: a burst of PreToolUse hooks at the fresh
/// server, each of which must be applied (issue 30).
#[test]
fn claude_code_2_1_332_first_turn_with_8_parallel_calls() {
    session::run_script(
        &agents::CLAUDE_DEFERRED,
        session::Variation::AsSetUp,
        model::Script::ParallelFirstTurn,
    )
    .assert_all();
}

/// Installed as users install it: `claude plugin marketplace add <this checkout>` +
/// `claude plugin install context-mode@context-mode`, `cm` on PATH; the redirects, the
/// routing block and the served hooks use the plugin's server name.
#[test]
fn claude_code_2_1_332_installed_as_a_plugin() {
    session::run_with(
        &agents::CLAUDE_DEFERRED,
        session::Variation::InstalledAsPlugin,
    )
    .assert_all();
}

/// The same plugin with no `cm` installed: the server entry and every hook say how to
/// install it, and the session goes on as without hooks.
#[test]
fn claude_code_2_1_332_plugin_without_cm_fails_open() {
    session::run_with(
        &agents::CLAUDE_DEFERRED,
        session::Variation::PluginWithoutCm,
    )
    .assert_all();
}

/// The same plugin with `cm` only from the npm packages `cargo xtask dist` packs,
/// installed with `npm install -g` into a prefix that is not on PATH (ADR 36, ADR 38).
#[test]
fn claude_code_2_1_332_plugin_with_cm_from_npm() {
    session::run_with(&agents::CLAUDE_DEFERRED, session::Variation::PluginFromNpm).assert_all();
}

#[test]
fn gemini_cli_0_61_0() {
    session::run(&agents::GEMINI).assert_all();
}

/// Installed as users install it: `gemini extensions install <this checkout> --consent`,
/// `cm` on PATH; the extension's hooks redirect, its server's tools answer, its context
/// file reaches the model (ADR 39).
#[test]
fn gemini_cli_0_61_0_installed_as_an_extension() {
    session::run_with(&agents::GEMINI, session::Variation::InstalledAsExtension).assert_all();
}

#[test]
fn codex_0_171_0() {
    session::run(&agents::CODEX).assert_all();
}

/// Installed as Codex users install it: `codex plugin marketplace add <this checkout>` +
/// `codex plugin add context-mode@context-mode` (the bundle `.agents/plugins/marketplace.json`
/// lists, not the Claude Code plugin), its hooks trusted, `cm` on PATH (ADR 38, Codex).
#[test]
fn codex_0_171_0_installed_as_a_plugin() {
    session::run_with(&agents::CODEX, session::Variation::InstalledAsPlugin).assert_all();
}

#[test]
fn copilot_cli_1_0_102() {
    session::run(&agents::COPILOT).assert_all();
}

/// Installed as users install it: `copilot plugin install <this checkout>/configs/copilot-cli`
/// (from GitHub `<repo>:configs/copilot-cli`; both copy only that folder), `cm` on PATH;
/// the copy's hooks redirect, its server's tools answer in the project (ADR 40).
#[test]
fn copilot_cli_1_0_102_installed_as_a_plugin() {
    session::run_with(&agents::COPILOT, session::Variation::InstalledAsPlugin).assert_all();
}

/// Installed from the marketplace, the form Copilot CLI keeps once direct installs go:
/// this checkout served as a git repository on 127.0.0.1, `copilot plugin marketplace add
/// <url>` (its `.github/plugin/marketplace.json`, not the Claude Code one) + `copilot
/// plugin install context-mode@context-mode`, a copy of `configs/copilot-cli` (ADR 40).
#[test]
fn copilot_cli_1_0_102_installed_from_its_marketplace() {
    session::run_with(
        &agents::COPILOT,
        session::Variation::InstalledFromMarketplace,
    )
    .assert_all();
}

/// The same plugin with no `cm` installed: every hook answers nothing and logs how to
/// install `cm`, the server entry says it too, and the session goes on as without hooks.
#[test]
fn copilot_cli_1_0_102_plugin_without_cm_fails_open() {
    session::run_with(&agents::COPILOT, session::Variation::PluginWithoutCm).assert_all();
}

#[test]
fn qwen_code_0_24_4() {
    session::run(&agents::QWEN).assert_all();
}

/// Installed as users install it: `qwen extensions install <this checkout>:context-mode
/// --consent` takes the repository's `qwen-extension.json`, `cm` on PATH (ADR 39).
#[test]
fn qwen_code_0_24_4_installed_as_an_extension() {
    session::run_with(&agents::QWEN, session::Variation::InstalledAsExtension).assert_all();
}

#[test]
fn openclaw_2026_9_6() {
    session::run(&agents::OPENCLAW).assert_all();
}

#[test]
fn kimi_code_2_1_0() {
    session::run(&agents::KIMI).assert_all();
}

#[test]
fn opencode_1_18_33() {
    session::run(&agents::OPENCODE).assert_all();
}

#[test]
fn kilocode_7_7_7() {
    session::run(&agents::KILO).assert_all();
}

#[test]
fn pi_0_73_1() {
    session::run(&agents::PI).assert_all();
}

#[test]
fn omp_18_2_3() {
    session::run(&agents::OMP).assert_all();
}

/// Installed as OpenCode users install it: `opencode plugin context-mode -g` from a
/// registry on 127.0.0.1 serving the npm packages packed from this build, no `cm` on
/// PATH, no `cm setup`: the package's plugin finds its platform package's binary and
/// adds the MCP server (ADR 41).
#[test]
fn opencode_1_18_33_installed_from_npm() {
    session::run_with(&agents::OPENCODE, session::Variation::InstalledFromNpm).assert_all();
}

/// Installed as Pi users install it: `pi install npm:context-mode` (a `npm install -g`
/// into a prefix off PATH) from the registry on 127.0.0.1, no `cm` on PATH (ADR 41).
#[test]
fn pi_0_73_1_installed_from_npm() {
    session::run_with(&agents::PI, session::Variation::InstalledFromNpm).assert_all();
}

/// Installed as OMP users install it: `omp plugin install context-mode` (`bun install`
/// in `~/.omp/plugins`) from the registry on 127.0.0.1, no `cm` on PATH (ADR 41).
#[test]
fn omp_18_2_3_installed_from_npm() {
    session::run_with(&agents::OMP, session::Variation::InstalledFromNpm).assert_all();
}

/// The package without its platform package, no `cm` anywhere: Pi goes on as without
/// context-mode, each hook leaves the install line in `hook-errors.log` (ADR 41).
#[test]
fn pi_0_73_1_installed_from_npm_without_cm_fails_open() {
    session::run_with(&agents::PI, session::Variation::InstalledFromNpmWithoutCm).assert_all();
}

/// The same for OMP.
#[test]
fn omp_18_2_3_installed_from_npm_without_cm_fails_open() {
    session::run_with(&agents::OMP, session::Variation::InstalledFromNpmWithoutCm).assert_all();
}

/// The same for OpenCode, whose plugin then adds no MCP server and says why in its log.
#[test]
fn opencode_1_18_33_installed_from_npm_without_cm_fails_open() {
    session::run_with(
        &agents::OPENCODE,
        session::Variation::InstalledFromNpmWithoutCm,
    )
    .assert_all();
}

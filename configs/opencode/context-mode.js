// context-mode for OpenCode and KiloCode, written by `cm setup` (which rewrites it on
// the next setup; `cm setup --remove` takes it out). It decides nothing: each event goes
// as JSON to `cm hook <platform> <event>`, and the reply is applied the host's way.
// Whatever goes wrong (cm missing, a crash, a timeout, a reply that is not JSON), the
// host carries on as if this plugin were not loaded, and one line goes to the host's log.
// No dependencies, no build step: OpenCode and KiloCode run it under Bun, Node's
// child_process is all it uses. It never writes to stdout.
//
// The same file is the `context-mode` npm package's OpenCode plugin (`opencode plugin
// context-mode`; docs/adr/0041). There nothing is filled in: the binary is the package's
// platform package, else `cm` on PATH, and the plugin adds the MCP server to the config
// OpenCode loads (`cm setup` writes it into opencode.json instead).
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";

const CM = "__CM_COMMAND__";
const PLATFORM = "__CM_PLATFORM__";
// Split so that `cm setup`, which replaces each quoted placeholder, leaves these alone.
const PACKAGED = CM === ["__CM", "COMMAND__"].join("_");
const BINARY = PACKAGED ? packagedCm() : CM;
const HOST = PLATFORM === ["__CM", "PLATFORM__"].join("_") ? "opencode" : PLATFORM;
const MISSING =
  "cm is not installed (not on PATH, no npm package @context-mode/cm-*); install it with: npm install -g context-mode";
// cm answers in milliseconds; the first hook after an upgrade compiles the adapter.
const TIMEOUT_MS = 15000;
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

// The binary of a package install: the platform package npm or bun installed beside
// this package (what the npm launcher runs, without its Node start per hook), else `cm`
// on PATH; null when neither is there. The same text as in configs/pi/context-mode.js
// (each file stands alone: `cm setup` writes it whole); xtask's tests hold them equal.
function packagedCm() {
  const exe = process.platform === "win32" ? "cm.exe" : "cm";
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve(`@context-mode/cm-${process.platform}-${process.arch}/package.json`);
    const binary = join(dirname(manifest), "bin", exe);
    if (existsSync(binary)) return binary;
  } catch {
    // Not installed (an unsupported platform, or optional dependencies omitted).
  }
  for (const dir of String(process.env.PATH ?? "").split(delimiter)) {
    const found = dir ? join(dir, exe) : "";
    // npm's `cm` is the Node launcher: run the binary it would run, without Node.
    if (found && existsSync(found)) return npmNative(dir, exe) ?? found;
  }
  return null;
}

// The platform package of a global npm install whose `bin/` is `bin` (beside the
// launcher package or inside it; on Windows the prefix is the bin folder itself).
function npmNative(bin, exe) {
  const platform = join("@context-mode", `cm-${process.platform}-${process.arch}`);
  for (const root of [join(bin, "..", "lib", "node_modules"), join(bin, "node_modules")]) {
    for (const dir of [join(root, platform), join(root, "context-mode", "node_modules", platform)]) {
      if (existsSync(join(dir, "bin", exe))) return join(dir, "bin", exe);
    }
  }
  return null;
}

// Where `cm` itself logs hook failures (`CONTEXT_MODE_DIR`, else ~/.context-mode): with no
// `cm` to run, the hook fails open and says there how to install it.
function logMissing(event) {
  try {
    const env = process.env.CONTEXT_MODE_DIR;
    const dir = env && isAbsolute(env) ? env : join(homedir(), ".context-mode");
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, "hook-errors.log"), `${new Date().toISOString()} ${HOST} ${event}: context-mode: ${MISSING}\n`);
  } catch {
    // The log is a courtesy; the hook has already failed open.
  }
}

function run(event, payload) {
  if (!BINARY) {
    logMissing(event);
    return Promise.resolve({ reply: {} });
  }
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(BINARY, ["hook", HOST, event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch (err) {
      resolve({ failure: `cannot start ${BINARY}: ${err?.message ?? err}` });
      return;
    }
    const chunks = [];
    let size = 0;
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ failure: `${BINARY} hook ${HOST} ${event} timed out after ${TIMEOUT_MS} ms` });
    }, TIMEOUT_MS);
    child.on("error", (err) => finish({ failure: `cannot run ${BINARY}: ${err?.message ?? err}` }));
    child.stdout.on("data", (chunk) => {
      size += chunk.length;
      if (size <= MAX_REPLY_BYTES) chunks.push(chunk);
    });
    child.on("close", (code, signal) => {
      if (code !== 0) {
        finish({ failure: `${BINARY} hook ${HOST} ${event} exited with ${signal ?? code}` });
        return;
      }
      const text = Buffer.concat(chunks).toString("utf8").trim();
      if (!text) {
        finish({ reply: {} });
        return;
      }
      try {
        const reply = JSON.parse(text);
        if (reply && typeof reply === "object" && !Array.isArray(reply)) finish({ reply });
        else finish({ failure: `${BINARY} hook ${HOST} ${event} replied with no JSON object` });
      } catch {
        finish({ failure: `${BINARY} hook ${HOST} ${event} replied with no JSON object` });
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(payload);
  });
}

// The reply names what to change; each field means the same on every event.
function apply(reply, output) {
  if (typeof reply.args === "object" && reply.args && output && typeof output.args === "object") {
    for (const key of Object.keys(output.args)) delete output.args[key];
    Object.assign(output.args, reply.args);
  }
  if (typeof reply.output === "string" && output) output.output = reply.output;
  if (typeof reply.append === "string" && output && typeof output.output === "string") {
    output.output = `${output.output}\n\n${reply.append}`;
  }
  if (typeof reply.system === "string" && output && Array.isArray(output.system)) {
    output.system.push(reply.system);
  }
  if (typeof reply.context === "string" && output && Array.isArray(output.context)) {
    output.context.push(reply.context);
  }
}

export const ContextMode = async (ctx) => {
  const log = (message) => {
    try {
      const sent = ctx?.client?.app?.log?.({
        body: { service: "context-mode", level: "warn", message },
      });
      sent?.catch?.(() => {});
    } catch {}
  };
  const addServer = async (config) => {
    if (!config || typeof config !== "object") return;
    if (!BINARY) {
      log(`context-mode: ${MISSING}`);
      return;
    }
    config.mcp ??= {};
    config.mcp["context-mode"] ??= { type: "local", command: [BINARY, "serve"], enabled: true };
  };
  const forward = (event) => async (input, output) => {
    let payload;
    try {
      payload = JSON.stringify({
        hook_event_name: event,
        directory: ctx?.directory,
        worktree: ctx?.worktree,
        input,
        output,
      });
    } catch (err) {
      log(`context-mode: ${event}: cannot encode the event: ${err?.message ?? err}`);
      return;
    }
    const { reply, failure } = await run(event, payload);
    if (failure) {
      log(`context-mode: ${failure}; carrying on without it`);
      return;
    }
    if (typeof reply.block === "string") throw new Error(reply.block);
    try {
      apply(reply, output);
    } catch (err) {
      log(`context-mode: ${event}: cannot apply the reply: ${err?.message ?? err}`);
    }
  };
  return {
    // A package install has no opencode.json entry: the MCP server is added to the config
    // OpenCode loaded, unless the user configured one under the same name.
    ...(PACKAGED ? { config: addServer } : {}),
    "tool.execute.before": forward("tool.execute.before"),
    "tool.execute.after": forward("tool.execute.after"),
    "chat.message": forward("chat.message"),
    "experimental.chat.system.transform": forward("experimental.chat.system.transform"),
    "experimental.session.compacting": forward("experimental.session.compacting"),
  };
};

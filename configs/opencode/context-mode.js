// context-mode for OpenCode and KiloCode, written by `cm setup` (which rewrites it on
// the next setup; `cm setup --remove` takes it out). It decides nothing: each event goes
// as JSON to `cm hook <platform> <event>`, and the reply is applied the host's way.
// Whatever goes wrong (cm missing, a crash, a timeout, a reply that is not JSON), the
// host carries on as if this plugin were not loaded, and one line goes to the host's log.
// No dependencies, no build step: OpenCode and KiloCode run it under Bun, Node's
// child_process is all it uses. It never writes to stdout.
import { spawn } from "node:child_process";

const CM = "__CM_COMMAND__";
const PLATFORM = "__CM_PLATFORM__";
// cm answers in milliseconds; the first hook after an upgrade compiles the adapter.
const TIMEOUT_MS = 15000;
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

function run(event, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(CM, ["hook", PLATFORM, event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch (err) {
      resolve({ failure: `cannot start ${CM}: ${err?.message ?? err}` });
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
      finish({ failure: `${CM} hook ${PLATFORM} ${event} timed out after ${TIMEOUT_MS} ms` });
    }, TIMEOUT_MS);
    child.on("error", (err) => finish({ failure: `cannot run ${CM}: ${err?.message ?? err}` }));
    child.stdout.on("data", (chunk) => {
      size += chunk.length;
      if (size <= MAX_REPLY_BYTES) chunks.push(chunk);
    });
    child.on("close", (code, signal) => {
      if (code !== 0) {
        finish({ failure: `${CM} hook ${PLATFORM} ${event} exited with ${signal ?? code}` });
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
        else finish({ failure: `${CM} hook ${PLATFORM} ${event} replied with no JSON object` });
      } catch {
        finish({ failure: `${CM} hook ${PLATFORM} ${event} replied with no JSON object` });
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
    "tool.execute.before": forward("tool.execute.before"),
    "tool.execute.after": forward("tool.execute.after"),
    "chat.message": forward("chat.message"),
    "experimental.chat.system.transform": forward("experimental.chat.system.transform"),
    "experimental.session.compacting": forward("experimental.session.compacting"),
  };
};

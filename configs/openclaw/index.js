// context-mode for OpenClaw, written by `cm setup` (`cm setup --remove` takes it out).
//
// Hands each OpenClaw plugin hook event, as JSON on stdin, to `cm hook openclaw <event>`
// and gives OpenClaw cm's reply, which cm already writes in the shape the hook returns
// ({block, blockReason}, {params}, {requireApproval}, {prependContext}). Every decision
// is cm's; this file only carries bytes. It fails open like `cm hook`: cm missing,
// crashing, slower than TIMEOUT_MS or answering garbage, and the hook returns nothing,
// as if no plugin were loaded, with one line in OpenClaw's log. It never writes to
// stdout. No dependencies, no build step: OpenClaw imports it as it is.

import { spawn } from "node:child_process";

const CM_COMMAND = "cm";
// Under OpenClaw's 15 s budget for before_tool_call, past which it blocks the call.
const TIMEOUT_MS = 10000;
const MAX_REPLY_BYTES = 1 << 20;
const PLUGIN_ID = "context-mode";

// What the session's earlier events said: compaction hooks carry only the session key.
const sessions = new Map();
// One hand-over at a time per session, in the order OpenClaw fired them: a
// fire-and-forget session_start must reach cm before the prompt that delivers its text.
const queues = new Map();
// Session ids already handed over as session_start.
const started = new Set();

function remember(event, ctx) {
  const key = ctx?.sessionKey ?? event?.sessionKey;
  if (!key) return {};
  const known = sessions.get(key) ?? {};
  const sessionId = ctx?.sessionId ?? event?.sessionId ?? known.sessionId;
  const workspaceDir = ctx?.workspaceDir ?? event?.context?.workspaceDir ?? known.workspaceDir;
  const now = { sessionId, workspaceDir };
  sessions.set(key, now);
  if (sessions.size > 256) sessions.delete(sessions.keys().next().value);
  return now;
}

// OpenClaw's objects hold functions, abort signals, the whole config and, on prompt
// hooks, the whole history: cm needs none of it, only how long the history is.
function stdinFor(hook, event, ctx) {
  const seen = new WeakSet();
  const known = remember(event, ctx);
  return JSON.stringify(
    { hook_event_name: hook, event, ctx, sessionId: known.sessionId, workspaceDir: known.workspaceDir, cwd: process.cwd() },
    (key, value) => {
      if (typeof value === "function" || typeof value === "bigint") return undefined;
      if (key === "cfg" || key === "abortSignal" || key === "bootstrapFiles") return undefined;
      if (key === "messages" && Array.isArray(value)) return value.length;
      if (value !== null && typeof value === "object") {
        if (seen.has(value)) return undefined;
        seen.add(value);
      }
      return value;
    },
  );
}

function logLine(api, hook, why) {
  const text = `${PLUGIN_ID}: ${hook}: ${String(why).replace(/\s+/g, " ").trim()} (OpenClaw goes on without context-mode)`;
  try {
    (api.logger?.warn ?? api.logger?.info)?.call(api.logger, text);
  } catch {
    // A logger that throws must not turn into a blocked tool call.
  }
}

function runCm(api, hook, stdin) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (reply, why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (why) logLine(api, hook, why);
      resolve(reply);
    };
    let child;
    try {
      child = spawn(CM_COMMAND, ["hook", "openclaw", hook], { stdio: ["pipe", "pipe", "ignore"], windowsHide: true });
    } catch (error) {
      finish(undefined, `cannot run ${CM_COMMAND}: ${error.message}`);
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(undefined, `${CM_COMMAND} gave no answer within ${TIMEOUT_MS} ms`);
    }, TIMEOUT_MS);
    const chunks = [];
    let size = 0;
    child.stdout.on("data", (chunk) => {
      size += chunk.length;
      if (size <= MAX_REPLY_BYTES) chunks.push(chunk);
    });
    child.on("error", (error) => finish(undefined, `cannot run ${CM_COMMAND}: ${error.message}`));
    child.on("close", (code, signal) => {
      if (code !== 0) return finish(undefined, `${CM_COMMAND} exited with ${signal ?? code}`);
      const text = Buffer.concat(chunks).toString("utf8").trim();
      if (!text) return finish(undefined);
      try {
        const reply = JSON.parse(text);
        if (reply === null || typeof reply !== "object" || Array.isArray(reply)) {
          return finish(undefined, `${CM_COMMAND} answered something that is not an object`);
        }
        finish(Object.keys(reply).length > 0 ? reply : undefined);
      } catch {
        finish(undefined, `${CM_COMMAND} answered something that is not JSON`);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

function handOver(api, hook, event, ctx) {
  let stdin;
  try {
    stdin = stdinFor(hook, event, ctx);
  } catch (error) {
    logLine(api, hook, `cannot write the event as JSON: ${error.message}`);
    return Promise.resolve(undefined);
  }
  const key = ctx?.sessionKey ?? event?.sessionKey ?? "";
  const before = queues.get(key) ?? Promise.resolve();
  const turn = before.then(() => runCm(api, hook, stdin)).catch(() => undefined);
  queues.set(key, turn);
  turn.then(() => {
    if (queues.get(key) === turn) queues.delete(key);
  });
  return turn;
}

function markStarted(sessionId) {
  started.add(sessionId);
  if (started.size > 1024) started.delete(started.values().next().value);
}

function register(api) {
  // register() must stay synchronous: OpenClaw does not await it.
  const on = (hook, handler) => {
    try {
      api.on(hook, async (event, ctx) => {
        try {
          return await handler(event, ctx);
        } catch (error) {
          // A throwing before_tool_call handler blocks the call; fail open instead.
          logLine(api, hook, error?.message ?? error);
          return undefined;
        }
      });
    } catch (error) {
      logLine(api, hook, `cannot register: ${error?.message ?? error}`);
    }
  };
  const observe = (hook) =>
    on(hook, async (event, ctx) => {
      await handOver(api, hook, event, ctx);
      return undefined;
    });

  on("before_tool_call", (event, ctx) => handOver(api, "before_tool_call", event, ctx));
  observe("after_tool_call");
  // Embedded runs (`openclaw agent --local`) fire no session_start: a session's first
  // prompt (an empty history) stands for it, once per session.
  on("before_prompt_build", async (event, ctx) => {
    const sessionId = ctx?.sessionId ?? remember(event, ctx).sessionId;
    const firstTurn = Array.isArray(event?.messages) && event.messages.length === 0;
    if (firstTurn && sessionId && !started.has(sessionId)) {
      markStarted(sessionId);
      await handOver(api, "session_start", { sessionId, sessionKey: ctx?.sessionKey, firstTurn: true }, ctx);
    }
    return handOver(api, "before_prompt_build", event, ctx);
  });
  on("session_start", async (event, ctx) => {
    const sessionId = event?.sessionId ?? ctx?.sessionId;
    if (!event?.resumedFrom && sessionId && started.has(sessionId)) return undefined;
    if (sessionId) markStarted(sessionId);
    await handOver(api, "session_start", event, ctx);
    return undefined;
  });
  observe("before_compaction");
  observe("after_compaction");
  try {
    // Internal hooks fire only under their colon names; api.on takes the typed ones.
    api.registerHook(
      "command:new",
      async (event) => {
        try {
          await handOver(api, "command:new", event, { sessionKey: event?.sessionKey });
        } catch (error) {
          logLine(api, "command:new", error?.message ?? error);
        }
      },
      { name: `${PLUGIN_ID}-command-new`, description: "context-mode: a new session starts" },
    );
  } catch (error) {
    logLine(api, "command:new", `cannot register: ${error?.message ?? error}`);
  }
}

export default {
  id: PLUGIN_ID,
  name: "context-mode",
  description: "Keeps large tool output out of the context window: routes it through context-mode's ctx_* tools.",
  register,
};

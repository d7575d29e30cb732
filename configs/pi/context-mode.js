// context-mode for Pi and OMP (Oh My Pi), written by `cm setup`; `cm setup --remove`
// takes it out. The host's extension loader imports this file; it carries bytes only:
// each host event goes as JSON on stdin to `cm hook <adapter> <event>` and the reply is
// applied the host's way. Every decision is cm's. Nothing here prints to stdout, and any
// failure (cm missing, a crash, a timeout, a reply that is not JSON) lets the host go on
// as if this file were not loaded, with one line in the host's log.
//
// The ctx_* tools: the extension starts one `cm serve` and registers each tool it lists
// as a native tool that forwards the call over MCP stdio (Pi has no MCP client; OMP
// hides MCP tools behind xd:// devices, see docs/adr/0030).
//
// The same file is the `context-mode` npm package's Pi extension and OMP plugin
// (`pi install npm:context-mode`, `omp plugin install context-mode`; docs/adr/0041).
// There nothing is filled in: the binary is the package's platform package, else `cm`
// on PATH, and the adapter is the entry's file name (`pi.js`, `omp.js`).
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

const CM = "__CM__";
const ADAPTER = "__ADAPTER__";
const CLIENT = "__CLIENT__";
// Split so that `cm setup`, which replaces each quoted placeholder, leaves these alone.
const PACKAGED = ADAPTER === "__" + "ADAPTER__";
const HOST = PACKAGED ? basename(fileURLToPath(import.meta.url), ".js") : ADAPTER;
const CLIENT_NAME = PACKAGED ? `${HOST}-coding-agent` : CLIENT;
const BINARY = CM === "__" + "CM__" ? packagedCm() : CM;
const MISSING =
  "cm is not installed (not on PATH, no npm package @context-mode/cm-*); install it with: npm install -g context-mode";

// The first `cm hook` of a machine may compile the plugins (about a second); a hook that
// takes longer than this is stopped and the host proceeds without it.
const HOOK_TIMEOUT_MS = 10000;
const SERVE_TIMEOUT_MS = 30000;
const MESSAGE_TYPE = "context-mode";

export default async function contextMode(pi) {
  const log = logger(pi);
  const pending = [];
  const hook = (event, ctx, fields) => runHook(event, { ...base(event, ctx), ...fields }, log);

  pi.on("session_start", async (event, ctx) => {
    const reply = await hook("session_start", ctx, { source: event?.reason });
    if (typeof reply?.context === "string") pending.push(reply.context);
  });
  pi.on("session_compact", async (_event, ctx) => {
    const reply = await hook("session_compact", ctx, {});
    if (typeof reply?.context === "string") pending.push(reply.context);
  });
  pi.on("before_agent_start", async (event, ctx) => {
    const reply = await hook("before_agent_start", ctx, { prompt: String(event?.prompt ?? "") });
    if (typeof reply?.context === "string") pending.push(reply.context);
    if (pending.length === 0) return undefined;
    const content = pending.splice(0).join("\n\n");
    return { message: { customType: MESSAGE_TYPE, content, display: false } };
  });
  pi.on("tool_call", async (event, ctx) => {
    const reply = await hook("tool_call", ctx, {
      tool_name: event?.toolName,
      tool_call_id: event?.toolCallId,
      tool_input: event?.input ?? {},
    });
    if (reply?.block === true) {
      return { block: true, reason: String(reply.reason ?? "denied by context-mode") };
    }
    if (isObject(reply?.input)) {
      // Pi runs the event's input as mutated; OMP runs the input the handler returns.
      if (isObject(event.input)) {
        for (const key of Object.keys(event.input)) delete event.input[key];
        Object.assign(event.input, reply.input);
      }
      return { input: reply.input };
    }
    return undefined;
  });
  pi.on("tool_result", async (event, ctx) => {
    const reply = await hook("tool_result", ctx, {
      tool_name: event?.toolName,
      tool_call_id: event?.toolCallId,
      tool_input: event?.input ?? {},
      tool_response: { content: textBlocks(event?.content), isError: event?.isError === true },
    });
    return Array.isArray(reply?.content) ? { content: reply.content } : undefined;
  });
  pi.on("session_before_compact", async (_event, ctx) => {
    await hook("session_before_compact", ctx, {});
    return undefined;
  });

  const server = new Serve(log);
  pi.on("session_shutdown", async () => server.close());
  let tools = [];
  try {
    tools = BINARY ? await server.tools() : [];
    if (!BINARY) log(MISSING);
  } catch (err) {
    log(`the ctx_* tools are not available: ${oneLine(err)}`);
  }
  for (const tool of tools) {
    try {
      pi.registerTool(nativeTool(tool, server));
    } catch (err) {
      log(`cannot register ${tool?.name}: ${oneLine(err)}`);
    }
  }
}

function nativeTool(tool, server) {
  const description = String(tool.description ?? "");
  return {
    name: tool.name,
    label: String(tool.title ?? tool.name),
    description,
    promptSnippet: description.split("\n")[0],
    parameters: isObject(tool.inputSchema) ? tool.inputSchema : { type: "object", properties: {} },
    // OMP: declared to the model on every request, not mounted as an xd:// device.
    loadMode: "essential",
    async execute(_toolCallId, params, signal) {
      const result = await server.call(tool.name, isObject(params) ? params : {}, signal);
      const content = (Array.isArray(result?.content) ? result.content : []).filter(
        (block) => block?.type === "text" || block?.type === "image",
      );
      if (result?.isError === true) {
        throw new Error(textOf(content) || `${tool.name} failed`);
      }
      return { content: content.length > 0 ? content : [{ type: "text", text: "" }], details: {} };
    },
  };
}

function base(event, ctx) {
  const sessions = ctx?.sessionManager;
  return {
    hook_event_name: event,
    session_id: ask(sessions, "getSessionId"),
    transcript_path: ask(sessions, "getSessionFile"),
    cwd: typeof ctx?.cwd === "string" ? ctx.cwd : process.cwd(),
  };
}

function ask(object, method) {
  try {
    const value = object?.[method]?.();
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

// Images go as their type only: cm reads the text, and base64 data would only fill the pipe.
function textBlocks(content) {
  if (!Array.isArray(content)) return [];
  return content.map((block) => (block?.type === "text" ? block : { type: String(block?.type) }));
}

function textOf(content) {
  return content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function oneLine(err) {
  return String(err?.message ?? err).split("\n")[0];
}

function logger(pi) {
  return (line) => {
    const text = `context-mode: ${line}`;
    try {
      if (typeof pi?.logger?.warn === "function") pi.logger.warn(text);
      else process.stderr.write(`${text}\n`);
    } catch {
      // Logging must never be what breaks the host.
    }
  };
}

// The binary of a package install: the platform package npm or bun installed beside
// this package (what the npm launcher runs, without its Node start per hook), else `cm`
// on PATH; null when neither is there. The same text as in configs/opencode/context-mode.js
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

// One `cm hook`: the reply object, or null for "no opinion" and every failure.
function runHook(event, payload, log) {
  if (!BINARY) {
    logMissing(event);
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    let settled = false;
    let timer;
    const finish = (value, why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (why) log(`cm hook ${HOST} ${event}: ${why}`);
      resolve(value);
    };
    let child;
    try {
      child = spawn(BINARY, ["hook", HOST, event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch (err) {
      finish(null, oneLine(err));
      return;
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(null, `no reply within ${HOOK_TIMEOUT_MS} ms`);
    }, HOOK_TIMEOUT_MS);
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", (err) => finish(null, oneLine(err)));
    child.on("close", () => {
      const text = out.trim();
      if (text === "") return finish(null);
      try {
        const reply = JSON.parse(text);
        finish(isObject(reply) ? reply : null, isObject(reply) ? undefined : "reply is not an object");
      } catch {
        finish(null, "reply is not JSON");
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// One `cm serve` for the session, spoken to over MCP stdio (one JSON-RPC message a line);
// started again on the next call when it exits.
class Serve {
  constructor(log) {
    this.log = log;
    this.child = null;
    this.ready = null;
    this.next = 1;
    this.waiting = new Map();
  }

  async tools() {
    const listed = await this.request("tools/list", {});
    return Array.isArray(listed?.tools) ? listed.tools.filter((t) => typeof t?.name === "string") : [];
  }

  call(name, args, signal) {
    return this.request("tools/call", { name, arguments: args }, signal);
  }

  close() {
    const child = this.child;
    this.child = null;
    this.ready = null;
    if (child) child.stdin.end();
  }

  async request(method, params, signal) {
    if (!this.ready) {
      const starting = this.start();
      this.ready = starting;
      // A server that never answered `initialize` is dropped; the next call starts another.
      starting.catch(() => {
        if (this.ready !== starting) return;
        const child = this.child;
        this.close();
        child?.kill("SIGKILL");
      });
    }
    await this.ready;
    return this.send(method, params, signal);
  }

  async start() {
    const child = spawn(BINARY, ["serve"], {
      stdio: ["pipe", "pipe", "ignore"],
      env: { ...process.env, CONTEXT_MODE_PLATFORM: HOST },
    });
    this.child = child;
    let buffer = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line !== "") this.receive(line);
      }
    });
    const gone = (why) => {
      if (this.child === child) {
        this.child = null;
        this.ready = null;
      }
      for (const [id, waiter] of this.waiting) {
        if (waiter.child === child) {
          this.waiting.delete(id);
          waiter.fail(new Error(`cm serve ${why}`));
        }
      }
    };
    child.on("error", (err) => gone(`could not start: ${oneLine(err)}`));
    child.on("exit", (code, sig) => gone(`exited (${sig ?? code})`));
    child.stdin.on("error", () => {});
    // The host's exit must not wait for the server: it ends when its stdin closes.
    child.unref();
    child.stdout.unref?.();
    child.stdin.unref?.();
    await this.send("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: CLIENT_NAME, version: "1" },
    });
    this.write({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  send(method, params, signal) {
    const child = this.child;
    if (!child) return Promise.reject(new Error("cm serve is not running"));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`cm serve gave no answer to ${method} within ${SERVE_TIMEOUT_MS} ms`));
      }, SERVE_TIMEOUT_MS);
      const onAbort = () => {
        this.waiting.delete(id);
        clearTimeout(timer);
        this.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
        reject(new Error("cancelled"));
      };
      signal?.addEventListener?.("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener?.("abort", onAbort);
      };
      this.waiting.set(id, {
        child,
        ok: (value) => {
          done();
          resolve(value);
        },
        fail: (err) => {
          done();
          reject(err);
        },
      });
      this.write({ jsonrpc: "2.0", id, method, params });
    });
  }

  write(message) {
    try {
      this.child?.stdin.write(`${JSON.stringify(message)}\n`);
    } catch (err) {
      this.log(`cannot write to cm serve: ${oneLine(err)}`);
    }
  }

  receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    const waiter = this.waiting.get(message?.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    if (message.error) waiter.fail(new Error(String(message.error.message ?? "cm serve error")));
    else waiter.ok(message.result);
  }
}

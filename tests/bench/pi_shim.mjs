#!/usr/bin/env node
// The Pi / OMP extension's overhead per event: configs/pi/context-mode.js loaded in Node
// with a stand-in for the host's `pi` API (handlers recorded, tools registered), its
// `tool_call` handler timed on a redirected `curl` and on a `git status` it lets
// through, interleaved with the same payload piped to `cm hook pi tool_call` directly
// (the same spawn, without the shim). The shim's overhead is the difference of the
// medians. Also timed: a trivial `ctx_execute` through the registered native tool
// (MCP over stdio to the extension's one `cm serve`).
//
//   usage: node tests/bench/pi_shim.mjs /path/to/cm [--rounds N]
//
// Runs in a throw-away HOME, data root and project.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const cm = path.resolve(process.argv[2] ?? "target/release/cm");
const roundsAt = process.argv.indexOf("--rounds");
const rounds = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 200;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cm-pi-shim-"));
const project = path.join(scratch, "project");
fs.mkdirSync(project, { recursive: true });
process.env.HOME = path.join(scratch, "home");
process.env.CONTEXT_MODE_DIR = path.join(scratch, "data");
process.chdir(project);

const template = fs.readFileSync(path.join(here, "../../configs/pi/context-mode.js"), "utf8");
const shimFile = path.join(scratch, "context-mode.mjs");
fs.writeFileSync(
  shimFile,
  template
    .replace('"__CM__"', JSON.stringify(cm))
    .replace('"__ADAPTER__"', '"pi"')
    .replace('"__CLIENT__"', '"pi-coding-agent"'),
);

const handlers = new Map();
const tools = new Map();
const pi = {
  on: (event, handler) => handlers.set(event, handler),
  registerTool: (tool) => tools.set(tool.name, tool),
};
const sessionId = "01a23573-a695-710a-912c-00fb2dcccccf";
const ctx = {
  cwd: project,
  sessionManager: { getSessionId: () => sessionId, getSessionFile: () => undefined },
};
const { default: factory } = await import(pathToFileURL(shimFile).href);
await factory(pi);
if (!tools.has("ctx_execute")) throw new Error(`no ctx_execute registered (cm at ${cm}?)`);

const event = (command) => ({
  type: "tool_call",
  toolName: "bash",
  toolCallId: "call_1",
  input: { command },
});

function direct(command) {
  return new Promise((resolve) => {
    const payload = {
      hook_event_name: "tool_call",
      session_id: sessionId,
      cwd: project,
      tool_name: "bash",
      tool_call_id: "call_1",
      tool_input: { command },
    };
    const child = spawn(cm, ["hook", "pi", "tool_call"], { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("close", () => resolve(out));
    child.stdin.end(JSON.stringify(payload));
  });
}

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

const cases = { "curl (redirected)": "curl -s https://example.com/api", "git status (allowed)": "git status" };
// Warm the .cwasm cache and the policy's first run before timing.
for (const command of Object.values(cases)) {
  await handlers.get("tool_call")(event(command), ctx);
  await direct(command);
}
const rows = [];
for (const [label, command] of Object.entries(cases)) {
  const viaShim = [];
  const bare = [];
  let blocked = 0;
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0;
    for (const which of first ? ["shim", "bare"] : ["bare", "shim"]) {
      const start = process.hrtime.bigint();
      if (which === "shim") {
        const reply = await handlers.get("tool_call")(event(command), ctx);
        viaShim.push(ms(start));
        if (reply?.block) blocked++;
      } else {
        await direct(command);
        bare.push(ms(start));
      }
    }
  }
  rows.push({ label, viaShim, bare, blocked });
}

const execute = tools.get("ctx_execute");
const runs = [];
for (let i = 0; i < Math.min(rounds, 100); i++) {
  const start = process.hrtime.bigint();
  await execute.execute("call_x", { language: "shell", code: "echo hi" }, undefined);
  runs.push(ms(start));
}

console.log(`| event | via the shim p50 | cm hook alone p50 | shim overhead p50 | via the shim p90 | blocked |`);
console.log(`|---|---|---|---|---|---|`);
for (const { label, viaShim, bare, blocked } of rows) {
  const overhead = median(viaShim) - median(bare);
  console.log(
    `| ${label} | ${median(viaShim).toFixed(2)} ms | ${median(bare).toFixed(2)} ms | ${overhead.toFixed(2)} ms | ${p90(viaShim).toFixed(2)} ms | ${blocked}/${viaShim.length} |`,
  );
}
console.log(`\nctx_execute (echo hi) through the native tool: p50 ${median(runs).toFixed(2)} ms, p90 ${p90(runs).toFixed(2)} ms over ${runs.length} calls`);
console.log(`${rounds} rounds per event, interleaved; node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"} x${os.cpus().length}`);
await handlers.get("session_shutdown")?.();
fs.rmSync(scratch, { recursive: true, force: true });

// Per-event cost of the OpenClaw shim, in Node, the way OpenClaw calls it: the installed
// plugin's register(api), then its before_tool_call / after_tool_call / before_prompt_build
// handlers awaited one after another. Three series per event: the handler with the real
// `cm` (what OpenClaw waits for), `cm hook openclaw <event>` spawned directly from Node with
// the same stdin (cm's own share), and the handler with `true` as the command (the shim's
// own share: JSON, spawn, pipes). Prints a markdown table.
//   usage: node tests/bench/openclaw_shim.mjs <installed index.js> <cm> <project> [runs]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [shimPath, cm, project, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 200);
const ctx = { sessionKey: "agent:main:bench", sessionId: "bench-1", agentId: "main", workspaceDir: project };
const events = [
  ["before_tool_call", "curl (redirected)", { toolName: "exec", params: { command: "curl -s https://example.com/api/items" } }],
  ["before_tool_call", "git status (allowed)", { toolName: "exec", params: { command: "git status" } }],
  ["after_tool_call", "exec result", { toolName: "exec", params: { command: "git status" },
    result: { content: [{ type: "text", text: "On branch main\nnothing to commit" }], details: { exitCode: 0 } }, durationMs: 31 }],
  ["before_prompt_build", "prompt", { prompt: "Run the tests and tell me what fails", messages: [{}, {}] }],
];

async function load(command) {
  const text = readFileSync(shimPath, "utf8").replace(/^const CM_COMMAND = .*;$/m, `const CM_COMMAND = ${JSON.stringify(command)};`);
  const file = join(mkdtempSync(join(tmpdir(), "cm-shim-bench-")), "index.mjs");
  writeFileSync(file, text);
  const handlers = new Map();
  const api = { logger: { warn: () => {}, info: () => {} }, on: (n, h) => handlers.set(n, h), registerHook: () => {} };
  (await import(file)).default.register(api);
  return handlers;
}

function direct(hook, event) {
  const stdin = JSON.stringify({ hook_event_name: hook, event, ctx, workspaceDir: project, cwd: process.cwd() });
  return new Promise((resolve) => {
    const child = spawn(cm, ["hook", "openclaw", hook], { stdio: ["pipe", "pipe", "ignore"] });
    child.stdout.on("data", () => {});
    child.on("close", resolve);
    child.stdin.end(stdin);
  });
}

async function series(run) {
  for (let i = 0; i < 10; i++) await run();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(times.length * q))];
  return `${at(0.5).toFixed(2)} / ${at(0.9).toFixed(2)}`;
}

const real = await load(cm);
const noop = await load("true");
console.log(`node ${process.version}, ${runs} runs each; ms p50 / p90`);
console.log("| event | handler, real cm | cm hook spawned directly | handler, `true` as cm |");
console.log("|---|---|---|---|");
for (const [hook, label, event] of events) {
  const a = await series(() => real.get(hook)(event, ctx));
  const b = await series(() => direct(hook, event));
  const c = await series(() => noop.get(hook)(event, ctx));
  console.log(`| ${hook}: ${label} | ${a} | ${b} | ${c} |`);
}

#!/usr/bin/env node
// Per-event cost of the OpenCode/KiloCode plugin shim (configs/opencode/context-mode.js):
// each golden payload of tests/golden/<platform>/ handed to the shim's hook as the host
// would, timed from the call to its return (spawning `cm hook`, writing the payload,
// reading and applying the reply), against the same `cm hook` run directly
// (spawnSync, the payload on stdin). The difference is what the shim itself adds.
// A live `cm serve` runs on the same project, as in an agent session.
//   usage: node tests/bench/opencode_shim.mjs <path to cm> [opencode|kilo] [runs]
//   (runs under Bun too: `bun tests/bench/opencode_shim.mjs …`, the hosts' runtime)
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [cm, platform = "opencode", runsArg = "40"] = process.argv.slice(2);
if (!cm) {
  console.error("usage: opencode_shim.mjs <path to cm> [opencode|kilo] [runs]");
  process.exit(2);
}
const runs = Number(runsArg);
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cm-shim-bench-"));
const project = path.join(work, "project");
const env = { ...process.env, HOME: path.join(work, "home"), CONTEXT_MODE_DIR: path.join(work, "data") };
for (const dir of [project, env.HOME, env.CONTEXT_MODE_DIR, path.join(project, ".claude")]) {
  fs.mkdirSync(dir, { recursive: true });
}
const line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n";
fs.writeFileSync(path.join(project, "big.txt"), line.repeat(Math.ceil(51200 / line.length)));
fs.writeFileSync(path.join(project, ".claude/settings.json"), '{"permissions":{"deny":["Bash(sudo *)"]}}');
Object.assign(process.env, env);

const server = spawn(cm, ["serve"], { cwd: project, env: { ...env, CONTEXT_MODE_PROJECT_DIR: project }, stdio: ["pipe", "pipe", "ignore"] });
server.stdin.write(
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n',
);
await new Promise((resolve) => server.stdout.once("data", resolve));

const shimPath = path.join(work, "context-mode.js");
const shim = fs
  .readFileSync(path.join(repo, "configs/opencode/context-mode.js"), "utf8")
  .replace('"__CM_COMMAND__"', JSON.stringify(cm))
  .replace('"__CM_PLATFORM__"', JSON.stringify(platform));
fs.writeFileSync(shimPath, shim);
const logged = [];
const { ContextMode } = await import(pathToFileURL(shimPath).href);
const hooks = await ContextMode({
  directory: project,
  worktree: "/",
  client: { app: { log: async ({ body }) => logged.push(body.message) } },
});

const golden = path.join(repo, "tests/golden", platform);
const cases = fs
  .readdirSync(golden)
  .filter((name) => name.endsWith(".stdin.json"))
  .map((name) => name.replace(".stdin.json", ""))
  .sort();
const p = (times, q) => times.slice().sort((a, b) => a - b)[Math.floor(q * (times.length - 1))];
const ms = (t) => t.toFixed(1);

console.log(`runtime: ${typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`}, ${os.cpus().length} cpus (${os.cpus()[0]?.model}), ${runs} runs per case`);
console.log("| case | event | shim p50 ms | shim p90 ms | cm hook direct p50 ms | shim adds p50 ms |");
console.log("|---|---|---|---|---|---|");
const added = [];
for (const name of cases) {
  const text = fs.readFileSync(path.join(golden, `${name}.stdin.json`), "utf8").replaceAll("__PROJECT__", project);
  const payload = JSON.parse(text);
  const event = payload.hook_event_name;
  const shimTimes = [];
  const directTimes = [];
  for (let i = 0; i < runs; i++) {
    const output = structuredClone(payload.output);
    const start = performance.now();
    try {
      await hooks[event](structuredClone(payload.input), output);
    } catch {}
    shimTimes.push(performance.now() - start);
    const direct = performance.now();
    spawnSync(cm, ["hook", platform, event], { input: text, env });
    directTimes.push(performance.now() - direct);
  }
  const shimP50 = p(shimTimes, 0.5);
  const directP50 = p(directTimes, 0.5);
  added.push(shimP50 - directP50);
  console.log(`| ${name} | ${event} | ${ms(shimP50)} | ${ms(p(shimTimes, 0.9))} | ${ms(directP50)} | ${ms(shimP50 - directP50)} |`);
}
console.log(`\nshim adds (p50 over cases): ${ms(p(added, 0.5))} ms; fail-open log lines: ${logged.length}`);
server.kill();
fs.rmSync(work, { recursive: true, force: true });

#!/usr/bin/env node
// context-mode's npm launcher (ADR 36): runs the native `cm` of this machine's platform
// package. npm installs only the optional dependency whose `os`/`cpu`/`libc` match, so
// nothing is downloaded here and nothing runs at install time. `cm setup` writes the
// binary's own path into the agents' configs, so hooks never pay for this Node start.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

const SHIPPED = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];
const platform = `${process.platform}-${process.arch}`;
const pkg = `@context-mode/cm-${platform}`;
const exe = process.platform === "win32" ? "cm.exe" : "cm";

function fail(line) {
  process.stderr.write(`context-mode: ${line}\n`);
  process.exit(1);
}

function binaryPath() {
  if (!SHIPPED.includes(platform)) {
    fail(`no cm binary is built for ${platform} (built: ${SHIPPED.join(", ")}); build it from source: cargo install --path host`);
  }
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
  } catch {
    fail(`${pkg} is not installed (npm skipped the optional dependency?): run npm install -g context-mode again without --omit=optional`);
  }
}

const binary = binaryPath();
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on("error", (error) => fail(`cannot run ${binary}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // End the way cm ended, so a shell or an agent sees the same signal.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});

// The built-in `default` policy's main rules, in JavaScript (jco, QuickJS backend).
//
// Implemented, with the built-in policy's exact wording:
//   - `Bash(spec)` deny and ask rules of the user's settings (deny beats ask);
//   - WebFetch, and another MCP server's fetch tool given a web URL, -> ctx_fetch_and_index;
//   - curl / wget printing a response -> ctx_execute;
//   - inline HTTP in `python -c` / `node -e` code -> ctx_execute;
//   - Gradle / Maven / sbt -> ctx_execute with `| tail -30`;
//   - a whole-file Read of a large file -> ctx_execute_file; otherwise one Read nudge;
//   - search tools and some noisy shell commands -> one nudge per session;
//   - sub-agent launches -> the routing block appended to the prompt.
// Not implemented (no opinion, so the built-in policy decides): allow rules, rules on
// paths, URLs and tools, wrappers such as `timeout` / `env`, the ctx tools' project
// confinement, and the rarer noisy commands. The routing rules need a live `cm serve`.
//
// Contract types as the QuickJS backend (componentize-qjs) maps them: records are
// objects with camelCase fields, enums are their WIT names as strings, variants are
// `{ tag, val }`, an absent option is `null`, and a u64 is a number.

const POLICY_ID = "example-js";
// Mirrors OUTPUT_CAP_BYTES of the built-in policy: a larger whole-file Read is redirected.
const OUTPUT_CAP_BYTES = 16384;
const NUDGE_READ = "read";
const NUDGE_NOISY_OUTPUT = "noisy-output";
const SETTINGS_FILE = {
  "project-local": ".claude/settings.local.json",
  project: ".claude/settings.json",
  user: "~/.claude/settings.json",
};
const CLOSEST_FIRST = ["project-local", "project", "user"];

// ---- reasons: every text, worded as the built-in policy words it ----------------

const MAX_REASON_BYTES = 600;
const NETWORK_SENTENCE = "The tool has full network access.";
const RETRY_SENTENCE =
  "On a transient DNS error (EAI_AGAIN, ETIMEDOUT, ENETUNREACH), retry the same call.";

function isBidi(code) {
  return (
    code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Drops ANSI escapes, control characters and bidi overrides; breaks become spaces. */
function sanitize(text) {
  const chars = Array.from(text);
  let out = "";
  for (let i = 0; i < chars.length; ) {
    const c = chars[i++];
    const code = c.codePointAt(0);
    if (c === "\x1b") {
      const kind = chars[i++];
      if (kind === "[") {
        while (i < chars.length && !(chars[i] >= "@" && chars[i] <= "~")) i++;
        i++;
      } else if (kind === "]") {
        while (i < chars.length) {
          if (chars[i] === "\x07") { i++; break; }
          if (chars[i] === "\x1b" && chars[i + 1] === "\\") { i += 2; break; }
          i++;
        }
      }
    } else if (c === "\n" || c === "\r" || c === "\t") {
      if (!out.endsWith(" ")) out += " ";
    } else if (isBidi(code) || code < 0x20 || (code >= 0x7f && code < 0xa0)) {
      // dropped
    } else {
      out += c;
    }
  }
  return out;
}

function utf8Length(text) {
  let bytes = 0;
  for (const c of text) {
    const code = c.codePointAt(0);
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

function truncate(text, maxBytes) {
  if (utf8Length(text) <= maxBytes) return text;
  const budget = Math.max(maxBytes - utf8Length("…"), 0);
  let cut = "";
  for (const c of text) {
    if (utf8Length(cut + c) > budget) break;
    cut += c;
  }
  return cut.trimEnd() + "…";
}

/** Renders with each piece sanitized; cuts every piece to one common length if too long. */
function fit(pieces, render) {
  const clean = pieces.map(sanitize);
  const full = render(clean);
  if (utf8Length(full) < MAX_REASON_BYTES) return full;
  let low = 0;
  let high = Math.max(0, ...clean.map(utf8Length));
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (utf8Length(render(clean.map((p) => truncate(p, mid)))) < MAX_REASON_BYTES) low = mid;
    else high = mid - 1;
  }
  return render(clean.map((p) => truncate(p, low)));
}

function quoted(text) {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return `"${text.replaceAll('"', '\\"')}"`;
}

/** How the agent host names context-mode's tools. */
function toolsOf(context) {
  const names = new Map();
  for (const t of context.ctxTools) if (!names.has(t.tool)) names.set(t.tool, sanitize(t.name));
  const hints = {
    "claude-code": (name) => `If deferred, first call ToolSearch(query: "select:${name}"). `,
    "qwen-code": (name) =>
      `If it is not in your tool list, run it with tool_call(name: "${name}", arguments: {…}). `,
  };
  const hint = hints[context.platform];
  return {
    name: (tool) => names.get(tool) ?? tool,
    loadHint: (name) => (hint ? hint(name) : ""),
    rangedRead: () =>
      context.platform === "gemini-cli"
        ? "a read_file with start_line and end_line"
        : "a Read with offset and limit",
  };
}

const tail = (tools, first) => `${tools.loadHint(first)}${NETWORK_SENTENCE} ${RETRY_SENTENCE}`;

const reasons = {
  webFetch(tools, url) {
    const [fetch, search, exe] = ["ctx_fetch_and_index", "ctx_search", "ctx_execute"].map(tools.name);
    return fit([url], (p) =>
      `redirected to ${fetch}(url: ${quoted(p[0])}), then ${search}(queries: ["<what you need>"]) ` +
      `to read the matching parts, or ${exe} to process the page in code. ${tail(tools, fetch)}`);
  },
  fetchCommand(tools, command, url) {
    const [fetch, exe] = ["ctx_fetch_and_index", "ctx_execute"].map(tools.name);
    return fit([command, url ?? "<url>"], (p) =>
      `redirected to ${exe}(language: "shell", code: ${quoted(p[0])}): only what the command prints comes back, ` +
      `so filter the response there; to search a page later, use ${fetch}(url: ${quoted(p[1])}). ${tail(tools, exe)}`);
  },
  inlineHttp(tools, command) {
    const exe = tools.name("ctx_execute");
    return fit([command], (p) =>
      `redirected to ${exe}(language: "shell", code: ${quoted(p[0])}): only what the script prints comes back, ` +
      `so print just the fields you need. ${tail(tools, exe)}`);
  },
  build(tools, command, single) {
    const exe = tools.name("ctx_execute");
    return fit([command], (p) => {
      const code = single ? `${p[0]} 2>&1 | tail -30` : `( ${p[0]} ) 2>&1 | tail -30`;
      return `redirected to ${exe}(language: "shell", code: ${quoted(code)}): the last 30 lines carry the result; ` +
        `for more, run it with intent: "<what to find>" and the full log is indexed and searched. ${tail(tools, exe)}`;
    });
  },
  largeRead(tools, path, sizeBytes) {
    const exeFile = tools.name("ctx_execute_file");
    return fit([path], (p) =>
      `redirected to ${exeFile}(path: ${quoted(p[0])}, language: "python", code: "<code that prints what you need>"): ` +
      `the file (${sizeBytes} bytes) stays out of the context and only what the code prints comes back; ` +
      `${tools.rangedRead()} runs as usual. ${tail(tools, exeFile)}`);
  },
  rule(opening, subject, pattern, key, file) {
    return fit([subject, pattern], (p) => `${opening}: \`${p[0]}\` matches \`${p[1]}\` in ${key} of ${file}.`);
  },
  readNudge: (tools) =>
    `Tip: ${tools.name("ctx_execute_file")}(path, language, code) runs code over a file and returns only what ` +
    `it prints; ${tools.name("ctx_search")} finds text in output indexed earlier.`,
  grepNudge: (tools) =>
    `Tip: for wide searches, ${tools.name("ctx_batch_execute")}(commands, queries) runs the searches and ` +
    `returns only the matching parts; ${tools.name("ctx_search")} queries output indexed earlier.`,
  noisyShellNudge(tools, what) {
    const [batch, search, exe] = ["ctx_batch_execute", "ctx_search", "ctx_execute"].map(tools.name);
    return fit([what], (p) =>
      `Tip: \`${p[0]}\` can print a lot; ${exe}(language: "shell", code) returns only what the command prints ` +
      `and indexes long output for ${search}, and ${batch}(commands, queries) runs several at once.`);
  },
  subagentBlock(tools) {
    const [exeFile, batch, fetch, search, exe] =
      ["ctx_execute_file", "ctx_batch_execute", "ctx_fetch_and_index", "ctx_search", "ctx_execute"].map(tools.name);
    return `Context tools: run commands, builds, tests and log reads with ${exe}(language, code), or several ` +
      `at once with ${batch}(commands, queries); only what the code prints comes back. Fetch URLs with ` +
      `${fetch}(url), then ${search}(queries). Analyse large files with ` +
      `${exeFile}(path, language, code). These tools have full network access.`;
  },
  subagentMarker: (tools) =>
    `${tools.name("ctx_batch_execute")}(commands, queries); only what the code prints comes back`,
};

// ---- shell: a command line split into simple commands -----------------------------

const REDIRECT = /^(\d|&)?(>>?|>&)(.*)$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const basename = (path) => path.split(/[/\\]/).pop();

/** Words (`{ raw, text }`) and operators (`{ op }`). */
function tokens(line) {
  const out = [];
  let raw = "";
  let text = "";
  const flush = () => {
    if (raw) out.push({ raw, text });
    raw = "";
    text = "";
  };
  for (let i = 0; i < line.length; ) {
    const c = line[i];
    if (c === "'") {
      let end = line.indexOf("'", i + 1);
      if (end < 0) end = line.length;
      raw += line.slice(i, end + 1);
      text += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1])) {
          text += line[j + 1];
          j += 2;
        } else {
          text += line[j++];
        }
      }
      raw += line.slice(i, j + 1);
      i = j + 1;
    } else if (c === "\\" && i + 1 < line.length) {
      raw += line.slice(i, i + 2);
      if (line[i + 1] !== "\n") text += line[i + 1];
      i += 2;
    } else if (c === " " || c === "\t") {
      flush();
      i++;
    } else if (line.startsWith("&&", i) || line.startsWith("||", i)) {
      flush();
      out.push({ op: line.slice(i, i + 2) });
      i += 2;
    } else if (";|\n".includes(c) || (c === "&" && !/[<>]$/.test(raw) && !line.startsWith("&>", i))) {
      flush();
      out.push({ op: c });
      i++;
    } else {
      raw += c;
      text += c;
      i++;
    }
  }
  flush();
  return out;
}

function newCommand() {
  return { words: [], stdoutCaptured: false, stderrCaptured: false, pipesInto: undefined };
}

const commandText = (command) => command.words.map((w) => w.raw).join(" ");
const unquotedText = (command) => command.words.map((w) => w.text).join(" ");

function argvOf(command) {
  const words = command.words.map((w) => w.text);
  while (words.length && ASSIGNMENT.test(words[0])) words.shift();
  return words;
}

function programOf(command) {
  const argv = argvOf(command);
  if (!argv.length) return undefined;
  const program = basename(argv[0]);
  return program.replace(/\.(bat|cmd)$/, "");
}

function markRedirect(command, fd, target) {
  if ((fd === "1" || fd === "&") && target !== "&1") command.stdoutCaptured = true;
  if ((fd === "2" || fd === "&") && target !== "&2" && target !== "&1") command.stderrCaptured = true;
}

function splitCommands(line) {
  const parsed = [];
  let current = newCommand();
  let pendingFd;
  const close = (op) => {
    if (current.words.length) parsed.push({ command: current, op });
    current = newCommand();
  };
  for (const token of tokens(line)) {
    if (token.op) {
      close(token.op);
      continue;
    }
    if (pendingFd !== undefined) {
      markRedirect(current, pendingFd, token.text);
      pendingFd = undefined;
      continue;
    }
    const redirect = token.raw === token.text ? REDIRECT.exec(token.raw) : null;
    if (redirect) {
      const fd = redirect[1] ?? "1";
      const target = (redirect[2] === ">&" ? "&" : "") + redirect[3];
      if (redirect[3]) markRedirect(current, fd, target);
      else pendingFd = fd;
      continue;
    }
    current.words.push(token);
  }
  close(undefined);
  parsed.forEach((entry, index) => {
    if (entry.op === "|" && index + 1 < parsed.length) {
      entry.command.pipesInto = programOf(parsed[index + 1].command);
    }
  });
  return parsed.map((entry) => entry.command);
}

// ---- curl / wget printing a response ------------------------------------------------

const CONSUMERS = new Set([
  "sh", "bash", "zsh", "dash", "tar", "gunzip", "gzip", "bunzip2", "xz", "unzip", "bsdtar",
  "sudo", "dd", "python", "python3", "node", "ruby", "perl", "apt-key", "gpg", "cpio", "zstd",
]);
const CURL_SHORT_WITH_VALUE = "AbcCdDeEFHKmoPQrtTuUwxXYyz";
const CURL_LONG_WITH_VALUE = new Set([
  "--output", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode",
  "--header", "--request", "--user", "--user-agent", "--cookie", "--cookie-jar", "--form",
  "--form-string", "--max-time", "--connect-timeout", "--retry", "--retry-delay",
  "--retry-max-time", "--write-out", "--proxy", "--referer", "--cert", "--key", "--cacert",
  "--config", "--upload-file", "--url", "--range", "--dump-header", "--resolve",
  "--limit-rate", "--max-filesize", "--output-dir", "--continue-at", "--interface", "--json",
  "--oauth2-bearer", "--unix-socket", "--proxy-user", "--connect-to", "--variable",
  "--expand-url", "--aws-sigv4", "--trace", "--trace-ascii", "--stderr",
]);
const WGET_SHORT_WITH_VALUE = "OoaeitTwQPUIXDAlRBY";

/** A cursor over arguments, so an option can take the next one as its value. */
function cursor(args) {
  let index = 0;
  return { more: () => index < args.length, next: () => args[index++] };
}

/** `{ url }` when curl prints the response (or its progress meter). */
function curlPrints(args, stdoutCaptured, stderrCaptured) {
  let silent = stderrCaptured;
  let toFile = stdoutCaptured;
  let infoOnly = false;
  let onlyOperands = false;
  let url;
  const options = cursor(args);
  while (options.more()) {
    const arg = options.next();
    if (onlyOperands || !arg.startsWith("-") || arg === "-") {
      url ??= arg;
    } else if (arg === "--") {
      onlyOperands = true;
    } else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg : arg.slice(0, eq);
      const value = () => (eq < 0 ? options.next() : arg.slice(eq + 1));
      if (["--version", "--help", "--manual", "--head"].includes(name)) infoOnly = true;
      else if (name === "--silent") silent = true;
      else if (name === "--remote-name" || name === "--remote-name-all") toFile = true;
      else if (name === "--output") {
        const v = value();
        toFile ||= v !== undefined && v !== "-";
      } else if (name === "--url") url = value() ?? url;
      else if (CURL_LONG_WITH_VALUE.has(name)) value();
    } else {
      const cluster = arg.slice(1);
      for (let k = 0; k < cluster.length; k++) {
        const flag = cluster[k];
        if (flag === "s") silent = true;
        else if ("VhMI".includes(flag)) infoOnly = true;
        else if (flag === "O") toFile = true;
        else if (CURL_SHORT_WITH_VALUE.includes(flag)) {
          const attached = cluster.slice(k + 1);
          const v = attached || options.next();
          if (flag === "o") toFile ||= v !== undefined && v !== "-";
          break;
        }
      }
    }
  }
  const quietDownload = toFile && silent;
  return !infoOnly && !quietDownload && url !== undefined ? { url } : undefined;
}

/** `{ url }` when wget prints the document or its progress output. */
function wgetPrints(args, stdoutCaptured, stderrCaptured) {
  let quiet = stderrCaptured;
  let toStdout = false;
  let infoOnly = false;
  let url;
  const options = cursor(args);
  while (options.more()) {
    const arg = options.next();
    if (!arg.startsWith("-")) {
      url ??= arg;
    } else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const value = () => (eq < 0 ? options.next() : arg.slice(eq + 1));
      if (["version", "help", "spider"].includes(name)) infoOnly = true;
      else if (name === "quiet" || name === "no-verbose") quiet = true;
      else if (name === "output-document") toStdout = value() === "-";
      else if (name === "output-file" || name === "append-output") {
        value();
        quiet = true;
      }
    } else if (arg.length === 3 && arg.startsWith("-n")) {
      quiet ||= arg === "-nv";
    } else {
      const cluster = arg.slice(1);
      for (let k = 0; k < cluster.length; k++) {
        const flag = cluster[k];
        if (flag === "q") quiet = true;
        else if (flag === "V" || flag === "h") infoOnly = true;
        else if (WGET_SHORT_WITH_VALUE.includes(flag)) {
          const attached = cluster.slice(k + 1);
          const v = attached || options.next();
          if (flag === "O") toStdout = v === "-";
          else if (flag === "o" || flag === "a") quiet = true;
          break;
        }
      }
    }
  }
  const bodyPrinted = toStdout && !stdoutCaptured;
  return !infoOnly && url !== undefined && (bodyPrinted || !quiet) ? { url } : undefined;
}

function printingFetch(command) {
  const argv = argvOf(command);
  if (!argv.length) return undefined;
  const program = basename(argv[0]).replace(/\.exe$/, "");
  const stdoutCaptured = command.stdoutCaptured || CONSUMERS.has(command.pipesInto);
  if (program === "curl") return curlPrints(argv.slice(1), stdoutCaptured, command.stderrCaptured);
  if (program === "wget") return wgetPrints(argv.slice(1), stdoutCaptured, command.stderrCaptured);
  return undefined;
}

// ---- inline HTTP, build tools, noisy commands --------------------------------------

const HTTP_CALL_MARKERS = [
  "requests.", "urlopen(", "urllib.request", "urllib3", "http.client", "httpx.", "aiohttp",
  "fetch(", "http.get(", "https.get(", "http.request(", "https.request(", "axios", "got(",
  "require('https')", 'require("https")', "require('http')", 'require("http")',
];

function inlineHttp(command) {
  const argv = argvOf(command);
  if (!argv.length) return false;
  const program = basename(argv[0]);
  let flags;
  if (program.startsWith("python")) flags = ["-c"];
  else if (["node", "nodejs", "bun"].includes(program)) flags = ["-e", "--eval", "-p", "--print"];
  else return false;
  for (let i = 1; i + 1 < argv.length; i++) {
    if (flags.includes(argv[i])) return HTTP_CALL_MARKERS.some((m) => argv[i + 1].includes(m));
  }
  return false;
}

const BOUNDING_FILTERS = new Set(["head", "tail", "wc", "grep", "egrep", "fgrep", "rg"]);
const BUILD_PROBES = new Set([
  "-v", "--version", "-version", "-h", "--help", "-help", "help", "-q", "--quiet", "-quiet", "about",
]);

const outputBounded = (command) => BOUNDING_FILTERS.has(command.pipesInto) || command.stdoutCaptured;

function isBuildTool(command) {
  const program = programOf(command);
  if (!["gradle", "gradlew", "mvn", "mvnw", "sbt"].includes(program) || outputBounded(command)) return false;
  return !argvOf(command).slice(1).some((a) => BUILD_PROBES.has(a));
}

const hasFlag = (args, short, long) =>
  args.some((a) => a === long ||
    (a.startsWith("-") && !a.startsWith("--") && /^[A-Za-z0-9]+$/.test(a.slice(1)) && a.slice(1).includes(short)));

const quietSearch = (args) =>
  args.some((a) =>
    ["--quiet", "--count", "--files-with-matches", "--files-without-match", "--count-matches"].includes(a) ||
    (a.startsWith("-") && !a.startsWith("--") && /[qlcL]/.test(a.slice(1))));

/** The short name the nudge uses, for a command that prints a lot (a subset of the built-in list). */
function noisyCommand(command) {
  if (outputBounded(command)) return undefined;
  const program = programOf(command);
  const args = argvOf(command).slice(1);
  if (program === "ls") return hasFlag(args, "R", "--recursive") ? "ls" : undefined;
  if (["grep", "egrep", "fgrep"].includes(program)) {
    const recursive = hasFlag(args, "r", "--recursive") || hasFlag(args, "R", "--dereference-recursive");
    return recursive && !quietSearch(args) ? program : undefined;
  }
  if (["rg", "ag", "ack"].includes(program)) {
    const probe = args.some((a) => ["--version", "-V", "--help", "-h"].includes(a));
    return !quietSearch(args) && !probe ? program : undefined;
  }
  if (["pytest", "py.test", "jest", "vitest", "mocha", "rspec", "phpunit", "tox", "nox"].includes(program)) {
    return program;
  }
  return undefined;
}

// ---- rules -------------------------------------------------------------------------

function starMatch(pattern, text) {
  let pi = 0;
  let ti = 0;
  let star;
  while (ti < text.length) {
    if (pi < pattern.length && pattern[pi] === "*") {
      star = [pi, ti];
      pi++;
    } else if (pi < pattern.length && pattern[pi] === text[ti]) {
      pi++;
      ti++;
    } else if (star) {
      pi = star[0] + 1;
      ti = star[1] + 1;
      star = [star[0], star[1] + 1];
    } else {
      return false;
    }
  }
  return [...pattern.slice(pi)].every((c) => c === "*");
}

function bashSpecMatches(spec, command) {
  const line = command.trim();
  if (spec.endsWith(":*")) {
    const prefix = spec.slice(0, -2).trimEnd();
    if (!line.startsWith(prefix)) return false;
    const rest = line.slice(prefix.length);
    return rest === "" || !/^[\p{L}\p{N}\-_.]/u.test(rest);
  }
  return starMatch(spec, line) || (spec.endsWith(" *") && starMatch(spec.slice(0, -2).trimEnd(), line));
}

function bashSpec(pattern) {
  const p = pattern.trim();
  if (!p.startsWith("Bash(") || !p.endsWith(")")) return undefined;
  const spec = p.slice(5, -1).trim();
  return ["", "*", "**"].includes(spec) ? undefined : spec;
}

/** The first command's strongest matching `Bash(spec)` deny, else the first ask. */
function ruleVerdict(rules, commands) {
  let firstAsk;
  for (const command of commands) {
    const subject = commandText(command);
    const candidates = [subject, unquotedText(command)];
    let best;
    for (const scope of CLOSEST_FIRST) {
      for (const rule of rules) {
        if (rule.scope !== scope || rule.effect === "allow") continue;
        const spec = bashSpec(rule.pattern);
        if (spec === undefined || !candidates.some((c) => bashSpecMatches(spec, c))) continue;
        if (!best || (rule.effect === "deny" && best.effect !== "deny")) {
          best = { pattern: rule.pattern.trim(), effect: rule.effect, scope, subject };
        }
      }
    }
    if (best?.effect === "deny") return best;
    if (best && !firstAsk) firstAsk = best;
  }
  return firstAsk;
}

// ---- decide --------------------------------------------------------------------------

const of = (action) => ({ action, nudge: null });
const noOpinion = () => of({ tag: "no-opinion" });

function callInput(call) {
  try {
    const value = JSON.parse(call.inputJson);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function field(call, own, name) {
  if (own != null) return own;
  const value = callInput(call)[name];
  return typeof value === "string" ? value : undefined;
}

function normalize(path, projectDir) {
  const joined = path.startsWith("/") ? path : `${projectDir.replace(/\/+$/, "")}/${path}`;
  const parts = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

function nudge(context, id, text) {
  if (context.nudgesShown.includes(id)) return undefined;
  return { action: { tag: "add-context", val: text() }, nudge: id };
}

function routeShell(call, context, commands, tools) {
  const line = field(call, call.command, "command");
  if (line === undefined) return undefined;
  for (const command of commands) {
    const fetch = printingFetch(command);
    if (fetch) return of({ tag: "redirect", val: reasons.fetchCommand(tools, line, fetch.url) });
  }
  if (commands.some(inlineHttp)) return of({ tag: "redirect", val: reasons.inlineHttp(tools, line) });
  if (commands.some(isBuildTool)) {
    return of({ tag: "redirect", val: reasons.build(tools, line, commands.length === 1) });
  }
  for (const command of commands) {
    const what = noisyCommand(command);
    if (what !== undefined) return nudge(context, NUDGE_NOISY_OUTPUT, () => reasons.noisyShellNudge(tools, what));
  }
  return undefined;
}

function routeRead(call, context, tools) {
  let given = call.path;
  if (given == null) {
    const input = callInput(call);
    given = ["file_path", "path", "notebook_path"].map((k) => input[k]).find((v) => typeof v === "string");
  }
  if (given == null || !given.trim()) return undefined;
  const file = normalize(given, context.projectDir);
  const size = context.fileSizeBytes;
  if (size != null && !call.hasRange && size > OUTPUT_CAP_BYTES) {
    return of({ tag: "redirect", val: reasons.largeRead(tools, file, size) });
  }
  if (size != null || call.hasRange) return nudge(context, NUDGE_READ, () => reasons.readNudge(tools));
  return undefined;
}

/** The web address another MCP server's fetch tool (`mcp__fetch__fetch`, `mcp_web_fetch`)
 * is asked to load: the page enters the context as WebFetch's would. `fetch` must be a
 * whole word of a name; a copy of a ctx tool, or a fetch without a web URL, is not one. */
function fetchToolUrl(call) {
  const tool = call.mcpTool ?? call.name;
  if (tool.startsWith("ctx_")) return undefined;
  const named = [call.name, call.mcpServer ?? "", tool].some((name) =>
    name.split(/[_\-:\/.@]/).some((word) => word.toLowerCase() === "fetch"),
  );
  if (!named) return undefined;
  const input = callInput(call);
  const url = ["url", "URL"].map((k) => input[k]).find((v) => typeof v === "string");
  if (url === undefined) return undefined;
  const address = url.trim();
  return /^https?:\/\//i.test(address) ? address : undefined;
}

function routeAgent(call, tools) {
  const prompt = field(call, call.prompt, "prompt");
  if (prompt === undefined || prompt.includes(reasons.subagentMarker(tools))) return undefined;
  const rewritten = `${prompt}\n\n${reasons.subagentBlock(tools)}`;
  return of({ tag: "rewrite", val: { command: null, prompt: rewritten, reason: null } });
}

function route(call, context, commands) {
  const tools = toolsOf(context);
  switch (call.kind) {
    case "web-fetch": {
      const url = field(call, call.url, "url");
      return url === undefined ? undefined : of({ tag: "redirect", val: reasons.webFetch(tools, url) });
    }
    case "mcp": {
      const url = fetchToolUrl(call);
      return url === undefined ? undefined : of({ tag: "redirect", val: reasons.webFetch(tools, url) });
    }
    case "shell":
      return routeShell(call, context, commands, tools);
    case "read":
      return routeRead(call, context, tools);
    case "grep":
      return nudge(context, NUDGE_NOISY_OUTPUT, () => reasons.grepNudge(tools));
    case "agent":
      return routeAgent(call, tools);
    default:
      return undefined;
  }
}

function decide(call, context) {
  const line = call.kind === "shell" ? field(call, call.command, "command") : undefined;
  const commands = line === undefined ? [] : splitCommands(line);
  const verdict = ruleVerdict(context.rules, commands);
  if (verdict) {
    const file = SETTINGS_FILE[verdict.scope];
    if (verdict.effect === "deny") {
      const why = reasons.rule("denied by security policy", verdict.subject, verdict.pattern, "permissions.deny", file);
      return of({ tag: "deny", val: why });
    }
    const why = reasons.rule("confirmation required by security policy", verdict.subject, verdict.pattern, "permissions.ask", file);
    return of({ tag: "ask", val: why });
  }
  // An allow rule changes what the built-in policy nudges; this example leaves those calls to it.
  if (context.rules.some((rule) => rule.effect === "allow")) return noOpinion();
  if (call.kind === "ctx" || !context.serverLive) return noOpinion();
  return route(call, context, commands) ?? noOpinion();
}

export const routingPolicy = {
  describe() {
    return { id: POLICY_ID, displayName: "default rules, in JavaScript", version: "0.1.0" };
  },
  decide,
};

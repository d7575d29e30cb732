"""Every text the policy shows, worded exactly as the built-in policy words it."""

MAX_REASON_BYTES = 600
NETWORK_SENTENCE = "The tool has full network access."
RETRY_SENTENCE = "On a transient DNS error (EAI_AGAIN, ETIMEDOUT, ENETUNREACH), retry the same call."
DENIAL_OPENING = "denied by security policy"
ASK_OPENING = "confirmation required by security policy"
CLAUDE_CODE = "claude-code"
QWEN_CODE = "qwen-code"
GEMINI_CLI = "gemini-cli"
BIDI = {0x200E, 0x200F} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def sanitize(text):
    """Drops ANSI escapes, control characters and bidi overrides; breaks become spaces."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if c == "\x1b":
            kind = text[i] if i < len(text) else ""
            i += 1
            if kind == "[":
                while i < len(text) and not ("@" <= text[i] <= "~"):
                    i += 1
                i += 1
            elif kind == "]":
                while i < len(text):
                    if text[i] == "\x07":
                        i += 1
                        break
                    if text[i] == "\x1b" and text[i + 1:i + 2] == "\\":
                        i += 2
                        break
                    i += 1
        elif c in "\n\r\t":
            if not out or out[-1] != " ":
                out.append(" ")
        elif ord(c) in BIDI:
            pass
        elif ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0:
            pass
        else:
            out.append(c)
    return "".join(out)


def utf8_len(text):
    return len(text.encode("utf-8"))


def truncate(text, max_bytes):
    if utf8_len(text) <= max_bytes:
        return text
    budget = max(max_bytes - utf8_len("…"), 0)
    cut = text.encode("utf-8")[:budget].decode("utf-8", "ignore")
    return cut.rstrip() + "…"


def fit(pieces, render):
    """Renders with each piece sanitized; cuts every piece to one common length if too long."""
    pieces = [sanitize(p) for p in pieces]
    full = render(pieces)
    if utf8_len(full) < MAX_REASON_BYTES:
        return full
    low, high = 0, max((utf8_len(p) for p in pieces), default=0)
    while low < high:
        mid = (low + high + 1) // 2
        if utf8_len(render([truncate(p, mid) for p in pieces])) < MAX_REASON_BYTES:
            low = mid
        else:
            high = mid - 1
    return render([truncate(p, low) for p in pieces])


def quoted(text):
    if '"' not in text:
        return '"' + text + '"'
    if "'" not in text:
        return "'" + text + "'"
    return '"' + text.replace('"', '\\"') + '"'


class Tools:
    """How the agent host names context-mode's tools."""

    def __init__(self, context):
        self.platform = context.platform
        self.names = {t.tool: sanitize(t.name) for t in reversed(context.ctx_tools)}

    def name(self, tool):
        return self.names.get(tool, tool)

    def load_hint(self, name):
        if self.platform == CLAUDE_CODE:
            return 'If deferred, first call ToolSearch(query: "select:' + name + '"). '
        if self.platform == QWEN_CODE:
            return (
                'If it is not in your tool list, run it with tool_call(name: "'
                + name
                + '", arguments: {…}). '
            )
        return ""

    def ranged_read(self):
        if self.platform == GEMINI_CLI:
            return "a read_file with start_line and end_line"
        return "a Read with offset and limit"


def redirect_tail(tools, first):
    return tools.load_hint(first) + NETWORK_SENTENCE + " " + RETRY_SENTENCE


def redirect_web_fetch(tools, url):
    fetch, search, exe = tools.name("ctx_fetch_and_index"), tools.name("ctx_search"), tools.name("ctx_execute")
    return fit([url], lambda p: (
        f"redirected to {fetch}(url: {quoted(p[0])}), then {search}(queries: [\"<what you need>\"]) "
        f"to read the matching parts, or {exe} to process the page in code. {redirect_tail(tools, fetch)}"
    ))


def redirect_fetch_command(tools, command, url):
    fetch, exe = tools.name("ctx_fetch_and_index"), tools.name("ctx_execute")
    return fit([command, url or "<url>"], lambda p: (
        f"redirected to {exe}(language: \"shell\", code: {quoted(p[0])}): only what the command prints comes back, "
        f"so filter the response there; to search a page later, use {fetch}(url: {quoted(p[1])}). "
        f"{redirect_tail(tools, exe)}"
    ))


def redirect_inline_http(tools, command):
    exe = tools.name("ctx_execute")
    return fit([command], lambda p: (
        f"redirected to {exe}(language: \"shell\", code: {quoted(p[0])}): only what the script prints comes back, "
        f"so print just the fields you need. {redirect_tail(tools, exe)}"
    ))


def redirect_build(tools, command, single_command):
    exe = tools.name("ctx_execute")

    def render(p):
        code = f"{p[0]} 2>&1 | tail -30" if single_command else f"( {p[0]} ) 2>&1 | tail -30"
        return (
            f"redirected to {exe}(language: \"shell\", code: {quoted(code)}): the last 30 lines carry the result; "
            f"for more, run it with intent: \"<what to find>\" and the full log is indexed and searched. "
            f"{redirect_tail(tools, exe)}"
        )
    return fit([command], render)


def redirect_large_read(tools, path, size_bytes):
    exe_file = tools.name("ctx_execute_file")
    return fit([path], lambda p: (
        f"redirected to {exe_file}(path: {quoted(p[0])}, language: \"python\", code: \"<code that prints what you need>\"): "
        f"the file ({size_bytes} bytes) stays out of the context and only what the code prints comes back; "
        f"{tools.ranged_read()} runs as usual. {redirect_tail(tools, exe_file)}"
    ))


def deny_rule(subject, pattern, key, settings_file):
    return fit([subject, pattern], lambda p: f"{DENIAL_OPENING}: `{p[0]}` matches `{p[1]}` in {key} of {settings_file}.")


def ask_rule(subject, pattern, key, settings_file):
    return fit([subject, pattern], lambda p: f"{ASK_OPENING}: `{p[0]}` matches `{p[1]}` in {key} of {settings_file}.")


def read_nudge(tools):
    return (
        f"Tip: {tools.name('ctx_execute_file')}(path, language, code) runs code over a file and returns only what "
        f"it prints; {tools.name('ctx_search')} finds text in output indexed earlier."
    )


def grep_nudge(tools):
    return (
        f"Tip: for wide searches, {tools.name('ctx_batch_execute')}(commands, queries) runs the searches and "
        f"returns only the matching parts; {tools.name('ctx_search')} queries output indexed earlier."
    )


def noisy_shell_nudge(tools, what):
    batch, search, exe = tools.name("ctx_batch_execute"), tools.name("ctx_search"), tools.name("ctx_execute")
    return fit([what], lambda p: (
        f"Tip: `{p[0]}` can print a lot; {exe}(language: \"shell\", code) returns only what the command prints "
        f"and indexes long output for {search}, and {batch}(commands, queries) runs several at once."
    ))


def subagent_routing_block(tools):
    exe_file, batch = tools.name("ctx_execute_file"), tools.name("ctx_batch_execute")
    fetch, search, exe = tools.name("ctx_fetch_and_index"), tools.name("ctx_search"), tools.name("ctx_execute")
    return (
        f"Context tools: run commands, builds, tests and log reads with {exe}(language, code), or several "
        f"at once with {batch}(commands, queries); only what the code prints comes back. Fetch URLs with "
        f"{fetch}(url), then {search}(queries). Analyse large files with "
        f"{exe_file}(path, language, code). These tools have full network access."
    )


def subagent_block_marker(tools):
    return f"{tools.name('ctx_batch_execute')}(commands, queries); only what the code prints comes back"

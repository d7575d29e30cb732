"""The built-in `default` policy's main rules, in Python (componentize-py).

Implemented, with the built-in policy's exact wording:
  - `Bash(spec)` deny and ask rules of the user's settings (deny beats ask);
  - WebFetch, and another MCP server's fetch tool given a web URL, -> ctx_fetch_and_index;
  - curl / wget printing a response -> ctx_execute;
  - inline HTTP in `python -c` / `node -e` code -> ctx_execute;
  - Gradle / Maven / sbt -> ctx_execute with `| tail -30`;
  - a whole-file Read of a large file -> ctx_execute_file; otherwise one Read nudge;
  - search tools and some noisy shell commands -> one nudge per session;
  - sub-agent launches -> the routing block appended to the prompt.
Not implemented (no opinion, so the built-in policy decides): allow rules, rules on
paths, URLs and tools, wrappers such as `timeout` / `env`, the ctx tools' project
confinement, and the rarer noisy commands. The routing rules need a live `cm serve`.
"""

import json
import re

from wit_world import exports
from wit_world.exports.routing_policy import (
    Action_AddContext,
    Action_Ask,
    Action_Deny,
    Action_NoOpinion,
    Action_Redirect,
    Action_Rewrite,
    Decision,
    PolicyInfo,
    Rewrite,
    RuleEffect,
    RuleScope,
)
from wit_world.imports.types import ToolKind

from reasons import Tools
import reasons
import shell

POLICY_ID = "example-py"
# Mirrors OUTPUT_CAP_BYTES of the built-in policy: a larger whole-file Read is redirected.
OUTPUT_CAP_BYTES = 16_384
NUDGE_READ = "read"
NUDGE_NOISY_OUTPUT = "noisy-output"

SETTINGS_FILE = {
    RuleScope.PROJECT_LOCAL: ".claude/settings.local.json",
    RuleScope.PROJECT: ".claude/settings.json",
    RuleScope.USER: "~/.claude/settings.json",
}
CLOSEST_FIRST = [RuleScope.PROJECT_LOCAL, RuleScope.PROJECT, RuleScope.USER]


def no_opinion():
    return Decision(action=Action_NoOpinion(), nudge=None)


def of(action):
    return Decision(action=action, nudge=None)


def star_match(pattern, text):
    """`*` matches any run of characters; the whole text must match."""
    p, t = pattern, text
    pi = ti = 0
    star = None
    while ti < len(t):
        if pi < len(p) and p[pi] == "*":
            star = (pi, ti)
            pi += 1
        elif pi < len(p) and p[pi] == t[ti]:
            pi += 1
            ti += 1
        elif star is not None:
            pi = star[0] + 1
            ti = star[1] + 1
            star = (star[0], star[1] + 1)
        else:
            return False
    return all(c == "*" for c in p[pi:])


def bash_spec_matches(spec, command):
    command = command.strip()
    if spec.endswith(":*"):
        prefix = spec[:-2].rstrip()
        if not command.startswith(prefix):
            return False
        rest = command[len(prefix):]
        return rest == "" or not (rest[0].isalnum() or rest[0] in "-_.")
    if star_match(spec, command):
        return True
    return spec.endswith(" *") and star_match(spec[:-2].rstrip(), command)


def bash_spec(pattern):
    pattern = pattern.strip()
    if not (pattern.startswith("Bash(") and pattern.endswith(")")):
        return None
    spec = pattern[len("Bash("):-1].strip()
    return None if spec in ("", "*", "**") else spec


def rule_verdict(rules, commands):
    """The first command's strongest matching `Bash(spec)` deny or ask rule."""
    first_ask = None
    for command in commands:
        text = command.text()
        candidates = [text, command.unquoted_text()]
        best = None
        for scope in CLOSEST_FIRST:
            for rule in rules:
                if rule.scope != scope or rule.effect == RuleEffect.ALLOW:
                    continue
                spec = bash_spec(rule.pattern)
                if spec is None or not any(bash_spec_matches(spec, c) for c in candidates):
                    continue
                if best is None or (rule.effect == RuleEffect.DENY and best[1] != RuleEffect.DENY):
                    best = (rule.pattern.strip(), rule.effect, scope, text)
        if best is not None and best[1] == RuleEffect.DENY:
            return best
        if best is not None and first_ask is None:
            first_ask = best
    return first_ask


def normalize(path, project_dir):
    joined = path if path.startswith("/") else project_dir.rstrip("/") + "/" + path
    parts = []
    for part in joined.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
        else:
            parts.append(part)
    return "/" + "/".join(parts)


def nudge(context, nudge_id, text):
    if nudge_id in context.nudges_shown:
        return None
    return Decision(action=Action_AddContext(text()), nudge=nudge_id)


def call_input(call):
    try:
        value = json.loads(call.input_json)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def route_shell(call, context, commands, tools):
    line = call.command if call.command is not None else call_input(call).get("command")
    if not isinstance(line, str):
        return None
    for command in commands:
        fetch = shell.printing_fetch(command)
        if fetch is not None:
            return of(Action_Redirect(reasons.redirect_fetch_command(tools, line, fetch[1])))
    if any(shell.inline_http(c) for c in commands):
        return of(Action_Redirect(reasons.redirect_inline_http(tools, line)))
    if any(shell.is_build_tool(c) for c in commands):
        return of(Action_Redirect(reasons.redirect_build(tools, line, len(commands) == 1)))
    for command in commands:
        what = shell.noisy_command(command)
        if what is not None:
            return nudge(context, NUDGE_NOISY_OUTPUT, lambda: reasons.noisy_shell_nudge(tools, what))
    return None


def route_read(call, context, tools):
    given = call.path
    if given is None:
        fields = call_input(call)
        given = next((fields[k] for k in ("file_path", "path", "notebook_path")
                      if isinstance(fields.get(k), str)), None)
    if given is None or not given.strip():
        return None
    file = normalize(given, context.project_dir)
    size = context.file_size_bytes
    if size is not None and not call.has_range and size > OUTPUT_CAP_BYTES:
        return of(Action_Redirect(reasons.redirect_large_read(tools, file, size)))
    if size is not None or call.has_range:
        return nudge(context, NUDGE_READ, lambda: reasons.read_nudge(tools))
    return None


def route_agent(call, tools):
    prompt = call.prompt
    if prompt is None:
        prompt = call_input(call).get("prompt")
    if not isinstance(prompt, str) or reasons.subagent_block_marker(tools) in prompt:
        return None
    rewritten = prompt + "\n\n" + reasons.subagent_routing_block(tools)
    return of(Action_Rewrite(Rewrite(command=None, prompt=rewritten, reason=None)))


def fetch_tool_url(call):
    """The web address another MCP server's fetch tool (`mcp__fetch__fetch`,
    `mcp_web_fetch`) is asked to load: the page enters the context as WebFetch's would.
    `fetch` must be a whole word of a name; a copy of a ctx tool, or a fetch without a
    web URL, is not one."""
    tool = call.mcp_tool if call.mcp_tool is not None else call.name
    if tool.startswith("ctx_"):
        return None
    names = [call.name, call.mcp_server or "", tool]
    if not any(word.lower() == "fetch" for name in names for word in re.split(r"[_\-:/.@]", name)):
        return None
    given = call_input(call)
    url = next((given[k] for k in ("url", "URL") if isinstance(given.get(k), str)), None)
    if url is None:
        return None
    address = url.strip()
    return address if re.match(r"(?i)https?://", address) else None


def route(call, context, commands):
    tools = Tools(context)
    if call.kind == ToolKind.WEB_FETCH:
        url = call.url if call.url is not None else call_input(call).get("url")
        if isinstance(url, str):
            return of(Action_Redirect(reasons.redirect_web_fetch(tools, url)))
        return None
    if call.kind == ToolKind.MCP:
        url = fetch_tool_url(call)
        return of(Action_Redirect(reasons.redirect_web_fetch(tools, url))) if url else None
    if call.kind == ToolKind.SHELL:
        return route_shell(call, context, commands, tools)
    if call.kind == ToolKind.READ:
        return route_read(call, context, tools)
    if call.kind == ToolKind.GREP:
        return nudge(context, NUDGE_NOISY_OUTPUT, lambda: reasons.grep_nudge(tools))
    if call.kind == ToolKind.AGENT:
        return route_agent(call, tools)
    return None


def decide(call, context):
    commands = []
    if call.kind == ToolKind.SHELL:
        line = call.command if call.command is not None else call_input(call).get("command")
        commands = shell.split(line) if isinstance(line, str) else []
    verdict = rule_verdict(context.rules, commands)
    if verdict is not None:
        pattern, effect, scope, subject = verdict
        if effect == RuleEffect.DENY:
            return of(Action_Deny(reasons.deny_rule(subject, pattern, "permissions.deny", SETTINGS_FILE[scope])))
        return of(Action_Ask(reasons.ask_rule(subject, pattern, "permissions.ask", SETTINGS_FILE[scope])))
    # An allow rule changes what the built-in policy nudges; this example leaves those calls to it.
    if any(rule.effect == RuleEffect.ALLOW for rule in context.rules):
        return no_opinion()
    if call.kind == ToolKind.CTX or not context.server_live:
        return no_opinion()
    return route(call, context, commands) or no_opinion()


class RoutingPolicy(exports.RoutingPolicy):
    def describe(self):
        return PolicyInfo(id=POLICY_ID, display_name="default rules, in Python", version="0.1.0")

    def decide(self, call, context):
        return decide(call, context)

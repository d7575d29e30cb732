"""`{{id}}`: a context-mode routing policy. context-mode asks it about every tool call
an agent is about to make (a shell command, a file read, a fetch…), after the
built-in policy has applied the user's permission rules, and takes its first answer
other than "no opinion".

A policy is a pure function: it gets the call and a context, and returns a decision.
It runs sandboxed: no files, no environment, no network, no clock (docs/PLUGINS.md).
The contract is wit/plugin.wit, world `policy-plugin`; componentize-py generates the
`wit_world` bindings from it at build time.
"""

from wit_world import exports
from wit_world.exports.routing_policy import (
    Action_Ask,
    Action_NoOpinion,
    Decision,
    PolicyContext,
    PolicyInfo,
)
from wit_world.imports.types import ToolCall


class RoutingPolicy(exports.RoutingPolicy):
    def describe(self) -> PolicyInfo:
        # `cm plugin add` installs under this id; adding it again replaces it.
        return PolicyInfo(id="{{id}}", display_name="{{id}}", version="0.1.0")

    def decide(self, call: ToolCall, context: PolicyContext) -> Decision:
        # `command` is set for shell calls only, whatever the host calls its shell tool.
        if call.command is not None and is_force_push(call.command):
            reason = f"{{id}}: `{call.command.strip()}` rewrites the remote's history; confirm it"
            # `nudge` is set only when the action is a once-per-session hint (see the contract).
            return Decision(action=Action_Ask(reason), nudge=None)
        # Everything else: let the other policies and the built-in one decide.
        return Decision(action=Action_NoOpinion(), nudge=None)


def is_force_push(command: str) -> bool:
    """The example rule: `git push` with `--force`, `-f` or `--force-with-lease`."""
    words = command.split()
    pushes = any(words[i:i + 2] == ["git", "push"] for i in range(len(words)))
    return pushes and any(word == "-f" or word.startswith("--force") for word in words)

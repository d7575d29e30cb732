// `{{id}}`: a context-mode routing policy. context-mode asks it about every tool call
// an agent is about to make (a shell command, a file read, a fetch…), after the
// built-in policy has applied the user's permission rules, and takes its first answer
// other than "no opinion".
//
// A policy is a pure function: it gets the call and a context, and returns a decision.
// It runs sandboxed: no files, no environment, no network, no clock (docs/PLUGINS.md).
//
// The contract is wit/plugin.wit, world `policy-plugin`. The QuickJS backend maps its
// types to JavaScript as: records are objects with camelCase fields (`inputJson`,
// `hasRange`), enums are their WIT names as strings (`"shell"`, `"web-fetch"`),
// variants are `{ tag, val }`, an absent option is `null`, a u64 is a number.

export const routingPolicy = {
  describe() {
    // `cm plugin add` installs under this id; adding it again replaces it.
    return { id: "{{id}}", displayName: "{{id}}", version: "0.1.0" };
  },

  decide(call, context) {
    // `command` is set for shell calls only, whatever the host calls its shell tool.
    if (call.command != null && isForcePush(call.command)) {
      return {
        action: {
          tag: "ask",
          val: `{{id}}: \`${call.command.trim()}\` rewrites the remote's history; confirm it`,
        },
        // Set only when the action is a once-per-session hint (see the contract).
        nudge: null,
      };
    }
    // Everything else: let the other policies and the built-in one decide.
    return { action: { tag: "no-opinion" }, nudge: null };
  },
};

/** The example rule: `git push` with `--force`, `-f` or `--force-with-lease`. */
function isForcePush(command) {
  const words = command.trim().split(/\s+/);
  const pushes = words.some((word, i) => word === "git" && words[i + 1] === "push");
  return pushes && words.some((word) => word === "-f" || word.startsWith("--force"));
}

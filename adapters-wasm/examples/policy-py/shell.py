"""A small shell reader: a command line split into simple commands (`&&`, `||`, `;`,
`|`, newlines), each with its words (as written and unquoted), its redirections and
the program its output is piped into; and the built-in policy's shell rules on them."""

import re

# Compiled at module level: componentize-py runs the module when it builds the component
# and snapshots the result, so a hook does not compile a pattern in every process.
REDIRECT = re.compile(r"^(\d|&)?(>>?|>&)(.*)$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
PATH_SEPARATOR = re.compile(r"[/\\]")


class Command:
    def __init__(self):
        self.words = []  # (raw, text)
        self.stdout_captured = False
        self.stderr_captured = False
        self.pipes_into = None

    def text(self):
        return " ".join(raw for raw, _ in self.words)

    def unquoted_text(self):
        return " ".join(text for _, text in self.words)

    def argv(self):
        words = [text for _, text in self.words]
        while words and ASSIGNMENT.match(words[0]):
            words.pop(0)
        return words

    def program(self):
        argv = self.argv()
        return basename(argv[0]) if argv else None


def basename(path):
    return PATH_SEPARATOR.split(path)[-1]


def tokens(line):
    """Words and operators; a word is (raw, text)."""
    out, raw, text, quoted = [], "", "", False
    i = 0

    def flush():
        nonlocal raw, text, quoted
        if raw:
            out.append(("word", raw, text))
        raw, text, quoted = "", "", False

    while i < len(line):
        c = line[i]
        if c == "'":
            end = line.find("'", i + 1)
            end = len(line) if end < 0 else end
            raw += line[i:end + 1]
            text += line[i + 1:end]
            i = end + 1
        elif c == '"':
            j = i + 1
            inner = ""
            while j < len(line) and line[j] != '"':
                if line[j] == "\\" and j + 1 < len(line) and line[j + 1] in '"\\$`':
                    inner += line[j + 1]
                    j += 2
                else:
                    inner += line[j]
                    j += 1
            raw += line[i:j + 1]
            text += inner
            i = j + 1
        elif c == "\\" and i + 1 < len(line):
            raw += line[i:i + 2]
            text += line[i + 1] if line[i + 1] != "\n" else ""
            i += 2
        elif c in " \t":
            flush()
            i += 1
        elif line.startswith(("&&", "||"), i):
            flush()
            out.append(("op", line[i:i + 2], ""))
            i += 2
        elif c in ";|\n" or (c == "&" and not raw.endswith((">", "<")) and not line.startswith("&>", i)):
            flush()
            out.append(("op", c, ""))
            i += 1
        else:
            raw += c
            text += c
            i += 1
    flush()
    return out


def split(line):
    commands, current, pending_redirect = [], Command(), None

    def close(op):
        nonlocal current
        if current.words:
            commands.append((current, op))
        current = Command()

    for kind, raw, text in tokens(line):
        if kind == "op":
            close(raw)
            continue
        if pending_redirect is not None:
            mark(current, pending_redirect, text)
            pending_redirect = None
            continue
        redirect = REDIRECT.match(raw)
        if redirect and raw == text:
            fd, target = redirect.group(1) or "1", redirect.group(3)
            if redirect.group(2) == ">&":
                target = "&" + target
            if target:
                mark(current, fd, target)
            else:
                pending_redirect = fd
            continue
        current.words.append((raw, text))
    close(None)
    for index, (command, op) in enumerate(commands):
        if op == "|" and index + 1 < len(commands):
            command.pipes_into = commands[index + 1][0].program()
    return [command for command, _ in commands]


def mark(command, fd, target):
    if fd in ("1", "&") and target != "&1":
        command.stdout_captured = True
    if fd in ("2", "&") and target != "&2" and target != "&1":
        command.stderr_captured = True


# curl / wget printing a response into the agent's context ------------------------

CONSUMERS = {
    "sh", "bash", "zsh", "dash", "tar", "gunzip", "gzip", "bunzip2", "xz", "unzip", "bsdtar",
    "sudo", "dd", "python", "python3", "node", "ruby", "perl", "apt-key", "gpg", "cpio", "zstd",
}
CURL_SHORT_WITH_VALUE = "AbcCdDeEFHKmoPQrtTuUwxXYyz"
CURL_LONG_WITH_VALUE = {
    "--output", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode",
    "--header", "--request", "--user", "--user-agent", "--cookie", "--cookie-jar", "--form",
    "--form-string", "--max-time", "--connect-timeout", "--retry", "--retry-delay",
    "--retry-max-time", "--write-out", "--proxy", "--referer", "--cert", "--key", "--cacert",
    "--config", "--upload-file", "--url", "--range", "--dump-header", "--resolve",
    "--limit-rate", "--max-filesize", "--output-dir", "--continue-at", "--interface", "--json",
    "--oauth2-bearer", "--unix-socket", "--proxy-user", "--connect-to", "--variable",
    "--expand-url", "--aws-sigv4", "--trace", "--trace-ascii", "--stderr",
}
WGET_SHORT_WITH_VALUE = "OoaeitTwQPUIXDAlRBY"


def printing_fetch(command):
    """(program, url or None) when the command is a curl / wget that prints."""
    argv = command.argv()
    if not argv:
        return None
    program = basename(argv[0])
    program = program[:-4] if program.endswith(".exe") else program
    stdout_captured = command.stdout_captured or command.pipes_into in CONSUMERS
    if program == "curl":
        printing = curl_prints(argv[1:], stdout_captured, command.stderr_captured)
    elif program == "wget":
        printing = wget_prints(argv[1:], stdout_captured, command.stderr_captured)
    else:
        return None
    return None if printing is None else (program, printing[0])


def curl_prints(args, stdout_captured, stderr_captured):
    silent, to_file, info_only, url, only_operands = stderr_captured, stdout_captured, False, None, False
    i = 0

    def next_value():
        nonlocal i
        value = args[i] if i < len(args) else None
        i += 1
        return value

    while i < len(args):
        arg = next_value()
        if only_operands or not arg.startswith("-") or arg == "-":
            url = url if url is not None else arg
        elif arg == "--":
            only_operands = True
        elif arg.startswith("--"):
            name, _, inline = arg.partition("=")
            value = (lambda: inline) if "=" in arg else next_value
            if name in ("--version", "--help", "--manual", "--head"):
                info_only = True
            elif name == "--silent":
                silent = True
            elif name in ("--remote-name", "--remote-name-all"):
                to_file = True
            elif name == "--output":
                v = value()
                to_file = to_file or (v is not None and v != "-")
            elif name == "--url":
                v = value()
                url = v if v is not None else url
            elif name in CURL_LONG_WITH_VALUE:
                value()
        else:
            cluster = arg[1:]
            for k, flag in enumerate(cluster):
                if flag == "s":
                    silent = True
                elif flag in "VhMI":
                    info_only = True
                elif flag == "O":
                    to_file = True
                elif flag in CURL_SHORT_WITH_VALUE:
                    attached = cluster[k + 1:]
                    v = attached if attached else next_value()
                    if flag == "o":
                        to_file = to_file or (v is not None and v != "-")
                    break
    quiet_download = to_file and silent
    return (url,) if not info_only and not quiet_download and url is not None else None


def wget_prints(args, stdout_captured, stderr_captured):
    quiet, to_stdout, info_only, url = stderr_captured, False, False, None
    i = 0

    def next_value():
        nonlocal i
        value = args[i] if i < len(args) else None
        i += 1
        return value

    while i < len(args):
        arg = next_value()
        if not arg.startswith("-"):
            url = url if url is not None else arg
        elif arg.startswith("--"):
            name, _, inline = arg[2:].partition("=")
            value = (lambda: inline) if "=" in arg else next_value
            if name in ("version", "help", "spider"):
                info_only = True
            elif name in ("quiet", "no-verbose"):
                quiet = True
            elif name == "output-document":
                to_stdout = value() == "-"
            elif name in ("output-file", "append-output"):
                value()
                quiet = True
        elif len(arg) == 3 and arg.startswith("-n"):
            quiet = quiet or arg == "-nv"
        else:
            cluster = arg[1:]
            for k, flag in enumerate(cluster):
                if flag == "q":
                    quiet = True
                elif flag in "Vh":
                    info_only = True
                elif flag in WGET_SHORT_WITH_VALUE:
                    attached = cluster[k + 1:]
                    v = attached if attached else next_value()
                    if flag == "O":
                        to_stdout = v == "-"
                    elif flag in "oa":
                        quiet = True
                    break
    body_printed = to_stdout and not stdout_captured
    return (url,) if not info_only and url is not None and (body_printed or not quiet) else None


# Inline HTTP in interpreter code -----------------------------------------------

HTTP_CALL_MARKERS = [
    "requests.", "urlopen(", "urllib.request", "urllib3", "http.client", "httpx.", "aiohttp",
    "fetch(", "http.get(", "https.get(", "http.request(", "https.request(", "axios", "got(",
    "require('https')", 'require("https")', "require('http')", 'require("http")',
]


def inline_http(command):
    argv = command.argv()
    if not argv:
        return False
    program = basename(argv[0])
    if program.startswith("python"):
        flags = ("-c",)
    elif program in ("node", "nodejs", "bun"):
        flags = ("-e", "--eval", "-p", "--print")
    else:
        return False
    for index, arg in enumerate(argv[1:-1], start=1):
        if arg in flags:
            code = argv[index + 1]
            return any(marker in code for marker in HTTP_CALL_MARKERS)
    return False


# Build tools and noisy commands --------------------------------------------------

BOUNDING_FILTERS = {"head", "tail", "wc", "grep", "egrep", "fgrep", "rg"}
BUILD_PROBES = {
    "-v", "--version", "-version", "-h", "--help", "-help", "help", "-q", "--quiet", "-quiet", "about",
}


def output_bounded(command):
    return command.pipes_into in BOUNDING_FILTERS or command.stdout_captured


def program_of(command):
    program = command.program()
    if program is None:
        return None
    for suffix in (".bat", ".cmd"):
        if program.endswith(suffix):
            return program[: -len(suffix)]
    return program


def is_build_tool(command):
    program = program_of(command)
    if program not in ("gradle", "gradlew", "mvn", "mvnw", "sbt") or output_bounded(command):
        return False
    return not any(arg in BUILD_PROBES for arg in command.argv()[1:])


def has_flag(args, short, long):
    return any(
        a == long or (a.startswith("-") and not a.startswith("--") and a[1:].isalnum() and short in a[1:])
        for a in args
    )


def quiet_search(args):
    return any(
        a in ("--quiet", "--count", "--files-with-matches", "--files-without-match", "--count-matches")
        or (a.startswith("-") and not a.startswith("--") and any(c in "qlcL" for c in a[1:]))
        for a in args
    )


def noisy_command(command):
    """The short name the nudge uses, for a command that prints a lot (a subset of the built-in list)."""
    if output_bounded(command):
        return None
    program = program_of(command)
    args = command.argv()[1:]
    if program == "ls" and has_flag(args, "R", "--recursive"):
        return "ls"
    if program in ("grep", "egrep", "fgrep"):
        recursive = has_flag(args, "r", "--recursive") or has_flag(args, "R", "--dereference-recursive")
        return program if recursive and not quiet_search(args) else None
    if program in ("rg", "ag", "ack"):
        probe = any(a in ("--version", "-V", "--help", "-h") for a in args)
        return program if not quiet_search(args) and not probe else None
    if program in ("pytest", "py.test", "jest", "vitest", "mocha", "rspec", "phpunit", "tox", "nox"):
        return program
    return None

//! macOS confinement (issues 28 and 32, ADR 0033): the Seatbelt profile of a
//! [`confine::Plan`], the same rule model Landlock enforces on Linux, and the
//! `sandbox-exec` command line that applies it.
//!
//! What the profile says, rule for rule against Landlock's (ADR 0026):
//!
//! - reads and execution everywhere, except each path of `read_denied` and everything
//!   beneath it: its content, extended attributes, listing (a directory) and exec are
//!   refused; its metadata (`stat`, existence) stays visible, as under Landlock, so
//!   `ls -la` beside a denied `.env` still works. Unlike Landlock, Seatbelt refuses by
//!   path, so one file inside a readable directory is denied without freezing its
//!   siblings (no read-back hole). A denied path and every directory above it cannot be
//!   renamed or removed (a rename would carry the file out of the rule's path);
//! - writes (create, remove, rename, truncate, write) only beneath the plan's `write`
//!   paths, plus the devices a shell needs (`/dev/null`, `/dev/tty`, the pseudo
//!   terminals, `/dev/fd/N`);
//! - network: unchanged when `net` is `None`; [`Net::Off`]: no IP traffic at all
//!   (TCP and UDP, connect and bind) and no name resolution; [`Net::Ports`]: TCP
//!   connects to those ports only (any host), names resolve, nothing else. Unix-domain
//!   sockets stay usable in every mode, as Landlock leaves them on Linux;
//! - processes: fork and exec anywhere, signals and process information only within
//!   the same sandbox, the sysctls, Mach services and IPC that shells, Python, Node and
//!   the other runtimes need (each listed below with why, after Codex's base policy).
//!
//! The paths must be canonical, as the kernel reports them: on macOS `/tmp` is
//! `/private/tmp`, `/var/folders/…` (every `TMPDIR`) is `/private/var/folders/…`, and a
//! rule on the link's path matches nothing. [`canonical`] resolves a plan's paths; the
//! profile itself is pure text.
//!
//! [`profile`] and [`command`] are compiled and golden-tested on every OS
//! (`tests/golden/seatbelt/*.sb`); nothing here can run a profile off macOS.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::confine::{Net, Plan};

/// The only `sandbox-exec` used: a writable directory on `PATH` could shadow it, and
/// whoever can replace `/usr/bin/sandbox-exec` is root already.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The fixed part of every profile: what any process needs to start and run.
/// Based on Codex's `seatbelt_base_policy.sbpl` (itself after Chromium's renderer
/// policy); every grant says why.
const BASE: &str = r#"(version 1)
(deny default)

; Processes: the runtimes start compilers, shells and helpers (every child inherits
; this profile; sandbox-exec has no way to drop it). Signals and process information
; only within this sandbox: a child can stop its own children, not the user's others.
(allow process-fork)
(allow process-exec)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; Read-only sysctls. CPU counts and cache sizes: thread-pool sizing in Node
; (os.cpus, availableParallelism), Python (os.cpu_count), Go's runtime, Rust's
; available_parallelism, make -j. Feature flags (hw.optional.*): SIMD detection in
; numpy, Rust's std_detect, V8. kern.os*/version/hostname: uname(1), platform modules.
; kern.argmax: xargs and shells size command lines. kern.maxproc/maxfilesperproc:
; ulimit and runtimes that size their fd tables. kern.proc.pid./pgrp.: ps and a
; process's own information. vm.loadavg: uptime. sysctl.proc_cputype, kern.usrstack64,
; kern.secure_kernel, kern.osvariant_status: libSystem and Rosetta checks at start-up.
; net.routetable.: interface and route queries of network libraries.
(allow sysctl-read
  (sysctl-name "hw.activecpu")
  (sysctl-name "hw.busfrequency_compat")
  (sysctl-name "hw.byteorder")
  (sysctl-name "hw.cacheconfig")
  (sysctl-name "hw.cachelinesize_compat")
  (sysctl-name "hw.cpufamily")
  (sysctl-name "hw.cpufrequency")
  (sysctl-name "hw.cpufrequency_compat")
  (sysctl-name "hw.cputype")
  (sysctl-name "hw.l1dcachesize_compat")
  (sysctl-name "hw.l1icachesize_compat")
  (sysctl-name "hw.l2cachesize_compat")
  (sysctl-name "hw.l3cachesize_compat")
  (sysctl-name "hw.logicalcpu")
  (sysctl-name "hw.logicalcpu_max")
  (sysctl-name "hw.machine")
  (sysctl-name "hw.memsize")
  (sysctl-name "hw.model")
  (sysctl-name "hw.ncpu")
  (sysctl-name "hw.nperflevels")
  (sysctl-name "hw.packages")
  (sysctl-name "hw.pagesize")
  (sysctl-name "hw.pagesize_compat")
  (sysctl-name "hw.physicalcpu")
  (sysctl-name "hw.physicalcpu_max")
  (sysctl-name "hw.tbfrequency_compat")
  (sysctl-name "hw.vectorunit")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name "machdep.cpu.brand_string")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg")
  (sysctl-name-prefix "hw.optional.arm.")
  (sysctl-name-prefix "hw.optional.armv8_")
  (sysctl-name-prefix "hw.perflevel")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name-prefix "net.routetable."))

; The JVM reads the CPU type through a sysctl the kernel classes as a write (it
; passes a buffer); it changes nothing.
(allow sysctl-write
  (sysctl-name "kern.grade_cputype"))

; Mach services.
; opendirectoryd.libinfo: getpwuid/getpwnam/getgrgid, i.e. `~` in shells, whoami, id,
;   Python's pwd and os.path.expanduser, Node's os.userInfo (crbug.com/792228).
; PowerManagement.control: the IOKit power client frameworks open at start-up (with
;   the RootDomainUserClient class below); without it they log and fail calls.
; cfprefsd.daemon/agent: read-only user preferences (CFPreferences), read by every
;   program linked with CoreFoundation (Apple's python3 and swift, defaults(1), locale).
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (local-name "com.apple.cfprefsd.agent"))
(allow user-preference-read)
(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))
(allow iokit-open
  (iokit-registry-entry-class "RootDomainUserClient"))

; POSIX semaphores: Python multiprocessing's SemLock (Pool, Queue, Lock).
(allow ipc-posix-sem)
; The shared-memory names OpenMP (libomp, as in PyTorch and numpy builds) registers.
(allow ipc-posix-shm-read-data ipc-posix-shm-write-create ipc-posix-shm-write-unlink
  (ipc-posix-name-regex #"^/__KMP_REGISTERED_LIB_[0-9]+$"))

; Pseudo terminals (openpty: script(1), Python's pty, expect, node-pty): the master,
; and the slaves created inside the sandbox; ioctl on slaves opened before it (so a
; shell started on a terminal still sees one).
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write*
  (require-all
    (regex #"^/dev/ttys[0-9]+")
    (extension "com.apple.sandbox.pty")))
(allow file-ioctl (regex #"^/dev/ttys[0-9]+"))

; Devices every child may write beside the plan's paths: the bit bucket and the
; generators, the controlling terminal, dtrace's helper (dyld registers the USDT
; probes of node and python there), and /dev/fd/N (`echo >/dev/stderr` reopens a
; descriptor the process already holds).
(allow file-read* file-write-data file-ioctl
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/random")
  (literal "/dev/urandom")
  (literal "/dev/tty")
  (literal "/dev/dtracehelper")
  (regex #"^/dev/fd/[0-9]+$"))

; Reads everywhere; the plan's read denials come last and win.
(allow file-read*)
"#;

/// Mach services and sockets of name resolution and TLS, granted when the network
/// is not off (after Codex's `seatbelt_network_policy.sbpl`).
const RESOLVE_AND_TLS: &str = r#"; Name resolution and TLS.
; mDNSResponder's socket: every getaddrinfo goes through it.
; SystemConfiguration: the resolver and proxy configuration (configd).
; SecurityServer, trustd, ocspd: certificate trust and revocation for clients of
;   Security.framework (git over https with the keychain, swift, Apple's tools).
; networkd: the network framework's state (Network.framework, CFNetwork).
; An AF_SYSTEM kernel-control socket: interface information for those libraries.
(allow network-outbound (literal "/private/var/run/mDNSResponder"))
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.ocspd")
  (global-name "com.apple.networkd"))
(allow system-socket
  (require-all
    (socket-domain AF_SYSTEM)
    (socket-protocol 2)))
"#;

/// Unix-domain sockets, usable in every network mode (Landlock does not govern them
/// on Linux either): local IPC such as multiprocessing managers and language servers.
const UNIX_SOCKETS: &str = r#"; Unix-domain sockets (local IPC), as on Linux.
(allow system-socket (socket-domain AF_UNIX))
(allow network-bind (local unix-socket))
(allow network-outbound (remote unix-socket))
"#;

/// The Seatbelt profile of `plan` (see the module doc). Its paths are used as given:
/// canonical, as [`canonical`] makes them.
pub fn profile(plan: &Plan) -> String {
    let mut out = String::from(
        "; cm confinement (host/src/sandbox/seatbelt.rs, ADR 0033), for sandbox-exec -p\n",
    );
    out.push_str(BASE);

    out.push_str(
        "\n; Writes only beneath the project, the call's temp dir, the runtime's caches.\n",
    );
    if plan.write.is_empty() {
        out.push_str("; (none)\n");
    } else {
        out.push_str("(allow file-write*");
        for path in &plan.write {
            out.push_str(&format!("\n  (subpath {})", quote(path)));
        }
        out.push_str(")\n");
    }

    out.push('\n');
    match &plan.net {
        None | Some(Net::On) => {
            out.push_str("; Network: unchanged.\n(allow network*)\n");
            out.push_str(UNIX_SOCKETS);
            out.push_str(RESOLVE_AND_TLS);
        }
        Some(Net::Off) => {
            out.push_str(
                "; Network: off. No IP traffic (TCP or UDP, connect or bind); names do not\n\
                 ; resolve (mDNSResponder's socket is refused below).\n",
            );
            out.push_str(UNIX_SOCKETS);
            out.push_str(
                "(deny network-outbound\n  (literal \"/private/var/run/mDNSResponder\")\n  \
                 (remote unix-socket (literal \"/private/var/run/mDNSResponder\")))\n",
            );
        }
        Some(Net::Ports(ports)) => {
            out.push_str(
                "; Network: TCP connects to these ports only, to any host; no bind, no UDP.\n",
            );
            if ports.is_empty() {
                out.push_str("; (no port)\n");
            } else {
                out.push_str("(allow network-outbound");
                for port in ports {
                    out.push_str(&format!("\n  (remote tcp \"*:{port}\")"));
                }
                out.push_str(")\n");
            }
            out.push_str(UNIX_SOCKETS);
            out.push_str(RESOLVE_AND_TLS);
        }
    }

    if !plan.read_denied.is_empty() {
        out.push_str(
            "\n; Read denials (the user's Read(...) deny rules), last so that no allow above\n\
             ; reopens them: content, extended attributes, listing and exec of each path and\n\
             ; everything beneath it; metadata stays visible, as under Landlock.\n",
        );
        out.push_str("(deny file-read-data file-read-xattr process-exec");
        for path in &plan.read_denied {
            out.push_str(&format!("\n  (subpath {})", quote(path)));
        }
        out.push_str(")\n");
        out.push_str(
            "; Neither a denied path nor a directory above it is renamed or removed (a\n\
             ; rename would carry the file out of the rule's path).\n",
        );
        out.push_str("(deny file-write-unlink");
        for path in &plan.read_denied {
            out.push_str(&format!("\n  (subpath {})", quote(path)));
        }
        for dir in ancestors(&plan.read_denied) {
            out.push_str(&format!("\n  (literal {})", quote(&dir)));
        }
        out.push_str(")\n");
    }
    out
}

/// The command that runs `argv` under `profile`: `/usr/bin/sandbox-exec -p <profile>
/// -- argv…` (sandbox-exec parses its options with getopt, so `--` ends them and an
/// argv that starts with `-` is not taken for one; Codex passes the same).
pub fn command(profile: &str, argv: &[OsString]) -> Vec<OsString> {
    let mut command = Vec::with_capacity(argv.len() + 4);
    command.push(OsString::from(SANDBOX_EXEC));
    command.push(OsString::from("-p"));
    command.push(OsString::from(profile));
    command.push(OsString::from("--"));
    command.extend(argv.iter().cloned());
    command
}

/// `plan` with every path resolved as the kernel reports it (`/tmp` →
/// `/private/tmp`, links followed); a path that cannot be resolved (gone) is kept
/// as given, where its rule matches nothing.
pub fn canonical(plan: &Plan) -> Plan {
    let resolve = |paths: &[PathBuf]| -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::with_capacity(paths.len());
        for path in paths {
            let path = path.canonicalize().unwrap_or_else(|_| path.clone());
            if !out.contains(&path) {
                out.push(path);
            }
        }
        out
    };
    Plan {
        write: resolve(&plan.write),
        read_denied: resolve(&plan.read_denied),
        net: plan.net.clone(),
    }
}

/// Every directory above the denied paths (not `/`), each once, in order.
fn ancestors(denied: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in denied {
        for dir in path.ancestors().skip(1) {
            if dir.parent().is_none() || dir.as_os_str().is_empty() {
                continue;
            }
            if !out.iter().any(|d| d == dir) && !denied.iter().any(|d| d == dir) {
                out.push(dir.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A Seatbelt (TinyScheme) string literal of `path`: `"` and `\` escaped with `\`,
/// newline, tab and carriage return as `\n`, `\t`, `\r`, other control characters and
/// bytes that are not UTF-8 as `\xHH` (TinyScheme's escapes); everything else as is
/// (UTF-8 names are bytes to the reader).
fn quote(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The golden cases: `tests/golden/seatbelt/<name>.sb` is `profile(plan)` byte for
    /// byte. `UPDATE_GOLDEN=1` rewrites them (review the diff).
    fn cases() -> Vec<(&'static str, Plan)> {
        let project = PathBuf::from("/Users/dev/project");
        let work = PathBuf::from("/private/var/folders/x1/abc123/T/.cm-exec-Ab3dE");
        let npm = PathBuf::from("/Users/dev/.npm");
        let writes = vec![project.clone(), work.clone(), npm.clone()];
        let odd = PathBuf::from("/Users/Jane Doe/my \"quoted\" project");
        vec![
            (
                "writes-only",
                Plan {
                    write: writes.clone(),
                    read_denied: vec![],
                    net: None,
                },
            ),
            (
                "read-denied",
                Plan {
                    write: writes.clone(),
                    read_denied: vec![project.join(".env"), project.join("secrets")],
                    net: None,
                },
            ),
            (
                "net-off",
                Plan {
                    write: writes.clone(),
                    read_denied: vec![],
                    net: Some(Net::Off),
                },
            ),
            (
                "net-ports",
                Plan {
                    write: writes.clone(),
                    read_denied: vec![],
                    net: Some(Net::Ports(vec![443, 80])),
                },
            ),
            (
                "odd-paths",
                Plan {
                    write: vec![odd.clone(), work.clone()],
                    read_denied: vec![odd.join("back\\slash.env")],
                    net: None,
                },
            ),
        ]
    }

    fn golden_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/seatbelt")
    }

    #[test]
    fn every_case_renders_its_golden_byte_for_byte() {
        let dir = golden_dir();
        let update = std::env::var_os("UPDATE_GOLDEN").is_some();
        let mut failures = Vec::new();
        for (name, plan) in cases() {
            let rendered = profile(&plan);
            let path = dir.join(format!("{name}.sb"));
            if update {
                std::fs::create_dir_all(&dir).expect("mkdir");
                std::fs::write(&path, &rendered).expect("write golden");
                continue;
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
                    path.display()
                )
            });
            if rendered != expected {
                failures.push(format!("{name}:\n{rendered}"));
            }
        }
        assert!(
            failures.is_empty(),
            "profiles differ from tests/golden/seatbelt (UPDATE_GOLDEN=1 rewrites):\n{}",
            failures.join("\n")
        );
        // Every golden file is a case (a removed case leaves no stale golden).
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("tests/golden/seatbelt")
            .filter_map(Result::ok)
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".sb")
                    .map(String::from)
            })
            .collect();
        on_disk.sort();
        let mut names: Vec<String> = cases().iter().map(|(n, _)| n.to_string()).collect();
        names.sort();
        assert_eq!(on_disk, names);
    }

    /// One token of the profile language as far as the generator uses it.
    #[derive(Debug, PartialEq)]
    enum Token {
        Open,
        Close,
        Atom(String),
        /// A `"…"` string, unescaped to its bytes.
        Str(Vec<u8>),
        /// A `#"…"` raw string (regular expressions).
        Raw(String),
    }

    /// Reads the profile strictly: `;` comments, parentheses, atoms of
    /// `[A-Za-z0-9*_.-]` only (an unquoted path, a stray quote or `#` fail), strings
    /// with TinyScheme's escapes, raw strings; anything else is an error.
    fn tokens(text: &str) -> Result<Vec<Token>, String> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b' ' | b'\n' => i += 1,
                b';' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'(' => {
                    out.push(Token::Open);
                    i += 1;
                }
                b')' => {
                    out.push(Token::Close);
                    i += 1;
                }
                b'"' => {
                    let mut value = Vec::new();
                    i += 1;
                    loop {
                        match bytes.get(i) {
                            None => return Err("unterminated string".into()),
                            Some(b'"') => break,
                            Some(b'\\') => {
                                let escaped = *bytes.get(i + 1).ok_or("dangling escape")?;
                                i += 2;
                                match escaped {
                                    b'"' | b'\\' => value.push(escaped),
                                    b'n' => value.push(b'\n'),
                                    b't' => value.push(b'\t'),
                                    b'r' => value.push(b'\r'),
                                    b'x' => {
                                        let hex = text.get(i..i + 2).ok_or("short \\x")?;
                                        value.push(
                                            u8::from_str_radix(hex, 16)
                                                .map_err(|_| format!("bad \\x{hex}"))?,
                                        );
                                        i += 2;
                                    }
                                    other => {
                                        return Err(format!("unknown escape \\{}", other as char));
                                    }
                                }
                            }
                            Some(b) if b.is_ascii_control() => {
                                return Err(format!("raw control byte {b:#x} in a string"));
                            }
                            Some(b) => {
                                value.push(*b);
                                i += 1;
                            }
                        }
                    }
                    i += 1;
                    out.push(Token::Str(value));
                }
                b'#' if bytes.get(i + 1) == Some(&b'"') => {
                    let start = i + 2;
                    let end = text[start..]
                        .find('"')
                        .map(|n| start + n)
                        .ok_or("unterminated raw string")?;
                    out.push(Token::Raw(text[start..end].to_string()));
                    i = end + 1;
                }
                c if c.is_ascii_alphanumeric() || b"*_.-".contains(&c) => {
                    let start = i;
                    while i < bytes.len()
                        && (bytes[i].is_ascii_alphanumeric() || b"*_.-".contains(&bytes[i]))
                    {
                        i += 1;
                    }
                    out.push(Token::Atom(text[start..i].to_string()));
                }
                other => {
                    return Err(format!(
                        "unexpected {:?} at byte {i}: {:?}",
                        other as char,
                        &text[i..text.len().min(i + 40)]
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Checks the profile is well formed: balanced, every top-level form a list headed
    /// by `version`, `allow` or `deny`, every list headed by an atom; returns its
    /// strings.
    fn check_well_formed(text: &str) -> Result<Vec<Vec<u8>>, String> {
        let tokens = tokens(text)?;
        let mut depth = 0usize;
        let mut strings = Vec::new();
        let mut previous: Option<&Token> = None;
        for token in &tokens {
            if matches!(previous, Some(Token::Open)) && !matches!(token, Token::Atom(_)) {
                return Err(format!("a list headed by {token:?}"));
            }
            match token {
                Token::Open => depth += 1,
                Token::Close => depth = depth.checked_sub(1).ok_or("unbalanced `)`")?,
                Token::Atom(atom) if depth == 0 => return Err(format!("top-level atom {atom}")),
                Token::Atom(atom)
                    if matches!(previous, Some(Token::Open))
                        && depth == 1
                        && !["version", "allow", "deny"].contains(&atom.as_str()) =>
                {
                    return Err(format!("top-level form ({atom} …)"));
                }
                Token::Str(value) => {
                    if depth == 0 {
                        return Err("top-level string".into());
                    }
                    strings.push(value.clone());
                }
                Token::Raw(_) if depth == 0 => return Err("top-level raw string".into()),
                _ => {}
            }
            previous = Some(token);
        }
        if depth != 0 {
            return Err(format!("{depth} unclosed `(`"));
        }
        Ok(strings)
    }

    #[test]
    fn every_golden_case_is_well_formed_and_names_its_paths() {
        for (name, plan) in cases() {
            let text = profile(&plan);
            let strings = check_well_formed(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            for path in plan.write.iter().chain(&plan.read_denied) {
                assert!(
                    strings.contains(&path.as_os_str().as_encoded_bytes().to_vec()),
                    "{name}: {} not in the profile",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn the_checker_refuses_broken_profiles() {
        for broken in [
            "(version 1",
            "(version 1))",
            "(allow file-write* (subpath /tmp))",
            "(allow file-write* (subpath \"/a\"b\"))",
            "(allow file-write* (subpath \"/a\\q\"))",
            "(allow file-read* (regex #\"^/x))",
            "(frobnicate default)",
            "allow",
            "((allow))",
            "(allow file-write* (subpath \"a\nb\"))",
        ] {
            assert!(check_well_formed(broken).is_err(), "{broken:?} passed");
        }
        assert!(check_well_formed("; c\n(version 1)\n(deny default)\n").is_ok());
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_control_bytes() {
        assert_eq!(quote(Path::new("/a b/c")), "\"/a b/c\"");
        assert_eq!(quote(Path::new("/a\"b\\c")), "\"/a\\\"b\\\\c\"");
        assert_eq!(quote(Path::new("/a\nb\u{1}")), "\"/a\\nb\\x01\"");
        assert_eq!(quote(Path::new("/Users/José")), "\"/Users/José\"");
    }

    #[test]
    fn network_modes_render_their_rules() {
        let plan = |net| Plan {
            write: vec![],
            read_denied: vec![],
            net,
        };
        let unchanged = profile(&plan(None));
        assert!(unchanged.contains("(allow network*)"));
        assert_eq!(profile(&plan(Some(Net::On))), unchanged);
        let off = profile(&plan(Some(Net::Off)));
        assert!(!off.contains("(allow network*)"));
        assert!(!off.contains("remote tcp"));
        assert!(
            !off.contains("(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))")
        );
        assert!(
            off.contains("(deny network-outbound\n  (literal \"/private/var/run/mDNSResponder\")")
        );
        let ports = profile(&plan(Some(Net::Ports(vec![443, 80]))));
        assert!(ports.contains("(remote tcp \"*:443\")\n  (remote tcp \"*:80\"))"));
        assert!(!ports.contains("(allow network*)"));
        assert!(!ports.contains("network-bind (local ip"));
        let none = profile(&plan(Some(Net::Ports(vec![]))));
        assert!(!none.contains("remote tcp"));
        for text in [unchanged, off, ports, none] {
            check_well_formed(&text).expect("well formed");
        }
    }

    #[test]
    fn read_denials_come_last_and_guard_every_directory_above() {
        let plan = Plan {
            write: vec![PathBuf::from("/p")],
            read_denied: vec![PathBuf::from("/p/a/.env"), PathBuf::from("/p/a")],
            net: Some(Net::Off),
        };
        let text = profile(&plan);
        let denial = text.find("(deny file-read-data").expect("read denial");
        for allow in [
            "(allow file-read*)",
            "(allow file-write*",
            "(allow network-bind",
        ] {
            assert!(
                text.find(allow).expect(allow) < denial,
                "{allow} after the denial"
            );
        }
        let unlink = &text[text.find("(deny file-write-unlink").expect("unlink")..];
        assert!(unlink.contains("(subpath \"/p/a/.env\")"));
        assert!(unlink.contains("(literal \"/p\")"));
        // `/p/a` is denied itself (subpath), not listed again as a directory above.
        assert!(!unlink.contains("(literal \"/p/a\")"));
        assert!(!unlink.contains("(literal \"/\")"));
        assert_eq!(
            ancestors(&[PathBuf::from("/u/d/p/.env"), PathBuf::from("/u/d/q/k")]),
            ["/u", "/u/d", "/u/d/p", "/u/d/q"].map(PathBuf::from)
        );
    }

    #[test]
    fn the_command_is_sandbox_exec_with_the_profile_then_the_argv() {
        let argv = [OsString::from("-weird"), OsString::from("two words")];
        assert_eq!(
            command("(version 1)", &argv),
            [
                "/usr/bin/sandbox-exec",
                "-p",
                "(version 1)",
                "--",
                "-weird",
                "two words"
            ]
            .map(OsString::from)
        );
    }

    #[test]
    fn canonical_resolves_links_and_keeps_what_is_gone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().canonicalize().expect("canonical");
        let gone = real.join("gone");
        let plan = canonical(&Plan {
            write: vec![dir.path().to_path_buf(), real.clone(), gone.clone()],
            read_denied: vec![],
            net: Some(Net::Off),
        });
        assert_eq!(plan.write, vec![real, gone]);
        assert_eq!(plan.net, Some(Net::Off));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Whatever the paths hold (quotes, backslashes, parentheses, `;`, newlines,
        /// non-ASCII), the profile stays well formed and names each path exactly.
        #[test]
        fn any_paths_give_a_well_formed_profile(
            write in proptest::collection::vec("/[ -~\\n\\té€]{0,12}", 0..4),
            denied in proptest::collection::vec("/[ -~\\n\\té€]{0,12}", 0..4),
            ports in proptest::option::of(proptest::collection::vec(proptest::prelude::any::<u16>(), 0..3)),
        ) {
            let plan = Plan {
                write: write.iter().map(PathBuf::from).collect(),
                read_denied: denied.iter().map(PathBuf::from).collect(),
                net: ports.map(|p| if p.is_empty() { Net::Off } else { Net::Ports(p) }),
            };
            let text = profile(&plan);
            let strings = check_well_formed(&text).map_err(proptest::test_runner::TestCaseError::fail)?;
            for path in write.iter().chain(&denied) {
                proptest::prop_assert!(strings.contains(&path.as_bytes().to_vec()), "{path:?}");
            }
        }
    }
}

//! The child's environment: the user's own (so authenticated CLIs such as gh,
//! aws, kubectl and docker keep working), minus the variables that make a runtime
//! load or run extra code at start-up.
//!
//! Rule: a variable is removed when it injects code or interpreter options into
//! every process of a runtime (preloads, startup files, option variables,
//! profilers, exported shell functions). Variables that only say where to find
//! things (PATH, PYTHONPATH, NODE_PATH, PERL5LIB, RUBYLIB, CLASSPATH, ERL_LIBS,
//! DOTNET_ROOT), credentials, and tool settings the user chose (GOFLAGS, CC,
//! RUSTC_WRAPPER, RUSTFLAGS, OPENSSL_CONF) are kept: removing them breaks the
//! user's setup without making the script's own code any safer.

use std::ffi::{OsStr, OsString};

/// Removed by exact name.
pub const SCRUBBED_NAMES: &[&str] = &[
    // shells: startup files and options read by non-interactive shells
    "BASH_ENV",       // file sourced by every non-interactive bash
    "ENV",            // file sourced by sh/dash (and bash in POSIX mode)
    "ZDOTDIR",        // where zsh reads its startup files
    "SHELLOPTS",      // turns on bash options (xtrace …) in every bash
    "BASHOPTS",       // the same for shopt options
    "PS4",            // expanded (command substitution) on every traced line
    "PROMPT_COMMAND", // run before each prompt
    "CDPATH",         // makes `cd` print and resolve elsewhere
    "IFS",            // word splitting of every unquoted expansion
    // Node.js
    "NODE_OPTIONS", // --require / --import / --loader run code in every node
    // Python
    "PYTHONSTARTUP",    // file run by an interactive interpreter
    "PYTHONINSPECT",    // drops into the interactive prompt after the script
    "PYTHONWARNINGS",   // a warning category imports an arbitrary module
    "PYTHONBREAKPOINT", // callable imported on breakpoint()
    // Perl
    "PERL5OPT", // -M/-m options: modules loaded into every perl
    "PERL5DB",  // debugger code
    // Ruby
    "RUBYOPT", // -r options: files required into every ruby
    // Java
    "JAVA_TOOL_OPTIONS", // -javaagent in every JVM
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    // Erlang / Elixir
    "ERL_AFLAGS", // -eval / -s in every VM
    "ERL_FLAGS",
    "ERL_ZFLAGS",
    "ELIXIR_ERL_OPTIONS",
    // .NET
    "DOTNET_STARTUP_HOOKS",   // assemblies run before Main
    "DOTNET_ADDITIONAL_DEPS", // extra dependency manifests
    "CORECLR_ENABLE_PROFILING",
    "COR_ENABLE_PROFILING",
    // PHP
    "PHPRC",            // php.ini with auto_prepend_file
    "PHP_INI_SCAN_DIR", // extra .ini files
    // R
    "R_PROFILE",      // site profile run at start
    "R_PROFILE_USER", // user profile run at start
    // colour forcing: escape codes waste context
    "FORCE_COLOR",
    "CLICOLOR_FORCE",
];

/// Removed by prefix (case-sensitive unless noted in [`is_scrubbed`]).
pub const SCRUBBED_PREFIXES: &[&str] = &[
    "LD_",              // LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT …: dynamic-linker injection
    "DYLD_",            // macOS equivalents (DYLD_INSERT_LIBRARIES …)
    "BASH_FUNC_",       // exported bash functions, which can shadow any command
    "CORECLR_PROFILER", // profiler DLL loaded into every .NET process
    "COR_PROFILER",
    "DOTNET_PROFILER",
];

/// Set for every child: no colour codes in captured output.
pub const FORCED: &[(&str, &str)] = &[("NO_COLOR", "1")];

/// Whether the variable `name` is removed from the child's environment.
pub fn is_scrubbed(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    SCRUBBED_NAMES.contains(&name)
        || SCRUBBED_PREFIXES.iter().any(|p| name.starts_with(p))
        // COMPlus_* is .NET's case-insensitive alias of its runtime knobs.
        || name.get(..8).is_some_and(|p| p.eq_ignore_ascii_case("complus_"))
}

/// The child's environment: `base` minus scrubbed variables, plus [`FORCED`],
/// plus the runtime's own `extra` (which win).
pub fn child_env<'a>(
    base: impl IntoIterator<Item = (OsString, OsString)>,
    extra: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = base
        .into_iter()
        .filter(|(name, _)| !is_scrubbed(name))
        .collect();
    let mut set = |name: &str, value: &str| {
        env.retain(|(n, _)| n != name);
        env.push((name.into(), value.into()));
    };
    for (name, value) in FORCED {
        set(name, value);
    }
    for (name, value) in extra {
        set(name, value);
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(env: &[(OsString, OsString)]) -> Vec<String> {
        env.iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn injection_variables_go_and_the_users_setup_stays() {
        let base = [
            "NODE_OPTIONS",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "LD_AUDIT",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "ENV",
            "PYTHONSTARTUP",
            "PERL5OPT",
            "RUBYOPT",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "BASH_FUNC_ls%%",
            "COMPLUS_EnableDiagnostics",
            "complus_x",
            "CORECLR_PROFILER_PATH",
            "PATH",
            "HOME",
            "GH_TOKEN",
            "AWS_PROFILE",
            "PYTHONPATH",
            "NODE_PATH",
            "PERL5LIB",
            "KUBECONFIG",
            "GOFLAGS",
        ]
        .map(|n| (OsString::from(n), OsString::from("x")));
        let env = child_env(base, [("PYTHONUNBUFFERED", "1")]);
        assert_eq!(
            names(&env),
            [
                "PATH",
                "HOME",
                "GH_TOKEN",
                "AWS_PROFILE",
                "PYTHONPATH",
                "NODE_PATH",
                "PERL5LIB",
                "KUBECONFIG",
                "GOFLAGS",
                "NO_COLOR",
                "PYTHONUNBUFFERED"
            ]
        );
    }

    #[test]
    fn runtime_variables_override_the_users() {
        let base = [(OsString::from("PYTHONUNBUFFERED"), OsString::from("0"))];
        let env = child_env(base, [("PYTHONUNBUFFERED", "1")]);
        assert_eq!(
            env,
            vec![
                ("NO_COLOR".into(), "1".into()),
                ("PYTHONUNBUFFERED".into(), "1".into())
            ]
        );
    }
}

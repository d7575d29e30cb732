use super::*;

fn found(language: Language, code: &str) -> Vec<String> {
    shell_commands(language, code)
}

#[test]
fn language_names_and_aliases() {
    assert_eq!(Language::from_name("Python"), Some(Language::Python));
    assert_eq!(
        Language::from_name("typescript"),
        Some(Language::JavaScript)
    );
    assert_eq!(Language::from_name("bash"), Some(Language::Shell));
    assert_eq!(Language::from_name("csharp"), Some(Language::CSharp));
    assert_eq!(Language::from_name("cobol"), None);
}

#[test]
fn shell_code_is_itself() {
    assert_eq!(found(Language::Shell, "ls && pwd"), ["ls && pwd"]);
}

#[test]
fn python_os_and_subprocess_calls() {
    let code = r#"
import os, subprocess
os.system("sudo rm -rf /tmp/x")
out = os.popen('git log --oneline').read()
subprocess.run(["curl", "-s", url], capture_output=True, text=True)
subprocess.check_output("kubectl get pods", shell=True)
subprocess.Popen(args=["ls", "-la"], cwd="/tmp")
"#;
    assert_eq!(
        found(Language::Python, code),
        [
            "sudo rm -rf /tmp/x",
            "git log --oneline",
            "curl -s",
            "kubectl get pods",
            "ls -la"
        ]
    );
}

#[test]
fn python_aliases_and_from_imports() {
    let code = "import subprocess as sp\nfrom os import system as sh, getcwd\nfrom subprocess import check_output\nsp.call(['sudo', 'ls'])\nsh('rm x')\ncheck_output(['make'])\n";
    assert_eq!(found(Language::Python, code), ["sudo ls", "rm x", "make"]);
}

#[test]
fn python_string_forms() {
    let code = "os.system(f\"curl {url}\")\nos.system(r'echo \\d')\nos.system('''git push\n--force''')\nos.system(\"rm -rf \" + path)";
    assert_eq!(
        found(Language::Python, code),
        ["curl {url}", "echo d", "git push\n--force", "rm -rf "]
    );
}

#[test]
fn python_mentions_in_comments_and_strings_run_nothing() {
    let code = "# os.system('sudo x')\nprint(\"os.system('sudo y')\")\ndef system(x): pass\n";
    assert!(found(Language::Python, code).is_empty());
}

#[test]
fn javascript_child_process_and_tagged_templates() {
    let code = r#"
const { execSync, spawn } = require('child_process');
execSync('git push --force', { stdio: 'inherit' });
spawn('curl', ['-s', url], { stdio: 'inherit' });
require("child_process").exec("sudo reboot", (err, out) => { console.log("done"); });
await Bun.$`rm -rf ${dir}`;
await $`kubectl delete ns x`;
"#;
    assert_eq!(
        found(Language::JavaScript, code),
        [
            "git push --force",
            "curl -s",
            "sudo reboot",
            "rm -rf ${dir}",
            "kubectl delete ns x"
        ]
    );
}

#[test]
fn javascript_comments_and_plain_templates_run_nothing() {
    let code =
        "// execSync('sudo x')\n/* spawn('rm') */\nconst s = `sudo ${x}`;\nfunction exec(a) {}\n";
    assert!(found(Language::JavaScript, code).is_empty());
}

#[test]
fn ruby_backticks_percent_x_and_system() {
    let code = "out = `git status`\nlist = %x(ls -la)\nsystem(\"sudo\", \"apt\", \"update\")\nsystem \"make install\"\nwords = %w(a b)\n";
    assert_eq!(
        found(Language::Ruby, code),
        ["git status", "ls -la", "sudo apt update", "make install"]
    );
}

#[test]
fn perl_backticks_qx_and_system() {
    let code = "my $a = `whoami`;\nmy $b = qx{df -h};\nsystem(\"rm\", \"-rf\", $dir);\nsystem \"sudo ls\";\nmy $s = q(sudo x);\n";
    assert_eq!(
        found(Language::Perl, code),
        ["whoami", "df -h", "rm -rf", "sudo ls"]
    );
}

#[test]
fn php_shell_functions() {
    let code = "<?php\n$o = shell_exec('ls -la');\nsystem(\"sudo reboot\");\npassthru('make');\n$x = `id`;\n# exec('no')\n";
    assert_eq!(
        found(Language::Php, code),
        ["ls -la", "sudo reboot", "make", "id"]
    );
}

#[test]
fn go_exec_command() {
    let code = "cmd := exec.Command(\"git\", \"push\", \"--force\")\nc2 := exec.CommandContext(ctx, \"sudo\", \"ls\")\nraw := `not a command`\n";
    assert_eq!(found(Language::Go, code), ["git push --force", "sudo ls"]);
}

#[test]
fn rust_command_builder() {
    let code = "fn f<'a>(x: &'a str) { let c = 'c'; Command::new(\"sudo\").arg(\"-u\").args([\"bob\", \"ls\"]).output(); }";
    assert_eq!(found(Language::Rust, code), ["sudo -u bob ls"]);
}

#[test]
fn r_elixir_and_csharp() {
    assert_eq!(
        found(
            Language::R,
            "system(\"sudo ls\")\nsystem2(\"git\", c(\"log\", \"-1\"))"
        ),
        ["sudo ls", "git log -1"]
    );
    assert_eq!(
        found(
            Language::Elixir,
            "System.cmd(\"git\", [\"push\"])\n:os.cmd('rm -rf x')"
        ),
        ["git push", "rm -rf x"]
    );
    assert_eq!(
        found(Language::CSharp, "Process.Start(\"sudo\", \"reboot now\");"),
        ["sudo 'reboot now'"]
    );
}

#[test]
fn argv_elements_are_quoted_so_shell_strings_survive() {
    let commands = found(
        Language::Python,
        "subprocess.run(['bash', '-c', 'sudo rm -rf / && ls'])",
    );
    assert_eq!(commands, ["bash -c 'sudo rm -rf / && ls'"]);
    let parts = crate::shell::split(&commands[0]);
    assert!(
        parts.iter().any(|c| c.text() == "sudo rm -rf /"),
        "{parts:?}"
    );
}

#[test]
fn unterminated_code_does_not_panic() {
    for language in [
        Language::Python,
        Language::JavaScript,
        Language::Ruby,
        Language::Perl,
        Language::Php,
        Language::Go,
        Language::Rust,
    ] {
        for code in [
            "os.system(\"abc",
            "execSync(`x",
            "%x(ls",
            "qx{ls",
            "exec.Command(",
            "Command::new(r#\"x",
            "'",
            "\"\"\"",
            "system(",
        ] {
            let _ = shell_commands(language, code);
        }
    }
}

#[test]
fn every_name_the_host_runs_code_under_is_known() {
    // The host's runtime catalog; an alias unknown here would judge code as shell text.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../runtimes");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("runtimes/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        for line in text.lines() {
            if let Some(value) = line.strip_prefix("name = ") {
                names.push(value.trim().trim_matches('"').to_string());
            } else if let Some(list) = line.strip_prefix("aliases = ") {
                names.extend(
                    list.trim_matches(|c| c == '[' || c == ']')
                        .split(',')
                        .map(|a| a.trim().trim_matches('"').to_string())
                        .filter(|a| !a.is_empty()),
                );
            }
        }
    }
    assert!(names.len() > 30, "{names:?}");
    for name in names {
        assert!(Language::from_name(&name).is_some(), "{name}");
    }
}

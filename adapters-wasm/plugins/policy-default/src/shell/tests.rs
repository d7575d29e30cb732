use super::*;

/// Each command as its words' values joined by spaces, with its origin.
fn commands(line: &str) -> Vec<(String, Origin)> {
    split(line)
        .iter()
        .map(|c| {
            (
                c.words
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                c.origin,
            )
        })
        .collect()
}

fn texts(line: &str) -> Vec<String> {
    commands(line).into_iter().map(|(t, _)| t).collect()
}

fn programs(line: &str) -> Vec<String> {
    split(line)
        .iter()
        .filter_map(|c| c.program().map(str::to_string))
        .collect()
}

#[test]
fn splits_on_every_list_operator() {
    assert_eq!(
        texts("a && b || c; d | e |& f & g\nh"),
        ["a", "b", "c", "d", "e", "f", "g", "h"]
    );
    assert_eq!(texts("a;;b"), ["a", "b"]);
}

#[test]
fn quotes_keep_operators_and_keywords_as_data() {
    assert_eq!(
        texts(r#"gh issue edit 1 --body "mention curl && sudo rm""#),
        [r#"gh issue edit 1 --body mention curl && sudo rm"#]
    );
    assert_eq!(texts("echo 'a | b; c'"), ["echo a | b; c"]);
    assert_eq!(
        texts(r#"echo "it's \"quoted\"""#),
        [r#"echo it's "quoted""#]
    );
    assert_eq!(texts(r"echo a\;b"), ["echo a;b"]);
    assert_eq!(texts("echo $'x\\ty'"), ["echo x\ty"]);
}

#[test]
fn words_remember_their_raw_form() {
    let cmds = split(r#"git commit -m "fix: a b""#);
    let last = cmds[0].words.last().expect("a word");
    assert_eq!(last.text, "fix: a b");
    assert_eq!(last.raw, r#""fix: a b""#);
    assert!(last.quoted);
}

#[test]
fn command_substitution_runs_captured_commands() {
    let found = commands("echo \"today: $(date +%F) $(curl -s https://x.dev)\"");
    assert_eq!(found[0].1, Origin::Direct);
    assert!(found.contains(&("date +%F".to_string(), Origin::Captured)));
    assert!(found.contains(&("curl -s https://x.dev".to_string(), Origin::Captured)));
}

#[test]
fn nested_substitution_and_chains_inside_it() {
    let found = texts("echo $(cat $(ls /tmp) && sudo reboot)");
    assert!(found.contains(&"ls /tmp".to_string()), "{found:?}");
    assert!(found.contains(&"sudo reboot".to_string()), "{found:?}");
}

#[test]
fn backticks_run_their_contents() {
    let found = commands("echo `whoami` \"in `pwd`\"");
    assert!(found.contains(&("whoami".to_string(), Origin::Captured)));
    assert!(found.contains(&("pwd".to_string(), Origin::Captured)));
    assert_eq!(texts("echo 'no `whoami` here'"), ["echo no `whoami` here"]);
}

#[test]
fn arithmetic_and_parameter_expansion_are_not_commands() {
    assert_eq!(
        texts("echo $((1 + 2)) ${HOME:-$(x)}"),
        ["echo $((1 + 2)) ${HOME:-$(x)}"]
    );
    assert_eq!(texts("(( i++ )); next"), ["next"]);
}

#[test]
fn subshells_and_groups_are_split() {
    assert_eq!(
        texts("(cd app && make) || { echo failed; exit 1; }"),
        ["cd app", "make", "echo failed", "exit 1"]
    );
    assert!(
        commands("(curl x)")
            .iter()
            .all(|(_, o)| *o == Origin::Direct)
    );
}

#[test]
fn heredoc_bodies_are_data() {
    let line = "cat <<EOF > notes.md\ncurl https://x.dev && sudo rm -rf /\nEOF\necho done";
    assert_eq!(programs(line), ["cat", "echo"]);
    let cat = &split(line)[0];
    assert_eq!(cat.stdin_texts, ["curl https://x.dev && sudo rm -rf /\n"]);
    assert!(cat.redirects.iter().any(|r| r.captures_stdout()));
}

#[test]
fn heredoc_variants() {
    assert_eq!(programs("cat <<-'END'\n\tcurl x\n\tEND\nls"), ["cat", "ls"]);
    assert_eq!(programs("python3 - <<\"PY\"\nimport os\nPY"), ["python3"]);
    assert_eq!(
        programs("cat <<A <<B\ncurl\nA\nwget\nB\npwd"),
        ["cat", "pwd"]
    );
    assert_eq!(programs("cat <<EOF | grep x\ncurl a\nEOF"), ["cat", "grep"]);
    // An unterminated heredoc swallows the rest, as the shell would.
    assert_eq!(programs("cat <<EOF\ncurl x"), ["cat"]);
}

#[test]
fn unquoted_heredoc_runs_its_substitutions() {
    let found = commands("cat <<EOF\nnow $(sudo date)\nEOF");
    assert!(
        found.contains(&("sudo date".to_string(), Origin::Captured)),
        "{found:?}"
    );
    let quoted = commands("cat <<'EOF'\nnow $(sudo date)\nEOF");
    assert_eq!(quoted.len(), 1);
}

#[test]
fn here_strings_feed_stdin() {
    let cmds = split("python3 <<< 'print(1)'");
    assert_eq!(cmds[0].stdin_texts, ["print(1)"]);
}

#[test]
fn comments_are_skipped() {
    assert_eq!(texts("ls # && curl x\npwd"), ["ls", "pwd"]);
    assert_eq!(texts("echo a#b"), ["echo a#b"]);
}

#[test]
fn redirections_are_not_words() {
    let cmd = &split("curl -s https://x.dev 2>/dev/null >out.json")[0];
    assert_eq!(cmd.words.len(), 3);
    assert_eq!(cmd.redirects.len(), 2);
    assert_eq!(cmd.redirects[0].fd, Some(2));
    assert!(cmd.redirects[0].captures_stderr());
    assert!(cmd.redirects[1].captures_stdout());
    let dup = &split("make 2>&1")[0];
    assert!(!dup.redirects[0].captures_stdout());
    assert!(split("cmd &> all.log")[0].redirects[0].captures_stdout());
    assert!(
        split("cmd >&2")[0]
            .redirects
            .iter()
            .all(|r| !r.captures_stdout())
    );
}

#[test]
fn process_substitution_is_captured() {
    let found = commands("diff <(curl -s a) <(curl -s b)");
    assert_eq!(
        found.iter().filter(|(_, o)| *o == Origin::Captured).count(),
        2
    );
}

#[test]
fn pipes_name_the_next_program() {
    let cmds = split("git log --oneline | head -20 && ls");
    assert_eq!(cmds[0].pipes_into.as_deref(), Some("head"));
    assert!(cmds[1].piped_in);
    assert_eq!(cmds[2].pipes_into, None);
    assert_eq!(
        split("curl -s x | sudo tee f")[0].pipes_into.as_deref(),
        Some("tee")
    );
}

#[test]
fn reserved_words_and_compound_heads_are_removed() {
    assert_eq!(
        texts("if curl -s x; then sudo ls; else echo no; fi"),
        ["curl -s x", "sudo ls", "echo no"]
    );
    assert_eq!(texts("for f in a b; do rm $f; done"), ["rm $f"]);
    assert_eq!(texts("while true; do sleep 1; done"), ["true", "sleep 1"]);
    assert_eq!(texts("! grep x f"), ["grep x f"]);
    assert_eq!(texts("time -p make"), ["make"]);
    assert_eq!(
        texts("deploy() { sudo make install; }; deploy"),
        ["sudo make install", "deploy"]
    );
}

#[test]
fn assignments_and_wrappers() {
    let cmd = &split("FOO=1 BAR='a b' sudo -u bob timeout 5 nice -n 10 curl -s x")[0];
    assert_eq!(cmd.argv()[0].text, "sudo");
    let levels: Vec<String> = cmd.unwrapped().iter().map(|a| a[0].text.clone()).collect();
    assert_eq!(levels, ["sudo", "timeout", "nice", "curl"]);
    assert_eq!(cmd.program(), Some("curl"));
    assert_eq!(
        split("env -i PATH=/bin /usr/bin/curl x")[0].program(),
        Some("curl")
    );
    assert_eq!(split("command -v curl")[0].program(), Some("command"));
    assert_eq!(split("xargs -n 1 -I{} rm {}")[0].program(), Some("rm"));
    assert_eq!(split("npx -y jest --ci")[0].program(), Some("jest"));
    assert_eq!(split("FOO=1")[0].program(), None);
}

#[test]
fn rule_candidates_cover_quoting_and_wrappers() {
    let cmd = &split(r#"FOO=1 "sudo" rm -rf "/tmp/x y""#)[0];
    let plain = cmd.rule_candidates(false);
    assert!(
        plain.contains(&"sudo rm -rf /tmp/x y".to_string()),
        "{plain:?}"
    );
    assert!(plain.contains(&r#""sudo" rm -rf "/tmp/x y""#.to_string()));
    assert!(plain.contains(&r#"FOO=1 "sudo" rm -rf "/tmp/x y""#.to_string()));
    let deep = cmd.rule_candidates(true);
    assert!(deep.contains(&"rm -rf /tmp/x y".to_string()), "{deep:?}");
    assert!(!plain.contains(&"rm -rf /tmp/x y".to_string()));
}

#[test]
fn shell_strings_are_followed() {
    let found = commands("bash -lc 'cd /srv && sudo systemctl restart app'");
    assert!(
        found.contains(&("sudo systemctl restart app".to_string(), Origin::Direct)),
        "{found:?}"
    );
    assert!(texts("sh -c \"curl -s x | jq .\"").contains(&"jq .".to_string()));
    assert!(texts("eval \"sudo ls\"").contains(&"sudo ls".to_string()));
    assert!(texts("su -c 'rm -rf /'").contains(&"rm -rf /".to_string()));
    assert!(texts("watch -n 5 'kubectl get pods'").contains(&"kubectl get pods".to_string()));
    // A script file, not a command string.
    assert_eq!(texts("bash deploy.sh -c x").len(), 1);
}

#[test]
fn interpreter_code_is_searched_for_shell_calls() {
    let found = commands("python3 -c \"import os; os.system('sudo rm -rf /tmp/x')\"");
    assert!(
        found.contains(&("sudo rm -rf /tmp/x".to_string(), Origin::Embedded)),
        "{found:?}"
    );
    let node = texts("node -e \"require('child_process').execSync('git push --force')\"");
    assert!(node.contains(&"git push --force".to_string()), "{node:?}");
    let heredoc = texts("python3 - <<'PY'\nimport subprocess\nsubprocess.run(['sudo', 'ls'])\nPY");
    assert!(heredoc.contains(&"sudo ls".to_string()), "{heredoc:?}");
}

#[test]
fn inline_code_is_found_for_each_interpreter() {
    let code = |line: &str| split(line)[0].inline_code();
    assert_eq!(
        code("python3 -c 'print(1)'"),
        Some((crate::embedded::Language::Python, "print(1)".to_string()))
    );
    assert_eq!(
        code("node --eval='fetch(1)'").map(|(_, c)| c),
        Some("fetch(1)".to_string())
    );
    assert_eq!(
        code("ruby -e 'puts 1'").map(|(l, _)| l),
        Some(crate::embedded::Language::Ruby)
    );
    assert_eq!(
        code("php -r 'echo 1;'").map(|(l, _)| l),
        Some(crate::embedded::Language::Php)
    );
    assert_eq!(code("python3 script.py"), None);
    assert_eq!(code("python3 script.py <<< 'data'"), None);
}

#[test]
fn line_continuations_and_crlf() {
    assert_eq!(texts("curl \\\n  -s x\r\n"), ["curl -s x"]);
}

#[test]
fn hostile_nesting_is_bounded() {
    let deep = format!("{}x{}", "$(".repeat(5000), ")".repeat(5000));
    let found = split(&format!("echo {deep}"));
    assert_eq!(found[0].program(), Some("echo"));
    let deep_shell = (0..10).fold("ls".to_string(), |inner, _| {
        format!("bash -c {}", shell_quote(&inner))
    });
    assert!(!split(&deep_shell).is_empty());
}

#[test]
fn commands_below_every_nesting_limit_are_still_found() {
    let buried = |depth: usize| {
        format!(
            "echo {}sudo rm -rf /{}",
            "$(".repeat(depth),
            ")".repeat(depth)
        )
    };
    for depth in [1, 15, 16, 17, 40, 3000] {
        let found = texts(&buried(depth));
        assert!(
            found.iter().any(|t| t == "sudo rm -rf /"),
            "depth {depth}: {found:?}"
        );
    }
    let ticks = format!("echo {}echo `sudo ls`{}", "$(".repeat(20), ")".repeat(20));
    assert!(texts(&ticks).iter().any(|t| t == "sudo ls"));
    let shells = (0..12).fold("sudo reboot".to_string(), |inner, _| {
        format!("bash -c {}", shell_quote(&inner))
    });
    let programs: Vec<String> = split(&shells)
        .iter()
        .filter_map(|c| c.argv().first().map(|w| w.text.clone()))
        .collect();
    assert!(
        programs.iter().any(|p| p == "sudo"),
        "{} bytes: {programs:?}",
        shells.len()
    );
}

#[test]
fn unterminated_quotes_take_the_rest() {
    assert_eq!(texts("echo \"abc && curl x"), ["echo abc && curl x"]);
    assert_eq!(texts("echo 'abc"), ["echo abc"]);
    assert_eq!(texts("echo $(ls"), ["echo $(ls", "ls"]);
}

#[test]
fn empty_and_blank_lines_run_nothing() {
    assert!(split("").is_empty());
    assert!(split("  \n\t ; ;").is_empty());
}

/// Generated command lines (property tests).
mod proptests;

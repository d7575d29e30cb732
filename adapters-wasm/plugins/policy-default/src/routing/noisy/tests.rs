use super::*;
use crate::shell::split;

fn noisy(line: &str) -> Option<String> {
    split(line).iter().find_map(noisy_command)
}

fn build(line: &str) -> bool {
    split(line).iter().any(is_build_tool)
}

#[test]
fn build_tools_are_caught() {
    for line in [
        "./gradlew build",
        "gradle test",
        "mvn clean install",
        "./mvnw -B verify",
        "sbt compile",
        "cd app && ./gradlew assemble",
        "gradlew.bat build",
    ] {
        assert!(build(line), "{line}");
    }
}

#[test]
fn bounded_or_probe_builds_pass() {
    for line in [
        "./gradlew --version",
        "mvn -v",
        "sbt -version",
        "mvn -q package",
        "./gradlew build | tail -30",
        "mvn install > build.log 2>&1",
        "./gradlew build 2>&1 | grep FAIL",
        "echo gradle",
    ] {
        assert!(!build(line), "{line}");
    }
}

#[test]
fn noisy_commands_are_named() {
    let cases = [
        ("find . -name '*.rs'", "find"),
        ("find / -type f", "find"),
        ("find", "find"),
        ("ls -laR", "ls"),
        ("ls --recursive src", "ls"),
        ("tree", "tree"),
        ("grep -rn TODO .", "grep"),
        ("grep -R --include=*.ts foo src", "grep"),
        ("rg foo", "rg"),
        ("cat logs/app.log", "cat"),
        ("cat /var/log/syslog", "cat"),
        ("git log", "git log"),
        ("git --no-pager log --oneline", "git log"),
        ("git -C repo log -p", "git log"),
        ("git grep foo", "git grep"),
        ("docker logs web", "docker logs"),
        ("docker compose logs api", "docker logs"),
        ("kubectl logs pod/x", "kubectl logs"),
        ("journalctl -u nginx", "journalctl"),
        ("npm test", "npm test"),
        ("npm run test:unit", "npm run test:unit"),
        ("yarn test", "yarn test"),
        ("pytest -x", "pytest"),
        ("python3 -m pytest tests", "python3 -m pytest"),
        ("cargo test --workspace", "cargo test"),
        ("go test ./...", "go test"),
        ("npx jest --ci", "jest"),
    ];
    for (line, name) in cases {
        assert_eq!(noisy(line).as_deref(), Some(name), "{line}");
    }
}

#[test]
fn bounded_commands_pass() {
    for line in [
        "pwd",
        "git status",
        "git log -5",
        "git log -n 3 --oneline",
        "git log --max-count=10",
        "git log --since=yesterday",
        "git log | head -20",
        "find . -maxdepth 2 -name x",
        "find src -name '*.rs'",
        "ls -la",
        "tree -L 2",
        "grep -rl TODO .",
        "grep -rq TODO .",
        "grep TODO file.txt",
        "rg -c foo",
        "rg foo | wc -l",
        "cat README.md",
        "docker logs --tail 50 web",
        "kubectl logs --tail=100 pod/x",
        "journalctl -n 100",
        "npm install",
        "cargo fmt",
        "pytest > out.txt",
        "mkdir -p a/b && mv x y && cp a b && touch z && chmod +x z",
        "node --version",
    ] {
        assert_eq!(noisy(line), None, "{line}");
    }
}

use super::*;

const CARGO_BIN: &str = "/home/u/.cargo/bin";

fn unix(exe: &str) -> Channel {
    classify(exe, CARGO_BIN, Os::Linux)
}

fn npm(package: &str, install: NpmInstall) -> Channel {
    Channel::Npm {
        package: package.to_owned(),
        install,
    }
}

#[test]
fn npm_platform_packages_global_npx_and_project() {
    assert_eq!(
        unix("/usr/lib/node_modules/context-mode/node_modules/@context-mode/cm-linux-x64/bin/cm"),
        npm("@context-mode/cm-linux-x64", NpmInstall::Global)
    );
    assert_eq!(
        classify(
            "/Users/a/.nvm/versions/node/v24.1.0/lib/node_modules/context-mode/node_modules/@context-mode/cm-darwin-arm64/bin/cm",
            CARGO_BIN,
            Os::Macos
        ),
        npm("@context-mode/cm-darwin-arm64", NpmInstall::Global)
    );
    assert_eq!(
        unix("/home/u/.npm/_npx/4b1c2e/node_modules/@context-mode/cm-linux-arm64/bin/cm"),
        npm("@context-mode/cm-linux-arm64", NpmInstall::Npx)
    );
    assert_eq!(
        unix("/work/app/node_modules/@context-mode/cm-linux-x64/bin/cm"),
        npm(
            "@context-mode/cm-linux-x64",
            NpmInstall::Project(PathBuf::from("/work/app"))
        )
    );
    // Another scope, or the launcher's own JS, is not our platform package.
    assert_eq!(
        unix("/usr/lib/node_modules/@other/cm-linux-x64/bin/cm"),
        Channel::Archive
    );
}

#[test]
fn windows_paths_use_its_separators_exe_name_and_case() {
    let exe = r"C:\Users\A\AppData\Roaming\npm\node_modules\context-mode\node_modules\@context-mode\cm-win32-x64\bin\cm.exe";
    assert_eq!(
        classify(exe, r"C:\Users\A\.cargo\bin", Os::Windows),
        npm("@context-mode/cm-win32-x64", NpmInstall::Global)
    );
    assert_eq!(
        classify(
            r"C:\Users\A\.cargo\bin\cm.exe",
            r"c:\users\a\.cargo\bin",
            Os::Windows
        ),
        Channel::Cargo
    );
    assert_eq!(
        classify(r"D:\src\cm\target\release\cm.exe", r"C:\x", Os::Windows),
        Channel::SourceBuild {
            checkout: PathBuf::from(r"D:\src\cm"),
            profile: "release".into()
        }
    );
    // A backslash is part of a file name on Linux, and `cm.exe` is not Linux's `cm`.
    assert_eq!(unix(r"/opt/x\target\debug\cm"), Channel::Archive);
    assert_eq!(unix("/home/u/.cargo/bin/cm.exe"), Channel::Archive);
}

#[test]
fn cargo_source_builds_and_everything_else() {
    assert_eq!(unix("/home/u/.cargo/bin/cm"), Channel::Cargo);
    assert_eq!(
        unix("/src/context-mode/target/debug/cm"),
        Channel::SourceBuild {
            checkout: PathBuf::from("/src/context-mode"),
            profile: "debug".into()
        }
    );
    assert_eq!(
        unix("/src/cm/target/x86_64-unknown-linux-gnu/dist/cm"),
        Channel::SourceBuild {
            checkout: PathBuf::from("/src/cm"),
            profile: "dist".into()
        }
    );
    assert_eq!(
        unix("/opt/cm-0.4.0-x86_64-unknown-linux-gnu/cm"),
        Channel::Archive
    );
    assert_eq!(unix("/src/cm/target/doc/cm"), Channel::Archive);
    assert_eq!(unix("/usr/local/bin/cm"), Channel::Archive);
}

#[test]
fn each_channel_says_its_update() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("no-source");
    let bin = dir.path().join("cargo/bin");
    let npm_exe = dir
        .path()
        .join("lib/node_modules/context-mode/node_modules/@context-mode/cm-linux-x64/bin")
        .join(Os::current().executable_name("cm"));
    let text = report(&info_for(&npm_exe, &bin, None, &none));
    assert!(text.contains("channel: npm, global install"), "{text}");
    assert!(
        text.contains("  npm install -g context-mode@latest\n"),
        "{text}"
    );
    assert!(!text.contains("source:"), "{text}");

    let archive = dir
        .path()
        .join("opt")
        .join(Os::current().executable_name("cm"));
    let text = report(&info_for(&archive, &bin, None, &none));
    assert!(text.contains("cargo xtask dist"), "{text}");
    assert!(text.contains(".sha256"), "{text}");

    // cargo's tree gone: said plainly, no commands.
    let cargo_exe = bin.join(Os::current().executable_name("cm"));
    let info = info_for(&cargo_exe, &bin, None, &none);
    assert_eq!(info.channel, Channel::Cargo);
    assert!(info.commands.is_empty());
    assert!(report(&info).contains("no longer exists"));

    // The recorded tree of this build is present: today's cargo install lines.
    let info = info_for(&cargo_exe, &bin, None, &source_dir());
    let Some((_, Source::Present { version, .. })) = &info.source else {
        panic!("the source tree of this test build exists");
    };
    assert_eq!(version.as_deref(), Some(INSTALLED_VERSION));
    assert!(
        info.commands
            .iter()
            .any(|c| c.starts_with("cargo install --locked --path "))
    );
    assert_eq!(shell_word("/a b/c'd"), r"'/a b/c'\''d'");
}

#[test]
fn installed_host_plugins_get_their_update_line() {
    let home = tempfile::tempdir().unwrap();
    let (claude, codex) = (home.path().join(".claude"), home.path().join(".codex"));
    assert!(host_plugins(&claude, &codex).is_empty());
    std::fs::create_dir_all(claude.join("plugins")).unwrap();
    // Claude Code's version 2 record: a list of installs per `name@marketplace`.
    std::fs::write(
        claude.join("plugins/installed_plugins.json"),
        r#"{"version": 2, "plugins": {
            "context-mode@context-mode": [{"scope": "user", "installPath": "/x", "version": "1.0.0"}],
            "other@context-mode": [{"scope": "user", "installPath": "/y"}]}}"#,
    )
    .unwrap();
    // What `codex plugin marketplace add <git repo>` + `codex plugin add` leave.
    std::fs::create_dir_all(&codex).unwrap();
    let git = "[marketplaces.context-mode]\nsource_type = \"git\"\nsource = \"https://github.com/x/context-mode\"\n\n[plugins.\"context-mode@context-mode\"]\nenabled = true\n";
    std::fs::write(codex.join("config.toml"), git).unwrap();
    assert_eq!(
        host_plugins(&claude, &codex),
        [
            (
                "Claude Code".to_owned(),
                "claude plugin update context-mode@context-mode".to_owned()
            ),
            (
                "Codex".to_owned(),
                "codex plugin marketplace upgrade context-mode".to_owned()
            )
        ]
    );
    // A local marketplace is not upgradable: adding the plugin again reads its folder.
    std::fs::write(
        codex.join("config.toml"),
        git.replace("\"git\"", "\"local\""),
    )
    .unwrap();
    assert_eq!(
        host_plugins(&claude, &codex)[1].1,
        "codex plugin add context-mode@context-mode"
    );
    // A damaged record is no plugin, not an error.
    std::fs::write(claude.join("plugins/installed_plugins.json"), "{oops").unwrap();
    assert_eq!(host_plugins(&claude, &codex).len(), 1);
}

/// What `copilot plugin install <folder>` and `… context-mode@context-mode` from a git
/// marketplace leave in Copilot CLI's `config.json` (comment lines first).
#[test]
fn copilot_plugin_installs_get_their_update_line() {
    let home = tempfile::tempdir().unwrap();
    assert!(copilot_plugins(home.path()).is_empty());
    std::fs::write(
        home.path().join("config.json"),
        "// User settings belong in settings.json.\n// This file is managed automatically.\n{\"installedPlugins\": [\n  {\"name\": \"context-mode\", \"marketplace\": \"\", \"cache_path\": \"/c/_direct/copilot-cli\", \"enabled\": true},\n  {\"name\": \"context-mode\", \"marketplace\": \"context-mode\", \"cache_path\": \"/c/context-mode/context-mode\", \"enabled\": true},\n  {\"name\": \"other\", \"marketplace\": \"\", \"enabled\": true}]}",
    )
    .unwrap();
    let commands: Vec<String> = copilot_plugins(home.path())
        .into_iter()
        .map(|(_, command)| command)
        .collect();
    assert_eq!(
        commands,
        [
            "copilot plugin update context-mode",
            "copilot plugin update context-mode@context-mode"
        ]
    );
}

#[test]
fn doctors_reinstall_line_follows_the_channel() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("no-source");
    let bin = dir.path().join("cargo/bin");
    let cm = Os::current().executable_name("cm");
    let npm_exe = dir
        .path()
        .join("lib/node_modules/context-mode/node_modules/@context-mode/cm-linux-x64/bin")
        .join(&cm);
    assert_eq!(
        reinstall_line_for(&info_for(&npm_exe, &bin, None, &none)),
        "npm install -g context-mode@latest"
    );
    let npx_exe = dir
        .path()
        .join(".npm/_npx/0123/node_modules/@context-mode/cm-linux-x64/bin")
        .join(&cm);
    assert_eq!(
        reinstall_line_for(&info_for(&npx_exe, &bin, None, &none)),
        "npx -y context-mode@latest setup"
    );
    let archive = dir.path().join("opt").join(&cm);
    let line = reinstall_line_for(&info_for(&archive, &bin, None, &none));
    assert!(
        line.starts_with("replace ") && line.contains("release archive"),
        "{line}"
    );
    let cargo_exe = bin.join(&cm);
    let line = reinstall_line_for(&info_for(&cargo_exe, &bin, None, &source_dir()));
    assert!(
        line.starts_with("cargo install --locked --force --path "),
        "{line}"
    );
    assert!(!line.contains("checkout"), "{line}");
    let line = reinstall_line_for(&info_for(&cargo_exe, &bin, None, &none));
    assert!(line.contains("in a context-mode checkout"), "{line}");
    let built = source_dir().join("target/release").join(&cm);
    let line = reinstall_line_for(&info_for(&built, &bin, None, &source_dir()));
    assert!(
        line.starts_with("cargo build --locked --release -p cm"),
        "{line}"
    );
}

/// The platform package OMP's Bun and OpenCode's installer put beside the plugin package
/// (ADR 41) is updated by the host's own command, not by npm in that folder.
#[test]
fn a_package_a_host_installed_as_its_plugin_is_updated_by_that_host() {
    let omp = unix("/home/u/.omp/plugins/node_modules/@context-mode/cm-linux-x64/bin/cm");
    assert_eq!(
        omp,
        npm(
            "@context-mode/cm-linux-x64",
            NpmInstall::Host {
                host: "OMP",
                update: "omp plugin install context-mode --force"
            }
        )
    );
    let opencode = unix(
        "/home/u/.cache/opencode/packages/context-mode@latest/node_modules/@context-mode/cm-linux-x64/bin/cm",
    );
    assert_eq!(
        opencode,
        npm(
            "@context-mode/cm-linux-x64",
            NpmInstall::Host {
                host: "OpenCode",
                update: "opencode plugin context-mode -g -f"
            }
        )
    );
    let home = tempfile::tempdir().unwrap();
    let exe = [
        ".omp",
        "plugins",
        "node_modules",
        "@context-mode",
        "cm-linux-x64",
        "bin",
    ]
    .iter()
    .fold(home.path().to_path_buf(), |dir, word| dir.join(word))
    .join(Os::current().executable_name("cm"));
    let info = info_for(&exe, Path::new(CARGO_BIN), None, home.path());
    assert_eq!(info.commands, ["omp plugin install context-mode --force"]);
    assert_eq!(
        reinstall_line_for(&info),
        "omp plugin install context-mode --force"
    );
}

/// What `opencode plugin context-mode -g`, `pi install npm:context-mode` and `omp plugin
/// install context-mode` record, each read back as that host's update line; someone
/// else's package of a similar name is not ours.
#[test]
fn hosts_that_installed_the_package_get_their_update_line() {
    let home = tempfile::tempdir().unwrap();
    let at = |path: &str, text: &str| {
        let file = home.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    assert!(package_plugins(home.path()).is_empty());
    at(
        ".config/opencode/opencode.jsonc",
        "// OpenCode's config\n{\"plugin\": [\"context-mode-extra\", \"context-mode@latest\"]}",
    );
    at(
        ".pi/agent/settings.json",
        r#"{"packages": ["npm:context-mode"]}"#,
    );
    at(
        ".omp/plugins/package.json",
        r#"{"dependencies": {"context-mode": "^0.1.0"}}"#,
    );
    let lines: Vec<(String, String)> = [
        ("OpenCode", "opencode plugin context-mode -g -f"),
        ("Pi", "pi update --extensions"),
        ("OMP", "omp plugin install context-mode --force"),
    ]
    .iter()
    .map(|(h, u)| ((*h).to_owned(), (*u).to_owned()))
    .collect();
    assert_eq!(package_plugins(home.path()), lines);
    at(
        ".config/opencode/opencode.jsonc",
        r#"{"plugin": ["context-mode-extra"]}"#,
    );
    at(
        ".pi/agent/settings.json",
        r#"{"packages": ["npm:context-mode-fork"]}"#,
    );
    at(".omp/plugins/package.json", "{oops");
    assert!(package_plugins(home.path()).is_empty());
}

//! Paths as rules see them: absolute, `/`-separated, `.` and `..` resolved
//! lexically (the host already resolved symlinks where it matters), and the
//! gitignore-style anchoring of `Read(…)` / `Edit(…)` specifiers.

use super::glob::path_match;

/// `path` made absolute against `project_dir` and normalized lexically.
/// Windows paths (`C:\x`) get `/` separators so one matcher serves both.
pub fn normalize(path: &str, project_dir: &str) -> String {
    let path = path.trim();
    let unified = if is_windows(project_dir.trim()) {
        path.replace('\\', "/")
    } else {
        unify_separators(path)
    };
    let absolute = if is_absolute(&unified) {
        unified
    } else {
        format!(
            "{}/{}",
            unify_separators(project_dir.trim()).trim_end_matches('/'),
            unified
        )
    };
    let (root, rest) = split_root(&absolute);
    let mut segments: Vec<&str> = Vec::new();
    for segment in rest.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    format!("{root}{}", segments.join("/"))
}

/// True when `path` is `dir` or lies below it (both already normalized).
pub fn is_inside(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return path.starts_with('/');
    }
    let (path, dir) = if is_windows(dir) {
        (path.to_ascii_lowercase(), dir.to_ascii_lowercase())
    } else {
        (path.to_string(), dir.to_string())
    };
    path == dir
        || path
            .strip_prefix(&dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn is_windows(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

fn unify_separators(path: &str) -> String {
    if is_windows(path) || path.starts_with("\\\\") {
        path.replace('\\', "/")
    } else {
        path.to_string()
    }
}

fn is_absolute(path: &str) -> bool {
    path.starts_with('/') || is_windows(path)
}

/// `("/", rest)` for Unix paths, `("C:/", rest)` for Windows ones.
fn split_root(path: &str) -> (String, &str) {
    if is_windows(path) {
        (
            format!("{}/", &path[..2]),
            path[2..].trim_start_matches('/'),
        )
    } else {
        ("/".to_string(), path.trim_start_matches('/'))
    }
}

/// Whether a `Read(spec)` / `Edit(spec)` specifier covers `path` (normalized).
///
/// Anchoring, following Claude Code's gitignore-style rules:
/// - `//abs/path` is an absolute path;
/// - `/path` is taken both as absolute and as relative to the project
///   (Claude reads it relative to the settings file's project);
/// - `~/path` is under a home directory (`/root`, `/home/*`, `/Users/*`: a
///   pure policy cannot ask for `$HOME`);
/// - `**/name` matches at any depth anywhere;
/// - `./path` and `dir/path` are relative to the project;
/// - a bare `name` matches at any depth under the project.
///
/// A trailing `/` means "this directory"; a pattern naming a directory also
/// covers everything inside it.
pub fn spec_matches(spec: &str, path: &str, project_dir: &str) -> bool {
    let project = normalize(project_dir, "/");
    let project = project.trim_end_matches('/');
    let spec = unify_separators(spec.trim());
    let directory_only = spec.len() > 1 && spec.ends_with('/');
    let spec = spec.trim_end_matches('/');
    let mut patterns: Vec<String> = Vec::new();
    if let Some(absolute) = spec.strip_prefix("//") {
        patterns.push(format!("/{absolute}"));
    } else if let Some(rest) = spec.strip_prefix("~/") {
        for home in ["/root", "/home/*", "/Users/*"] {
            patterns.push(format!("{home}/{rest}"));
        }
    } else if is_windows(spec) {
        patterns.push(spec.to_string());
    } else if let Some(rest) = spec.strip_prefix('/') {
        patterns.push(format!("/{rest}"));
        patterns.push(format!("{project}/{rest}"));
    } else if let Some(rest) = spec.strip_prefix("**/") {
        patterns.push(format!("/**/{rest}"));
    } else if let Some(rest) = spec.strip_prefix("./") {
        patterns.push(format!("{project}/{rest}"));
    } else if spec.contains('/') {
        patterns.push(format!("{project}/{spec}"));
    } else {
        patterns.push(format!("{project}/**/{spec}"));
    }
    let path_segments = segments(path);
    patterns.iter().any(|pattern| {
        let mut pattern_segments = segments(pattern);
        if directory_only {
            pattern_segments.push("**");
        }
        path_match(&pattern_segments, &path_segments)
    })
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_relative_and_dot_segments() {
        assert_eq!(normalize("src/../.env", "/p"), "/p/.env");
        assert_eq!(normalize("./a//b/", "/p/"), "/p/a/b");
        assert_eq!(normalize("/etc/../etc/hosts", "/p"), "/etc/hosts");
        assert_eq!(normalize("../../../../../x", "/p"), "/x");
        assert_eq!(
            normalize("C:\\Users\\me\\.env", "C:\\proj"),
            "C:/Users/me/.env"
        );
        assert_eq!(normalize("src\\main.rs", "C:\\proj"), "C:/proj/src/main.rs");
    }

    #[test]
    fn inside_requires_a_segment_boundary() {
        assert!(is_inside("/p/a", "/p"));
        assert!(is_inside("/p", "/p/"));
        assert!(!is_inside("/pa/b", "/p"));
        assert!(!is_inside("/etc/hosts", "/p"));
        assert!(is_inside("c:/Proj/x", "C:/proj"));
    }

    #[test]
    fn anchoring_of_specifiers() {
        let p = "/work/proj";
        assert!(spec_matches("**/.env*", "/work/proj/.env", p));
        assert!(spec_matches("**/.env*", "/home/u/other/.env.local", p));
        assert!(spec_matches(".env", "/work/proj/deep/dir/.env", p));
        assert!(!spec_matches(".env", "/home/u/.env", p));
        assert!(spec_matches("./secrets/**", "/work/proj/secrets/k.pem", p));
        assert!(!spec_matches(
            "./secrets/**",
            "/work/proj/src/secrets/k.pem",
            p
        ));
        assert!(spec_matches("secrets/", "/work/proj/secrets/a/b", p));
        assert!(spec_matches("src/*.rs", "/work/proj/src/lib.rs", p));
        assert!(spec_matches("/etc/hosts", "/etc/hosts", p));
        assert!(spec_matches(
            "/config/*.json",
            "/work/proj/config/a.json",
            p
        ));
        assert!(spec_matches("//etc/**", "/etc/ssh/sshd_config", p));
        assert!(!spec_matches("//etc/**", "/work/proj/etc/x", p));
        assert!(spec_matches("~/.ssh/**", "/home/alice/.ssh/id_ed25519", p));
        assert!(spec_matches("~/.aws", "/Users/bob/.aws/credentials", p));
        assert!(!spec_matches("~/.ssh/**", "/srv/.ssh/id", p));
        assert!(spec_matches("/abs/path/**", "/abs/path/x/y", p));
    }
}

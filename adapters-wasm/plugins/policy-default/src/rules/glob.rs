//! Wildcard matching for rule specifiers: `*` over whole command lines, and
//! gitignore-style `*` / `?` / `[…]` / `**` over path segments.

/// `*` matches any run of characters (spaces and `/` included); every other
/// character matches itself. The whole of `text` must match.
pub fn star_match(pattern: &str, text: &str) -> bool {
    // Byte-wise: `*` is ASCII and UTF-8 literals compare equal byte for byte,
    // so no character decoding is needed on long command lines.
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((star_pi, star_ti)) = star {
            pi = star_pi + 1;
            ti = star_ti + 1;
            star = Some((star_pi, star_ti + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Matches one path segment against a segment pattern with `*`, `?` and
/// `[abc]` / `[a-z]` / `[!x]` classes. Iterative with single-star
/// backtracking, so never exponential on patterns such as `*a*a*a*b`.
pub fn segment_match(pattern: &str, segment: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = segment.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
            continue;
        }
        let step = if pi < p.len() {
            single_match(&p[pi..], t[ti])
        } else {
            None
        };
        if let Some(width) = step {
            pi += width;
            ti += 1;
        } else if let Some((star_pi, star_ti)) = star {
            pi = star_pi + 1;
            ti = star_ti + 1;
            star = Some((star_pi, star_ti + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// When the pattern at `p` matches character `c`: how many pattern characters it used.
fn single_match(p: &[char], c: char) -> Option<usize> {
    match p[0] {
        '?' => Some(1),
        '[' => match class_match(p, c) {
            Some((true, width)) => Some(width),
            Some((false, _)) => None,
            None => (c == '[').then_some(1),
        },
        other => (other == c).then_some(1),
    }
}

/// `[…]` at the start of `p`: whether `c` is in the class and the class's
/// width, or `None` when the bracket is not closed (a literal `[`).
fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(p.get(1), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&end| end != ']') {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

/// Whether the segment pattern matches `path` itself or one of its ancestor
/// directories (`/etc` covers `/etc/hosts`, as in gitignore). `**` matches
/// any number of segments, including none.
pub fn path_match(pattern: &[&str], path: &[&str]) -> bool {
    // reachable[j]: the pattern consumed so far matches path[..j].
    let mut reachable = vec![false; path.len() + 1];
    reachable[0] = true;
    for segment in pattern {
        let mut next = vec![false; path.len() + 1];
        if *segment == "**" {
            let mut seen = false;
            for j in 0..=path.len() {
                seen |= reachable[j];
                next[j] = seen;
            }
        } else {
            for j in 0..path.len() {
                if reachable[j] && segment_match(segment, path[j]) {
                    next[j + 1] = true;
                }
            }
        }
        reachable = next;
    }
    reachable[1..].iter().any(|&r| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(s: &str) -> Vec<&str> {
        s.split('/').filter(|s| !s.is_empty()).collect()
    }

    #[test]
    fn star_spans_spaces_and_slashes() {
        assert!(star_match("sudo *", "sudo rm -rf /"));
        assert!(star_match("git * --force", "git push origin main --force"));
        assert!(!star_match("sudo *", "sudoedit x"));
        assert!(star_match("*", ""));
        assert!(!star_match("ls", "ls -la"));
        assert!(star_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
        assert!(!star_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    }

    #[test]
    fn star_match_treats_brackets_literally() {
        assert!(star_match("echo [x]?", "echo [x]?"));
        assert!(!star_match("echo ?", "echo a"));
    }

    #[test]
    fn segment_classes() {
        assert!(segment_match(".env*", ".env.local"));
        assert!(segment_match("*.[ch]", "main.c"));
        assert!(!segment_match("*.[ch]", "main.rs"));
        assert!(segment_match("file[0-9]", "file7"));
        assert!(segment_match("[!a]x", "bx"));
        assert!(!segment_match("[!a]x", "ax"));
        assert!(segment_match("a?c", "abc"));
        assert!(segment_match("[unclosed", "[unclosed"));
    }

    #[test]
    fn double_star_spans_segments() {
        assert!(path_match(&segs("/**/.env*"), &segs("/p/a/b/.env.prod")));
        assert!(path_match(&segs("/**/.env*"), &segs("/.env")));
        assert!(path_match(&segs("/p/src/**"), &segs("/p/src/a/b.rs")));
        assert!(path_match(&segs("/p/**/*.rs"), &segs("/p/main.rs")));
        assert!(!path_match(&segs("/p/src/*.rs"), &segs("/p/src/a/b.rs")));
        assert!(!path_match(&segs("/p/secrets/**"), &segs("/p/secretsx/a")));
    }

    #[test]
    fn a_directory_pattern_covers_its_contents() {
        assert!(path_match(&segs("/etc"), &segs("/etc/hosts")));
        assert!(path_match(&segs("/p/.env*"), &segs("/p/.env.d/key")));
        assert!(!path_match(&segs("/etc/hosts/x"), &segs("/etc/hosts")));
    }
}

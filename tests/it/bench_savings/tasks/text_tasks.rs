//! Tasks over line-oriented text: the access log, the git log, the page snapshot and
//! the generated application log.

use std::collections::BTreeMap;

use super::Check;
use crate::bench_savings::agent::Agent;
use crate::bench_savings::corpora::Corpus;
use crate::sandbox_support::source_label;

// ---- access.log -------------------------------------------------------------------------

fn access_fields(corpus: &Corpus) -> Vec<Vec<&str>> {
    corpus
        .text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect()
}

pub fn access_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "from collections import Counter\nc = Counter(l.split()[8][0] + 'xx' for l in FILE_CONTENT.splitlines())\nprint(' '.join(f'{k}={c[k]}' for k in sorted(c)))";
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    for f in access_fields(corpus) {
        *classes.entry(format!("{}xx", &f[8][..1])).or_default() += 1;
    }
    Check::exact(
        &reply,
        classes
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

pub fn access_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = r#"awk '$9 >= 400 {n[$7]++} END {for (p in n) print n[p], p}' "$FILE_CONTENT_PATH" | sort -k1,1nr -k2,2 | head -3"#;
    let reply = agent.over_file(&corpus.project_path(), "shell", code);
    let mut failing: BTreeMap<&str, usize> = BTreeMap::new();
    for f in access_fields(corpus) {
        if f[8].parse::<u32>().unwrap_or(0) >= 400 {
            *failing.entry(f[6]).or_default() += 1;
        }
    }
    let mut ranked: Vec<(&str, usize)> = failing.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let expected: Vec<String> = ranked
        .iter()
        .take(3)
        .map(|(p, n)| format!("{n} {p}"))
        .collect();
    Check::exact(&reply, expected.join("\n"))
}

pub fn access_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let intent = agent.print_with_intent(
        &corpus.project_path(),
        "requests that failed with status 500",
    );
    let label = source_label(&intent);
    let search = agent.search("403 forbidden", label.as_deref());
    let lines = |status: &str| -> Vec<String> {
        access_fields(corpus)
            .iter()
            .filter(|f| f[8] == status)
            .map(|f| format!("\" {status} {}", f[9]))
            .collect()
    };
    let any_of =
        |reply: &str, wanted: Vec<String>| wanted.into_iter().find(|w| reply.contains(w.as_str()));
    let found: Vec<String> = [any_of(&intent, lines("500")), any_of(&search, lines("403"))]
        .into_iter()
        .flatten()
        .collect();
    let mut check = Check::contains_all(&[&intent, &search], &found);
    check.correct &= found.len() == 2;
    check.expected =
        "a status-500 line in the intent reply, a status-403 line in the search reply".into();
    check
}

// ---- git-log.txt ------------------------------------------------------------------------

/// (hash, author, message) of each `hash date First Last message` line.
fn commits(corpus: &Corpus) -> Vec<(String, String, String)> {
    corpus
        .text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.splitn(5, ' ').collect();
            (f.len() == 5).then(|| {
                (
                    f[0].to_string(),
                    format!("{} {}", f[2], f[3]),
                    f[4].to_string(),
                )
            })
        })
        .collect()
}

pub fn git_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = r#"cut -d' ' -f3,4 "$FILE_CONTENT_PATH" | sort | uniq -c | sort -k1,1nr -k2 | awk '{print $2" "$3"="$1}'"#;
    let reply = agent.over_file(&corpus.project_path(), "shell", code);
    let mut authors: BTreeMap<String, usize> = BTreeMap::new();
    for (_, author, _) in commits(corpus) {
        *authors.entry(author).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = authors.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Check::exact(
        &reply,
        ranked
            .iter()
            .map(|(a, n)| format!("{a}={n}"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

pub fn git_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "my $first;\nfor (split /\\n/, $FILE_CONTENT) { $first = (split / /)[0] if /stripe/i }\nprint \"$first\\n\";";
    let reply = agent.over_file(&corpus.project_path(), "perl", code);
    let oldest = commits(corpus)
        .into_iter()
        .rfind(|c| c.2.to_lowercase().contains("stripe"));
    Check::exact(&reply, oldest.map(|c| c.0).unwrap_or_default())
}

pub fn git_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let intent = agent.print_with_intent(&corpus.project_path(), "race condition fix");
    let label = source_label(&intent);
    let search = agent.search("tailwindcss", label.as_deref());
    let all = commits(corpus);
    let mut needles: Vec<String> = all
        .iter()
        .filter(|c| c.2.contains("race condition"))
        .map(|c| c.0.clone())
        .collect();
    needles.extend(
        all.iter()
            .filter(|c| c.2.contains("tailwindcss"))
            .map(|c| c.0.clone())
            .take(1),
    );
    Check::contains_all(&[&intent, &search], &needles)
}

// ---- playwright-snapshot.txt ------------------------------------------------------------

/// (rank, title, points, comments) of each story in the Hacker News snapshot.
fn stories(corpus: &Corpus) -> Vec<(u32, String, u32, u32)> {
    let mut out = Vec::new();
    let mut current: Option<(u32, String)> = None;
    for line in corpus.text.lines() {
        let Some(start) = line.find("row \"") else {
            continue;
        };
        let row = &line[start + 5..];
        let row = &row[..row.find("\" [ref").unwrap_or(row.len())];
        if let Some((rank, rest)) = row.split_once(". upvote ") {
            current = rank.parse().ok().map(|r| (r, rest.to_string()));
        } else if let (Some(points), Some((rank, title))) =
            (row.split_once(" points by "), current.take())
        {
            let comments = row
                .rsplit("| ")
                .next()
                .and_then(|c| c.split(' ').next())
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            out.push((rank, title, points.0.parse().unwrap_or(0), comments));
        }
    }
    out
}

pub fn snapshot_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = r#"import re
stories = re.findall(r'row "(\d+)\. upvote ', FILE_CONTENT)
comments = sum(int(c) for c in re.findall(r'row "\d+ points by [^"]*\| (\d+) comments?"', FILE_CONTENT))
print(f"stories={len(stories)} comments={comments}")"#;
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let all = stories(corpus);
    Check::exact(
        &reply,
        format!(
            "stories={} comments={}",
            all.len(),
            all.iter().map(|s| s.3).sum::<u32>()
        ),
    )
}

pub fn snapshot_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = r#"import re
best, title = -1, None
for line in FILE_CONTENT.splitlines():
    m = re.search(r'row "\d+\. upvote (.*?)" \[ref', line)
    if m: current = m.group(1)
    p = re.search(r'row "(\d+) points by', line)
    if p and int(p.group(1)) > best: best, title = int(p.group(1)), current
print(f"{best} {title}")"#;
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let top = stories(corpus)
        .into_iter()
        .fold(None::<(u32, String, u32, u32)>, |a, s| match a {
            Some(a) if s.2 <= a.2 => Some(a),
            _ => Some(s),
        });
    Check::exact(
        &reply,
        top.map(|s| format!("{} {}", s.2, s.1)).unwrap_or_default(),
    )
}

pub fn snapshot_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let all = stories(corpus);
    let intent = agent.print_with_intent(&corpus.project_path(), "Show HN posts");
    let label = source_label(&intent);
    let fifth = all
        .iter()
        .find(|s| s.0 == 5)
        .map(|s| s.1.clone())
        .unwrap_or_default();
    let site = fifth
        .rsplit('(')
        .next()
        .unwrap_or("")
        .trim_end_matches(')')
        .to_string();
    let search = agent.search(&site, label.as_deref());
    let show = all
        .iter()
        .filter(|s| s.1.starts_with("Show HN"))
        .map(|s| s.1.clone())
        .find(|t| intent.contains(t.as_str()));
    let needles: Vec<String> = show.into_iter().chain([fifth.clone()]).collect();
    let mut check = Check::contains_all(&[&intent, &search], &needles);
    check.correct &= needles.len() == 2 && search.contains(fifth.as_str());
    check.expected =
        format!("a Show HN title in the intent reply; \"{fifth}\" in the search reply");
    check
}

// ---- generated-app.log ------------------------------------------------------------------

pub fn app_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = r#"grep ' ERROR ' "$FILE_CONTENT_PATH" | grep -oE '[A-Za-z]+Error' | sort | uniq -c | awk '{print $2"="$1}'"#;
    let reply = agent.over_file(&corpus.project_path(), "shell", code);
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    for line in corpus.text.lines().filter(|l| l.contains(" ERROR ")) {
        for word in line.split(|c: char| !c.is_ascii_alphabetic()) {
            if word.ends_with("Error") && word.len() > 5 {
                *classes.entry(word.to_string()).or_default() += 1;
            }
        }
    }
    Check::exact(
        &reply,
        classes
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

pub fn app_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "use std::collections::BTreeSet;\nlet mut best = 0u64; let mut ids = BTreeSet::new();\nfor line in file_content.lines() {\n    let Some(pos) = line.find(\"latency=\") else { continue };\n    let ms: u64 = line[pos + 8..].trim_end_matches(\"ms\").parse().unwrap();\n    let id = line.split(' ').nth(3).unwrap().to_string();\n    if ms > best { best = ms; ids.clear(); }\n    if ms == best { ids.insert(id); }\n}\nprintln!(\"{best}ms {}\", ids.into_iter().collect::<Vec<_>>().join(\" \"));";
    let reply = agent.over_file(&corpus.project_path(), "rust", code);
    let mut best = 0u64;
    let mut ids: Vec<&str> = Vec::new();
    for line in corpus.text.lines() {
        let Some((_, latency)) = line.split_once("latency=") else {
            continue;
        };
        let ms: u64 = latency.trim_end_matches("ms").parse().unwrap_or(0);
        let id = line.split(' ').nth(3).unwrap_or("");
        if ms > best {
            best = ms;
            ids.clear();
        }
        if ms == best && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids.sort();
    Check::exact(&reply, format!("{best}ms {}", ids.join(" ")))
}

pub fn app_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let intent = agent.print_with_intent(&corpus.project_path(), "OutOfMemoryError heap crashes");
    let label = source_label(&intent);
    let search = agent.search("deadlock detected", label.as_deref());
    let request_of = |l: &str| l.split(' ').nth(3).unwrap_or("").to_string();
    let mut needles: Vec<String> = corpus
        .text
        .lines()
        .filter(|l| l.contains("OutOfMemoryError"))
        .map(request_of)
        .collect();
    needles.extend(
        corpus
            .text
            .lines()
            .filter(|l| l.contains("deadlock detected"))
            .map(request_of),
    );
    let mut check = Check::contains_all(&[&intent, &search], &needles);
    check.correct &= needles.len() == 4 && search.contains(needles[3].as_str());
    check.expected = format!(
        "the 3 OutOfMemoryError request ids in the intent reply, the deadlock one ({}) in the search reply",
        needles.last().cloned().unwrap_or_default()
    );
    check
}

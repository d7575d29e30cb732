//! Tasks over structured data: the analytics CSV, the issue list, the MCP tool list and
//! the generated order export.

use std::collections::BTreeMap;

use super::Check;
use crate::bench_savings::agent::Agent;
use crate::bench_savings::corpora::Corpus;
use crate::sandbox_support::source_label;

// ---- analytics.csv ----------------------------------------------------------------------

/// (id, duration, status) of each CSV row; the user agent (last column) holds commas.
fn analytics_rows(corpus: &Corpus) -> Vec<(u64, u64, String, String)> {
    corpus
        .text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.splitn(9, ',').collect();
            (
                f[0].parse().unwrap_or(0),
                f[5].parse().unwrap_or(0),
                f[6].to_string(),
                f[1].to_string(),
            )
        })
        .collect()
}

pub fn analytics_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "import csv, collections\nc = collections.Counter(r['status'] for r in csv.DictReader(open(FILE_PATH)))\nprint(' '.join(f'{k}={v}' for k, v in sorted(c.items())))";
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (_, _, status, _) in analytics_rows(corpus) {
        *counts.entry(status).or_default() += 1;
    }
    Check::exact(
        &reply,
        counts
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

pub fn analytics_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "const rows = FILE_CONTENT.trim().split('\\n').slice(1).map(l => l.split(','));\nconst ok = rows.filter(r => r[6] === 'success').sort((a, b) => b[5] - a[5] || a[0] - b[0]);\nconsole.log(ok.slice(0, 3).map(r => `${r[0]}:${r[5]}`).join(' '));";
    let reply = agent.over_file(&corpus.project_path(), "javascript", code);
    let mut ok: Vec<(u64, u64)> = analytics_rows(corpus)
        .into_iter()
        .filter(|r| r.2 == "success")
        .map(|r| (r.0, r.1))
        .collect();
    ok.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Check::exact(
        &reply,
        ok.iter()
            .take(3)
            .map(|(id, d)| format!("{id}:{d}"))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

pub fn analytics_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let rows = analytics_rows(corpus);
    let intent = agent.print_with_intent(&corpus.project_path(), "events that ended in timeout");
    let label = source_label(&intent);
    let target = &rows[rows.len() / 2];
    let search = agent.search(&target.3, label.as_deref());
    let timeout_line = corpus.text.lines().find(|l| {
        l.contains(",timeout,") && intent.contains(&l[..l.find(",timeout,").unwrap_or(0)])
    });
    let mut needles: Vec<String> = timeout_line
        .map(|l| l[..l.find(",timeout,").unwrap_or(0)].to_string())
        .into_iter()
        .collect();
    needles.push(format!("{},{}", target.0, target.3));
    let mut check = Check::contains_all(&[&intent, &search], &needles);
    check.correct &= needles.len() == 2 && search.contains(&needles[1]);
    check.expected = format!(
        "a timeout row in the intent reply; row {} in the search reply",
        target.0
    );
    check
}

// ---- github-issues.json -----------------------------------------------------------------

fn issues(corpus: &Corpus) -> Vec<serde_json::Value> {
    serde_json::from_str::<Vec<serde_json::Value>>(&corpus.text).unwrap_or_default()
}

pub fn issues_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "import json, collections\nc = collections.Counter(l['name'] for i in json.loads(FILE_CONTENT) for l in i['labels'])\nfor k, v in sorted(c.items()): print(f'{k}={v}')";
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let mut labels: BTreeMap<String, usize> = BTreeMap::new();
    for issue in issues(corpus) {
        for label in issue["labels"].as_array().into_iter().flatten() {
            *labels
                .entry(label["name"].as_str().unwrap_or("").to_string())
                .or_default() += 1;
        }
    }
    Check::exact(
        &reply,
        labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

pub fn issues_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "const issues = JSON.parse(FILE_CONTENT);\nconst top = issues.reduce((a, b) => (b.body.length > a.body.length ? b : a));\nconsole.log(`#${top.number} ${top.title}`);";
    let reply = agent.over_file(&corpus.project_path(), "javascript", code);
    let all = issues(corpus);
    // JavaScript's .length counts UTF-16 units; so does this.
    let utf16 = |i: &serde_json::Value| i["body"].as_str().unwrap_or("").encode_utf16().count();
    let top = all.iter().fold(None::<&serde_json::Value>, |a, b| match a {
        Some(a) if utf16(b) <= utf16(a) => Some(a),
        _ => Some(b),
    });
    let expected = top
        .map(|i| format!("#{} {}", i["number"], i["title"].as_str().unwrap_or("")))
        .unwrap_or_default();
    Check::exact(&reply, expected)
}

pub fn issues_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let intent = agent.print_with_intent(
        &corpus.project_path(),
        "DevTools bug: node missing from commit tree",
    );
    let label = source_label(&intent);
    let search = agent.search("useDeferredValue stale value", label.as_deref());
    let all = issues(corpus);
    // Titles as the file spells them (JSON-escaped): that is the text the replies quote.
    let title_of = |pred: &dyn Fn(&serde_json::Value) -> bool| -> Vec<String> {
        all.iter()
            .filter(|i| pred(i))
            .map(|i| json_spelling(&i["title"]))
            .collect()
    };
    let devtools = title_of(&|i| i["labels"].to_string().contains("Developer Tools"));
    let deferred = title_of(&|i| {
        i["title"]
            .as_str()
            .unwrap_or("")
            .contains("useDeferredValue")
    });
    let mut needles: Vec<String> = devtools
        .into_iter()
        .filter(|t| intent.contains(t.as_str()))
        .take(1)
        .collect();
    needles.extend(deferred.into_iter().take(1));
    let mut check = Check::contains_all(&[&intent, &search], &needles);
    check.correct &= needles.len() == 2 && search.contains(needles[1].as_str());
    check.expected = "a Developer Tools issue title in the intent reply; the useDeferredValue title in the search reply".into();
    check
}

/// A JSON string as the file spells it: escaped, without the enclosing quotes.
fn json_spelling(value: &serde_json::Value) -> String {
    let encoded = value.to_string();
    encoded
        .strip_prefix('"')
        .and_then(|e| e.strip_suffix('"'))
        .unwrap_or(&encoded)
        .to_string()
}

// ---- mcp-tools.json ---------------------------------------------------------------------

fn tools(corpus: &Corpus) -> Vec<serde_json::Value> {
    serde_json::from_str::<Vec<serde_json::Value>>(&corpus.text).unwrap_or_default()
}

pub fn tools_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "import json\nt = json.loads(FILE_CONTENT)\nprint(f\"tools={len(t)} required={sum(len(x['inputSchema'].get('required', [])) for x in t)}\")";
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let all = tools(corpus);
    let required: usize = all
        .iter()
        .map(|t| t["inputSchema"]["required"].as_array().map_or(0, Vec::len))
        .sum();
    Check::exact(&reply, format!("tools={} required={required}", all.len()))
}

pub fn tools_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "const t = JSON.parse(FILE_CONTENT);\nconst n = x => Object.keys(x.inputSchema.properties || {}).length;\nconst max = Math.max(...t.map(n));\nconsole.log(`${max}: ${t.filter(x => n(x) === max).map(x => x.name).sort().join(' ')}`);";
    let reply = agent.over_file(&corpus.project_path(), "javascript", code);
    let all = tools(corpus);
    let n = |t: &serde_json::Value| {
        t["inputSchema"]["properties"]
            .as_object()
            .map_or(0, |o| o.len())
    };
    let max = all.iter().map(n).max().unwrap_or(0);
    let mut names: Vec<&str> = all
        .iter()
        .filter(|t| n(t) == max)
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort();
    Check::exact(&reply, format!("{max}: {}", names.join(" ")))
}

pub fn tools_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let intent = agent.print_with_intent(&corpus.project_path(), "run database migrations");
    let label = source_label(&intent);
    let search = agent.search("docker compose services", label.as_deref());
    let all = tools(corpus);
    let named = |word: &str| -> Option<String> {
        all.iter()
            .filter_map(|t| t["name"].as_str())
            .find(|n| n.contains(word))
            .map(|n| format!("\"{n}\""))
    };
    let needles: Vec<String> = [named("migrate"), named("docker")]
        .into_iter()
        .flatten()
        .collect();
    let mut check = Check::contains_all(&[&intent, &search], &needles);
    check.correct &=
        needles.len() == 2 && intent.contains(&needles[0]) && search.contains(&needles[1]);
    check
}

// ---- generated-orders.json --------------------------------------------------------------

fn orders(corpus: &Corpus) -> Vec<serde_json::Value> {
    serde_json::from_str::<Vec<serde_json::Value>>(&corpus.text).unwrap_or_default()
}

pub fn orders_count(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "import json, collections\no = json.loads(FILE_CONTENT)\nc = collections.Counter(x['status'] for x in o)\npaid = sum(x['amount_cents'] for x in o if x['status'] == 'paid')\nprint(' '.join(f'{k}={v}' for k, v in sorted(c.items())), f'paid_cents={paid}')";
    let reply = agent.over_file(&corpus.project_path(), "python", code);
    let all = orders(corpus);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut paid = 0u64;
    for order in &all {
        let status = order["status"].as_str().unwrap_or("").to_string();
        if status == "paid" {
            paid += order["amount_cents"].as_u64().unwrap_or(0);
        }
        *counts.entry(status).or_default() += 1;
    }
    let listed: Vec<String> = counts.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Check::exact(&reply, format!("{} paid_cents={paid}", listed.join(" ")))
}

pub fn orders_find(agent: &mut Agent, corpus: &Corpus) -> Check {
    let code = "const totals = {};\nfor (const o of JSON.parse(FILE_CONTENT)) if (o.status === 'paid') totals[o.customer] = (totals[o.customer] || 0) + o.amount_cents;\nconst [who, cents] = Object.entries(totals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];\nconsole.log(`${who} ${cents}`);";
    let reply = agent.over_file(&corpus.project_path(), "javascript", code);
    let mut totals: BTreeMap<String, u64> = BTreeMap::new();
    for order in orders(corpus).iter().filter(|o| o["status"] == "paid") {
        *totals
            .entry(order["customer"].as_str().unwrap_or("").to_string())
            .or_default() += order["amount_cents"].as_u64().unwrap_or(0);
    }
    let mut ranked: Vec<(String, u64)> = totals.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Check::exact(
        &reply,
        ranked
            .first()
            .map(|(c, t)| format!("{c} {t}"))
            .unwrap_or_default(),
    )
}

pub fn orders_intent(agent: &mut Agent, corpus: &Corpus) -> Check {
    let all = orders(corpus);
    let intent = agent.print_with_intent(&corpus.project_path(), "chargeback disputed orders");
    let label = source_label(&intent);
    let target = &all[all.len() * 2 / 3];
    let target_id = target["id"].as_str().unwrap_or("").to_string();
    let search = agent.search(&target_id, label.as_deref());
    let chargeback = all
        .iter()
        .filter(|o| o["status"] == "chargeback")
        .filter_map(|o| o["id"].as_str())
        .find(|id| intent.contains(id))
        .map(str::to_string);
    let customer = target["customer"].as_str().unwrap_or("").to_string();
    let needles: Vec<String> = chargeback.into_iter().chain([customer.clone()]).collect();
    let mut check = Check::contains_all(&[&intent, &search], &needles);
    check.correct &=
        needles.len() == 2 && search.contains(&target_id) && search.contains(&customer);
    check.expected = format!(
        "a chargeback order id in the intent reply; {target_id} with {customer} in the search reply"
    );
    check
}

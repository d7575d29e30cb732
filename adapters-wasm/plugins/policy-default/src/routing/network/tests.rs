use super::*;
use crate::shell::split;

fn prints(line: &str) -> bool {
    split(line)
        .iter()
        .any(|c| c.origin == crate::shell::Origin::Direct && printing_fetch(c).is_some())
}

#[test]
fn curl_that_prints_a_body_is_caught() {
    for line in [
        "curl https://api.github.com/repos/x/y",
        "curl -s https://x.dev/data.json",
        "curl -sSL https://x.dev | jq .",
        "curl -o - https://x.dev",
        "curl -H 'Accept: application/json' -X GET https://x.dev",
        "sudo curl https://x.dev",
        "cd /tmp && curl -L https://x.dev",
        "curl -o out.html https://x.dev",
        "/usr/bin/curl --url https://x.dev",
        "bash -c 'curl https://x.dev'",
    ] {
        assert!(prints(line), "{line}");
    }
}

#[test]
fn silent_downloads_and_probes_pass() {
    for line in [
        "curl -s -o page.html https://x.dev",
        "curl -sSLo page.html https://x.dev",
        "curl -sSL --output page.html https://x.dev",
        "curl --silent --output=page.html https://x.dev",
        "curl -sO https://x.dev/file.tgz",
        "curl -s https://x.dev > page.html",
        "curl -s -o /dev/null -w '%{http_code}' https://x.dev",
        "curl -I https://x.dev",
        "curl --version",
        "curl -h",
        "curl -fsSL https://get.x.dev | sh",
        "which curl",
        "type curl",
        "command -v curl",
        "man curl",
        "echo curl https://x.dev",
        "gh issue edit 1 --body \"try curl https://x.dev\"",
        "cat <<EOF\ncurl https://x.dev\nEOF",
        "TOKEN=$(curl -s https://auth.x.dev/token)",
        "curl",
    ] {
        assert!(!prints(line), "{line}");
    }
}

#[test]
fn wget_cases() {
    assert!(prints("wget https://x.dev/file.tgz"));
    assert!(prints("wget -qO- https://x.dev"));
    assert!(prints("wget -q -O - https://x.dev"));
    assert!(prints("wget --output-document=- --quiet https://x.dev"));
    assert!(!prints("wget -q https://x.dev/file.tgz"));
    assert!(!prints("wget -q -O file.tgz https://x.dev/file.tgz"));
    assert!(!prints("wget -nv -O file.tgz https://x.dev/file.tgz"));
    assert!(!prints(
        "wget -O file.tgz -o wget.log https://x.dev/file.tgz"
    ));
    assert!(!prints("wget -qO- https://x.dev/a.tgz | tar xz"));
    assert!(!prints("wget -O f https://x.dev 2>/dev/null"));
    assert!(!prints("wget --version"));
    assert!(!prints("wget --spider https://x.dev"));
}

#[test]
fn the_url_is_reported() {
    let cmd = &split("curl -H 'X: y' -s https://x.dev/a?b=1")[0];
    assert_eq!(
        printing_fetch(cmd),
        Some(PrintingFetch {
            program: "curl",
            url: Some("https://x.dev/a?b=1".into())
        })
    );
}

#[test]
fn inline_http_in_interpreter_code() {
    let hits = |line: &str| split(line).iter().any(inline_http);
    assert!(hits(
        "python3 -c \"import requests; print(requests.get('https://x.dev').text)\""
    ));
    assert!(hits(
        "python -c 'import urllib.request as u; print(u.urlopen(\"https://x.dev\").read())'"
    ));
    assert!(hits(
        "node -e \"fetch('https://x.dev').then(r => r.text()).then(console.log)\""
    ));
    assert!(hits(
        "node -e \"require('https').get('https://x.dev', r => r.pipe(process.stdout))\""
    ));
    assert!(hits(
        "ruby -e 'require \"net/http\"; puts Net::HTTP.get(URI(\"https://x.dev\"))'"
    ));
    assert!(hits(
        "python3 - <<'PY'\nimport httpx\nprint(httpx.get('https://x.dev').text)\nPY"
    ));
    assert!(!hits("python3 -c 'print(1 + 1)'"));
    assert!(!hits("python3 fetch_data.py"));
    assert!(!hits("echo \"requests.get(x)\""));
    assert!(!hits("git commit -m 'use fetch( in client'"));
}

//! HTML to markdown before chunking: scripts, styles, navigation and other page chrome
//! are dropped; headings, lists, code and tables are kept.

/// Elements whose whole subtree carries no readable content.
const DROPPED_TAGS: &[&str] = &[
    "script", "style", "nav", "noscript", "template", "svg", "iframe", "canvas", "button", "form",
    "select", "object", "embed",
];

/// Markdown for an HTML page. When the parser fails, the text with tags stripped.
pub(super) fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(DROPPED_TAGS.to_vec())
        .options(htmd::options::Options {
            heading_style: htmd::options::HeadingStyle::Atx,
            code_block_style: htmd::options::CodeBlockStyle::Fenced,
            ..Default::default()
        })
        .build();
    match converter.convert(html) {
        Ok(markdown) => markdown,
        Err(err) => {
            tracing::debug!("html conversion failed, stripping tags: {err}");
            strip_tags(html)
        }
    }
}

fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(ch),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{Format, chunk_text};

    const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Docs</title>
<style>.x { color: red }</style><script>var tracking = "SECRET_SCRIPT";</script></head>
<body><nav><a href="/">Home</a> <a href="/menu">NavMenuEntry</a></nav>
<h1>Deploy guide</h1><p>Run the <code>deploy</code> command.</p>
<h2>Limits</h2>
<table><thead><tr><th>Plan</th><th>Requests</th></tr></thead>
<tbody><tr><td>Free</td><td>1000</td></tr><tr><td>Pro</td><td>50000</td></tr></tbody></table>
<pre><code class="language-sh">cm deploy --prod
</code></pre>
</body></html>"#;

    #[test]
    fn drops_chrome_keeps_headings_tables_and_code() {
        let md = html_to_markdown(PAGE);
        assert!(
            !md.contains("SECRET_SCRIPT") && !md.contains("color: red"),
            "{md}"
        );
        assert!(!md.contains("NavMenuEntry"), "{md}");
        assert!(md.contains("# Deploy guide"), "{md}");
        assert!(md.contains("| Pro") && md.contains("50000"), "{md}");
        assert!(md.contains("```"), "{md}");
        let chunks = chunk_text(PAGE, Format::Html);
        assert!(
            chunks
                .iter()
                .any(|c| c.title == "Deploy guide > Limits" && c.content.contains("Free"))
        );
    }
}

//! The optional cost line of the stats: tokens kept out × the model's input price.
//!
//! A small dated table of list prices per million input tokens (the context a kept-out
//! byte would have filled is input on every later request; one request's price is
//! shown, so the figure is a floor, not a bill). The user overrides it: entries in
//! `<data dir>/prices.json` (`{"model-prefix": usd_per_million_input_tokens}`) are
//! added over the table, `CONTEXT_MODE_MODEL` names the model when the agent tells us
//! none, and `CONTEXT_MODE_INPUT_PRICE_PER_MTOK` sets the price whatever the model.
//! No price known, no line.

use std::path::Path;

use serde::Serialize;

/// The day the table's prices were read.
pub const PRICES_AS_OF: &str = "2026-12-01";

/// Model id prefix → USD per million input tokens; the longest matching prefix wins.
/// Sources, read on [`PRICES_AS_OF`] from stored copies of the pages:
/// Anthropic rows: docs.anthropic.com/en/docs/about-claude/pricing (Opus 4.1/4, Sonnet
/// 4/3.7, Haiku 3.5/3) and deploybase.ai/articles/claude-api-pricing (Opus 4.6/4.5,
/// Sonnet 4.5/4.6, Haiku 4.5); Google rows: ai.google.dev/gemini-api/docs/pricing as
/// quoted by deploybase.ai/articles/gemini-2.5-pricing (Pro at the ≤200K-token rate);
/// OpenAI rows: openai.com/api/pricing list prices, not re-read here.
pub const INPUT_PRICES_PER_MTOK: &[(&str, f64)] = &[
    ("claude-opus-4-6", 5.00),
    ("claude-opus-4-5", 5.00),
    ("claude-opus-4-1", 15.00),
    ("claude-opus-4", 15.00),
    ("claude-sonnet-4", 3.00),
    ("claude-3-7-sonnet", 3.00),
    ("claude-haiku-4-5", 1.00),
    ("claude-3-5-haiku", 0.80),
    ("claude-3-haiku", 0.25),
    ("gemini-2.5-pro", 1.25),
    ("gemini-2.5-flash", 0.30),
    ("gemini-2.5-flash-lite", 0.10),
    ("gpt-5", 1.25),
    ("gpt-5-mini", 0.25),
    ("gpt-5-nano", 0.05),
];

/// The file under the data dir whose entries are added over the table.
pub const PRICES_FILE_NAME: &str = "prices.json";
use crate::env::{INPUT_PRICE_PER_MTOK as PRICE_ENV, MODEL as MODEL_ENV};

/// What the cost line says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cost {
    /// The model priced, when one is known (a price set by variable needs none).
    pub model: Option<String>,
    pub usd_per_mtok: f64,
    pub saved_usd: f64,
    /// Where the price came from: the table (with its date), the prices file, the variable.
    pub price_source: String,
}

/// The price of `model` and where it came from: the variable, else the prices file,
/// else the table.
pub fn price_of(root: &Path, model: Option<&str>) -> Option<(f64, String)> {
    if let Some(price) = std::env::var(PRICE_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|p| p.is_finite() && *p >= 0.0)
    {
        return Some((price, PRICE_ENV.to_string()));
    }
    let model = normalized(model?);
    if let Some(price) = user_prices(root)
        .into_iter()
        .filter(|(prefix, _)| model.starts_with(&normalized(prefix)))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, price)| price)
    {
        return Some((price, root.join(PRICES_FILE_NAME).display().to_string()));
    }
    INPUT_PRICES_PER_MTOK
        .iter()
        .filter(|(prefix, _)| model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, price)| (*price, format!("list price of {PRICES_AS_OF}")))
}

/// The cost line's figures for `kept_out_tokens`, or `None` when no price is known.
pub fn cost(root: &Path, model: Option<&str>, kept_out_tokens: u64) -> Option<Cost> {
    let model = model
        .map(str::to_string)
        .or_else(|| std::env::var(MODEL_ENV).ok())
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty());
    let (usd_per_mtok, price_source) = price_of(root, model.as_deref())?;
    Some(Cost {
        model,
        usd_per_mtok,
        saved_usd: kept_out_tokens as f64 * usd_per_mtok / 1_000_000.0,
        price_source,
    })
}

/// `anthropic/claude-sonnet-4-5[1m]` → `claude-sonnet-4-5`: a vendor prefix and a
/// context-size suffix name the same price.
fn normalized(model: &str) -> String {
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model).to_string();
    match model.find('[') {
        Some(at) => model[..at].to_string(),
        None => model,
    }
}

/// The entries of the prices file; a missing or malformed file adds none.
fn user_prices(root: &Path) -> Vec<(String, f64)> {
    let Ok(text) = std::fs::read_to_string(root.join(PRICES_FILE_NAME)) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(entries)) = serde_json::from_str(&text) else {
        tracing::warn!("{PRICES_FILE_NAME} is not a JSON object of model → price; ignored");
        return Vec::new();
    };
    entries
        .into_iter()
        .filter_map(|(model, price)| Some((model, price.as_f64()?)))
        .filter(|(_, price)| price.is_finite() && *price >= 0.0)
        .collect()
}

/// `≈ $0.42 saved (claude-sonnet-4-5 input at $3.00 per million tokens, list price of …)`.
pub fn line(cost: &Cost) -> String {
    let money = if cost.saved_usd >= 0.01 || cost.saved_usd == 0.0 {
        format!("{:.2}", cost.saved_usd)
    } else {
        format!("{:.4}", cost.saved_usd)
    };
    let model = cost
        .model
        .as_deref()
        .map_or_else(String::new, |m| format!("{m} "));
    format!(
        "≈ ${money} saved ({model}input at ${:.2} per million tokens, {})",
        cost.usd_per_mtok, cost.price_source
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_prices_a_model() {
        let root = tempfile::tempdir().expect("root");
        let price = |m: &str| price_of(root.path(), Some(m)).map(|(p, _)| p);
        assert_eq!(price("claude-sonnet-4-5-20250929"), Some(3.00));
        assert_eq!(price("claude-opus-4-6"), Some(5.00));
        assert_eq!(price("claude-opus-4-20250514"), Some(15.00));
        assert_eq!(price("gemini-2.5-flash-lite"), Some(0.10));
        assert_eq!(price("anthropic/claude-haiku-4-5[1m]"), Some(1.00));
        assert_eq!(price("my-local-llama"), None);
        assert_eq!(price_of(root.path(), None), None);
    }

    #[test]
    fn the_prices_file_adds_and_replaces_entries() {
        let root = tempfile::tempdir().expect("root");
        std::fs::write(
            root.path().join(PRICES_FILE_NAME),
            r#"{"my-local-llama": 0.5, "claude-sonnet-4": 2.5}"#,
        )
        .expect("write");
        let price = |m: &str| price_of(root.path(), Some(m)).map(|(p, _)| p);
        assert_eq!(price("my-local-llama-3"), Some(0.5));
        assert_eq!(price("claude-sonnet-4-5"), Some(2.5));
        assert_eq!(price("claude-opus-4-6"), Some(5.00));
    }

    #[test]
    fn the_line_says_how_much_and_by_what_price() {
        let cost = Cost {
            model: Some("claude-sonnet-4-5".into()),
            usd_per_mtok: 3.0,
            saved_usd: 1_250_000.0 * 3.0 / 1_000_000.0,
            price_source: format!("list price of {PRICES_AS_OF}"),
        };
        assert_eq!(
            line(&cost),
            format!(
                "≈ $3.75 saved (claude-sonnet-4-5 input at $3.00 per million tokens, list price of {PRICES_AS_OF})"
            )
        );
    }
}

//! The search flood guard: an agent firing one `ctx_search` after another is pulling
//! its context back in piece by piece. Per session, in a sliding window: the first
//! calls are answered normally, the next ones with one result per query, and beyond
//! that the agent is pointed to `ctx_batch_execute` (which is not throttled).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::limits::{FLOOD_NORMAL_CALLS, FLOOD_REDUCED_CALLS, FLOOD_WINDOW_MS};

use crate::env::{
    FLOOD_NORMAL_ALIAS, FLOOD_REDUCED_ALIAS, FLOOD_WINDOW_MS_ALIAS, SEARCH_BLOCK_AFTER,
    SEARCH_MAX_RESULTS_AFTER, SEARCH_WINDOW_MS,
};

/// Overrides the window length (milliseconds).
pub const FLOOD_WINDOW_ENV: &str = SEARCH_WINDOW_MS;
/// Overrides how many calls per window are answered normally.
pub const FLOOD_NORMAL_ENV: &str = SEARCH_MAX_RESULTS_AFTER;
/// Overrides up to which call per window answers are reduced (beyond it: redirect).
pub const FLOOD_REDUCED_ENV: &str = SEARCH_BLOCK_AFTER;

/// How to answer a search call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloodLevel {
    Normal,
    /// One result per query; `call` is this call's number in the window.
    Reduced {
        call: u32,
    },
    /// No search; point to `ctx_batch_execute`.
    Redirect {
        call: u32,
    },
}

/// Per-session call counts in a sliding window. Shared by all requests of a server.
#[derive(Debug)]
pub struct FloodGuard {
    window: Duration,
    normal: u32,
    reduced: u32,
    calls: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl FloodGuard {
    pub fn new(window: Duration, normal: u32, reduced: u32) -> Self {
        FloodGuard {
            window,
            normal,
            reduced: reduced.max(normal),
            calls: Mutex::new(HashMap::new()),
        }
    }

    /// The limits from `limits.rs`, overridden by the environment where set to a valid
    /// number (an invalid value is logged and ignored).
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        // The upstream name first, then cm's earlier one.
        let number = |name: &str, alias: &str| {
            let named = lookup(name).map(|v| (name, v));
            named
                .or_else(|| lookup(alias).map(|v| (alias, v)))
                .and_then(|(which, value)| parse_number(which, &value))
        };
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let window = number(FLOOD_WINDOW_ENV, FLOOD_WINDOW_MS_ALIAS).unwrap_or(FLOOD_WINDOW_MS);
        let normal = number(FLOOD_NORMAL_ENV, FLOOD_NORMAL_ALIAS).map_or(FLOOD_NORMAL_CALLS, count);
        let reduced =
            number(FLOOD_REDUCED_ENV, FLOOD_REDUCED_ALIAS).map_or(FLOOD_REDUCED_CALLS, count);
        Self::new(Duration::from_millis(window), normal, reduced)
    }

    pub fn window(&self) -> Duration {
        self.window
    }

    /// Counts one call of `session_id` and says how to answer it.
    pub fn register(&self, session_id: &str) -> FloodLevel {
        self.register_at(session_id, Instant::now())
    }

    fn register_at(&self, session_id: &str, now: Instant) -> FloodLevel {
        let mut calls = match self.calls.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let window = self.window;
        calls.retain(|_, times| {
            times
                .back()
                .is_some_and(|&t| now.saturating_duration_since(t) < window)
        });
        let times = calls.entry(session_id.to_string()).or_default();
        while times
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) >= window)
        {
            times.pop_front();
        }
        times.push_back(now);
        let call = u32::try_from(times.len()).unwrap_or(u32::MAX);
        if call <= self.normal {
            FloodLevel::Normal
        } else if call <= self.reduced {
            FloodLevel::Reduced { call }
        } else {
            FloodLevel::Redirect { call }
        }
    }
}

fn parse_number(name: &str, value: &str) -> Option<u64> {
    match value.trim().parse::<u64>() {
        Ok(n) => Some(n),
        Err(_) => {
            tracing::warn!("ignoring {name}={value:?}: not a non-negative integer");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_overrides_valid_numbers_only() {
        let env = |name: &str| match name {
            FLOOD_WINDOW_ENV => Some("500".to_string()),
            FLOOD_NORMAL_ENV => Some(" 1 ".to_string()),
            FLOOD_REDUCED_ENV => Some("lots".to_string()),
            _ => None,
        };
        let guard = FloodGuard::from_lookup(env);
        assert_eq!(
            (guard.window, guard.normal, guard.reduced),
            (Duration::from_millis(500), 1, FLOOD_REDUCED_CALLS)
        );
        let defaults = FloodGuard::from_lookup(|_| None);
        assert_eq!(
            (defaults.window, defaults.normal, defaults.reduced),
            (
                Duration::from_millis(FLOOD_WINDOW_MS),
                FLOOD_NORMAL_CALLS,
                FLOOD_REDUCED_CALLS
            )
        );
    }

    #[test]
    fn levels_follow_the_call_count_and_the_window_slides() {
        let guard = FloodGuard::new(Duration::from_millis(60_000), 3, 8);
        let start = Instant::now();
        let levels: Vec<FloodLevel> = (0..10)
            .map(|i| guard.register_at("s", start + Duration::from_millis(i)))
            .collect();
        assert_eq!(&levels[..3], &[FloodLevel::Normal; 3]);
        assert_eq!(levels[3], FloodLevel::Reduced { call: 4 });
        assert_eq!(levels[7], FloodLevel::Reduced { call: 8 });
        assert_eq!(levels[8], FloodLevel::Redirect { call: 9 });
        // Another session is counted on its own.
        assert_eq!(guard.register_at("other", start), FloodLevel::Normal);
        // Once the window has passed, calls are normal again.
        let later = start + Duration::from_millis(60_010);
        assert_eq!(guard.register_at("s", later), FloodLevel::Normal);
    }
}

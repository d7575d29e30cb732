//! `ctx_batch_execute`: several shell commands, 1–8 at a time, under one shared
//! time budget. Commands that would start after the budget ran out are skipped;
//! a running one is killed when it runs out. Each command's stderr is merged into
//! its stdout, in the order written, as a terminal would show it.

use std::borrow::Cow;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value;

use super::error::SandboxError;
use super::execute::{ExecOutcome, ExecRequest, Sandbox, effective_timeout, resolve_cwd};
use crate::limits;

/// The most characters of a command used as its label when none is given.
const DEFAULT_LABEL_MAX_CHARS: usize = 80;

/// One command: `{label, command}`, or a bare string (its label is its first line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchCommand {
    pub label: String,
    pub command: String,
}

/// How the batch runs.
#[derive(Debug, Clone)]
pub struct BatchOptions<'a> {
    pub project_dir: &'a Path,
    pub cwd: Option<&'a str>,
    /// The shared budget; `None` or 0 = `EXEC_TIMEOUT_MS` (also the maximum).
    pub timeout_ms: Option<u64>,
    /// Clamped to 1..=`BATCH_MAX_CONCURRENCY`; `None` = `BATCH_DEFAULT_CONCURRENCY`.
    pub concurrency: Option<u64>,
}

/// What happened to one command.
#[derive(Debug, Clone)]
pub enum CommandStatus {
    Ran(ExecOutcome),
    /// The budget had run out before it could start.
    Skipped,
    /// It could not be started (one line).
    NotStarted(String),
}

/// One command's result, in the order the commands were given.
#[derive(Debug, Clone)]
pub struct BatchCommandResult {
    pub label: String,
    pub command: String,
    pub status: CommandStatus,
}

impl BatchCommand {
    pub fn new(label: Option<&str>, command: &str) -> BatchCommand {
        let label = label
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| default_label(command));
        BatchCommand {
            label: label.replace(['\n', '\r'], " "),
            command: command.to_string(),
        }
    }
}

fn default_label(command: &str) -> String {
    let first = command
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("command");
    match first.char_indices().nth(DEFAULT_LABEL_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &first[..cut]),
        None => first.to_string(),
    }
}

impl<'de> Deserialize<'de> for BatchCommand {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(command) => Ok(BatchCommand::new(None, &command)),
            Value::Object(map) => {
                let command = map
                    .get("command")
                    .and_then(Value::as_str)
                    .ok_or_else(|| D::Error::custom("each command needs a `command` string"))?;
                let label = map.get("label").and_then(Value::as_str);
                Ok(BatchCommand::new(label, command))
            }
            other => Err(D::Error::custom(format!(
                "a command is a string or {{label, command}}, got {other}"
            ))),
        }
    }
}

impl JsonSchema for BatchCommand {
    fn schema_name() -> Cow<'static, str> {
        "BatchCommand".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "label": { "type": "string", "description": "Section title of this command's output" },
                        "command": { "type": "string", "description": "Shell command line" }
                    },
                    "required": ["command"]
                },
                { "type": "string", "description": "A command line alone; its first line is its label" }
            ]
        })
    }
}

impl Sandbox {
    /// Runs `commands` with the shell runtime. `Err` only when nothing can run
    /// (no shell, bad cwd); per-command failures are in the results.
    pub async fn execute_batch(
        &self,
        commands: &[BatchCommand],
        options: BatchOptions<'_>,
    ) -> Result<Vec<BatchCommandResult>, SandboxError> {
        self.runtimes().resolve("shell")?;
        resolve_cwd(options.project_dir, options.cwd)?;
        let deadline = Instant::now() + effective_timeout(options.timeout_ms);
        let workers = options
            .concurrency
            .map_or(limits::BATCH_DEFAULT_CONCURRENCY, |c| {
                usize::try_from(c).unwrap_or(usize::MAX)
            })
            .clamp(1, limits::BATCH_MAX_CONCURRENCY)
            .min(commands.len().max(1));

        let next = AtomicUsize::new(0);
        let statuses: Mutex<Vec<Option<CommandStatus>>> = Mutex::new(vec![None; commands.len()]);
        let worker = || async {
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(command) = commands.get(index) else {
                    break;
                };
                let status = self.run_one(command, &options, deadline).await;
                if let Some(slot) = lock(&statuses).get_mut(index) {
                    *slot = Some(status);
                }
            }
        };
        join_all(
            (0..workers)
                .map(|_| Box::pin(worker()) as Pin<Box<dyn Future<Output = ()> + Send + '_>>),
        )
        .await;

        let statuses = statuses
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(commands
            .iter()
            .zip(statuses)
            .map(|(command, status)| BatchCommandResult {
                label: command.label.clone(),
                command: command.command.clone(),
                status: status.unwrap_or(CommandStatus::Skipped),
            })
            .collect())
    }

    async fn run_one(
        &self,
        command: &BatchCommand,
        options: &BatchOptions<'_>,
        deadline: Instant,
    ) -> CommandStatus {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining < Duration::from_millis(1) {
            return CommandStatus::Skipped;
        }
        let script = format!("exec 2>&1\n{}\n", command.command);
        let request = ExecRequest {
            language: "shell",
            code: &script,
            project_dir: options.project_dir,
            cwd: options.cwd,
            timeout_ms: Some(
                u64::try_from(remaining.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
            ),
            background: false,
            file: None,
        };
        match self.execute(request).await {
            Ok(outcome) => CommandStatus::Ran(outcome),
            Err(e) => CommandStatus::NotStarted(e.to_string()),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Polls every future until all are done (a minimal `join_all`).
async fn join_all<'a>(
    futures: impl Iterator<Item = Pin<Box<dyn Future<Output = ()> + Send + 'a>>>,
) {
    let mut pending: Vec<_> = futures.map(Some).collect();
    std::future::poll_fn(|cx| {
        let mut all_done = true;
        for slot in pending.iter_mut() {
            if let Some(future) = slot {
                if future.as_mut().poll(cx).is_ready() {
                    *slot = None;
                } else {
                    all_done = false;
                }
            }
        }
        if all_done {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

/// The combined output as markdown, one `## <label>` section per command, for
/// indexing. Status lines follow the output when a command did not simply succeed.
pub fn render_markdown(results: &[BatchCommandResult]) -> String {
    let mut out = String::new();
    for result in results {
        out.push_str("## ");
        out.push_str(&result.label);
        out.push_str("\n\n");
        match &result.status {
            CommandStatus::Ran(outcome) => {
                let text = outcome.stdout.trim_end_matches('\n');
                out.push_str(if text.trim().is_empty() {
                    "(no output)"
                } else {
                    text
                });
                out.push('\n');
                if outcome.timed_out {
                    out.push_str(&format!(
                        "[timed out after {} ms: the batch's time budget ran out]\n",
                        outcome.duration.as_millis()
                    ));
                } else if let Some(signal) = outcome.signal {
                    out.push_str(&format!("[killed by signal {signal}]\n"));
                } else if let Some(code) = outcome.exit_code.filter(|c| *c != 0) {
                    out.push_str(&format!("[exit code {code}]\n"));
                }
            }
            CommandStatus::Skipped => {
                out.push_str("[skipped: the batch's time budget ran out before it started]\n")
            }
            CommandStatus::NotStarted(reason) => out.push_str(&format!("[not run: {reason}]\n")),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_deserialize_from_objects_and_strings() {
        #[derive(Deserialize)]
        struct Probe {
            #[serde(deserialize_with = "crate::lenient::item_list")]
            commands: Vec<BatchCommand>,
        }
        let json = r#"{"commands":[{"label":"Log","command":"git log"},"ls -la\nwc -l x",{"command":"pwd"}]}"#;
        let probe: Probe = serde_json::from_str(json).expect("parse");
        assert_eq!(
            probe.commands,
            vec![
                BatchCommand {
                    label: "Log".into(),
                    command: "git log".into()
                },
                BatchCommand {
                    label: "ls -la".into(),
                    command: "ls -la\nwc -l x".into()
                },
                BatchCommand {
                    label: "pwd".into(),
                    command: "pwd".into()
                },
            ]
        );
        let text: Probe = serde_json::from_str(r#"{"commands":"[\"echo a\"]"}"#).expect("text");
        assert_eq!(text.commands[0].command, "echo a");
        let bad = serde_json::from_str::<Probe>(r#"{"commands":[{"label":"x"}]}"#);
        assert!(
            bad.err()
                .is_some_and(|e| e.to_string().contains("needs a `command` string"))
        );
    }

    #[test]
    fn long_first_lines_make_short_labels() {
        let label = BatchCommand::new(None, &"x".repeat(200)).label;
        assert_eq!(label.chars().count(), DEFAULT_LABEL_MAX_CHARS + 1);
        assert_eq!(BatchCommand::new(Some("a\nb"), "c").label, "a b");
    }

    #[test]
    fn markdown_has_one_section_per_command() {
        let ran = |stdout: &str, code: i32| {
            CommandStatus::Ran(ExecOutcome {
                stdout: stdout.into(),
                exit_code: Some(code),
                ..Default::default()
            })
        };
        let results = vec![
            BatchCommandResult {
                label: "one".into(),
                command: "a".into(),
                status: ran("alpha\n", 0),
            },
            BatchCommandResult {
                label: "two".into(),
                command: "b".into(),
                status: ran("", 3),
            },
            BatchCommandResult {
                label: "three".into(),
                command: "c".into(),
                status: CommandStatus::Skipped,
            },
        ];
        assert_eq!(
            render_markdown(&results),
            "## one\n\nalpha\n\n## two\n\n(no output)\n[exit code 3]\n\n## three\n\n\
             [skipped: the batch's time budget ran out before it started]\n\n"
        );
    }
}

//! Task lists (TodoWrite-style whole lists, TaskCreate/TaskUpdate-style single tasks),
//! plans (ExitPlanMode) and skills: tools of kind "other", known by their names.

use serde_json::Value;

use super::Category;
use super::extract::{Extracted, NewEntry};
use super::redact::redact;
use super::text::{clean, clip, cut, one_line, with_fields};
use super::tool::input_str;
use super::view::TaskStatus;
use crate::human::first_line;
use crate::limits::{JOURNAL_DATA_MAX_BYTES, JOURNAL_SUMMARY_MAX_BYTES};
use crate::model::ToolCall;

/// Task lists, plans and skills: tools of kind "other", known by name.
pub fn other_tool(tool: &ToolCall, input: &Value, output: &str, out: &mut Extracted) {
    let name = tool.name.to_ascii_lowercase().replace(['-', ' '], "_");
    match name.as_str() {
        "todowrite" | "todo_write" | "write_todos" | "update_plan" | "manage_todo_list"
        | "todo" | "todos" => {
            if let Some(list) = task_list(input) {
                let open: Vec<&(TaskStatus, String)> = list
                    .iter()
                    .filter(|(s, _)| *s != TaskStatus::Done)
                    .collect();
                let next = open
                    .iter()
                    .find(|(s, _)| *s == TaskStatus::InProgress)
                    .or(open.first())
                    .map(|(_, t)| format!(": next {t}"))
                    .unwrap_or_default();
                let body: Vec<String> = list
                    .iter()
                    .map(|(s, t)| format!("{} {t}", s.mark()))
                    .collect();
                out.push(
                    NewEntry::new(
                        Category::Task,
                        clip(
                            &format!("tasks: {} open of {}{next}", open.len(), list.len()),
                            JOURNAL_SUMMARY_MAX_BYTES,
                        ),
                    )
                    .data(with_fields(
                        &[("slot", "list".into())],
                        cut(&body.join("\n"), JOURNAL_DATA_MAX_BYTES - 64),
                    ))
                    .refresh(),
                );
            } else if let Some(plan) = input_str(input, &["plan"]) {
                plan_row(plan, out);
            }
        }
        "taskcreate" | "task_create" | "create_task" => {
            let subject =
                input_str(input, &["subject", "title", "content", "description"]).unwrap_or("");
            let subject = clip(&one_line(&redact(subject)), 200);
            let id = task_id_in(output)
                .or_else(|| input_str(input, &["id", "taskId", "task_id"]).map(str::to_string))
                .unwrap_or_else(|| subject.clone());
            out.push(
                NewEntry::new(
                    Category::Task,
                    clip(
                        &format!("task #{id} created: {subject}"),
                        JOURNAL_SUMMARY_MAX_BYTES,
                    ),
                )
                .data(with_fields(
                    &[("task", id), ("status", "pending".into())],
                    &subject,
                )),
            );
        }
        "taskupdate" | "task_update" | "update_task" => {
            let Some(id) = input_str(input, &["taskId", "task_id", "id"]) else {
                return;
            };
            let status = input_str(input, &["status", "state"])
                .map_or(TaskStatus::Pending, TaskStatus::parse);
            let subject = input_str(input, &["subject", "title"])
                .map(|s| clip(&one_line(&redact(s)), 200))
                .unwrap_or_default();
            out.push(
                NewEntry::new(Category::Task, format!("task #{id}: {}", status.as_str())).data(
                    with_fields(
                        &[("task", id.to_string()), ("status", status.as_str().into())],
                        &subject,
                    ),
                ),
            );
        }
        "exitplanmode" | "exit_plan_mode" => {
            if let Some(plan) = input_str(input, &["plan"]) {
                plan_row(plan, out);
            }
        }
        "skill" => {
            if let Some(skill) = input_str(input, &["skill", "name", "command"]) {
                out.push(NewEntry::new(
                    Category::Skill,
                    format!("skill {}", clip(&one_line(skill), 120)),
                ));
            }
        }
        "slashcommand" | "slash_command" => {
            if let Some(command) = input_str(input, &["command"]) {
                let word = command.split_whitespace().next().unwrap_or(command);
                out.push(NewEntry::new(
                    Category::Skill,
                    format!("slash command {}", clip(word, 120)),
                ));
            }
        }
        _ => {}
    }
}

fn plan_row(plan: &str, out: &mut Extracted) {
    let plan = clean(&redact(plan));
    out.push(
        NewEntry::new(
            Category::Plan,
            clip(
                &format!("plan: {}", one_line(first_line(&plan))),
                JOURNAL_SUMMARY_MAX_BYTES,
            ),
        )
        .data(with_fields(
            &[("slot", "plan".into())],
            cut(&plan, JOURNAL_DATA_MAX_BYTES - 64),
        )),
    );
}

/// `#12` in "Task #12 created successfully".
fn task_id_in(output: &str) -> Option<String> {
    let at = output.find('#')?;
    let digits: String = output[at + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then_some(digits)
}

/// A whole task list in a tool input: `todos`, `plan`, `tasks` or `items`, each item a
/// string or an object with a text and a status.
fn task_list(input: &Value) -> Option<Vec<(TaskStatus, String)>> {
    let items = ["todos", "plan", "tasks", "items", "todoList", "todo_list"]
        .iter()
        .find_map(|k| input.get(k).and_then(Value::as_array))?;
    Some(
        items
            .iter()
            .filter_map(|item| {
                let (status, text) = match item {
                    Value::String(text) => (TaskStatus::Pending, text.as_str()),
                    Value::Object(_) => {
                        let text = input_str(
                            item,
                            &[
                                "content",
                                "step",
                                "description",
                                "subject",
                                "title",
                                "task",
                                "text",
                                "activeForm",
                            ],
                        )?;
                        let status = match input_str(item, &["status", "state"]) {
                            Some(s) => TaskStatus::parse(s),
                            None if ["completed", "done", "checked"]
                                .iter()
                                .any(|k| item.get(k).and_then(Value::as_bool) == Some(true)) =>
                            {
                                TaskStatus::Done
                            }
                            None => TaskStatus::Pending,
                        };
                        (status, text)
                    }
                    _ => return None,
                };
                Some((status, clip(&one_line(&redact(text)), 200)))
            })
            .collect(),
    )
}

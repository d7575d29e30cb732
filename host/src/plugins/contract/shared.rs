//! Conversions between the host model and the generated types every contract version
//! shares unchanged. Each version module imports its own generated types under the
//! model's names and invokes [`shared_conversions!`]; a type that changes in a new
//! version leaves the macro and gets its own conversion in that version's module.

/// One field's conversion: a plain move, `into`, an `Option` or a `Vec` of convertibles.
macro_rules! field {
    ($value:expr) => {
        $value
    };
    ($value:expr, into) => {
        $value.into()
    };
    ($value:expr, opt) => {
        $value.map(Into::into)
    };
    ($value:expr, vec) => {
        $value.into_iter().map(Into::into).collect()
    };
}

/// `From` both ways between a generated record and the model's record of the same name.
macro_rules! record {
    ($name:ident { $($field:ident $(: $how:ident)?),* $(,)? }) => {
        impl From<$name> for crate::model::$name {
            fn from(value: $name) -> Self {
                Self { $($field: $crate::plugins::contract::shared::field!(value.$field $(, $how)?)),* }
            }
        }
        impl From<crate::model::$name> for $name {
            fn from(value: crate::model::$name) -> Self {
                Self { $($field: $crate::plugins::contract::shared::field!(value.$field $(, $how)?)),* }
            }
        }
    };
}

/// `From` both ways between a generated enum and the model's enum of the same name.
macro_rules! enumeration {
    ($name:ident { $($case:ident),* $(,)? }) => {
        impl From<$name> for crate::model::$name {
            fn from(value: $name) -> Self {
                match value { $($name::$case => Self::$case),* }
            }
        }
        impl From<crate::model::$name> for $name {
            fn from(value: crate::model::$name) -> Self {
                match value { $(crate::model::$name::$case => Self::$case),* }
            }
        }
    };
}

/// Conversions of every type that contract 0.2.0 and 0.3.0 define alike.
macro_rules! shared_conversions {
    () => {
        use $crate::plugins::contract::shared::{enumeration, record};

        enumeration!(ToolKind {
            Shell,
            Read,
            Grep,
            Edit,
            WebFetch,
            WebSearch,
            Agent,
            Mcp,
            Ctx,
            Other
        });
        enumeration!(EventKind {
            PreToolUse,
            PostToolUse,
            UserPrompt,
            PreCompact,
            SessionStart,
            Stop
        });
        enumeration!(SessionSource {
            Startup,
            Resume,
            Clear,
            Compact,
            Unknown
        });
        enumeration!(Verdict {
            NoOpinion,
            Allow,
            Redirect,
            Deny,
            Ask
        });
        enumeration!(ConfigFormat { Json, Toml, Text });
        enumeration!(EditKind {
            McpServer,
            Hooks,
            Instructions,
            StatusLine,
            Feature
        });
        enumeration!(RuleScope {
            ProjectLocal,
            Project,
            User
        });
        enumeration!(RuleEffect { Allow, Deny, Ask });

        record!(ToolCall {
            name,
            kind: into,
            input_json,
            command,
            path,
            has_range,
            url,
            prompt,
            pattern,
            mcp_server,
            mcp_tool,
        });
        record!(ToolResult {
            output,
            is_error,
            exit_code,
            duration_ms
        });
        record!(NormalizedEvent {
            kind: into,
            native_event,
            session_id,
            project_dir,
            transcript_path,
            tool: opt,
            outcome: opt,
            prompt,
            source: opt,
            trigger,
        });
        record!(EventBinding {
            native,
            kind: into,
            capabilities: into
        });
        record!(ParseInput {
            native_event,
            stdin,
            env,
            parent_pid
        });
        record!(Reply {
            event: into,
            native_event,
            verdict: into,
            reason,
            tool: opt,
            updated_command,
            updated_prompt,
            updated_output,
            additional_context,
        });
        record!(Rendered {
            stdout,
            stderr,
            exit_code
        });
        record!(SetupInput {
            cm_command,
            project_dir
        });
        record!(ConfigEdit {
            kind: into,
            file,
            format: into,
            content,
            summary,
            optional
        });
        record!(SetupPlan { edits: vec });
        record!(PermissionRule {
            pattern,
            effect: into,
            scope: into
        });
        record!(PolicyInfo {
            id,
            display_name,
            version
        });
        record!(Rewrite {
            command,
            prompt,
            reason
        });
        record!(Decision {
            action: into,
            nudge
        });

        /// Each generated flag and the model's flag of the same meaning.
        const CAPABILITY_FLAGS: [(Capabilities, crate::model::Capabilities); 5] = [
            (Capabilities::BLOCK, crate::model::Capabilities::BLOCK),
            (Capabilities::ASK, crate::model::Capabilities::ASK),
            (
                Capabilities::REWRITE_INPUT,
                crate::model::Capabilities::REWRITE_INPUT,
            ),
            (
                Capabilities::REWRITE_OUTPUT,
                crate::model::Capabilities::REWRITE_OUTPUT,
            ),
            (
                Capabilities::INJECT_CONTEXT,
                crate::model::Capabilities::INJECT_CONTEXT,
            ),
        ];

        impl From<Capabilities> for crate::model::Capabilities {
            fn from(flags: Capabilities) -> Self {
                CAPABILITY_FLAGS
                    .into_iter()
                    .filter(|(flag, _)| flags.contains(*flag))
                    .fold(Self::empty(), |all, (_, model)| all | model)
            }
        }

        impl From<crate::model::Capabilities> for Capabilities {
            fn from(flags: crate::model::Capabilities) -> Self {
                CAPABILITY_FLAGS
                    .into_iter()
                    .filter(|(_, model)| flags.contains(*model))
                    .fold(Self::empty(), |all, (flag, _)| all | flag)
            }
        }

        impl From<ParseError> for crate::model::ParseError {
            fn from(error: ParseError) -> Self {
                match error {
                    ParseError::UnknownEvent(name) => Self::UnknownEvent(name),
                    ParseError::BadInput(why) => Self::BadInput(why),
                }
            }
        }

        impl From<Action> for crate::model::Action {
            fn from(action: Action) -> Self {
                match action {
                    Action::NoOpinion => Self::NoOpinion,
                    Action::Allow => Self::Allow,
                    Action::Redirect(reason) => Self::Redirect(reason),
                    Action::Deny(reason) => Self::Deny(reason),
                    Action::Ask(reason) => Self::Ask(reason),
                    Action::Rewrite(rewrite) => Self::Rewrite(rewrite.into()),
                    Action::AddContext(text) => Self::AddContext(text),
                }
            }
        }

        impl From<crate::model::Action> for Action {
            fn from(action: crate::model::Action) -> Self {
                use crate::model::Action as Model;
                match action {
                    Model::NoOpinion => Self::NoOpinion,
                    Model::Allow => Self::Allow,
                    Model::Redirect(reason) => Self::Redirect(reason),
                    Model::Deny(reason) => Self::Deny(reason),
                    Model::Ask(reason) => Self::Ask(reason),
                    Model::Rewrite(rewrite) => Self::Rewrite(rewrite.into()),
                    Model::AddContext(text) => Self::AddContext(text),
                }
            }
        }
    };
}

/// The descriptor and policy conversions of the versions in which the adapter names the
/// ctx tools (`ctx-tool-name`) and the policy context carries every name (0.3.0 on).
macro_rules! named_tool_conversions {
    () => {
        /// The descriptor, with the names the adapter gave for the ctx tools.
        pub fn descriptor(d: Descriptor, ctx_tools: model::CtxToolNames) -> model::Descriptor {
            model::Descriptor {
                id: d.id,
                display_name: d.display_name,
                version: d.version,
                client_names: d.client_names,
                env_markers: d.env_markers,
                file_markers: d.file_markers,
                events: d.events.into_iter().map(Into::into).collect(),
                env_vars: d.env_vars,
                ctx_tools,
            }
        }

        /// One policy call in this version's types.
        pub type PolicyQuestion = (ToolCall, PolicyContext);

        /// Lowers one policy call (the host keeps its own for the rest of the chain).
        pub fn policy_question(
            call: &model::ToolCall,
            context: &model::PolicyContext,
        ) -> PolicyQuestion {
            let context = PolicyContext {
                platform: context.platform.clone(),
                ctx_tools: context
                    .ctx_tools
                    .iter()
                    .map(|(tool, name)| CtxTool {
                        tool: tool.to_string(),
                        name: name.to_string(),
                    })
                    .collect(),
                server_live: context.server_live,
                rules: context.rules.iter().cloned().map(Into::into).collect(),
                nudges_shown: context.nudges_shown.clone(),
                file_size_bytes: context.file_size_bytes,
                project_dir: context.project_dir.clone(),
            };
            (call.clone().into(), context)
        }
    };
}

pub(crate) use {enumeration, field, named_tool_conversions, record, shared_conversions};

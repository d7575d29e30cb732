//! The export macros: one call in a guest's `lib.rs` makes the crate a component.

/// Makes the calling crate a platform adapter component (the way Zed's
/// `register_extension!` makes a crate an extension).
///
/// The crate keeps its adapter in four modules, and the macro wires them to the
/// contract's `adapter` interface:
///
/// | module | function | answers |
/// |---|---|---|
/// | `describe` | `pub fn descriptor() -> Descriptor` | `describe` |
/// | `describe` | `pub fn ctx_tool_name(server: &str, tool: &str) -> String` | `ctx-tool-name` |
/// | `parse` | `pub fn parse(&ParseInput) -> Result<NormalizedEvent, ParseError>` | `parse` |
/// | `render` | `pub fn render(&Reply) -> Rendered` | `render` |
/// | `setup` | `pub fn plan(&SetupInput) -> SetupPlan` | `setup` |
///
/// A host whose plan depends on its installed version names the program that prints it:
/// `export_adapter!(host_version_command = "claude")`, and its `setup` module also has
/// `pub fn plan_for_version(&SetupInput, host_version: &str) -> SetupPlan`
/// (`setup-for-version`). Without it `host-version-command` answers none and
/// `setup-for-version` is `plan`.
///
/// It also defines `pub const ADAPTER_ID`, the crate's package name: the id in
/// `cm hook <id> <event>` and the one `host/build.rs` embeds the adapter under.
/// Only the wasm build exports the component; native builds run the unit tests.
///
/// ```ignore
/// mod describe;
/// mod parse;
/// mod render;
/// mod setup;
///
/// context_mode_sdk::export_adapter!();
/// ```
#[macro_export]
#[allow(clippy::crate_in_macro_def)]
macro_rules! export_adapter {
    () => {
        $crate::export_adapter!(@with None, |input, _version| crate::setup::plan(input));
    };
    (host_version_command = $command:literal) => {
        $crate::export_adapter!(@with Some($command), |input, version| {
            crate::setup::plan_for_version(input, version)
        });
    };
    (@with $command:expr, |$input:ident, $version:ident| $plan_for_version:expr) => {
        /// The adapter id: `cm hook <id> <event>`, the crate's package name.
        pub const ADAPTER_ID: &str = env!("CARGO_PKG_NAME");

        /// The component: the contract's `adapter` interface over this crate's modules.
        pub struct Adapter;

        impl $crate::adapter::Guest for Adapter {
            fn describe() -> $crate::adapter::Descriptor {
                crate::describe::descriptor()
            }

            fn ctx_tool_name(server_name: String, tool: String) -> String {
                crate::describe::ctx_tool_name(&server_name, &tool)
            }

            fn parse(
                input: $crate::adapter::ParseInput,
            ) -> Result<$crate::NormalizedEvent, $crate::adapter::ParseError> {
                crate::parse::parse(&input)
            }

            fn render(reply: $crate::adapter::Reply) -> $crate::adapter::Rendered {
                crate::render::render(&reply)
            }

            fn setup(input: $crate::adapter::SetupInput) -> $crate::adapter::SetupPlan {
                crate::setup::plan(&input)
            }

            fn host_version_command() -> Option<String> {
                let command: Option<&str> = $command;
                command.map(str::to_owned)
            }

            fn setup_for_version(
                input: $crate::adapter::SetupInput,
                host_version: String,
            ) -> $crate::adapter::SetupPlan {
                let ($input, $version) = (&input, host_version.as_str());
                $plan_for_version
            }
        }

        #[cfg(target_arch = "wasm32")]
        $crate::contract::adapter_world::export_adapter_world!(
            Adapter with_types_in $crate::contract::adapter_world
        );
    };
}

/// Makes the calling crate a routing policy component: `$policy` implements
/// [`crate::policy::Guest`]. Only the wasm build exports it; native builds run the
/// unit tests.
#[macro_export]
macro_rules! export_policy {
    ($policy:ident) => {
        #[cfg(target_arch = "wasm32")]
        $crate::contract::policy_world::export_policy_world!(
            $policy with_types_in $crate::contract::policy_world
        );
    };
}

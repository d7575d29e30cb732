//! The tools/list input schemas are accepted by every client (ADR 20): compiled by the
//! real Ajv in strict mode (what the MCP TypeScript SDK validates with), and inside the
//! OpenAPI 3.0 subset of Gemini's function declarations. Ajv is installed from the npm
//! registry into `${XDG_CACHE_HOME:-$HOME/.cache}/context-mode-e2e/ajv` once and reused;
//! without node, npm or the registry the test fails and says which.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{McpClient, Sandbox};

/// The Ajv major line the TypeScript SDK and gemini-cli depend on.
const AJV_PACKAGE: &str = "ajv@8";

fn listed_tools() -> Vec<Value> {
    let sandbox = Sandbox::new();
    let mut client = sandbox.live_server();
    let listed = client.request("tools/list", serde_json::json!({}));
    listed["tools"].as_array().cloned().expect("tools array")
}

fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME must be set to find the npm cache directory");
    base.join("context-mode-e2e").join("ajv")
}

/// The directory holding `node_modules/ajv`, installing it on the first run.
fn ajv_dir() -> PathBuf {
    let dir = cache_dir();
    if dir.join("node_modules/ajv/package.json").is_file() {
        return dir;
    }
    std::fs::create_dir_all(&dir).expect("create the npm cache directory");
    let installed = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(AJV_PACKAGE)
        .stdin(Stdio::null())
        .output();
    match installed {
        Ok(out) if out.status.success() => dir,
        Ok(out) => panic!(
            "cannot install {AJV_PACKAGE} from the npm registry (is it reachable?): {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("npm failed")
        ),
        Err(err) => panic!("cannot run npm to install {AJV_PACKAGE}: {err}"),
    }
}

/// Compiles each schema with Ajv (draft-07 and draft 2020-12 classes, `strict: true`)
/// and validates the JSON example of each description against it.
const AJV_SCRIPT: &str = r#"
const Ajv = require("ajv");
const Ajv2020 = require("ajv/dist/2020");
const tools = JSON.parse(require("fs").readFileSync(0, "utf8"));
const problems = [];
for (const [dialect, Class] of [["draft-07", Ajv], ["2020-12", Ajv2020]]) {
  for (const tool of tools) {
    const ajv = new Class({ strict: true, allErrors: true });
    let validate;
    try { validate = ajv.compile(tool.inputSchema); }
    catch (e) { problems.push(`${dialect} ${tool.name}: ${e.message}`); continue; }
    for (const line of tool.description.split("\n")) {
      if (!line.startsWith("- {")) continue;
      let example;
      try { example = JSON.parse(line.slice(2)); } catch { continue; }
      if (!validate(example)) {
        problems.push(`${dialect} ${tool.name} example ${line.slice(2)}: ${ajv.errorsText(validate.errors)}`);
      }
    }
  }
}
console.log(JSON.stringify(problems));
"#;

#[test]
fn every_input_schema_compiles_in_strict_ajv_and_its_example_validates() {
    let tools = listed_tools();
    let dir = ajv_dir();
    let mut node = Command::new("node")
        .arg("-e")
        .arg(AJV_SCRIPT)
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run node for the Ajv check: {e}"));
    {
        use std::io::Write;
        let mut stdin = node.stdin.take().expect("stdin");
        stdin
            .write_all(Value::Array(tools.clone()).to_string().as_bytes())
            .expect("write tools");
    }
    let out = node.wait_with_output().expect("node output");
    assert!(
        out.status.success(),
        "node: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let problems: Vec<String> =
        serde_json::from_slice(&out.stdout).expect("the Ajv script prints a JSON list");
    assert!(
        problems.is_empty(),
        "strict Ajv rejects:\n{}",
        problems.join("\n")
    );
    assert!(tools.len() >= 12, "{} tools", tools.len());
}

#[test]
fn every_input_schema_is_inside_the_gemini_function_declaration_subset() {
    for tool in listed_tools() {
        let name = tool["name"].as_str().unwrap_or("?");
        let schema = &tool["inputSchema"];
        let problems = cm::mcp::tools::portable::portability_problems(schema);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        // An optional field is one left out of `required`; what a client shows for each
        // property is its description, and the root says nothing a model can use.
        assert!(
            schema.get("title").is_none() && schema.get("description").is_none(),
            "{name}: {schema}"
        );
        let properties = schema["properties"].as_object().expect("properties");
        for (field, property) in properties {
            assert!(
                property["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty()),
                "{name}.{field} has no description: {property}"
            );
        }
    }
}

/// Antigravity CLI hands MCP tools to Gemini as function declarations and silently drops a
/// tool whose schema has `const` or `additionalProperties`; Qwen Code (a Gemini CLI fork)
/// does the same. Every client is served the portable subset (ADR 20), so the list these
/// clients get, once detected, is checked for exactly those keywords.
#[test]
fn gemini_family_clients_get_schemas_without_const_or_additional_properties() {
    for client_name in ["agy", "antigravity-cli", "qwen-cli-mcp-client-0.24.4"] {
        let sandbox = Sandbox::new();
        let mut client = McpClient::spawn_as(sandbox.cm().arg("serve"), client_name);
        let listed = client.request("tools/list", serde_json::json!({}));
        let tools = listed["tools"].as_array().cloned().expect("tools array");
        assert!(tools.len() >= 12, "{client_name}: {} tools", tools.len());
        for tool in tools {
            let schema = tool["inputSchema"].to_string();
            for keyword in ["\"const\"", "\"additionalProperties\"", "\"$ref\""] {
                assert!(
                    !schema.contains(keyword),
                    "{client_name}: {} has {keyword}: {schema}",
                    tool["name"]
                );
            }
        }
    }
}

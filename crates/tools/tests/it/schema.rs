//! Schema generation and normalisation (model-visible: snapshotted).

use dsh_tools::{SchemaError, Tool, ToolCall, ToolError, Tools, normalize_schema};
use pretty_assertions::assert_eq;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::fixtures::{Mode, Named, SendTool};
use crate::ok;

fn schema_of(tools: &Tools, name: &str) -> dsh_tools::ToolSchema {
    tools
        .list()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("{name} not registered"))
}

#[test]
fn send_tool_schemas_are_normalised() {
    let tools = Tools::new();
    ok(tools.register(SendTool::new(Mode::Succeed)));
    let s = schema_of(&tools, "send");
    insta::assert_json_snapshot!("send_input_schema", s.input_schema);
    insta::assert_json_snapshot!("send_output_schema", s.output_schema);
    let text = s.input_schema.to_string();
    for absent in ["$ref", "$defs", "$schema", "uint64", "uint16", "title"] {
        assert!(!text.contains(absent), "{absent} left in {text}");
    }
}

#[test]
fn empty_args_still_get_properties_and_a_closed_root() {
    let tools = Tools::new();
    ok(tools.register(Named("noop")));
    let s = schema_of(&tools, "noop");
    assert_eq!(
        s.input_schema,
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn normalisation_is_idempotent_and_leaves_values_alone() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "X",
        "type": "object",
        "properties": {
            "format": {"type": "integer", "format": "uint64", "minimum": 0},
            "when": {"type": "string", "format": "date-time"},
            "mode": {"$ref": "#/$defs/Mode", "description": "the mode"},
            "opaque": {"default": {"$ref": "#/not/a/ref", "format": "uint64"}, "enum": [{"format": "int32"}]}
        },
        "required": ["format"],
        "$defs": {"Mode": {"title": "Mode", "type": "string", "enum": ["a", "b"]}}
    });
    let once = ok(normalize_schema(schema));
    assert_eq!(
        once,
        json!({
            "type": "object",
            "properties": {
                "format": {"type": "integer", "minimum": 0},
                "when": {"type": "string", "format": "date-time"},
                "mode": {"type": "string", "enum": ["a", "b"], "description": "the mode"},
                "opaque": {"default": {"$ref": "#/not/a/ref", "format": "uint64"}, "enum": [{"format": "int32"}]}
            },
            "required": ["format"],
            "additionalProperties": false
        })
    );
    // Property order is kept (not sorted).
    let keys: Vec<&String> = once["properties"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["format", "when", "mode", "opaque"]);
    assert_eq!(ok(normalize_schema(once.clone())), once);
}

#[test]
fn unsupported_schemas_are_rejected_with_the_reason() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!(true),
            "the root schema must describe an object (got a boolean schema)",
        ),
        (
            json!({"type": "string"}),
            "the root schema must describe an object (got type \"string\")",
        ),
        (
            json!({"oneOf": [{"type": "object"}]}),
            "the root schema must describe an object (got a root \"oneOf\")",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/x"}}}),
            "unsupported $ref \"https://example.com/x\": only local \"#/$defs/...\" references can be inlined",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}),
            "$ref \"#/$defs/Nope\" names no definition",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/T"}}, "$defs": {"T": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}),
            "recursive schema through \"#/$defs/T\" cannot be inlined; use a non-recursive type",
        ),
        (
            json!({"type": "object", "properties": {}, "required": ["ghost"]}),
            "required property \"ghost\" is not declared in properties",
        ),
    ];
    for (schema, message) in cases {
        let err: SchemaError = normalize_schema(schema.clone())
            .err()
            .unwrap_or_else(|| panic!("accepted {schema}"));
        assert_eq!(err.to_string(), message);
    }
}

/// A recursive args type.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TreeArgs {
    /// Children.
    #[expect(dead_code, reason = "declared for the schema only")]
    children: Vec<TreeArgs>,
}

#[derive(Serialize, JsonSchema)]
struct Unit {}

struct Tree;
impl Tool for Tree {
    type Args = TreeArgs;
    type Output = Unit;
    fn name(&self) -> &'static str {
        "tree"
    }
    fn description(&self) -> String {
        String::new()
    }
    async fn execute(&self, _a: TreeArgs, _c: ToolCall) -> Result<Unit, ToolError> {
        Ok(Unit {})
    }
    fn render(&self, _a: &TreeArgs, _o: &Unit) -> String {
        String::new()
    }
}

#[test]
fn recursive_args_are_refused_at_registration() {
    let tools = Tools::new();
    let err = tools.register(Tree).err().map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some(
            "tool \"tree\" has an unsupported input schema: recursive schema through \"#\" cannot be inlined; use a non-recursive type"
        )
    );
}

/// Drops `signal` from the schema, as a config-disabled option would be.
struct Shaped(SendTool);
impl Tool for Shaped {
    type Args = <SendTool as Tool>::Args;
    type Output = <SendTool as Tool>::Output;
    fn name(&self) -> &'static str {
        "shaped"
    }
    fn description(&self) -> String {
        self.0.description()
    }
    fn shape_parameters(&self, mut schema: Value) -> Value {
        if let Some(p) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            p.shift_remove("signal");
        }
        schema
    }
    async fn execute(&self, args: Self::Args, call: ToolCall) -> Result<Self::Output, ToolError> {
        self.0.execute(args, call).await
    }
    fn render(&self, args: &Self::Args, output: &Self::Output) -> String {
        self.0.render(args, output)
    }
}

#[tokio::test]
async fn shape_parameters_changes_the_published_and_validated_schema() {
    let tools = Tools::new();
    ok(tools.register(Shaped(SendTool::new(Mode::Succeed))));
    let s = schema_of(&tools, "shaped");
    assert!(s.input_schema["properties"].get("signal").is_none());
    let r = tools
        .execute(
            "shaped",
            json!({"sessionId": "pty-1", "text": "x", "signal": "SIGINT"}),
            ToolCall::new("c"),
        )
        .await;
    // The published (shaped) schema decides what is declared.
    assert_eq!(
        r.text(),
        "Error: invalid arguments: \"signal\" is not a declared property (declared: \"sessionId\", \"text\", \"submit\", \"yieldTimeMs\", \"size\")"
    );
}

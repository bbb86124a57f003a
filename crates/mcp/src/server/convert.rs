//! The registry's tool schemas and results in the MCP model's shapes (`tools/list`'s tools,
//! `tools/call`'s results).

use std::sync::Arc;

use dsh_tools::{ToolResult, ToolSchema};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::Value;

/// Maps a registry tool schema to the MCP tool the client sees.
pub fn mcp_tool(schema: &ToolSchema) -> Tool {
    let input = match &schema.input_schema {
        Value::Object(object) => object.clone(),
        other => {
            tracing::warn!(tool = %schema.name, schema = %other, "input schema is not an object; advertising an empty object schema");
            let mut object = JsonObject::new();
            object.insert("type".to_owned(), Value::String("object".to_owned()));
            object
        }
    };
    let tool = Tool::new(
        schema.name.clone(),
        schema.description.clone(),
        Arc::new(input),
    );
    match mcp_output_schema(&schema.output_schema) {
        Some(output) => tool.with_raw_output_schema(Arc::new(output)),
        None => tool,
    }
}

/// The output schema as advertised over MCP, or `None` when MCP cannot carry it.
///
/// MCP requires `outputSchema` to describe an object (`"type": "object"` at the root) and
/// `structuredContent` to be an object. A schema whose root is `oneOf`/`anyOf` of object
/// schemas describes objects too, so it is advertised with `"type": "object"` added at the
/// root. Any other root (an array, a scalar) is not advertised, and its results carry text
/// only.
pub fn mcp_output_schema(schema: &Value) -> Option<JsonObject> {
    let object = schema.as_object()?;
    match object.get("type") {
        Some(Value::String(t)) if t == "object" => Some(object.clone()),
        Some(_) => None,
        None => {
            let all_objects = ["oneOf", "anyOf"].iter().any(|key| {
                object
                    .get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|branches| {
                        !branches.is_empty()
                            && branches.iter().all(|branch| {
                                branch.get("type").and_then(Value::as_str) == Some("object")
                            })
                    })
            });
            all_objects.then(|| {
                let mut out = JsonObject::new();
                out.insert("type".to_owned(), Value::String("object".to_owned()));
                out.extend(object.iter().map(|(k, v)| (k.clone(), v.clone())));
                out
            })
        }
    }
}

/// Maps a registry result to an MCP tool result: every text block becomes MCP text content;
/// `isError` is carried over; the structured value becomes `structuredContent` when the call
/// succeeded and the value is an object (see [`mcp_output_schema`]).
pub fn call_tool_result(result: ToolResult) -> CallToolResult {
    let content: Vec<ContentBlock> = result
        .content
        .iter()
        .filter_map(|block| match block.as_text() {
            Some(text) => Some(ContentBlock::text(text)),
            None => {
                tracing::warn!("dropping a non-text content block: MCP mapping not implemented");
                None
            }
        })
        .collect();
    if result.is_error {
        return CallToolResult::error(content);
    }
    let mut out = CallToolResult::success(content);
    out.structured_content = result.structured.filter(Value::is_object);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn object_output_schemas_are_advertised_unchanged() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(
            mcp_output_schema(&schema).map(Value::Object),
            Some(schema.clone())
        );
    }

    #[test]
    fn one_of_objects_gains_an_object_root() {
        let schema = json!({"oneOf": [{"type": "object"}, {"type": "object", "required": ["x"]}]});
        let out = mcp_output_schema(&schema).map(Value::Object);
        assert_eq!(
            out,
            Some(
                json!({"type": "object", "oneOf": [{"type": "object"}, {"type": "object", "required": ["x"]}]})
            )
        );
    }

    #[test]
    fn successful_results_carry_text_and_object_structured_content() {
        let out = call_tool_result(ToolResult::success("done", json!({"a": 1})));
        assert_eq!(out.is_error, Some(false));
        assert_eq!(out.content.len(), 1);
        assert_eq!(
            out.content[0].as_text().map(|t| t.text.as_str()),
            Some("done")
        );
        assert_eq!(out.structured_content, Some(json!({"a": 1})));

        let out = call_tool_result(ToolResult::success("list", json!([1, 2])));
        assert_eq!(
            out.structured_content, None,
            "non-object values are text only"
        );
    }

    #[test]
    fn error_results_carry_the_error_text_and_no_structured_content() {
        let mut result = ToolResult::error("unknown PTY session pty-9", Some("NO_SESSION"));
        result.structured = Some(json!({"ignored": true}));
        let out = call_tool_result(result);
        assert_eq!(out.is_error, Some(true));
        assert_eq!(
            out.content[0].as_text().map(|t| t.text.as_str()),
            Some("Error: unknown PTY session pty-9")
        );
        assert_eq!(out.structured_content, None);
    }

    #[test]
    fn tools_map_name_description_and_schemas() {
        let schema = ToolSchema {
            name: "t".into(),
            description: "does t".into(),
            input_schema: json!({"type": "object", "properties": {}}),
            output_schema: json!({"type": "array"}),
        };
        let tool = mcp_tool(&schema);
        assert_eq!(
            serde_json::to_value(&tool).ok(),
            Some(json!({"name": "t", "description": "does t",
                "inputSchema": {"type": "object", "properties": {}}}))
        );
    }

    #[test]
    fn non_object_roots_are_not_advertised() {
        for schema in [
            json!({"type": "array", "items": {"type": "object"}}),
            json!({"type": "string"}),
            json!({"oneOf": [{"type": "object"}, {"type": "string"}]}),
            json!({"oneOf": []}),
            json!({}),
            json!(true),
        ] {
            assert_eq!(mcp_output_schema(&schema), None, "{schema}");
        }
    }
}

//! Schema generation (schemars) and the one normalisation function for model-visible schemas.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// Why a generated or shaped schema is outside the subset we hand to models.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The root must describe a JSON object.
    #[error("the root schema must describe an object (got {found})")]
    RootNotObject {
        /// What the root was (its `type`, or a summary).
        found: String,
    },
    /// A `$ref` points outside the local `$defs`.
    #[error("unsupported $ref {reference:?}: only local \"#/$defs/...\" references can be inlined")]
    UnsupportedRef {
        /// The reference.
        reference: String,
    },
    /// A `$ref` names a definition that does not exist.
    #[error("$ref {reference:?} names no definition")]
    MissingDefinition {
        /// The reference.
        reference: String,
    },
    /// A recursive type cannot be inlined.
    #[error("recursive schema through {reference:?} cannot be inlined; use a non-recursive type")]
    Recursive {
        /// The reference that recursed.
        reference: String,
    },
    /// `required` names a property that `properties` does not declare.
    #[error("required property {name:?} is not declared in properties")]
    UndeclaredRequired {
        /// The property name.
        name: String,
    },
}

/// The schemars `format` values for Rust integer and float types; dropped by normalisation
/// (models and validators do not need them and some clients reject unknown formats).
const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// Keywords whose value is one subschema.
const SUBSCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const SUBSCHEMA_ARRAY_KEYWORDS: &[&str] = &["anyOf", "allOf", "oneOf", "prefixItems"];
/// Keywords whose value is a map of name -> subschema.
const SUBSCHEMA_MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// The normalised parameter schema of `T` (deserialize contract: what the model may send).
///
/// # Errors
/// See [`normalize_schema`].
pub fn input_schema_for<T: JsonSchema>() -> Result<Value, SchemaError> {
    let schema = SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    normalize_schema(schema.to_value())
}

/// The normalised output schema of `T` (serialize contract: what the tool returns).
///
/// # Errors
/// See [`normalize_schema`].
pub fn output_schema_for<T: JsonSchema>() -> Result<Value, SchemaError> {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    normalize_output_schema(schema.to_value())
}

/// Like [`normalize_schema`], but also accepts a tagged union at the root (a `oneOf` whose
/// branches are all objects, as serde's internally tagged enums produce). Each branch is
/// normalised and closed, and the root gets `"type": "object"` so hosts that require an object
/// root (MCP's `outputSchema`) accept it.
///
/// # Errors
/// As [`normalize_schema`], for the root or for any branch.
pub fn normalize_output_schema(schema: Value) -> Result<Value, SchemaError> {
    let is_union = schema
        .get("oneOf")
        .and_then(Value::as_array)
        .is_some_and(|branches| !branches.is_empty());
    if !is_union {
        return normalize_schema(schema);
    }
    let Value::Object(mut root) = schema else {
        return normalize_schema(schema);
    };
    let defs: Vec<(&str, Value)> = ["$defs", "definitions"]
        .into_iter()
        .filter_map(|k| root.shift_remove(k).map(|v| (k, v)))
        .collect();
    let Some(Value::Array(branches)) = root.shift_remove("oneOf") else {
        return Err(SchemaError::RootNotObject {
            found: "a root \"oneOf\"".to_owned(),
        });
    };
    let mut closed = Vec::with_capacity(branches.len());
    for branch in branches {
        let Value::Object(mut b) = branch else {
            return Err(SchemaError::RootNotObject {
                found: "a \"oneOf\" branch that is not an object schema".to_owned(),
            });
        };
        for (k, v) in &defs {
            b.insert((*k).to_owned(), v.clone());
        }
        let description = b.shift_remove("description");
        let mut normalised = normalize_schema(Value::Object(b))?;
        if let (Some(d), Value::Object(m)) = (description, &mut normalised) {
            m.insert("description".into(), d);
        }
        closed.push(normalised);
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::String("object".into()));
    out.insert("oneOf".into(), Value::Array(closed));
    Ok(Value::Object(out))
}

/// Normalises a schema for models (idempotent):
///
/// 1. inlines every local `$ref` (`#/$defs/..`, `#/definitions/..`) and drops `$defs`;
/// 2. drops the root `$schema` and `title`;
/// 3. removes the numeric `format` annotations schemars adds (`uint64`, `double`, ...);
/// 4. requires a root object and makes it closed: `"type": "object"`, `"properties"` (even
///    empty), `"additionalProperties": false`; every `required` name must be declared.
///
/// Property order is preserved. Root keys come out as `type`, `description`, `properties`,
/// `required`, `additionalProperties`, then anything else.
///
/// # Errors
/// [`SchemaError`] when the root is not an object, a `$ref` is not local or recursive, or
/// `required` names an undeclared property.
pub fn normalize_schema(schema: Value) -> Result<Value, SchemaError> {
    let Value::Object(mut root) = schema else {
        return Err(SchemaError::RootNotObject {
            found: json_kind(&schema).to_owned(),
        });
    };
    let mut defs = Map::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = root.shift_remove(key) {
            defs.extend(d);
        }
    }
    root.shift_remove("$schema");
    root.shift_remove("title");
    // The root description is the Rust type's doc comment; the model already gets the tool's
    // own description, so it would only cost tokens.
    root.shift_remove("description");
    let mut root = Value::Object(root);
    let mut stack = Vec::new();
    normalize_node(&mut root, &defs, &mut stack)?;
    let Value::Object(root) = root else {
        return Err(SchemaError::RootNotObject {
            found: json_kind(&root).to_owned(),
        });
    };
    close_root(root)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean schema",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn close_root(mut root: Map<String, Value>) -> Result<Value, SchemaError> {
    match root.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(SchemaError::RootNotObject {
                found: format!("type {other}"),
            });
        }
    }
    for combinator in ["anyOf", "oneOf", "allOf", "not", "if", "$ref"] {
        if root.contains_key(combinator) {
            return Err(SchemaError::RootNotObject {
                found: format!("a root {combinator:?}"),
            });
        }
    }
    let properties = match root.shift_remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    if let Some(Value::Array(required)) = root.get("required") {
        for name in required {
            let name = name.as_str().unwrap_or_default();
            if !properties.contains_key(name) {
                return Err(SchemaError::UndeclaredRequired {
                    name: name.to_owned(),
                });
            }
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::String("object".into()));
    root.shift_remove("type");
    if let Some(d) = root.shift_remove("description") {
        out.insert("description".into(), d);
    }
    out.insert("properties".into(), Value::Object(properties));
    match root.shift_remove("required") {
        Some(Value::Array(r)) if !r.is_empty() => {
            out.insert("required".into(), Value::Array(r));
        }
        _ => {}
    }
    root.shift_remove("additionalProperties");
    out.insert("additionalProperties".into(), Value::Bool(false));
    out.extend(root);
    Ok(Value::Object(out))
}

/// A unit enum whose variants carry doc comments comes out of schemars as a `oneOf` of
/// `{"type": "string", "const": X, "description": ..}` branches. Models (and validation
/// messages) do better with the plain form `{"type": "string", "enum": [X, ..]}`.
fn collapse_const_union(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("oneOf") else {
        return;
    };
    let mut values = Vec::with_capacity(branches.len());
    for b in branches {
        let Value::Object(b) = b else { return };
        let string_typed = b.get("type") == Some(&Value::String("string".into()));
        let only_known_keys = b
            .keys()
            .all(|k| matches!(k.as_str(), "type" | "const" | "description"));
        match b.get("const") {
            Some(c @ Value::String(_)) if string_typed && only_known_keys => values.push(c.clone()),
            _ => return,
        }
    }
    if values.is_empty() {
        return;
    }
    map.shift_remove("oneOf");
    map.insert("type".into(), Value::String("string".into()));
    map.insert("enum".into(), Value::Array(values));
}

/// Whether a (sub)schema admits `null`: its `type` is or lists `null`, or it has no `type`.
pub(crate) fn admits_null(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => true,
    }
}

/// Whether `null` for the property `name` of the object schema `schema` stands for the
/// property left out: it is declared with a `type`, and not required. Many MCP clients and
/// models write `null` for an argument they mean to leave out (OpenAI's strict function
/// calling makes every optional argument nullable); the pipeline drops such a `null` before
/// validation ([`crate::validate::nulls_as_absent`]). The published schemas keep one `type`
/// per property (some hosts take no list of types), so they do not name `null`. A required
/// property's `null` is judged as given (its error names it), and so is an untyped one's (any
/// value, `null` too, is its own).
pub(crate) fn null_is_absent(schema: &Value, name: &str) -> bool {
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|n| n == name));
    !required
        && schema
            .get("properties")
            .and_then(|properties| properties.get(name))
            .is_some_and(|property| property.get("type").is_some())
}

/// Walks one subschema: inlines `$ref`, drops numeric formats, recurses only into keywords that
/// hold subschemas (so `default`, `enum`, `const` and `examples` values are never touched).
fn normalize_node(
    node: &mut Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
) -> Result<(), SchemaError> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    if let Some(Value::String(reference)) = map.shift_remove("$ref") {
        if reference == "#" {
            // schemars refers to a recursive root type as "#".
            return Err(SchemaError::Recursive { reference });
        }
        let name = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))
            .ok_or_else(|| SchemaError::UnsupportedRef {
                reference: reference.clone(),
            })?;
        let name = name.replace("~1", "/").replace("~0", "~");
        if stack.contains(&name) {
            return Err(SchemaError::Recursive { reference });
        }
        let Some(Value::Object(target)) = defs.get(&name) else {
            return Err(SchemaError::MissingDefinition { reference });
        };
        let mut inlined = Value::Object(target.clone());
        stack.push(name);
        normalize_node(&mut inlined, defs, stack)?;
        stack.pop();
        // Siblings of `$ref` (e.g. a field's description) override the definition's.
        if let Value::Object(mut merged) = inlined {
            merged.shift_remove("title");
            for (k, v) in std::mem::take(map) {
                merged.insert(k, v);
            }
            *map = merged;
        }
    }
    map.shift_remove("$defs");
    map.shift_remove("definitions");
    collapse_const_union(map);
    // `#[serde(default)]` on an `Option` field makes schemars emit `"default": null`, which
    // misleads a model when the schema type does not admit null (the real default lives in the
    // description).
    if map.get("default") == Some(&Value::Null) && !admits_null(map) {
        map.shift_remove("default");
    }
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| NUMERIC_FORMATS.contains(&f))
    {
        map.shift_remove("format");
    }
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if SUBSCHEMA_KEYWORDS.contains(&key) {
            normalize_node(value, defs, stack)?;
        } else if SUBSCHEMA_ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(items) = value {
                for item in items {
                    normalize_node(item, defs, stack)?;
                }
            }
        } else if SUBSCHEMA_MAP_KEYWORDS.contains(&key)
            && let Value::Object(props) = value
        {
            for sub in props.values_mut() {
                normalize_node(sub, defs, stack)?;
            }
        }
    }
    Ok(())
}

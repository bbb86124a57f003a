//! Argument validation: every schema violation as one plain-words message.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::schema::null_is_absent;

/// At most this many violations are listed; the rest are counted.
const MAX_VIOLATIONS: usize = 20;
/// Property names and values quoted in messages are cut to this many bytes.
const MAX_QUOTED_BYTES: usize = 80;

/// An id argument as tools take it (session and job ids are short words such as `pty-1`):
/// blanks around it dropped (an id copied with its spacing); `None` when a control character
/// is left inside (no id has one, and a newline would split an error quoting it).
pub fn id_argument(raw: &str) -> Option<&str> {
    let id = raw.trim();
    (!id.chars().any(char::is_control)).then_some(id)
}

/// Validates `args` and returns one message per violation (empty when valid), in the
/// validator's deterministic order, capped at [`MAX_VIOLATIONS`] plus an `and N more` line.
/// With the validator's `schema`, an undeclared property names the declared ones (or the one
/// it most likely meant, e.g. `timeout_ms` for `timeoutMs`).
pub(crate) fn violations(
    validator: &Validator,
    schema: Option<&Value>,
    args: &Value,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut extra = 0usize;
    let beyond = schema.map(|schema| integers_out_of_range(schema, args, ""));
    let described = validator
        .iter_errors(args)
        .flat_map(|error| describe(&error, schema, args))
        .collect::<Vec<_>>();
    for message in described.into_iter().chain(beyond.into_iter().flatten()) {
        if out.len() < MAX_VIOLATIONS {
            out.push(message);
        } else {
            extra = extra.saturating_add(1);
        }
    }
    if extra > 0 {
        out.push(format!("and {extra} more"));
    }
    out
}

/// `args` with every property the schema declares an integer (`"type": "integer"`, alone or
/// in a list) that holds a whole number written as a float (`2.0`, as some JSON encoders
/// write every number) turned into that integer, recursively through declared object
/// properties. JSON Schema counts `2.0` as an integer, so it validates; serde's integer types
/// refuse it, which gave the model a deserializer's complaint about valid arguments.
pub(crate) fn whole_numbers_as_integers(schema: &Value, args: Value) -> Value {
    let Value::Object(mut map) = args else {
        return args;
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Value::Object(map);
    };
    for (name, value) in &mut map {
        let Some(property) = properties.get(name) else {
            continue;
        };
        if declares_integer(property)
            && let Some(f) = whole_float(value)
        {
            // Beyond the 64-bit range it stays a float: validation refuses it
            // ([`integers_out_of_range`]), so no tool reads a saturated number.
            if integer_in_range(f) {
                *value = if f >= 0.0 {
                    Value::from(f as u64)
                } else {
                    Value::from(f as i64)
                };
            }
        } else if value.is_object() {
            *value = whole_numbers_as_integers(property, std::mem::take(value));
        }
    }
    Value::Object(map)
}

/// `args` without the optional properties that are `null`, recursively through declared
/// object properties: those whose `null` stands for the property left out
/// ([`null_is_absent`]: declared with a `type`, not required; the published schema lists
/// `null` among their types). Many MCP clients and models write `null` for an argument they
/// mean to leave out; taken as given, it reached the tool as a value its type does not have.
/// A required property keeps its `null`, so its error names it.
pub(crate) fn nulls_as_absent(schema: &Value, args: Value) -> Value {
    let Value::Object(mut map) = args else {
        return args;
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Value::Object(map);
    };
    map.retain(|name, value| !(value.is_null() && null_is_absent(schema, name)));
    for (name, value) in &mut map {
        if value.is_object()
            && let Some(property) = properties.get(name)
        {
            *value = nulls_as_absent(property, std::mem::take(value));
        }
    }
    Value::Object(map)
}

/// Whole numbers (written as floats: past the 64-bit range JSON parsers read them so) that
/// `args` holds where the schema declares an integer, outside what the tools take
/// (`-2^63 ..= 2^64-1`), recursively through declared object properties: one message each.
/// [`whole_numbers_as_integers`] leaves them as they are, so no tool reads another number
/// than the one sent (`"offset": 18446744073709551616` read as 18446744073709551615).
pub(crate) fn integers_out_of_range(schema: &Value, args: &Value, path: &str) -> Vec<String> {
    let (Some(properties), Value::Object(map)) =
        (schema.get("properties").and_then(Value::as_object), args)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, value) in map {
        let Some(property) = properties.get(name) else {
            continue;
        };
        let here = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        if declares_integer(property)
            && let Some(f) = whole_float(value)
            && !integer_in_range(f)
        {
            let (side, bound) = if f > 0.0 {
                ("above the largest", u64::MAX.to_string())
            } else {
                ("below the smallest", i64::MIN.to_string())
            };
            out.push(format!(
                "{} is {side} integer this server reads ({bound})",
                quote(&bounded(&here))
            ));
        } else if value.is_object() {
            out.extend(integers_out_of_range(property, value, &here));
        }
    }
    out
}

/// Whether a property's schema declares an integer (`"type": "integer"`, alone or in a list).
fn declares_integer(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    }
}

/// The value as a float when it is a whole number written as one (`2.0`, `1e30`).
fn whole_float(value: &Value) -> Option<f64> {
    let Value::Number(n) = value else {
        return None;
    };
    n.as_f64()
        .filter(|f| n.is_f64() && f.is_finite() && f.fract() == 0.0)
}

/// Whether a whole float is one of the integers the tools take: `-2^63 ..= 2^64-1` (the
/// float `2^64` itself is the first one past it).
fn integer_in_range(f: f64) -> bool {
    (-9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(&f)
}

/// The instance path in plain words: `"a.b[2].c"`, JSON-quoted; `None` for the root.
fn path_segments(error: &ValidationError<'_>, instance: &Value) -> Vec<Segment> {
    let pointer = error.instance_path().as_str();
    let mut segments = Vec::new();
    let mut current = Some(instance);
    for raw in pointer.split('/').skip(1) {
        let name = raw.replace("~1", "/").replace("~0", "~");
        let segment = match current {
            Some(Value::Array(items)) => match name.parse::<usize>() {
                Ok(i) => {
                    current = items.get(i);
                    Segment::Index(i)
                }
                Err(_) => {
                    current = None;
                    Segment::Property(name)
                }
            },
            Some(Value::Object(map)) => {
                current = map.get(&name);
                Segment::Property(name)
            }
            _ => {
                current = None;
                Segment::Property(name)
            }
        };
        segments.push(segment);
    }
    segments
}

enum Segment {
    Property(String),
    Index(usize),
}

fn join_path(segments: &[Segment], last: Option<&str>) -> String {
    let mut path = String::new();
    let all = segments
        .iter()
        .map(|s| match s {
            Segment::Property(p) => Segment::Property(p.clone()),
            Segment::Index(i) => Segment::Index(*i),
        })
        .chain(last.map(|l| Segment::Property(l.to_owned())));
    for segment in all {
        match segment {
            Segment::Property(p) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&bounded(&p));
            }
            Segment::Index(i) => path.push_str(&format!("[{i}]")),
        }
    }
    quote(&path)
}

fn bounded(text: &str) -> String {
    if text.len() <= MAX_QUOTED_BYTES {
        text.to_owned()
    } else {
        format!(
            "{}…",
            dsh_output_retention::head_slice(text, MAX_QUOTED_BYTES)
        )
    }
}

/// JSON string quoting (escapes quotes and control characters such as NUL).
fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

/// A schema value (enum option, const, limit) as compact JSON, bounded.
fn json(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    bounded(&text)
}

fn type_words(kind: &TypeKind) -> String {
    let words = |t: jsonschema::JsonType| match t.as_str() {
        "null" => "null",
        "boolean" => "a boolean",
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "array" => "an array",
        "object" => "an object",
        other => other,
    };
    match kind {
        TypeKind::Single(t) => words(*t).to_owned(),
        TypeKind::Multiple(set) => {
            // `null` reads best last: "a string or null".
            let mut names: Vec<&str> = set.iter().map(words).collect();
            names.sort_by_key(|n| *n == "null");
            match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    format!("{} or {last}", rest.join(", "))
                }
                _ => names.join(""),
            }
        }
    }
}

/// At most this many declared property names are listed after an undeclared one.
const MAX_LISTED_PROPERTIES: usize = 12;

/// The property names declared next to the `additionalProperties` (or
/// `unevaluatedProperties`) keyword at `schema_path`, in schema order.
fn declared_properties(schema: &Value, schema_path: &str) -> Vec<String> {
    let parent = schema_path
        .rsplit_once('/')
        .map_or("", |(parent, _)| parent);
    schema
        .pointer(parent)
        .and_then(|node| node.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Most characters of a property's description a missing-property message quotes.
const DESCRIPTION_QUOTED_CHARS: usize = 160;

/// The description of property `name` in the object schema that `schema_path` (a keyword's
/// path, such as `/required`) sits in: whole when it has at most
/// [`DESCRIPTION_QUOTED_CHARS`], else cut there (after its last sentence that fits).
fn property_description(schema: &Value, schema_path: &str, name: &str) -> Option<String> {
    let parent = schema_path
        .rsplit_once('/')
        .map_or("", |(parent, _)| parent);
    let text = schema
        .pointer(parent)?
        .get("properties")?
        .get(name)?
        .get("description")?
        .as_str()?
        .trim();
    let cut: String = text.chars().take(DESCRIPTION_QUOTED_CHARS).collect();
    Some(if cut.len() == text.len() {
        cut
    } else {
        match cut.rfind(". ") {
            Some(end) => cut[..=end].to_owned(),
            None => format!("{cut}…"),
        }
    })
}

/// `name` with case, `_` and `-` set aside: how two names a model may mix up compare
/// (`timeoutMs` and `timeout_ms`, `Terminal-Send` and `terminal_send`).
pub(crate) fn fold_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The declared name `name` most likely meant: the same letters ignoring case, `_` and `-`
/// (`timeoutMs` for `timeout_ms`).
fn likely_meant<'a>(name: &str, declared: &'a [String]) -> Option<&'a String> {
    let folded = fold_name(name);
    declared.iter().find(|d| fold_name(d) == folded)
}

/// One message per undeclared property: each names the declared property it likely meant;
/// when some name matches none, the last message lists the declared names once.
fn undeclared(
    path: impl Fn(&str) -> String,
    unexpected: &[String],
    declared: &[String],
) -> Vec<String> {
    let mut unmatched = false;
    let mut out: Vec<String> = unexpected
        .iter()
        .map(|name| match likely_meant(name, declared) {
            Some(meant) => format!(
                "{} is not a declared property (did you mean {}?)",
                path(name),
                quote(meant)
            ),
            None => {
                unmatched = true;
                format!("{} is not a declared property", path(name))
            }
        })
        .collect();
    if unmatched
        && !declared.is_empty()
        && let Some(last) = out.last_mut()
    {
        let listed: Vec<String> = declared
            .iter()
            .take(MAX_LISTED_PROPERTIES)
            .map(|d| quote(&bounded(d)))
            .collect();
        let more = if declared.len() > MAX_LISTED_PROPERTIES {
            ", …"
        } else {
            ""
        };
        last.push_str(&format!(" (declared: {}{more})", listed.join(", ")));
    }
    out
}

fn describe(error: &ValidationError<'_>, schema: Option<&Value>, instance: &Value) -> Vec<String> {
    let segments = path_segments(error, instance);
    let at_root = segments.is_empty();
    let path = join_path(&segments, None);
    let subject = if at_root {
        "arguments".to_owned()
    } else {
        path.clone()
    };
    let one = |s: String| vec![s];
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| json(property), str::to_owned);
            // What the property is, in its schema's words (`usually "shell"`).
            let about = schema
                .and_then(|schema| {
                    property_description(schema, error.schema_path().as_str(), &name)
                })
                .map(|about| format!(" ({about})"))
                .unwrap_or_default();
            one(format!(
                "missing required property {}{about}",
                join_path(&segments, Some(&name))
            ))
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let declared = schema
                .map(|schema| declared_properties(schema, error.schema_path().as_str()))
                .unwrap_or_default();
            undeclared(
                |name| join_path(&segments, Some(name)),
                unexpected,
                &declared,
            )
        }
        ValidationErrorKind::Type { kind } => {
            one(format!("{subject} must be {}", type_words(kind)))
        }
        ValidationErrorKind::Enum { options } => {
            let list = match options.as_ref() {
                Value::Array(items) => items.iter().map(json).collect::<Vec<_>>().join(", "),
                other => json(other),
            };
            one(format!("{subject} must be one of [{list}]"))
        }
        ValidationErrorKind::Constant { expected_value } => {
            one(format!("{subject} must be {}", json(expected_value)))
        }
        ValidationErrorKind::Minimum { limit } => one(format!("{subject} must be >= {limit}")),
        ValidationErrorKind::Maximum { limit } => one(format!("{subject} must be <= {limit}")),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            one(format!("{subject} must be > {limit}"))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            one(format!("{subject} must be < {limit}"))
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            one(format!("{subject} must be a multiple of {multiple_of}"))
        }
        ValidationErrorKind::MinLength { limit } => one(format!(
            "{subject} must be at least {limit} character{} long",
            plural(*limit)
        )),
        ValidationErrorKind::MaxLength { limit } => one(format!(
            "{subject} must be at most {limit} character{} long",
            plural(*limit)
        )),
        ValidationErrorKind::MinItems { limit } => one(format!(
            "{subject} must have at least {limit} item{}",
            plural(*limit)
        )),
        ValidationErrorKind::MaxItems { limit } => one(format!(
            "{subject} must have at most {limit} item{}",
            plural(*limit)
        )),
        ValidationErrorKind::MinProperties { limit } => one(format!(
            "{subject} must have at least {limit} propert{}",
            if *limit == 1 { "y" } else { "ies" }
        )),
        ValidationErrorKind::MaxProperties { limit } => one(format!(
            "{subject} must have at most {limit} propert{}",
            if *limit == 1 { "y" } else { "ies" }
        )),
        ValidationErrorKind::Pattern { pattern } => one(format!(
            "{subject} must match the pattern {}",
            quote(&bounded(pattern))
        )),
        ValidationErrorKind::Format { format } => {
            one(format!("{subject} must be a valid {}", bounded(format)))
        }
        ValidationErrorKind::UniqueItems => {
            one(format!("{subject} must not contain duplicate items"))
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            one(format!("{subject} does not match any of the allowed forms"))
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => one(format!(
            "{subject} matches more than one of the allowed forms"
        )),
        ValidationErrorKind::FalseSchema => one(format!("{subject} is not allowed")),
        other => one(format!(
            "{subject} violates the {:?} constraint",
            other.keyword()
        )),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{id_argument, integers_out_of_range, nulls_as_absent, whole_numbers_as_integers};

    /// Blanks around an id are dropped; control characters left inside refuse it.
    #[test]
    fn id_arguments() {
        for (raw, id) in [
            ("pty-1", Some("pty-1")),
            (" pty-1\n", Some("pty-1")),
            ("\u{a0}pty-send-2\t", Some("pty-send-2")),
            ("pty-\n1", None),
            ("pty\u{1b}[31m-1", None),
        ] {
            assert_eq!(id_argument(raw), id, "{raw:?}");
        }
    }

    #[test]
    fn optional_nulls_are_left_out_where_the_property_is_typed() {
        let schema = json!({
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "string"},
                "offset": {"type": "integer"},
                "submit": {"type": ["boolean", "null"]},
                "untyped": {"description": "any value"},
                "size": {
                    "type": "object",
                    "properties": {"cols": {"type": "integer"}}
                }
            }
        });
        let args = json!({
            "id": null,
            "offset": null,
            "submit": null,
            "untyped": null,
            "undeclared": null,
            "size": {"cols": null}
        });
        assert_eq!(
            nulls_as_absent(&schema, args),
            // A required one, an untyped one and an undeclared one keep theirs (validation
            // judges them); a typed optional one is left out, whether its type lists null
            // (as the published schema's do) or not.
            json!({"id": null, "untyped": null, "undeclared": null, "size": {}})
        );
    }

    /// A whole number past the 64-bit range is refused by name, not read as the largest one.
    #[test]
    fn integers_past_the_64_bit_range_are_named_not_saturated() {
        let schema = json!({
            "type": "object",
            "properties": {
                "offset": {"type": ["integer", "null"], "minimum": 0},
                "ratio": {"type": "number"},
                "size": {"type": "object", "properties": {"cols": {"type": "integer"}}}
            }
        });
        let args: serde_json::Value = serde_json::from_str(
            r#"{"offset": 18446744073709551616, "ratio": 1e30, "size": {"cols": -1e30}}"#,
        )
        .unwrap_or_default();
        let converted = whole_numbers_as_integers(&schema, args.clone());
        // Left as sent (a float), not saturated to u64::MAX.
        assert_eq!(converted, args);
        assert_eq!(
            integers_out_of_range(&schema, &converted, ""),
            [
                "\"offset\" is above the largest integer this server reads (18446744073709551615)",
                "\"size.cols\" is below the smallest integer this server reads (-9223372036854775808)",
            ]
        );
        // In range, a whole float is the integer; the largest u64 itself is taken.
        let args: serde_json::Value =
            serde_json::from_str(r#"{"offset": 2.0, "size": {"cols": 18446744073709551615}}"#)
                .unwrap_or_default();
        let converted = whole_numbers_as_integers(&schema, args);
        assert_eq!(
            converted,
            json!({"offset": 2, "size": {"cols": 18_446_744_073_709_551_615_u64}})
        );
        assert!(integers_out_of_range(&schema, &converted, "").is_empty());
    }
}

//! The [`Tools`] registry service and its execute pipeline.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::RwLock;

use dsh_context::{Agent, BoxError, Plugin, Registrar, ServiceKey};
use jsonschema::Validator;
use serde_json::Value;
use tracing::Instrument;

use crate::approval::{
    APPROVAL_TIMEOUT, ApprovalOutcome, ApprovalRequest, AroundExecute, Next, ask, denial, wrap,
};
use crate::erased::{CatchUnwind, Erased, ErasedTool, catch, internal_error, invalid_args};
use crate::policy::{PostExecute, PreExecute, ToolCallInfo, Verdict, decide};
use crate::schema::{SchemaError, input_schema_for, normalize_schema, output_schema_for};
use crate::tool::{Card, Tool, ToolCall, ToolResult, codes};
use crate::validate::{nulls_as_absent, violations, whole_numbers_as_integers};

/// What the model sees of a tool (and what MCP `tools/list` publishes).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSchema {
    /// The tool name.
    pub name: String,
    /// The tool description.
    pub description: String,
    /// The normalised, shaped parameter schema (a closed object).
    pub input_schema: Value,
    /// The normalised output schema (a closed object).
    pub output_schema: Value,
}

/// Registration errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsError {
    /// A tool with this name is already registered.
    #[error("tool {name:?} is already registered; unregister it first or pick another name")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// Tool names are 1–64 characters of `[A-Za-z0-9_-]`.
    #[error("tool name {name:?} is invalid: use 1-64 characters of [A-Za-z0-9_-]")]
    InvalidName {
        /// The name.
        name: String,
    },
    /// A schema is outside the supported subset.
    #[error("tool {tool:?} has an unsupported {which} schema: {source}")]
    Schema {
        /// The tool name.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// What is wrong.
        source: SchemaError,
    },
    /// The schema does not compile as JSON Schema 2020-12.
    #[error("tool {tool:?} has an invalid {which} schema: {message}")]
    Compile {
        /// The tool name.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// The validator's message.
        message: String,
    },
}

struct Entry {
    schema: ToolSchema,
    /// How the tool's calls are ordered ([`Tool::arrival`]).
    arrival: Option<crate::Arrival>,
    validator: Validator,
    tool: Box<dyn ErasedTool>,
}

#[derive(Default)]
struct Policies {
    pre: Vec<Arc<dyn PreExecute>>,
    around: Vec<Arc<dyn AroundExecute>>,
    post: Vec<Arc<dyn PostExecute>>,
}

/// The tool registry service (the seed's §6).
///
/// # Pipeline order ([`Tools::execute`])
///
/// 1. Unknown name → `UNKNOWN_TOOL` (returned as is: there is no tool to finalize).
/// 2. `null` arguments become `{}`; an optional parameter given as `null` is left out (as
///    clients that make every optional argument nullable send them); a whole number written as a float where
///    an integer is declared becomes that integer.
/// 3. Caller already cancelled → `ABORTED_BEFORE_DISPATCH` (skips policies).
/// 4. Pre-execute policies, in the order added (the first added sees the call first),
///    combined strictest-first: the first `Deny` wins, else an `Ask` goes to the call's
///    [`Approval`](crate::Approval) service (approved once → allow; rejected, cancelled, no
///    service, an answer not understood, no answer within
///    [`APPROVAL_TIMEOUT`](crate::APPROVAL_TIMEOUT), or the call's target gone meanwhile
///    ([`Tool::approval_moot`]) → a denial saying which), else allow. A denial skips the tool
///    but still goes through step 7. Allowed calls run inside the around-execute wrappers
///    ([`Tools::add_around_execute`]), which may short-circuit.
/// 5. Validation against the compiled parameter schema: every violation reported at once
///    (`INVALID_ARGS`); then deserialization (serde errors are `INVALID_ARGS` too).
/// 6. The tool runs; success → `structured` = the output value (checked against the output
///    schema), content = `render`; `ToolError` → `Error: <message>`. A success after the caller
///    cancelled becomes `ABORTED`.
/// 7. Post-execute policies, in the order added, on every result from steps 3–6.
/// 8. The tool's `finalize_call` (by default `finalize_content`), exactly once, on every
///    result from steps 3–7.
///
/// Panics in the tool, a policy or the finalizer become `INTERNAL` error results.
#[derive(Default)]
pub struct Tools {
    entries: RwLock<BTreeMap<String, Arc<Entry>>>,
    policies: RwLock<Policies>,
}

impl std::fmt::Debug for Tools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.list().into_iter().map(|s| s.name).collect();
        f.debug_struct("Tools").field("tools", &names).finish()
    }
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Tools {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `tool`: generates and normalises its schemas, applies
    /// [`Tool::shape_parameters`], lists `null` among the types of its optional parameters
    /// (the pipeline takes `null` there as the parameter left out), and compiles the
    /// parameter validator once (2020-12).
    ///
    /// # Errors
    /// [`ToolsError::Duplicate`], [`ToolsError::InvalidName`], [`ToolsError::Schema`] or
    /// [`ToolsError::Compile`].
    pub fn register<T: Tool>(&self, tool: T) -> Result<(), ToolsError> {
        let name = tool.name();
        if !valid_name(name) {
            return Err(ToolsError::InvalidName {
                name: name.to_owned(),
            });
        }
        let schema_err = |which, source| ToolsError::Schema {
            tool: name.to_owned(),
            which,
            source,
        };
        let input = input_schema_for::<T::Args>().map_err(|e| schema_err("input", e))?;
        let input =
            normalize_schema(tool.shape_parameters(input)).map_err(|e| schema_err("input", e))?;
        // What the pipeline takes as an argument left out (`null` for an optional one), the
        // published and validated schema admits.
        let output = output_schema_for::<T::Output>().map_err(|e| schema_err("output", e))?;
        let compile = |which, schema: &Value| {
            jsonschema::draft202012::new(schema).map_err(|e| ToolsError::Compile {
                tool: name.to_owned(),
                which,
                message: e.to_string(),
            })
        };
        let validator = compile("input", &input)?;
        let output_validator = compile("output", &output)?;
        let entry = Arc::new(Entry {
            schema: ToolSchema {
                name: name.to_owned(),
                description: tool.description(),
                input_schema: input,
                output_schema: output,
            },
            arrival: tool.arrival(),
            validator,
            tool: Box::new(Erased {
                tool,
                output_validator,
            }),
        });
        let mut entries = self.entries.write();
        if entries.contains_key(name) {
            return Err(ToolsError::Duplicate {
                name: name.to_owned(),
            });
        }
        entries.insert(name.to_owned(), entry);
        Ok(())
    }

    /// Removes a tool; calls already running keep their snapshot of it.
    pub fn unregister(&self, name: &str) {
        let mut entries = self.entries.write();
        entries.remove(name);
    }

    /// Every tool's schema, lexicographic by name.
    pub fn list(&self) -> Vec<ToolSchema> {
        let entries = self.entries.read();
        entries.values().map(|e| e.schema.clone()).collect()
    }

    /// Adds a pre-execute policy (runs after those already added).
    pub fn add_pre_execute(&self, policy: Arc<dyn PreExecute>) {
        let mut p = self.policies.write();
        p.pre.push(policy);
    }

    /// Adds an around-execute wrapper (nested inside those already added).
    pub fn add_around_execute(&self, wrapper: Arc<dyn AroundExecute>) {
        let mut p = self.policies.write();
        p.around.push(wrapper);
    }

    /// Adds a post-execute policy (runs after those already added).
    pub fn add_post_execute(&self, policy: Arc<dyn PostExecute>) {
        let mut p = self.policies.write();
        p.post.push(policy);
    }

    /// How the calls of the tool `name` take their place among the calls to one target
    /// ([`Tool::arrival`]); `None` for a tool that declares none or is not registered.
    pub fn arrival(&self, name: &str) -> Option<crate::Arrival> {
        self.entries.read().get(name)?.arrival
    }

    /// The tool's call card, if the arguments are valid and the tool presents one.
    pub fn present_call(&self, name: &str, args: &Value) -> Option<Card> {
        let entry = self.entry(name)?;
        let args = object_or_empty(args.clone());
        if !entry.validator.is_valid(&args) {
            return None;
        }
        catch(|| entry.tool.present_call(&args)).flatten()
    }

    /// The tool's result card, if the arguments are valid and the tool presents one.
    pub fn present_result(&self, name: &str, args: &Value, result: &ToolResult) -> Option<Card> {
        let entry = self.entry(name)?;
        let args = object_or_empty(args.clone());
        if !entry.validator.is_valid(&args) {
            return None;
        }
        catch(|| entry.tool.present_result(&args, result)).flatten()
    }

    fn entry(&self, name: &str) -> Option<Arc<Entry>> {
        let entries = self.entries.read();
        entries.get(name).cloned()
    }

    /// The registered tool name a mistyped `name` most likely meant (`terminal_sned`,
    /// `Terminal-Send`): the one nearest by edit distance, case, `-` and `_` aside, when it is
    /// at most [`NEAREST_NAME_MAX_EDITS`] edits away and no other is as near. Names longer than
    /// [`NEAREST_NAME_MAX_CHARS`] characters get none.
    fn nearest_name(&self, name: &str) -> Option<String> {
        if name.chars().count() > NEAREST_NAME_MAX_CHARS {
            return None;
        }
        let wanted = crate::validate::fold_name(name);
        let entries = self.entries.read();
        let mut by_distance: Vec<(usize, &String)> = entries
            .keys()
            .map(|known| {
                let edits =
                    strsim::damerau_levenshtein(&wanted, &crate::validate::fold_name(known));
                (edits, known)
            })
            .filter(|(edits, _)| *edits <= NEAREST_NAME_MAX_EDITS)
            .collect();
        by_distance.sort();
        match by_distance.as_slice() {
            [(best, known), rest @ ..] if rest.first().is_none_or(|(next, _)| next > best) => {
                Some((*known).clone())
            }
            _ => None,
        }
    }

    /// Runs one call through the pipeline (see the type docs for the order). Never panics.
    ///
    /// # Cancel safety
    /// Dropping the future drops the tool's future at its current await point; prefer
    /// cancelling `call.cancel` and awaiting the result.
    pub async fn execute(&self, name: &str, args: Value, call: ToolCall) -> ToolResult {
        let span = tracing::info_span!("tool", tool = %name, call_id = %call.call_id);
        self.execute_inner(name, args, call).instrument(span).await
    }

    async fn execute_inner(&self, name: &str, args: Value, call: ToolCall) -> ToolResult {
        // Snapshot the tool (and with it its finalizer): a later unregister cannot remove it.
        let Some(entry) = self.entry(name) else {
            tracing::debug!("unknown tool");
            // Short enough for the smallest result cap a host allows (64 bytes, with the
            // `Error: ` prefix): this result has no tool to bound it.
            let text = match self.nearest_name(name) {
                Some(meant) => format!("unknown tool; did you mean {meant:?}?"),
                None => format!(
                    "unknown tool {}; call tools/list",
                    quote_within(name, UNKNOWN_NAME_QUOTE_BYTES)
                ),
            };
            return ToolResult::error(text, Some(codes::UNKNOWN_TOOL));
        };
        let args = whole_numbers_as_integers(
            &entry.schema.input_schema,
            nulls_as_absent(&entry.schema.input_schema, object_or_empty(args)),
        );
        let agent = call.agent.clone();
        let finalize_args = args.clone();
        let result = if call.cancel.is_cancelled() {
            aborted_before_dispatch()
        } else {
            let info = ToolCallInfo {
                name: name.to_owned(),
                args,
                agent_id: call.agent.as_ref().map(|a| a.id().to_owned()),
            };
            let (pre, around, post) = {
                let p = self.policies.read();
                (p.pre.clone(), p.around.clone(), p.post.clone())
            };
            let mut call = call;
            let verdict = match decide(&pre, &info) {
                Ok(Verdict::Ask(reason)) => {
                    call.approval_asked_at = Some(std::time::Instant::now());
                    // The calls after it do not wait for a human's answer (see
                    // `ArrivalOrder`): approved, it acts on the target as it is then.
                    call.arrival_done();
                    let outcome = match call.approver() {
                        Some(approver) => {
                            let request = ApprovalRequest {
                                tool: name.to_owned(),
                                args: info.args.clone(),
                                reason: reason.clone(),
                                agent_id: info.agent_id.clone(),
                            };
                            // The wait ends also when what the call acts on goes away (its
                            // session closed), and at the approval deadline.
                            let moot =
                                catch(|| entry.tool.approval_moot(&info.args, &call)).flatten();
                            ask(
                                approver.as_ref(),
                                request,
                                &call.cancel,
                                moot,
                                APPROVAL_TIMEOUT,
                            )
                            .await
                            .map_err(|()| "approval service")
                        }
                        None => Ok(ApprovalOutcome::Unavailable {
                            why: "no approval service is configured".to_owned(),
                        }),
                    };
                    // A call given up while it waited (its client went away) does not run
                    // on an approval that came later.
                    let outcome = outcome.map(|o| match o {
                        ApprovalOutcome::Approved if call.cancel.is_cancelled() => {
                            ApprovalOutcome::Cancelled
                        }
                        o => o,
                    });
                    outcome.map(|o| {
                        match denial(
                            &quote_within(name, DENIED_NAME_QUOTE_BYTES),
                            &reason,
                            Some(o),
                        ) {
                            Some(text) => Verdict::Deny(text),
                            None => Verdict::Allow,
                        }
                    })
                }
                other => other,
            };
            let mut result = match verdict {
                Err(stage) => internal_error(name, stage),
                Ok(Verdict::Deny(reason) | Verdict::Ask(reason)) => {
                    ToolResult::error(reason, Some(codes::DENIED))
                }
                Ok(Verdict::Allow) => {
                    let body = Next::new(|| Box::pin(dispatch(&entry, &info.args, call)));
                    match CatchUnwind(Box::pin(wrap(&around, &info, body))).await {
                        Ok(result) => result,
                        Err(()) => internal_error(name, "around-execute wrapper"),
                    }
                }
            };
            for policy in &post {
                if catch(|| policy.after(&info, &mut result)).is_none() {
                    result = internal_error(name, "post-execute policy");
                }
            }
            result
        };
        finalize(&entry, name, &finalize_args, agent.as_ref(), result)
    }
}

async fn dispatch(entry: &Entry, args: &Value, call: ToolCall) -> ToolResult {
    let problems = violations(&entry.validator, Some(&entry.schema.input_schema), args);
    if !problems.is_empty() {
        return invalid_args(&problems);
    }
    let cancel = call.cancel.clone();
    let name = entry.schema.name.as_str();
    let result = match CatchUnwind(Box::pin(entry.tool.run(args.clone(), call))).await {
        Ok(result) => result,
        Err(()) => internal_error(name, "tool execute or render"),
    };
    if cancel.is_cancelled() && !result.is_error {
        return ToolResult::error("tool call aborted", Some(codes::ABORTED));
    }
    result
}

fn finalize(
    entry: &Entry,
    name: &str,
    args: &Value,
    agent: Option<&Agent>,
    mut result: ToolResult,
) -> ToolResult {
    match catch(|| entry.tool.finalize(args, agent, &result.content)) {
        Some(Some(content)) => result.content = content,
        Some(None) => {}
        // A panicking finalizer yields an error result and is not called again.
        None => result = internal_error(name, "finalize_content"),
    }
    result
}

fn aborted_before_dispatch() -> ToolResult {
    ToolResult::error(
        "tool call aborted before dispatch: the client cancelled it, or its connection ended, before it ran; nothing was done",
        Some(codes::ABORTED_BEFORE_DISPATCH),
    )
}

fn object_or_empty(args: Value) -> Value {
    match args {
        Value::Null => Value::Object(serde_json::Map::new()),
        other => other,
    }
}

/// Most bytes the quoted name in an unknown-tool error takes (quotes and `…` included).
const UNKNOWN_NAME_QUOTE_BYTES: usize = 24;

/// Most edits between a mistyped tool name and the one suggested for it.
const NEAREST_NAME_MAX_EDITS: usize = 3;

/// Longest mistyped tool name (in characters) a suggestion is looked for.
const NEAREST_NAME_MAX_CHARS: usize = 64;

/// Most bytes the quoted name in a policy denial takes (quotes and `…` included).
const DENIED_NAME_QUOTE_BYTES: usize = 85;

/// `text` as a JSON string of at most `max_bytes` bytes, cut at a character boundary and
/// followed by `…` when it does not fit whole.
fn quote_within(text: &str, max_bytes: usize) -> String {
    let whole = serde_json::to_string(text).unwrap_or_default();
    if whole.len() <= max_bytes {
        return whole;
    }
    let mut end = text.len().min(max_bytes);
    loop {
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let quoted = format!(
            "{}…",
            serde_json::to_string(&text[..end]).unwrap_or_default()
        );
        if quoted.len() <= max_bytes || end == 0 {
            return quoted;
        }
        end -= 1;
    }
}

/// Provides [`Tools`] (as `Arc<Tools>`) under the plugin name `tools`.
pub struct ToolsPlugin;

impl Plugin for ToolsPlugin {
    fn name(&self) -> &str {
        "tools"
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<Tools>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        r.provide(Arc::new(Tools::new()));
        Ok(())
    }
}

/// This crate's invariant companion. When [`Tools`] is present it checks that `list()` is
/// strictly sorted by name (so names are unique) and every published parameter and output
/// schema is a closed object (`"type": "object"`, `"additionalProperties": false`) with no
/// `$ref` or `$defs` left.
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::check("dsh-tools", |ctx| {
        let Some(tools) = ctx.get::<Tools>() else {
            return Ok(());
        };
        check_tools(&tools)
    })
}

pub(crate) fn check_tools(tools: &Tools) -> Result<(), String> {
    let list = tools.list();
    if let Some(w) = list.windows(2).find(|w| w[0].name >= w[1].name) {
        return Err(format!(
            "tools/list is not strictly sorted: {:?} before {:?}",
            w[0].name, w[1].name
        ));
    }
    for t in &list {
        for (which, schema) in [("input", &t.input_schema), ("output", &t.output_schema)] {
            let closed = schema.get("type") == Some(&Value::String("object".into()))
                && schema.get("additionalProperties") == Some(&Value::Bool(false))
                && schema.get("properties").is_some_and(Value::is_object);
            // An output may be a tagged union: a root `oneOf` whose branches are all objects.
            let object_union = which == "output"
                && schema.get("type") == Some(&Value::String("object".into()))
                && schema
                    .get("oneOf")
                    .and_then(Value::as_array)
                    .is_some_and(|branches| {
                        !branches.is_empty()
                            && branches.iter().all(|b| {
                                b.get("type") == Some(&Value::String("object".into()))
                                    && b.get("additionalProperties") == Some(&Value::Bool(false))
                            })
                    });
            if !closed && !object_union {
                return Err(format!(
                    "tool {:?} {which} schema is not a closed object",
                    t.name
                ));
            }
            let text = schema.to_string();
            if text.contains("\"$ref\"") || text.contains("\"$defs\"") {
                return Err(format!(
                    "tool {:?} {which} schema still has $ref/$defs",
                    t.name
                ));
            }
        }
    }
    Ok(())
}

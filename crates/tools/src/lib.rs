//! The tool registry and the tool contract (the seed's §6).
//!
//! A [`Tool`] has exactly one Rust argument type and one output type; the model-visible JSON
//! Schemas are generated from them (schemars) and normalised by one function,
//! [`normalize_schema`]. The [`Tools`] service registers tools (compiling a JSON Schema 2020-12
//! validator once per tool), lists them, and runs calls through one pipeline: cancellation
//! check, pre-execute policies, validation reporting every violation, deserialization, the
//! tool body, post-execute policies, and the tool's [`Tool::finalize_content`] exactly once on
//! every outcome. [`ToolsPlugin`] provides the service to a `dsh_context::Context`.
//!
//! ```
//! use dsh_tools::{Tool, ToolCall, ToolError, Tools};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct EchoArgs {
//!     /// Text to echo back.
//!     text: String,
//! }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct EchoOutput {
//!     /// The echoed text.
//!     text: String,
//! }
//!
//! struct Echo;
//! impl Tool for Echo {
//!     type Args = EchoArgs;
//!     type Output = EchoOutput;
//!     fn name(&self) -> &'static str { "echo" }
//!     fn description(&self) -> String { "Echo text back.".into() }
//!     async fn execute(&self, args: EchoArgs, _call: ToolCall) -> Result<EchoOutput, ToolError> {
//!         Ok(EchoOutput { text: args.text })
//!     }
//!     fn render(&self, _args: &EchoArgs, output: &EchoOutput) -> String {
//!         output.text.clone()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let tools = Tools::new();
//! tools.register(Echo).unwrap();
//! let ok = tools.execute("echo", serde_json::json!({"text": "hi"}), ToolCall::new("c1")).await;
//! assert_eq!(ok.text(), "hi");
//! let bad = tools.execute("echo", serde_json::json!({"text": 1}), ToolCall::new("c2")).await;
//! assert_eq!(bad.text(), "Error: invalid arguments: \"text\" must be a string");
//! # });
//! ```

#![forbid(unsafe_code)]

mod approval;
mod arrival;
mod erased;
mod policy;
mod registry;
mod schema;
mod tool;
mod validate;

pub use approval::{
    APPROVAL_TIMEOUT, Approval, ApprovalOutcome, ApprovalRequest, AroundExecute, Next,
};
pub use arrival::{Arrival, ArrivalOrder, ArrivalTicket};
pub use policy::{Decision, PostExecute, PreExecute, ToolCallInfo};
pub use registry::{ToolSchema, Tools, ToolsError, ToolsPlugin, invariant_companion};
pub use schema::{
    SchemaError, input_schema_for, normalize_output_schema, normalize_schema, output_schema_for,
};
pub use tool::{
    Card, CardKind, Content, ErrorInfo, ProgressSink, Tool, ToolCall, ToolError, ToolProgress,
    ToolResult, codes,
};
pub use validate::id_argument;

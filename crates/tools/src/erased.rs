//! The object-safe view of a typed [`Tool`], and the error results the pipeline produces.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use dsh_context::Agent;
use jsonschema::Validator;
use serde::Deserialize;
use serde_json::Value;

use crate::tool::{Card, Content, Tool, ToolCall, ToolResult, codes};
use crate::validate::violations;

/// Serde messages quoted in `invalid arguments: ...` are cut to this many bytes (they can
/// embed the offending value).
const MAX_SERDE_MESSAGE_BYTES: usize = 300;

/// Object-safe view of a [`Tool`].
#[async_trait::async_trait]
pub(crate) trait ErasedTool: Send + Sync {
    async fn run(&self, args: Value, call: ToolCall) -> ToolResult;
    fn finalize(
        &self,
        args: &Value,
        agent: Option<&Agent>,
        content: &[Content],
    ) -> Option<Vec<Content>>;
    fn present_call(&self, args: &Value) -> Option<Card>;
    fn present_result(&self, args: &Value, result: &ToolResult) -> Option<Card>;
    fn approval_moot(
        &self,
        args: &Value,
        call: &ToolCall,
    ) -> Option<dsh_context::BoxFuture<'static, String>>;
}

pub(crate) struct Erased<T: Tool> {
    pub(crate) tool: T,
    pub(crate) output_validator: Validator,
}

impl<T: Tool> Erased<T> {
    fn args(value: &Value) -> Result<T::Args, serde_json::Error> {
        T::Args::deserialize(value)
    }
}

#[async_trait::async_trait]
impl<T: Tool> ErasedTool for Erased<T> {
    async fn run(&self, args: Value, call: ToolCall) -> ToolResult {
        let parsed = match Self::args(&args) {
            Ok(a) => a,
            Err(e) => return invalid_args(&[serde_message(&e)]),
        };
        let output = match self.tool.execute(parsed, call).await {
            Ok(output) => output,
            Err(e) => return ToolResult::from(e),
        };
        let structured = match serde_json::to_value(&output) {
            Ok(v) => v,
            Err(e) => {
                return bad_output(self.tool.name(), &[e.to_string()]);
            }
        };
        let problems = violations(&self.output_validator, None, &structured);
        if !problems.is_empty() {
            return bad_output(self.tool.name(), &problems);
        }
        // `execute` consumed the arguments; they deserialized once, so they do again.
        let text = match Self::args(&args) {
            Ok(a) => self.tool.render(&a, &output),
            Err(e) => return invalid_args(&[serde_message(&e)]),
        };
        ToolResult::success(text, structured)
    }

    fn finalize(
        &self,
        args: &Value,
        agent: Option<&Agent>,
        content: &[Content],
    ) -> Option<Vec<Content>> {
        let args = Self::args(args).ok();
        self.tool.finalize_call(args.as_ref(), agent, content)
    }

    fn present_call(&self, args: &Value) -> Option<Card> {
        let args = Self::args(args).ok()?;
        self.tool.present_call(&args)
    }

    fn present_result(&self, args: &Value, result: &ToolResult) -> Option<Card> {
        let args = Self::args(args).ok()?;
        self.tool.present_result(&args, result)
    }

    fn approval_moot(
        &self,
        args: &Value,
        call: &ToolCall,
    ) -> Option<dsh_context::BoxFuture<'static, String>> {
        let args = Self::args(args).ok()?;
        self.tool.approval_moot(&args, call)
    }
}

pub(crate) fn serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if text.len() <= MAX_SERDE_MESSAGE_BYTES {
        text
    } else {
        format!(
            "{}…",
            dsh_output_retention::head_slice(&text, MAX_SERDE_MESSAGE_BYTES)
        )
    }
}

pub(crate) fn invalid_args(problems: &[String]) -> ToolResult {
    ToolResult::error(
        format!("invalid arguments: {}", problems.join("; ")),
        Some(codes::INVALID_ARGS),
    )
}

pub(crate) fn bad_output(tool: &str, problems: &[String]) -> ToolResult {
    tracing::error!(tool, problems = ?problems, "tool output does not match its output schema");
    ToolResult::error(
        format!(
            "tool {tool:?} produced output that does not match its output schema: {}",
            problems.join("; ")
        ),
        Some(codes::INVALID_TOOL_OUTPUT),
    )
}

pub(crate) fn internal_error(tool: &str, stage: &str) -> ToolResult {
    tracing::error!(tool, stage, "panic in tool pipeline");
    ToolResult::error(
        format!("tool {tool:?} failed unexpectedly ({stage}); the call had no result"),
        Some(codes::INTERNAL),
    )
}

/// Polls a future, turning a panic into `Err(())` (the host keeps serving other calls).
pub(crate) struct CatchUnwind<F>(pub(crate) Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let fut = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(_) => Poll::Ready(Err(())),
        }
    }
}

pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Option<R> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).ok()
}

//! `terminal_close`: a session's close, which ends its background send's job first and says
//! how many processes it stopped.

use std::sync::Arc;

use super::*;

/// `terminal_close`.
pub(crate) struct CloseTool(pub(crate) Arc<Shared>);

impl Tool for CloseTool {
    type Args = CloseArgs;
    type Output = CloseOutput;

    fn name(&self) -> &'static str {
        "terminal_close"
    }
    fn arrival(&self) -> Option<dsh_tools::Arrival> {
        Some(crate::SESSION_CALL)
    }
    fn description(&self) -> String {
        "Close one terminal session: stop every process it started (the shell, its programs and anything they left running in the background), wait until they are gone, and say how many were stopped. A background send on the session ends as killed."
            .to_owned()
    }
    async fn execute(&self, args: CloseArgs, call: ToolCall) -> Result<CloseOutput, ToolError> {
        let owner = require_agent(&call)?;
        let id = session_id(&args.session_id)?;
        // Calls to the session written together with this one, before it, are done first (a
        // send's command runs to its end before the close).
        call.arrival_turn().await?;
        // A background send on the session ends first (as killed); the close then settles it.
        let ended_job = self
            .0
            .background
            .as_ref()
            .and_then(|background| background.end_session_job(&owner, &id));
        // Close is not abandoned on cancellation: a half-finished teardown would leave
        // processes behind.
        let outcome = self
            .0
            .terminals
            .kill(&owner, &id)
            .await
            .map_err(terminal_error)?;
        if let Some(background) = &self.0.background {
            background.forget(&owner, &id);
        }
        Ok(match outcome {
            CloseOutcome::Closed(report) => CloseOutput {
                session_id: id.to_string(),
                outcome: CloseOutcomeOutput::Closed,
                processes_stopped: Some(report.processes_stopped),
                ended_job: ended_job.map(|job| job.to_string()),
            },
            CloseOutcome::AlreadyClosing => CloseOutput {
                session_id: id.to_string(),
                outcome: CloseOutcomeOutput::AlreadyClosing,
                processes_stopped: None,
                ended_job: ended_job.map(|job| job.to_string()),
            },
        })
    }
    fn render(&self, _args: &CloseArgs, out: &CloseOutput) -> String {
        render::render_close(
            &out.session_id,
            out.processes_stopped,
            out.ended_job.as_deref(),
        )
    }
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.0.finalize(content)
    }
    fn present_call(&self, args: &CloseArgs) -> Option<Card> {
        Some(generic_card(
            format!("Close terminal {}", args.session_id),
            "delete",
        ))
    }
}

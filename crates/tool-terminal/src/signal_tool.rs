//! `terminal_signal`: a signal to a session's foreground process group, and how its delivery
//! reads (to a program, as the terminal's interrupt or suspend character, to the shell itself).

use std::sync::Arc;

use dsh_terminal_core::{AfterSignal, SignalDelivery};

use super::*;

/// How long after a SIGINT, SIGTERM or SIGHUP a program still holding the terminal without
/// reading input is said to be still running (it ignores or handles the signal). The answer
/// waits that long at most for the program to end or read again, so the next send finds the
/// terminal as the signal left it (a pager dying of SIGHUP still held it and its modes, and
/// a command sent at once was refused as one meant for the shell).
const STILL_RUNNING_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// `terminal_signal`.
pub(crate) struct SignalTool(pub(crate) Arc<Shared>);

impl Tool for SignalTool {
    type Args = SignalArgs;
    type Output = SignalOutput;

    fn name(&self) -> &'static str {
        "terminal_signal"
    }
    fn arrival(&self) -> Option<dsh_tools::Arrival> {
        Some(crate::SESSION_CALL)
    }
    fn description(&self) -> String {
        "Send an allowed signal to the current foreground process group of a persistent terminal."
            .to_owned()
    }
    async fn execute(&self, args: SignalArgs, call: ToolCall) -> Result<SignalOutput, ToolError> {
        let owner = require_agent(&call)?;
        let id = session_id(&args.session_id)?;
        let signal: TerminalSignal = args.signal.into();
        // Calls to the session written together with this one, before it, have started first
        // (the signal goes to what a send written before it started).
        call.arrival_turn_started().await?;
        // Off the async workers: the signal reads `/proc`, and waits a moment for a REPL
        // still taking in its line (see `Terminals::signal`).
        let (terminals, agent, session) =
            (Arc::clone(&self.0.terminals), owner.clone(), id.clone());
        let result = tokio::task::spawn_blocking(move || {
            terminals.signal(&agent, &session, signal)
        })
        .await
        .map_err(|e| {
            ToolError::new(format!(
                "terminal_signal did not finish ({e}); check terminal_list before sending it again"
            ))
        })?
        .map_err(terminal_error)?;
        call.arrival_done();
        if result.delivered
            && let Some(background) = self.0.background.as_ref()
        {
            background.note_signal(&id);
            background.clear_gone_reader(&id);
        }
        // A program that ignores or handles the signal is said to be still running now, not
        // when the next send, typed into it, has waited out its deadline; one that goes on
        // waiting at the prompt it was answering (the shell's own `read` too, under a trap),
        // that the next text answers it. (SIGKILL always ends it: the next send waits the
        // kill out.)
        // A Ctrl-C written to a program reading keys raw (its signal keys off) is looked at
        // alike: a raw-mode prompt that ignores it goes on waiting, as a password prompt
        // under SIG_IGN does.
        // Any signal to a program is looked at for its end or its stop: the shell holds the
        // terminal again, and text meant for the program would run there (node ends on a
        // second Ctrl-C; SIGTSTP stops a REPL).
        let as_key = result.delivery == SignalDelivery::InterruptCharacter
            && signal == TerminalSignal::Sigint;
        let looks_for_survival = matches!(
            signal,
            TerminalSignal::Sigint | TerminalSignal::Sigterm | TerminalSignal::Sighup
        ) && (result.delivery == SignalDelivery::ProcessGroup || as_key);
        let after = if result.delivered
            && result.delivery != SignalDelivery::WhenCommandStarts
            && (!result.shell_targeted || result.shell_ran_command)
        {
            self.0
                .terminals
                .after_signal(&owner, &id, result.target_pgid, STILL_RUNNING_AFTER)
                .await
        } else {
            AfterSignal::Settled
        };
        let (mut still_running, mut still_reading, mut program_ended, mut program_stopped) =
            (None, None, None, None);
        let mut left_running = Vec::new();
        let mut back_at_prompt = None;
        match after {
            AfterSignal::Busy(program) if looks_for_survival => still_running = Some(program),
            AfterSignal::StillReading(program) if looks_for_survival => {
                still_reading = Some(program);
            }
            AfterSignal::Ended(program) => {
                left_running = self
                    .0
                    .terminals
                    .group_members(&owner, &id, result.target_pgid);
                program_ended = Some(program);
            }
            AfterSignal::Stopped(program) => program_stopped = Some(program),
            AfterSignal::BackAtPrompt { program, prompt } => {
                back_at_prompt = Some(ReplPromptOutput { program, prompt });
            }
            _ => {}
        }
        // A program a job left waiting that the signal ended: its job says so from now on.
        if result.delivered
            && (program_ended.is_some() || (result.shell_targeted && result.shell_ran_command))
            && let Some(background) = self.0.background.as_ref()
        {
            background
                .prompt_after_signal(&self.0.terminals, &owner, &id)
                .await;
        }
        Ok(SignalOutput {
            delivered: result.delivered,
            // A sandboxed session's processes number the group in their own PID namespace.
            target_pgid: result.session_pgid,
            // Nothing else held the foreground (field case C22).
            shell_was_foreground: result.shell_targeted,
            shell_ran_command: result.shell_ran_command,
            delivery: result.delivery.into(),
            still_running,
            still_reading,
            program_ended,
            left_running,
            program_stopped,
            back_at_prompt,
            command_line_ended: result.command_line_ended,
        })
    }
    fn render(&self, args: &SignalArgs, out: &SignalOutput) -> String {
        let text = render_signal_output(args.signal.into(), out);
        if out.command_line_ended {
            format!("{text}; {}", render::COMMAND_LINE_ENDED)
        } else {
            text
        }
    }
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.0.finalize(content)
    }
    fn present_call(&self, args: &SignalArgs) -> Option<Card> {
        let mut card = generic_card(format!("Signal terminal {}", args.session_id), "execute");
        card.raw_input = Some(serde_json::json!({
            "sessionId": args.session_id,
            "signal": args.signal,
        }));
        Some(card)
    }
}

/// The text of a `terminal_signal` result for `signal` (its structured output `out`), but for
/// the rest of a command line the signal ended (see [`SignalOutput::command_line_ended`]).
fn render_signal_output(signal: TerminalSignal, out: &SignalOutput) -> String {
    if !out.delivered {
        return render::render_signal_skipped(signal.as_str());
    }
    let as_key = out.delivery == SignalDeliveryOutput::InterruptCharacter;
    if let Some(program) = &out.program_ended {
        return render::render_signal_ended(
            signal.as_str(),
            out.target_pgid,
            (program, &out.left_running),
            as_key,
        );
    }
    if let Some(program) = &out.program_stopped {
        return render::render_signal_stopped(signal.as_str(), out.target_pgid, program);
    }
    if let Some(program) = &out.still_reading {
        return render::render_signal_still_reading(
            signal.as_str(),
            out.target_pgid,
            program,
            as_key,
        );
    }
    if let Some(repl) = &out.back_at_prompt {
        return render::render_signal_back_at_prompt(
            signal.as_str(),
            out.target_pgid,
            &repl.program,
            &repl.prompt,
            as_key,
        );
    }
    if as_key {
        return render::render_interrupt_character(signal.as_str(), out.target_pgid);
    }
    if out.delivery == SignalDeliveryOutput::SuspendCharacter {
        return render::render_suspend_character(signal.as_str(), out.target_pgid);
    }
    if out.delivery == SignalDeliveryOutput::WhenCommandStarts {
        return render::render_signal_when_command_starts(signal.as_str(), out.shell_ran_command);
    }
    if let Some(program) = &out.still_running {
        return render::render_signal_still_running(signal.as_str(), out.target_pgid, program);
    }
    render::render_signal(
        signal.as_str(),
        out.target_pgid,
        out.shell_was_foreground,
        out.shell_ran_command,
    )
}

//! `terminal_send`: validation of one send (input size, NUL characters, paste markers, `timeoutMs`,
//! background mode), the foreground or background run, progress, the fitted result and its
//! cards.

use std::sync::Arc;

use super::*;
use crate::queued_answer::QueuedAnswers;

/// Said in a background send's acknowledgement when it was given `timeoutMs`: a job follows
/// its command past a send's deadline, to the command's end or a wait for input.
const BACKGROUND_TIMEOUT_NOTICE: &str = "[timeoutMs: a background job is not ended by it: the job \
     follows the command until it ends or waits for input; job_output with wait and timeout_ms \
     bounds a wait for it, and job_kill stops it]";

/// The error for text with a NUL character: a terminal types no such character (bash's line
/// editor takes it as its set-mark key and drops it, so `echo a\0b` ran `echo ab`).
const NUL_IN_TEXT: &str = "text contains a NUL character (U+0000), which a terminal cannot type as text (the shell's line editor takes it as a key and drops it); nothing was sent. Remove it, or have a command write the byte (printf '\\0')";

/// The error for text with a bracketed-paste marker: a line editor (the shell's readline)
/// takes what follows a start marker as pasted text until an end marker, so `echo 'x` then
/// `ESC [200~` left every later send on its input line, and they ran joined later.
const PASTE_MARKER_IN_TEXT: &str = "text contains a bracketed-paste marker (ESC [200~ or ESC [201~): a line editor takes what follows a paste's start as pasted text until its end, so later sends would pile up unrun on the input line; nothing was sent. Remove the marker (text of several lines already goes as a paste to a program that takes pastes), or have a command write those bytes (printf '\\033[200~')";

/// `terminal_send`.
pub(crate) struct SendTool(pub(crate) Arc<Shared>);

impl Tool for SendTool {
    type Args = SendArgs;
    type Output = SendOutput;

    fn name(&self) -> &'static str {
        "terminal_send"
    }
    fn arrival(&self) -> Option<dsh_tools::Arrival> {
        Some(crate::QUEUED_SEND)
    }
    fn description(&self) -> String {
        let mut d = "Send text to a persistent terminal. By default Enter is submitted and the call returns when the program is ready for more (its prompt is back, or it waits for input), when output goes silent while nothing in the foreground is busy (a silent sleep or build is waited for), at the timeout (timeoutMs for a longer one), or when the session exits. After inferred_idle or timeout the command may still be running: send empty text with submit false to wait again, or stop it with terminal_signal.".to_owned();
        if self.0.config.enable_run_in_background {
            d.push_str(" Background mode returns a job id for job_output/job_kill.");
        }
        d.push_str(&format!(
            " Text is at most {} bytes per call: send a longer input in parts (append each to a file with cat >> file <<'EOF', then run the file).",
            self.0.config.max_input_bytes
        ));
        d
    }
    fn shape_parameters(&self, mut schema: serde_json::Value) -> serde_json::Value {
        if !self.0.config.enable_run_in_background
            && let Some(props) = schema
                .get_mut("properties")
                .and_then(serde_json::Value::as_object_mut)
        {
            props.remove("run_in_background");
        }
        schema
    }
    fn approval_moot(
        &self,
        args: &SendArgs,
        call: &ToolCall,
    ) -> Option<dsh_context::BoxFuture<'static, String>> {
        let owner = call.agent.as_ref()?;
        let id = session_id(&args.session_id).ok()?;
        crate::approval_wait::until_session_gone(&self.0.terminals, owner, &id)
    }
    async fn execute(&self, args: SendArgs, call: ToolCall) -> Result<SendOutput, ToolError> {
        let owner = require_agent(&call)?;
        let id = session_id(&args.session_id)?;
        if let Some(asked) = call.approval_asked_at
            && self.0.send_starts.since(&id, asked)
        {
            return Err(crate::send_starts::input_while_approving(&id));
        }
        let max_input = self.0.config.max_input_bytes;
        if args.text.len() > max_input {
            return Err(ToolError::new(format!(
                "text is {} bytes; terminal_send accepts at most {max_input} bytes per call. Send it in smaller parts, or write large content to a file and run a command that reads it",
                args.text.len()
            ))
            .with_code("INPUT_TOO_LARGE"));
        }
        if args.text.contains('\0') {
            return Err(ToolError::new(NUL_IN_TEXT).with_code("INVALID_INPUT"));
        }
        if dsh_terminal_core::holds_paste_marker(&args.text) {
            return Err(ToolError::new(PASTE_MARKER_IN_TEXT).with_code("INVALID_INPUT"));
        }
        let timeout = send_timeout(args.timeout_ms, self.0.config.max_send_timeout_ms)?;
        // Calls to the session written together with this one, before it, are done first (a
        // send written right after another runs once that one settled, as typed ahead).
        call.arrival_turn().await?;
        if args.run_in_background == Some(true) {
            if !self.0.config.enable_run_in_background {
                return Err(ToolError::new(
                    "background terminal sends are disabled by tool-terminal configuration; call terminal_send without run_in_background",
                ));
            }
            let Some(background) = &self.0.background else {
                return Err(ToolError::new(
                    "background terminal sends require the jobs service (dsh-jobs and dsh-tool-jobs), which this host does not provide; call terminal_send without run_in_background",
                )
                .with_code("NO_JOBS"));
            };
            // A wrong session id is the error to report, before the job limit or anything
            // else about starting a job.
            self.0
                .terminals
                .check_owned(&owner, &id)
                .map_err(terminal_error)?;
            let request = SendRequest {
                text: args.text,
                submit: args.submit.unwrap_or(true),
                timeout,
            };
            // As for a foreground send: text that answers the prompt an earlier job stopped at
            // says so, first (a job's acknowledgement shows little else).
            background.leftover_gone(&id, timeout, &call.cancel).await;
            let answered = background.take_stopped_at_prompt(
                &self.0.terminals,
                &owner,
                &id,
                &request.text,
                request.submit,
            )?;
            let answered = answered.or(self.0.queued_answers.take(
                &self.0.terminals,
                &owner,
                &id,
                (&request.text, request.submit),
                call.arrival_followed_a_queued_call(),
            ));
            self.0.send_starts.note(&id);
            let (job_id, output) = background.start(
                self.0.terminals.clone(),
                &owner,
                &id,
                request,
                self.0.config.max_result_bytes,
            )?;
            // The job runs on its own: the calls after it do not wait for it.
            call.arrival_done();
            let output = match answered {
                Some(notice) if output.is_empty() => notice,
                Some(notice) => format!("{notice}\n{output}"),
                None => output,
            };
            return Ok(SendOutput::Background {
                job_id: job_id.to_string(),
                output,
            });
        }
        // A job whose kill was just requested gets the time its kill takes to end it.
        if let Some(background) = self.0.background.as_ref()
            && let Some((job, hold)) = background
                .active_job_after_stop(&owner, &id, timeout, &call.cancel)
                .await
        {
            return Err(background::Background::busy_error(&id, &job, hold));
        }
        // Nor is text typed into a program a job's kill is stopping.
        let submit = args.submit.unwrap_or(true);
        let answered = match self.0.background.as_ref() {
            Some(background) => {
                background.leftover_gone(&id, timeout, &call.cancel).await;
                background.take_stopped_at_prompt(
                    &self.0.terminals,
                    &owner,
                    &id,
                    &args.text,
                    submit,
                )?
            }
            None => None,
        };
        // Text typed without Enter at a line reader: said to stay on the input line.
        // (The last of several lines: the ones before it were entered.)
        let last_line = args.text.rsplit(['\n', '\r']).next().unwrap_or_default();
        let typed_only =
            (!submit && !last_line.is_empty() && !last_line.contains(char::is_control))
                .then(|| last_line.to_owned());
        let several_lines = args.text.trim_end().contains(['\n', '\r']);
        let sends_a_block = several_lines && has_a_block(&args.text);
        let sent_text = if sends_a_block {
            args.text.clone()
        } else {
            String::new()
        };
        let long_typed = render::with_long_lines(&args.text);
        // Text the send before it left a question for, written before its result came back.
        let answered = answered.or(self.0.queued_answers.take(
            &self.0.terminals,
            &owner,
            &id,
            (&args.text, submit),
            call.arrival_followed_a_queued_call(),
        ));
        let prompts_before = QueuedAnswers::before_send(&self.0.terminals, &owner, &id);
        let request = SendRequest {
            text: args.text,
            submit,
            timeout,
        };
        self.0.send_starts.note(&id);
        let op = start_send_when_free(&self.0.terminals, &owner, &id, request, SLOT_WAIT).await;
        // The send holds the session (or was refused): a signal written after it may act, the
        // rest once it settled (when this call ends).
        call.arrival_started();
        let op = op.map_err(|e| {
            let busy = e.code() == TerminalErrorCode::SendActive;
            let mut error = terminal_error(e);
            if busy {
                error.message.push_str(&still_busy_detail());
            }
            error
        })?;
        let result = tokio::select! {
            r = progress::done_reporting(&op, call.progress.as_ref()) => r,
            () = call.cancel.cancelled() => {
                // A cancelled call interrupts the foreground job (real SIGINT) and still waits
                // for the send to settle so the slot is released cleanly. Its result reaches
                // nobody, so the next send's result starts where this one's did.
                op.discard_result();
                op.cancel();
                let _ = op.done().await;
                return Err(ToolError::new(SEND_ABORTED).with_code("ABORTED"));
            }
            () = call.answer_lost.cancelled() => {
                // Nobody can read this result (the client went away; the command runs on):
                // the next send's result starts where this one's did, so the agent sees the
                // command's output and exit there.
                op.discard_result();
                let _ = op.done().await;
                return Err(ToolError::new(SEND_ANSWER_LOST).with_code("ABORTED"));
            }
        }
        .map_err(terminal_error)?;
        // Settled: the calls written after it may act.
        call.arrival_done();
        // Keys this send typed may have ended a program a job left (vim's `:q`): its job no
        // longer says it runs.
        if let Some(background) = &self.0.background {
            background.note_prompt_came_back(&self.0.terminals, &owner, &id);
            // This result showed the session as it is.
            background.clear_gone_reader(&id);
        }
        self.0
            .queued_answers
            .settled(&self.0.terminals, &owner, &id, &result, prompts_before);
        let newest_line = result.newest_line;
        let mut output = SendOutput::from(result);
        if let (Some(notice), SendOutput::Foreground { notices, .. }) = (answered, &mut output) {
            notices.insert(0, notice);
        }
        if let Some(text) = typed_only
            && let Some(notice) = left_on_the_input_line(&output, &text, several_lines)
            && let SendOutput::Foreground { notices, .. } = &mut output
        {
            notices.push(notice.to_owned());
        }
        if sends_a_block
            && python_repl_rejected_a_block(&output, &sent_text)
            && let SendOutput::Foreground { notices, .. } = &mut output
        {
            notices.push(PYTHON_REPL_BLOCKS.to_owned());
        }
        if let Some(notice) = press_to_go_on_notice(&output)
            && let SendOutput::Foreground { notices, .. } = &mut output
        {
            notices.push(notice.to_owned());
        }
        // The echo of a long line the send typed is cut before the output is fitted (as the
        // text's render would cut it): the model's own line neither crowds out the output nor
        // is cut as output with advice to rerun it into a file.
        if let SendOutput::Foreground {
            viewport,
            head: None,
            ..
        } = &mut output
            && let Some(typed) = long_typed
            && let std::borrow::Cow::Owned(cut) = render::cut_long_echoes(viewport, &typed)
        {
            *viewport = cut;
        }
        let pages = fit::Pages {
            session_id: id.as_str(),
            newest_line,
        };
        fit::fit_send(&mut output, pages, self.0.config.max_result_bytes);
        Ok(output)
    }
    fn render(&self, args: &SendArgs, out: &SendOutput) -> String {
        let max_bytes = self.0.config.max_result_bytes;
        let text = render::render_send_typed(out, &args.text, max_bytes);
        // A background send given timeoutMs: the acknowledgement's text says the job is not
        // ended by it (when it fits; the structured output stays what the screen showed).
        match out {
            SendOutput::Background { .. }
                if args.timeout_ms.is_some()
                    && text.len() + 1 + BACKGROUND_TIMEOUT_NOTICE.len() <= max_bytes =>
            {
                format!("{text}\n{BACKGROUND_TIMEOUT_NOTICE}")
            }
            _ => text,
        }
    }
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.0.finalize(content)
    }
    fn present_call(&self, args: &SendArgs) -> Option<Card> {
        if args.run_in_background == Some(true) {
            let mut card = generic_card(
                format!("Send to terminal {} in background", args.session_id),
                "execute",
            );
            card.raw_input = Some(serde_json::Value::String(args.text.clone()));
            return Some(card);
        }
        let title = if args.text.is_empty() {
            "(send input)".to_owned()
        } else {
            args.text.clone()
        };
        Some(Card {
            card: CardKind::Terminal,
            title: Some(title),
            description: Some(format!("Terminal {}", args.session_id)),
            ..Card::default()
        })
    }
    fn present_result(&self, args: &SendArgs, result: &ToolResult) -> Option<Card> {
        if args.run_in_background == Some(true) || result.is_error {
            return None;
        }
        match result.content.as_slice() {
            [only] => only.as_text().map(|text| Card {
                card: CardKind::Terminal,
                output: Some(text.to_owned()),
                ..Card::default()
            }),
            _ => None,
        }
    }
}

/// The notice for text sent without Enter that stays on an input line.
const TYPED_WITHOUT_ENTER: &str = "[input: sent without Enter, so it waits on the input line; the next send continues that line (send empty text to enter it as it is)]";

/// The notice for text sent without Enter that stays on the shell's own input line once the
/// command before it ended: an agent may have meant it for that program (`q` for a pager a
/// signal or its own end stopped).
const TYPED_AT_SHELL_AFTER_EXIT: &str = "[input: sent without Enter, and the command before it has ended without reading it: the text waits on the shell's own input line, not in that program; the next send continues that line (text sent next is joined to it): send empty text to run it as it is, or \\u0015 (Ctrl-U) with submit false to erase it]";

/// The notice for `typed` (the last line of a send without Enter, no control characters) when
/// it stayed on an input line: the foreground (the shell at its prompt or a `read`, a script's
/// `read`, `input()`, a REPL) waits for input with echo on and no full-screen program up, no
/// prompt settled the send with an exit status (a key that ended a program brings the prompt
/// back), and the output ends with the text (a key a program took at once is followed by what
/// it did next). Commands that ended within the output do not change where the text is: typed
/// at the prompt after the last result showed a command still running, held for a reader and
/// typed once the prompt was back, or typed ahead to a program that ended without reading it,
/// it waits on the shell's line, and the next send continues it. When the shell holds the
/// terminal and a command ended before the one line sent, the notice says the line is the
/// shell's, not that program's.
fn left_on_the_input_line(
    output: &SendOutput,
    typed: &str,
    several_lines: bool,
) -> Option<&'static str> {
    let SendOutput::Foreground {
        viewport,
        wait_reason: WaitReasonOutput::StdinRead,
        exit_code: None,
        input_mode: InputModeOutput::Normal,
        foreground,
        earlier_commands,
        ..
    } = output
    else {
        return None;
    };
    if !viewport.ends_with(typed) {
        return None;
    }
    let at_shell_after_exit = foreground.is_none() && earlier_commands.is_some() && !several_lines;
    Some(if at_shell_after_exit {
        TYPED_AT_SHELL_AFTER_EXIT
    } else {
        TYPED_WITHOUT_ENTER
    })
}

/// The notice for several lines the Python REPL rejected because of its block rules.
const PYTHON_REPL_BLOCKS: &str = "[input: the Python REPL ends a block at its first blank line and needs a blank line after each block before the next statement: send blocks without blank lines inside and with one after each, or write the code to a file and run it]";

/// Whether Python's REPL (the foreground `python…`, still at its prompt) answered several
/// lines (`text`) with the errors its block rules cause, judged by its first syntax error: a
/// blank line inside a block ends it early (`IndentationError: unexpected indent` for the
/// rest), and a statement right after a block without a blank line is a `SyntaxError` on that
/// statement, a line of `text` at column 0 after its first. A syntax error in an indented line
/// or in the first (`def f(:`, `return x +`) is a typo, which the lines after it may fail for.
fn python_repl_rejected_a_block(output: &SendOutput, text: &str) -> bool {
    let SendOutput::Foreground {
        viewport,
        foreground: Some(program),
        wait_reason: WaitReasonOutput::StdinRead,
        ..
    } = output
    else {
        return false;
    };
    if !program.starts_with("python") || !viewport.trim_end().ends_with(">>>") {
        return false;
    }
    let Some((error, source)) = first_syntax_error(viewport) else {
        return false;
    };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().map(str::trim);
    if first == Some(source) {
        return false;
    }
    let indented = |l: &str| l.starts_with([' ', '\t']);
    if error.starts_with("IndentationError: unexpected indent") {
        // A blank line ended the block early: the line rejected is an indented one right
        // after a blank line (a block whose first line went elsewhere, as the input of a
        // statement's `input()`, is rejected so too, and has no blank line to blame).
        let all: Vec<&str> = text.lines().collect();
        return all
            .windows(2)
            .any(|w| w[0].trim().is_empty() && indented(w[1]) && w[1].trim() == source);
    }
    // The REPL took a statement right after a block as more of it: the line it rejects is
    // the first unindented one after an indented one (a typo elsewhere is no block's doing).
    let lines: Vec<&str> = first.into_iter().chain(lines).collect();
    error.starts_with("SyntaxError: invalid syntax")
        && lines
            .windows(2)
            .any(|w| w[1].trim() == source && !indented(w[1]) && indented(w[0]))
}

/// Python's first syntax error in `viewport`: its message line (`SyntaxError: …`,
/// `IndentationError: …`) and the source line it quotes (the line after its `File "<stdin>",
/// line N` or `File "<python-input-0>", line N`), trimmed.
fn first_syntax_error(viewport: &str) -> Option<(&str, &str)> {
    let mut source = None;
    let mut lines = viewport.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.starts_with("File \"<") {
            source = lines.next().map(str::trim);
        } else if line.starts_with("SyntaxError") || line.starts_with("IndentationError") {
            return Some((line, source?));
        }
    }
    None
}

/// Whether `text` holds a block as Python writes one: an indented line after another line.
fn has_a_block(text: &str) -> bool {
    text.lines()
        .skip(1)
        .any(|line| line.starts_with([' ', '\t']) && !line.trim().is_empty())
}

/// The notice for a program waiting at a "press Enter to continue" prompt.
const PRESS_ENTER: &str = "[input: the program waits at its \"press Enter\" prompt: send \"\" (just Enter) to go on; any text sent now is taken as the answer (vim takes it as commands)]";

/// The notice for a full-screen program that waits for any key (`press any key` on its
/// screen): it reads keys as they come, so one key goes on (Enter would be taken as a choice
/// of a menu on the same screen).
const PRESS_A_KEY: &str = "[input: the full-screen program waits for a key (\"press any key\"): send one key with submit: false (a letter such as \"q\", or \"\\r\" for Enter); it takes the key at once, so send nothing else with it]";

/// The notice for a program that waits for input at a "press Enter" or "press any key"
/// prompt on the last line (see [`waits_at_a_press_enter_prompt`]): [`PRESS_A_KEY`] for "any
/// key" on the alternate screen (a full-screen program reading keys), else [`PRESS_ENTER`].
fn press_to_go_on_notice(output: &SendOutput) -> Option<&'static str> {
    let phrase = waits_at_a_press_enter_prompt(output)?;
    let full_screen = matches!(
        output,
        SendOutput::Foreground {
            input_mode: InputModeOutput::AlternateScreen,
            ..
        }
    );
    Some(if full_screen && phrase.contains("key") {
        PRESS_A_KEY
    } else {
        PRESS_ENTER
    })
}

/// The phrase, when the program waits for input at a "press Enter to continue" prompt on the
/// last line: vim's hit-enter prompt (`Press ENTER or type command to continue`, e.g. after a
/// viminfo error when `git commit` closes the editor), installers' and pagers' `Press any
/// key`, `Hit ENTER`, `press RETURN`; not a prompt for a value that ends with `:` or `?`
/// (`Type a word and press Enter: `).
fn waits_at_a_press_enter_prompt(output: &SendOutput) -> Option<&'static str> {
    let SendOutput::Foreground {
        viewport,
        wait_reason: WaitReasonOutput::StdinRead,
        exit_code: None,
        input_mode,
        ..
    } = output
    else {
        return None;
    };
    // A single-key read has its own notice: any key goes on, sent without Enter.
    if *input_mode == InputModeOutput::SingleKey {
        return None;
    }
    let last = viewport.trim_end().rsplit('\n').next().unwrap_or_default();
    dsh_terminal_core::press_to_go_on(last)
}

/// The error of a send whose call was cancelled (the client's cancel, or the server shutting
/// down) after its input was written.
/// The error of a send whose answer could not reach its caller (nobody reads it: it goes to
/// the log).
const SEND_ANSWER_LOST: &str = "terminal send answer lost: the client went away while the command ran; the command was left running, and the session's next send shows its output and exit";

const SEND_ABORTED: &str = "terminal send aborted: the call was cancelled (or the server is shutting down) and its command was interrupted; if the session is still open, send again (empty text to poll) to see its output";

/// What a send refused because another still runs adds to the core's error: how long it
/// waited, and where the other send's result comes from.
fn still_busy_detail() -> String {
    format!(
        " (this call waited {} ms for it: a session runs one send at a time, so send again once the other terminal_send call has returned, or, for a background job on this session, once job_output says it ended; terminal_read shows what it is doing, also when the client that sent it went away)",
        SLOT_WAIT.as_millis()
    )
}

/// How long a foreground send waits for the session's previous send to release its slot: one
/// that was just cancelled (a client that cancels on its own timeout and retries at once) or
/// that is settling ends within moments; a send still running gets the "active send" error.
const SLOT_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

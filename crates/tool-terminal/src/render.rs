//! Model-facing renders of terminal tool results (the seed's §4.3, §4.4).
//!
//! Every render takes the complete-result cap `max_result_bytes` and returns text within it.
//! Cuts never split a UTF-8 code point. A foreground send's output has already been fitted to
//! the cap by the `fit` module (first lines, omission line, newest lines); below that, renders
//! keep the **newest** output (tail) and always
//! keep their metadata lines (`[wait: …]`, `[session: …]`, `[lines: …]`) when they fit;
//! [`bound_terminal_text`] (used by `finalize_content` for errors and policy text) keeps the
//! **head**, like the seed.
//!
//! Renders read the tools' output types ([`crate::schema`]) only: core result → output type →
//! text, never back.

use std::borrow::Cow;

use dsh_terminal_core::SendRead;

use crate::schema::{EarlierCommands, InputModeOutput, OmittedOutput, SendOutput, StatusOutput};

/// The truncation marker appended when a result was cut (19 bytes).
pub const TRUNCATED: &str = "\n[output truncated]";

mod bound;
mod echo;
mod line_cut;
mod read;
mod repeats;
mod sessions;
mod signal;

use self::bound::{bound_body_with_suffix, fit_with_prefix};
pub use self::bound::{bound_terminal_text, tail_lines};
pub(crate) use self::echo::{cut_long_echoes, with_long_lines};
use self::echo::{fold_echo, fold_echo_across, restore_typed_tabs};
use self::line_cut::LINE_CUT;
pub(crate) use self::line_cut::cut_over;
pub use self::line_cut::{
    cut_long_lines, line_cut_marker, line_cut_marker_about, line_cut_marker_at_least,
};
use self::read::pointer_args;
pub use self::read::render_read;
pub(crate) use self::read::{READ_ALTERNATE_SCREEN, older_line, read_footer};
pub(crate) use self::repeats::fold_repeats;
pub use self::sessions::{render_close, render_list, render_spawn};
pub use self::signal::{
    COMMAND_LINE_ENDED, render_interrupt_character, render_signal, render_signal_back_at_prompt,
    render_signal_ended, render_signal_skipped, render_signal_still_reading,
    render_signal_still_running, render_signal_stopped, render_signal_when_command_starts,
    render_suspend_character,
};

/// Most earlier exit statuses listed one by one; more are summarised as counts.
const LISTED_EXITS: u64 = 10;

/// The `[earlier commands …]` line (with its leading newline), or nothing when there were
/// none. A few statuses are listed in order; many become counts plus the failed ones by
/// their position in the output (`#1` is the oldest), so a long multi-line send still says
/// which of its commands failed.
fn earlier_exits_fact(earlier: Option<&EarlierCommands>) -> String {
    earlier.map_or_else(String::new, |earlier| {
        format!(
            "\n[{}]",
            earlier_commands_text(earlier, "earlier commands in this output")
        )
    })
}

/// `<subject> exited: 1, 0` for a few statuses, or `<subject>: N finished, Z exited 0, F
/// failed (#p exit c, …)` for many (see [`earlier_exits_fact`]).
pub(crate) fn earlier_commands_text(earlier: &EarlierCommands, subject: &str) -> String {
    let all_named = earlier.failures.len() as u64 == earlier.failed;
    if earlier.finished <= LISTED_EXITS && all_named {
        let codes: Vec<String> = (1..=earlier.finished)
            .map(|position| {
                earlier
                    .failures
                    .iter()
                    .find(|f| f.position == position)
                    .map_or(0, |f| f.exit_code)
                    .to_string()
            })
            .collect();
        return format!("{subject} exited: {}", codes.join(", "));
    }
    let mut line = format!(
        "{subject}: {} finished, {} exited 0, {} failed",
        earlier.finished,
        earlier.finished - earlier.failed,
        earlier.failed
    );
    if !earlier.failures.is_empty() {
        let named: Vec<String> = earlier
            .failures
            .iter()
            .map(|f| format!("#{} exit {}", f.position, f.exit_code))
            .collect();
        line.push_str(" (");
        if earlier.oldest_not_kept > 0 {
            line.push_str(&format!(
                "the first {} failures, all before #{}, are not kept; ",
                earlier.oldest_not_kept, earlier.failures[0].position
            ));
        }
        line.push_str(&named.join(", "));
        let more = (earlier.failed - earlier.oldest_not_kept)
            .saturating_sub(earlier.failures.len() as u64);
        if more > 0 {
            line.push_str(&format!(", and {more} more"));
        }
        line.push(')');
    }
    line
}

/// What a cut viewport left out, for its `[output: …]` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cut {
    /// The oldest lines (a tail).
    Oldest,
    /// Lines from the middle, or the middle of a long line.
    Middle,
    /// Lines from the middle that all echo the text the send typed (see
    /// [`fold_echo_across`]).
    Echo,
}

/// The extra fact lines of a send render, in order, each on its own line. Only lines that
/// apply are present (the facts we add past the seed).
fn send_facts(
    truncated: bool,
    output_bytes: u64,
    cut: Cut,
    earlier_commands: Option<&EarlierCommands>,
    exit_code: Option<i32>,
    foreground: Option<&str>,
    input_mode: InputModeOutput,
) -> String {
    let mut facts = String::new();
    if truncated && output_bytes > 0 {
        let shown = match cut {
            Cut::Oldest => "only the newest are shown",
            Cut::Middle => "only part of it is shown",
            Cut::Echo => "the lines left out echo the text this send typed",
        };
        facts.push_str(&format!(
            "\n[output: {output_bytes} bytes in total; {shown}]"
        ));
    }
    facts.push_str(&earlier_exits_fact(earlier_commands));
    if let Some(code) = exit_code {
        facts.push_str(&format!("\n[exit: {code}]"));
    }
    if let Some(program) = foreground {
        facts.push_str(&format!("\n[foreground: {program}]"));
    }
    match input_mode {
        InputModeOutput::Normal => {}
        InputModeOutput::EchoOff => {
            facts.push_str("\n[input: echo off (password prompt); typed text is not shown]");
        }
        InputModeOutput::Continuation => match foreground {
            None => facts.push_str(
                "\n[input: shell continuation prompt; finish the command, or send SIGINT to cancel it]",
            ),
            // A shell an earlier command started (`bash --norc`, dash) in an open `if` or quote.
            Some(program) if dsh_terminal_core::is_shell_name(program) => facts.push_str(&format!(
                "\n[input: shell continuation prompt; {program} (a shell started in this session) waits for the rest of the command: finish it (fi, done, a closing quote), or send SIGINT to cancel it]"
            )),
            // Node's REPL ends a block only once its brackets close; a blank line does not.
            Some(program) if program.starts_with("node") => facts.push_str(&format!(
                "\n[input: continuation prompt; {program} waits for the rest of the statement (an empty line does not end it): send the rest, closing its brackets, or send .break to discard it]"
            )),
            Some(program) => facts.push_str(&format!(
                "\n[input: continuation prompt; {program} waits for the rest of the block: send more lines, or send \"\" with submit: true (an empty line) to end the block and run it (an open bracket or string needs its closing one first)]"
            )),
        },
        InputModeOutput::StatementContinuation => facts.push_str(&format!(
            "\n[input: continuation prompt; {} waits for the rest of the statement: send the rest, ending it with ; (an open string quote needs its closing quote first)]",
            foreground.unwrap_or("the program")
        )),
        InputModeOutput::AlternateScreen => match foreground.filter(|p| is_multiplexer(p)) {
            // Its panes run shells and programs of their own: lines reach them as typed.
            Some(program) => facts.push_str(&format!(
                "\n[screen: {program} (a terminal multiplexer) holds the terminal; text sent with Enter goes to the program in its active pane (a shell there runs it); its own commands take its prefix key with submit: false (Ctrl-B, \\u0002, in tmux); results show its screen only: lines that scroll off a pane stay in the multiplexer's own history (tmux capture-pane -p -S - prints the active pane's)]"
            )),
            None => facts.push_str(
                "\n[screen: a full-screen program holds the terminal; one that reads keys takes what you send as keys: send a key command (q in less, dd in vim) with submit: false, and a command line that follows a prompt key (vim's :wq, less's /pattern) with its Enter (submit: true)]",
            ),
        },
        InputModeOutput::SingleKey => facts.push_str(
            "\n[input: the program reads single keys as they are typed (no Enter needed): send a key answer (y, q, a menu's digit) with submit: false, since an Enter sent after it is a key of its own, which the next prompt takes; an answer its prompt reads as a line of its own (a PID, a name it echoes as you type) goes with its Enter (submit: true)]",
        ),
    }
    facts
}

/// Whether `program` (a process name, tmux's client being `tmux: client`) is a terminal
/// multiplexer.
fn is_multiplexer(program: &str) -> bool {
    let name = program.split([':', ' ']).next().unwrap_or_default();
    matches!(name, "tmux" | "screen" | "zellij" | "byobu" | "tmate")
}

/// The line that stands for the lines left out of the middle of a send's viewport:
/// `[… N lines (B bytes) omitted; page them with terminal_read {"sessionId": "pty-1", "offset": O, "count": C}]`,
/// without the arguments when they are not known.
pub fn omission_line(omitted: &OmittedOutput) -> String {
    let lines = omitted.lines;
    let plural = if lines == 1 { "" } else { "s" };
    let all_gone = omitted.terminal_read.is_none() && omitted.not_retained_lines >= lines;
    let head = if omitted.not_retained_lines > 0 && all_gone {
        format!(
            "[… about {lines} lines omitted, all of them no longer retained (the output outgrew the scrollback)"
        )
    } else if omitted.not_retained_lines > 0 {
        format!(
            "[… about {lines} lines omitted, about {} of them no longer retained (the output outgrew the scrollback); page the rest with terminal_read",
            omitted.not_retained_lines
        )
    } else {
        format!(
            "[… {lines} line{plural} ({} bytes) omitted; page them with terminal_read",
            omitted.bytes
        )
    };
    match &omitted.terminal_read {
        Some(read) => format!("{head} {}]", pointer_args(read)),
        None => format!("{head}]"),
    }
}

/// The omission line for a cap too small for [`omission_line`] beside any output:
/// `[… N lines omitted; page them with terminal_read]` (`about N` when some of them are no
/// longer retained; `[… about N lines omitted]` when none is). The structured result keeps the
/// counts and the `terminal_read` arguments.
pub fn short_omission_line(omitted: &OmittedOutput) -> String {
    let lines = omitted.lines;
    let plural = if lines == 1 { "" } else { "s" };
    let about = if omitted.not_retained_lines > 0 {
        "about "
    } else {
        ""
    };
    if omitted.terminal_read.is_none() && omitted.not_retained_lines >= lines {
        format!("[… about {lines} line{plural} omitted]")
    } else {
        format!("[… {about}{lines} line{plural} omitted; page them with terminal_read]")
    }
}

/// The metadata of a foreground send render, from `[wait: …]` to `[session: …]`, each line
/// preceded by a newline; empty for a background send.
pub fn send_metadata(result: &SendOutput) -> String {
    send_metadata_cut(result, false)
}

/// [`send_metadata`], saying the lines left out echo the text the send typed when
/// `echo_omitted`.
fn send_metadata_cut(result: &SendOutput, echo_omitted: bool) -> String {
    let SendOutput::Foreground {
        wait_reason,
        session_status,
        truncated,
        exit_code,
        foreground,
        input_mode,
        earlier_commands,
        output_bytes,
        omitted,
        notices,
        viewport,
        ..
    } = result
    else {
        return String::new();
    };
    // A full-screen program that reads no keys (`watch`), or has not read the keys sent, has
    // its own notice: the general line about sending it keys would contradict it, and the
    // line that says the screen is the program's stands instead.
    let screen_held = *input_mode == InputModeOutput::AlternateScreen
        && notices.iter().any(|n| says_reads_no_keys(n));
    // Our shell's continuation prompt with the engine's notice naming what keeps the command
    // open (`[input: shell continuation prompt: …]`): that notice gives the advice, and the
    // general line would say it twice.
    let open_command_named = *input_mode == InputModeOutput::Continuation
        && foreground.is_none()
        && notices
            .iter()
            .any(|n| n.starts_with(dsh_terminal_core::OPEN_COMMAND_NOTICE));
    let input_mode = if screen_held || open_command_named {
        InputModeOutput::Normal
    } else {
        *input_mode
    };
    let mut facts = send_facts(
        *truncated,
        *output_bytes,
        if echo_omitted {
            Cut::Echo
        } else if omitted.is_some() || viewport.contains(LINE_CUT) {
            Cut::Middle
        } else {
            Cut::Oldest
        },
        earlier_commands.as_deref(),
        *exit_code,
        foreground.as_deref(),
        input_mode,
    );
    if screen_held {
        facts.push_str(READ_ALTERNATE_SCREEN);
    }
    let notices: String = notices.iter().map(|n| format!("\n{n}")).collect();
    format!(
        "\n[wait: {}]{facts}{notices}\n{}",
        wait_reason.as_str(),
        session_line(session_status)
    )
}

/// Whether `notice` is the engine's notice for a program that holds the terminal without
/// reading it (`[input: watch does not read the terminal: …]`), or that has not read the text
/// sent (`[input: watch has not read the text sent …]`).
fn says_reads_no_keys(notice: &str) -> bool {
    notice.starts_with("[input: ")
        && (notice.contains(" does not read the terminal: ")
            || notice.contains(" has not read the text sent"))
}

/// A send's last metadata line: `[session: running]` or `[session: exited code=… signal=…]`.
pub(crate) fn session_line(status: &StatusOutput) -> String {
    format!("[session: {}]", status.render())
}

/// The viewport with the omission line in place of the lines left out of its middle.
fn viewport_with_omission(viewport: &str, omitted: Option<&OmittedOutput>, short: bool) -> String {
    let Some(omitted) = omitted else {
        return viewport.to_owned();
    };
    let line = if short {
        short_omission_line(omitted)
    } else {
        omission_line(omitted)
    };
    let split = match omitted.after_line {
        0 => 0,
        n => viewport
            .match_indices('\n')
            .nth(n - 1)
            .map_or(viewport.len(), |(i, _)| i + 1),
    };
    let (head, rest) = viewport.split_at(split);
    format!("{head}{line}\n{rest}")
}

/// `terminal_send`. Background: `started background job <id>`. Foreground: the viewport
/// without leading or trailing newlines (a full-screen program's screen keeps its leading
/// blank rows), or `(no new output)`, with the omission line where
/// lines were left out of its middle (its short form when the whole render would not fit
/// `max_bytes` with the long one), then `[wait: …]`, `[output: N bytes in total; …]` when
/// the viewport was cut, `[exit: N]` when the prompt mark reported it, the foreground / input
/// facts that apply, `[session: …]`, and `[output truncated]` when anything was cut.
pub fn render_send(result: &SendOutput, max_bytes: usize) -> String {
    render_send_typed(result, "", max_bytes)
}

/// [`render_send`] for a send that typed `typed`: a long run of lines echoing that text (a
/// heredoc, a block pasted into a REPL) shows its first and last lines around a count.
pub fn render_send_typed(result: &SendOutput, typed: &str, max_bytes: usize) -> String {
    match result {
        SendOutput::Background { job_id, output } => {
            render_background(job_id, &fold_echo(output, typed), max_bytes)
        }
        SendOutput::Foreground {
            viewport,
            truncated,
            omitted,
            input_mode,
            ..
        } => {
            // Lines left out that all echo the text sent fold into the echo's marker.
            let echo_body = omitted
                .as_ref()
                .filter(|_| *input_mode != InputModeOutput::AlternateScreen)
                .and_then(|omitted| echo_across_omission(viewport, omitted, typed));
            let metadata = send_metadata_cut(result, echo_body.is_some());
            if let Some(body) = echo_body {
                return bound_body_with_suffix(&body, &metadata, *truncated, max_bytes);
            }
            let marker = if *truncated { TRUNCATED.len() } else { 0 };
            let mut body = foreground_body(viewport, omitted.as_ref(), *input_mode, typed, false);
            if omitted.is_some() && body.len() + metadata.len() + marker > max_bytes {
                body = foreground_body(viewport, omitted.as_ref(), *input_mode, typed, true);
            }
            bound_body_with_suffix(&body, &metadata, *truncated, max_bytes)
        }
    }
}

/// A foreground send's viewport with its omission line (the `short` form or the long one),
/// or `(no new output)`; long echoes of `typed` and runs of one line repeated folded.
fn foreground_body(
    viewport: &str,
    omitted: Option<&OmittedOutput>,
    input_mode: InputModeOutput,
    typed: &str,
    short: bool,
) -> String {
    let viewport = viewport_with_omission(viewport, omitted, short);
    // A viewport that ends on an empty cursor line (`sleep 100\n`), or starts with the
    // newline an interrupted job left, would otherwise render blank lines. A full-screen
    // program's screen keeps its blank top rows: they are where its lines are (an editor's
    // empty first lines).
    // A long echo of the text sent shows its ends around a count, and a run of one line
    // repeated shows once with a count (a full-screen program's screen is shown as it is).
    let viewport = if input_mode == InputModeOutput::AlternateScreen {
        Cow::Borrowed(viewport.trim_end_matches('\n'))
    } else {
        let tabbed = restore_typed_tabs(viewport.trim_matches('\n'), typed);
        let echo_folded = fold_echo(&tabbed, typed);
        Cow::Owned(fold_repeats(&echo_folded).into_owned())
    };
    if viewport.is_empty() {
        "(no new output)".to_owned()
    } else {
        viewport.into_owned()
    }
}

/// The body of a viewport whose `omitted` lines all echo the text sent (`typed`), folded into
/// one marker with the rest of the echo (see [`fold_echo_across`]); `None` otherwise, or when
/// some of them are no longer retained (their count is then about).
fn echo_across_omission(viewport: &str, omitted: &OmittedOutput, typed: &str) -> Option<String> {
    if omitted.not_retained_lines > 0 {
        return None;
    }
    let trimmed = viewport.trim_matches('\n');
    let leading = viewport.len() - viewport.trim_start_matches('\n').len();
    let after_line = omitted.after_line.checked_sub(leading)?;
    let lines = usize::try_from(omitted.lines).ok()?;
    let folded = fold_echo_across(trimmed, typed, after_line, lines)?;
    Some(fold_repeats(&folded).into_owned())
}

/// A background send's acknowledgement: `started background job <id>`, then what the screen
/// showed so far (newest kept within the cap).
pub fn render_background(job_id: &str, output: &str, max_bytes: usize) -> String {
    let prefix = format!("started background job {job_id}");
    if output.is_empty() {
        return bound_terminal_text(&prefix, max_bytes);
    }
    let output = fold_repeats(output);
    let complete = format!("{prefix}\n{output}");
    if complete.len() <= max_bytes {
        return complete;
    }
    fit_with_prefix(&format!("{prefix}\n"), &output, max_bytes)
}

/// A consuming background read: the delta plus `[output truncated]` when cut (seed
/// `renderSendRead`).
pub fn render_send_read(read: &SendRead) -> String {
    let separator = if read.delta.is_empty() || read.delta.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    if read.truncated {
        format!("{}{separator}[output truncated]", read.delta)
    } else {
        read.delta.clone()
    }
}

#[cfg(test)]
mod tests;

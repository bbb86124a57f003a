//! A command line our shell has not finished reading: it shows its continuation prompt (PS2)
//! and takes every line sent as more of that command. The result names what keeps it open
//! (a quote, a here-document, a `for` without its `done`: see `input::open_construct`) and
//! says that lines typed there did not run as commands of their own; a command line sent
//! into a quote an apostrophe left open by accident (`echo 'it's fine'`), where it would only
//! be text of the string, is refused. A quote opened on purpose (`git commit -m "Title`, sent
//! one line per send) takes its lines, whatever their first words, with the notice only.

use crate::error::TerminalError;
use crate::readiness::Settle;
use crate::screen::PromptState;

use super::super::input::{OpenConstruct, Opened, open_construct, typed_lines};
use super::super::shared::State;
use super::clipped;
use super::pager_guard::names_a_command;

/// How the notices of this module begin: the render gives them in place of its general line
/// for the shell's continuation prompt.
pub const OPEN_COMMAND_NOTICE: &str = "[input: shell continuation prompt: ";

/// Most bytes of a line's start a notice quotes before the construct it ends with.
const UPTO_MAX_BYTES: usize = 60;

/// What a send typed at our shell's continuation prompt found there as it started: the lines
/// earlier sends typed of the open command (`State::command_lines`), and the count of
/// commands the shell had finished.
pub(in crate::session) struct AtContinuation {
    typed_before: Vec<u8>,
    done_count: u64,
}

/// At a send's start, when our shell's line editor reads (`shell_line_editor`) at its
/// continuation prompt with the lines of the open command known: what it found there. Text
/// sent with Enter into a `'` quote an apostrophe left open (`it's` closed the quote before
/// it), whose first line names a command, and that holds no `'` to close it, is refused: it
/// would be text of the string, not run. A quote with no such cause was opened on purpose: a
/// message's lines (`make install now works`) go into it.
///
/// # Errors
/// `InvalidRequest`, naming the quote, the line, and how to go on.
pub(super) fn check(
    st: &State,
    shell_line_editor: bool,
    text: &str,
    submit: bool,
) -> Result<Option<AtContinuation>, TerminalError> {
    if !shell_line_editor
        || st.redraw_pending.is_some()
        || st.screen.prompt_state() != PromptState::Continuation
        || st.command_lines.is_empty()
    {
        return Ok(None);
    }
    let lines = typed_lines(&st.command_lines);
    let ends_a_line = submit || text.contains(['\n', '\r']);
    if ends_a_line
        && !st.typed_unended
        && let Some(open) = open_construct(&lines)
        && open.apostrophe.is_some()
        && let Opened::Quote(quote @ ('\'' | '"')) = open.opened
        && !text.contains(quote)
    {
        let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if names_a_command(line, std::env::var("PATH").ok().as_deref()) {
            return Err(refusal(&open, &lines[0], line));
        }
    }
    Ok(Some(AtContinuation {
        typed_before: st.command_lines.clone(),
        done_count: st.screen.done_count(),
    }))
}

/// The notice for a send that settled (`reason`, not an exit) with our shell at its
/// continuation prompt (the caller checks that no program holds the terminal),
/// naming what keeps its command open, when the lines typed of it are known. Lines the send
/// typed into a command earlier sends left open (`at_start`), with no command finished since,
/// are said not to have run.
pub(super) fn notice(
    st: &State,
    reason: Settle,
    at_start: Option<&AtContinuation>,
) -> Option<String> {
    if reason == Settle::Exit || st.screen.prompt_state() != PromptState::Continuation {
        return None;
    }
    let lines = typed_lines(&st.command_lines);
    let open = open_construct(&lines)?;
    let lines_before = at_start
        .filter(|at| {
            at.done_count == st.screen.done_count()
                && st.command_lines.len() > at.typed_before.len()
                && st.command_lines.starts_with(&at.typed_before)
        })
        .map(|at| typed_lines(&at.typed_before).len());
    Some(notice_text(&lines, &open, lines_before))
}

/// The notice for the command typed as `lines`, which `open` keeps open; `lines_before` of
/// them earlier sends typed, when this send typed the rest at the continuation prompt.
fn notice_text(lines: &[String], open: &OpenConstruct, lines_before: Option<usize>) -> String {
    let Words {
        name,
        waits,
        then,
        hint,
        how,
        runs_later,
    } = Words::of(open);
    match lines_before {
        Some(before) if open.line <= before => {
            let not_run = if runs_later {
                "have not run yet"
            } else {
                "did not run"
            };
            format!(
                "{OPEN_COMMAND_NOTICE}the lines of this send {not_run}: the shell took them as \
                 more of the unfinished command begun by `{}`, where {name} {waits}, so {then}\
                 {hint}; {how}, or send SIGINT to cancel the whole command (none of its lines \
                 has run)]",
                clipped(lines.first().map_or("", String::as_str))
            )
        }
        _ => format!(
            "{OPEN_COMMAND_NOTICE}the command has not run yet: {name} {waits}{hint}; {how}, or \
             send SIGINT to cancel the whole command]"
        ),
    }
}

/// The refusal of `line`, a command line sent into the quote `open` left open in the command
/// begun by `first`.
fn refusal(open: &OpenConstruct, first: &str, line: &str) -> TerminalError {
    let Words {
        name, waits, hint, ..
    } = Words::of(open);
    let quote = match open.opened {
        Opened::Quote(quote) => quote,
        _ => '\'',
    };
    TerminalError::invalid(format!(
        "nothing was typed: the shell is at its continuation prompt, still reading the command \
         begun by `{}`, where {name} {waits}{hint}, so `{}` would be text of that string, not a \
         command; send SIGINT (terminal_signal) to cancel the unfinished command (none of it \
         has run), then send the command again, or close the string first (send its rest, \
         ending with {quote}); to add this line to the string anyway, send it with submit: \
         false and then an empty send",
        clipped(first),
        clipped(line.trim())
    ))
}

/// How the notices word an open construct: its `name` and where it is, what it `waits` for,
/// what the lines sent became (`then`), a `hint` at its likely cause, `how` to end it, and
/// whether those lines may still run once it is ended (`runs_later`).
struct Words {
    name: String,
    waits: String,
    then: String,
    hint: String,
    how: String,
    runs_later: bool,
}

impl Words {
    fn of(open: &OpenConstruct) -> Words {
        let n = open.line;
        let line = clipped(&open.line_text);
        let upto = tail(&open.upto);
        let at_end = |token: &str| format!("the {token} at the end of `{upto}` (line {n})");
        let token_at_end = |token: &str| at_end(&format!("`{token}`"));
        let (name, waits, then, how, runs_later) = match &open.opened {
            Opened::Quote('`') => (
                at_end("`"),
                "opened a command substitution that no ` has closed".to_owned(),
                "they are part of it".to_owned(),
                "close it with `".to_owned(),
                true,
            ),
            Opened::Quote(quote) => (
                at_end(&quote.to_string()),
                format!("opened a quoted string that no {quote} has closed"),
                "they are text of that string, not commands".to_owned(),
                format!("close the string (send its rest, ending with {quote})"),
                false,
            ),
            Opened::HereDocument { delimiter, .. } => (
                format!("the here-document of line {n} (`{line}`)"),
                format!("takes every line as its text until a line that is {delimiter} alone"),
                "they are lines of the document, not commands".to_owned(),
                format!("send {delimiter} alone to end it (the command then runs)"),
                false,
            ),
            Opened::Substitution | Opened::Subshell | Opened::Group => {
                let (token, close) = match open.opened {
                    Opened::Substitution => ("$(", ")"),
                    Opened::Subshell => ("(", ")"),
                    _ => ("{", "}"),
                };
                (
                    token_at_end(token),
                    format!("waits for its `{close}`"),
                    format!("they are part of it, and run only once a `{close}` closes it"),
                    format!("send the rest of the command with its `{close}`"),
                    true,
                )
            }
            Opened::Keyword(first, last) => (
                format!("the `{first}` of line {n} (`{line}`)"),
                format!("waits for its `{last}`"),
                format!("they are its body, and nothing of it runs until `{last}` ends it"),
                format!("send `{last}` to end it (it then runs)"),
                true,
            ),
            Opened::Backslash => (
                format!("line {n} (`{line}`)"),
                "ends with `\\`, which joins the next line to it".to_owned(),
                "they go on with that line".to_owned(),
                "send the rest of the line".to_owned(),
                true,
            ),
            Opened::Operator(operator) => (
                format!("line {n} (`{line}`)"),
                format!("ends with `{operator}`, which wants a command after it"),
                "they go on with that line".to_owned(),
                "send that command".to_owned(),
                true,
            ),
        };
        let hint = match (&open.opened, &open.apostrophe) {
            (Opened::Quote('\''), Some(word)) => format!(
                " (the ' in `{word}` ended the quote before it: inside '…' write an apostrophe \
                 as '\\'', or quote the text with \"…\")"
            ),
            (
                Opened::HereDocument {
                    delimiter,
                    near_miss: Some(near),
                },
                _,
            ) => format!(
                " (`{}` does not end it: only {delimiter} alone on its line does)",
                clipped(near)
            ),
            _ => String::new(),
        };
        Words {
            name,
            waits,
            then,
            hint,
            how,
            runs_later,
        }
    }
}

/// The end of `text` (a line up to a construct's opening), its last [`UPTO_MAX_BYTES`] bytes
/// at most, with `…` before a cut.
fn tail(text: &str) -> String {
    if text.len() <= UPTO_MAX_BYTES {
        return text.to_owned();
    }
    let mut start = text.len() - UPTO_MAX_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

#[cfg(test)]
mod tests;

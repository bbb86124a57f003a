//! Keys typed ahead of a send to the shell's line editor so that only the send's text runs:
//! the line cleared of text no send typed there, and a pending command of an earlier send's
//! keys ended first.

use crate::types::SendRequest;

use super::super::super::Inner;
use super::super::super::input;
use super::super::super::observe::SIGNAL_BYTES;
use super::super::super::result::TextBeforeLine;
use super::super::super::shared::State;

/// `input` with the line editor's keys before it, and the text the clearing keys erased (for
/// the result's notice). Nothing changes unless `shell_line_editor` (the shell's readline
/// reads the send).
pub(super) fn clear_before(
    inner: &Inner,
    st: &mut State,
    shell_line_editor: bool,
    request: &SendRequest,
    input: Vec<u8>,
) -> (Vec<u8>, Option<TextBeforeLine>) {
    // Text on the shell's input line that no send typed there (a program pushed it into
    // the terminal's input, or a send typed it for a program that ended without reading
    // it) would run joined to this send's text: it is cleared first.
    // Any input does but keys that discard the line anyway (Ctrl-C, Ctrl-\\, Ctrl-Z): an
    // Enter alone would run it, editing keys would edit it.
    let types_text = request.submit || request.text.bytes().any(|b| !SIGNAL_BYTES.contains(&b));
    // The keys go whenever the shell itself reads at its prompt (on an empty line they do
    // nothing): pushed text the line editor has not read and shown yet is emptied too.
    let clear_keys = inner.clear_line_keys.as_deref().filter(|_| {
        shell_line_editor
            && types_text
            && !st.typed_unended_at_shell
            && st.screen.after_prompt_end()
            && !st.screen.command_running()
    });
    // The line a SIGINT to the shell discarded, still shown before its new prompt: no text
    // pushed there (the keys still go, as on any line).
    let discarded = st.line_discarded_at_prompt == Some(st.screen.prompt_end_count());
    let (input, cleared_line) = match clear_keys {
        Some(keys) => {
            let before = if discarded {
                None
            } else {
                st.screen
                    .text_after_prompt()
                    .map(TextBeforeLine::Input)
                    .or_else(|| {
                        st.screen
                            .output_before_input_line()
                            .map(TextBeforeLine::Output)
                    })
            };
            ([keys, &input].concat(), before)
        }
        None => (input, None),
    };
    // A command after keys the previous send left pending at the same prompt (see
    // `PtySpawnSpec::editor_reset_keys`): the pending command ends first, the line stays.
    let reset_keys = inner.editor_reset_keys.as_deref().filter(|_| {
        shell_line_editor
            && request.submit
            && !request.text.trim().is_empty()
            && st.typed_unended
            && !st.screen.command_running()
    });
    let input = match reset_keys {
        Some(keys) => {
            let searching = st
                .screen
                .cursor_row_prefix()
                .is_some_and(|row| input::is_history_search(&row));
            let abort: &[u8] = if searching { &[input::ABORT_KEY] } else { &[] };
            [abort, keys, &input].concat()
        }
        None => input,
    };
    (input, cleared_line)
}

//! Table tests of the pacing of a send's input.

use super::*;
use crate::session::input::BLOCK_END_KEY;

#[test]
fn lines_to_the_line_editor_are_typed_one_at_a_time() {
    let (first, mut pacing) = Pacing::split(b"read a\nAAA\necho $a\n".to_vec(), true, false);
    assert_eq!(first, b"read a\n");
    assert_eq!(pacing.on_settle(Settle::StdinWait), Some(b"AAA\n".to_vec()));
    assert_eq!(
        pacing.on_settle(Settle::Prompt),
        Some(b"echo $a\n".to_vec())
    );
    assert!(!pacing.is_pending());
    assert_eq!(pacing.on_settle(Settle::Prompt), None);
}

#[test]
fn silence_or_the_deadline_types_the_rest_ahead_and_an_exit_drops_it() {
    let (_, mut pacing) = Pacing::split(b"serve\necho a\nls".to_vec(), true, false);
    assert_eq!(pacing.on_settle(Settle::Idle), Some(b"echo a\nls".to_vec()));
    assert!(!pacing.is_pending());
    let (_, mut pacing) = Pacing::split(b"exit\necho a\n".to_vec(), true, false);
    assert_eq!(pacing.on_settle(Settle::Exit), None);
    assert!(!pacing.is_pending());
}

#[test]
fn the_lines_left_when_the_shell_ends_are_named_from_the_first_to_the_last_with_text() {
    use super::after_exit::UntypedAtShellEnd;
    let at = |ended_at, first, last| {
        Some(UntypedAtShellEnd {
            ended_at,
            first,
            last,
        })
    };
    let (_, mut pacing) = Pacing::split(b"echo a\nexit 2\necho b\necho c\n".to_vec(), true, false);
    assert_eq!(pacing.on_settle(Settle::Prompt), Some(b"exit 2\n".to_vec()));
    assert_eq!(pacing.drop_at_shell_end(), at(2, 3, 4));
    assert!(!pacing.is_pending());
    // On the line typed first, the rest unended.
    let (_, mut pacing) = Pacing::split(b"echo a; exit 3\necho b".to_vec(), true, false);
    assert_eq!(pacing.drop_at_shell_end(), at(1, 2, 2));
    // Blank lines after the exit name nothing; one between lines with text is named with them.
    let (_, mut pacing) = Pacing::split(b"exit\n\n  \n".to_vec(), true, false);
    assert_eq!(pacing.drop_at_shell_end(), None);
    let (_, mut pacing) = Pacing::split(b"exit\n\necho b\n\necho c\n\n".to_vec(), true, false);
    assert_eq!(pacing.drop_at_shell_end(), at(1, 3, 5));
    // A Ctrl-D ended it: the Enter after it runs nothing, the line after it is named.
    let (_, mut pacing) = Pacing::split(b"echo a\n\x04\necho b\n".to_vec(), true, false);
    assert_eq!(pacing.on_settle(Settle::Prompt), Some(b"\x04".to_vec()));
    assert_eq!(pacing.drop_at_shell_end(), at(2, 3, 3));
    let (_, mut pacing) = Pacing::split(b"echo a\n\x04\n".to_vec(), true, false);
    assert_eq!(pacing.on_settle(Settle::Prompt), Some(b"\x04".to_vec()));
    assert_eq!(pacing.drop_at_shell_end(), None);
    // Text after the key on its own line was not typed either.
    let (_, mut pacing) = Pacing::split(b"\x04echo b\necho c".to_vec(), true, false);
    assert_eq!(pacing.drop_at_shell_end(), at(1, 1, 2));
}

#[test]
fn text_after_an_interrupt_key_waits_for_the_reader() {
    let (first, mut pacing) = Pacing::split(b"echo a\x03echo b\n".to_vec(), true, false);
    assert_eq!(first, b"echo a");
    assert_eq!(pacing.on_settle(Settle::StdinWait), Some(b"\x03".to_vec()));
    assert_eq!(pacing.on_settle(Settle::Prompt), Some(b"echo b\n".to_vec()));
    let (first, mut pacing) = Pacing::split(b"x = 1\x03print(1)\r".to_vec(), false, true);
    assert_eq!(first, b"x = 1");
    assert_eq!(pacing.on_settle(Settle::StdinWait), Some(b"\x03".to_vec()));
    assert_eq!(
        pacing.on_settle(Settle::StdinWait),
        Some(b"print(1)\r".to_vec())
    );
    let (first, pacing) = Pacing::split(b"\x03".to_vec(), true, false);
    assert_eq!(first, b"\x03");
    assert!(!pacing.is_pending());
    // After a key to the shell, only its new prompt releases the text after it.
    let (_, mut pacing) = Pacing::split(b"sleep 9\n\x03echo b\n".to_vec(), true, false);
    assert!(pacing.signal_next());
    assert_eq!(pacing.take_next(), Some(b"\x03".to_vec()));
    let soon = std::time::Duration::from_millis(10);
    let holds = |p: &Pacing, reason, shell_fg, since, gone| {
        p.holds_for_prompt(reason, shell_fg, since, gone).is_some()
    };
    assert!(holds(&pacing, Settle::StdinWait, true, soon, false));
    assert!(!holds(
        &pacing,
        Settle::StdinWait,
        true,
        PROMPT_HOLD_MAX,
        false
    ));
    assert!(!holds(&pacing, Settle::StdinWait, false, soon, false));
    assert!(!holds(&pacing, Settle::Prompt, true, soon, false));
    assert_eq!(pacing.on_settle(Settle::Prompt), Some(b"echo b\n".to_vec()));
    assert!(!holds(&pacing, Settle::StdinWait, true, soon, false));
    // The lines after one that ended the program they answered wait for the shell's prompt.
    let (_, mut pacing) = Pacing::split(b"raise SystemExit(4)\necho after\n".to_vec(), true, false);
    assert!(!holds(&pacing, Settle::StdinWait, true, soon, false));
    assert!(holds(
        &pacing,
        Settle::StdinWait,
        true,
        PROMPT_HOLD_MAX,
        true
    ));
    assert!(!holds(
        &pacing,
        Settle::StdinWait,
        true,
        READER_GONE_HOLD_MAX,
        true
    ));
    assert!(
        !holds(&pacing, Settle::StdinWait, false, soon, true),
        "the program reads"
    );
    let _ = pacing.take_next();
}

#[test]
fn a_repl_gets_the_next_line_once_it_reads_again_at_its_prompt() {
    let reader = LineReader {
        program: true,
        canonical_now: Some(false),
        waiting: true,
        output_drained: true,
        ..LineReader::default()
    };
    // A REPL reading the terminal alone: at once, without a settle.
    let (_, mut pacing) = Pacing::split(b"1\n2\n3\n".to_vec(), true, false);
    pacing.set_reader_canonical(Some(false));
    assert_eq!(pacing.gate(None, &reader), (None, Some(Settle::StdinWait)));
    // Not while the line is unread.
    let unread = LineReader {
        input_pending: true,
        ..reader
    };
    assert_eq!(pacing.gate(None, &unread), (None, None));
    // Nor before what it printed is on the screen (the next line is shaped from it).
    let printing = LineReader {
        output_drained: false,
        ..reader
    };
    assert_eq!(pacing.gate(None, &printing), (None, None));
    // An event loop: once its prompt came back after the line.
    let event_loop = LineReader {
        among_others: true,
        ..reader
    };
    assert_eq!(pacing.gate(None, &event_loop), (None, None));
    assert!(pacing.wants_cursor_row(false));
    let prompted = LineReader {
        prompt_since_write: true,
        ..event_loop
    };
    assert_eq!(
        pacing.gate(None, &prompted),
        (None, Some(Settle::StdinWait))
    );
    assert!(!pacing.wants_cursor_row(true));
    // An event loop that left raw mode (node's `.exit`) is done with lines: its wait
    // settles nothing; a program reading alone in another mode is a new reader.
    let left = LineReader {
        canonical_now: Some(true),
        ..event_loop
    };
    assert_eq!(pacing.gate(Some(Settle::StdinWait), &left), (None, None));
    let new_reader = LineReader {
        canonical_now: Some(true),
        ..reader
    };
    let release = Some(Settle::StdinWait);
    assert_eq!(pacing.gate(release, &new_reader), (release, release));
    // Lines the shell's own line editor began with keep the settle rules alone.
    let (_, mut shell) = Pacing::split(b"1\n2\n".to_vec(), true, false);
    assert_eq!(shell.gate(None, &reader), (None, None));
    // Begun while the event loop ran a statement in line mode (node): back at a prompt of its
    // own since, reading raw, it takes the next line.
    let (_, mut busy) = Pacing::split(b"1\n2\n3\n".to_vec(), true, false);
    busy.set_reader_canonical(Some(true));
    assert_eq!(busy.gate(None, &event_loop), (None, None));
    assert_eq!(busy.gate(None, &prompted), (None, Some(Settle::StdinWait)));
}

#[test]
fn a_reader_in_canonical_mode_gets_lines_whole_and_an_interrupt_after_them() {
    let (first, pacing) = Pacing::split(b"a\nb\n".to_vec(), false, false);
    assert_eq!(first, b"a\nb\n");
    assert!(!pacing.is_pending());
    // The terminal discards what was not read when it sends the signal.
    let (first, mut pacing) = Pacing::split(b"a\nb\n\x03c\n".to_vec(), false, false);
    assert_eq!(first, b"a\nb\n");
    assert!(pacing.signal_next());
    assert_eq!(pacing.take_next(), Some(b"\x03".to_vec()));
    assert_eq!(pacing.on_settle(Settle::StdinWait), Some(b"c\n".to_vec()));
    assert_eq!(pacing.newest_step_first_line(), 3);
    // Keys on the key's own line go first too, and the key once they were read.
    let (first, mut pacing) = Pacing::split(b"abc\x03".to_vec(), false, false);
    assert_eq!(first, b"abc");
    assert_eq!(pacing.take_next(), Some(b"\x03".to_vec()));
}

#[test]
fn lines_to_a_repl_are_typed_one_at_a_time() {
    let (first, mut pacing) =
        Pacing::split(b"x = 5\nprint(x)\n\x03print(1)\r".to_vec(), true, true);
    assert_eq!(first, b"x = 5\n");
    assert_eq!(pacing.newest_step_first_line(), 1);
    assert_eq!(
        pacing.on_settle(Settle::StdinWait),
        Some(b"print(x)\n".to_vec())
    );
    assert_eq!(pacing.newest_step_first_line(), 2);
    assert_eq!(pacing.on_settle(Settle::StdinWait), Some(b"\x03".to_vec()));
    assert_eq!(
        pacing.on_settle(Settle::StdinWait),
        Some(b"print(1)\r".to_vec())
    );
    assert_eq!(pacing.newest_step_first_line(), 3);
    assert!(!pacing.is_pending());
}

#[test]
fn an_escape_that_would_start_a_key_it_is_not_goes_alone() {
    let steps = |input: &[u8]| -> Vec<Vec<u8>> {
        let (first, mut pacing) = Pacing::split(input.to_vec(), false, true);
        let mut steps = vec![first];
        while let Some(step) = pacing.on_settle(Settle::StdinWait) {
            steps.push(step);
        }
        steps
    };
    assert_eq!(
        steps(b"ione\x1bOtwo\x1b:wq\r"),
        vec![b"ione\x1b".to_vec(), b"Otwo\x1b:wq\r".to_vec()]
    );
    assert_eq!(steps(b"\x1b[[x"), vec![b"\x1b".to_vec(), b"[[x".to_vec()]);
    assert_eq!(
        steps(b"ione\x1bOHello\x1b:wq\r"),
        vec![b"ione\x1b".to_vec(), b"OHello\x1b:wq\r".to_vec()]
    );
    for whole in [
        &b"ihello\x1b:wq\r"[..],
        b"\x1b[A\x1b[B",
        b"\x1bOA",
        b"\x1bOA\x1bOB",
        b"\x1b[1;5C",
        b"\x1b[3~",
        b"\x1bOP",
        b"\x1b",
        b"x\x1bO",
    ] {
        assert_eq!(steps(whole), vec![whole.to_vec()], "{whole:?}");
    }
}

#[test]
fn lines_for_a_full_screen_program_an_earlier_line_started_are_split_again_once() {
    let (_, mut pacing) = Pacing::split(b"vim f\nione\n    two\n".to_vec(), true, false);
    let step = pacing.take_next().unwrap_or_default();
    assert_eq!(step, b"ione\n");
    assert_eq!(pacing.respace_for_full_screen(step), b"ione");
    let step = pacing.take_next().unwrap_or_default();
    assert_eq!(step, b"\n");
    assert_eq!(pacing.respace_for_full_screen(step), b"\n");
    assert_eq!(pacing.pending_bytes(), b"    two\n");
    assert_eq!(pacing.take_next().unwrap_or_default(), b"    two");
}

/// A planned statement step that is Enter alone ends the block the step before typed, and
/// only then may be dropped; a line end split off a step and put back is no such step.
#[test]
fn only_a_planned_enter_alone_ends_a_block() {
    let (_, mut p) = Pacing::split(b"x\r".to_vec(), true, false);
    p.plan_statements(vec![
        b"\x1b[200~if x: y\x1b[201~\r".to_vec(),
        BLOCK_END_KEY.to_vec(),
        b"hello\r".to_vec(),
        b"print(1)\r".to_vec(),
    ]);
    assert!(!p.next_ends_a_block());
    assert!(p.take_next().is_some());
    assert!(p.next_ends_a_block());
    assert_eq!(p.drop_next().as_deref(), Some(BLOCK_END_KEY));
    assert!(!p.next_ends_a_block());
    // The Enter that ends a block is no line of the input: `hello` is line 3 (after `x` and
    // the block), dropped or typed.
    // `hello` typed as keys, its Enter put back to go once they are read.
    assert_eq!(p.take_next().as_deref(), Some(&b"hello\r"[..]));
    assert_eq!(p.newest_step_first_line(), 3);
    p.put_back(b"\r".to_vec());
    assert!(!p.next_ends_a_block(), "a put-back Enter ends no block");
    assert_eq!(p.take_next().as_deref(), Some(&b"\r"[..]));
    assert!(!p.next_ends_a_block());
    assert_eq!(p.take_next().as_deref(), Some(&b"print(1)\r"[..]));
}

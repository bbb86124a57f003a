//! Table tests of the settle decision.

use super::*;

const SHELL: i32 = 100;
const CHILD: i32 = 200;

fn timing() -> ReadinessTiming {
    ReadinessTiming {
        exact_probe_after: Duration::from_millis(20),
        idle_silence: Duration::from_millis(50),
        handoff_grace: Duration::from_millis(10),
        timeout: Duration::from_millis(100),
        silence_rule: SilenceRule::KernelIdle,
        waits_out_timed_waits: false,
    }
}

fn obs(t0: Instant, ms: u64) -> Observation {
    Observation {
        now: t0 + Duration::from_millis(ms),
        exited: false,
        prompt: PromptState::Busy,
        prompt_under_output: PromptState::Busy,
        done_since_write: false,
        mark_since_write: false,
        fg: Some(SHELL),
        input_pending: false,
        fg_waiting: None,
        fg_busy: None,
        fg_timed_wait: false,
        fg_wait_among_others: false,
        fg_wakes_in: None,
        fg_key_wakes_in: None,
        cursor_row: None,
        cursor_text: None,
        cursor_jumps: 0,
        fg_relays: false,
        fg_reader_ran: false,
        fg_repl_pending: false,
        tty_read_outside_fg: false,
        reply_pending: false,
        last_output_at: t0,
        output_since_write: false,
        has_output: true,
        output_drained: true,
        shell_marks_alive: false,
        line_editor_mode: false,
        tty_line_editing: true,
        alternate_screen: false,
        prompt_at_cursor: false,
        question_at_cursor: false,
        cursor_on_blank_row: false,
        prompt_above_cursor: false,
    }
}

/// Readiness with the default idle window (3 s) and deadline (30 s), for decisions that
/// depend on a wait's quiet rather than on silence.
fn with_real_windows(t0: Instant, pre: PreWrite) -> Readiness {
    Readiness::new(
        ReadinessTiming {
            idle_silence: Duration::from_secs(3),
            timeout: Duration::from_secs(30),
            ..timing()
        },
        t0,
        false,
        SHELL,
        pre,
    )
}

fn ready(pre: PreWrite, t0: Instant) -> Readiness {
    Readiness::new(timing(), t0, false, SHELL, pre)
}

#[test]
fn a_poll_accepts_a_program_that_was_already_waiting() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: None,
        reader: None,
    };
    let mut r = ready(pre, t0);
    r.set_poll_only(true);
    let mut o = obs(t0, 30);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn a_poll_at_an_idle_prompt_settles_at_once() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    r.set_poll_only(true);
    let mut o = obs(t0, 1);
    assert_eq!(r.evaluate(&o), None, "busy: keep waiting");
    o.prompt = PromptState::Prompt;
    assert_eq!(r.evaluate(&o), Some(Settle::Prompt));
}

#[test]
fn a_poll_at_the_continuation_prompt_settles_at_once() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    r.set_poll_only(true);
    let mut o = obs(t0, 1);
    o.prompt = PromptState::Continuation;
    assert_eq!(r.evaluate(&o), Some(Settle::Continuation));
}

#[test]
fn keys_at_the_prompt_settle_once_read_and_quiet() {
    let t0 = Instant::now();
    let long = || with_real_windows(t0, PreWrite::default());
    let mut r = long();
    r.set_keys_at_prompt(true);
    let quiet_ms = u64::try_from(WEAK_WAIT_QUIET.as_millis()).unwrap();
    assert_eq!(
        r.keys_settle_at(t0),
        Some(t0 + WEAK_WAIT_QUIET),
        "the driver wakes for it"
    );
    let mut o = obs(t0, quiet_ms);
    o.prompt = PromptState::Prompt;
    o.input_pending = true;
    assert_eq!(r.evaluate(&o), None, "not read yet");
    o.input_pending = false;
    o.now = t0 + WEAK_WAIT_QUIET - Duration::from_millis(1);
    assert_eq!(r.evaluate(&o), None, "the line editor may still print");
    o.now = t0 + WEAK_WAIT_QUIET;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
    // Keys typed after text at the prompt (cursor moves) settle the same way; a program
    // that took the terminal meanwhile is not the line editor that read them.
    o.prompt = PromptState::Busy;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
    o.fg = Some(CHILD);
    assert_eq!(r.evaluate(&o), None);
    o.fg = Some(SHELL);
    // Nor is any other send.
    let mut plain = long();
    o.prompt = PromptState::Prompt;
    assert_eq!(plain.evaluate(&o), None);
    assert_eq!(plain.keys_settle_at(t0), None);
}

#[test]
fn keys_the_line_discipline_holds_accept_a_wait_that_began_before_the_write() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: None,
        reader: None,
    };
    let mut o = obs(t0, 30);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    o.fg_wait_among_others = true;
    o.now = t0 + WEAK_WAIT_QUIET;
    // A key an event loop may have acted on needs evidence that it did.
    let mut plain = with_real_windows(t0, pre);
    assert_eq!(plain.evaluate(&o), None);
    // Keys held in the kernel's canonical line (no line end): the wait is still the same.
    let mut held = with_real_windows(t0, pre);
    held.set_held_by_line_discipline(true);
    assert_eq!(held.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn typed_ahead_input_needs_the_shell_blocked_reading_before_the_prompt_settles() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    r.set_typeahead(true);
    let mut o = obs(t0, 30);
    o.prompt = PromptState::Prompt;
    o.done_since_write = true;
    // A stale prompt whose shell has gathered (not yet echoed) the typed input.
    o.fg_waiting = Some(false);
    assert_eq!(r.evaluate(&o), None);
    o.fg_waiting = None;
    assert_eq!(r.evaluate(&o), None);
    assert!(r.wants_probe(Some(SHELL), PromptState::Prompt, true));
    // Blocked reading again, but what it wrote before (the typed command's output and its
    // own prompt) is not on the screen yet: the prompt seen is still the earlier command's.
    o.fg_waiting = Some(true);
    o.output_drained = false;
    assert_eq!(r.evaluate(&o), None);
    o.output_drained = true;
    assert_eq!(r.evaluate(&o), Some(Settle::Prompt));
}

/// The shell reads at its line editor while output it wrote before waits unread (the
/// session's reader lagging on a loaded machine): the screen's newest marks may be ones a
/// command printed, so the prompt settles once that output is on the screen, or, a flood
/// from a background program keeping it undrained, after `PROMPT_DRAIN_MAX`.
#[test]
fn a_prompt_settles_once_the_output_before_it_is_on_the_screen() {
    use super::prompt_drain::PROMPT_DRAIN_MAX;
    let t0 = Instant::now();
    let ready = |pre, t0| {
        let timing = ReadinessTiming {
            timeout: Duration::from_secs(30),
            ..timing()
        };
        Readiness::new(timing, t0, false, SHELL, pre)
    };
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 5);
    o.prompt = PromptState::Prompt;
    o.done_since_write = true;
    o.tty_line_editing = true;
    o.output_drained = false;
    assert_eq!(r.evaluate(&o), None, "output still unread");
    o.now = t0 + Duration::from_millis(5) + PROMPT_DRAIN_MAX - Duration::from_millis(1);
    assert_eq!(r.evaluate(&o), None);
    o.now += Duration::from_millis(1);
    assert_eq!(
        r.evaluate(&o),
        Some(Settle::Prompt),
        "a flood: not for ever"
    );
    let mut r = ready(PreWrite::default(), t0);
    o.now = t0 + Duration::from_millis(5);
    assert_eq!(r.evaluate(&o), None);
    o.output_drained = true;
    assert_eq!(r.evaluate(&o), Some(Settle::Prompt));
    // A background program's flood over the prompt: the screen's marks no longer announce
    // it, the shell still reads there; settled once `PROMPT_DRAIN_MAX` passed all the same.
    let mut r = ready(PreWrite::default(), t0);
    o.output_drained = false;
    assert_eq!(r.evaluate(&o), None);
    o.prompt = PromptState::Busy;
    o.now += PROMPT_DRAIN_MAX;
    assert_eq!(r.evaluate(&o), Some(Settle::Prompt), "flooded over");
}

#[test]
fn prompt_needs_a_fresh_done_mark_shell_foreground_and_no_queued_input() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 1);
    o.prompt = PromptState::Prompt;
    assert_eq!(r.evaluate(&o), None, "stale prompt from before the write");
    o.done_since_write = true;
    o.input_pending = true;
    assert_eq!(r.evaluate(&o), None, "typed-ahead input still queued");
    o.input_pending = false;
    o.fg = Some(CHILD);
    assert_eq!(r.evaluate(&o), None, "a child still owns the terminal");
    o.fg = Some(SHELL);
    assert_eq!(r.evaluate(&o), Some(Settle::Prompt));
}

#[test]
fn continuation_prompt_settles() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 1);
    o.prompt = PromptState::Continuation;
    o.mark_since_write = true;
    assert_eq!(r.evaluate(&o), Some(Settle::Continuation));
}

#[test]
fn new_foreground_waiting_settles_after_probe_threshold() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(SHELL),
        waiting: false,
        wakes_in: None,
        reader: None,
    };
    let mut r = ready(pre, t0);
    let mut o = obs(t0, 10);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    assert_eq!(r.evaluate(&o), None, "before exact_probe_after");
    let mut o = obs(t0, 20);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn stdin_wait_needs_a_caught_up_quiet_screen() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(SHELL),
        waiting: false,
        wakes_in: None,
        reader: None,
    };
    let mut r = ready(pre, t0);
    let mut o = obs(t0, 30);
    o.fg_waiting = Some(true);
    o.output_drained = false;
    assert_eq!(r.evaluate(&o), None, "unread output may hold the prompt");
    o.output_drained = true;
    o.last_output_at = t0 + Duration::from_millis(30);
    assert_eq!(r.evaluate(&o), None, "output too recent");
    o.now = t0 + Duration::from_millis(30) + PROBE_QUIET;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn a_pre_write_wait_among_other_sources_is_not_reused_until_left_or_answered() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: None,
        reader: None,
    };
    let mut r = with_real_windows(t0, pre);
    let mut o = obs(t0, 30);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    o.last_output_at = t0;
    // A program reading the terminal alone, blocked there again with the input read (a
    // verdict stands only then): it took the input and asks for more, output or not.
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
    // An event loop watching the terminal among other sources may still be busy with it.
    let mut r = with_real_windows(t0, pre);
    o.fg_wait_among_others = true;
    o.now = t0 + WEAK_WAIT_QUIET;
    assert_eq!(r.evaluate(&o), None);
    // Seen running once, then waiting again: accepted.
    let mut o2 = o;
    o2.fg_waiting = Some(false);
    assert_eq!(r.evaluate(&o2), None);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
    // Or: its waiting thread has run since the write (a lone ESC woke node's event loop,
    // which printed nothing and was back in its wait before any probe saw it away).
    let mut r = with_real_windows(t0, pre);
    let mut ran = o;
    ran.fg_reader_ran = true;
    assert_eq!(r.evaluate(&ran), Some(Settle::StdinWait));
    // Or: it answered with output and went quiet.
    let mut r = with_real_windows(t0, pre);
    let mut o = obs(t0, 40);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    o.fg_wait_among_others = true;
    o.output_since_write = true;
    o.last_output_at = t0 + Duration::from_millis(40);
    assert_eq!(r.evaluate(&o), None, "output too recent");
    o.now = t0 + Duration::from_millis(40) + WEAK_WAIT_QUIET;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn shell_reading_counts_unless_its_prompt_is_current() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(SHELL),
        waiting: false,
        wakes_in: None,
        reader: None,
    };
    let mut r = ready(pre, t0);
    let mut o = obs(t0, 25);
    o.fg_waiting = Some(true);
    o.prompt = PromptState::Prompt;
    assert_eq!(r.evaluate(&o), None, "the prompt wait is tier 2's");
    o.prompt = PromptState::Busy;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait), "read -p");
}

#[test]
fn exit_wins() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 1);
    o.exited = true;
    o.prompt = PromptState::Prompt;
    o.done_since_write = true;
    assert_eq!(r.evaluate(&o), Some(Settle::Exit));
}

#[test]
fn an_answered_program_settles_as_soon_as_it_reads_again() {
    // A REPL waiting before the write answers a line: the first quiet probe that finds it
    // reading again settles, with no fixed floor.
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: None,
        reader: None,
    };
    let mut r = Readiness::new(
        ReadinessTiming {
            exact_probe_after: Duration::ZERO,
            ..timing()
        },
        t0,
        false,
        SHELL,
        pre,
    );
    let mut o = obs(t0, 0);
    o.fg = Some(CHILD);
    o.now = t0 + Duration::from_micros(1500);
    o.last_output_at = t0 + Duration::from_micros(400);
    o.output_since_write = true;
    o.fg_waiting = Some(true);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn a_stdin_wait_never_settles_while_the_input_is_still_queued() {
    // The kernel's echo arrived, but the waiting program has not read the line yet.
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: None,
        reader: None,
    };
    let mut r = ready(pre, t0);
    let mut o = obs(t0, 30);
    o.fg = Some(CHILD);
    o.output_since_write = true;
    o.fg_waiting = Some(true);
    o.input_pending = true;
    assert_eq!(r.evaluate(&o), None);
    o.input_pending = false;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn an_owed_query_reply_or_an_event_loop_wait_holds_the_stdin_tier() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(SHELL),
        waiting: false,
        wakes_in: None,
        reader: None,
    };
    let mut r = ready(pre, t0);
    let mut o = obs(t0, 30);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    o.reply_pending = true;
    assert_eq!(r.evaluate(&o), None, "the program waits for our reply");
    o.reply_pending = false;
    o.fg_wait_among_others = true;
    o.last_output_at = t0 + Duration::from_millis(25);
    assert_eq!(r.evaluate(&o), None, "a weak wait needs a longer quiet");
    // After a REPL prompt (node's `> `) the program printed it last: a shorter quiet.
    let mut at_prompt = o;
    at_prompt.prompt_at_cursor = true;
    assert_eq!(
        r.evaluate(&at_prompt),
        None,
        "a prompt wait needs some quiet"
    );
    at_prompt.now = at_prompt.last_output_at + PROMPT_WAIT_QUIET;
    assert_eq!(r.evaluate(&at_prompt), Some(Settle::StdinWait));
    o.now = o.last_output_at + WEAK_WAIT_QUIET;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
    // A prompt seen after the write keeps counting once a timer of the program's printed over
    // it (the cursor now on a blank row): the prompt's quiet is enough.
    let mut r = ready(pre, t0);
    let mut prompted = o;
    prompted.output_since_write = true;
    prompted.prompt_at_cursor = true;
    prompted.now = prompted.last_output_at;
    assert_eq!(r.evaluate(&prompted), None);
    let mut ticked = prompted;
    ticked.prompt_at_cursor = false;
    ticked.cursor_on_blank_row = true;
    ticked.last_output_at = prompted.now + Duration::from_millis(5);
    ticked.now = ticked.last_output_at + PROMPT_WAIT_QUIET;
    assert_eq!(r.evaluate(&ticked), Some(Settle::StdinWait));
}

/// The shell itself blocked reading after output since the write; `marks_alive`: its prompt
/// marks still work; `line_editor`: it reads keys raw (readline), not lines.
fn shell_reading(t0: Instant, marks_alive: bool, line_editor: bool) -> Observation {
    let mut o = obs(t0, 30);
    o.fg_waiting = Some(true);
    o.output_since_write = true;
    o.shell_marks_alive = marks_alive;
    o.line_editor_mode = line_editor;
    o
}

#[test]
fn the_shells_own_wait_holds_for_its_prompt_mark_while_the_marks_are_alive() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let o = shell_reading(t0, true, true);
    // Held: the prompt mark bash prints before reading may still be on its way.
    assert_eq!(r.evaluate(&o), None);
    let held = r.held_until().unwrap_or_else(|| panic!("held"));
    assert_eq!(held, o.now + PROMPT_MARK_WAIT);
    // The mark arrives: the prompt settles, with the exit status.
    let mut marked = o;
    marked.prompt = PromptState::Prompt;
    marked.done_since_write = true;
    marked.mark_since_write = true;
    assert_eq!(r.clone().evaluate(&marked), Some(Settle::Prompt));
    // No mark (a builtin `read`): the wait settles once the bound passes.
    let mut later = o;
    later.now = held;
    later.last_output_at = t0;
    assert_eq!(r.evaluate(&later), Some(Settle::StdinWait));
}

#[test]
fn without_marks_the_shells_own_wait_settles_at_once() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let o = shell_reading(t0, false, false);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

#[test]
fn a_canonical_mode_read_of_the_shell_settles_at_once() {
    // `read -p` reads in canonical mode: no line editor, so no prompt mark to wait for.
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let o = shell_reading(t0, true, false);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

mod silence;

/// A program that waited before the write (among other event sources, with a timeout), then
/// waits with other timeouts and comes back to a wait like the first has dealt with the input
/// though it printed nothing: vim timing out an ESC (25 ms, then 1 s, then its 4 s idle wait).
#[test]
fn a_program_back_in_the_wait_it_had_before_the_write_took_the_input() {
    let t0 = Instant::now();
    let idle = Some(Duration::from_secs(4));
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: idle,
        reader: None,
    };
    let mut r = with_real_windows(t0, pre);
    let mut o = obs(t0, 200);
    o.fg = Some(CHILD);
    o.fg_waiting = Some(true);
    o.fg_wait_among_others = true;
    o.alternate_screen = true;
    o.fg_wakes_in = idle;
    assert_eq!(
        r.evaluate(&o),
        None,
        "the same wait: the input may be unread"
    );
    for (ms, wakes_in) in [(250, 25), (300, 1000)] {
        o.now = t0 + Duration::from_millis(ms);
        o.fg_wakes_in = Some(Duration::from_millis(wakes_in));
        assert_eq!(r.evaluate(&o), None, "still timing the ESC out");
    }
    o.now = t0 + Duration::from_millis(1400);
    o.fg_wakes_in = idle;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));
}

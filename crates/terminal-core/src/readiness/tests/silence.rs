//! When output silence settles a send, and when a wait on the terminal does not: the idle
//! window and its grace, the kernel's busy verdict, the alternate screen's redraw pauses, and
//! a relay's wait (its remote side may still print), and an unprompted wait with a timeout
//! (the program may still be at work between two steps of its timer).

use super::*;

/// A relay's wait (among other event sources, holding a socket: `ssh host make` watching the
/// terminal and the remote output) with nothing before the cursor on the main screen settles
/// only by silence, a poll included; with a prompt before the cursor, on the alternate
/// screen, or by an event loop with nothing to relay (node's REPL after a timer printed), the
/// wait settles once quiet.
#[test]
fn an_unprompted_relay_wait_settles_by_silence_only() {
    let t0 = Instant::now();
    let pre = PreWrite {
        fg: Some(CHILD),
        waiting: true,
        wakes_in: None,
        reader: None,
    };
    let relay = |ms| {
        let mut o = obs(t0, ms);
        o.fg = Some(CHILD);
        o.fg_waiting = Some(true);
        o.fg_busy = Some(false);
        o.fg_wait_among_others = true;
        o.fg_relays = true;
        o.cursor_on_blank_row = true;
        o.output_since_write = true;
        o
    };
    let fresh = |poll| {
        let mut r = with_real_windows(t0, pre);
        r.set_poll_only(poll);
        r
    };
    for poll in [false, true] {
        let mut r = fresh(poll);
        assert_eq!(r.evaluate(&relay(200)), None, "poll={poll}");
        assert_eq!(r.evaluate(&relay(2900)), None, "poll={poll}");
        assert_eq!(r.evaluate(&relay(3100)), Some(Settle::Idle), "poll={poll}");
        let prompted = Observation {
            cursor_on_blank_row: false,
            ..relay(200)
        };
        assert_eq!(
            fresh(poll).evaluate(&prompted),
            Some(Settle::StdinWait),
            "poll={poll}"
        );
        let full_screen = Observation {
            alternate_screen: true,
            ..relay(200)
        };
        assert_eq!(
            fresh(poll).evaluate(&full_screen),
            Some(Settle::StdinWait),
            "poll={poll}"
        );
        let event_loop = Observation {
            fg_relays: false,
            ..relay(200)
        };
        assert_eq!(
            fresh(poll).evaluate(&event_loop),
            Some(Settle::StdinWait),
            "poll={poll}"
        );
    }
}

#[test]
fn silence_and_grace_then_deadline() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 55);
    o.mark_since_write = true;
    o.fg_busy = Some(false);
    assert_eq!(r.evaluate(&o), None, "grace extends silence after a mark");
    o.now = t0 + Duration::from_millis(60);
    assert_eq!(r.evaluate(&o), Some(Settle::Idle));
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 100);
    o.last_output_at = t0 + Duration::from_millis(99);
    assert_eq!(r.evaluate(&o), Some(Settle::Timeout));
}

/// A foreground blocked on events with a timeout (a download polling its socket, an
/// `asyncio.sleep`) is idle to the idle window, but a send that gave its own deadline waits
/// for it up to that deadline; one blocked with no timeout (a server in `accept`) settles
/// at the idle window either way.
#[test]
fn an_own_deadline_waits_out_a_timed_event_wait() {
    let t0 = Instant::now();
    let at = |ms, timed| {
        let mut o = obs(t0, ms);
        o.fg = Some(CHILD);
        o.fg_busy = Some(false);
        o.fg_timed_wait = timed;
        o
    };
    for own_deadline in [false, true] {
        let timing = ReadinessTiming {
            waits_out_timed_waits: own_deadline,
            ..timing()
        };
        let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
        let settled = r.evaluate(&at(60, true));
        if own_deadline {
            assert_eq!(settled, None);
            assert_eq!(r.evaluate(&at(100, true)), Some(Settle::Timeout));
        } else {
            assert_eq!(settled, Some(Settle::Idle));
        }
        let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
        assert_eq!(
            r.evaluate(&at(60, false)),
            Some(Settle::Idle),
            "{own_deadline}"
        );
    }
}

/// A poll that gave its own deadline waits out a program blocked with no timeout too (a
/// download blocked on its socket, `flock`): it asked to wait up to that long; a poll
/// without one settles at the idle window.
#[test]
fn a_poll_with_its_own_deadline_waits_out_a_quiet_program() {
    let t0 = Instant::now();
    let at = |ms| {
        let mut o = obs(t0, ms);
        o.fg = Some(CHILD);
        o.fg_busy = Some(false);
        o
    };
    for own_deadline in [false, true] {
        let timing = ReadinessTiming {
            waits_out_timed_waits: own_deadline,
            ..timing()
        };
        let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
        r.set_poll_only(true);
        let settled = r.evaluate(&at(60));
        if own_deadline {
            assert_eq!(settled, None);
            assert_eq!(r.evaluate(&at(100)), Some(Settle::Timeout));
        } else {
            assert_eq!(settled, Some(Settle::Idle));
        }
    }
}

/// Output the program wrote that the reader has not fed yet is not silence, under either
/// rule: the send settles once it is on the screen (or at its deadline).
#[test]
fn silence_needs_the_output_drained() {
    let t0 = Instant::now();
    for rule in [SilenceRule::KernelIdle, SilenceRule::PureSilence] {
        let timing = ReadinessTiming {
            silence_rule: rule,
            ..timing()
        };
        let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
        let mut o = obs(t0, 60);
        o.fg_busy = Some(false);
        o.output_drained = false;
        assert_eq!(r.evaluate(&o), None, "{rule:?}");
        o.output_drained = true;
        assert_eq!(r.evaluate(&o), Some(Settle::Idle), "{rule:?}");
        let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
        let mut o = obs(t0, 100);
        o.output_drained = false;
        assert_eq!(r.evaluate(&o), Some(Settle::Timeout), "{rule:?}");
    }
}

#[test]
fn startup_silence_without_output_never_settles() {
    let t0 = Instant::now();
    let mut r = Readiness::new(timing(), t0, true, SHELL, PreWrite::default());
    let mut o = obs(t0, 60);
    o.has_output = false;
    o.fg_waiting = Some(true);
    o.fg = Some(CHILD);
    assert_eq!(r.evaluate(&o), None);
    o.now = t0 + Duration::from_millis(100);
    assert_eq!(r.evaluate(&o), Some(Settle::Timeout));
}

#[test]
fn silence_waits_while_the_kernel_says_the_job_is_busy() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 60);
    o.fg = Some(CHILD);
    o.fg_busy = Some(true);
    assert_eq!(
        r.evaluate(&o),
        None,
        "a computing or sleeping job keeps waiting"
    );
    // The verdict sticks between probes.
    o.fg_busy = None;
    o.now = t0 + Duration::from_millis(70);
    assert_eq!(r.evaluate(&o), None);
    // Another group took the terminal (the sleep ended): the old verdict no longer
    // applies, and the next probe decides.
    o.fg = Some(SHELL);
    assert_eq!(
        r.evaluate(&o),
        None,
        "no verdict yet about the shell running on"
    );
    o.fg_busy = Some(false);
    assert_eq!(r.evaluate(&o), Some(Settle::Idle));
    // Idle (a server blocked in accept) settles at the idle window.
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 60);
    o.fg = Some(CHILD);
    o.fg_busy = Some(false);
    assert_eq!(r.evaluate(&o), Some(Settle::Idle));
    // The deadline still bounds a busy job.
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 100);
    o.fg = Some(CHILD);
    o.fg_busy = Some(true);
    assert_eq!(r.evaluate(&o), Some(Settle::Timeout));
}

/// A full-screen program on the alternate screen settles on silence even while the kernel
/// says its job is busy (C23: `printf '\033[?1049h'; sleep 15`; `watch`).
#[test]
fn silence_settles_a_busy_job_on_the_alternate_screen() {
    let t0 = Instant::now();
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 60);
    o.fg = Some(CHILD);
    o.fg_busy = Some(true);
    o.alternate_screen = true;
    assert_eq!(r.evaluate(&o), Some(Settle::Idle));
    // Not before the idle window.
    let mut r = ready(PreWrite::default(), t0);
    let mut o = obs(t0, 30);
    o.last_output_at = t0 + Duration::from_millis(20);
    o.fg = Some(CHILD);
    o.fg_busy = Some(true);
    o.alternate_screen = true;
    assert_eq!(r.evaluate(&o), None);
}

#[test]
fn pure_silence_rule_ignores_the_kernel() {
    let t0 = Instant::now();
    let timing = ReadinessTiming {
        silence_rule: SilenceRule::PureSilence,
        ..timing()
    };
    let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
    let mut o = obs(t0, 60);
    o.fg = Some(CHILD);
    o.fg_busy = Some(true);
    assert_eq!(r.evaluate(&o), Some(Settle::Idle));
}

#[test]
fn a_full_screen_program_that_keeps_redrawing_settles_between_redraws() {
    let timing = ReadinessTiming {
        idle_silence: Duration::from_millis(300),
        timeout: Duration::from_secs(30),
        ..timing()
    };
    let t0 = Instant::now();
    let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
    // `watch` redraws every 40 ms: never silent for the idle window (300 ms here).
    let mut o = obs(t0, 0);
    o.fg = Some(CHILD);
    o.fg_busy = Some(true);
    o.alternate_screen = true;
    o.output_since_write = true;
    for redraw_ms in (0..800).step_by(40) {
        o.last_output_at = t0 + Duration::from_millis(redraw_ms);
        o.now = o.last_output_at + Duration::from_millis(30);
        // Redraws come faster than the pause: never settled between them.
        assert_eq!(r.evaluate(&o), None, "at {redraw_ms} ms");
    }
    // Between two redraws, once the idle window has passed since the send started.
    o.now = o.last_output_at + REDRAW_PAUSE;
    assert_eq!(
        r.silence_deadline(o.last_output_at),
        o.last_output_at + REDRAW_PAUSE
    );
    assert_eq!(r.evaluate(&o), Some(Settle::Idle));
    // A pause before the idle window has passed since the send started is not enough.
    let mut early = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
    let mut first = o;
    first.last_output_at = t0 + Duration::from_millis(10);
    first.now = t0 + Duration::from_millis(150);
    assert_eq!(early.evaluate(&first), None);
    // On the main screen, output every 40 ms keeps a send waiting (a busy build).
    let mut r = Readiness::new(timing, t0, false, SHELL, PreWrite::default());
    o.alternate_screen = false;
    assert_eq!(r.evaluate(&o), None);
}

/// A wait on the terminal with a timeout on the main screen, with no prompt or question before
/// the cursor (node printing on a `setInterval` beside a stdin listener, a progress line redrawn
/// beside a `read -t`) settles only once its timeout and the margin have passed since it was
/// first seen with no output after it; output in between starts it over. At the latest a
/// little before silence would settle. With a REPL's prompt or a question before the cursor,
/// or on the alternate screen, the timeout does not hold it.
#[test]
fn a_timed_wait_settles_once_its_timer_passed_without_output() {
    let t0 = Instant::now();
    let period = Duration::from_millis(300);
    let needed = period + TIMED_WAIT_MARGIN;
    let waiting = |at: Duration, last_output: Duration| {
        let mut o = obs(t0, 0);
        o.now = t0 + at;
        o.fg = Some(CHILD);
        o.fg_waiting = Some(true);
        o.fg_busy = Some(false);
        o.fg_wait_among_others = true;
        o.fg_wakes_in = Some(period);
        o.cursor_on_blank_row = true;
        o.output_since_write = true;
        o.last_output_at = t0 + last_output;
        o
    };
    let ms = Duration::from_millis;
    for blank_row in [true, false] {
        let mut r = with_real_windows(t0, PreWrite::default());
        let at = |at, last| {
            let mut o = waiting(at, last);
            o.cursor_on_blank_row = blank_row;
            o
        };
        assert_eq!(r.evaluate(&at(ms(200), ms(0))), None, "first seen");
        assert_eq!(r.evaluate(&at(ms(200) + needed - ms(1), ms(0))), None);
        // The timer fired and the program printed: start over from the next sighting.
        assert_eq!(r.evaluate(&at(ms(600), ms(500))), None);
        assert_eq!(r.evaluate(&at(ms(600) + needed - ms(1), ms(500))), None);
        assert_eq!(
            r.evaluate(&at(ms(600) + needed, ms(500))),
            Some(Settle::StdinWait),
            "woke and printed nothing (blank row: {blank_row})"
        );
    }

    // A long or unreadable timeout settles a little before silence would.
    let mut r = with_real_windows(t0, PreWrite::default());
    let mut o = waiting(ms(200), ms(200));
    o.fg_wakes_in = Some(Duration::MAX);
    assert_eq!(r.evaluate(&o), None);
    let settles_at = ms(200) + ms(3000) - TIMED_WAIT_SILENCE_LEAD;
    o.now = t0 + settles_at - ms(1);
    assert_eq!(r.evaluate(&o), None);
    o.now = t0 + settles_at;
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));

    // A REPL's prompt or a question before the cursor (`read -t 30 -p 'Name: '`), or the
    // alternate screen (a TUI polling for keys), settles as any wait among others does.
    for case in ["REPL prompt", "question", "alternate screen"] {
        let mut r = with_real_windows(t0, PreWrite::default());
        let mut o = waiting(WEAK_WAIT_QUIET, ms(0));
        match case {
            "REPL prompt" => o.prompt_at_cursor = true,
            "question" => o.question_at_cursor = true,
            _ => o.alternate_screen = true,
        }
        assert_eq!(r.evaluate(&o), Some(Settle::StdinWait), "{case}");
    }
}

/// A key reader in cbreak mode waiting on the terminal with a timeout on the main screen, no
/// prompt before the cursor (`fg_key_wakes_in`): one that redraws its rows in place on its
/// timer (`top`) waits for its key once its timeout (at most `KEY_TIMER_LOOK`) passed with no
/// row appended, though it printed meanwhile; one whose output appends rows (a thread reading
/// `q` beside one printing `epoch N/8`, a `select` loop between steps) is at work until it
/// appends none for that long. With its own deadline (a poll with `timeoutMs`), the send waits
/// for no row appended for nearly the idle window instead.
#[test]
fn a_key_readers_timed_wait_is_work_while_its_output_appends_rows() {
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let period = ms(500);
    let needed = period + TIMED_WAIT_MARGIN;
    let at = |at: Duration, last_output: Duration, row: u64| {
        let mut o = obs(t0, 0);
        o.now = t0 + at;
        o.fg = Some(CHILD);
        o.fg_waiting = Some(true);
        o.fg_busy = Some(false);
        o.fg_key_wakes_in = Some(period);
        o.cursor_on_blank_row = true;
        o.output_since_write = true;
        o.last_output_at = t0 + last_output;
        o.cursor_row = Some(row);
        o
    };

    // `top -d 0.5`: a redraw every 500 ms leaves the cursor on its row.
    let mut r = with_real_windows(t0, PreWrite::default());
    assert_eq!(r.evaluate(&at(ms(200), ms(150), 30)), None, "first seen");
    assert_eq!(r.evaluate(&at(ms(600), ms(590), 30)), None);
    assert_eq!(
        r.evaluate(&at(ms(200) + needed, ms(590), 30)),
        Some(Settle::StdinWait),
        "redrawn in place: waiting for a key"
    );

    // A line printed every 500 ms: each one starts the wait over.
    let mut r = with_real_windows(t0, PreWrite::default());
    assert_eq!(r.evaluate(&at(ms(200), ms(150), 30)), None, "first seen");
    for step in 1..=6u64 {
        let printed = ms(150 + 500 * step);
        let o = at(printed + ms(10), printed, 30 + step);
        assert_eq!(r.evaluate(&o), None, "epoch {step}");
    }
    // The last line at 3150 ms, seen at 3160 ms; none after it.
    assert_eq!(
        r.evaluate(&at(ms(3160) + needed - ms(1), ms(3150), 36)),
        None
    );
    assert_eq!(
        r.evaluate(&at(ms(3160) + needed, ms(3150), 36)),
        Some(Settle::StdinWait)
    );

    // A progress line redrawn in place (`\r`) every 500 ms, the cursor after its text: each
    // new text starts the wait over.
    let mut r = with_real_windows(t0, PreWrite::default());
    let redraw = |now: Duration, printed: Duration, text: u64| {
        let mut o = at(now, printed, 30);
        o.cursor_text = Some(text);
        o
    };
    assert_eq!(r.evaluate(&redraw(ms(200), ms(150), 1)), None, "first seen");
    for step in 1..=6u64 {
        let printed = ms(150 + 500 * step);
        let o = redraw(printed + ms(10), printed, 1 + step);
        assert_eq!(r.evaluate(&o), None, "frame {step}");
    }
    assert_eq!(
        r.evaluate(&redraw(ms(3160) + needed - ms(1), ms(3150), 7)),
        None
    );
    assert_eq!(
        r.evaluate(&redraw(ms(3160) + needed, ms(3150), 7)),
        Some(Settle::StdinWait)
    );
    // The same with a cursor move before each frame (`top` homes its cursor and rewrites the
    // rows, its cursor after a row whose text changes): a screen redrawn, waiting for a key.
    let mut r = with_real_windows(t0, PreWrite::default());
    let frame = |now: Duration, printed: Duration, n: u64| {
        let mut o = redraw(now, printed, n);
        o.cursor_jumps = n;
        o
    };
    assert_eq!(r.evaluate(&frame(ms(200), ms(150), 1)), None, "first seen");
    assert_eq!(r.evaluate(&frame(ms(660), ms(650), 2)), None);
    assert_eq!(
        r.evaluate(&frame(ms(200) + needed, ms(650), 2)),
        Some(Settle::StdinWait)
    );

    // A timer of unknown length (a thread sleeping beside the key read) is watched for
    // `KEY_TIMER_LOOK`.
    let mut r = with_real_windows(t0, PreWrite::default());
    let mut o = at(ms(200), ms(150), 30);
    o.fg_key_wakes_in = Some(Duration::MAX);
    assert_eq!(r.evaluate(&o), None);
    o.now = t0 + ms(200) + KEY_TIMER_LOOK + TIMED_WAIT_MARGIN - ms(1);
    assert_eq!(r.evaluate(&o), None);
    o.now += ms(1);
    assert_eq!(r.evaluate(&o), Some(Settle::StdinWait));

    // With its own deadline, no row appended for nearly the idle window, redraws or not.
    let mut r = Readiness::new(
        ReadinessTiming {
            idle_silence: Duration::from_secs(3),
            timeout: Duration::from_secs(30),
            waits_out_timed_waits: true,
            ..timing()
        },
        t0,
        false,
        SHELL,
        PreWrite::default(),
    );
    r.set_poll_only(true);
    assert_eq!(r.evaluate(&at(ms(200), ms(150), 30)), None, "first seen");
    let settles_at = ms(200) + ms(3000) - TIMED_WAIT_SILENCE_LEAD;
    assert_eq!(r.evaluate(&at(ms(200) + needed, ms(600), 30)), None);
    assert_eq!(
        r.evaluate(&at(settles_at - ms(1), settles_at - ms(100), 30)),
        None
    );
    assert_eq!(
        r.evaluate(&at(settles_at, settles_at - ms(100), 30)),
        Some(Settle::StdinWait)
    );

    // A prompt or question before the cursor, or the alternate screen: no hold.
    for case in ["question", "alternate screen"] {
        let mut r = with_real_windows(t0, PreWrite::default());
        let mut o = at(ms(200), ms(150), 30);
        match case {
            "question" => o.question_at_cursor = true,
            _ => o.alternate_screen = true,
        }
        assert_eq!(r.evaluate(&o), Some(Settle::StdinWait), "{case}");
    }
}

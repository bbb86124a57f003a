//! Render goldens: the seed's (the seed's §4.3, §8 items 85–88, 131) where they still apply,
//! and ours where we go past the seed.

use super::*;
use crate::schema::{SessionOutput, StatusOutput};
use dsh_terminal_core::{
    EarlierExits, EarlierFailure, InputMode, ReadResult, SendResult, SessionId, SessionSnapshot,
    SessionStatus, SpawnResult, WaitReason,
};
use pretty_assertions::assert_eq;

// The goldens build core results and render them the way the tools do: core result → output
// type (the tools' `From` conversions) → text.

fn render_spawn(result: &SpawnResult, max_bytes: usize) -> String {
    super::render_spawn(&result.clone().into(), max_bytes)
}

fn render_send(result: &SendResult, max_bytes: usize) -> String {
    super::render_send(&result.clone().into(), max_bytes)
}

fn render_read(result: &ReadResult, max_bytes: usize) -> String {
    super::render_read(&result.clone().into(), max_bytes)
}

fn render_list(sessions: &[SessionSnapshot], max_bytes: usize) -> String {
    let sessions: Vec<SessionOutput> = sessions.iter().map(SessionOutput::from).collect();
    super::render_list(&sessions, max_bytes)
}

fn snapshot(
    id: &str,
    name: Option<&str>,
    status: SessionStatus,
    pid: Option<u32>,
) -> SessionSnapshot {
    SessionSnapshot {
        session_id: SessionId::new(id),
        name: name.map(str::to_owned),
        backend_type: "shell".into(),
        pid,
        status,
    }
}

fn send(viewport: &str, wait: WaitReason, status: SessionStatus, truncated: bool) -> SendResult {
    SendResult {
        viewport: viewport.into(),
        wait_reason: wait,
        session_status: status,
        truncated,
        exit_code: None,
        foreground: None,
        input_mode: InputMode::Normal,
        earlier_exits: EarlierExits::default(),
        output_bytes: viewport.len() as u64,
        head: None,
        notices: Vec::new(),
        newest_line: None,
        prompt_owed: false,
        prompt_unmarked: false,
        entered_none: false,
    }
}

const CAP: usize = crate::DEFAULT_MAX_RESULT_BYTES;

#[test]
fn seed_spawn_goldens() {
    let named = SpawnResult {
        snapshot: snapshot("pty-1", Some("main"), SessionStatus::Running, Some(42)),
        motd: "dsh> ".into(),
    };
    assert_eq!(
        render_spawn(&named, CAP),
        "started terminal session pty-1 (main) [type: shell]\ndsh> "
    );
    let bare = SpawnResult {
        snapshot: snapshot("pty-1", None, SessionStatus::Running, None),
        motd: String::new(),
    };
    assert_eq!(
        render_spawn(&bare, CAP),
        "started terminal session pty-1 [type: shell]\n(no startup output)"
    );
}

#[test]
fn seed_send_goldens() {
    assert_eq!(
        render_send(
            &send(
                "command output",
                WaitReason::StdinRead,
                SessionStatus::Running,
                false
            ),
            CAP
        ),
        "command output\n[wait: stdin_read]\n[session: running]"
    );
    assert_eq!(
        render_send(
            &send("", WaitReason::Timeout, SessionStatus::Running, true),
            CAP
        ),
        "(no new output)\n[wait: timeout]\n[session: running]\n[output truncated]"
    );
    // Seed §8 item 131 at cap 64: the newest output is kept, metadata and marker survive.
    // Deliberate change from the seed's `K\ndsh> …`: the cut starts at a line boundary, so no
    // fragment of a line (`K` of `PTY_OK`) poses as output.
    assert_eq!(
        render_send(
            &send(
                "printf 'PTY_OK\\n'\nPTY_OK\ndsh> ",
                WaitReason::StdinRead,
                SessionStatus::Running,
                false
            ),
            64
        ),
        "dsh> \n[wait: stdin_read]\n[session: running]\n[output truncated]"
    );
}

#[test]
fn seed_exited_status_renders() {
    let cases = [
        (Some(0), Some("SIGTERM"), "exited code=0 signal=SIGTERM"),
        (None, Some("SIGTERM"), "exited code=null signal=SIGTERM"),
        (Some(2), None, "exited code=2 signal=null"),
        (None, None, "exited code=null signal=null"),
    ];
    for (code, signal, expected) in cases {
        let status = SessionStatus::Exited {
            exit_code: code,
            signal: signal.map(str::to_owned),
        };
        assert_eq!(StatusOutput::from(&status).render(), expected);
    }
}

#[test]
fn background_send_names_its_job() {
    let out = SendOutput::Background {
        job_id: "job-1".into(),
        output: String::new(),
    };
    assert_eq!(
        super::render_send(&out, CAP),
        "started background job job-1"
    );
    let out = SendOutput::Background {
        job_id: "pty-send-1".into(),
        output: "tick1\n".into(),
    };
    assert_eq!(
        super::render_send(&out, CAP),
        "started background job pty-send-1\ntick1\n"
    );
}

#[test]
fn seed_send_read_goldens() {
    let cases = [
        ("", true, "[output truncated]"),
        ("x", true, "x\n[output truncated]"),
        ("x\n", true, "x\n[output truncated]"),
        ("x", false, "x"),
    ];
    for (delta, truncated, expected) in cases {
        let read = SendRead {
            delta: delta.into(),
            truncated,
            ..SendRead::default()
        };
        assert_eq!(render_send_read(&read), expected);
    }
}

#[test]
fn seed_read_goldens() {
    let page = |text: &str, total, begin, end, truncated| ReadResult {
        text: text.into(),
        total_lines: total,
        line_begin: begin,
        line_end: end,
        truncated,
        line_start: None,
        alternate_screen: false,
        first_line: None,
    };
    assert_eq!(
        render_read(&page("history", 1, 0, 1, false), CAP),
        "history\n[lines: 0-1 of 1]"
    );
    assert_eq!(
        render_read(&page("", 0, 0, 0, true), CAP),
        "(no retained output)\n[lines: 0-0 of 0]\n[output truncated]"
    );
    // An offset past the retained lines says how far back they go.
    insta::assert_snapshot!(
        "read_past_the_end",
        render_read(&page("", 10040, 20000, 20000, true), CAP)
    );
    assert_eq!(
        render_read(
            &page("dsh> printf 'PTY_OK\\n'\nPTY_OK\ndsh> ", 3, 0, 3, false),
            CAP
        ),
        "dsh> printf 'PTY_OK\\n'\nPTY_OK\ndsh> \n[lines: 0-3 of 3]"
    );
    // A full-screen program's screen says so.
    insta::assert_snapshot!(
        "read_alternate_screen",
        render_read(
            &ReadResult {
                alternate_screen: true,
                ..page("line 1\nline 2\n(END)", 3, 0, 3, false)
            },
            CAP
        )
    );
    // A whole page that reaches the oldest line kept, after older output was dropped.
    insta::assert_snapshot!(
        "read_oldest_retained",
        render_read(
            &page("line 2\nline 3\ndsh> ", 10038, 10035, 10038, true),
            CAP
        )
    );
    // Lines are retained, but the cap left no room for any beside the footer.
    insta::assert_snapshot!(
        "read_no_line_fits",
        render_read(&page("", 41, 3, 3, true), 256)
    );
    let long = page(&"line\n".repeat(20), 20, 0, 10, false);
    let bounded = render_read(&long, 48);
    assert!(bounded.len() <= 48, "{bounded:?}");
    assert!(bounded.contains("[lines: 0-10 of 20]"), "{bounded:?}");
}

#[test]
fn seed_list_goldens() {
    assert_eq!(render_list(&[], CAP), "(no terminal sessions)");
    let sessions = [
        snapshot("pty-1", None, SessionStatus::Running, None),
        snapshot(
            "pty-2",
            Some("done"),
            SessionStatus::Exited {
                exit_code: Some(2),
                signal: None,
            },
            Some(9),
        ),
        snapshot("pty-3", Some("main"), SessionStatus::Running, Some(1234)),
        snapshot(
            "pty-4",
            None,
            SessionStatus::Exited {
                exit_code: None,
                signal: Some("SIGKILL".into()),
            },
            Some(77),
        ),
    ];
    insta::assert_snapshot!("list_four_sessions", render_list(&sessions, CAP));
    assert!(render_list(&sessions, CAP).starts_with(
        "pty-1 [shell] running\npty-2 (done) [shell] exited code=2 signal=null pid=9\n"
    ));
}

#[test]
fn signal_and_close_renders() {
    assert_eq!(
        render_signal("SIGINT", 4242, false, false),
        "delivered SIGINT to foreground process group 4242; the next terminal_send or terminal_read (job_output while a background job holds the session) shows its effect"
    );
    insta::assert_snapshot!(
        "signal_shell_target",
        render_signal("SIGINT", 4242, true, false)
    );
    insta::assert_snapshot!(
        "signal_shell_target_ignored",
        render_signal("SIGTERM", 4242, true, false)
    );
    insta::assert_snapshot!(
        "signal_shell_target_ignored_stop",
        render_signal("SIGTSTP", 4242, true, false)
    );
    insta::assert_snapshot!(
        "signal_shell_running_its_own_command",
        [
            render_signal("SIGINT", 4242, true, true),
            render_signal("SIGTERM", 4242, true, true),
        ]
        .join("\n")
    );
    insta::assert_snapshot!(
        "signal_interrupt_character",
        render_interrupt_character("SIGINT", 4242)
    );
    insta::assert_snapshot!(
        "signal_suspend_character",
        render_suspend_character("SIGTSTP", 4242)
    );
    insta::assert_snapshot!(
        "signal_still_reading",
        [
            render_signal_still_reading("SIGINT", 4242, "python3", false),
            render_signal_still_reading("SIGINT", 4242, "the shell's read", false),
            render_signal_still_reading("SIGTERM", 4242, "python3", false),
            render_signal_still_reading("SIGINT", 4242, "node", true),
        ]
        .join("\n")
    );
    insta::assert_snapshot!(
        "signal_still_running",
        [
            render_signal_still_running("SIGINT", 4242, "python3"),
            render_signal_still_running("SIGTERM", 4242, "python3"),
        ]
        .join("\n")
    );
    insta::assert_snapshot!(
        "signal_program_ended_or_stopped",
        [
            render_signal_ended("SIGINT", 4242, ("node", &[]), true),
            render_signal_ended("SIGTERM", 4242, ("python3", &[]), false),
            render_signal_ended(
                "SIGINT",
                4242,
                ("bash", &["sleep".to_owned(), "sleep".to_owned()]),
                false
            ),
            render_signal_stopped("SIGTSTP", 4242, "python3"),
        ]
        .join("\n")
    );
    insta::assert_snapshot!(
        "signal_back_at_repl_prompt",
        [
            render_signal_back_at_prompt("SIGINT", 4242, "python3", ">>>", false),
            render_signal_back_at_prompt("SIGINT", 4242, "ipython", "In [5]:", true),
        ]
        .join("\n")
    );
    insta::assert_snapshot!(
        "signal_skipped_at_idle_prompt",
        render_signal_skipped("SIGINT")
    );
    insta::assert_snapshot!(
        "signal_when_command_starts",
        render_signal_when_command_starts("SIGINT", false)
    );
    insta::assert_snapshot!(
        "signal_when_shell_runs_the_line",
        render_signal_when_command_starts("SIGINT", true)
    );
    insta::assert_snapshot!(
        "signal_when_command_starts_kill",
        render_signal_when_command_starts("SIGKILL", false)
    );
    insta::assert_snapshot!(
        "signal_when_command_starts_term",
        render_signal_when_command_starts("SIGTERM", false)
    );
    assert_eq!(
        render_close("pty-1", Some(3), None),
        "closed terminal session pty-1 [stopped 3 processes]"
    );
    assert_eq!(
        render_close("pty-1", Some(1), None),
        "closed terminal session pty-1 [stopped 1 process]"
    );
    assert_eq!(
        render_close("pty-1", None, None),
        "terminal session pty-1 was already closing"
    );
    assert_eq!(
        render_close("pty-1", Some(3), Some("pty-send-2")),
        "closed terminal session pty-1 [stopped 3 processes] [ended background job pty-send-2 (killed)]"
    );
}

#[test]
fn seed_byte_bounds() {
    let result = send(
        &"x".repeat(500),
        WaitReason::StdinRead,
        SessionStatus::Running,
        false,
    );
    let at_64 = render_send(&result, 64);
    assert!(at_64.len() <= 64);
    assert!(at_64.contains("[wait: stdin_read]"));
    assert!(at_64.ends_with("[output truncated]"));
    assert!(render_send(&result, 8).len() <= 8);

    let spawn = SpawnResult {
        snapshot: snapshot("pty-1", None, SessionStatus::Running, None),
        motd: "m".repeat(500),
    };
    assert!(render_spawn(&spawn, 32).len() <= 32);
    let at_96 = render_spawn(&spawn, 96);
    assert!(at_96.len() <= 96);
    assert!(at_96.starts_with("started terminal session pty-1 [type: shell]\n"));
    assert!(at_96.ends_with("[output truncated]"));

    assert_eq!(bound_terminal_text(&"x".repeat(200), 8), "uncated]");
    let at_32 = bound_terminal_text(&"x".repeat(200), 32);
    assert_eq!(at_32.len(), 32);
    assert!(at_32.ends_with("[output truncated]"));
    assert_eq!(bound_terminal_text("short", 64), "short");
}

#[test]
fn cuts_never_split_a_code_point() {
    let cjk = "一二三四五六七八九十".repeat(20);
    for cap in 40..80 {
        let out = render_send(
            &send(&cjk, WaitReason::StdinRead, SessionStatus::Running, false),
            cap,
        );
        assert!(out.len() <= cap);
        assert!(!out.contains('\u{FFFD}'));
        let bounded = bound_terminal_text(&cjk, cap);
        assert!(bounded.len() <= cap);
        assert!(!bounded.contains('\u{FFFD}'));
    }
}

#[test]
fn cuts_start_at_a_line_boundary() {
    let lines: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    let out = render_send(
        &send(&lines, WaitReason::StdinRead, SessionStatus::Running, false),
        2000,
    );
    assert!(out.len() <= 2000);
    let first = out.lines().next().unwrap();
    let n: u32 = first.parse().unwrap();
    // The first kept line is a whole number from the sequence, followed by its successor.
    assert_eq!(out.lines().nth(1).unwrap(), (n + 1).to_string());
    assert!(lines.contains(&format!("\n{first}\n")));
    assert_eq!(tail_lines("abc\ndef\nghi", 6), "ghi");
    assert_eq!(tail_lines("abc\ndef\n", 4), "def\n");
    assert_eq!(
        tail_lines("abcdefgh", 3),
        "fgh",
        "a single partial line is kept"
    );
}

#[test]
fn background_acknowledgements_keep_the_job_id() {
    assert_eq!(
        render_background("pty-send-1", "", 64),
        "started background job pty-send-1"
    );
    assert_eq!(
        render_background("pty-send-1", "make: building\n", 1000),
        "started background job pty-send-1\nmake: building\n"
    );
    let long = "x".repeat(500);
    let out = render_background("pty-send-1", &long, 64);
    assert!(out.len() <= 64, "{out:?}");
    assert!(out.starts_with("started background job pty-send-1\n"));
    assert!(out.ends_with("[output truncated]"));
}

#[test]
fn a_long_send_keeps_its_first_and_newest_lines_around_an_omission() {
    let lines: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    let result = SendResult {
        exit_code: Some(0),
        ..send(
            &format!("seq 1 3000\n{lines}dsh> "),
            WaitReason::StdinRead,
            SessionStatus::Running,
            false,
        )
    };
    let mut output = SendOutput::from(result);
    crate::fit::fit_send(
        &mut output,
        crate::fit::Pages {
            session_id: "pty-1",
            newest_line: None,
        },
        1000,
    );
    let text = super::render_send(&output, 1000);
    assert!(text.len() <= 1000, "{} bytes", text.len());
    insta::assert_snapshot!("send_head_and_tail", text);
}

#[test]
fn an_omission_with_nothing_left_to_page_does_not_point_at_terminal_read() {
    let gone = crate::schema::OmittedOutput {
        after_line: 1,
        lines: 24_989_862,
        bytes: 49_979_724,
        not_retained_lines: 24_989_862,
        terminal_read: None,
    };
    assert_eq!(
        omission_line(&gone),
        "[… about 24989862 lines omitted, all of them no longer retained (the output outgrew the scrollback)]"
    );
}

mod send_facts;

/// The line-cut markers are model-visible: exact, estimated, and a lower bound (the
/// scrollback no longer keeps the line's start).
#[test]
fn the_line_cut_markers_are_api() {
    insta::assert_snapshot!(
        "line_cut_markers",
        [
            line_cut_marker(1234),
            line_cut_marker_about(1234),
            line_cut_marker_at_least(1234),
        ]
        .join("\n")
    );
}

/// A full-screen program that reads no keys (`watch`) has the engine's notice saying so; the
/// general line about sending it keys is left out then, as it would contradict it.
#[test]
fn a_full_screen_program_that_reads_no_keys_gets_no_key_advice() {
    let mut result = send(
        "Every 2.0s: date",
        WaitReason::InferredIdle,
        SessionStatus::Running,
        false,
    );
    result.input_mode = InputMode::AlternateScreen;
    result.foreground = Some("watch".into());
    let advice = "one that reads keys takes what you send as keys";
    assert!(render_send(&result, CAP).contains(advice));
    result.notices.push(
        "[input: watch does not read the terminal: keys sent to it stay unread, a key command \
         included; terminal_signal SIGINT stops it]"
            .into(),
    );
    let text = render_send(&result, CAP);
    assert!(!text.contains(advice), "{text}");
    assert!(
        text.contains("[input: watch does not read the terminal"),
        "{text}"
    );
    // The screen is still said to be the program's (field case C23).
    assert!(text.contains(READ_ALTERNATE_SCREEN), "{text}");
    // Keys sent to it since, unread: that notice stands instead.
    result.notices = vec![
        "[input: watch has not read the text sent: it waits in the terminal's input for \
         whatever reads next]"
            .into(),
    ];
    let text = render_send(&result, CAP);
    assert!(!text.contains(advice), "{text}");
}

/// A terminal multiplexer on the alternate screen gets advice of its own: lines with Enter
/// reach the shell in its pane, its commands take its prefix key.
#[test]
fn a_multiplexer_gets_its_own_advice() {
    let mut result = send(
        "[x] 0:bash*",
        WaitReason::InferredIdle,
        SessionStatus::Running,
        false,
    );
    result.input_mode = InputMode::AlternateScreen;
    result.foreground = Some("tmux: client".into());
    let text = render_send(&result, CAP);
    assert!(
        !text.contains("a full-screen program holds the terminal"),
        "{text}"
    );
    insta::assert_snapshot!(
        text.lines()
            .find(|l| l.starts_with("[screen:"))
            .unwrap_or_default()
    );
}

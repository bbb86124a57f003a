//! A background send of a program that redraws rows it printed (a multi-bar progress display
//! moving the cursor up to rewrite its bars): the job's reads show each row as it is when read,
//! not every frame the job's internal drains saw, and none that a redraw replaced after an
//! erase; and a program that changes a row's text after a read took it (a combining mark
//! printed after its character): the next read gives the row as it is now. A line erased
//! after a read showed it is no line the agent never saw. Rows the cursor passes over on its
//! way up and back down, unchanged, stay in the job's output. A full-screen program's screen
//! and the lines printed around it each come once.

use dsh_tool_terminal::ToolTerminalConfig;
use serde_json::json;

use crate::support::{Gates, Host};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redrawing_display_shows_its_rows_as_they_are_not_every_frame() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let displays = [
        // Up three rows and erase below, then the three bars again.
        "for i in $(seq 1 40); do [ $i -gt 1 ] && printf '\\033[3A\\033[J'; printf 'bar0 %d\\nbar1 %d\\nbar2 %d\\n' $i $i $i; sleep 0.02; done; echo done-$((6*7))",
        // Each bar's row erased and rewritten on the way up.
        "for i in $(seq 1 40); do [ $i -gt 1 ] && printf '\\033[1A\\033[2K\\033[1A\\033[2K\\033[1A\\033[2K'; printf 'bar0 %d\\nbar1 %d\\nbar2 %d\\n' $i $i $i; sleep 0.02; done; echo done-$((6*7))",
        // A status line erased after each step, the next text written where it was.
        "for i in $(seq 1 40); do printf 'bar0 %d\\n' $i; sleep 0.02; printf '\\033[1A\\033[2K'; done; echo done-$((6*7))",
    ];
    for text in displays {
        let (job, ack) = host.start_job(&agent, &session, text).await;
        let read = host.wait_job(&agent, &job).await;
        let all = format!("{ack}\n{read}");
        assert!(all.lines().any(|l| l == "done-42"), "{all}");
        // Only frames a read showed: the start's result (the acknowledgement) may have shown
        // one, and the last read shows the last.
        for bar in ["bar0", "bar1", "bar2"] {
            let frames: Vec<&str> = read.lines().filter(|l| l.starts_with(bar)).collect();
            assert!(frames.len() <= 1, "{bar}: {frames:?} in {read}");
        }
        if text.contains("bar2") {
            assert!(read.lines().any(|l| l == "bar2 40"), "{read}");
        }
    }
    host.shutdown().await;
}

/// Combining marks printed after the job's reads took the characters they combine with
/// (`printf 'xe'; sleep; printf '\xcc\x81'`): the job's output keeps each mark on its
/// character, neither dropped nor doubled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn combining_marks_printed_after_a_read_stay_on_their_characters() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let text = "printf 'xe'; sleep 0.4; printf '\\xcc\\x81'; sleep 0.4; printf '\\xe4\\xb8\\xad\\xcc'; sleep 0.4; printf '\\x81y\\n'; echo done-$((6*7))";
    let read = host.job_to_end(&agent, &session, text).await;
    assert!(read.lines().any(|l| l == "done-42"), "{read}");
    let line = "xe\u{301}\u{4e2d}\u{301}y";
    assert_eq!(
        read.lines()
            .filter(|l| l.starts_with('x'))
            .collect::<Vec<_>>(),
        [line],
        "{read}"
    );
    host.shutdown().await;
}

/// A status line pinned below a scroll region (apt and dpkg keep their progress on the last
/// row): the job's output is the lines in order, with no blank lines for the region's rows the
/// output had not reached when a read came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_line_pinned_below_a_scroll_region_adds_no_blank_lines() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    host.send(&agent, &session, "clear").await;
    let text = "printf '\\0337\\033[0;39r\\0338'; for i in $(seq 1 20); do printf 'Unpacking package-%03d ...\\n' $i; printf '\\0337\\033[40;0f\\033[42mProgress: [%3d%%]\\033[49m\\0338' $((i*5)); sleep 0.05; done; printf '\\0337\\033[0;40r\\033[40;1H\\033[2K\\0338'; echo done-$((6*7))";
    let (job, ack) = host.start_job(&agent, &session, text).await;
    let mut reads = vec![ack];
    loop {
        let read = host
            .call(&agent, "job_output", json!({"job_id": job}))
            .await
            .text();
        let done = !read
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("[status: running");
        reads.push(read);
        if done {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // No read shows blank lines (the region's unreached rows above the status line).
    for read in &reads {
        assert!(!read.contains("\n\n"), "{reads:#?}");
    }
    let all = reads.join("\n");
    let lines: Vec<&str> = all.lines().filter(|l| !l.starts_with('[')).collect();
    let unpacking: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("Unpacking"))
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|i| format!("Unpacking package-{i:03} ..."))
        .collect();
    assert_eq!(unpacking, expected, "{reads:#?}");
    assert!(all.lines().any(|l| l == "done-42"), "{reads:#?}");
    host.shutdown().await;
}

/// A `\r` progress line longer than the screen is wide (`\r` goes back to the start of its
/// last row only): the job's output is the line as the screen shows it, its earlier rows
/// included, as a foreground result gives it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrapped_line_rewritten_after_cr_keeps_its_earlier_rows() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let text = "for i in 1 2 3; do printf '\\r%0150d step %d and more text to wrap' 0 $i; sleep 0.3; done; echo; echo done-$((6*7))";
    let all = host.job_to_end(&agent, &session, text).await;
    assert!(all.lines().any(|l| l == "done-42"), "{all}");
    let zeros = "0".repeat(150);
    let line = format!("{zeros} step 1 an{zeros} step 2 an{zeros} step 3 and more text to wrap");
    assert!(all.lines().any(|l| l == line), "{all}");
    host.shutdown().await;
}

/// A line a `job_output` read showed, then erased by the program (a status line written over
/// it): the job's output does not say it was lost. The same line erased before any read
/// showed it (the job's own drains took it, no read did) is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_erased_after_a_read_showed_it_is_not_reported_lost() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let gates = Gates::new("bg-erased", &session);
    // Each step waits for a file the test creates: the job prints the line only after its
    // start was acknowledged, and erases it only once the test let it.
    let program = |print: &str, erase: &str| {
        format!(
            "{print}; printf 'ERROR: token expired\\n'; {erase}; printf '\\033[1A\\033[2Kok refreshed\\n'; echo done-$((6*7))"
        )
    };
    let lost = "it was `ERROR: token expired`";

    let text = program(&gates.wait("print-1"), &gates.wait("erase-1"));
    let (job, _) = host.start_job(&agent, &session, &text).await;
    gates.open("print-1");
    host.until_job_prints(&agent, &job, "ERROR: token expired")
        .await;
    gates.open("erase-1");
    let read = host.wait_job(&agent, &job).await;
    assert!(read.lines().any(|l| l == "done-42"), "{read}");
    assert!(!read.contains(lost), "{read}");

    let text = program(&gates.wait("print-2"), &gates.wait("erase-2"));
    let (job, _) = host.start_job(&agent, &session, &text).await;
    gates.open("print-2");
    gates.open("erase-2");
    let read = host.wait_job(&agent, &job).await;
    assert!(read.lines().any(|l| l == "done-42"), "{read}");
    assert!(read.contains(lost), "{read}");
    host.shutdown().await;
}

/// A program that moves the cursor up over rows it printed and back down (a multi-line
/// progress display redrawing one bar), pausing on the way so the job's drains see the cursor
/// up: the rows it passed over unchanged stay in the job's output, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_the_cursor_passes_over_stay_in_the_jobs_output() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let gates = Gates::new("bg-passed", &session);
    for (round, (moves, expected)) in [
        ("printf '\\033[3AA 2\\033[3B\\r'", ["A 2", "B 1", "C 1"]),
        (
            "printf '\\033[2A'; sleep 0.3; printf '\\033[2B'",
            ["A 1", "B 1", "C 1"],
        ),
        (
            "printf '\\033[2A'; sleep 0.3; printf '\\n\\n'",
            ["A 1", "B 1", "C 1"],
        ),
        ("printf '\\033[3A\\nB 2\\n\\n'", ["A 1", "B 2", "C 1"]),
    ]
    .into_iter()
    .enumerate()
    {
        // The rows are printed once the start was acknowledged (its result shows none).
        let go = format!("go-{round}");
        let text = format!(
            "{}; printf 'A 1\\nB 1\\nC 1\\n'; sleep 0.3; {moves}; sleep 0.3; echo done-$((6*7))",
            gates.wait(&go)
        );
        let (job, _) = host.start_job(&agent, &session, &text).await;
        gates.open(&go);
        let read = host.wait_job(&agent, &job).await;
        let lines: Vec<&str> = read
            .lines()
            .filter(|l| l.len() == 3 || l.starts_with("done-"))
            .collect();
        assert_eq!(
            lines,
            [expected[0], expected[1], expected[2], "done-42"],
            "{read}"
        );
        // No read showed the rows before the cursor went back up over them, and the program
        // wrote over no earlier program's text.
        assert!(!read.contains("[screen:"), "{read}");
    }
    host.shutdown().await;
}

/// A job whose program takes the alternate screen, stays on it while the job goes quiet (its
/// send settles and the job follows with polls) and leaves it: the lines printed before it
/// took the screen, its screen and the lines after it each come once in the job's reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_screen_programs_screen_and_the_lines_around_it_each_come_once() {
    // With a short idle window the job's send settles while the screen is up (the job
    // follows with polls); with a long one the screen comes and goes within the send.
    for idle_silence_ms in [200, 1500] {
        full_screen_round(idle_silence_ms).await;
    }
}

async fn full_screen_round(idle_silence_ms: u64) {
    let bash = dsh_terminal_bash::BashConfig {
        idle_silence_ms,
        ..crate::support::fast_bash()
    };
    let host = Host::with_jobs(ToolTerminalConfig::default(), bash);
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let gates = Gates::new("bg-alt", &session);
    let text = format!(
        "echo pre-$((1+1)); printf '\\033[?1049h'; echo in-alt-$((2+3)); {}; sleep 0.6; printf '\\033[?1049l'; echo post-$((2+2))",
        gates.wait("leave")
    );
    let (job, ack) = host.start_job(&agent, &session, &text).await;
    let mut reads = vec![ack];
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while !reads.iter().any(|r| r.lines().any(|l| l == "in-alt-5")) {
        assert!(tokio::time::Instant::now() < deadline, "{reads:#?}");
        reads.push(host.job_output(&agent, &job).await);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    gates.open("leave");
    reads.push(host.wait_job(&agent, &job).await);
    let all = reads.join("\n");
    for line in ["pre-2", "in-alt-5", "post-4"] {
        assert_eq!(
            all.lines().filter(|l| *l == line).count(),
            1,
            "{line}: {reads:#?}"
        );
    }
    // A read showed the screen: it is not said to be gone.
    assert!(!all.contains("left it again"), "{reads:#?}");
    host.shutdown().await;
}

/// Rows a read showed, then gone back up over and passed again (the cursor up two rows, then
/// two line feeds): the job's output says once that it went back up into lines a read showed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn going_back_up_into_lines_a_read_showed_is_said_once() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let gates = Gates::new("bg-up-once", &session);
    // The rows are printed once the start was acknowledged, and gone back up over once a read
    // showed them.
    let text = format!(
        "{}; printf 'A 1\\nB 1\\n'; {}; sleep 0.5; printf '\\033[2A'; printf '\\n\\n'; echo done-$((6*7))",
        gates.wait("print"),
        gates.wait("up")
    );
    let (job, _) = host.start_job(&agent, &session, &text).await;
    gates.open("print");
    host.until_job_prints(&agent, &job, "B 1").await;
    gates.open("up");
    let read = host.wait_job(&agent, &job).await;
    assert!(read.lines().any(|l| l == "done-42"), "{read}");
    assert!(
        read.matches("[screen: the output went back up").count() <= 1,
        "{read}"
    );
    host.shutdown().await;
}

/// Lines a read showed, then moved down under the cursor by a scroll (a reverse index at the
/// top, lines inserted above them) and written over: no line the agent never saw is said to
/// be lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_a_read_showed_then_scrolled_under_the_cursor_are_not_reported_lost() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let gates = Gates::new("bg-scrolled", &session);
    for (round, scroll) in ["\\0337\\033[H\\033M\\0338", "\\033[2A\\033[1L\\033[2B\\r"]
        .iter()
        .enumerate()
    {
        let (print, moved) = (format!("print-{round}"), format!("moved-{round}"));
        let text = format!(
            "{}; printf 'line 0\\nline 1\\nline 2\\nfourth\\n'; {}; printf '{scroll}'; echo 'tail A'; echo done-$((6*7))",
            gates.wait(&print),
            gates.wait(&moved)
        );
        let (job, _) = host.start_job(&agent, &session, &text).await;
        gates.open(&print);
        host.until_job_prints(&agent, &job, "fourth").await;
        gates.open(&moved);
        let read = host.wait_job(&agent, &job).await;
        assert!(read.lines().any(|l| l == "done-42"), "{read}");
        assert!(
            !read.contains("the program erased or wrote over"),
            "{scroll}: {read}"
        );
    }
    host.shutdown().await;
}

/// A read while the program's cursor is up over rows a read showed (a multi-line display
/// between moving up and redrawing, or going back down without writing): it takes nothing,
/// and the rows come again only when rewritten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_while_the_cursor_is_up_takes_nothing() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let gates = Gates::new("bg-up", &session);
    for (round, back) in [
        "printf '\\033[3B'",
        "printf '\\033[2Kitem%d: stage1\\n' 0 1 2",
    ]
    .iter()
    .enumerate()
    {
        let [go, up, moved, down] = ["go", "up", "moved", "down"].map(|g| format!("{g}-{round}"));
        // The program says it moved the cursor up by opening a gate itself.
        let text = format!(
            "{}; printf 'item%d: pending\\n' 0 1 2; {}; printf '\\033[3A'; touch '{}'; {}; {back}; echo done-$((6*7))",
            gates.wait(&go),
            gates.wait(&up),
            gates.path(&moved).display(),
            gates.wait(&down)
        );
        let (job, _) = host.start_job(&agent, &session, &text).await;
        gates.open(&go);
        host.until_job_prints(&agent, &job, "item2: pending").await;
        gates.open(&up);
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while !gates.path(&moved).exists() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the cursor never went up"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let during = host.job_output(&agent, &job).await;
        gates.open(&down);
        let after = host.wait_job(&agent, &job).await;
        assert!(!during.contains("item"), "{during}");
        assert!(after.lines().any(|l| l == "done-42"), "{after}");
        let pending = after.lines().filter(|l| l.ends_with("pending")).count();
        let stage1 = after.lines().filter(|l| l.ends_with("stage1")).count();
        if round == 0 {
            assert_eq!((pending, stage1), (0, 0), "{after}");
        } else {
            assert_eq!((pending, stage1), (0, 3), "{after}");
        }
    }
    host.shutdown().await;
}

/// A full-screen program that redraws its screen (`watch`) while the job's drains look at
/// every frame: a read shows the screen as it is, once, without the empty rows below its text
/// (every frame since the previous read came, each with a screenful of blank lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redrawn_full_screen_comes_once_as_it_is() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let text = "printf '\\033[?1049h'; for i in $(seq 1 10); do printf '\\033[H\\033[2Jframe %d\\nrow two\\n' $i; sleep 0.05; done; read -r x";
    let (job, _ack) = host.start_job(&agent, &session, text).await;
    let read = host.wait_job(&agent, &job).await;
    let frames: Vec<&str> = read.lines().filter(|l| l.starts_with("frame ")).collect();
    assert_eq!(frames, ["frame 10"], "{read}");
    assert!(read.contains("frame 10\nrow two\n"), "{read}");
    assert!(!read.contains("\n\n\n"), "blank rows: {read:?}");
    host.shutdown().await;
}

/// A line built from pieces over time where a piece repeats what the line already holds
/// (`printf .` in a loop, a test runner's dots): each piece continues the line, none is taken
/// for the line written again from its start (the job's output had one `.` for many).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_built_of_repeated_pieces_keeps_every_piece() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    for (pieces, line) in [
        ("x x x", "xxx"),
        ("abc abc XYZ", "abcabcXYZ"),
        (". . F . . [100%]", "..F..[100%]"),
        ("é é é", "ééé"),
    ] {
        let text = format!(
            "for p in {pieces}; do printf %s \"$p\"; sleep 0.15; done; echo; echo done-$((6*7))"
        );
        let (job, ack) = host.start_job(&agent, &session, &text).await;
        // A read while the line is still being written, and the rest at the end.
        let mid = host.job_output(&agent, &job).await;
        let read = host.wait_job(&agent, &job).await;
        let all = format!("{ack}\n{mid}\n{read}");
        assert!(all.lines().any(|l| l == "done-42"), "{all}");
        assert!(all.lines().any(|l| l == line), "{pieces}: {all}");
    }
    host.shutdown().await;
}

/// A program that goes back into its line (`\r`, backspaces) and pauses: the job's output
/// holds the line as the screen shows it (each drain of the job added the text after the
/// cursor again: `Doneing...ing...ing...`), with a read while it pauses and without.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_the_program_went_back_into_comes_once_as_the_screen_shows_it() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    for (text, line) in [
        (
            "printf 'Load''ing...'; sleep 0.3; printf '\\rDone'; sleep 0.3; echo",
            "Doneing...",
        ),
        (
            "printf 'abc''def\\b\\b'; sleep 0.3; printf 'X\\n'",
            "abcdXf",
        ),
        (
            "printf 'abc''def\\r'; sleep 0.3; printf XY; sleep 0.3; echo",
            "XYcdef",
        ),
    ] {
        for mid_read in [false, true] {
            let (job, ack) = host.start_job(&agent, &session, text).await;
            let mid = if mid_read {
                host.job_output(&agent, &job).await
            } else {
                String::new()
            };
            let read = host.wait_job(&agent, &job).await;
            let all = format!("{ack}\n{mid}\n{read}");
            assert!(all.lines().any(|l| l == line), "{text}: {all}");
            assert!(
                !all.contains(&format!("{line}{}", &line[4..])),
                "{text}: {all}"
            );
        }
    }
    host.shutdown().await;
}

/// A program that moves the cursor up over lines it printed, rewrites the top one and ends
/// there (its prompt comes on the row below): the lines under the cursor stay in the job's
/// output, as on the screen (they were dropped, the job ending above them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_under_a_cursor_that_ended_above_them_stay_in_the_jobs_output() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    for (text, expected) in [
        (
            "sleep 0.2; printf 'l1\\nl2\\nl3\\nl4\\nl5\\nl6\\n\\033[6A'; sleep 0.2; printf 'X\\n'",
            &["X1", "l2", "l3", "l4", "l5", "l6"][..],
        ),
        (
            "python3 -c \"print('A\\nB\\nC\\nD\\nE\\n\\x1b[5AX')\"",
            &["X", "B", "C", "D", "E"],
        ),
    ] {
        let (job, ack) = host.start_job(&agent, &session, text).await;
        let read = host.wait_job(&agent, &job).await;
        let all = format!("{ack}\n{read}");
        let at = all
            .lines()
            .position(|l| l == expected[0])
            .unwrap_or_else(|| panic!("{all}"));
        let lines: Vec<&str> = all.lines().skip(at).take(expected.len()).collect();
        assert_eq!(lines, expected, "{all}");
    }
    host.shutdown().await;
}

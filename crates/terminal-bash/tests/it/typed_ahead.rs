//! Text sent while a program at work reads nothing is held until something reads the
//! terminal, so the terminal never echoes it ahead (a secret sent before its password prompt
//! stays off the screen); a result says when a prompt of the same command line took a command
//! meant for the shell. Text for a program blocked for good elsewhere goes in typed ahead: the
//! terminal echoes it at once, and the result says so when a password prompt came after the
//! echo (the secret shows, and the prompt dropped it). A signal drops held text unwritten.

use dsh_terminal_core::{BackendSession, SendRequest, TerminalSignal, WaitReason};

use crate::support::{Shell, TempDir, config, within};

const HELD: &str = "[input: this text was sent while sleep ran and read no input, so it waited for the next reader: a prompt of the same command line read it";
const HELD_PYTHON: &str = "[input: this text was sent while python3 ran and read no input";
const TAKEN: &str = "[input: this text went in while";
const ECHOED: &str = "[input: this text went in while python3 ran and read no input (typed ahead), so the terminal echoed it above; the prompt with echo off";

fn said(r: &dsh_terminal_core::SendResult, text: &str) -> bool {
    r.notices.iter().any(|n| n.starts_with(text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_for_a_program_at_work_waits_for_its_reader_and_a_prompt_that_took_it_is_named() {
    within(async {
        let sh = Shell::open(config()).await;
        // A command sent ahead answers the `read` of the running line.
        let r = sh
            .send_within("sleep 1; read -p 'Name: ' n; echo \"n=$n\"", true, 100)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send("echo next-command").await;
        assert!(r.viewport.contains("n=echo next-command"), "{r:?}");
        assert!(said(&r, HELD), "{r:?}");
        assert!(!said(&r, TAKEN), "{r:?}");
        // Held until the line ended, then run by the shell: nothing to say, and no echo of it
        // ahead of the shell's own.
        sh.send_within("sleep 1", true, 100).await;
        let r = sh.send("echo ran-after").await;
        assert!(r.viewport.contains("\nran-after\n"), "{r:?}");
        assert_eq!(r.viewport.matches("echo ran-after").count(), 1, "{r:?}");
        assert!(r.notices.iter().all(|n| !n.starts_with("[input:")), "{r:?}");
        // A password sent before its prompt: it waits for `getpass`, which reads it with echo
        // off, and it never shows.
        let r = sh
            .send_within(
                "python3 -c \"import getpass, time; time.sleep(1); print('len', len(getpass.getpass('Password: ')))\"",
                true,
                100,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send("early-secret").await;
        assert!(r.viewport.contains("len 12"), "{r:?}");
        assert!(said(&r, HELD_PYTHON), "{r:?}");
        assert!(!sh.session.transcript().contains("early-secret"), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_typed_ahead_of_a_program_blocked_elsewhere_is_echoed_and_said_to_be() {
    within(async {
        let dir = TempDir::new("typed-ahead-fifo");
        let fifo = dir.0.join("f");
        let sh = Shell::open(config()).await;
        // Blocked opening a FIFO (for good, as far as the kernel says): the text goes at once.
        let r = sh
            .send_within(
                &format!(
                    "mkfifo {f}; python3 -c \"import getpass; open('{f}').read(); print('len', len(getpass.getpass('Password: ')))\"",
                    f = fifo.display()
                ),
                true,
                300,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let op = sh
            .session
            .start_send(SendRequest {
                text: "early-secret".into(),
                submit: true,
                timeout: None,
            })
            .unwrap();
        crate::support::wait_until("the typed-ahead text is echoed", || {
            op.progress()
                .last_line
                .is_some_and(|l| l.contains("early-secret"))
        })
        .await;
        std::fs::write(&fifo, "go\n").unwrap();
        let r = op.done().await.unwrap();
        assert!(said(&r, ECHOED), "{r:?}");
        let r = sh.send("the-secret").await;
        assert!(r.viewport.contains("len 10"), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_held_until_the_deadline_is_not_sent_and_the_result_says_so() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send_within("sleep 100", true, 100).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh
            .send_within("echo held-$((6*7))\necho more-$((6*7))", true, 300)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: not sent: sleep ran until the deadline")),
            "{r:?}"
        );
        assert!(!r.viewport.contains("held-"), "{r:?}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("echo after-$((1+1))").await;
        assert!(r.viewport.contains("after-2"), "{r:?}");
        let transcript = sh.session.transcript();
        assert!(
            !transcript.contains("held-") && !transcript.contains("more-"),
            "the text held ran or was echoed:\n{transcript}"
        );
        sh.close().await;
    })
    .await;
}

/// A signal (as the terminal's keys discard input typed ahead) or a cancel of the send drops
/// text held for a reader unwritten: it never runs once the shell reads again. A cancel
/// interrupts nothing: the command that was running goes on. The status the signal brings back
/// is an earlier command's, not the send's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_or_a_cancel_drops_held_text_unwritten() {
    within(async {
        let sh = Shell::open(config()).await;
        for (round, by_signal) in [(1, true), (2, false)] {
            let r = sh.send_within("sleep 100", true, 100).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            let op = sh
                .session
                .start_send(SendRequest {
                    text: format!("echo held-{round}-$((6*7))"),
                    submit: true,
                    timeout: None,
                })
                .unwrap();
            if by_signal {
                sh.session.signal(TerminalSignal::Sigint).unwrap();
            } else {
                assert!(op.cancel());
            }
            let r = op.done().await.unwrap();
            assert!(
                r.notices.iter().any(|n| n.starts_with("[input: line 1")),
                "{r:?}"
            );
            // Nothing of the send ran: the status the prompt brings back is the stopped
            // command's, an earlier one (before, it was given as this send's `[exit: 130]`).
            if by_signal {
                assert_eq!(r.exit_code, None, "{r:?}");
                assert_eq!(r.earlier_exits.statuses(5), Some(vec![130]), "{r:?}");
            }
            if !by_signal {
                let r = sh.send_within("", false, 300).await;
                assert_eq!(r.foreground.as_deref(), Some("sleep"), "{r:?}");
                sh.session.signal(TerminalSignal::Sigint).unwrap();
            }
            let r = sh.send(&format!("echo after-{round}-$((1+1))")).await;
            assert!(r.viewport.contains(&format!("after-{round}-2")), "{r:?}");
            let transcript = sh.session.transcript();
            assert!(
                !transcript.contains(&format!("held-{round}-42")),
                "the dropped text ran:\n{transcript}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// Text held while a command ran, when what reads next takes single keys (`read -n 1`): it was
/// shaped for a line reader (a whole word and its Enter), so it is not sent, and sent again it
/// goes as a key answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_text_that_a_key_reader_would_take_is_sent_again() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send_within(
                "sleep 1; read -n 1 -p 'Proceed (y/n)? ' a; echo; read -p 'Name: ' nm; echo \"a=$a nm=$nm\"",
                true,
                100,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send("yes").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.starts_with("[input: not sent: the text waited while sleep ran")),
            "{r:?}"
        );
        let r = sh.send("yes").await;
        assert!(r.viewport.contains("Name:"), "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "a=y nm=bob"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Text held while a command ran, when a full-screen program a later command started reads
/// next (`sleep 1; seq 100 | less`): it is not sent (typed, `ls -la` was less's commands, `s`
/// saving its input to a file named `-la`); the keys sent again go to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_text_that_a_full_screen_program_started_later_would_take_is_not_sent() {
    within(async {
        let dir = TempDir::new("held-for-less");
        let sh = Shell::open(config()).await;
        sh.send(&format!("cd {}", dir.0.display())).await;
        let r = sh.send_within("sleep 1; seq 1 100 | less", true, 100).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send("ls -la").await;
        assert_eq!(r.foreground.as_deref(), Some("less"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: not sent: the text waited while sleep ran")),
            "{r:?}"
        );
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(!dir.0.join("-la").exists(), "less saved its input");
        sh.close().await;
    })
    .await;
}

/// A member of the foreground job that reads the terminal takes the text while another
/// member computes (`cat > file | busy-program`): nothing is held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_beside_a_busy_program_takes_the_text_at_once() {
    within(async {
        let dir = TempDir::new("reader-beside-busy");
        let out = dir.0.join("out.txt");
        let sh = Shell::open(config()).await;
        let r = sh
            .send_within(
                &format!("cat > '{}' | sha1sum /dev/zero", out.display()),
                true,
                300,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_within("line-for-cat", true, 20_000).await;
        assert!(
            r.notices.iter().all(|n| !n.starts_with("[input: not sent")),
            "{r:?}"
        );
        crate::support::wait_until("cat wrote the line", || {
            std::fs::read_to_string(&out).is_ok_and(|s| s.contains("line-for-cat"))
        })
        .await;
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("echo after").await;
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A key sent to a program that ended without reading it (a raw-mode program that was busy)
/// stays in the terminal's input and lands on the shell's input line: the next send empties
/// the line first, so its command runs alone (it ran as `qecho alive`), and the result says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_a_program_never_read_does_not_run_joined_to_the_next_command() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("unread-key");
        let gate = dir.0.join("gate");
        let r = sh
            .send_within(
                &format!(
                    "python3 -c \"import tty,os,time; tty.setraw(0); print('busy', flush=True); [time.sleep(0.02) for _ in iter(lambda: os.path.exists('{}'), True)]\"",
                    gate.display()
                ),
                true,
                1000,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_within("q", false, 300).await;
        assert!(said(&r, "[input: python3 has not read the text sent"), "{r:?}");
        std::fs::write(&gate, "").unwrap();
        crate::support::wait_until("the shell shows the unread key", || {
            sh.session.transcript().contains("dsh> q")
        })
        .await;
        let r = sh.send("echo alive").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nalive\n"), "{r:?}");
        assert!(
            said(&r, "[input: text no send typed at the shell followed its prompt (\"q\")"),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// A program that reads the terminal from a session of its own, outside the foreground group
/// (`su -c`, `setsid -w`): text sent to its prompt is its answer, not text typed ahead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_to_a_reader_outside_the_foreground_group_is_not_typed_ahead() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("setsid -w bash -c 'read -p \"outside: \" x; echo \"got $x\"'")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("hey").await;
        assert!(r.viewport.contains("got hey"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(!said(&r, TAKEN), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A command line sent to a filter that reads the terminal as its data and prints to it
/// (`grep` or `sort` typed without a file) is refused: it would be a line of the filter's
/// data. A filter writing elsewhere (`cat > file`) takes it as data: a script typed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_line_sent_to_a_filter_reading_the_terminal_is_refused() {
    let temp = TempDir::new("filter-guard");
    let script = temp.0.join("run.sh");
    within(async {
        let sh = Shell::open(config()).await;
        for filter in ["grep median", "sort"] {
            let r = sh.send(filter).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let e = sh.try_send("ls -la", true).await.expect_err("refused");
            let program = filter.split(' ').next().unwrap();
            assert!(
                e.message().starts_with(&format!(
                    "{program} reads its data from the terminal (its standard input)"
                )),
                "{e}"
            );
            // Data goes in (grep prints its match at once, sort at the end), and the way out
            // works.
            let data = sh.send("a median line").await;
            let r = sh.send_raw("\u{4}", false).await;
            let shown = format!("{}{}", data.viewport, r.viewport);
            assert_eq!(shown.matches("a median line").count(), 2, "{shown:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        sh.send(&format!("cat > {}", script.display())).await;
        let r = sh.send("ls -la").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&script).unwrap(), "ls -la\n");
        sh.close().await;
    })
    .await;
}

/// Text that quits a REPL busy with a statement (`exit()`, `raise SystemExit(3)`), sent while
/// the statement runs: the REPL itself reads it once the statement is done, and ends, as
/// meant; no notice says a prompt of the command line took it or that it did not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quit_typed_ahead_of_a_busy_repl_is_no_lost_command() {
    within(async {
        let sh = Shell::open(config()).await;
        for (quit, code) in [
            ("exit()", 0),
            ("raise SystemExit(3)", 3),
            ("raise SystemExit(4)\necho after-it", 4),
        ] {
            let r = sh.send("python3 -q").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh
                .send_within("import time; time.sleep(1.5)", true, 300)
                .await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            let r = sh.send(quit).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{quit}: {r:?}");
            assert_eq!(r.exit_code, Some(code), "{quit}: {r:?}");
            // Lines after a statement that ends the REPL are not typed into the shell, and
            // the result says so (they were the REPL's input); nothing says the quit did not run.
            assert!(
                r.notices.iter().all(|n| !n.starts_with("[input:")
                    || (quit.contains("after-it") && n.starts_with("[input: line 2 of the input was not typed"))),
                "{quit}: {r:?}"
            );
        }
        // sqlite3's `.exit` with a status, sent while a query runs.
        let r = sh.send("sqlite3").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send_within(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) FROM c;",
                true,
                300,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send(".exit 4").await;
        assert_eq!(r.exit_code, Some(4), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.starts_with("[input:")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Lines after the one that starts a program's line editor (Python's REPL with readline, a
/// nested bash), in the same send: their TABs are inserted, not completed (Python's REPL put
/// `id(` for `id\t`, a nested bash listed its 1,494 commands and ran a here-doc's lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_in_lines_to_a_line_editor_an_earlier_line_started_are_typed() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -q\nh = \"id\tname\tlen\"\nprint(repr(h))")
            .await;
        assert!(
            r.viewport.lines().any(|l| l == "'id\\tname\\tlen'"),
            "{r:?}"
        );
        sh.send("exit()").await;
        let r = sh
            .send(
                "bash --norc\nf() {\n\tlocal x=\"a\tb\"\n\tprintf '%s\\n' \"$x\" | od -c | head -1\n}\nf",
            )
            .await;
        assert!(r.viewport.contains("a  \\t   b"), "{r:?}");
        assert!(!r.viewport.contains("possibilities"), "{r:?}");
        sh.send("exit").await;
        sh.close().await;
    })
    .await;
}

/// Text sent without Enter while a command runs, shown on the shell's line as its send comes
/// back at the prompt, is the agent's own line: the next send goes on with it, as keys typed
/// ahead at a terminal do (it was emptied as text no send typed, and the next text ran alone).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_typed_ahead_without_enter_is_gone_on_by_the_next_send() {
    within(async {
        let sh = Shell::open(config()).await;
        // Also with editing keys among the text (a backspace).
        for typed in ["echo typed-a", "echo typed-aX\u{7f}"] {
            let r = sh.send_within("sleep 2", true, 300).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            let r = sh.send_raw(typed, false).await;
            assert!(
                r.viewport.trim_end().ends_with("dsh> echo typed-a"),
                "{r:?}"
            );
            let r = sh.send("head").await;
            assert!(
                r.viewport.lines().any(|l| l == "typed-ahead")
                    && !r.notices.iter().any(|n| n.contains("no send typed")),
                "{typed:?}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// A line a send typed without Enter, with a key waiting for the next (`yy` and Ctrl-X), then
/// SIGINT to the shell: the next send, right away, finds the line discarded, not text some
/// program pushed there, though bash may draw its new prompt only after that send started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_sigint_discarded_is_no_text_pushed_there() {
    within(async {
        let sh = Shell::open(config()).await;
        for typed in ["yy\u{18}", "yy"] {
            sh.send_raw(typed, false).await;
            sh.session.signal(TerminalSignal::Sigint).unwrap();
            let r = sh.send("echo hi").await;
            assert!(
                r.viewport.lines().any(|l| l == "hi")
                    && !r.notices.iter().any(|n| n.contains("no send typed")),
                "{typed:?}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

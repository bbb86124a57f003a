//! Field cases (inputs that broke other agent terminal tools) against real bash, named after
//! their ids; those about exit statuses are in `cases_status.rs`.
//!
//! Compiled twice: as `cases` (unconfined sessions) and as `confined::cases`, where every
//! session runs in the `workspace-write` sandbox (see `confined.rs`).

use std::process::Command;

use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::{
    BackendSession, InputMode, ReadRequest, SendResult, SessionStatus, SilenceRule, TerminalSignal,
    WaitReason,
};
use pretty_assertions::assert_eq;

use super::support::{Shell, TempDir, config, within};

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C01.
async fn c01_git_log_completes_without_a_pager() {
    let repo = TempDir::new("c01");
    run(Command::new("git").arg("init").arg("-q").arg(&repo.0));
    for i in 0..60 {
        run(Command::new("git")
            .arg("-C")
            .arg(&repo.0)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(["commit", "-q", "--allow-empty", "-m"])
            .arg(format!("commit number {i}")));
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(&format!("cd '{}' && git log", repo.0.display()))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert_eq!(r.foreground, None, "no pager holds the terminal");
        assert!(r.viewport.contains("commit number 59"), "{:?}", r.viewport);
        assert!(r.viewport.contains("commit number 0"), "{:?}", r.viewport);
        assert!(r.viewport.len() <= BashConfig::default().max_read_bytes);
        assert!(r.viewport.ends_with("dsh> "));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C02.
async fn c02_read_prompt_returns_before_the_idle_window() {
    within(async {
        // idle 3000 ms: only the exact stdin probe can settle this as stdin_read.
        let sh = Shell::open(config()).await;
        let r = sh.send("read -p 'Name: ' x").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Name: "), "{:?}", r.viewport);
        assert_eq!(r.exit_code, None);
        let r = sh.send("alice").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        let r = sh.send("echo hi-$x").await;
        assert!(r.viewport.contains("\nhi-alice\n"), "{:?}", r.viewport);
        // The field case's single-send form.
        let r = sh.send("read -p 'Username: ' u; echo \"hi $u\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Username: "), "{:?}", r.viewport);
        let r = sh.send("alice").await;
        assert!(r.viewport.contains("hi alice"), "{:?}", r.viewport);
        assert_eq!(r.exit_code, Some(0));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C03.
async fn c03_password_prompt_reports_echo_off_and_never_shows_the_secret() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("read -s -p 'Password: ' pw; echo \"len=${#pw}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::EchoOff, "{r:?}");
        let r = sh.send("hunter2").await;
        assert!(r.viewport.contains("len=7"), "{:?}", r.viewport);
        assert!(!r.viewport.contains("hunter2"), "{:?}", r.viewport);
        assert!(!sh.session.transcript().contains("hunter2"));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C04.
async fn c04_cat_reading_the_terminal_then_eof() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("cat /dev/stdin").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("cat"));
        assert!(says_reads_to_end(&r, "cat"), "{r:?}");
        let r = sh.send("abc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.viewport, "abc\nabc\n");
        assert!(says_reads_to_end(&r, "cat"), "{r:?}");
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert!(r.viewport.ends_with("dsh> "), "{:?}", r.viewport);
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Whether `r` tells the model that `program` reads the terminal to the end of input and how
/// to end it.
fn says_reads_to_end(r: &SendResult, program: &str) -> bool {
    let start = format!("[input: {program} reads the terminal as its input until end of input");
    r.notices
        .iter()
        .any(|n| n.starts_with(&start) && n.contains("\\u0004 (Ctrl-D)"))
}

/// A filter reading the terminal at the head of a pipeline (`sort | uniq -c`) is named with
/// how to end its input; a program that reads one answer (`input()`), the shell's own `read`
/// or a filter told to read a counted amount (`head -c 1`) is not a stream to end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_reading_the_terminal_is_told_how_to_end_its_input() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("sort | uniq -c").await;
        assert_eq!(r.foreground.as_deref(), Some("sort"), "{r:?}");
        assert!(says_reads_to_end(&r, "sort"), "{r:?}");
        sh.send("b").await;
        sh.send("a").await;
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("1 a\n"), "{:?}", r.viewport);
        // Line readers are not filters reading to the end of their input (they are said to
        // take the next send as their line).
        let r = sh.send("python3 -c 'print(input())'").await;
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        assert!(!says_reads_to_end(&r, "python3"), "{r:?}");
        let r = sh.send("x").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("read -r v").await;
        assert!(
            r.notices.iter().all(|n| !n.contains("until end of input")),
            "{r:?}"
        );
        let r = sh.send("y").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // A filter asking on `/dev/tty` with its data from a pipe (`xargs -p`) reads answers,
        // not its input, from the terminal.
        let r = sh.send("printf 'a\\nb\\n' | xargs -p -n1 echo").await;
        assert_eq!(r.foreground.as_deref(), Some("xargs"), "{r:?}");
        assert!(!says_reads_to_end(&r, "xargs"), "{r:?}");
        let r = sh.send("y\nn").await;
        assert!(r.viewport.lines().any(|l| l == "a"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // A filter told to read a counted amount (`head -c 1`, as a key read in a script)
        // ends once it has it: no stream to end.
        let r = sh.send("x=$(head -c 1); echo \"x=[$x]\"").await;
        assert_eq!(r.foreground.as_deref(), Some("head"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("until end of input")),
            "{r:?}"
        );
        let r = sh.send("q").await;
        assert!(r.viewport.lines().any(|l| l == "x=[q]"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C05.
async fn c05_unterminated_heredoc_reports_continuation() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("cat <<EOF\nhello\n  EOF").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        // A poll there has nothing to wait for: the shell still waits at its continuation
        // prompt (it waited out the idle window, then said `inferred_idle`).
        let r = sh.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("echo next").await;
        assert!(r.viewport.contains("\nnext\n"), "{:?}", r.viewport);
        assert_eq!(r.exit_code, Some(0));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C06.
async fn c06_fake_prompt_marks_are_ignored() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf '\\033]133;D;0\\007###PS1END###\\n'; sleep 2; echo real-end")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("###PS1END###"), "{:?}", r.viewport);
        assert!(r.viewport.contains("\nreal-end\n"), "{:?}", r.viewport);
        assert_eq!(r.exit_code, Some(0));
        // A look-alike of our own format with a wrong nonce is ignored too.
        let r = sh
            .send("printf '\\033]133;D;9;dsh=0000000000000000\\007'; sleep 1; false")
            .await;
        assert_eq!(r.exit_code, Some(1));
        // The shell's own prompt strings expanded by a command carry the nonce too: they are
        // output, not marks (in the command, in a subshell, and from a background job later).
        for expanded in ["${PS1@P}", "${PS0@P}", "${PS2@P}"] {
            let r = sh
                .send(&format!(
                    "echo \"{expanded}\"; sleep 1; echo real-end; false"
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert!(r.viewport.contains("\nreal-end\n"), "{:?}", r.viewport);
            assert!(r.viewport.ends_with("dsh> "), "{:?}", r.viewport);
            assert_eq!(r.exit_code, Some(1), "{r:?}");
        }
        let r = sh
            .send("(sleep 1; printf '%s' \"${PS1@P}\") & wait; (exit 3)")
            .await;
        assert_eq!(r.exit_code, Some(3), "{r:?}");
        let r = sh
            .send("{ sleep 1; printf '%s' \"${PS1@P}\"; } & (exit 4)")
            .await;
        assert_eq!(r.exit_code, Some(4), "{r:?}");
        let r = sh.send("sleep 2; (exit 5)").await;
        assert_eq!(r.exit_code, Some(5), "{r:?}");
        assert!(r.viewport.ends_with("dsh> "), "{:?}", r.viewport);
        // Whole marks with the session's nonce, which a command can read (it is a shell
        // variable), for every command number around: they come while the shell runs the
        // command, with the terminal in its line modes, not at readline's prompt: the send
        // settles at the real prompt.
        let r = sh
            .send(
                "for i in {1..40}; do printf '\\033]133;D;0;dsh=%s;n=%s\\007\\033]133;A;dsh=%s;n=%s\\007dsh> \\033]133;B;dsh=%s;n=%s\\007' $__dsh_n $i $__dsh_n $i $__dsh_n $i; done; sleep 1; echo forged-end; false",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("forged-end\n"), "{r:?}");
        // The forged marks took the real prompt's number too: its status may not be told, but
        // the forged one (0) is never reported. (Last: the
        // numbers it took stay taken.)
        assert_ne!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C10.
async fn c10_split_utf8_is_completed_by_the_next_read() {
    within(async {
        // The first send times out mid-character; the second waits for the rest.
        let sh = Shell::open(BashConfig {
            timeout_ms: 1500,
            ..config()
        })
        .await;
        let r = sh
            .send("printf 'h\\303'; sleep 2; printf '\\251llo\\n'")
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(r.viewport.ends_with('h'), "{:?}", r.viewport);
        assert!(!r.viewport.contains('\u{fffd}'));
        let r = sh.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.starts_with("\u{e9}llo\n"), "{:?}", r.viewport);
        let page = sh.session.read(Default::default()).unwrap();
        assert!(page.text.contains("h\u{e9}llo"), "{:?}", page.text);
        assert!(!page.text.contains('\u{fffd}'));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Lines sent together are typed ahead: a line that starts a program reading a line makes the
/// next line its input, whole (no carriage return left on it), and the send settles once the
/// shell prompts again.
async fn a_typed_ahead_line_is_a_reading_commands_whole_input() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("read -p 'mid? ' q\necho after-mid").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("printf '[%q]\\n' \"$q\"").await;
        assert!(
            r.viewport.contains("\n[echo\\ after-mid]\n"),
            "{:?}",
            r.viewport
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C14.
async fn c14_bracketed_paste_mode_toggles_never_reach_the_model() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("bind 'set enable-bracketed-paste on'").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh
            .send("cat /etc/os-release >/dev/null; echo \"rc=$?\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert!(r.viewport.contains("\nrc=0\n"), "{:?}", r.viewport);
        assert!(!r.viewport.contains('\x1b'));
        assert!(!r.viewport.contains("200~"));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C15.
async fn c15_huge_output_is_bounded_and_the_shell_answers_at_once() {
    within(async {
        let cfg = BashConfig {
            scrollback_max_bytes: 256 * 1024,
            max_read_bytes: 64 * 1024,
            ..config()
        };
        let sh = Shell::open(cfg).await;
        let r = sh.send("seq 1 200000").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.truncated);
        assert!(r.viewport.len() <= 64 * 1024);
        assert!(
            r.viewport.contains("\n200000\ndsh> "),
            "{}",
            &r.viewport[r.viewport.len().saturating_sub(100)..]
        );
        let page = sh.session.read(dsh_terminal_core::ReadRequest {
            offset: Some(1000),
            count: Some(10),
            from_line: None,
        });
        let page = page.unwrap();
        assert_eq!(page.text.lines().count(), 10);
        let r = sh.send("echo ok").await;
        assert_eq!(r.viewport, "echo ok\nok\ndsh> ");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C21.
async fn c21_shell_killed_by_a_signal_is_reaped_and_reported() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("kill -9 $$").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        // The same whether confined or not: under bubblewrap the PTY's process is the sandbox
        // launcher, which would report exit code 137; the shell's own status is what counts.
        let expected = SessionStatus::Exited {
            exit_code: None,
            signal: Some("SIGKILL".to_owned()),
        };
        assert_eq!(r.session_status, expected);
        let shell = sh.session.shell();
        assert!(!shell.is_alive());
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C23, under both silence rules: a full-screen program that sleeps settles on
/// silence also when the kernel says its job is busy.
async fn c23_alternate_screen_is_rendered_and_left() {
    for rule in [SilenceRule::PureSilence, SilenceRule::KernelIdle] {
        within(c23_under(rule)).await;
    }
}

async fn c23_under(rule: SilenceRule) {
    {
        let sh = Shell::open(BashConfig {
            idle_silence_ms: 1500,
            handoff_grace_ms: 100,
            silence_rule: rule,
            ..config()
        })
        .await;
        let r = sh
            .send("printf '\\033[?1049h\\033[HFULL SCREEN'; sleep 2; printf '\\033[?1049l'; echo DONE")
            .await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert_eq!(r.input_mode, InputMode::AlternateScreen);
        assert_eq!(r.viewport, "FULL SCREEN");
        // Typed while the full-screen program runs: bash reads it once the program is done.
        // The result starts where the last one that showed the main screen ended: with the
        // command's own line, which the full-screen result did not show.
        let r = sh.send("echo AFTER").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal);
        assert!(
            r.viewport.starts_with("printf '\\033[?1049h\\033[HFULL SCREEN'; sleep 2; printf '\\033[?1049l'; echo DONE\nDONE\n"),
            "{:?}",
            r.viewport
        );
        assert!(r.viewport.contains("\nAFTER\n"), "{:?}", r.viewport);
        // The full-screen program's screen is gone (only the command line names it).
        assert!(
            !r.viewport.lines().any(|l| l == "FULL SCREEN"),
            "{:?}",
            r.viewport
        );
        sh.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C24.
async fn c24_node_repl_is_waiting_for_input() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipping c24: node is not installed");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("node").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("node"), "{r:?}");
        assert!(r.viewport.ends_with("> "), "{:?}", r.viewport);
        // The session keeps no REPL history file (a confined home is read-only).
        assert!(!r.viewport.contains("history file"), "{:?}", r.viewport);
        let r = sh.send("1+1").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("\n2\n"), "{:?}", r.viewport);
        assert_eq!(r.foreground.as_deref(), Some("node"));
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Programs that read the controlling terminal through `/dev/tty` (getpass, sudo, su,
/// `read < /dev/tty`) are recognised as waiting for input at once, not after the idle window
/// (C03's sudo/su variant); the secret is never echoed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C03.
async fn c03_dev_tty_readers_are_waiting_for_input() {
    within(async {
        let shell = Shell::open(config()).await;
        let r = shell.send("read -r line < /dev/tty; echo got=$line").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = shell.send("typed-through-dev-tty").await;
        assert!(r.viewport.contains("got=typed-through-dev-tty"), "{r:?}");
        let r = shell
            .send("python3 -c \"import getpass; print('len', len(getpass.getpass('Secret: ')))\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::EchoOff, "{r:?}");
        assert!(r.viewport.contains("Secret:"), "{r:?}");
        let r = shell.send("hunter2").await;
        assert!(r.viewport.contains("len 7"), "{r:?}");
        assert!(!r.viewport.contains("hunter2"), "{r:?}");
        assert!(!shell.session.transcript().contains("hunter2"));
        shell.close().await;
    })
    .await;
}

/// Field case C11: long box-drawing lines (3-byte characters) never produce U+FFFD in a
/// reply or a scrollback page, whatever the chunking; a capped page cuts on a character
/// boundary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c11_multibyte_lines_never_produce_replacement_characters() {
    within(async {
        let shell = Shell::open(config()).await;
        let r = shell
            .send("python3 -c \"print(('┌'+'─'*200+'┐\\n')*300)\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(!r.viewport.contains('\u{FFFD}'));
        assert!(r.viewport.contains(&format!("┌{}┐", "─".repeat(200))));
        let page = shell
            .session
            .read(ReadRequest {
                offset: Some(0),
                count: Some(400),
                from_line: None,
            })
            .unwrap();
        assert!(!page.text.contains('\u{FFFD}'));
        assert!(page.text.matches('┐').count() >= 290, "{}", page.text.len());
        shell.close().await;
    })
    .await;
}

/// Field case C17: a background server started in the session is stopped by close, which says
/// how many processes it stopped (the shell and the server: a sandbox's own processes, when
/// `confined.rs` runs this, are not the session's), and its port is free again afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c17_background_server_is_stopped_by_close() {
    within(async {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let addr = format!("127.0.0.1:{port}");
        let shell = Shell::open(config()).await;
        shell
            .send(&format!(
                "python3 -m http.server {port} --bind 127.0.0.1 >/dev/null 2>&1 &"
            ))
            .await;
        super::support::wait_until("the server listens", || {
            std::net::TcpStream::connect(&addr).is_ok()
        })
        .await;
        let captured = shell.session.captured_processes().len();
        assert!(captured >= 1, "the server was not captured");
        let report = shell
            .session
            .close("test".to_owned())
            .await
            .unwrap_or_else(|e| panic!("close failed: {e}"));
        assert_eq!(
            report.processes_stopped, 2,
            "the shell and the server: {report:?}"
        );
        assert!(
            std::net::TcpStream::connect(&addr).is_err(),
            "port {port} still served after close"
        );
        assert!(super::support::session_pids(&shell.id).is_empty());
    })
    .await;
}

/// Field case C16 (scaled down to stay fast): a newline-free flood keeps host memory bounded
/// (the viewport is capped), and the result says how much output the cut viewport stands for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c16_flood_is_bounded_and_its_volume_reported() {
    within(async {
        let config = config();
        let cap = config.max_read_bytes;
        let shell = Shell::open(config).await;
        let r = shell
            .send("head -c 3000000 /dev/zero | tr '\\0' a; echo")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{:?}", r.wait_reason);
        assert!(r.truncated);
        assert!(r.viewport.len() <= cap, "{} > {cap}", r.viewport.len());
        assert!(r.output_bytes >= 3_000_000, "{}", r.output_bytes);
        let r = shell.send("echo next").await;
        assert!(r.viewport.lines().any(|l| l == "next"), "{:?}", r.viewport);
        shell.close().await;
    })
    .await;
}

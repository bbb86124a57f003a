//! Field cases C12 and C13 and their kind against real bash: programs querying the terminal
//! (cursor position, window size, colours) get their answers at once, and a reply nobody
//! reads never reaches the next command.
//!
//! Compiled twice, like `cases.rs`: unconfined and confined (see `confined.rs`).

use dsh_terminal_core::WaitReason;
use pretty_assertions::assert_eq;

use super::support::{Shell, config, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C12.
async fn c12_cursor_position_query_is_answered() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "printf '\\033[6n'; IFS=';' read -rs -d R row col; echo \"row=${row#*[} col=$col\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert!(r.viewport.contains(" col=1\n"), "{:?}", r.viewport);
        assert!(r.viewport.contains("row=2 "), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C12, after a screenful of output in the same burst: the send settles only once
/// the shell read the reply and printed, not on a probe that saw it waiting before the reply
/// landed (the race showed in a few of every 40 runs).
async fn c12_a_query_after_a_screen_of_output_is_answered_before_the_send_settles() {
    within(async {
        let sh = Shell::open(config()).await;
        for i in 0..15 {
            let r = sh
                .send(
                    "seq 1 100; printf '\\033[6n'; IFS=';' read -rs -d R row col; echo \"row=${row#*[} col=$col\"",
                )
                .await;
            assert_eq!(r.exit_code, Some(0), "run {i}: {r:?}");
            assert!(r.viewport.contains(" col=1\n"), "run {i}: {:?}", r.viewport);
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C13.
async fn c13_unread_query_reply_never_reaches_the_next_command() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("sh -c \"printf '\\033[6n'\"").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("echo next").await;
        assert_eq!(r.viewport, "echo next\nnext\ndsh> ");
        sh.close().await;
    })
    .await;
}

/// A program asking the terminal's size with xterm's window operations (text area, screen,
/// pixels) gets its answer, so it neither waits out a timeout nor takes the next input for
/// the reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_size_queries_are_answered() {
    within(async {
        let sh = Shell::open(config()).await;
        for (query, reply) in [("18", "8;40;160"), ("19", "9;40;160"), ("14", "4;640;1280")] {
            let r = sh
                .send(&format!(
                    "printf '\\033[{query}t'; read -t 10 -rs -d t resp; echo; echo \"reply=${{resp#*[}}\""
                ))
                .await;
            assert_eq!(r.exit_code, Some(0), "{query}: {r:?}");
            assert!(r.viewport.contains(&format!("\nreply={reply}\n")), "{query}: {r:?}");
        }
        let r = sh.send("echo next").await;
        assert_eq!(r.viewport, "echo next\nnext\ndsh> ");
        sh.close().await;
    })
    .await;
}

/// A colour query (OSC 10/11) is answered with the terminator it used: a program that reads
/// the reply up to BEL gets one, as from xterm.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colour_queries_are_answered_with_their_own_terminator() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("IFS= read -rs -d $'\\a' -p $'\\033]11;?\\a' col; echo \"col=${col#*;}\"")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            r.viewport.contains("\ncol=rgb:0000/0000/0000\n"),
            "{:?}",
            r.viewport
        );
        sh.close().await;
    })
    .await;
}

/// Mode reports (DECRQM) are answered for any mode, 0 for one not kept (synchronized output),
/// and so are the tertiary attributes (DA3) and the version query (XTVERSION): a program
/// probing the terminal does not wait out its timeout, then take the next input for the reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mode_attribute_and_version_queries_are_answered() {
    within(async {
        let sh = Shell::open(config()).await;
        for (query, end, reply) in [
            (r"\033[?25$p", "y", "?25;1$"),
            (r"\033[?2026$p", "y", "?2026;0$"),
            (r"\033[=c", r"\\", "!|00000000"),
            (r"\033[>q", r"\\", ">|dsh-terminal("),
        ] {
            let r = sh
                .send(&format!(
                    "printf '{query}'; read -t 10 -rs -d '{end}' resp; echo; echo \"reply=${{resp#*[}}\" | tr -d '\\033'"
                ))
                .await;
            assert_eq!(r.exit_code, Some(0), "{query}: {r:?}");
            let reply_line = r.viewport.lines().find(|l| l.starts_with("reply="));
            assert!(
                reply_line.is_some_and(|l| l.contains(reply)),
                "{query}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// Field case C13's kind in a REPL: a query a statement printed at Python's prompt is not
/// answered into the REPL's next line (the REPL is back at its prompt, reading with its line
/// editor, and would take the reply as typed text: `1;2c6*7`).
/// A reader of whole lines (canonical mode: `sh` at its prompt, which has no line editor, or a
/// `read -p` after a query) gets no reply: it would start the next line typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c13_a_reply_never_joins_the_next_line_of_a_reader_of_whole_lines() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(r#"printf '\033[6n'; read -p 'Name: ' n; echo "[$n]""#)
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "[bob]"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.send("sh").await;
        sh.send(r"printf '\033[6n'").await;
        let r = sh.send("echo next").await;
        assert!(r.viewport.lines().any(|l| l == "next"), "{r:?}");
        assert!(!r.viewport.contains("not found"), "{r:?}");
        sh.send("exit").await;
        let r = sh.send("echo back").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A line editor that takes every key itself (prompt_toolkit's, with the signal keys off: the
/// line editor of IPython and ptpython) asks for the cursor position as it draws each prompt
/// and reads the reply: it is answered (unanswered, prompt_toolkit holds each entered line a
/// second before running it). A query a command printed there is answered too, and the line
/// editor takes that reply as well, not as typed text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_editor_that_reads_every_key_gets_its_prompts_cursor_position() {
    within(async {
        let sh = Shell::open(config()).await;
        let repl = r#"python3 -c $'from prompt_toolkit import PromptSession\ns = PromptSession()\nn = 1\nwhile (line := s.prompt(f"In [{n}]: ")) != "exit":\n    if line == "q": print("\\x1b[6n", end="", flush=True)\n    print(f"Out[{n}]: {line} cpr={s.app.renderer.cpr_support.name}")\n    n += 1'"#;
        let r = sh.send(repl).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("In [1]:"), "{r:?}");
        for (n, line) in [(1, "1+1"), (2, "q"), (3, "after")] {
            let r = sh.send(line).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{line}: {r:?}");
            let want = format!("Out[{n}]: {line} cpr=SUPPORTED");
            assert!(r.viewport.lines().any(|l| l == want), "{line}: {r:?}");
        }
        sh.send("exit").await;
        let r = sh.send("echo back").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nback\n"), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c13_a_query_printed_at_a_repl_prompt_never_reaches_its_next_line() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for query in [r"\x1b[6n", r"\x1b[c", r"\x1b[6n\x1b[c\x1b[>c"] {
            let r = sh.send(&format!("print('{query}', end='')")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{query}: {r:?}");
            let r = sh.send("6*7").await;
            assert!(r.viewport.contains("\n42\n"), "{query}: {r:?}");
            assert!(!r.viewport.contains("Error"), "{query}: {r:?}");
        }
        sh.send("exit()").await;
        let r = sh.send("echo back").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // A nested shell at its prompt likewise; one that reads the reply gets it.
        sh.send("bash --norc").await;
        sh.send(r"printf '\033[c'").await;
        let r = sh.send("echo after-DA").await;
        assert!(r.viewport.contains("\nafter-DA\n"), "{r:?}");
        assert!(!r.viewport.contains("not found"), "{r:?}");
        let r = sh
            .send(
                r#"printf '\033[6n'; IFS=';' read -rs -d R row col; echo "row=${row#*[} col=$col""#,
            )
            .await;
        assert!(r.viewport.contains("\nrow="), "{r:?}");
        assert!(!r.viewport.contains("row= "), "{r:?}");
        sh.send("exit").await;
        sh.close().await;
    })
    .await;
}

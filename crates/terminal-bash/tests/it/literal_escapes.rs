//! ESC characters meant as text (field report, session 60): an ESC inside a string, a
//! here-document's body or amid the text of a send to a line editor at its prompt (the
//! shell's readline, a REPL's) is refused with the escapes to write instead, nothing typed;
//! readline took it for a key and ran the line changed (`echo 'mredm'`, `echo ZA`). ESCs that
//! form keys keep working.

use dsh_terminal_core::{TerminalErrorCode, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, installed, within};

/// At the shell's prompt: an ESC in a quoted string, a here-document's body or amid the text
/// is refused and nothing runs; the same bytes written as escapes run; keys (the history's
/// Up, Alt-b) still edit the line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_esc_meant_as_text_at_the_shell_is_refused_and_keys_still_work() {
    within(async {
        let sh = Shell::open(config()).await;
        for text in [
            "echo '\u{1b}[31mred\u{1b}[0m' | od -c | head -3",
            "echo A\u{1b}bZ",
            "cat <<'EOF' | od -c\n\u{1b}[1mBold\u{1b}[0m plain\nEOF",
        ] {
            let err = sh.try_send(text, true).await.unwrap_err();
            assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{text:?}");
            assert!(
                err.message().starts_with("nothing was sent: line "),
                "{err}"
            );
            assert!(err.message().contains("printf '\\033[31m"), "{err}");
        }
        // Nothing was typed: the next command runs alone.
        let r = sh.send("echo after").await;
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        let transcript = sh.session.transcript();
        assert!(
            !transcript.contains("mredm")
                && !transcript.contains("Boldm")
                && !transcript.contains("ZA"),
            "{transcript}"
        );
        // Written as escapes, the ESC reaches the command.
        let r = sh
            .send("printf '\\033[31mred\\033[0m\\n' | od -c | head -1")
            .await;
        assert!(
            r.viewport.contains("033   [   3   1   m   r   e   d"),
            "{r:?}"
        );
        // Keys: Up recalls the last command, Alt-b moves back a word.
        sh.send("\u{1b}[A").await;
        let transcript = sh.session.transcript();
        assert_eq!(
            transcript.matches("033   [   3   1   m").count(),
            2,
            "{transcript}"
        );
        sh.send_raw("echo world", false).await;
        let r = sh.send("\u{1b}bhello ").await;
        assert!(r.viewport.lines().any(|l| l == "hello world"), "{r:?}");
        // A later line the shell's line editor reads once the first ran is not typed.
        let r = sh.send("echo one\necho '\u{1b}[1mtwo'").await;
        assert!(r.viewport.lines().any(|l| l == "one"), "{r:?}");
        assert!(!r.viewport.contains("two"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: line 2 of the input and the lines after it")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// To a REPL at its prompt (Python's, node's): an ESC inside a string is refused, nothing
/// typed, and the REPL reads the next statement as sent; `'\x1b'` written in the string works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_esc_in_a_string_to_a_repl_is_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut repls = vec![("python3 -q", "exit()")];
        if installed("node") {
            repls.push(("node", ".exit"));
        } else {
            eprintln!("node is not installed: its REPL is not exercised");
        }
        for (start, exit) in repls {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let err = sh
                .try_send("s = '\u{1b}[31mred\u{1b}[0m'", true)
                .await
                .unwrap_err();
            assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{start}");
            assert!(err.message().contains("'\\x1b[31m'"), "{start}: {err}");
            // Nothing was typed: the next statement runs alone, its escape decoded.
            let (statement, shown) = if start == "node" {
                ("JSON.stringify('\\x1b[31mred')", "\\u001b[31mred")
            } else {
                ("print(repr('\\x1b[31mred'))", "'\\x1b[31mred'")
            };
            let r = sh.send(statement).await;
            assert!(r.viewport.contains(shown), "{start}: {r:?}");
            assert!(!sh.session.transcript().contains("mredm"), "{start}");
            let r = sh.send(exit).await;
            assert_eq!(r.exit_code, Some(0), "{start}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A line for the shell's line editor that ends with a key taking the next key as its own
/// (Ctrl-X, readline's prefix; Ctrl-V, its quoted insert) before its Enter is refused, nothing
/// typed: the Enter was taken by the key (`echo one` stayed on the line, and the result said a
/// program had pushed it there). The same keys without an Enter after them go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_that_would_take_the_enter_is_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        for text in [
            "echo one\u{18}",
            "echo two\u{16}",
            "echo three\u{18}\necho four",
        ] {
            let err = sh.try_send(text, true).await.unwrap_err();
            assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{text:?}");
            assert!(
                err.message().starts_with("nothing was typed: line "),
                "{text:?}: {err}"
            );
            let r = sh.send("echo ran-$((6*7))").await;
            assert!(r.viewport.ends_with("ran-42\ndsh> "), "{text:?}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{text:?}: {r:?}");
        }
        // Ctrl-X Ctrl-U (readline's undo) in the line: the Enter ends a plain line.
        let r = sh.send("echo x\u{18}\u{15}").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.close().await;
    })
    .await;
}

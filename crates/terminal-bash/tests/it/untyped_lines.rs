//! Lines of a send that were not typed when it ended (a cancel dropped them, or its deadline
//! left them to be typed ahead): what the shell is left with, and what the results say.

use dsh_terminal_core::{BackendSession, SendRequest, TerminalErrorCode, WaitReason};

use crate::support::{Shell, TempDir, config, wait_until, within};

/// A cancel while a here-document's lines are typed one at a time drops the lines not typed
/// yet and interrupts the shell at its continuation prompt, as Ctrl-C would: the next send
/// runs as a command instead of becoming a line of the open here-document, and its result,
/// the first anyone sees after the cancelled call's, names the lines that were not typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_while_lines_are_typed_ends_the_open_here_document_and_names_the_rest() {
    within(async {
        let sh = Shell::open(config()).await;
        let body: String = (0..5000).map(|i| format!("body-{i}\n")).collect();
        let op = sh
            .session
            .start_send(SendRequest {
                text: format!("cat > /dev/null <<'EOF'\n{body}EOF"),
                submit: true,
                timeout: None,
            })
            .unwrap();
        wait_until("the here-document's lines are being typed", || {
            op.progress()
                .last_line
                .is_some_and(|l| l.starts_with("> body-"))
        })
        .await;
        // As a cancelled tool call does: nobody sees this result.
        op.discard_result();
        assert!(op.cancel());
        op.done().await.unwrap();
        let r = sh.send("echo next-$((40+2))").await;
        assert!(
            r.viewport.lines().any(|l| l == "next-42"),
            "{r:?}\ntranscript: {}",
            sh.session.transcript()
        );
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            r.notices.iter().any(|n| n
                .starts_with("[earlier terminal_send, whose result nobody saw: input: lines ")
                && n.contains("of the input were not typed")),
            "{r:?}"
        );
        // Said once.
        let r = sh.send("echo again").await;
        assert!(!r.notices.iter().any(|n| n.contains("not typed")), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines a send had not typed when its deadline came are typed ahead, and its result says
/// which; the next send goes once they are written, and its result ends with its own
/// command's output and status, not with one of theirs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_left_at_the_deadline_are_named_and_the_next_result_is_its_own() {
    let dir = TempDir::new("typed-ahead-lines");
    let file = dir.0.join("n.txt");
    within(async {
        let sh = Shell::open(config()).await;
        let line = format!("echo >> '{}'", file.display());
        let op = sh
            .session
            .start_send(SendRequest {
                text: vec![line; 3000].join("\n"),
                submit: true,
                timeout: Some(std::time::Duration::from_millis(200)),
            })
            .unwrap();
        let r = op.done().await.unwrap();
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.starts_with("[input: lines ")
                && n.contains("not typed yet when the send returned: they are typed ahead")),
            "{r:?}"
        );
        let count = format!("wc -l < '{}'", file.display());
        let r = loop {
            match sh.try_send(&count, true).await {
                Ok(r) => break r,
                // Still writing the lines left (the send returned before they all went).
                Err(e)
                    if matches!(
                        e.code(),
                        TerminalErrorCode::SendActive | TerminalErrorCode::InputPending
                    ) =>
                {
                    tokio::task::yield_now().await;
                }
                Err(e) => panic!("send failed: {e}"),
            }
        };
        assert!(
            r.viewport.lines().any(|l| l.trim() == "3000"),
            "{r:?}\ntranscript: {}",
            sh.session.transcript()
        );
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

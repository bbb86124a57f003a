//! A command line the shell has not finished reading (its continuation prompt): the result
//! names what keeps it open, lines typed there are said not to have run on their own, and a
//! command line sent into a quote an apostrophe left open, where it would only be text of the
//! string, is refused; commands typed line by line across sends (a loop, a here-document's body, a
//! string that a later line closes) still go in and run.

use dsh_terminal_core::{
    BackendSession, InputMode, OPEN_COMMAND_NOTICE, SendResult, TerminalErrorCode, TerminalSignal,
    WaitReason,
};

use crate::support::{Shell, config, within};

/// The result's notice naming the open command, if any.
fn open_notice(r: &SendResult) -> Option<&str> {
    r.notices
        .iter()
        .map(String::as_str)
        .find(|n| n.starts_with(OPEN_COMMAND_NOTICE))
}

/// `echo 'it's fine'`: the apostrophe ends the quote and the last `'` opens another, so the
/// shell waits at its continuation prompt. The result names that quote and the apostrophe;
/// command lines sent next are refused (nothing typed), other text goes into the string and
/// is said not to have run; after SIGINT commands run again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_left_open_is_named_and_commands_sent_into_it_are_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("echo 'it's fine'").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        let notice = open_notice(&r).unwrap_or_else(|| panic!("no open-command notice: {r:?}"));
        assert!(notice.contains("the command has not run yet"), "{notice}");
        assert!(notice.contains("opened a quoted string"), "{notice}");
        assert!(notice.contains("`it's`"), "{notice}");
        for command in ["ls /", "echo after"] {
            let err = sh.try_send(command, true).await.unwrap_err();
            assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{err}");
            assert!(err.message().starts_with("nothing was typed"), "{err}");
            assert!(
                err.message()
                    .contains(&format!("`{command}` would be text of that string")),
                "{err}"
            );
        }
        // Text that names no command goes into the string: the result says it did not run.
        let r = sh.send("-- more text").await;
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        let notice = open_notice(&r).unwrap_or_else(|| panic!("no open-command notice: {r:?}"));
        assert!(
            notice.contains("the lines of this send did not run"),
            "{notice}"
        );
        assert!(notice.contains("begun by `echo 'it's fine'`"), "{notice}");
        assert!(notice.contains("text of that string"), "{notice}");
        // The way out the refusal gives: a line typed without Enter, then an empty send.
        // (A line typed in two parts is not judged: the general continuation line stands.)
        sh.send_raw("ls /", false).await;
        let r = sh.send_raw("", true).await;
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("echo next-$((40+2))").await;
        assert!(r.viewport.lines().any(|l| l == "next-42"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(open_notice(&r), None, "{r:?}");
        // A string opened on purpose takes a message's lines one per send, whatever their
        // first words (`test coverage improved`): not refused, said not to have run yet; a
        // later line that closes the string is typed, and the command runs.
        let r = sh.send("printf '%s|' \"first").await;
        assert!(open_notice(&r).is_some_and(|n| n.contains("\"")), "{r:?}");
        let r = sh.send("test coverage improved").await;
        assert!(
            open_notice(&r).is_some_and(|n| n.contains("did not run")),
            "{r:?}"
        );
        let r = sh.send("make it pass\"; echo").await;
        // The string holds the line ends: `first`, the message's line, then `make it pass|`.
        assert!(
            r.viewport.lines().any(|l| l == "test coverage improved"),
            "{r:?}"
        );
        assert!(r.viewport.lines().any(|l| l == "make it pass|"), "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        assert_eq!(open_notice(&r), None, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A loop and a here-document typed one line per send, command-shaped body lines included:
/// each result names what is still open (softly: nothing refused), and the last line runs
/// the whole command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_typed_line_by_line_across_sends_still_run() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("for i in 1 2").await;
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        let notice = open_notice(&r).unwrap_or_else(|| panic!("no open-command notice: {r:?}"));
        assert!(notice.contains("the `for` of line 1"), "{notice}");
        assert!(notice.contains("waits for its `done`"), "{notice}");
        let r = sh.send("do echo n=$i").await;
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        let notice = open_notice(&r).unwrap_or_else(|| panic!("no open-command notice: {r:?}"));
        assert!(notice.contains("have not run yet"), "{notice}");
        let r = sh.send("done").await;
        assert!(r.viewport.lines().any(|l| l == "n=2"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        assert_eq!(open_notice(&r), None, "{r:?}");
        // A here-document's body: command lines there are its text, not refused.
        let r = sh.send("cat <<'EOF'").await;
        let notice = open_notice(&r).unwrap_or_else(|| panic!("no open-command notice: {r:?}"));
        assert!(
            notice.contains("until a line that is EOF alone"),
            "{notice}"
        );
        let r = sh.send("ls /tmp").await;
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        let notice = open_notice(&r).unwrap_or_else(|| panic!("no open-command notice: {r:?}"));
        assert!(
            notice.contains("lines of the document, not commands"),
            "{notice}"
        );
        let r = sh.send("EOF").await;
        assert!(r.viewport.lines().any(|l| l == "ls /tmp"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(open_notice(&r), None, "{r:?}");
        sh.close().await;
    })
    .await;
}

//! A send meant for a reader the last result left waiting, which ended by itself since (a
//! `read -t` or `timeout` that ran out, a REPL that died): the shell's prompt is back, and the
//! text is refused once rather than run as a command (a password would be echoed and kept in
//! the shell's history). Sent again, or after a poll or a read of the newest lines that
//! shows the prompt, it goes to the shell. The same holds while the command line goes on
//! without the reader, another program in the foreground; a read still waiting while other
//! output came takes its answer. A line that answers a password prompt (echo off) is said
//! to have answered it, since nothing of it shows.

use dsh_terminal_core::{BackendSession, TerminalErrorCode, TerminalSignal, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, newest_lines, session_pids, wait_until, within};

/// Waits until our shell draws a prompt after the `drawn` it had drawn (without a read of
/// the screen, which would show the prompt back).
async fn until_prompt_after(sh: &Shell, drawn: u64) {
    wait_until("the shell's next prompt", || {
        sh.session.prompts_drawn().is_some_and(|now| now > drawn)
    })
    .await;
}

/// Whether a process of the session named `name` leads the terminal's foreground group
/// (`/proc/PID/stat`: the name, then state, ppid, pgrp, session, tty_nr and tpgid).
fn foreground_is(sh: &Shell, name: &str) -> bool {
    session_pids(sh.session.session_id())
        .into_iter()
        .any(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((head, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            head.ends_with(&format!("({name}"))
                && fields.len() > 5
                && fields[2] == fields[5]
                && fields[2] == pid.to_string()
        })
}

/// Prompts our shell has drawn so far.
fn drawn(sh: &Shell) -> u64 {
    sh.session
        .prompts_drawn()
        .expect("a shell session counts its prompts")
}

/// A password prompt that timed out: the late answer is refused, naming the prompt, and
/// never reaches the shell; the same text sent again is the shell's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_to_a_reader_that_timed_out_is_refused_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let before = drawn(&sh);
        let r = sh
            .send("read -t 1 -s -p 'Password: ' pw; echo; echo \"got=${#pw}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, before).await;
        let err = sh.try_send("hunter2", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{err}");
        assert!(err.message().contains("(at `Password:`)"), "{err}");
        // Nothing was typed: the shell's next command line is the next send's alone.
        let r = sh.send("echo \"last=[$(fc -ln -1)]\"").await;
        assert!(!r.viewport.contains("hunter2"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // The guard was used up by the refused send: nothing else is refused.
        let before = drawn(&sh);
        let r = sh.send("read -t 1 -p 'Name: ' n; echo \"n=[$n]\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, before).await;
        assert!(sh.try_send("bob", true).await.is_err());
        let r = sh.send("echo again").await;
        assert!(r.viewport.lines().any(|l| l == "again"), "{r:?}");
        // A terminal_signal clears the guard, also one not sent (the prompt is back).
        let before = drawn(&sh);
        sh.send("read -t 1 -p 'Name: ' n; echo \"n=[$n]\"").await;
        until_prompt_after(&sh, before).await;
        let signal = sh
            .session
            .signal(dsh_terminal_core::TerminalSignal::Sigint)
            .unwrap();
        assert!(!signal.delivered, "{signal:?}");
        let r = sh.send("echo after-signal").await;
        assert!(r.viewport.lines().any(|l| l == "after-signal"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A poll, or a read of the newest lines, after the reader ended shows the prompt back, and
/// the text after it goes to the shell; an answer in time still reaches its reader.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_or_read_that_shows_the_prompt_back_lets_the_next_text_through() {
    within(async {
        let sh = Shell::open(config()).await;
        for look in ["poll", "read"] {
            let before = drawn(&sh);
            let r = sh.send("timeout 1 cat; echo \"cat=$?\"").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{look}: {r:?}");
            until_prompt_after(&sh, before).await;
            let shown = if look == "poll" {
                sh.send_raw("", false).await.viewport
            } else {
                newest_lines(&sh, 3).text
            };
            assert!(shown.contains("cat=124"), "{look}: {shown:?}");
            let r = sh.send("echo through").await;
            assert!(r.viewport.lines().any(|l| l == "through"), "{look}: {r:?}");
        }
        let r = sh.send("read -p 'Name: ' n; echo \"n=[$n]\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "n=[bob]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The reader timed out and the command line went on with another program: the answer would
/// wait in the terminal's input and run as a command once the line ends. It is refused once,
/// naming the program; a signal then stops the line and the text never ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_while_another_program_runs_is_refused_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("read -t 1 -s -p 'Password: ' pw; sleep 60; echo \"got=${#pw}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        wait_until("sleep in the foreground", || foreground_is(&sh, "sleep")).await;
        let err = sh.try_send("hunter2", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{err}");
        assert!(err.message().contains("(at `Password:`)"), "{err}");
        assert!(
            err.message().contains("`sleep` runs in the foreground"),
            "{err}"
        );
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert!(s.delivered, "{s:?}");
        let r = sh.send("echo \"last=[$(fc -ln -1)]\"").await;
        assert!(!r.viewport.contains("hunter2"), "{r:?}");
        assert!(!r.viewport.lines().any(|l| l.starts_with("got=")), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A read still waiting while a background job of the shell printed and ended (its
/// `SIGCHLD` woke the shell, and the cursor row changed) takes the answer: nothing is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_to_a_read_still_waiting_after_other_output_goes() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("late-elsewhere");
        let go = dir.0.join("go");
        let before = session_pids(sh.session.session_id()).len();
        let r = sh
            .send(&format!(
                "(while [ ! -e {go} ]; do sleep 0.05; done; echo from-elsewhere-$((6 * 7))) & \
                 read -p 'Name: ' n; echo \"n=[$n]\"",
                go = go.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        std::fs::write(&go, "").unwrap();
        wait_until("the background job printed and ended", || {
            sh.session.transcript().contains("from-elsewhere-42")
                && session_pids(sh.session.session_id()).len() == before
        })
        .await;
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "n=[bob]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A line sent to a password prompt (a program's `getpass`, the shell's `read -s`): the
/// result says it answered that prompt, quoting it; a line to a prompt that echoes does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_to_a_password_prompt_is_said_to_have_answered_it() {
    within(async {
        let sh = Shell::open(config()).await;
        let answered = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .find(|n| n.starts_with("[input: this text answered the password prompt"))
                .cloned()
        };
        for (command, prompt) in [
            (
                "python3 -c \"import getpass; print('n', len(getpass.getpass('sudo password for t: ')))\"",
                "sudo password for t:",
            ),
            ("read -s -p 'Passphrase: ' pp; echo; echo \"n ${#pp}\"", "Passphrase:"),
        ] {
            let r = sh.send(command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send("cd /tmp").await;
            assert!(r.viewport.lines().any(|l| l == "n 7"), "{r:?}");
            let notice = answered(&r).unwrap_or_else(|| panic!("no notice: {r:?}"));
            assert!(notice.contains(&format!("`{prompt}`")), "{notice}");
            assert!(!notice.contains("cd /tmp"), "{notice}");
        }
        let r = sh.send("read -p 'Name: ' n; echo \"hi $n\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "hi bob"), "{r:?}");
        assert_eq!(answered(&r), None, "{r:?}");
        let r = sh.send("echo plain").await;
        assert_eq!(answered(&r), None, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The reverse: the last result showed a program still busy (the send timed out), and since
/// then a program came to wait at a prompt no result showed (`sleep 1; read -p`, a password
/// prompt): text sent now, likely meant for the shell, would answer it, and is refused once,
/// quoting the prompt; sent again, it answers it. A poll first (its result shows the prompt)
/// lets it go at once, and so does a REPL's return to its own prompt after the statement the
/// last result showed busy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_for_a_prompt_no_result_showed_is_refused_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let session = &sh.session;
        let until_asked = |prompt: &'static str| {
            wait_until("the prompt", move || {
                session.cursor_row().is_some_and(|row| row.contains(prompt))
            })
        };
        for (line, prompt, program) in [
            (
                "sleep 1; read -p 'Delete all? ' a; echo ans=$a",
                "Delete all?",
                "the shell's read",
            ),
            (
                "sleep 1; python3 -c \"import getpass; print('pw', len(getpass.getpass()))\"",
                "Password:",
                "python3",
            ),
        ] {
            let r = sh.send_within(line, true, 300).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            until_asked(prompt).await;
            let e = sh.try_send("echo NEXT", true).await.unwrap_err();
            assert_eq!(e.code(), TerminalErrorCode::InvalidRequest, "{e}");
            assert!(
                e.message()
                    .contains(&format!("`{program}` came to wait for input at `{prompt}`")),
                "{e}"
            );
            // Sent again, it is the answer.
            let r = sh.send("echo NEXT").await;
            assert!(
                r.viewport.contains("ans=echo NEXT") || r.viewport.contains("pw 9"),
                "{r:?}"
            );
        }
        // A poll shows the prompt: the text goes.
        let r = sh
            .send_within("sleep 1; read -p 'Again? ' a; echo again=$a", true, 300)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        until_asked("Again?").await;
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.contains("Again?"), "{r:?}");
        let r = sh.send("yes").await;
        assert!(r.viewport.contains("again=yes"), "{r:?}");
        // A REPL the last result showed busy with a statement, back at its own prompt: the
        // text is its next statement, and goes.
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send_within("import time; time.sleep(1)", true, 300)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        until_asked(">>>").await;
        let r = sh.send("print(6 * 7)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A command line sent while a program, or the shell's `read`, waits at a prompt the last
/// result showed answers that prompt, as it would typed in a terminal, and the result says so
/// (it showed only the program taking the text, so the model believed its command ran); an
/// answer that names no command is no such line, nor is a command to a nested shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_to_a_waiting_prompt_is_said_to_answer_it() {
    within(async {
        let sh = Shell::open(config()).await;
        let said = |r: &dsh_terminal_core::SendResult, prompt: &str| {
            r.notices.iter().any(|n| {
                n.starts_with("[input: line 1 of the input (`ls -la`) went to the prompt")
                    && n.contains(&format!("`{prompt}`"))
            })
        };
        // The reader ended with the answer (the command may go again now), or runs on.
        let ended = |r: &dsh_terminal_core::SendResult| {
            r.notices.iter().any(|n| {
                n.ends_with("has ended since and the shell is at its prompt: send it again now]")
                    && !n.contains("SIGINT")
            })
        };
        for (start, prompt, shows, reader_ends) in [
            (
                "python3 -c \"x = input('Proceed? '); print('got', repr(x))\"",
                "Proceed?",
                "got 'ls -la'",
                true,
            ),
            (
                "read -p 'Overwrite? [y/N] ' ans; echo \"ans=$ans\"",
                "Overwrite? [y/N]",
                "ans=ls -la",
                true,
            ),
            (
                "python3 -c \"x = input('Proceed? '); print('got', repr(x)); input('Next? ')\"",
                "Proceed?",
                "got 'ls -la'",
                false,
            ),
        ] {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh.send("ls -la").await;
            assert!(r.viewport.lines().any(|l| l == shows), "{start}: {r:?}");
            assert!(said(&r, prompt), "{start}: {r:?}");
            assert_eq!(ended(&r), reader_ends, "{start}: {r:?}");
            if !reader_ends {
                assert!(
                    r.notices.iter().any(|n| n.contains("SIGINT stops")),
                    "{r:?}"
                );
                sh.send("done").await;
            }
        }
        sh.send("read -p 'Name: ' who; echo \"who=$who\"").await;
        let r = sh.send("alice").await;
        assert!(r.viewport.lines().any(|l| l == "who=alice"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("went to the prompt")),
            "{r:?}"
        );
        // A prompt printed by a program that goes on working without reading: the line is
        // typed ahead and runs in the shell once the program ends, no answer to that prompt.
        let r = sh
            .send_within("printf 'Name: '; sleep 2; echo bye", true, 800)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_within("echo typed-$((6*7))", true, 30_000).await;
        assert!(
            r.notices.iter().all(|n| !n.contains("went to the prompt")),
            "{r:?}"
        );
        // A nested shell without a line editor reads its commands at its own prompt (`# `
        // for root): the line is its command, no answer (the notice said it did not run).
        for prompt in ["# ", "$ "] {
            let r = sh.send(&format!("PS1='{prompt}' sh")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh
                .send("echo nested-$((6*7)) > /dev/null; echo ran-nested")
                .await;
            assert!(r.viewport.lines().any(|l| l == "ran-nested"), "{r:?}");
            assert!(
                r.notices.iter().all(|n| !n.contains("went to the prompt")),
                "{prompt}: {r:?}"
            );
            let r = sh.send("exit").await;
            assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Whether `r` says that its first line, `ls -la`, went to the prompt `prompt` as its answer.
fn said_to_answer(r: &dsh_terminal_core::SendResult, prompt: &str) -> bool {
    r.notices.iter().any(|n| {
        n.starts_with("[input: line 1 of the input (`ls -la`) went to the prompt")
            && n.contains(&format!("`{prompt}`"))
    })
}

/// A prompt ending in `>` that a script shows (the shell's `read -p "item> "`, in a loop of
/// the shell or a fork of it; `sftp> ` of a shell or Python script's) is the script's
/// question, not a REPL's: a command line sent there answers it, and the result says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_to_a_scripts_prompt_ending_in_a_bracket_is_said_to_answer_it() {
    let temp = TempDir::new("angle-prompt");
    std::fs::write(
        temp.0.join("ask.sh"),
        "read -p 'sftp> ' c; echo \"got $c\"\n",
    )
    .unwrap();
    std::fs::write(temp.0.join("ask3.py"), "print('got', input('sftp> '))\n").unwrap();
    within(async {
        let sh = Shell::open(config()).await;
        sh.send(&format!("cd {}", temp.0.display())).await;
        let lines = "while read -p 'item> ' l && [ \"$l\" != q ]; do echo \"got $l\"; done";
        for (start, prompt) in [
            (lines.to_owned(), "item>"),
            (format!("{lines} | cat"), "item>"),
            ("bash ask.sh".to_owned(), "sftp>"),
            ("python3 ask3.py".to_owned(), "sftp>"),
        ] {
            let r = sh.send(&start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh.send("ls -la").await;
            // (Through `cat`, the answer's line may come after the next prompt, on its row.)
            assert!(
                r.viewport.lines().any(|l| l.ends_with("got ls -la")),
                "{start}: {r:?}"
            );
            assert!(said_to_answer(&r, prompt), "{start}: {r:?}");
            if start.starts_with("while") {
                let r = sh.send("q").await;
                assert_eq!(r.exit_code, Some(0), "{start}: {r:?}");
            }
        }
        sh.close().await;
    })
    .await;
}

/// A program named like a filter that asks a question (`gzip -k` whether to overwrite the
/// file it would write, an awk script's `getline` from the terminal after `Continue? [y/N] `)
/// reads the terminal for its answer, not as data to the end of input: no end of input is
/// owed, and a command line sent there answers the question, as one sent to `rm -i`'s does,
/// with the notice that says so. A filter reading its data (`wc -l`, `gzip > FILE` with no
/// file given) is still told how to end it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_asking_a_question_takes_a_line_as_its_answer() {
    let temp = TempDir::new("filter-question");
    std::fs::write(temp.0.join("a.txt"), "hi\n").unwrap();
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(&format!("cd {} && gzip -k a.txt", temp.0.display()))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let to_end = |r: &dsh_terminal_core::SendResult| {
            r.notices.iter().any(|n| n.contains("until end of input"))
        };
        for (start, prompt, shows) in [
            ("gzip -k a.txt", "(y or n)?", "not overwritten"),
            ("gunzip -k a.txt.gz", "(y or n)?", "not overwritten"),
            (
                "awk 'BEGIN{printf \"Continue? [y/N] \"; getline a < \"/dev/tty\"; print \"a=\" a}'",
                "Continue? [y/N]",
                "a=ls -la",
            ),
        ] {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            assert!(!to_end(&r), "{start}: {r:?}");
            let r = sh.send("ls -la").await;
            assert!(r.viewport.contains(shows), "{start}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n.contains(&format!("{prompt}`"))
                    && n.starts_with("[input: line 1 of the input (`ls -la`) went to the prompt")),
                "{start}: {r:?}"
            );
            assert!(r.viewport.ends_with("dsh> "), "{start}: {r:?}");
        }
        for filter in ["wc -l", "gzip > b.gz"] {
            let r = sh.send(filter).await;
            assert!(to_end(&r), "{filter}: {r:?}");
            let r = sh.send_raw("\u{4}", false).await;
            assert_eq!(r.exit_code, Some(0), "{filter}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// So does one sent while a line editor of a program's or the shell's own waits at a question
/// (raw mode: it echoes and edits the line itself): an `input()` with readline loaded, the
/// shell's `read -e`, node's `readline.question` (npm init's prompts); a line of the same
/// send after the command that asked, too. Before, only a reader in canonical mode got the
/// notice, and the model believed its command ran. A line editor's line at a REPL's prompt is
/// its statement, a line at the shell's own prompt its command (one that ends like a
/// question, too), and an answer that names no command is no such line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_to_a_line_editors_question_is_said_to_answer_it() {
    within(async {
        let sh = Shell::open(config()).await;
        let said = |r: &dsh_terminal_core::SendResult, prompt: &str| {
            r.notices.iter().any(|n| {
                n.starts_with("[input: line 1 of the input (`ls -la`) went to the prompt")
                    && n.contains(&format!("`{prompt}`"))
            })
        };
        let quiet = |r: &dsh_terminal_core::SendResult| {
            r.notices.iter().all(|n| !n.contains("went to the prompt"))
        };
        let mut cases = vec![
            (
                "python3 -c \"import readline; x = input('Continue? '); print('got', repr(x))\"",
                "Continue?",
                "got 'ls -la'",
            ),
            (
                "read -e -p 'Overwrite? (y/n) ' ans; echo \"ans=$ans\"",
                "Overwrite? (y/n)",
                "ans=ls -la",
            ),
        ];
        if crate::support::installed("node") {
            cases.push((
                "node -e \"require('readline').createInterface({ input: process.stdin, output: \
                 process.stdout }).question('Is this OK? (yes) ', (a) => { console.log('got ' + a); \
                 process.exit(0); })\"",
                "Is this OK? (yes)",
                "got ls -la",
            ));
        } else {
            eprintln!("node is not installed: its readline.question is not exercised");
        }
        for (start, prompt, shows) in cases {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh.send("ls -la").await;
            assert!(r.viewport.lines().any(|l| l == shows), "{start}: {r:?}");
            assert!(said(&r, prompt), "{start}: {r:?}");
        }
        // A later line of the send, typed once the earlier one's `read -e` asks.
        let r = sh
            .send("read -e -p 'A? ' a; echo \"a=$a\"\necho second-line-ran")
            .await;
        assert!(
            r.viewport.lines().any(|l| l == "a=echo second-line-ran"),
            "{r:?}"
        );
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[input: line 2 of the input (`echo second-line-ran`) went to the prompt `A?`"
            )),
            "{r:?}"
        );
        sh.send("read -e -p 'Name: ' who; echo \"who=$who\"").await;
        let r = sh.send("alice").await;
        assert!(r.viewport.lines().any(|l| l == "who=alice"), "{r:?}");
        assert!(quiet(&r), "{r:?}");
        // A REPL's statement that starts like a command (`test` is a shell builtin).
        let r = sh.send("python3 -q").await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let r = sh.send("test = 6 * 7").await;
        assert!(quiet(&r), "{r:?}");
        let r = sh.send("print(test)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send("exit()").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        // The shell's own prompt, though it ends like a question.
        sh.send("PS1='Ready? '").await;
        let r = sh.send("echo at-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "at-42"), "{r:?}");
        assert!(quiet(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines after one that went to a prompt as its answer are not typed once the program that
/// asked ended and the shell's prompt came back (they would run as commands): the result says
/// both, where the first went and that the rest were not typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_after_an_answered_prompt_whose_program_ended_are_said_not_typed() {
    within(async {
        let sh = Shell::open(config()).await;
        for start in [
            "python3 -c \"print('got', input('Name: '))\"",
            "python3 -c \"import readline; print('got', input('Name: '))\"",
        ] {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh.send("ls -la /\necho after-$((6*7))").await;
            assert!(!r.viewport.contains("after-42"), "{start}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n
                    .starts_with("[input: line 1 of the input (`ls -la /`) went to the prompt")),
                "{start}: {r:?}"
            );
            assert!(
                r.notices
                    .iter()
                    .any(|n| n.starts_with("[input: line 2 of the input was not typed")),
                "{start}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

//! Key answers: a key for a program asking for one goes without its Enter (kept only for a
//! reader that shows the key), and keys beyond what a key read takes are not typed.

use pretty_assertions::assert_eq;

use super::*;

/// A key sent with Enter to a key reader goes without the Enter, which the next prompt would
/// take as its answer (a second `[Y/n]`'s default); the result says so. Longer text keeps its
/// Enter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_for_a_key_reader_goes_without_its_enter() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "read -n 1 -p 'Delete? [y/N] ' a; echo; read -n 1 -p 'Sure? [Y/n] ' b; echo; \
                 echo \"a=[$a] b=[$b]\"",
            )
            .await;
        assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
        let r = sh.send("y").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            r.input_mode,
            InputMode::SingleKey,
            "the second prompt waits: {r:?}"
        );
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[input: the Enter was left out"
            )),
            "{r:?}"
        );
        let r = sh.send("n\n").await;
        assert!(r.viewport.lines().any(|l| l == "a=[y] b=[n]"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Paced lines too: a key line of a send that answers several prompts goes without
        // its Enter, so the next line answers the next prompt; a yes/no word as its first
        // key.
        for (answer, said) in [
            ("y", "the Enter was left out"),
            ("yes", "only the word's first key went"),
        ] {
            let r = sh
                .send(&format!(
                    "bash -c 'read -n 1 -p \"Continue? [y/N] \" a; echo; read -p \"Name: \" n; \
                     echo \"a=[$a] n=[$n]\"'\n{answer}\nbob"
                ))
                .await;
            assert!(r.viewport.lines().any(|l| l == "a=[y] n=[bob]"), "{r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(r.notices.iter().any(|n| n.contains(said)), "{r:?}");
        }
        // A question with no y/n in it, and one printed on the line above the read.
        for question in [
            "read -n 1 -p \"Overwrite file? \" a",
            "echo \"Do you want to continue? (y/n)\"; read -n 1 a",
        ] {
            let r = sh
                .send(&format!(
                    "bash -c '{question}; echo; read -p \"Name: \" n; echo \"a=[$a] n=[$n]\"'\ny\nbob"
                ))
                .await;
            assert!(
                r.viewport.lines().any(|l| l == "a=[y] n=[bob]"),
                "{question}: {r:?}"
            );
        }
        // A yes/no question answered with the word: only its first key goes, so neither the
        // rest of the word nor the Enter runs in the shell once the program is done, and a
        // second question gets its own answer (a word as a paced line is above).
        for (first, second) in [("yes", "No\n"), ("YES\n", "no")] {
            let r = sh
                .send(
                    "read -n 1 -p 'Delete? [y/N] ' a; echo; read -n 1 -p 'Sure? (y/n) ' b; echo; \
                     echo \"a=[$a] b=[$b]\"",
                )
                .await;
            assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
            let r = sh.send(first).await;
            assert_eq!(r.input_mode, InputMode::SingleKey, "{first}: {r:?}");
            assert!(
                r.notices
                    .iter()
                    .any(|n| n.starts_with("[input: only the word's first key went")),
                "{r:?}"
            );
            let r = sh.send(second).await;
            let (a, b) = (&first[..1], &second[..1]);
            assert!(
                r.viewport.lines().any(|l| l == format!("a=[{a}] b=[{b}]")),
                "{r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(!r.viewport.contains("command not found"), "{r:?}");
        }
        // Several keys go one at a time while the reader takes them: `read -N 2` takes
        // both, and the Enter, which would be an empty command line, is dropped.
        let r = sh
            .send("read -N 2 -p 'two? ' k; echo; echo \"k=[$k]\"")
            .await;
        assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
        let r = sh.send("ab").await;
        assert_eq!(r.viewport, "ab\nk=[ab]\ndsh> ", "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.contains("the Enter was left out")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Where the modes and the question do not tell a key reader from a line reader, the key goes
/// first and its Enter (a word's rest) only when the reader shows the key on its line: a
/// one-key answer at a question with no y/n in it does not answer the next question with its
/// Enter, `read -n 3` still gets its Enter, and in raw mode a key reader at `[y/N]` takes
/// `yes` as `y` alone while a line editor there gets the whole word and its Enter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_answer_keeps_its_enter_only_for_a_reader_that_shows_the_key() {
    within(async {
        let dir = TempDir::new("key-answer");
        let sh = Shell::open(config()).await;
        let withheld = |r: &dsh_terminal_core::SendResult, said: &str| {
            r.notices.iter().any(|n| n.starts_with(said))
        };
        let r = sh
            .send(
                "read -n1 -p 'Which environment (1=dev 2=prod): ' a; echo; \
                 read -n1 -p 'Deploy to it now? [Y/n] ' b; echo; echo \"a=[$a] b=[$b]\"",
            )
            .await;
        assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
        let r = sh.send("2").await;
        assert!(r.viewport.ends_with("Deploy to it now? [Y/n] "), "{r:?}");
        assert!(withheld(&r, "[input: the Enter was left out"), "{r:?}");
        let r = sh.send("n").await;
        assert!(r.viewport.lines().any(|l| l == "a=[2] b=[n]"), "{r:?}");
        let r = sh
            .send("read -n 3 -p 'How many copies? ' n; echo; echo \"n=[$n]\"")
            .await;
        assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
        let r = sh.send("5").await;
        assert!(r.viewport.lines().any(|l| l == "n=[5]"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Raw mode (Python's `tty.setraw`): a key reader, then a line editor of its own.
        let key_reader = "import os, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            sys.stdout.write(sys.argv[1] + ' '); sys.stdout.flush()\n\
            tty.setraw(0)\n\
            k = os.read(0, 1)\n\
            termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            print('\\nkey', k.decode())\n";
        let line_editor = "import os, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            sys.stdout.write('Continue? [y/N] '); sys.stdout.flush()\n\
            tty.setraw(0)\n\
            line = b''\n\
            while (c := os.read(0, 1)) not in (b'\\r', b'\\n'):\n\
            \x20   line += c; os.write(1, c)\n\
            termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            print('\\nline', line.decode())\n";
        std::fs::write(dir.0.join("key.py"), key_reader).unwrap();
        std::fs::write(dir.0.join("line.py"), line_editor).unwrap();
        let question = "'Delete file? [y/N]'";
        for (script, answer, want, said) in [
            (
                "key.py 'Choose (a/b/c):'",
                "b",
                "key b",
                Some("[input: the Enter was left out"),
            ),
            (
                "key.py",
                "yes",
                "key y",
                Some("[input: only the word's first key went"),
            ),
            (
                "key.py",
                "n",
                "key n",
                Some("[input: the Enter was left out"),
            ),
            ("line.py", "yes", "line yes", None),
            ("line.py", "y", "line y", None),
        ] {
            let (script, arg) = script.split_once(' ').unwrap_or((script, question));
            let r = sh
                .send(&format!("python3 '{}' {arg}", dir.0.join(script).display()))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{script}: {r:?}");
            let r = sh.send(answer).await;
            assert!(
                r.viewport.lines().any(|l| l == want),
                "{script} {answer}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{script} {answer}: {r:?}");
            assert!(!r.viewport.contains("command not found"), "{r:?}");
            match said {
                Some(said) => assert!(withheld(&r, said), "{script} {answer}: {r:?}"),
                None => assert!(
                    r.notices.iter().all(|n| !n.starts_with("[input:")),
                    "{script} {answer}: {r:?}"
                ),
            }
        }
        sh.close().await;
    })
    .await;
}

/// Answers to the shell's own key reads, as a human types them: several lines to several
/// key prompts each answer one (their Enters dropped), and keys beyond what a read takes are
/// not typed, so none reaches the next prompt or runs in the shell (`abc` to `read -n1` does
/// not start `bc`; `123` to `read -n 3` does not answer the next `[y/N]` with its Enter).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_beyond_what_a_key_read_takes_are_not_typed() {
    within(async {
        let sh = Shell::open(config()).await;
        let keys_said = |r: &SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: only the first keys of the text went"))
        };
        for (reads, answer, want) in [
            (
                "read -n1 -p 'Go [y/N] ' a; read -n1 -p ' Sure [y/N] ' b",
                "y\nn",
                "a=[y] b=[n]",
            ),
            (
                "read -n1 -p 'Mode (a/b): ' a; echo; read -n1 -p 'Sure [y/N] ' b",
                "a\ny\n",
                "a=[a] b=[y]",
            ),
            // One line loses its Enter, a later one keys as well: both are said.
            (
                "read -n1 -p 'Go [y/N] ' a; echo; read -n1 -p 'Env: ' b",
                "n\nstaging",
                "a=[n] b=[s]",
            ),
        ] {
            let reads = format!("{reads}; echo; echo \"a=[$a] b=[$b]\"");
            let r = answer_key_reads(&sh, &reads, &[answer]).await;
            assert!(r.viewport.lines().any(|l| l == want), "{answer:?}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert_eq!(keys_said(&r), answer.ends_with("staging"), "{r:?}");
        }
        for (prompt, answer) in [("Select [a,b,c]: ", "abc"), ("Continue? ", "yes")] {
            let reads = format!("read -n1 -p '{prompt}' a; echo; echo \"a=[$a]\"");
            let r = answer_key_reads(&sh, &reads, &[answer]).await;
            let want = format!("a=[{}]", &answer[..1]);
            assert!(r.viewport.lines().any(|l| l == want), "{answer}: {r:?}");
            assert!(r.viewport.ends_with("dsh> "), "{answer}: {r:?}");
            assert!(keys_said(&r), "{r:?}");
        }
        let reads = "read -n 3 -p 'Code: ' a; echo; read -n1 -p 'Sure [y/N] ' b; echo; \
                     echo \"a=[$a] b=[$b]\"";
        let r = answer_key_reads(&sh, reads, &["123"]).await;
        assert!(r.viewport.ends_with("Sure [y/N] "), "{r:?}");
        let r = sh.send("y").await;
        assert!(r.viewport.lines().any(|l| l == "a=[123] b=[y]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A key command sent with Enter to a full-screen program goes without the Enter when the
/// keys end the program (`q` to less, `ZZ` to vim), also after keys sent without Enter: the
/// Enter would answer the next prompt of the command line (a `[Y/n]` taking its default).
/// Keys the program reads on keep their Enter (less's search, vim's `:` command, whose Enter
/// runs it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_command_that_ends_a_full_screen_program_keeps_no_enter() {
    within(async {
        let dir = TempDir::new("full-screen-keys");
        let sh = Shell::open(config()).await;
        let left_out = |r: &SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: the Enter was left out"))
        };
        let ask = "; read -p 'Proceed with upgrade? [Y/n] ' a; echo \"answer=[$a]\"";
        let r = sh.send(&format!("seq 1 500 | less{ask}")).await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let r = sh.send("/300").await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        assert!(r.viewport.contains("300"), "{r:?}");
        assert!(!left_out(&r), "{r:?}");
        sh.send_raw("G", false).await;
        let r = sh.send("q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport.ends_with("Proceed with upgrade? [Y/n] "),
            "{r:?}"
        );
        assert!(left_out(&r), "{r:?}");
        let r = sh.send("n").await;
        assert!(r.viewport.lines().any(|l| l == "answer=[n]"), "{r:?}");
        if crate::support::installed("vim") {
            let file = dir.0.join("notes.txt");
            let r = sh
                .send(&format!("vim --clean -i NONE '{}'{ask}", file.display()))
                .await;
            assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
            let r = sh.send(":set number").await;
            assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
            assert!(r.viewport.lines().any(|l| l.trim() == "1"), "{r:?}");
            assert!(!left_out(&r), "{r:?}");
            sh.send_raw("isaved\u{1b}", false).await;
            let r = sh.send("ZZ").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert!(
                r.viewport.ends_with("Proceed with upgrade? [Y/n] "),
                "{r:?}"
            );
            assert!(left_out(&r), "{r:?}");
            let r = sh.send("n").await;
            assert!(r.viewport.lines().any(|l| l == "answer=[n]"), "{r:?}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved\n");
            // After ESC, which ends a mode first, too.
            sh.send(&format!("vim --clean -i NONE '{}'{ask}", file.display()))
                .await;
            sh.send_raw("Aagain", false).await;
            let r = sh.send("\u{1b}ZZ").await;
            assert!(
                r.viewport.ends_with("Proceed with upgrade? [Y/n] "),
                "{r:?}"
            );
            assert!(left_out(&r), "{r:?}");
            let r = sh.send("n").await;
            assert!(r.viewport.lines().any(|l| l == "answer=[n]"), "{r:?}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "savedagain\n");
        }
        sh.close().await;
    })
    .await;
}

/// A one-key answer to a cbreak key reader whose command line asks next at the shell's
/// `read`: the send settles once that read waits, its Enter dropped (it waited 3 s for a
/// prompt of the shell that never came, past this send's deadline).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_answer_before_the_shells_read_settles_when_the_read_waits() {
    within(async {
        let dir = TempDir::new("key-then-read");
        let sh = Shell::open(config()).await;
        let cbreak = "import sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            tty.setcbreak(0)\n\
            k = sys.stdin.read(1)\n\
            termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            print('key', k)\n";
        let script = dir.0.join("cb.py");
        std::fs::write(&script, cbreak).unwrap();
        let r = sh
            .send(&format!(
                "python3 '{}'; read -p 'Next: ' q; echo \"q=[$q]\"",
                script.display()
            ))
            .await;
        assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
        let r = sh.send_within("y", true, 2500).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "key y"), "{r:?}");
        assert!(r.viewport.ends_with("Next: "), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: the Enter was left out")),
            "{r:?}"
        );
        let r = sh.send("z").await;
        assert!(r.viewport.lines().any(|l| l == "q=[z]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A yes/no word to a reader of more than one key at a yes/no question (`read -n 3`, a
/// program of its own that reads keys up to Enter with the terminal's echo on, a silent
/// `read -s -n 3`) reaches it key by key, and its Enter while the reader still reads: the
/// first key alone was said to be the answer while the reader waited on, and the next send's
/// keys joined the answer (`a=[yec]`). A reader of one key still gets the first key alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_yes_no_word_reaches_a_reader_of_several_keys() {
    within(async {
        let dir = TempDir::new("yes-no-word");
        let sh = Shell::open(config()).await;
        let first_key_said = |r: &SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: only the word's first key went"))
        };
        for (read, answer, want) in [
            ("read -n 3 -p 'Proceed? [y/N] ' a", "yes", "a=[yes]"),
            ("read -s -n 3 -p 'Proceed? [y/N] ' a", "yes", "a=[yes]"),
            ("read -n 2 -p 'Continue (y/n)? ' a", "no", "a=[no]"),
            (
                "read -n 4 -p 'Type yes to go on [y/N] ' a",
                "yes\necho after",
                "a=[yes]",
            ),
        ] {
            let r = sh.send(&format!("{read}; echo; echo \"a=[$a]\"")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{read}: {r:?}");
            let r = sh.send(answer).await;
            assert!(r.viewport.lines().any(|l| l == want), "{read}: {r:?}");
            assert!(!first_key_said(&r), "{read}: {r:?}");
            // A line after the answer is not typed once its reader's command line ended (it
            // would run as a command), and the result says so.
            assert!(!r.viewport.lines().any(|l| l == "after"), "{read}: {r:?}");
            assert_eq!(
                answer.ends_with("after"),
                r.notices
                    .iter()
                    .any(|n| n.starts_with("[input: line 2 of the input was not typed")),
                "{read}: {r:?}"
            );
            let r = sh.send("echo next").await;
            assert!(r.viewport.lines().any(|l| l == "next"), "{read}: {r:?}");
        }
        // A program of its own in cbreak mode, the terminal echoing, that reads up to Enter.
        let line_reader = "import os, sys, termios\n\
            old = termios.tcgetattr(0); new = termios.tcgetattr(0)\n\
            new[3] &= ~termios.ICANON\n\
            termios.tcsetattr(0, termios.TCSANOW, new)\n\
            sys.stdout.write('Proceed? [y/N] '); sys.stdout.flush()\n\
            line = b''\n\
            while (c := os.read(0, 1)) not in (b'\\r', b'\\n'):\n\
            \x20   line += c\n\
            termios.tcsetattr(0, termios.TCSANOW, old)\n\
            print('\\nGOT=[%s]' % line.decode())\n";
        let script = dir.0.join("line.py");
        std::fs::write(&script, line_reader).unwrap();
        let r = sh.send(&format!("python3 '{}'", script.display())).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("no").await;
        assert!(r.viewport.lines().any(|l| l == "GOT=[no]"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.starts_with("[input:")), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // A reader of one key, silent or not, takes the first key alone: the rest of the word
        // and its Enter reach neither the next question nor the shell.
        for read in ["read -n 1", "read -s -n 1"] {
            let r = sh
                .send(&format!(
                    "{read} -p 'Delete? [y/N] ' a; echo; read -p 'Name: ' n; \
                     echo \"a=[$a] n=[$n]\""
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{read}: {r:?}");
            let r = sh.send("yes\nbob").await;
            assert!(
                r.viewport.lines().any(|l| l == "a=[y] n=[bob]"),
                "{read}: {r:?}"
            );
            assert!(first_key_said(&r), "{read}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

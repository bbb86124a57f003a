//! Keys to full-screen and raw-mode programs (field case C27): an interrupt reaches an editor
//! that turned ISIG off as its Ctrl-C byte, text to an editor is typed as keys, and a program
//! waiting for input is named by what reads the terminal.

use std::path::PathBuf;
use std::process::Command;

use dsh_sandbox::SandboxMode;
use dsh_terminal_core::{BackendSession, InputMode, SignalDelivery, TerminalSignal, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, installed, sandboxed, unique_id, within};

/// A scratch git repository removed on drop.
struct Repo(PathBuf);

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts `vim` (a command line such as `vim --clean`) on `file` and checks it holds the
/// alternate screen.
async fn open_vim(sh: &Shell, vim: &str, file: &std::path::Path) {
    let r = sh.send(&format!("{vim} '{}'", file.display())).await;
    assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
}

/// Field case C27: SIGINT to vim (which turns ISIG off) goes as the terminal's Ctrl-C byte,
/// so `:cq` then leaves it, git reports the aborted commit, and the next command runs in the
/// shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c27_interrupt_reaches_a_raw_mode_editor_as_its_ctrl_c() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): C27 not exercised");
        return;
    }
    let repo = Repo(std::env::temp_dir().join(format!("dsh-c27-{}", unique_id())));
    let init = Command::new("git")
        .args(["init", "-q"])
        .arg(&repo.0)
        .status()
        .unwrap();
    assert!(init.success());
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(&format!(
                "cd '{}' && GIT_EDITOR=vim git -c user.name=t -c user.email=t@example.invalid commit --allow-empty",
                repo.0.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        // The editor waits for input, not git (its process group's leader).
        assert_eq!(r.foreground.as_deref(), Some("vim"), "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert!(s.delivered);
        assert_eq!(s.delivery, SignalDelivery::InterruptCharacter, "{s:?}");
        let mut r = sh.send(":cq").await;
        if r.input_mode == InputMode::AlternateScreen && r.viewport.ends_with(":cq") {
            // A loaded machine: vim answered the interrupt (flushing what was typed after
            // it) only after the signal's aftermath bound, and the Enter went with the flush.
            r = sh.send("").await;
        }
        assert_ne!(r.exit_code, Some(0), "{r:?}");
        // git reports the aborted commit (wording differs between versions).
        assert!(
            r.viewport.contains("Aborting commit") || r.viewport.contains("-m or -F"),
            "{r:?}"
        );
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        let r = sh.send("echo next-$((1+1))").await;
        assert!(r.viewport.lines().any(|l| l == "next-2"), "{r:?}");
        // A program with ISIG on still gets a real SIGINT.
        let r = sh.send("cat").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert_eq!(s.delivery, SignalDelivery::ProcessGroup, "{s:?}");
        let r = sh.send("echo back").await;
        assert!(r.viewport.lines().any(|l| l == "back"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A full-screen editor takes sent text as keys, even when it enabled bracketed paste and the
/// text spans lines: `i`, two lines and `ESC :wq` in one send insert, leave insert mode and
/// save; the same without keys, sent after `i`, is typed too; a line after `:wq` goes to the
/// shell, also when vim was running before the send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_to_a_full_screen_editor_is_typed_as_keys() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): typing to an editor not exercised");
        return;
    }
    // Removed on drop, also when the test fails.
    let temp = TempDir::new("vim-keys");
    let dir = temp.0.clone();
    within(async {
        let sh = Shell::open(config()).await;
        let file = dir.join("combo.txt");
        open_vim(&sh, "vim -u NONE -i NONE", &file).await;
        let r = sh.send("ifirst line\nsecond line\x1b:wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "first line\nsecond line\n"
        );
        let file = dir.join("split.txt");
        open_vim(&sh, "vim -u NONE -i NONE", &file).await;
        let r = sh.send_raw("ione\ntwo", false).await;
        assert!(r.viewport.contains("two"), "{r:?}");
        let r = sh.send("\x1b:wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\n");
        // ESC then `O` (open a line above) is no keypad key: vim with its defaults (a 100 ms
        // wait for the rest of a key code) takes the ESC alone.
        let file = dir.join("above.txt");
        open_vim(&sh, "vim --clean -i NONE", &file).await;
        let r = sh.send("ione\x1bOtwo\x1b:wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "two\none\n");
        // The same without vim's defaults: it waits a whole second for the rest of a key code
        // after the ESC, and prints nothing when it gives up; the keys after it go once it
        // did, and the send ends at the shell's prompt, not on silence with keys untyped.
        let file = dir.join("slow-escape.txt");
        open_vim(&sh, "vim -u NONE -N -i NONE", &file).await;
        let r = sh.send("ione\ntwo\x1bOzero\x1b:wq").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\nzero\ntwo\n");
        // vim started by the first line of a send takes an escape sequence left open at the
        // end of the next one (`ESC O`: open a line above) as its keys, as typed: nothing is
        // added to close it, as it would be for the shell's line editor.
        let file = dir.join("opened.txt");
        let r = sh
            .send(&format!(
                "vim --clean -i NONE '{}'\nihello\x1bO",
                file.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("\x1b:wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "\n\nhello\n");
        // A shell line after `:wq` in the same send reaches the shell, not vim reading once
        // more on its way out.
        let file = dir.join("then.txt");
        let r = sh
            .send(&format!(
                "vim -u NONE -N -i NONE '{}'\nisaved\x1b:wq\necho after-$((6*7))",
                file.display()
            ))
            .await;
        assert!(r.viewport.lines().any(|l| l == "after-42"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved\n");
        // The same with vim already running: the lines after `:wq` wait for the shell's
        // prompt, and each runs there (vim took what was typed after the Enter with it).
        open_vim(&sh, "vim -u NONE -N -i NONE", &file).await;
        let r = sh.send("Goagain\x1b:wq\nfalse\necho after-$((6*8))").await;
        assert!(r.viewport.lines().any(|l| l == "after-48"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(crate::support::earlier(&r).contains(&1), "{r:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved\nagain\n");
        sh.close().await;
    })
    .await;
}

/// In a confined session (its home read-only) vim goes straight back to the shell on `:wq`:
/// it keeps no viminfo file there. Writing one failed (E138) and left vim at its "Press
/// ENTER" prompt, which took the next command typed as its answer. vim's defaults still load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vim_in_a_read_only_home_exits_without_a_press_enter_prompt() {
    if !installed("vim") {
        eprintln!(
            "vim is not installed (.ci/run installs it): viminfo in a read-only home not exercised"
        );
        return;
    }
    within(async {
        let ws = TempDir::new("vim-home");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh.send("vim notes.txt").await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let r = sh.send(":set compatible?").await;
        assert!(
            r.viewport
                .lines()
                .any(|l| l.split_whitespace().next() == Some("nocompatible")),
            "{r:?}"
        );
        let r = sh.send("isaved\x1b:wq").await;
        assert!(!r.viewport.contains("E138"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        let r = sh.send("echo next-$((2+3))").await;
        assert!(r.viewport.lines().any(|l| l == "next-5"), "{r:?}");
        // `set nocompatible` after the startup files puts `viminfo` back to its default.
        let r = sh.send("vim -c 'set nocompatible' other.txt").await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let r = sh.send(":q!").await;
        assert!(!r.viewport.contains("E138"), "{r:?}");
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        assert_eq!(
            std::fs::read_to_string(ws.0.join("notes.txt")).unwrap(),
            "saved\n"
        );
        // Started with no startup files (`-u NONE`: no VIMINIT), vim stops at its hit-enter
        // prompt as it quits, in the terminal's line mode: a command sent then would be its
        // dismissal, and lost (the result said only the shell's prompt and exit 0).
        sh.send("vim -u NONE -N bare.txt").await;
        let r = sh.send(":wq").await;
        if r.viewport
            .contains("Press ENTER or type command to continue")
        {
            let e = sh.try_send("echo lost", true).await.expect_err("refused");
            assert!(e.message().contains("\"Press ENTER or type command"), "{e}");
            let r = sh.send("").await;
            assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        } else {
            eprintln!("vim -u NONE quit with no hit-enter prompt: its refusal not exercised");
        }
        let r = sh.send("echo after-$((2+3))").await;
        assert!(r.viewport.lines().any(|l| l == "after-5"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program waiting for input is named by what reads the terminal, not by its process
/// group's leader: `cat` run by a script (the script's bash waits for it), `cat` run by a
/// Python script.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_program_reading_the_terminal_is_named_not_its_groups_leader() {
    within(async {
        let sh = Shell::open(config()).await;
        for (command, leader) in [
            ("bash -c 'cat; echo script-done'", "script-done"),
            (
                "python3 -c 'import subprocess; subprocess.run([\"cat\"]); print(\"py-done\")'",
                "py-done",
            ),
        ] {
            let r = sh.send(command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(r.foreground.as_deref(), Some("cat"), "{command}: {r:?}");
            let r = sh.send_raw("\u{4}", false).await;
            assert!(r.viewport.contains(leader), "{command}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{command}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// An interrupt goes as the terminal's Ctrl-C byte only to a program that reads keys: with
/// ISIG left off by an earlier command (`stty -isig`), a program that reads nothing
/// (`sleep`) gets SIGINT itself, and the rest of its line does not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_with_isig_off_reaches_a_program_that_reads_no_keys() {
    within(async {
        let sh = Shell::open(config()).await;
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: "stty -isig; sleep 30; echo slept-through".into(),
                submit: true,
                timeout: Some(std::time::Duration::from_millis(300)),
            })
            .unwrap();
        let r = op.done().await.unwrap();
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert!(s.delivered, "{s:?}");
        assert_eq!(s.delivery, SignalDelivery::ProcessGroup, "{s:?}");
        let r = sh.send_raw("", false).await;
        assert!(!r.viewport.contains("slept-through"), "{r:?}");
        assert_eq!(r.exit_code, Some(130), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// With ISIG off, a program reading a line (canonical mode: the shell's `read`, Python's
/// `input()`) gets SIGINT itself: the Ctrl-C byte would only join the line it answers (the
/// next send then read `^C` + its text as the answer), and interrupt nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_with_isig_off_reaches_a_line_reader() {
    within(async {
        let sh = Shell::open(config()).await;
        let readers = [
            ("stty -isig; read x; echo \"got:$x\"", None),
            ("stty -isig -icanon; read x; echo \"got:$x\"", None),
            (
                "python3 -c \"import termios; a=termios.tcgetattr(0); a[3]&=~termios.ISIG; \
                 termios.tcsetattr(0,0,a); print('got:'+input())\"",
                Some("python3"),
            ),
        ];
        for (command, program) in readers {
            let r = sh.send(command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{command}: {r:?}");
            assert_eq!(r.foreground.as_deref(), program, "{command}: {r:?}");
            let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
            assert_eq!(s.delivery, SignalDelivery::ProcessGroup, "{command}: {s:?}");
            let r = sh.send("echo next").await;
            assert!(!r.viewport.contains("got:"), "{command}: {r:?}");
            assert!(r.viewport.contains("\nnext\n"), "{command}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{command}: {r:?}");
            sh.send("stty isig icanon").await;
        }
        sh.close().await;
    })
    .await;
}

/// Lines sent to vim in its insert mode (it enabled bracketed paste) go as a paste, so its
/// auto-indent (a Python file's indent plugin, on in vim's defaults) never adds to their own
/// indentation: `i` + a Python function + `ESC :wq` in one send saves the function as sent,
/// and so does a block sent on its own after `o`, with a TAB and an insert-mode mapping's keys
/// in it kept as text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_to_vim_in_insert_mode_keep_their_indentation() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): pasting to an editor not exercised");
        return;
    }
    // Removed on drop, also when the test fails.
    let temp = TempDir::new("vim-paste");
    let dir = temp.0.clone();
    within(async {
        let sh = Shell::open(config()).await;
        let file = dir.join("p.py");
        open_vim(&sh, "vim --clean -i NONE", &file).await;
        let code = "def f(x):\n    if x:\n        return 'yes'\n    return 'no'\n\nprint(f(0))\n";
        let r = sh.send(&format!("i{code}\x1b:wq")).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let saved = std::fs::read_to_string(&file).unwrap();
        assert_eq!(saved.trim_end(), code.trim_end(), "{saved:?}");
        let r = sh.send(&format!("python3 '{}'", file.display())).await;
        assert!(r.viewport.lines().any(|l| l == "no"), "{r:?}");
        // Sent on its own once `o` opened a line (vim shows `-- INSERT --`).
        let r = sh
            .send(&format!(
                "vim --clean -i NONE -c 'inoremap jj <Esc>' '{}'",
                file.display()
            ))
            .await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let r = sh.send_raw("Go", false).await;
        assert!(r.viewport.contains("-- INSERT --"), "{r:?}");
        let more = "def g():\n    for c in 'jj':\n\tpass\n    return 1";
        let r = sh.send_raw(more, false).await;
        assert!(r.viewport.contains("return 1"), "{r:?}");
        let r = sh.send("\x1b:wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let saved = std::fs::read_to_string(&file).unwrap();
        assert!(saved.trim_end().ends_with(more), "{saved:?}");
        // A line opened below an indented one (`o` indents it) takes the text's own indent.
        let indented = dir.join("indented.py");
        std::fs::write(&indented, "def f():\n    x = 1\n").unwrap();
        let r = sh
            .send(&format!("vim --clean -i NONE '{}'", indented.display()))
            .await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let r = sh
            .send("Go    y = 2\n    if y:\n        return y\u{1b}:wq")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let saved = std::fs::read_to_string(&indented).unwrap();
        assert_eq!(
            saved,
            "def f():\n    x = 1\n    y = 2\n    if y:\n        return y\n"
        );
        // vim started by the send's first line gets the lines after it the same way.
        let started = dir.join("started.py");
        let r = sh
            .send(&format!(
                "vim --clean -i NONE '{}'\ni{code}\x1b:wq\necho after-$((6*7))",
                started.display()
            ))
            .await;
        assert!(r.viewport.lines().any(|l| l == "after-42"), "{r:?}");
        let saved = std::fs::read_to_string(&started).unwrap();
        assert_eq!(saved.trim_end(), code.trim_end(), "{saved:?}");
        sh.close().await;
    })
    .await;
}

/// A shell command with arguments sent with Enter to vim in its normal mode is refused and
/// nothing is typed (`git status` would enter insert mode with `gi` and put the rest in the
/// file); in insert mode the same text is the file's, and a `:` command line begun without
/// Enter ends with it; keys sent without Enter that end with ESC leave it in normal mode,
/// where a command is refused again (it went into the file). Words of text sent with Enter in
/// the normal mode are refused as well.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_command_sent_to_vim_in_normal_mode_is_refused() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): the editor guard not exercised");
        return;
    }
    // Removed on drop, also when the test fails.
    let temp = TempDir::new("vim-guard");
    let dir = temp.0.clone();
    within(async {
        let sh = Shell::open(config()).await;
        let file = dir.join("notes.txt");
        open_vim(&sh, "vim --clean -i NONE", &file).await;
        let e = sh.try_send("git status", true).await.expect_err("refused");
        assert!(
            e.message()
                .starts_with("vim holds the terminal, and its last row shows no insert mode"),
            "{e}"
        );
        // Words meant as the file's text would run as keys too (`I` inserts the rest without
        // its first letter), also a `type: subject` line and a single word (no command word).
        for text in ["Initial commit", "fix: handle null values", "refactor"] {
            let e = sh.try_send(text, true).await.expect_err("refused");
            assert!(
                e.message().contains("not be typed into the file"),
                "{text}: {e}"
            );
        }
        // Keys that end their insert with an ESC are keys, words in them or not.
        for keys in [
            "A  # appended\u{1b}",
            "OFix median for even-length input\n\nbody\u{1b}",
        ] {
            let r = sh.send(keys).await;
            assert!(!r.viewport.contains("-- INSERT"), "{keys:?}: {r:?}");
        }
        sh.send_raw("u", false).await;
        // In visual mode keys are commands too.
        let r = sh.send_raw("V", false).await;
        assert!(r.viewport.contains("-- VISUAL LINE --"), "{r:?}");
        let e = sh.try_send("git status", true).await.expect_err("refused");
        assert!(e.message().starts_with("vim holds the terminal"), "{e}");
        sh.send_raw("\u{1b}", false).await;
        // Keys sent without Enter that keep vim in its normal mode (a motion, an edit).
        for keys in ["j", "dd"] {
            sh.send_raw(keys, false).await;
            let e = sh.try_send("make test", true).await.expect_err("refused");
            assert!(
                e.message().starts_with("vim holds the terminal"),
                "{keys}: {e}"
            );
        }
        // A command after a `:` command that keeps vim in its normal mode.
        let e = sh
            .try_send(":w\nmake test", true)
            .await
            .expect_err("refused");
        assert!(e.message().starts_with("vim holds the terminal"), "{e}");
        // A `:` command line begun without Enter: `set number` is vim's, not the shell's.
        sh.send_raw(":", false).await;
        let r = sh.send("set number").await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        // One with a command on it already: a shell command would run joined to it.
        sh.send_raw(":w", false).await;
        let e = sh.try_send("git status", true).await.expect_err("refused");
        assert!(
            e.message()
                .contains("its command line at the bottom holds `:w`"),
            "{e}"
        );
        sh.send_raw("\u{1b}", false).await;
        // At its hit-enter prompt (after `:!true`) a command would dismiss it and run as keys.
        sh.send(":!true").await;
        let e = sh.try_send("echo ok", true).await.expect_err("refused");
        assert!(e.message().contains("\"Press ENTER or type command"), "{e}");
        sh.send("").await;
        // In insert mode the text goes into the file.
        let inserting =
            |r: &dsh_terminal_core::SendResult| r.notices.iter().any(|n| n.contains("insert mode"));
        let r = sh.send_raw("i", false).await;
        assert!(r.viewport.contains("-- INSERT --"), "{r:?}");
        assert!(inserting(&r), "the result says where text goes: {r:?}");
        sh.send("git status is text here").await;
        // Keys that end with ESC leave vim in its normal mode: a command is refused again.
        let r = sh.send_raw("\u{1b}", false).await;
        assert!(!r.viewport.contains("-- INSERT --"), "{r:?}");
        assert!(!inserting(&r), "{r:?}");
        let e = sh.try_send("ls -la", true).await.expect_err("refused");
        assert!(e.message().starts_with("vim holds the terminal"), "{e}");
        let r = sh.send(":wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let saved = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            saved.lines().next(),
            Some("git status is text here"),
            "{saved:?}"
        );
        sh.close().await;
    })
    .await;
}

/// A full-screen program that takes the alternate screen and leaves it within one send shows
/// nothing of what it drew there (as on a terminal): the result says so. One that a send
/// opened and a later send quit is the usual way and gets no such notice, nor does a command
/// that never touched the alternate screen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_screen_program_that_came_and_went_in_one_send_is_said_to() {
    let came_and_went =
        |r: &dsh_terminal_core::SendResult| r.notices.iter().any(|n| n.contains("left it again"));
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf '\\033[?1049h'; echo drawn-$((6*7)); printf '\\033[?1049l'; echo back")
            .await;
        assert!(r.viewport.lines().any(|l| l == "back"), "{r:?}");
        assert!(!r.viewport.contains("drawn-42"), "{r:?}");
        assert!(came_and_went(&r), "{r:?}");
        let r = sh
            .send("printf '\\033[?1049h'; read -p 'drawn: ' x; printf '\\033[?1049l'; echo left")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(!came_and_went(&r), "{r:?}");
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "left"), "{r:?}");
        assert!(!came_and_went(&r), "{r:?}");
        let r = sh.send("echo plain").await;
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A full-screen program killed while it shows a page (a pager, vim): the shell's prompt gives
/// the main screen back, and the next result carries over only what changed on the program's
/// screen since the last result showed it (the shell's `Killed`), not the whole page again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_full_screen_program_s_page_is_not_shown_again() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("seq 1 500 | sed 's/^/page-line-/' | less").await;
        assert!(r.viewport.contains("page-line-20"), "{r:?}");
        sh.session
            .signal(TerminalSignal::Sigkill)
            .unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send("echo after-kill").await;
        assert!(r.viewport.contains("\nafter-kill\n"), "{r:?}");
        assert!(!r.viewport.contains("page-line-20"), "{r:?}");
        // What the kill added still shows.
        assert!(r.viewport.contains("Killed"), "{r:?}");
        if installed("vim") {
            let r = sh.send("vim -u NONE -N").await;
            assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
            sh.session
                .signal(TerminalSignal::Sigkill)
                .unwrap_or_else(|e| panic!("{e}"));
            let r = sh.send("echo after-vim").await;
            assert!(r.viewport.contains("\nafter-vim\n"), "{r:?}");
            assert!(r.viewport.matches("\n~").count() < 3, "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// vim's swap-file dialog (E325: a swap file of the file exists, here one a killed vim left)
/// asks a question with one-key choices: a command line sent with Enter is refused with the
/// keys that answer it, and `q` sent without Enter quits vim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vims_swap_file_dialog_is_told_apart_from_its_normal_mode() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): the swap-file dialog not exercised");
        return;
    }
    // Removed on drop, also when the test fails.
    let temp = TempDir::new("vim-swap");
    let dir = temp.0.clone();
    within(async {
        let sh = Shell::open(config()).await;
        let file = dir.join("notes.txt");
        open_vim(&sh, "vim --clean -i NONE", &file).await;
        // Killed, vim leaves its swap file behind.
        let r = sh.send_raw("ihello\u{1b}", false).await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let swap = dir.join(".notes.txt.swp");
        crate::support::wait_until("vim wrote its swap file", || swap.exists()).await;
        let killed = Command::new("pkill")
            .args([
                "-KILL",
                "-f",
                &format!("vim --clean -i NONE {}", file.display()),
            ])
            .status()
            .unwrap();
        assert!(killed.success());
        let r = sh.send("").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send(&format!("vim --clean -i NONE '{}'", file.display()))
            .await;
        assert!(r.viewport.contains("(Q)uit"), "{r:?}");
        let e = sh.try_send("git status", true).await.expect_err("refused");
        assert!(
            e.message()
                .starts_with("vim holds the terminal and asks a question with one-key choices"),
            "{e}"
        );
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.foreground.is_none(), "{r:?}");
        sh.close().await;
    })
    .await;
}

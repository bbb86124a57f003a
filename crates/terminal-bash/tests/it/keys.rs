//! Programs that read single keys (bash's `read -n`/`-N`/`-s`, cbreak-mode readers) get
//! exactly the keys sent, settle as waiting once they took them, and are reported as
//! single-key readers, so an agent sends the key without an Enter.

use dsh_terminal_core::{InputMode, SendResult, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, within};

mod answers;
mod raw_readers;

/// The shell's own builtin reads of single keys (`read -n 1`, `read -s -n 1`, `read -N 2`)
/// and of a line with readline (`read -e`) get exactly the keys sent: nothing meant for the
/// shell's line editor is typed ahead of them, and the next command runs as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shells_own_key_reads_get_exactly_the_keys_sent() {
    within(async {
        let sh = Shell::open(config()).await;
        for (read, keys, submit, want) in [
            ("read -n 1 -p 'y/n? ' k", "y", false, "y"),
            ("read -s -n 1 -p 'key? ' k", "q", false, "q"),
            ("read -N 2 -p 'two? ' k", "ab", false, "ab"),
            ("read -e -p 'line? ' k", "typed line", true, "typed line"),
        ] {
            let r = sh.send(&format!("{read}; echo; echo \"key=[$k]\"")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{read}: {r:?}");
            assert_eq!(r.exit_code, None, "{read}: {r:?}");
            let r = sh.send_raw(keys, submit).await;
            assert_eq!(r.exit_code, Some(0), "{read}: {r:?}");
            assert!(
                r.viewport.lines().any(|l| l == format!("key=[{want}]")),
                "{read}: {r:?}"
            );
            let r = sh.send("echo next-$((6*7))").await;
            assert_eq!(r.exit_code, Some(0), "{read}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "next-42"), "{read}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A program that reads the terminal without echo and prints nothing when answered (`read -s`,
/// a reader of single keys) waits for input again once it took the answer: the send settles
/// as a stdin wait, not at the idle window as if something might still run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_reader_that_took_its_answer_waits_for_input_again() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("read -s a; read -s b; echo \"got $a $b\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("first").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("second").await;
        assert!(r.viewport.lines().any(|l| l == "got first second"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh
            .send(
                "python3 -c \"import os, termios, tty; a = termios.tcgetattr(0); tty.setcbreak(0); \
                 [os.read(0, 1) for _ in range(3)]; termios.tcsetattr(0, termios.TCSADRAIN, a); \
                 print('keys done')\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for key in ["x", "y"] {
            let r = sh.send_raw(key, false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{key}: {r:?}");
        }
        let r = sh.send_raw("z", false).await;
        assert!(r.viewport.lines().any(|l| l == "keys done"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A prompt that reads single keys (`read -n 1`, the terminal in cbreak mode) is told apart
/// from one that reads a line: the result says so, since an Enter sent after the key would be
/// a key of its own for whatever reads next. A silent one (`read -s -n 1`, echo off too) is
/// one as well, in our shell or in a script's shell. Line prompts, password prompts and REPLs
/// (raw mode with their own line editor) are not single-key readers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_key_prompt_is_reported_as_one() {
    within(async {
        let sh = Shell::open(config()).await;
        for read in [
            "read -n 1 -p 'Proceed? [y/N] ' a; echo; echo \"a=$a\"",
            "read -s -n 1 -p 'Press any key ' a; echo; echo \"a=$a\"",
            "bash -c 'read -s -n 1 -p \"Delete? [y/N] \" a; echo; echo \"a=$a\"'",
            "python3 -c \"import sys, termios, tty; t = termios.tcgetattr(0); tty.setcbreak(0); \
             print('Go? [y/N] ', end='', flush=True); k = sys.stdin.read(1); \
             termios.tcsetattr(0, termios.TCSADRAIN, t); print(); print('a=' + k)\"",
        ] {
            let r = sh.send(read).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{read}: {r:?}");
            assert_eq!(r.input_mode, InputMode::SingleKey, "{read}: {r:?}");
            let r = sh.send_raw("y", false).await;
            assert!(r.viewport.lines().any(|l| l == "a=y"), "{read}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{read}: {r:?}");
        }
        let r = sh.send("read -s -p 'Password: ' p; echo \"p=${#p}\"").await;
        assert_eq!(r.input_mode, InputMode::EchoOff, "{r:?}");
        let r = sh.send("hunter2").await;
        assert!(r.viewport.lines().any(|l| l == "p=7"), "{r:?}");
        let r = sh.send("read -p 'Name: ' b; echo \"b=$b\"").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "b=bob"), "{r:?}");
        let r = sh.send("python3 -q").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        let r = sh.send("exit()").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Keys to readers that echo nothing (a PIN) or read raw keys at several prompts: a silent
/// reader still reading gets the next keys; each line of several answers its own raw prompt;
/// keys beyond what a raw key read takes never answer the next prompt; text with spaces to a
/// fixed-length read stops where the read does; lines after a key read ended are not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_and_raw_key_readers_get_what_they_read() {
    within(async {
        let dir = TempDir::new("raw-keys");
        let sh = Shell::open(config()).await;
        let reads = "read -s -n 3 -p 'PIN: ' p; echo; echo \"P=[$p]\"";
        let r = answer_key_reads(&sh, reads, &["123"]).await;
        assert!(r.viewport.lines().any(|l| l == "P=[123]"), "{r:?}");
        let r = sh.send("echo END").await;
        assert!(r.viewport.lines().any(|l| l == "END"), "{r:?}");
        // Two raw key reads (Python's `tty.setraw`), each after its own prompt.
        let two_keys = "import os, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            def key(prompt):\n\
            \x20   sys.stdout.write(prompt); sys.stdout.flush()\n\
            \x20   tty.setraw(0)\n\
            \x20   k = os.read(0, 1)\n\
            \x20   termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            \x20   print()\n\
            \x20   return k.decode()\n\
            a = key('Which environment (1=dev 2=prod): ')\n\
            b = key('Delete all? [y/N] ')\n\
            print('K=' + a + ' K2=' + repr(b))\n";
        std::fs::write(dir.0.join("two.py"), two_keys).unwrap();
        let run = format!("python3 '{}'", dir.0.join("two.py").display());
        for (answers, want) in [
            (vec!["2\ny"], "K=2 K2='y'"),
            (vec!["1y", "n"], "K=1 K2='n'"),
        ] {
            let r = answer_key_reads(&sh, &run, &answers).await;
            assert!(r.viewport.lines().any(|l| l == want), "{answers:?}: {r:?}");
        }
        for (reads, answer, want) in [
            ("read -n 5 -p 'Your name: ' a", "bob smith", "A=[bob s]"),
            ("read -n1 -p 'Go [y/N] ' a", "y\ny\ny", "A=[y]"),
        ] {
            let reads = format!("{reads}; echo; echo \"A=[$a]\"");
            let r = answer_key_reads(&sh, &reads, &[answer]).await;
            assert!(r.viewport.lines().any(|l| l == want), "{answer:?}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A line reader that printed no prompt (the shell's own `read`, a program's `input()`) is
/// said to take the next send as its line; one that printed its prompt is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_read_with_no_prompt_is_named() {
    within(async {
        let sh = Shell::open(config()).await;
        let said = |r: &dsh_terminal_core::SendResult, who: &str| {
            r.notices.iter().any(|n| {
                n.starts_with(&format!(
                    "[input: {who} waits for a line of input, with the cursor at the start of an empty line"
                ))
            })
        };
        let r = sh.send("read -r line; echo \"len=${#line}\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(said(&r, "the shell (its read builtin)"), "{r:?}");
        let r = sh.send("hello").await;
        assert!(r.viewport.lines().any(|l| l == "len=5"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        let r = sh.send("python3 -c 'print(\"got \" + input())'").await;
        assert!(said(&r, "python3"), "{r:?}");
        let r = sh.send("x").await;
        assert!(r.viewport.lines().any(|l| l == "got x"), "{r:?}");
        let r = sh.send("read -r -p 'Name: ' n; echo \"n=$n\"").await;
        assert!(r.notices.is_empty(), "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "n=bob"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// `top` (on the main screen here) reads single keys: it is reported as such, and not as a
/// REPL that owes its prompt (that notice would tell the agent not to send the key), also when
/// it redraws more often than the idle window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_is_a_single_key_reader_not_a_repl() {
    if !crate::support::installed("top") {
        eprintln!("top is not installed (.ci/run installs procps): not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("top").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        if r.input_mode == InputMode::SingleKey {
            assert!(
                !r.notices
                    .iter()
                    .any(|n| n.contains("has not printed its prompt")),
                "{r:?}"
            );
        }
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Redrawing more often than the idle window, it still waits for a key: its timeout
        // bounds a wait for keys, not work in progress.
        let r = sh.send_within("top -d 0.5", true, 20_000).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A key reader in cbreak mode that waits for a key with a timer (`select` with a timeout, as
/// `top` redraws) and left its cursor on a blank row (below a short list: `top` in a sandbox)
/// is reported waiting for a key, not taken for a REPL that owes its prompt (the send waited
/// out its deadline, and said the program was still running).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_key_reader_with_its_cursor_on_a_blank_row_waits_for_a_key() {
    within(async {
        let dir = TempDir::new("timed-keys");
        let menu = "import select, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            tty.setcbreak(0)\n\
            print('menu: q quits', flush=True)\n\
            while True:\n\
            \x20   if select.select([sys.stdin], [], [], 3)[0] and sys.stdin.read(1) == 'q':\n\
            \x20       break\n\
            termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            print('bye')\n";
        std::fs::write(dir.0.join("menu.py"), menu).unwrap();
        let sh = Shell::open(config()).await;
        let r = sh
            .send_within(
                &format!("python3 '{}'", dir.0.join("menu.py").display()),
                true,
                20_000,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::SingleKey, "{r:?}");
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "bye"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Output flow control is off: a Ctrl-S (XOFF) typed to the shell or to a program reading in
/// canonical mode stops no output, so the results after it are whole (with it on, every later
/// result came back empty until a Ctrl-Q); at the prompt it is readline's forward search. A
/// program turning flow control back on has it turned off again at the prompt, with the modes
/// the session started with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ctrl_s_stops_no_output() {
    within(async {
        let sh = Shell::open(config()).await;
        // At the prompt it is readline's forward history search, which Ctrl-G leaves.
        sh.send_raw("\u{13}", false).await;
        sh.send_raw("\u{7}", false).await;
        let r = sh.send("echo after-xoff").await;
        assert!(r.viewport.lines().any(|l| l == "after-xoff"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Ctrl-R then Ctrl-S search back and forth; Ctrl-G gives the empty line back.
        sh.send("echo unique-123").await;
        sh.send_raw("\u{12}unique\u{13}", false).await;
        sh.send_raw("\u{7}", false).await;
        let r = sh.send("echo fin").await;
        assert!(r.viewport.lines().any(|l| l == "fin"), "{r:?}");
        let r = sh.send("cat").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("\u{13}typed").await;
        assert!(r.viewport.lines().any(|l| l.ends_with("typed")), "{r:?}");
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh
            .send("stty ixon; stty -a | grep -o -- '-ixon'; echo done")
            .await;
        assert!(r.viewport.lines().any(|l| l == "done"), "{r:?}");
        let r = sh.send("stty -a | grep -o -- '-ixon'").await;
        assert!(r.viewport.lines().any(|l| l == "-ixon"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The terminal's canonical-mode line editing knows UTF-8 (`IUTF8` on, as a UTF-8 terminal
/// emulator sets it): a backspace erases a whole multibyte character, in what the program
/// reads as in the echo, also after a program turned the mode off (`stty -iutf8`). With it
/// off, `café`, DEL, `e` echoed `cafe` while the program read `caf\303e`, invalid UTF-8.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backspace_erases_a_whole_multibyte_character() {
    within(async {
        let sh = Shell::open(config()).await;
        for setup in ["true", "stty -iutf8"] {
            sh.send(setup).await;
            let r = sh.send("read -r x; printf '%s' \"$x\" | od -An -c").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{setup}: {r:?}");
            let r = sh.send("café\u{7f}e 日本\u{7f}X").await;
            let bytes: Vec<&str> = r
                .viewport
                .lines()
                .skip_while(|l| !l.starts_with("cafe "))
                .nth(1)
                .unwrap_or_else(|| panic!("{setup}: {r:?}"))
                .split_whitespace()
                .collect();
            assert_eq!(
                bytes,
                ["c", "a", "f", "e", "346", "227", "245", "X"],
                "{setup}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{setup}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// An event loop that takes a key and prints nothing (asyncio reading the terminal beside its
/// wake-up pipe; node's REPL given a lone ESC, which it holds for its 500 ms escape timeout and
/// then drops) waits for input again once it woke up for the key and has no timer about to
/// fire: the send settles as a stdin wait, not when the idle window passes; and the ESC was
/// dealt with before the send settled, so the next line is not taken as Meta keys. One whose
/// key started a timer is still at work: its send waits for the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_loop_that_took_a_key_silently_waits_for_input_again() {
    within(async {
        // A 30 s idle window: only the wait can settle these sends within their deadline.
        let sh = Shell::open(dsh_terminal_bash::BashConfig {
            idle_silence_ms: 30_000,
            timeout_ms: 20_000,
            ..config()
        })
        .await;
        let r = sh
            .send(
                "python3 -c \"import asyncio, os, termios, tty\n\
                 a = termios.tcgetattr(0); tty.setcbreak(0); loop = asyncio.new_event_loop()\n\
                 def key():\n    \
                     if os.read(0, 1) == b'q': print('keys done'); loop.stop()\n\
                 loop.add_reader(0, key); print('keys? ', end='', flush=True); loop.run_forever()\n\
                 termios.tcsetattr(0, termios.TCSADRAIN, a)\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for key in ["x", "y"] {
            let r = sh.send_raw(key, false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{key}: {r:?}");
        }
        let r = sh.send_raw("q", false).await;
        assert!(r.viewport.lines().any(|l| l == "keys done"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // One that answers a key only after a timer the key started (its prompt still before
        // the cursor meanwhile) is at work until then: the send waits for the answer.
        let r = sh
            .send(
                "python3 -c \"import asyncio, os, termios, tty\n\
                 a = termios.tcgetattr(0); tty.setcbreak(0)\n\
                 async def main():\n    \
                     loop = asyncio.get_running_loop(); q = asyncio.Queue()\n    \
                     loop.add_reader(0, lambda: q.put_nowait(os.read(0, 1)))\n    \
                     print('v> ', end='', flush=True); k = await q.get()\n    \
                     await asyncio.sleep(2.5); print('reacted', k.decode())\n\
                 asyncio.run(main()); termios.tcsetattr(0, termios.TCSADRAIN, a)\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("k", false).await;
        assert!(r.viewport.lines().any(|l| l == "reacted k"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        if crate::support::installed("node") {
            let r = sh.send("node").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send_raw("\x1b", false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send("6*7").await;
            assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
            let r = sh.send(".exit").await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        } else {
            eprintln!("node is not installed: its lone ESC is not exercised");
        }
        sh.close().await;
    })
    .await;
}

/// A command sent after a lone editing key the previous send left pending at the prompt runs
/// as sent: a history search (Ctrl-R), a numeric argument (Meta-3), the `Ctrl-X` prefix, and,
/// in vi mode, command mode after ESC. An Enter alone after Ctrl-R still runs what the search
/// found, and one after an arrow key the line it recalled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_after_a_pending_editing_key_runs_as_sent() {
    within(async {
        let sh = Shell::open(config()).await;
        for vi in [false, true] {
            if vi {
                sh.send("set -o vi").await;
            }
            sh.send("echo rm-me-again").await;
            let keys: &[&str] = if vi {
                &["\u{12}", "\u{1b}3", "\u{1b}"]
            } else {
                &["\u{12}", "\u{1b}3", "\u{18}", "\u{12}ech"]
            };
            for (i, key) in keys.iter().enumerate() {
                sh.send_raw(key, false).await;
                let r = sh.send(&format!("echo SAFE{i}")).await;
                assert!(
                    r.viewport.lines().any(|l| l == format!("SAFE{i}")),
                    "vi {vi}, {key:?}: {r:?}"
                );
                assert_eq!(r.exit_code, Some(0), "vi {vi}, {key:?}: {r:?}");
            }
        }
        // Deliberate use stays: Ctrl-R, a search, then Enter runs the command found; an arrow
        // key, then Enter, the command recalled.
        sh.send("set -o emacs").await;
        sh.send("echo found-it").await;
        sh.send_raw("\u{12}found", false).await;
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "found-it"), "{r:?}");
        sh.send_raw("\u{1b}[A", false).await;
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "found-it"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A command line meant for the shell, sent with Enter while a pager holds the terminal, is
/// refused and nothing is typed: `less` would take it as its own commands (`s` saves the
/// input to a file named after the rest of the line). Pager keys, and any text sent without
/// Enter, go as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_command_sent_to_a_pager_is_refused() {
    within(async {
        let dir = TempDir::new("pager");
        let sh = Shell::open(config()).await;
        sh.send(&format!("cd {}", dir.0.display())).await;
        let r = sh.send("seq 1 500 | less").await;
        assert_eq!(r.foreground.as_deref(), Some("less"), "{r:?}");
        let e = sh.try_send("ls -la", true).await.expect_err("refused");
        assert!(
            e.message().starts_with("less (a pager) holds the terminal")
                && e.message().contains("send q with submit: false"),
            "{e}"
        );
        let e = sh.try_send("echo hi > x", true).await.expect_err("refused");
        assert!(e.message().contains("`echo hi > x`"), "{e}");
        // A key sent without Enter first (a whole pager command) changes nothing.
        sh.send_raw("G", false).await;
        let e = sh.try_send("FOO=1 ls -la", true).await.expect_err("refused");
        assert!(e.message().starts_with("less (a pager)"), "{e}");
        // Operators glued to the command, and a line after one that ends a search the pager
        // prompted for.
        for text in ["ls|wc", "sort<n.txt", "ls;pwd"] {
            let e = sh.try_send(text, true).await.expect_err(text);
            assert!(e.message().starts_with("less (a pager)"), "{text}: {e}");
        }
        sh.send_raw("/", false).await;
        let e = sh.try_send("q\nls > out", true).await.expect_err("refused");
        assert!(e.message().starts_with("less (a pager)"), "{e}");
        sh.send_raw("\u{7f}", false).await;
        // A command on a later line too (the pager would read it as keys after `G`); only
        // lines after a key that quits it are the shell's.
        let e = sh.try_send("G\nls -la", true).await.expect_err("refused");
        assert!(e.message().starts_with("less (a pager)"), "{e}");
        // A pager's own keys go: a search, with its Enter, also begun without Enter.
        sh.send_raw("g", false).await;
        let r = sh.send("/300").await;
        assert!(r.viewport.contains("300"), "{r:?}");
        sh.send_raw("?", false).await;
        let r = sh.send("echo").await;
        assert!(r.viewport.contains("Pattern not found"), "{r:?}");
        sh.send("").await;
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("ls -A | wc -l").await;
        assert!(r.viewport.contains("\n0\n"), "nothing written: {r:?}");
        // On the main screen (`less -X` reads keys in cbreak mode there), a search with its
        // Enter goes as sent, and so does text at the search prompt.
        sh.send("seq 1 500 | less -X").await;
        let r = sh.send("/300").await;
        assert!(r.viewport.lines().any(|l| l == "300"), "{r:?}");
        sh.send_raw("?", false).await;
        let r = sh.send("echo").await;
        assert!(r.viewport.contains("Pattern not found"), "{r:?}");
        sh.send("").await;
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Under git, the pager is the one named.
        sh.send("git init -q r && cd r && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m one")
            .await;
        let r = sh.send("GIT_PAGER=less LESS= git log").await;
        assert_eq!(r.foreground.as_deref(), Some("less"), "{r:?}");
        let e = sh.try_send("git status", true).await.expect_err("refused");
        assert!(e.message().starts_with("less (a pager)"), "{e}");
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Sends `reads` (a command waiting at a key read), then each of `answers` in a send of its
/// own, and returns the last result, which shows no key run as a command.
async fn answer_key_reads(sh: &Shell, reads: &str, answers: &[&str]) -> SendResult {
    let mut r = sh.send(reads).await;
    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{reads}: {r:?}");
    for answer in answers {
        r = sh.send(answer).await;
    }
    assert!(
        !r.viewport.contains("command not found"),
        "{answers:?}: {r:?}"
    );
    r
}

//! Raw-mode readers (`stty raw -echo; dd bs=1 count=1`, Python's `tty.setraw`) at a prompt
//! that neither asks nor is a REPL's (none at all, `Press any key to continue... `, a menu
//! ending in `> `): a line sent goes as its first key alone, and the rest (its other keys, the
//! Enter) only to a reader that shows the key on its line and reads again; a key reader that
//! went on gets none of it, so nothing of the line reaches the next prompt or the shell.

use dsh_terminal_core::{InputMode, SendResult, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, installed, within};

/// Whether `r` says only the first keys of the text went (the rest dropped).
fn keys_said(r: &SendResult) -> bool {
    r.notices
        .iter()
        .any(|n| n.starts_with("[input: only the first keys of the text went"))
}

/// A line sent to a raw-mode key reader with no question before it types its first key
/// alone: `yes` to `dd bs=1 count=1` is `y`, and `es` never runs in the shell; a command line
/// sent after `Press any key to continue... ` is its first key, not a command; the Enter after
/// a menu key does not answer the next single-key prompt; a raw-mode line editor at such a
/// prompt still gets the whole line and its Enter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_key_reader_gets_only_the_first_key_of_a_line() {
    within(async {
        let dir = TempDir::new("raw-readers");
        let sh = Shell::open(config()).await;
        let r = sh
            .send("stty raw -echo; k=$(dd bs=1 count=1 2>/dev/null); stty sane; echo \"k=[$k]\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("yes").await;
        assert!(r.viewport.lines().any(|l| l == "k=[y]"), "{r:?}");
        assert!(!r.viewport.contains("command not found"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(keys_said(&r), "{r:?}");

        // One key read in raw mode, the terminal restored, then `key <k>`.
        let getch = "import os, sys, termios, tty\n\
            def getch(prompt):\n\
            \x20   sys.stdout.write(prompt); sys.stdout.flush()\n\
            \x20   old = termios.tcgetattr(0)\n\
            \x20   tty.setraw(0)\n\
            \x20   k = os.read(0, 1)\n\
            \x20   termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            \x20   print('\\nkey', repr(k.decode()))\n\
            for prompt in sys.argv[1:]:\n\
            \x20   getch(prompt)\n";
        // A line editor of its own in raw mode: echoes each key, ends at Enter.
        let line_editor = "import os, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            sys.stdout.write('Type a line, then Enter -- '); sys.stdout.flush()\n\
            tty.setraw(0)\n\
            line = b''\n\
            while (c := os.read(0, 1)) not in (b'\\r', b'\\n'):\n\
            \x20   line += c; os.write(1, c)\n\
            termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            print('\\nline', line.decode())\n";
        let getch_py = dir.0.join("getch.py");
        let line_py = dir.0.join("line.py");
        std::fs::write(&getch_py, getch).unwrap();
        std::fs::write(&line_py, line_editor).unwrap();

        let r = sh
            .send(&format!(
                "python3 '{}' 'Press any key to continue... '",
                getch_py.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("zecho LEAKED").await;
        assert!(r.viewport.lines().any(|l| l == "key 'z'"), "{r:?}");
        assert!(!r.viewport.lines().any(|l| l == "LEAKED"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(keys_said(&r), "{r:?}");

        let r = sh
            .send(&format!(
                "python3 '{}' 'Menu: [a]dd [d]elete [q]uit > ' 'Press any key to continue... ' \
                 'Choose 1-3: '",
                getch_py.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("a").await;
        assert!(r.viewport.lines().any(|l| l == "key 'a'"), "{r:?}");
        assert!(!r.viewport.contains("'\\r'"), "{r:?}");
        assert!(
            r.viewport.ends_with("Press any key to continue... "),
            "{r:?}"
        );
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: the Enter was left out")),
            "{r:?}"
        );
        let r = sh.send_raw("x", false).await;
        assert!(r.viewport.ends_with("Choose 1-3: "), "{r:?}");
        let r = sh.send_raw("2", false).await;
        assert!(r.viewport.lines().any(|l| l == "key '2'"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");

        let r = sh.send(&format!("python3 '{}'", line_py.display())).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("hello raw world").await;
        assert!(
            r.viewport.lines().any(|l| l == "line hello raw world"),
            "{r:?}"
        );
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.starts_with("[input:")), "{r:?}");

        // node's `setRawMode` key reader, whose modes are its REPL's.
        if installed("node") {
            let r = sh
                .send(
                    "node -e 'process.stdin.setRawMode(true); process.stdin.once(\"data\", \
                     (d) => { console.log(\"key\", String(d)); process.exit(0) })'",
                )
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send("nope").await;
            assert!(r.viewport.lines().any(|l| l == "key n"), "{r:?}");
            assert!(!r.viewport.contains("command not found"), "{r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        let r = sh.send("echo next-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "next-42"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A raw-mode reader of one key (Python's `tty.setraw`, as C's `cfmakeraw`) at a "Press a
/// key" or "Press any key to continue" prompt is reported as a reader of single keys (whose
/// notice says to send the key without Enter), not as a line reader at a "press Enter" prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_key_reader_at_a_press_a_key_prompt_reads_single_keys() {
    within(async {
        let dir = TempDir::new("raw-press-key");
        let getch = "import os, sys, termios, tty\n\
            sys.stdout.write(sys.argv[1]); sys.stdout.flush()\n\
            old = termios.tcgetattr(0)\n\
            tty.setraw(0)\n\
            k = os.read(0, 1)\n\
            termios.tcsetattr(0, termios.TCSADRAIN, old)\n\
            print('\\nkey', repr(k.decode()))\n";
        let getch_py = dir.0.join("getch.py");
        std::fs::write(&getch_py, getch).unwrap();
        let sh = Shell::open(config()).await;
        for prompt in ["Press a key ", "Press any key to continue... "] {
            let r = sh
                .send(&format!("python3 '{}' '{prompt}'", getch_py.display()))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{prompt}: {r:?}");
            assert_eq!(r.input_mode, InputMode::SingleKey, "{prompt}: {r:?}");
            let r = sh.send_raw("k", false).await;
            assert!(
                r.viewport.lines().any(|l| l == "key 'k'"),
                "{prompt}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{prompt}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

//! Programs that read single keys in cbreak mode while they work: their progress (rows
//! appended, a line redrawn with `\r`) is work, a spinner cycling beside the read is not.

use dsh_terminal_core::WaitReason;

use crate::support::{Shell, TempDir, config, within};

/// A program at work that reads keys in cbreak mode meanwhile (a thread reading `q` beside the
/// one that prints `epoch N/8`; a `select` loop with a timeout between steps; `flutter run`
/// polling for keys while it builds) is not waiting for a key while its output appends rows:
/// its send ends with its output and the shell's prompt, not at its first line; a poll with
/// a deadline waits for what it prints next. A redraw in place is no such output (`top`, see
/// `top_is_a_single_key_reader_not_a_repl`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_reader_printing_its_progress_is_at_work() {
    within(async {
        let dir = TempDir::new("busy-keys");
        let thread = "import os, termios, threading, time, tty\n\
            old = termios.tcgetattr(0)\n\
            tty.setcbreak(0)\n\
            def keys():\n\
            \x20   while os.read(0, 1) != b'q':\n\
            \x20       pass\n\
            \x20   termios.tcsetattr(0, termios.TCSANOW, old)\n\
            \x20   os._exit(1)\n\
            threading.Thread(target=keys, daemon=True).start()\n\
            print('training (q stops)', flush=True)\n\
            for e in range(1, 7):\n\
            \x20   time.sleep(0.6)\n\
            \x20   print(f'epoch {e}/6', flush=True)\n\
            termios.tcsetattr(0, termios.TCSANOW, old)\n\
            print('trained')\n";
        let steps = "import select, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            tty.setcbreak(0)\n\
            print('q cancels', flush=True)\n\
            for i in range(1, 7):\n\
            \x20   if select.select([0], [], [], 0.5)[0] and sys.stdin.read(1) == 'q':\n\
            \x20       break\n\
            \x20   print(f'step {i}/6', flush=True)\n\
            termios.tcsetattr(0, termios.TCSANOW, old)\n\
            print('stepped')\n";
        // Its progress redrawn in place on one line (`\r`), as ffmpeg's beside "[q] to stop".
        let in_place = "import select, sys, termios, tty\n\
            old = termios.tcgetattr(0)\n\
            tty.setcbreak(0)\n\
            print('press q to stop', flush=True)\n\
            for i in range(1, 16):\n\
            \x20   if select.select([0], [], [], 0.2)[0] and sys.stdin.read(1) == 'q':\n\
            \x20       break\n\
            \x20   print(f'\\rframe={i:4}', end='', flush=True)\n\
            termios.tcsetattr(0, termios.TCSANOW, old)\n\
            print('\\nencoded')\n";
        // Quiet for 1.5 s between its lines, polling for a key every 100 ms, then at its menu.
        let run = "import select, sys, termios, time, tty\n\
            old = termios.tcgetattr(0)\n\
            tty.setcbreak(0)\n\
            def wait(sec):\n\
            \x20   end = time.time() + sec\n\
            \x20   while time.time() < end:\n\
            \x20       if select.select([0], [], [], 0.1)[0] and sys.stdin.read(1) == 'q':\n\
            \x20           termios.tcsetattr(0, termios.TCSANOW, old)\n\
            \x20           print('finished')\n\
            \x20           sys.exit(0)\n\
            print('launching', flush=True)\n\
            wait(1.5)\n\
            print('building', flush=True)\n\
            wait(1.5)\n\
            print('built\\nq quits', flush=True)\n\
            wait(1000)\n";
        for (name, text) in [
            ("thread.py", thread),
            ("steps.py", steps),
            ("in_place.py", in_place),
            ("run.py", run),
        ] {
            std::fs::write(dir.0.join(name), text).unwrap();
        }
        let sh = Shell::open(config()).await;
        for (name, done) in [
            ("thread.py", "trained"),
            ("steps.py", "stepped"),
            ("in_place.py", "encoded"),
        ] {
            let r = sh
                .send(&format!("python3 '{}'", dir.0.join(name).display()))
                .await;
            assert_eq!(r.exit_code, Some(0), "{name}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == done), "{name}: {r:?}");
        }
        let r = sh
            .send_within(
                &format!("python3 '{}'", dir.0.join("run.py").display()),
                true,
                20_000,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "q quits"), "{r:?}");
        // At its menu, a poll with a deadline settles as waiting for a key, within the idle
        // window.
        let r = sh.send_within("", false, 20_000).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // A spinner cycling beside the key read (`Waiting... |/-\`, a frame every 0.3 s) is no
        // progress: waiting for a key (it held the send to its deadline).
        std::fs::write(
            dir.0.join("spin.py"),
            "import select, sys, termios, tty\n\
             old = termios.tcgetattr(0)\n\
             tty.setcbreak(0)\n\
             i = 0\n\
             while not select.select([0], [], [], 0.3)[0]:\n\
             \x20   print('\\rWaiting... ' + '|/-\\\\'[i % 4], end='', flush=True)\n\
             \x20   i += 1\n\
             sys.stdin.read(1)\n\
             termios.tcsetattr(0, termios.TCSANOW, old)\n\
             print('\\nspun')\n",
        )
        .unwrap();
        let r = sh
            .send(&format!("python3 '{}'", dir.0.join("spin.py").display()))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("k", false).await;
        assert!(r.viewport.lines().any(|l| l == "spun"), "{r:?}");
        sh.close().await;
    })
    .await;
}

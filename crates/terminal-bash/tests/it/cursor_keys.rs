//! Arrow keys reach a program in the form it asked for: one that turned on application cursor
//! keys (DECCKM: a curses menu with its keypad on, `less`) gets `ESC O B` for the `ESC [ B` a
//! send wrote, as from a terminal, and moves; with the mode off the keys go as written.

use dsh_terminal_core::WaitReason;

use crate::support::{Shell, TempDir, config, within};

/// A curses menu (its keypad on, so application cursor keys) that prints the item chosen.
const MENU: &str = r#"import curses
def main(w):
    items = ["apple", "banana", "cherry"]
    i = 0
    while True:
        w.erase()
        for n, item in enumerate(items):
            w.addstr(n, 0, ("> " if n == i else "  ") + item)
        w.refresh()
        k = w.getch()
        if k == curses.KEY_DOWN:
            i = min(i + 1, 2)
        elif k == curses.KEY_UP:
            i = max(i - 1, 0)
        elif k in (10, 13):
            return items[i]
print("chose", curses.wrapper(main))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arrow_keys_move_a_program_that_asked_for_application_cursor_keys() {
    let temp = TempDir::new("cursor-keys");
    let menu = temp.0.join("menu.py");
    std::fs::write(&menu, MENU).unwrap();
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send(&format!("python3 {}", menu.display())).await;
        assert!(r.viewport.contains("> apple"), "{r:?}");
        sh.send_raw("\u{1b}[B\u{1b}[B", false).await;
        let r = sh.send_raw("\u{1b}[A", false).await;
        assert!(r.viewport.contains("> banana"), "{r:?}");
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "chose banana"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Arrows and the Enter in one send: each arrow is one key, not ESC and two letters.
        sh.send(&format!("python3 {}", menu.display())).await;
        let r = sh.send_raw("\u{1b}[B\u{1b}[B\r", false).await;
        assert!(r.viewport.lines().any(|l| l == "chose cherry"), "{r:?}");
        sh.send(&format!("python3 {}", menu.display())).await;
        let r = sh.send("\u{1b}[B").await;
        assert!(r.viewport.lines().any(|l| l == "chose banana"), "{r:?}");
        // With the mode off (the shell's line editor), Up recalls the last command as usual.
        let r = sh.send("echo recalled").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("\u{1b}[A").await;
        assert_eq!(r.viewport.matches("recalled").count(), 2, "{r:?}");
        // Without Enter, the recalled line waits at the prompt, and the result says so.
        let r = sh.send_raw("\u{1b}[A", false).await;
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[input: the keys sent left a line at the shell's prompt that has not run (\"echo recalled\")"
            )),
            "{r:?}"
        );
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "recalled"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Keys sent without Enter while a command runs wait for a reader and reach the shell's line
/// editor once the command ended: a recalled line that has not run is said so, as for keys
/// typed at the prompt (it read as the command run again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_held_for_the_prompt_say_the_line_they_left() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send_within("sleep 1", true, 300).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_within("\u{1b}[A", false, 30_000).await;
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[input: the keys sent left a line at the shell's prompt that has not run (\"sleep 1\")"
            )),
            "{r:?}"
        );
        // Erased, nothing of it runs.
        sh.send_raw("\u{15}", false).await;
        let r = sh.send("echo after").await;
        assert!(r.viewport.ends_with("after\ndsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

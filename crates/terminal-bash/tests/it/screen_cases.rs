//! Field cases about screen-to-text fidelity (clears, TABs, binary output) against real bash,
//! named after their ids.

use dsh_terminal_core::{BackendSession, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, newest_lines, unique_id, wait_until, within};

mod huge;
mod rewrites;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28: a clear never drops or trims text printed during the send.
async fn c28_clear_keeps_every_line_of_the_send_in_order() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("clear; echo hello world; echo second line").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport.ends_with("hello world\nsecond line\ndsh> "),
            "{:?}",
            r.viewport
        );
        let r = sh.send("echo before; clear; echo after").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport.ends_with("\nbefore\nafter\ndsh> "),
            "{:?}",
            r.viewport
        );
        // Other ways to clear the screen keep the send's lines too: erase above from the last
        // row (ED 1), a selective erase (DECSED).
        for clear in [r"\033[40;1H\033[1J\033[H", r"\033[?2J\033[H"] {
            let r = sh
                .send(&format!(
                    "printf 'u1\\nu2\\n'; printf '{clear}'; echo after"
                ))
                .await;
            assert!(
                r.viewport.contains("\nu1\nu2\n") && r.viewport.ends_with("\nafter\ndsh> "),
                "{clear}: {:?}",
                r.viewport
            );
        }
        // What was on screen before the clears is still paged, in order.
        let page = newest_lines(&sh, 100);
        let hello = page.text.find("hello world\nsecond line");
        let before = page.text.find("before\n");
        assert!(
            hello.is_some() && before.is_some() && hello < before,
            "{:?}",
            page.text
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28, the same kind: a scroll region and a full-screen redraw over the send.
async fn c28_scroll_regions_and_redraws_keep_printed_lines() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                r"clear; printf '\033[1;5r\033[1;1H'; for i in 1 2 3 4 5 6 7 8 9; do echo region-$i; done; printf '\033[r\033[H\033[2J'; echo redrawn",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut at = 0;
        for i in 1..=9 {
            let line = format!("region-{i}\n");
            let found = r.viewport[at..].find(&line);
            assert!(found.is_some(), "{line:?} in order in {:?}", r.viewport);
            at += found.unwrap_or(0) + line.len();
        }
        assert!(r.viewport.ends_with("redrawn\ndsh> "), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

/// Text a program printed with the hidden attribute (SGR 8) on shows as blanks, as on a
/// terminal, and the result says so; left on, the attribute ends at the prompt, so the
/// prompt, the next command's echo and its output are text again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concealed_text_is_said_to_be_there_and_ends_at_the_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        for (leave, close) in [
            (r"printf 'ok \033[8msecret\n'", ""),
            (r"printf 'ok \033[1;8;31msecret\033[28m shown\n'", " shown"),
            (
                r"tput invis 2>/dev/null || printf '\033[8m'; echo secret",
                "",
            ),
        ] {
            let r = sh.send(leave).await;
            assert_eq!(r.exit_code, Some(0), "{leave}: {r:?}");
            assert!(
                r.viewport.lines().skip(1).all(|l| !l.contains("secret")),
                "{leave}: {r:?}"
            );
            assert!(
                r.notices
                    .iter()
                    .any(|n| n.starts_with("[screen: the output printed 6 characters concealed")),
                "{leave}: {r:?}"
            );
            if !close.is_empty() {
                assert!(r.viewport.contains(close), "{leave}: {r:?}");
            }
            let r = sh.send("echo visible-$((6*7))").await;
            assert!(
                r.viewport.lines().any(|l| l == "visible-42"),
                "{leave}: {r:?}"
            );
            assert!(
                r.viewport.contains("echo visible-$((6*7))"),
                "{leave}: {r:?}"
            );
            assert!(r.viewport.ends_with("dsh> "), "{leave}: {r:?}");
            assert!(r.notices.is_empty(), "{leave}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A curses menu marks its selected item in reverse video only: each result quotes the
/// highlighted item, so the selection and its moves show; back at the prompt, nothing is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_menus_highlighted_item_is_quoted_as_the_selection_moves() {
    let dir = TempDir::new("menu");
    let menu = dir.0.join("menu.py");
    std::fs::write(
        &menu,
        "import curses\n\
         items = ['Install', 'Upgrade', 'Remove', 'Quit']\n\
         def main(s):\n\
         \x20   curses.curs_set(0)\n\
         \x20   sel = 0\n\
         \x20   while True:\n\
         \x20       s.clear()\n\
         \x20       s.addstr(0, 0, 'Choose an action:')\n\
         \x20       for i, it in enumerate(items):\n\
         \x20           s.addstr(2 + i, 2, it, curses.A_REVERSE if i == sel else curses.A_NORMAL)\n\
         \x20       s.refresh()\n\
         \x20       k = s.getch()\n\
         \x20       if k == curses.KEY_DOWN: sel = (sel + 1) % len(items)\n\
         \x20       elif k in (10, 13): return items[sel]\n\
         print('chose', curses.wrapper(main))\n",
    )
    .unwrap();
    within(async {
        let sh = Shell::open(config()).await;
        let highlighted = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .find(|n| n.starts_with("[screen: text shown highlighted"))
                .cloned()
        };
        let r = sh.send(&format!("python3 '{}'", menu.display())).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let notice = highlighted(&r).unwrap_or_else(|| panic!("no highlight notice: {r:?}"));
        assert!(notice.contains(r#": row 3 "Install" ("#), "{notice}");
        // Two Down arrows: the viewport reads as before, the notice names the new item.
        let r = sh.send_raw("\u{1b}[B\u{1b}[B", false).await;
        assert!(
            r.viewport
                .contains("  Install\n  Upgrade\n  Remove\n  Quit"),
            "{r:?}"
        );
        let notice = highlighted(&r).unwrap_or_else(|| panic!("no highlight notice: {r:?}"));
        assert!(notice.contains(r#": row 5 "Remove" ("#), "{notice}");
        assert!(!notice.contains("Install"), "{notice}");
        let r = sh.send_raw("\r", false).await;
        assert!(r.viewport.contains("chose Remove"), "{r:?}");
        assert_eq!(highlighted(&r), None, "{r:?}");
        // Output in reverse video on the main screen is quoted too; the prompt after it is not
        // (nor a prompt in reverse video, see the screen's unit tests).
        let r = sh.send(r"printf 'plain \033[7mmarked\033[m plain\n'").await;
        let notice = highlighted(&r).unwrap_or_else(|| panic!("no highlight notice: {r:?}"));
        assert!(
            notice.contains(r#""marked" in "plain marked plain""#),
            "{notice}"
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C29: TABs the program wrote come back as TABs.
async fn c29_tabs_come_back_as_tabs_in_results_and_pages() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = std::env::temp_dir().join(format!("dsh-c29-{}", unique_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("t.txt");
        let r = sh
            .send(&format!(
                r"printf 'all:\n\techo built\nname\tqty\nwidget\t3\n' > '{0}'; cat '{0}'",
                file.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport
                .ends_with("\nall:\n\techo built\nname\tqty\nwidget\t3\ndsh> "),
            "{:?}",
            r.viewport
        );
        // Pages keep them too, also once the rows scrolled into history.
        let r = sh.send("seq 1 100").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let page = newest_lines(&sh, 500);
        assert!(
            page.text
                .contains("all:\n\techo built\nname\tqty\nwidget\t3\n"),
            "{:?}",
            page.text
        );
        // TSV rows that reach the right edge (the default 160 columns) keep every field.
        let rows: Vec<String> = (140..160)
            .map(|lead| format!("{}\tB\t\tC\tDD", "x".repeat(lead)))
            .collect();
        std::fs::write(&file, rows.join("\n") + "\n").unwrap();
        let r = sh.send(&format!("cat '{}'", file.display())).await;
        for row in &rows {
            assert!(r.viewport.lines().any(|l| l == row), "{row:?}: {r:?}");
        }
        // Colour output that erases to the line's end after each match (grep's) keeps them.
        std::fs::write(&file, "id\tname\tcity\n1\tfoo\tparis\n").unwrap();
        let r = sh
            .send(&format!("grep --color=always -H foo '{}'", file.display()))
            .await;
        let want = format!("{}:1\tfoo\tparis", file.display());
        assert!(r.viewport.lines().any(|l| l == want), "{r:?}");
        // Under a program's own tab stops a TAB moves to them and still comes back as a TAB
        // (a later write over its cells makes them plain cells); `tabs -8` after.
        let r = sh
            .send(r"tabs -4; printf 'a\tb\tc\033[3Dxy\n'; tabs -8; printf 'c\td\n'")
            .await;
        assert!(r.viewport.lines().any(|l| l == "a\tb xyc"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "c\td"), "{r:?}");
        let r = sh.send(r"tabs 4; printf 'all:\n\techo hi\n'").await;
        assert!(r.viewport.lines().any(|l| l == "\techo hi"), "{r:?}");
        sh.send("tabs 8").await;
        let _ = std::fs::remove_dir_all(&dir);
        sh.close().await;
    })
    .await;
}

/// A line of wide characters longer than the screen: where a wide character does not fit in
/// a row's last column it starts the next row, and the line still comes back whole, in the
/// result and in pages once it scrolled into history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_of_wide_characters_comes_back_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let cols = usize::from(config().cols);
        // One column short of the row, then wide characters: the first cannot fit there.
        let line = format!("{}{}", "a".repeat(cols - 1), "日本語".repeat(40));
        let r = sh
            .send(&format!(
                "printf 'a%.0s' $(seq 1 {}); for i in $(seq 1 40); do printf '日本語'; done; echo",
                cols - 1
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == line), "{:?}", r.viewport);
        let r = sh.send("seq 1 100").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let page = newest_lines(&sh, 500);
        assert!(page.text.lines().any(|l| l == line), "{:?}", page.text);
        sh.close().await;
    })
    .await;
}

/// Zero-width characters after the character in a row's last column (the cursor waiting to
/// wrap) stay with it, as on a terminal: an emoji presentation selector (U+FE0F), alone, before
/// a joiner or a keycap mark, or ending the line, a combining accent, and a selector after a
/// wide character in the last two columns. Each line comes back whole, in the result and in
/// pages once it scrolled into history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_width_characters_after_the_last_column_stay_with_its_character() {
    within(async {
        let sh = Shell::open(config()).await;
        let cols = usize::from(config().cols);
        // The columns filled before the character, and the character with what follows it.
        let cases = [
            (cols - 1, "\u{2764}\u{fe0f}X"),
            (cols - 1, "\u{263a}\u{fe0f}X"),
            (cols - 1, "\u{2764}\u{fe0f}\u{200d}\u{1f525}X"),
            (cols - 1, "1\u{fe0f}\u{20e3}X"),
            (cols - 1, "\u{2764}\u{fe0f}"),
            (cols - 1, "e\u{301}X"),
            (cols - 2, "\u{4e2d}\u{fe0f}X"),
        ];
        let mut lines = Vec::new();
        for (before, tail) in cases {
            let line = format!("{}{tail}", "a".repeat(before));
            let r = sh
                .send(&format!(
                    "printf 'a%.0s' $(seq 1 {before}); printf '%s\\n' '{tail}'"
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert!(
                r.viewport.lines().any(|l| l == line),
                "{line:?} in {:?}",
                r.viewport
            );
            lines.push(line);
        }
        let r = sh.send("seq 1 100").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let page = newest_lines(&sh, 500);
        for line in &lines {
            assert!(
                page.text.lines().any(|l| l == line),
                "{line:?} in {:?}",
                page.text
            );
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28, the same kind: a scroll region below a status line (a top margin), and
/// one ending above the bottom row; every line printed in it reaches the result in order.
async fn c28_regions_with_margins_keep_every_printed_line() {
    within(async {
        let sh = Shell::open(config()).await;
        for (region, bottom) in [("2;24", 24), ("3;18", 18), ("1;20", 20)] {
            let r = sh
                .send(&format!(
                    r"printf '\033[H\033[2Jstatus: building\033[{region}r\033[{bottom};1H'; for i in $(seq 1 80); do echo row-$i; done; printf 'a%.0s' $(seq 1 150); echo; printf '\033[r\033[24;1H'; echo finished"
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{region}: {r:?}");
            let mut at = 0;
            for i in 1..=80 {
                let line = format!("\nrow-{i}\n");
                let found = r.viewport[at..].find(&line);
                assert!(found.is_some(), "{region}: {line:?} in order in {:?}", r.viewport);
                at += found.unwrap_or(0) + line.len() - 1;
            }
            assert!(r.viewport.contains(&"a".repeat(150)), "{region}: {:?}", r.viewport);
            assert!(r.viewport.contains("status: building"), "{region}: {:?}", r.viewport);
            assert!(r.viewport.ends_with("finished\ndsh> "), "{region}: {:?}", r.viewport);
            let page = newest_lines(&sh, 500);
            assert!(page.text.contains("\nrow-1\nrow-2\n"), "{region}: {:?}", page.text);
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28, the same kind: a region with a top margin left set (a program killed
/// before it reset it; DECSTBM homes the cursor). The rows above it stay on screen while
/// later commands scroll the region, and never show in their results.
async fn c28_rows_above_a_region_left_set_stay_out_of_later_results() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("clear; echo TOP-A; echo TOP-B").await;
        sh.send(r"printf '\033[4;8r'; echo set-region").await;
        sh.send("echo C1; echo C2").await;
        for first in [1, 11, 21] {
            let command = format!("seq {first} {}", first + 8);
            let r = sh.send(&command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let lines: Vec<String> = (first..first + 9).map(|n| n.to_string()).collect();
            assert_eq!(
                r.viewport,
                format!("{command}\n{}\ndsh> ", lines.join("\n")),
                "{command}"
            );
        }
        sh.send(r"printf '\033[r'").await;
        // An earlier command's lines that a region in the middle of the screen scrolls away
        // are gone, as on a terminal, not spliced into the scrollback out of order.
        sh.send("clear; seq 1 60").await;
        let r = sh
            .send(
                r#"printf '\033[30;38r\033[38;1H'; for i in 1 2 3 4 5; do echo "mid$i"; done; printf '\033[r\033[40;1H'; echo out"#,
            )
            .await;
        assert!(
            r.viewport.contains("mid1\nmid2\nmid3\nmid4\nmid5\n") && r.viewport.ends_with("\nout\ndsh> "),
            "{:?}",
            r.viewport
        );
        let page = newest_lines(&sh, 200).text;
        let run: Vec<String> = (20..=40).map(|n| n.to_string()).collect();
        assert!(page.contains(&format!("\n{}\n", run.join("\n"))), "{page:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field cases C28, C29 and C37 with other inputs of the same kinds: a clear without a home
/// move and a full reset keep earlier lines; TABs at odd columns; an executable is binary
/// while base64 text is not.
async fn screen_cases_hold_for_other_inputs_of_their_kinds() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send(r"printf 'one\ntwo\n\033[2J'; echo three").await;
        assert!(r.viewport.contains("one\ntwo\n"), "{:?}", r.viewport);
        assert!(r.viewport.ends_with("three\ndsh> "), "{:?}", r.viewport);
        let r = sh.send(r"printf 'x-before\n\033c'; echo after-reset").await;
        assert!(r.viewport.contains("x-before\n"), "{:?}", r.viewport);
        assert!(
            r.viewport.ends_with("after-reset\ndsh> "),
            "{:?}",
            r.viewport
        );
        let r = sh.send(r"printf '1234567\tX\nab\t\tY\n'").await;
        assert!(
            r.viewport.ends_with("\n1234567\tX\nab\t\tY\ndsh> "),
            "{:?}",
            r.viewport
        );
        let r = sh.send("cat \"$(type -P ls)\"").await;
        assert!(
            r.viewport.contains("bytes of binary output suppressed"),
            "{:?}",
            r.viewport
        );
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh
            .send("head -c 3000 /dev/zero | base64 -w 0 | head -c 2000; echo")
            .await;
        assert!(r.viewport.contains(&"A".repeat(1000)), "{:?}", r.viewport);
        assert!(!r.viewport.contains("suppressed"), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

/// A file cut off inside an OSC 8 hyperlink, or a stray title introducer, leaves an OSC the
/// program never ended: the output after it, of the same command and the next ones, still
/// shows (the OSC ends at the line end) and the exit status comes back; the result quotes
/// the text the string hid (the rest of its line), which showed nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_after_an_unterminated_osc_is_shown() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("osc");
        let log = dir.0.join("trunc.log");
        std::fs::write(
            &log,
            "start of log\n\x1b]8;;http://example.com/very/long/lin",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let r = sh
            .send(&format!(
                "cat {}; echo; echo 'ERROR: disk full'; false",
                log.display()
            ))
            .await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.viewport.contains("\nstart of log\n"), "{r:?}");
        assert!(r.viewport.contains("\nERROR: disk full\n"), "{r:?}");
        let hid = |r: &dsh_terminal_core::SendResult, text: &str| {
            r.notices.iter().any(|n| {
                n.starts_with("[screen: the output began an escape string") && n.contains(text)
            })
        };
        assert!(hid(&r, "example.com/very/long/lin"), "{r:?}");
        // The rest of the line is the OSC's payload (a terminal takes it as the title too).
        let r = sh
            .send("printf '\\033]0;title'; echo IN-TITLE; seq 1 3")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.ends_with("\n1\n2\n3\ndsh> "), "{r:?}");
        assert!(hid(&r, "0;titleIN-TITLE"), "{r:?}");
        // So does a DCS, SOS, PM or APC string left open (a breaker's).
        for opener in ["\\eP", "\\e_", "\\e^", "\\eX"] {
            let r = sh
                .send(&format!(
                    "printf 'start{opener}'; seq 1 5; echo 'ERROR found'"
                ))
                .await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(
                r.viewport.ends_with("\n2\n3\n4\n5\nERROR found\ndsh> "),
                "{opener}: {r:?}"
            );
            assert!(hid(&r, "\"1\""), "{opener}: {r:?}");
        }
        // A string that ends hides nothing the result must name.
        let r = sh.send("printf '\\e]0;title\\a\\eP$q\\e\\\\ok\\n'").await;
        assert!(r.viewport.contains("\nok\n"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .all(|n| !n.starts_with("[screen: the output began")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Output that moves the cursor up above lines it wrote (and lines earlier results showed):
/// the prompt comes back on a row of its own below them (not drawn over them, nor above them),
/// and the next command's output is written on fresh rows, with no older text mixed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_after_output_moved_up_comes_below_the_text_left_there() {
    within(async {
        let sh = Shell::open(config()).await;
        let mixed = |r: &dsh_terminal_core::SendResult| {
            r.notices.iter().any(|n| n.starts_with("[screen: "))
        };
        sh.send("echo alpha-line; echo beta-line").await;
        sh.send("echo gamma-line").await;
        let r = sh.send(r"printf '\033[5A'; echo UP").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // What the output wrote over an earlier line shows as the screen does.
        assert!(r.viewport.starts_with("UPpha-line\n"), "{r:?}");
        assert!(r.viewport.ends_with("\ndsh> "), "{r:?}");
        let r = sh.send("echo plain; echo $?").await;
        assert_eq!(r.viewport, "echo plain; echo $?\nplain\n0\ndsh> ", "{r:?}");
        assert!(!mixed(&r), "{r:?}");
        // A carriage return ending the output: the prompt does not overwrite the line.
        let r = sh.send(r"printf 'value=42\r'").await;
        assert!(r.viewport.contains("\nvalue=42\ndsh> "), "{r:?}");
        // A jump home: every later line is the later command's own.
        for _ in 0..3 {
            sh.send("seq 1 30 | sed 's/$/ passed in 0.50s/'").await;
        }
        sh.send("tput cup 0 0").await;
        let r = sh.send("echo 7; printf 'x\\ty\\n'").await;
        assert_eq!(
            r.viewport, "echo 7; printf 'x\\ty\\n'\n7\nx\ty\ndsh> ",
            "{r:?}"
        );
        assert!(!mixed(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

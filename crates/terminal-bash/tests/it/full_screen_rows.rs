//! A full-screen program's screen comes back one line per screen row: rows vim drew as one
//! wrapped line and later redrew apart (`:set nowrap`, `$`, a split window) are never joined.

use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::InputMode;
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, installed, within};

/// The screen's width in the test.
const COLS: u16 = 160;

/// The screen rows of a result on the alternate screen, from the first that starts with `L`.
fn rows_from_the_text(viewport: &str) -> Vec<String> {
    let first = viewport
        .lines()
        .position(|l| l.starts_with('L'))
        .unwrap_or_else(|| panic!("no row of the file's first line: {viewport:?}"));
    viewport.lines().skip(first).map(str::to_owned).collect()
}

/// vim on a file whose first line is 400 characters, on a screen 160 columns wide: wrapped,
/// the line fills three rows and comes back as those rows; after `:set nowrap` the first row
/// is that line's first 160 characters and the next row the file's second line (the first
/// row's wrap flag is left from the earlier draw); after `$`, and after `0` and `:vsplit`, no
/// row is longer than the screen, and the split's rows hold both windows' text of one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vim_rows_come_back_one_line_per_screen_row() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): not exercised");
        return;
    }
    // Removed on drop, also when the test fails.
    let temp = TempDir::new("vim-rows");
    let file = temp.0.join("long.txt");
    std::fs::write(&file, format!("{}\nshort\n", "L".repeat(400))).unwrap();
    within(async {
        let sh = Shell::open(BashConfig {
            cols: COLS,
            ..config()
        })
        .await;
        let cols = usize::from(COLS);
        let fits = |rows: &[String]| rows.iter().all(|r| r.chars().count() <= cols);
        let r = sh
            .send(&format!("vim --clean -i NONE '{}'", file.display()))
            .await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        let rows = rows_from_the_text(&r.viewport);
        assert_eq!(
            rows[..4],
            [
                "L".repeat(cols),
                "L".repeat(cols),
                "L".repeat(400 - 2 * cols),
                "short".to_owned()
            ],
            "{r:?}"
        );
        let r = sh.send(":set nowrap").await;
        let rows = rows_from_the_text(&r.viewport);
        assert_eq!(rows[..2], ["L".repeat(cols), "short".to_owned()], "{r:?}");
        assert!(rows[2..].iter().all(|row| !row.contains('L')), "{r:?}");
        assert!(fits(&rows), "{r:?}");
        let r = sh.send_raw("$", false).await;
        assert!(
            fits(&r.viewport.lines().map(str::to_owned).collect::<Vec<_>>()),
            "{r:?}"
        );
        assert!(r.viewport.lines().any(|l| l.trim_end() == "~"), "{r:?}");
        // Back to the line's start, so both windows show the second line from its start.
        sh.send_raw("0", false).await;
        let r = sh.send(":vsplit").await;
        let lines: Vec<String> = r.viewport.lines().map(str::to_owned).collect();
        assert!(fits(&lines), "{r:?}");
        assert!(
            lines.iter().any(|l| l.matches("short").count() == 2),
            "{r:?}"
        );
        let r = sh.send(":qa!").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        sh.close().await;
    })
    .await;
}

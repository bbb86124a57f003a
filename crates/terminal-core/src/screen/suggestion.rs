//! A line editor's suggestion: text a REPL or shell draws in grey (or faint) after the cursor
//! (IPython's, fish's and zsh-autosuggestions' completion from history, node's completion of a
//! name) or on the rows below it (node's preview of the value), which is not on the input
//! line: Enter leaves it out. A model cannot tell grey text from typed text (`print(1` read as
//! `print(12345)`, `Math.max(3, 9)` followed by its preview `9` read as a statement that ran),
//! so results show the typed text only. Not on the alternate screen, where a full-screen
//! program's grey text is what it shows.

/// Whether `color` is a grey that suggestions are drawn in: bright black (SGR 90), the
/// 256-color palette's grey ramp or the greys of its color cube, or an RGB grey, but neither
/// near black nor near white (text that is meant to be read).
fn suggestion_grey(color: vt100::Color) -> bool {
    let mid_grey = |level: u8| (0x40..=0xc0).contains(&level);
    match color {
        vt100::Color::Idx(8) => true,
        // The grey ramp 232 (0x08) ..= 255 (0xee), 10 levels apart.
        vt100::Color::Idx(n @ 232..=255) => mid_grey(8 + (n - 232) * 10),
        // The color cube's greys: equal red, green and blue levels (0, 0x5f, 0x87, 0xaf, …).
        vt100::Color::Idx(n @ 16..=231) => {
            let i = n - 16;
            let (r, g, b) = (i / 36, (i / 6) % 6, i % 6);
            r == g && g == b && (1..=3).contains(&r)
        }
        vt100::Color::Rgb(r, g, b) => r == g && g == b && mid_grey(r),
        _ => false,
    }
}

/// Whether row `row` of `screen`, from column `col` to `cols`, holds text and all of it is
/// drawn as a suggestion (grey or faint); blank cells may sit between.
pub(super) fn only_suggestion_from(screen: &vt100::Screen, row: u16, col: u16, cols: u16) -> bool {
    let mut any = false;
    for c in col..cols {
        let Some(cell) = screen.cell(row, c) else {
            break;
        };
        if !cell.has_contents() || cell.contents().trim().is_empty() {
            continue;
        }
        if !(cell.dim() || suggestion_grey(cell.fgcolor())) || cell.inverse() {
            return false;
        }
        any = true;
    }
    any
}

/// Whether the text before the cursor on its row (`before`) ends with keys typed after a
/// prompt (`> Math.ma`, `In [2]: wxyz_`), rather than with the prompt itself (`Port: `,
/// `? Project name: › `), after which grey text is the prompt's default, not a suggestion.
pub(super) fn typed_after_prompt(before: &str) -> bool {
    before.trim_end().chars().last().is_some_and(|c| {
        !matches!(
            c,
            ':' | '>' | '?' | '$' | '#' | '%' | ']' | ')' | '›' | '❯' | '»'
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen_after(bytes: &[u8]) -> vt100::Parser {
        let size = |n| std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN);
        let mut parser = vt100::Parser::new(size(4), size(40), 0);
        parser.process(bytes);
        parser
    }

    #[test]
    fn grey_or_faint_text_after_a_column_is_a_suggestion() {
        // IPython's suggestion from history (256-color grey 241), node's (bright black).
        let ipython = screen_after(b"In [2]: print(1\x1b[0;38;5;241m2345)\x1b[5D");
        assert!(only_suggestion_from(ipython.screen(), 0, 15, 40));
        assert!(
            !only_suggestion_from(ipython.screen(), 0, 0, 40),
            "typed text"
        );
        let node = screen_after(b"> Math.ma\x1b[90mx\x1b[39m\r\n\x1b[90m[Function: max]\x1b[39m");
        assert!(only_suggestion_from(node.screen(), 0, 9, 40));
        assert!(only_suggestion_from(node.screen(), 1, 0, 40));
        let faint = screen_after(b"$ ls\x1b[2m -la\x1b[22m");
        assert!(only_suggestion_from(faint.screen(), 0, 4, 40));
    }

    #[test]
    fn other_text_is_not() {
        let plain = screen_after(b"$ ls -la");
        assert!(!only_suggestion_from(plain.screen(), 0, 4, 40));
        assert!(
            !only_suggestion_from(plain.screen(), 1, 0, 40),
            "a blank row"
        );
        let red = screen_after(b"$ x\x1b[31m error\x1b[0m");
        assert!(!only_suggestion_from(red.screen(), 0, 3, 40));
        let mixed = screen_after(b"$ x\x1b[90m grey\x1b[0m plain");
        assert!(!only_suggestion_from(mixed.screen(), 0, 3, 40));
        let white = screen_after(b"$ x\x1b[38;5;255m white");
        assert!(!only_suggestion_from(white.screen(), 0, 3, 40));
    }
}

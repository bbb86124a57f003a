//! Rows a scroll region that is not the whole screen scrolls away.
//!
//! The emulator moves a row into history only when it scrolls off the top of the screen; a
//! region below a status line (DECSTBM with a top margin) drops its top row instead, and a
//! program printing there would lose every line that scrolled. While a region is set on the
//! main screen, the screen stops right before each byte or sequence that can scroll it (a
//! line feed, IND or NEL on its bottom row, a character that wraps there, `CSI S`, `CSI M` at
//! a top margin) and moves the rows about to go into history first; a region from the top
//! row has them moved by the emulator. Anchors follow the rows (a send whose start scrolled
//! away still starts there; the rows below a region are numbered after the rows it moved into
//! history), so every line a program printed reaches the result in order; the rows above the
//! region show after them.

use super::Screen;
use super::row_moves::RowMap;
use super::row_text::{row_continues, visible_rows_text};
use super::scan::Sequence;

/// A main-screen scroll region that is not the whole screen: rows `top..=bottom` (zero-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Region {
    pub(super) top: u16,
    pub(super) bottom: u16,
}

impl Region {
    /// The region DECSTBM `seq` sets on a screen of `rows` rows, when it is not the whole
    /// screen (as the emulator reads the parameters: 0 means the default, and a top not above
    /// the bottom resets the region).
    pub(super) fn from_decstbm(seq: Sequence, rows: u16) -> Option<Self> {
        let top = seq.first_param.max(1) - 1;
        let bottom = match seq.second_param {
            0 => rows,
            b => b.min(rows),
        }
        .saturating_sub(1);
        (top < bottom && (top > 0 || bottom + 1 < rows)).then_some(Self { top, bottom })
    }
}

impl Screen {
    /// Called with each ground-state text byte `b` (at `bytes[i]`) while a region is set,
    /// with everything before `seg_start` already emulated; emulates up to `i` and saves the
    /// region's top row when `b` is about to scroll it. `col_bound` is an upper bound of the
    /// cursor column (`None`: unknown), kept so the emulator is stopped about once a line.
    pub(super) fn before_region_text(
        &mut self,
        bytes: &[u8],
        i: usize,
        seg_start: &mut usize,
        col_bound: &mut Option<u16>,
    ) {
        let Some(region) = self.region.filter(|_| !self.alternate) else {
            return;
        };
        let b = bytes[i];
        let cols = self.config.cols;
        let width = match b {
            b'\r' => {
                *col_bound = Some(0);
                return;
            }
            b'\t' => {
                *col_bound = col_bound.map(|c| ((c / 8 + 1) * 8).min(cols.saturating_sub(1)));
                return;
            }
            0x08 => return,
            b'\n' | 0x0b | 0x0c => 0,
            // UTF-8 continuation bytes belong to the character before.
            0x80..=0xbf => return,
            _ => match char_width(&bytes[i..]) {
                // A combining mark never moves the cursor.
                0 => return,
                w => w,
            },
        };
        let may_wrap = width > 0
            && self.modes & super::feed::modes::NO_WRAP == 0
            && col_bound.is_none_or(|c| c.saturating_add(2) > cols);
        if width > 0 && !may_wrap {
            *col_bound = col_bound.map(|c| c.saturating_add(width));
            return;
        }
        self.emulate(&bytes[*seg_start..i]);
        *seg_start = i;
        let (row, col) = self.parser.screen().cursor_position();
        let scrolls = row == region.bottom && (width == 0 || col.saturating_add(width) > cols);
        if scrolls {
            self.save_region_rows(region, 1);
        }
        *col_bound = Some(if width > 0 && col.saturating_add(width) > cols {
            width
        } else {
            col.saturating_add(width)
        });
    }

    /// Called right before the final byte of `seq` is emulated (everything before it is):
    /// saves the rows the sequence scrolls out of the region; returns how rows moved.
    pub(super) fn before_region_sequence(&mut self, seq: Sequence) -> Option<RowMap> {
        let region = self.region.filter(|_| !self.alternate)?;
        let (row, _) = self.parser.screen().cursor_position();
        let count = seq.first_param.max(1);
        match (seq.csi, seq.private, seq.final_byte) {
            // SU: the region scrolls up.
            (true, None, b'S') => self.save_region_rows(region, count),
            // DL at a top margin: the same as scrolling the region up.
            (true, None, b'M') if row == region.top && region.top > 0 => {
                self.save_region_rows(region, count)
            }
            // IND and NEL on the region's bottom row scroll it as a line feed does.
            (false, None, b'D' | b'E') if seq.intermediate.is_none() && row == region.bottom => {
                self.save_region_rows(region, 1)
            }
            _ => None,
        }
    }

    /// Moves the first `count` rows of the region into history (they are about to scroll
    /// away; the emulator moves them itself from a region at the top row) and moves what
    /// refers to rows by number so each still points at its row ([`RowMap::Scrolled`]).
    fn save_region_rows(&mut self, region: Region, count: u16) -> Option<RowMap> {
        let end = region.top.saturating_add(count).min(region.bottom + 1);
        if region.top >= end {
            return None;
        }
        let first = self.history().end_abs();
        // Rows above every anchor and above the row the current segment's text started on
        // hold nothing a render or a read still owes (a render starts at its anchor, and
        // output written above one moves it up there when its segment ends): a region with a
        // top margin drops them, as a terminal does, instead of keeping them in history,
        // where an earlier command's lines would be spliced out of order into the transcript.
        let owed_from = self
            .anchors
            .iter()
            .flatten()
            .filter(|a| !a.pending_main)
            .map(|a| a.pos.row)
            .min()
            .map(|row| row.min(self.segment_row));
        if region.top > 0 && owed_from.is_some_and(|row| row >= first + u64::from(end)) {
            for r in region.top..end {
                self.parser.callbacks_mut().tabs_main.take_row(r);
            }
            let map = RowMap::Within {
                from: first + u64::from(region.top),
                bottom: first + u64::from(region.bottom),
                shift: -i64::from(end - region.top),
            };
            self.apply_row_map(map);
            return Some(map);
        }
        if region.top > 0 {
            let texts = {
                let tabs = &self.parser.callbacks().tabs_main;
                visible_rows_text(self.parser.screen(), |r| tabs.row(r), self.config.cols)
            };
            for (r, text) in (region.top..end).zip(texts.into_iter().skip(usize::from(region.top)))
            {
                self.parser.callbacks_mut().tabs_main.take_row(r);
                let wrapped = row_continues(self.parser.screen(), r, self.config.cols);
                self.parser.callbacks_mut().history.push_row(&text, wrapped);
            }
        }
        let map = RowMap::Scrolled {
            first,
            top: first + u64::from(region.top),
            bottom: first + u64::from(region.bottom),
            n: u64::from(end - region.top),
        };
        self.apply_row_map(map);
        Some(map)
    }
}

/// Cells the character starting at `bytes[0]` takes (1 when it cannot be decoded yet).
pub(super) fn char_width(bytes: &[u8]) -> u16 {
    use unicode_width::UnicodeWidthChar as _;
    if bytes[0] < 0x80 {
        return 1;
    }
    let len = bytes.len().min(4);
    (1..=len)
        .find_map(|n| std::str::from_utf8(&bytes[..n]).ok())
        .and_then(|s| s.chars().next())
        .and_then(|c| c.width())
        .map_or(1, |w| u16::try_from(w.min(2)).unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::Screen;

    fn screen() -> Screen {
        super::super::tests::plain_screen()
    }

    /// Every line printed in a scroll region reaches the render in order, whatever its margins.
    #[test]
    fn c28_lines_scrolled_out_of_a_region_with_margins_are_kept() {
        // (DECSTBM, its bottom row)
        let regions: &[(&[u8], u16)] = &[
            (b"\x1b[2;24r", 24), // status line at the top
            (b"\x1b[3;20r", 20), // both margins
            (b"\x1b[1;20r", 20), // region ending above the bottom
            (b"\x1b[5r", 24),    // top margin, default bottom
        ];
        for &(region, bottom) in regions {
            let mut s = screen();
            s.feed(b"$ run\r\n");
            let a = s.anchor();
            s.feed(b"\x1b[H\x1b[2J\x1b[1;1Hstatus: working\x1b[24;1Hbottom bar");
            s.feed(region);
            s.feed(format!("\x1b[{bottom};1H").as_bytes());
            let mut expected = Vec::new();
            for i in 0..60 {
                let line = format!("line-{i}");
                s.feed(format!("{line}\r\n").as_bytes());
                expected.push(line);
            }
            // IND after a carriage return, and NEL, scroll the region as a line feed does.
            for i in 0..30 {
                let (line, end) = if i % 2 == 0 {
                    (format!("ind-{i}"), "\r\x1bD")
                } else {
                    (format!("nel-{i}"), "\x1bE")
                };
                s.feed(format!("{line}{end}").as_bytes());
                expected.push(line);
            }
            // A long line that wraps, and a scroll-up.
            let long = "w".repeat(100);
            s.feed(format!("{long}\r\n").as_bytes());
            s.feed(b"after-wrap\r\n\x1b[3Safter-su\r\n");
            s.feed(b"\x1b[r\x1b[24;1Hdone\r\n");
            let text = s.render_since(a, 1 << 20).text;
            let mut at = 0;
            for line in
                expected
                    .iter()
                    .map(String::as_str)
                    .chain(["after-wrap", "after-su", "done"])
            {
                let found = text[at..].find(line);
                assert!(found.is_some(), "{region:?}: {line:?} in order in {text:?}");
                at += found.unwrap_or(0) + line.len();
            }
            assert!(text.contains(&long), "{region:?}: {text:?}");
            assert!(text.contains("status: working"), "{region:?}: {text:?}");
            let page = s
                .page(Some(0), Some(500), 1 << 20)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                page.text.contains("line-1\nline-2\n"),
                "{region:?}: {:?}",
                page.text
            );
        }
    }

    /// A region with a top margin a program left set (DECSTBM homes the cursor): the rows
    /// above it stay on screen while later commands scroll the region, and are no lines of
    /// their output; a row output rewrites there (a status line) still is.
    #[test]
    fn rows_above_a_region_left_set_are_not_later_output() {
        let mut s = screen();
        s.feed(b"TOP-A\r\nTOP-B\r\n$ printf region\r\n\x1b[4;8r");
        s.feed(b"set-region\r\n$ echo C1\r\nC1\r\nC2\r\n$ ");
        for first in [1, 11, 21] {
            let a = s.anchor();
            let mut out = format!("seq {first}\r\n");
            let mut expected = format!("seq {first}\n");
            for n in first..first + 9 {
                out.push_str(&format!("{n}\r\n"));
                expected.push_str(&format!("{n}\n"));
            }
            s.feed(format!("{out}$ ").as_bytes());
            assert_eq!(s.render_since(a, 100_000).text, format!("{expected}$ "));
        }
        // A status line rewritten above the region during the output shows.
        let a = s.anchor();
        let mut out = String::from("run\r\n");
        for n in 0..9 {
            out.push_str(&format!("step-{n}\r\n"));
        }
        out.push_str("\x1b7\x1b[1;1H\x1b[2Kstatus: done\x1b8$ ");
        s.feed(out.as_bytes());
        let text = s.render_since(a, 100_000).text;
        assert!(text.contains("status: done"), "{text:?}");
        assert!(!text.contains("C1"), "{text:?}");
        assert!(text.starts_with("run\nstep-0\n"), "{text:?}");
    }

    /// Rows of an earlier command that a region with a top margin scrolls away are dropped,
    /// as a terminal drops them, not spliced into the transcript out of order; the send's own
    /// lines scrolled out of the region are kept.
    #[test]
    fn earlier_rows_a_region_scrolls_away_are_dropped() {
        let mut s = screen();
        for n in 1..=40 {
            s.feed(format!("{n}\r\n").as_bytes());
        }
        s.feed(b"$ ");
        let a = s.anchor();
        // Rows 10..=18 hold lines 28..36 of the earlier output; the region scrolls 5 of them
        // away, the screen then shows the rest of them and the send's lines as a terminal does.
        s.feed(b"run\r\n\x1b[10;18r\x1b[18;1H");
        for n in 1..=5 {
            s.feed(format!("\r\nmid{n}").as_bytes());
        }
        s.feed(b"\x1b[r\x1b[24;1H\r\n$ ");
        let kept: Vec<String> = (1..=27)
            .chain(33..=36)
            .map(|n| n.to_string())
            .chain((1..=5).map(|n| format!("mid{n}")))
            .chain((37..=40).map(|n| n.to_string()))
            .collect();
        assert!(
            s.transcript()
                .starts_with(&format!("{}\n$ run\n", kept.join("\n"))),
            "{:?}",
            s.transcript()
        );
        // The send's result has its lines, and none of the dropped ones.
        let result = s.render_since(a, 100_000).text;
        assert!(
            result.contains("mid1\nmid2\nmid3\nmid4\nmid5\n") && !result.contains("28\n"),
            "{result:?}"
        );
    }
}

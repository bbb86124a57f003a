//! A test double of a background job's output window over consuming reads.

use super::*;

/// What a background job's window keeps from consuming reads of anchor `a`: whole lines
/// (each with its `\n`), then the line being written. A read that rewinds takes lines back
/// and the line being written; one that restarts the line replaces it.
#[derive(Default)]
pub(super) struct JobWindow {
    pub(super) lines: Vec<String>,
    carry: String,
}

impl JobWindow {
    pub(super) fn read(&mut self, s: &mut Screen, a: AnchorId) {
        let c = s.consume_since(a, 100_000);
        if c.rewound_lines > 0 {
            self.carry.clear();
            let keep = self
                .lines
                .len()
                .saturating_sub(usize::try_from(c.rewound_lines).unwrap());
            self.lines.truncate(keep);
        }
        if c.restarts_line {
            self.carry.clear();
        }
        for part in c.rows.render(100_000).text.split_inclusive('\n') {
            self.carry.push_str(part);
            if self.carry.ends_with('\n') {
                self.lines.push(std::mem::take(&mut self.carry));
            }
        }
    }

    /// Feeds `pieces` to a new screen of `rows` by `cols`, a consuming read after each, each
    /// read shown to the agent; returns what the window kept.
    pub(super) fn read_each<P: AsRef<str>>(pieces: &[P], rows: u16, cols: u16) -> String {
        let mut s = Screen::new(config(rows, cols), None);
        let a = s.anchor();
        let mut w = Self::default();
        for piece in pieces {
            s.feed(piece.as_ref().as_bytes());
            w.read(&mut s, a);
            s.raise_erased_floor();
        }
        w.text()
    }

    /// Everything kept, the line being written last.
    pub(super) fn text(&self) -> String {
        self.lines.concat() + &self.carry
    }
}

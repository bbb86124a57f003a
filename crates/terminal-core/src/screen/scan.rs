//! A tiny escape-sequence scanner that runs in lock-step with vt100's parser.
//!
//! vt100 renders the screen but reports neither where escape sequences end nor whether a
//! chunk printed anything. This scanner classifies every byte with the same state machine
//! shape as `vte` (ground, escape, CSI, OSC, string), so the [`super::Screen`] can:
//! - split a chunk right after each sequence and look at the cursor there (cursor-up moves,
//!   alternate-screen switches, prompt marks happen only inside sequences);
//! - tell printed text apart from pure control traffic;
//! - bound how many OSC payload bytes reach vt100 (its OSC buffer is otherwise unbounded);
//! - keep the body of a DCS, SOS, PM or APC string from vt100: nothing in it shows, and vte
//!   would end a DCS at a byte 0x9C inside a UTF-8 character (`Ŝ`, `✜`) and print the rest.
//!
//! A divergence from `vte` in some exotic corner only shifts where a chunk is split; the
//! rendered screen always comes from vt100 itself.

/// What one byte was, as seen by the scanner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Printable text or a cursor-moving control (`\n`, `\r`, `\t`, backspace) in ground state.
    Text,
    /// The byte completed an escape sequence. `flush` says whether the screen should look at
    /// the cursor and callbacks right after it (false for SGR, which cannot move anything).
    SequenceEnd {
        /// Whether the sequence may have moved the cursor, switched screens or carried a mark.
        flush: bool,
    },
    /// Inside a sequence, or an ignored control byte.
    Other,
    /// Inside an oversized OSC payload or a DCS, SOS, PM or APC string: do not feed this byte
    /// to the emulator.
    Skip,
    /// A newline or carriage return inside an OSC or a DCS, SOS, PM or APC string: the string
    /// ends here, unterminated (the emulator is to get a CAN first), and the byte is text. A
    /// string a program never ended (a log cut off inside a hyperlink, a stray `ESC ]` or
    /// `ESC P`) would otherwise take in all the output after it, up to the next ESC, and show
    /// none of it. Strings programs send are one line (a title, a hyperlink, a clipboard's
    /// base64, a mark, a terminal query, sixel data, whose own line break is `-`).
    StringAborted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    EscapeIntermediate,
    Csi,
    Osc,
    /// DCS, SOS, PM or APC: skipped until ST (`ESC \`), CAN or SUB.
    Str,
}

/// The last escape sequence the scanner completed, as far as the screen needs to know it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sequence {
    /// `ESC` (`false`: the final byte of an `ESC <final>` sequence) or CSI (`true`).
    pub(crate) csi: bool,
    /// The private-parameter marker of a CSI (`?`, `>`, `<`, `=`), if any.
    pub(crate) private: Option<u8>,
    /// The first intermediate byte (`(` in `ESC ( 0`, the space in `CSI SP q`), if any.
    pub(crate) intermediate: Option<u8>,
    /// The first numeric parameter of a CSI (0 when absent).
    pub(crate) first_param: u16,
    /// The second numeric parameter of a CSI (0 when absent).
    pub(crate) second_param: u16,
    /// Whether the CSI had more than one parameter.
    pub(crate) more_params: bool,
    /// Which of [`DEC_MODES`] were among the CSI's parameters (bit `i` for `DEC_MODES[i]`),
    /// wherever they stood.
    dec_modes: u8,
    /// What an SGR did to the conceal attribute: set it (`Some(true)`), cleared it
    /// (`Some(false)`) or neither (see [`super::conceal::SgrConceal`]); `None` for any other
    /// sequence.
    pub(crate) conceal: Option<bool>,
    /// The final byte (`J` in `CSI 2 J`, `c` in `ESC c`); 0 for OSC and string sequences.
    pub(crate) final_byte: u8,
}

/// The DEC private modes whose presence [`Sequence::has_dec_mode`] tells, among all the
/// parameters of a DECSET or DECRST (`CSI ? 25 ; 1047 l` leaves the alternate screen as
/// `CSI ? 1047 l` does): origin, auto-wrap, the alternate screens, left and right margins.
const DEC_MODES: [u16; 7] = [6, 7, 47, 69, 1047, 1048, 1049];

impl Sequence {
    /// Whether the sequence is a DECSET or DECRST (`CSI ? … h` / `l`) that has `mode` (one of
    /// [`DEC_MODES`]) among its parameters.
    pub(crate) fn has_dec_mode(&self, mode: u16) -> bool {
        self.csi
            && self.private == Some(b'?')
            && DEC_MODES
                .iter()
                .position(|&m| m == mode)
                .is_some_and(|i| self.dec_modes & (1 << i) != 0)
    }
}

/// Incremental scanner; keeps its state across chunks.
#[derive(Clone, Debug)]
pub(crate) struct EscScanner {
    state: State,
    osc_len: usize,
    max_osc_bytes: usize,
    seq: Sequence,
    /// Which CSI parameter the digits belong to (0: the first).
    param_index: u8,
    /// The value of the CSI parameter being read.
    param: u16,
    /// The CSI parameter being read is a sub-parameter (it follows a `:`).
    sub_param: bool,
    /// What the CSI's parameters do to the conceal attribute, were it an SGR.
    sgr: super::conceal::SgrConceal,
    /// The body of the DCS string being scanned, while it is short enough to be a terminal
    /// query (see [`super::dcs_queries`]).
    dcs: Option<Vec<u8>>,
    /// The body of the last DCS string ended by ST, until taken.
    finished_dcs: Option<Vec<u8>>,
    /// The string being scanned: its introducer (`]`, `P`, `X`, `^`, `_`) and the first
    /// [`UNENDED_QUOTED_BYTES`] bytes of its body.
    string: (u8, Vec<u8>),
    /// The first string a line end cut off (see [`Step::StringAborted`]), or an escape
    /// sequence other than ST ended, since the last [`take_unended`](Self::take_unended),
    /// with how many were.
    unended: Option<(UnendedString, u64)>,
    /// An ESC just ended a string: unless ST's `\\` follows, another sequence cut it off.
    string_closing: bool,
}

/// Most bytes of an unended string's body kept to quote.
const UNENDED_QUOTED_BYTES: usize = 160;

/// A string (OSC, DCS, SOS, PM or APC) that a line end cut off: nothing of its body shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnendedString {
    /// What introduced it: `]` (OSC), `P` (DCS), `X` (SOS), `^` (PM) or `_` (APC).
    pub(crate) introducer: u8,
    /// The start of its body (at most [`UNENDED_QUOTED_BYTES`]), as the program wrote it.
    pub(crate) body: Vec<u8>,
}

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

impl EscScanner {
    /// A scanner that lets at most `max_osc_bytes` payload bytes of one OSC through.
    pub(crate) fn new(max_osc_bytes: usize) -> Self {
        Self {
            state: State::Ground,
            osc_len: 0,
            max_osc_bytes,
            seq: Sequence::default(),
            param_index: 0,
            param: 0,
            sub_param: false,
            sgr: super::conceal::SgrConceal::default(),
            dcs: None,
            finished_dcs: None,
            string: (0, Vec::new()),
            unended: None,
            string_closing: false,
        }
    }

    /// The first string a line end cut off since the last call (its body did not show: the
    /// text after an `ESC ]` or `ESC P` a program never ended), and how many were; clears it.
    pub(crate) fn take_unended(&mut self) -> Option<(UnendedString, u64)> {
        self.unended.take()
    }

    fn start_string(&mut self, introducer: u8) {
        self.string.0 = introducer;
        self.string.1.clear();
    }

    fn string_byte(&mut self, b: u8) {
        if self.string.1.len() < UNENDED_QUOTED_BYTES {
            self.string.1.push(b);
        }
    }

    /// The body of the DCS string that ended (with ST) since the last call, when it was short
    /// enough to be a terminal query.
    pub(crate) fn take_finished_dcs(&mut self) -> Option<Vec<u8>> {
        self.finished_dcs.take()
    }

    /// Whether the scanner is outside any sequence.
    pub(crate) fn in_ground(&self) -> bool {
        self.state == State::Ground
    }

    /// The sequence completed by the latest [`Step::SequenceEnd`].
    pub(crate) fn last_sequence(&self) -> Sequence {
        self.seq
    }

    /// Classifies the next byte.
    pub(crate) fn step(&mut self, b: u8) -> Step {
        // A string ended by the ESC of another sequence than ST hid what it took in (a stray
        // `ESC ]` before a prompt's marks); a doubled ESC (tmux's pass-through) is no such end.
        if std::mem::take(&mut self.string_closing) && b != b'\\' && b != ESC {
            self.note_unended();
        }
        match self.state {
            State::Ground => match b {
                ESC => {
                    self.state = State::Escape;
                    self.seq = Sequence::default();
                    Step::Other
                }
                b'\n' | b'\r' | b'\t' | 0x08 | 0x0b | 0x0c => Step::Text,
                0x00..=0x1f | 0x7f => Step::Other,
                _ => Step::Text,
            },
            State::Escape => match b {
                b'[' => {
                    self.state = State::Csi;
                    self.seq.csi = true;
                    self.param_index = 0;
                    self.param = 0;
                    self.sub_param = false;
                    self.sgr = super::conceal::SgrConceal::default();
                    Step::Other
                }
                b']' => {
                    self.state = State::Osc;
                    self.osc_len = 0;
                    self.start_string(b);
                    Step::Other
                }
                b'P' | b'X' | b'^' | b'_' => {
                    self.state = State::Str;
                    self.dcs = (b == b'P').then(Vec::new);
                    self.start_string(b);
                    Step::Other
                }
                // A new ESC starts the sequence over (as in vte).
                ESC => {
                    self.seq = Sequence::default();
                    Step::Other
                }
                CAN | SUB => self.end(true),
                0x20..=0x2f => {
                    self.state = State::EscapeIntermediate;
                    self.seq.intermediate = Some(b);
                    Step::Other
                }
                0x30..=0x7e => {
                    self.seq.final_byte = b;
                    self.end(true)
                }
                _ => Step::Other,
            },
            State::EscapeIntermediate => match b {
                // `ESC ( ESC M` is a reverse index: the second ESC drops the `(`.
                ESC => {
                    self.state = State::Escape;
                    self.seq = Sequence::default();
                    Step::Other
                }
                CAN | SUB => self.end(true),
                0x30..=0x7e => {
                    self.seq.final_byte = b;
                    self.end(true)
                }
                _ => Step::Other,
            },
            State::Csi => match b {
                ESC => {
                    self.state = State::Escape;
                    self.seq = Sequence::default();
                    Step::Other
                }
                CAN | SUB => self.end(true),
                b'0'..=b'9' => {
                    self.param = self
                        .param
                        .saturating_mul(10)
                        .saturating_add(u16::from(b - b'0'));
                    Step::Other
                }
                b';' | b':' => {
                    self.end_param(b == b':');
                    self.param_index = self.param_index.saturating_add(1);
                    self.seq.more_params = true;
                    Step::Other
                }
                b'<'..=b'?' => {
                    self.seq.private = Some(b);
                    Step::Other
                }
                0x20..=0x2f => {
                    self.seq.intermediate.get_or_insert(b);
                    Step::Other
                }
                0x40..=0x7e => {
                    self.end_param(false);
                    self.seq.final_byte = b;
                    if b == b'm' && self.seq.private.is_none() && self.seq.intermediate.is_none() {
                        self.seq.conceal = self.sgr.effect();
                    }
                    self.end(b != b'm')
                }
                _ => Step::Other,
            },
            State::Osc => match b {
                BEL | CAN | SUB => self.end(true),
                // ESC ends the OSC in vte (it dispatches, then parses `ESC \` as a sequence).
                ESC => {
                    self.string_closing = true;
                    self.state = State::Escape;
                    Step::SequenceEnd { flush: true }
                }
                b'\n' | b'\r' => self.abort_string(),
                0x00..=0x1f => Step::Other,
                _ => {
                    self.string_byte(b);
                    self.osc_len += 1;
                    if self.osc_len > self.max_osc_bytes {
                        Step::Skip
                    } else {
                        Step::Other
                    }
                }
            },
            // Unlike an OSC, a DCS, SOS, PM or APC string does not end at BEL (vte, xterm).
            // Its body is not the emulator's: what ends it is (or a line end: see
            // `Step::StringAborted`).
            State::Str => match b {
                ESC => {
                    self.string_closing = true;
                    self.state = State::Escape;
                    self.seq = Sequence::default();
                    self.finished_dcs = self.dcs.take();
                    Step::Other
                }
                CAN | SUB => {
                    self.dcs = None;
                    self.end(true)
                }
                b'\n' | b'\r' => {
                    self.dcs = None;
                    self.abort_string()
                }
                _ => {
                    self.string_byte(b);
                    if let Some(body) = self.dcs.as_mut() {
                        if body.len() < super::dcs_queries::MAX_QUERY_BYTES {
                            body.push(b);
                        } else {
                            self.dcs = None;
                        }
                    }
                    Step::Skip
                }
            },
        }
    }

    /// The CSI parameter just read ends; `sub_follows`: a sub-parameter follows (`:`).
    fn end_param(&mut self, sub_follows: bool) {
        let value = std::mem::take(&mut self.param);
        match self.param_index {
            0 => self.seq.first_param = value,
            1 => self.seq.second_param = value,
            _ => {}
        }
        if let Some(i) = DEC_MODES.iter().position(|&m| m == value) {
            self.seq.dec_modes |= 1 << i;
        }
        if !self.sub_param {
            self.sgr.param(value, sub_follows);
        }
        self.sub_param = sub_follows;
    }

    fn end(&mut self, flush: bool) -> Step {
        self.state = State::Ground;
        Step::SequenceEnd { flush }
    }

    fn abort_string(&mut self) -> Step {
        self.state = State::Ground;
        self.note_unended();
        Step::StringAborted
    }

    /// The string being scanned ended unterminated: its body, unless blank, is noted.
    fn note_unended(&mut self) {
        let body = std::mem::take(&mut self.string.1);
        if !body.iter().all(u8::is_ascii_whitespace) {
            let unended = self.unended.get_or_insert_with(|| {
                let introducer = self.string.0;
                (UnendedString { introducer, body }, 0)
            });
            unended.1 += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(bytes: &[u8]) -> Vec<Step> {
        let mut s = EscScanner::new(8);
        bytes.iter().map(|&b| s.step(b)).collect()
    }

    #[test]
    fn text_and_sgr() {
        let st = steps(b"a\x1b[31mb");
        assert_eq!(st[0], Step::Text);
        assert_eq!(st[5], Step::SequenceEnd { flush: false });
        assert_eq!(st[6], Step::Text);
    }

    #[test]
    fn osc_is_bounded_and_ends_at_bel_or_esc() {
        let st = steps(b"\x1b]0123456789\x07x");
        assert_eq!(
            st.iter().filter(|s| **s == Step::Skip).count(),
            2,
            "payload beyond 8 bytes is skipped"
        );
        assert_eq!(st[12], Step::SequenceEnd { flush: true });
        assert_eq!(st[13], Step::Text);
        let st = steps(b"\x1b]1;t\x1b\\x");
        assert_eq!(st[5], Step::SequenceEnd { flush: true });
        assert_eq!(st[6], Step::SequenceEnd { flush: true });
        assert_eq!(st[7], Step::Text);
    }

    #[test]
    fn a_string_a_line_end_cut_off_keeps_what_it_hid() {
        let mut s = EscScanner::new(8);
        let mut feed = |bytes: &[u8]| {
            for &b in bytes {
                s.step(b);
            }
        };
        // Ended strings and an empty one hide nothing; the first cut-off body is kept, and
        // the later ones counted.
        feed(b"\x1b]0;title\x07\x1bPq\x1b\\\x1b]\nok\n");
        feed(b"\x1bPPRETTY_NAME=x\nnext\n\x1b]2;more\r\n\x1b_apc\n");
        let (first, count) = s.take_unended().expect("cut off");
        assert_eq!(
            (first.introducer, &first.body[..], count),
            (b'P', &b"PRETTY_NAME=x"[..], 3)
        );
        assert_eq!(s.take_unended(), None);
        // A long body is kept up to its first bytes.
        let mut s = EscScanner::new(8);
        for &b in [&b"\x1b]"[..], &[b'x'; 500], b"\n"].concat().iter() {
            s.step(b);
        }
        let (long, _) = s.take_unended().expect("cut off");
        assert_eq!(long.body.len(), UNENDED_QUOTED_BYTES);
        // Ended by another sequence's ESC than ST's (no line end: the output's last line,
        // then a prompt's mark); ST and tmux's doubled ESC end none.
        let mut s = EscScanner::new(8);
        for &b in b"\x1b]0;t\x1b\\\x1bPtmux;\x1b\x1b]52;c;x\x07\x1b\\" {
            s.step(b);
        }
        assert_eq!(s.take_unended(), None);
        for &b in b"abc\x1b]0;hidden\x1b]133;D\x07" {
            s.step(b);
        }
        let (hidden, count) = s.take_unended().expect("cut off");
        assert_eq!(
            (hidden.introducer, &hidden.body[..], count),
            (b']', &b"0;hidden"[..], 1)
        );
    }

    #[test]
    fn sequences_are_described() {
        let mut s = EscScanner::new(8);
        for &b in b"\x1b[2J" {
            s.step(b);
        }
        let seq = s.last_sequence();
        assert!(seq.csi && seq.first_param == 2 && seq.final_byte == b'J');
        for &b in b"\x1b[?1049h" {
            s.step(b);
        }
        let seq = s.last_sequence();
        assert_eq!(
            (seq.private, seq.first_param, seq.final_byte),
            (Some(b'?'), 1049, b'h')
        );
        for &b in b"\x1b[?1;25;1047l" {
            s.step(b);
        }
        let seq = s.last_sequence();
        assert!(seq.has_dec_mode(1047) && !seq.has_dec_mode(47) && !seq.has_dec_mode(1049));
        for &b in b"\x1b[1047l" {
            s.step(b);
        }
        assert!(!s.last_sequence().has_dec_mode(1047), "no DECRST");
        for &b in b"\x1b[3;20r" {
            s.step(b);
        }
        let seq = s.last_sequence();
        assert!(seq.more_params && seq.first_param == 3 && seq.final_byte == b'r');
        assert_eq!(seq.second_param, 20);
        for &b in b"\x1bc" {
            s.step(b);
        }
        let seq = s.last_sequence();
        assert!(!seq.csi && seq.final_byte == b'c');
        assert!(s.in_ground());
    }

    /// A second ESC starts the sequence over: `ESC ( ESC M` ends as a reverse index, not a
    /// character set designation.
    #[test]
    fn an_esc_inside_an_escape_sequence_starts_it_over() {
        for bytes in [&b"\x1b(\x1bM"[..], b"\x1b\x1bM", b"\x1b)\x1b\x1bM"] {
            let mut s = EscScanner::new(8);
            let last = bytes.iter().map(|&b| s.step(b)).last();
            assert_eq!(last, Some(Step::SequenceEnd { flush: true }), "{bytes:?}");
            let seq = s.last_sequence();
            assert!(
                !seq.csi && seq.intermediate.is_none() && seq.final_byte == b'M',
                "{bytes:?}: {seq:?}"
            );
        }
    }

    /// A DCS (or SOS, PM, APC) string runs past BEL to `ESC \`: what it holds is no text.
    #[test]
    fn a_string_sequence_ends_at_st_not_bel() {
        for start in [b'P', b'X', b'^', b'_'] {
            let mut bytes = vec![0x1b, start];
            bytes.extend_from_slice(b"xyz\x07hidden\x1b\\done");
            let st = steps(&bytes);
            let end = bytes.len() - 5;
            assert!(st[..2].iter().all(|s| *s == Step::Other), "{st:?}");
            assert!(st[2..end - 1].iter().all(|s| *s == Step::Skip), "{st:?}");
            assert_eq!(st[end - 1], Step::Other, "the ESC of ST: {st:?}");
            assert_eq!(
                st[bytes.len() - 5],
                Step::SequenceEnd { flush: true },
                "{st:?}"
            );
            assert_eq!(st[bytes.len() - 4], Step::Text, "{st:?}");
        }
    }

    #[test]
    fn csi_moves_flush() {
        let st = steps(b"\x1b[2A");
        assert_eq!(st[3], Step::SequenceEnd { flush: true });
    }
}

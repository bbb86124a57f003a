//! vt100 callbacks: nonce'd OSC 133 prompt marks, terminal query replies, scrolled rows.

use super::history::History;
use super::mark_order::MarkOrder;
use super::tabs::TabTable;
use super::{MarkKind, PromptNonce};

/// Most replies kept per fed chunk; a flood of queries cannot grow memory.
const MAX_PENDING_REPLIES: usize = 16;

/// Primary device attributes reply: "VT100 with advanced video option".
const DA1_REPLY: &[u8] = b"\x1b[?1;2c";
/// Secondary device attributes reply: terminal type 0, version 0.
const DA2_REPLY: &[u8] = b"\x1b[>0;0;0c";
/// Device status report: "terminal OK".
const DSR_OK_REPLY: &[u8] = b"\x1b[0n";
/// Tertiary device attributes reply (DA3, `CSI = c`): a unit id of zeros, as xterm gives.
const DA3_REPLY: &[u8] = b"\x1bP!|00000000\x1b\\";
/// The nominal character cell, in pixels, that window-size queries in pixels are answered
/// with: the terminal has no pixels, and a program dividing by a zero size would fail.
const CELL_HEIGHT_PX: u32 = 16;
/// See [`CELL_HEIGHT_PX`].
const CELL_WIDTH_PX: u32 = 8;

/// The 16 ANSI colours of xterm's default palette.
const ANSI_COLOURS: [(u8, u8, u8); 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

/// Colour `index` of xterm's default 256-colour palette: the 16 ANSI colours, a 6×6×6 cube,
/// a grey ramp.
fn palette_colour(index: u8) -> (u8, u8, u8) {
    const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match index {
        0..=15 => ANSI_COLOURS[usize::from(index)],
        16..=231 => {
            let i = index - 16;
            (
                CUBE[usize::from(i / 36)],
                CUBE[usize::from(i / 6 % 6)],
                CUBE[usize::from(i % 6)],
            )
        }
        _ => {
            let grey = 8 + (index - 232) * 10;
            (grey, grey, grey)
        }
    }
}

/// A DEC private mode's state for DECRQM: 1 set, 2 reset, 0 not recognized (a mode the
/// emulator does not keep, such as synchronized output).
fn dec_mode_state(screen: &vt100::Screen, mode: u16) -> u8 {
    use vt100::{MouseProtocolEncoding as Encoding, MouseProtocolMode as Mouse};
    let set = match mode {
        1 => screen.application_cursor(),
        25 => !screen.hide_cursor(),
        47 | 1047 | 1049 => screen.alternate_screen(),
        66 => screen.application_keypad(),
        2004 => screen.bracketed_paste(),
        9 => screen.mouse_protocol_mode() == Mouse::Press,
        1000 => screen.mouse_protocol_mode() == Mouse::PressRelease,
        1002 => screen.mouse_protocol_mode() == Mouse::ButtonMotion,
        1003 => screen.mouse_protocol_mode() == Mouse::AnyMotion,
        1005 => screen.mouse_protocol_encoding() == Encoding::Utf8,
        1006 => screen.mouse_protocol_encoding() == Encoding::Sgr,
        _ => return 0,
    };
    if set { 1 } else { 2 }
}

/// State the parser's callbacks write into; drained by [`super::Screen`] after each segment.
pub(crate) struct Hooks {
    nonce: Option<PromptNonce>,
    /// Tells the shell's own marks from its prompt strings expanded again by a command.
    mark_order: MarkOrder,
    pub(crate) marks: Vec<MarkKind>,
    /// A mark with the session's nonce came after the newest one admitted and was refused
    /// as a command's output (see [`MarkOrder`]): the shell's real marks may have been
    /// refused, so the admitted ones no longer say where it stands.
    pub(crate) refused_since_admitted: bool,
    pub(crate) replies: Vec<Vec<u8>>,
    pub(crate) history: History,
    /// TAB runs of the main screen's visible rows.
    pub(crate) tabs_main: TabTable,
    /// TAB runs of the alternate screen's visible rows.
    pub(crate) tabs_alt: TabTable,
    /// The OSC sequence the emulator dispatches next ends with BEL (not ST): a reply to it
    /// ends the same way, as xterm's do (a program reading up to BEL waits for one).
    pub(crate) osc_ends_with_bel: bool,
}

impl Hooks {
    pub(crate) fn new(nonce: Option<PromptNonce>, history: History, rows: u16) -> Self {
        Self {
            nonce,
            mark_order: MarkOrder::default(),
            marks: Vec::new(),
            refused_since_admitted: false,
            replies: Vec::new(),
            history,
            tabs_main: TabTable::new(rows),
            tabs_alt: TabTable::new(rows),
            osc_ends_with_bel: false,
        }
    }

    /// The TAB runs of the main or alternate screen.
    pub(crate) fn tabs(&self, alternate: bool) -> &TabTable {
        if alternate {
            &self.tabs_alt
        } else {
            &self.tabs_main
        }
    }

    /// The TAB runs of the main or alternate screen, to change.
    pub(crate) fn tabs_mut(&mut self, alternate: bool) -> &mut TabTable {
        if alternate {
            &mut self.tabs_alt
        } else {
            &mut self.tabs_main
        }
    }

    /// Replies `OSC <body>`, ended the way the query was (BEL or ST).
    fn osc_reply(&mut self, body: &[u8]) {
        let end: &[u8] = if self.osc_ends_with_bel {
            b"\x07"
        } else {
            b"\x1b\\"
        };
        self.reply([b"\x1b]", body, end].concat());
    }

    /// Queues `bytes` for the program (at most [`MAX_PENDING_REPLIES`] per fed chunk).
    pub(crate) fn reply(&mut self, bytes: Vec<u8>) {
        if self.replies.len() < MAX_PENDING_REPLIES {
            self.replies.push(bytes);
        }
    }
}

/// Parses OSC 133 params (`["133", kind, fields...]`) carrying `dsh=<nonce>`: the mark and
/// the command number it shows (`n=<number>`, see [`MarkOrder`]).
pub(crate) fn parse_mark(params: &[&[u8]], nonce: &PromptNonce) -> Option<(MarkKind, Option<u64>)> {
    let (first, rest) = params.split_first()?;
    if *first != b"133" {
        return None;
    }
    let (kind, fields) = rest.split_first()?;
    let mut nonce_ok = false;
    let mut secondary = false;
    let mut status: Option<i32> = None;
    let mut modes_restored = false;
    let mut errexit = false;
    let mut number = None;
    for field in fields {
        if let Some(value) = field.strip_prefix(b"dsh=") {
            nonce_ok = value == nonce.as_str().as_bytes();
        } else if let Some(value) = field.strip_prefix(b"n=") {
            number = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok());
        } else if *field == b"k=s" {
            secondary = true;
        } else if *field == b"stty=restored" {
            modes_restored = true;
        } else if *field == b"errexit" {
            errexit = true;
        } else if !field.contains(&b'=') && status.is_none() {
            status = std::str::from_utf8(field).ok().and_then(|s| s.parse().ok());
        }
    }
    if !nonce_ok {
        return None;
    }
    let mark = match (*kind, secondary) {
        (b"A", false) => MarkKind::PromptStart,
        (b"B", false) => MarkKind::PromptEnd,
        (b"A", true) => MarkKind::ContinuationStart,
        (b"B", true) => MarkKind::ContinuationEnd,
        (b"C", _) => MarkKind::CommandStart,
        (b"D", _) => MarkKind::CommandDone {
            exit_code: status,
            modes_restored,
            errexit,
            number,
        },
        _ => return None,
    };
    Some((mark, number))
}

impl vt100::Callbacks for Hooks {
    fn unhandled_osc(&mut self, _screen: &mut vt100::Screen, params: &[&[u8]]) {
        match params {
            [b"133", ..] => {
                if let Some(nonce) = &self.nonce
                    && let Some((mark, number)) = parse_mark(params, nonce)
                {
                    let admitted = self.mark_order.admits(mark, number);
                    if admitted {
                        self.marks.push(mark);
                    }
                    self.refused_since_admitted = !admitted;
                }
            }
            // Colour queries (vim, fzf, bat, a theme's light/dark probe): white on black, a
            // cursor like the text, and xterm's 256-colour palette, so probing programs do not
            // wait for a timeout. `OSC 10 ; ? ; ?` asks for 10 and 11 at once.
            [code @ (b"10" | b"11" | b"12"), rest @ ..] => {
                let first = if *code == b"10" {
                    10
                } else if *code == b"11" {
                    11
                } else {
                    12
                };
                for (n, param) in (first..=12).zip(rest) {
                    if *param == b"?" {
                        let rgb = if n == 11 {
                            "0000/0000/0000"
                        } else {
                            "ffff/ffff/ffff"
                        };
                        self.osc_reply(format!("{n};rgb:{rgb}").as_bytes());
                    }
                }
            }
            [b"4", pairs @ ..] => {
                for pair in pairs.chunks_exact(2) {
                    let index = std::str::from_utf8(pair[0])
                        .ok()
                        .and_then(|i| i.parse().ok());
                    if let (Some(index), b"?") = (index, pair[1]) {
                        let (r, g, b) = palette_colour(index);
                        let reply =
                            format!("4;{index};rgb:{r:02x}{r:02x}/{g:02x}{g:02x}/{b:02x}{b:02x}");
                        self.osc_reply(reply.as_bytes());
                    }
                }
            }
            _ => {}
        }
    }

    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        // DECRQM (`CSI ? Ps $ p`, `CSI Ps $ p`): a mode's state, 0 for one not kept, so a
        // program asking (a bracketed paste or synchronized output probe) never waits out a
        // timeout and then takes the next input for the reply.
        if c == 'p' && (i1, i2) == (Some(b'?'), Some(b'$')) {
            let state = dec_mode_state(screen, first);
            self.reply(format!("\x1b[?{first};{state}$y").into_bytes());
            return;
        }
        if c == 'p' && i1 == Some(b'$') {
            self.reply(format!("\x1b[{first};0$y").into_bytes());
            return;
        }
        match (i1, c, first) {
            // Cursor position report (1-based).
            (None, 'n', 6) => {
                let (row, col) = screen.cursor_position();
                let reply = format!("\x1b[{};{}R", u32::from(row) + 1, u32::from(col) + 1);
                self.reply(reply.into_bytes());
            }
            (Some(b'?'), 'n', 6) => {
                let (row, col) = screen.cursor_position();
                let reply = format!("\x1b[?{};{};1R", u32::from(row) + 1, u32::from(col) + 1);
                self.reply(reply.into_bytes());
            }
            (None, 'n', 5) => self.reply(DSR_OK_REPLY.to_vec()),
            // The colour scheme (a theme's light/dark probe): dark, as the background is.
            (Some(b'?'), 'n', 996) => self.reply(b"\x1b[?997;1n".to_vec()),
            // DECREQTPARM: the VT100's line parameters (no parity, 8 bits, 38400 baud).
            (None, 'x', 0 | 1) => {
                let kind = if first == 0 { 2 } else { 3 };
                self.reply(format!("\x1b[{kind};1;1;112;112;1;0x").into_bytes());
            }
            // xterm window operations that ask for a size (`resize`, `stty`-less tools, image
            // probes): answered as xterm does, so the program does not wait out a timeout and
            // then take the next input for the reply. Pixel sizes use a nominal cell.
            (None, 't', 14 | 16 | 18 | 19) => {
                let (rows, cols) = screen.size();
                let (rows, cols) = (u32::from(rows.get()), u32::from(cols.get()));
                let reply = match first {
                    14 => format!("\x1b[4;{};{}t", rows * CELL_HEIGHT_PX, cols * CELL_WIDTH_PX),
                    16 => format!("\x1b[6;{CELL_HEIGHT_PX};{CELL_WIDTH_PX}t"),
                    18 => format!("\x1b[8;{rows};{cols}t"),
                    _ => format!("\x1b[9;{rows};{cols}t"),
                };
                self.reply(reply.into_bytes());
            }
            (None, 'c', 0) => self.reply(DA1_REPLY.to_vec()),
            (Some(b'>'), 'c', 0) => self.reply(DA2_REPLY.to_vec()),
            (Some(b'='), 'c', 0) => self.reply(DA3_REPLY.to_vec()),
            // XTVERSION: the terminal's name and version.
            (Some(b'>'), 'q', 0) => self.reply(
                format!("\x1bP>|dsh-terminal({})\x1b\\", env!("CARGO_PKG_VERSION")).into_bytes(),
            ),
            _ => {}
        }
    }

    fn unhandled_escape(
        &mut self,
        _screen: &mut vt100::Screen,
        i1: Option<u8>,
        _i2: Option<u8>,
        b: u8,
    ) {
        // DECID (`ESC Z`), the VT52-era identify: answered as primary device attributes.
        if i1.is_none() && b == b'Z' {
            self.reply(DA1_REPLY.to_vec());
        }
    }

    fn on_scroll(&mut self, contents: vt100::capture::RowContents<'_>, alternate_screen: bool) {
        // The alternate screen has no scrollback on a real terminal either.
        if alternate_screen {
            self.tabs_alt.scroll_up();
        } else {
            let runs = self.tabs_main.scroll_up();
            self.history.push_scrolled(&contents, &runs);
        }
    }
}

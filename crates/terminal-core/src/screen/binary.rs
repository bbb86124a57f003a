//! Binary output: bytes that are not text are counted and summarised, not emulated.
//!
//! `cat` of an image or `head -c 3000000 /dev/urandom` would fill a result with mojibake and
//! scramble the screen with accidental escape sequences. Output is judged in windows of
//! [`WINDOW_BYTES`] by the share of bytes that are neither text nor terminal controls a text
//! program writes (invalid UTF-8, C0 controls other than BEL, BS, TAB, LF, VT, FF, CR, ESC, and
//! DEL; NUL bytes count on neither side among text, as a terminal shows nothing for them:
//! UTF-16 text of Latin letters reads as text). A window above [`ENTER_SHARE_PERCENT`]
//! ([`SHORT_ENTER_SHARE_PERCENT`] for a short output before a prompt mark, or
//! [`SHORT_INVALID_ONLY_SHARE_PERCENT`] when its only non-text bytes are invalid UTF-8) starts
//! suppression, unless it is lines of text whatever its share of invalid UTF-8 (text in a
//! legacy encoding or UTF-16: lines of letters with no control byte a text program would not
//! write, see [`window::lines_of_text`]), which shows as a terminal shows it, with U+FFFD for
//! the bytes that are not UTF-8; the suppressed bytes are only counted. Text lines before the
//! first non-text byte stay text, and so does the text before it on its line when it is long
//! enough to be told from random bytes ([`MIN_TEXT_RUN`]). Suppression ends at the newline
//! after the last non-text byte of a window when [`MIN_TEXT_AFTER_RUN`] bytes of text follow it
//! (looked at past the window's edge), when whole lines of text end the chunk (the output
//! paused after them), or at the start of a prompt mark (`ESC ] 133;`); shorter text at a
//! chunk's end waits for the next chunk. Random bytes often hold a newline and a few printable
//! bytes, which must not end a run. The line the binary ends in counts as binary up to its last
//! non-text byte; the text after that byte on the line stays text when it is long enough to be
//! told from random bytes ([`MIN_TEXT_RUN`]), or whatever its length when the output ends with
//! the line (a prompt mark follows: `cat x.gz; echo $?`). One [`suppressed_line`] takes the
//! bytes' place on the screen, so text written in the same burst as binary stays; the first
//! such line of a result says how to look at the bytes, the later ones only count them
//! ([`BinaryFilter::take_summary_line`], restarted by [`Screen::restart_binary_advice`]).
//! After a run, until the next prompt mark, a window with any non-text byte starts a run
//! again: the strings inside an executable show, its other bytes never do.

use super::Screen;
use super::classes::{all_plain_text, is_odd_control};
use window::{first_non_text, last_non_text, lines_of_text, non_text_among_nuls};

mod window;

/// Bytes judged at a time.
pub(crate) const WINDOW_BYTES: usize = 256;
/// Fewest bytes a window needs to start suppression (shorter tails keep the current mode).
const MIN_JUDGED_BYTES: usize = 64;
/// The same for the bytes before a prompt mark: the output there is complete, so a short
/// binary output (`cat small.gz`) is judged too.
const MIN_JUDGED_BEFORE_MARK: usize = 16;
/// Share of non-text bytes (percent) that starts suppression.
const ENTER_SHARE_PERCENT: usize = 25;
/// The same for fewer than [`MIN_JUDGED_BYTES`] bytes before a prompt mark: a short line of
/// text with a few bad bytes (a mis-encoded file name, a cut character) stays text, with
/// replacement characters, where random bytes are mostly non-text.
const SHORT_ENTER_SHARE_PERCENT: usize = 40;
/// The same when those bytes hold no control byte a text program would not write: invalid
/// UTF-8 alone (text in another encoding, CESU-8 surrogates, overlong forms) is shown with
/// replacement characters, as a terminal shows it, unless it is most of the bytes; random
/// bytes hold such a control byte more often than not.
const SHORT_INVALID_ONLY_SHARE_PERCENT: usize = 60;
/// Fewest text bytes after the newline that ends a suppressed run's last line for the run to
/// end there (unless the chunk ends or a prompt mark follows): shorter stretches occur in
/// random bytes.
const MIN_TEXT_RUN: usize = 8;
/// Fewest bytes of text after the newline that follows a suppressed run's last non-text byte
/// for the run to end there while the output goes on (see [`BinaryFilter::judge`]).
const MIN_TEXT_AFTER_RUN: usize = WINDOW_BYTES / 2;
/// The start of a prompt mark: never suppressed.
const MARK_START: &[u8] = b"\x1b]133;";

/// What one run of suppressed binary output held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Suppressed {
    /// Bytes suppressed, as the program wrote them: a CR LF the terminal made of a newline
    /// counts as one byte.
    pub(crate) bytes: u64,
    /// Lines among them that look like text: at least [`MIN_TEXT_RUN`] printable ASCII bytes
    /// (TAB and CR too) between two newlines, such as log lines a program writes between
    /// binary frames. Random bytes hardly ever hold one.
    pub(crate) text_lines: u64,
}

/// What every line standing for suppressed binary output says after its byte count.
const SUPPRESSED: &str = "bytes of binary output suppressed";

/// Whether `text` holds a line standing for suppressed binary output ([`suppressed_line`],
/// [`open_run_line`]).
pub(crate) fn shows_suppressed_run(text: &str) -> bool {
    text.contains(SUPPRESSED)
}

/// The line that replaces a run of suppressed binary output. With `advice` (the first run a
/// result shows, see [`BinaryFilter::take_summary_line`]) it says how to look at the bytes;
/// without it (the runs after that one) it only counts them, so text mixed with many binary
/// frames is not crowded out by the same advice over and over. A text line among the bytes
/// is counted only when it is long enough to be told from random bytes ([`MIN_TEXT_RUN`]):
/// the line without counted text lines still names `strings` for shorter ones.
pub(crate) fn suppressed_line(run: Suppressed, advice: bool) -> String {
    let Suppressed { bytes, text_lines } = run;
    let lines = if text_lines == 1 { "line" } else { "lines" };
    match (text_lines, advice) {
        (0, true) => format!(
            "[{bytes} {SUPPRESSED}; to look at them, pipe the command through `xxd | head` (or `strings` for any short text among them) or redirect its output to a file]"
        ),
        (0, false) => format!("[{bytes} {SUPPRESSED}]"),
        (n, true) => format!(
            "[{bytes} {SUPPRESSED}, with {n} {lines} of text among them; to see the text, pipe the command through `strings` or `grep -a`; to look at the bytes, through `xxd | head`, or redirect its output to a file]"
        ),
        (n, false) => format!("[{bytes} {SUPPRESSED}, with {n} {lines} of text among them]"),
    }
}

/// The line that shows a run still going on when the screen is read in the middle of it (see
/// `Screen::consume_since`): short, so that it fits one row of any usual width.
pub(crate) fn open_run_line(bytes: u64) -> String {
    format!("[{bytes} {SUPPRESSED} so far]")
}

/// Whether `line` is the line that shows a run of binary output still going on,
/// `[N bytes of binary output suppressed so far]` (as a reader of a send's output gets it
/// while the run goes on): a line of its own, in brackets already, that the next read
/// replaces.
pub fn is_open_binary_run_line(line: &str) -> bool {
    line.strip_prefix('[')
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(bytes, _)| bytes.parse::<u64>().ok())
        .is_some_and(|bytes| line == open_run_line(bytes))
}

/// What to do with the next bytes of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Feed this many bytes to the emulator.
    Text(usize),
    /// Count this many bytes as suppressed binary output.
    Binary(usize),
    /// Suppression ends here: put the summary line on the screen, then go on.
    EndOfBinary,
    /// Too few bytes at the chunk's end to tell text from binary (whether text follows a
    /// binary run, or whether short non-text bytes start one): keep them (see
    /// [`BinaryFilter::hold`]) until more output arrives or the screen is read.
    Hold,
}

/// The suppression state across chunks.
#[derive(Debug, Default)]
pub(crate) struct BinaryFilter {
    suppressed: Option<u64>,
    /// The suppressed run's last line has ended: text follows.
    line_ended: bool,
    /// Text lines were split off a window judged binary: the bytes after them start a run.
    enter_next: bool,
    /// A binary run ended in this command's output: until the next prompt mark, any non-text
    /// byte in a judged window starts a run again (text inside a binary file, such as an
    /// executable's strings, is not taken for the end of it).
    wary: bool,
    /// The end of a chunk that may be text after the binary run (a newline and a few bytes).
    held: Vec<u8>,
    /// Text-looking lines in the current run ([`Suppressed::text_lines`]).
    text_lines: u64,
    /// Bytes of the current run's line so far while all of them are text (`None` after a
    /// non-text byte, and at the run's start: its first line began before it).
    line_run: Option<usize>,
    /// The last byte counted into the run was a CR (a CR LF cut between two windows).
    cr_last: bool,
    /// A summary line with the advice was given since [`BinaryFilter::restart_advice`]: the
    /// next runs' lines only count their bytes.
    advised: bool,
}

impl BinaryFilter {
    /// Judges the start of `bytes` (non-empty). Text lines before the first non-text byte
    /// of a window that starts suppression stay text (and a long enough text before it on
    /// its line).
    pub(crate) fn judge(&mut self, bytes: &[u8]) -> Verdict {
        let window = &bytes[..bytes.len().min(WINDOW_BYTES)];
        match self.suppressed {
            None if std::mem::take(&mut self.enter_next) => {
                self.suppressed = Some(0);
                self.judge(bytes)
            }
            None => {
                // Bytes before a prompt mark are judged without it and what follows it.
                let (window, min_judged) = match find(window, MARK_START) {
                    Some(at) if at > 0 => (&window[..at], MIN_JUDGED_BEFORE_MARK),
                    _ => (window, MIN_JUDGED_BYTES),
                };
                // A prompt mark is never suppressed, nor judged with what follows it: the
                // mark alone (to its BEL or ST) is text, and what follows is judged on its own
                // (a command's binary output right after the `C` mark of its start).
                if window.starts_with(MARK_START) {
                    // Another command's output starts (or the prompt): no longer wary.
                    self.wary = false;
                    let end = window
                        .iter()
                        .position(|&b| b == 0x07)
                        .map(|p| p + 1)
                        .or_else(|| find(window, b"\x1b\\").map(|p| p + 2))
                        .unwrap_or(window.len());
                    return Verdict::Text(end);
                }
                if window.len() < MIN_JUDGED_BYTES && window.len() == bytes.len() {
                    // Too short to judge, and the chunk ends: non-text bytes after the last
                    // line wait for the next chunk (a read cut the burst there), unless a
                    // prompt mark (or the start of one) is among them.
                    let mark_start = find(window, MARK_START).is_some()
                        || (1..MARK_START.len()).any(|k| window.ends_with(&MARK_START[..k]));
                    return match first_non_text(window) {
                        Some(bad) if !mark_start => {
                            let lines = window[..bad]
                                .iter()
                                .rposition(|&b| b == b'\n')
                                .map_or(0, |p| p + 1);
                            if lines > 0 {
                                Verdict::Text(lines)
                            } else {
                                Verdict::Hold
                            }
                        }
                        _ => Verdict::Text(window.len()),
                    };
                }
                let (non_text, judged_len, nuls_are_text) = non_text_among_nuls(window);
                let share = if window.len() >= MIN_JUDGED_BYTES {
                    ENTER_SHARE_PERCENT
                } else if window.iter().any(|&b| b != 0 && is_odd_control(b)) {
                    SHORT_ENTER_SHARE_PERCENT
                } else {
                    SHORT_INVALID_ONLY_SHARE_PERCENT
                };
                let enters = if self.wary {
                    non_text > 0
                } else {
                    non_text * 100 > judged_len * share
                        && !lines_of_text(window, nuls_are_text, window.len() < MIN_JUDGED_BYTES)
                };
                if window.len() < min_judged || !enters {
                    return Verdict::Text(window.len());
                }
                // Whole lines of text before the binary stay text, also in another encoding
                // (a Latin-1 line before an image's bytes): the run starts after them.
                let lines_before = text_lines_before(window);
                let first_bad = lines_before + first_non_text(&window[lines_before..]).unwrap_or(0);
                let text_lines = window[..first_bad]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
                // The text before the first non-text byte on its line stays too when it is
                // long enough to be told from random bytes (`printf 'data: '; cat blob`).
                let text = if first_bad - text_lines >= MIN_TEXT_RUN {
                    first_bad
                } else {
                    text_lines
                };
                if text > 0 {
                    // The rest of this window is binary, however short the chunk leaves it.
                    self.enter_next = true;
                    return Verdict::Text(text);
                }
                self.suppressed = Some(0);
                self.judge(bytes)
            }
            Some(count) => {
                if self.line_ended {
                    return Verdict::EndOfBinary;
                }
                let mark = find(window, MARK_START);
                if mark == Some(0) {
                    return Verdict::EndOfBinary;
                }
                let judged = &window[..mark.unwrap_or(window.len())];
                // The text after the last non-text byte, from the next newline on (the line the
                // binary ends in is part of it), ends the run when it is long enough to be text,
                // when a prompt mark follows it, or when it ends the chunk with whole lines.
                let clean_from = last_non_text(judged).map_or(0, |i| i + 1);
                let newline = judged[clean_from..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map(|p| clean_from + p);
                let chunk_ends = judged.len() == bytes.len();
                // Whole lines of text from the newline to the chunk's end: the output paused
                // after them (a read's end falls anywhere in a flood too: a run ends there only
                // after [`MIN_TEXT_RUN`] bytes of such lines, which random bytes seldom end a
                // read with).
                let lines_end_chunk = |nl: usize| {
                    chunk_ends
                        && judged.ends_with(b"\n")
                        && first_non_text(&judged[nl + 1..]).is_none()
                };
                // Text from the newline on for [`MIN_TEXT_AFTER_RUN`] bytes, looked at past the
                // window's end (a window's edge says nothing about the bytes it cuts): shorter
                // stretches of text between non-text bytes are common in random bytes, and a
                // program's text lines between binary frames are counted in the run.
                let long_text = |nl: usize| {
                    let after = &bytes[nl + 1..];
                    let look = &after[..after.len().min(MIN_TEXT_AFTER_RUN)];
                    look.len() == MIN_TEXT_AFTER_RUN && first_non_text(look).is_none()
                };
                let text_ends = |nl: usize| {
                    mark.is_some()
                        || long_text(nl)
                        || (lines_end_chunk(nl) && judged.len() - nl > MIN_TEXT_RUN)
                };
                // A prompt mark cut by the chunk's end: judged with the next chunk.
                let partial_mark = if mark.is_none() && chunk_ends {
                    (1..MARK_START.len())
                        .rev()
                        .find(|&k| judged.ends_with(&MARK_START[..k]))
                        .unwrap_or(0)
                } else {
                    0
                };
                // Text printed right after the binary on its last line (`cat x.gz; echo done`,
                // an error message after binary without a newline): the clean bytes from the
                // last non-text byte to `end` are text when there are enough of them.
                // Any stretch counts when the output ends with its line (a prompt mark follows
                // its newline: `…; echo $?`): a shell's next output after the binary.
                // Not when a signal ended the command (`D;130` after an interrupt): its output
                // stopped wherever the signal found it, so its last bytes are random ones.
                let output_ended = mark.is_some_and(|at| !ended_by_signal(&bytes[at..]));
                let text_tail = |end: usize| {
                    let min = if output_ended && end + 1 == judged.len() {
                        1
                    } else {
                        MIN_TEXT_RUN
                    };
                    let tail = &judged[clean_from..end];
                    tail.strip_suffix(b"\r").unwrap_or(tail).len() >= min
                };
                let n = match newline {
                    Some(nl)
                        if text_ends(nl)
                            || (clean_from == 0 && text_tail(nl) && lines_end_chunk(nl)) =>
                    {
                        self.line_ended = true;
                        if text_tail(nl) {
                            // The run ends before the text; the text follows the summary line.
                            if clean_from == 0 {
                                return Verdict::EndOfBinary;
                            }
                            clean_from
                        } else if mark.is_some() && !output_ended && short_lines(&judged[nl + 1..])
                        {
                            // Only short lines to the mark of a command a signal ended: the
                            // random bytes' own (`I}L`), not text.
                            judged.len()
                        } else {
                            nl + 1
                        }
                    }
                    // Judge the newline again with the bytes after it in view (from the text
                    // before it, when that may be text).
                    Some(nl) if clean_from > 0 && text_tail(nl) => clean_from,
                    // Text on the binary's last line, then text to the chunk's end too short to
                    // tell: judged again with the next chunk (shown as text if the output stops).
                    Some(nl)
                        if clean_from == 0
                            && text_tail(nl)
                            && chunk_ends
                            && first_non_text(&judged[nl + 1..]).is_none() =>
                    {
                        return Verdict::Hold;
                    }
                    // Clean bytes ending the chunk with its only newline after the run's last
                    // non-text byte (a line printed as the output ends, or after a pause; the
                    // start of a prompt mark may follow it): judged with what comes next (the
                    // prompt mark), or shown if the output stops there.
                    Some(nl)
                        if chunk_ends
                            && mark.is_none()
                            && nl + 1 + partial_mark == judged.len() =>
                    {
                        if clean_from == 0 {
                            return Verdict::Hold;
                        }
                        clean_from
                    }
                    // The window ends a few bytes after the newline but the chunk goes on: the
                    // clean bytes are judged again from their start, with what follows them in
                    // view (a prompt mark right after the line shows it as text).
                    Some(_) if clean_from > 0 && !chunk_ends => clean_from,
                    Some(nl) if nl > 0 => nl,
                    // The chunk ends a few bytes after the newline: wait for more output.
                    Some(_) => return Verdict::Hold,
                    None if clean_from == 0 && judged.len() >= MIN_JUDGED_BYTES => {
                        return Verdict::EndOfBinary;
                    }
                    // Clean bytes up to the window's end may be text, however few (the start of
                    // `END` printed after the binary, cut by the window): judged again from their
                    // start, with what follows them in view (at the chunk's end, with the next
                    // chunk: a read may have cut the text after a few bytes).
                    None if clean_from > 0 => clean_from,
                    // Clean bytes at the chunk's end right after the run: wait for more output
                    // (read before it comes, they show as text after the summary line).
                    None if clean_from == 0 && chunk_ends => return Verdict::Hold,
                    _ if partial_mark == judged.len() => return Verdict::Hold,
                    _ => judged.len() - partial_mark,
                };
                // The terminal writes each newline a program writes as CR LF (ONLCR): a pair
                // counts as the one byte the program wrote.
                let added_crs = bytes[..n].windows(2).filter(|w| w == b"\r\n").count()
                    + usize::from(self.cr_last && bytes[0] == b'\n');
                self.cr_last = bytes[n - 1] == b'\r';
                self.suppressed = Some(count + (n - added_crs) as u64);
                self.count_text_lines(&bytes[..n]);
                Verdict::Binary(n)
            }
        }
    }

    /// Whether `bytes` would be judged text whole, without looking at them window by window:
    /// nothing is suppressed, held or about to start a run, and every byte is ASCII text or a
    /// control a text program writes (the common case of a flood of plain lines). Such a chunk
    /// with a prompt mark ends the wariness after a run.
    pub(crate) fn passes_whole(&mut self, bytes: &[u8]) -> bool {
        let passes = self.suppressed.is_none()
            && !self.enter_next
            && self.held.is_empty()
            && all_plain_text(bytes);
        if passes && self.wary && find(bytes, MARK_START).is_some() {
            self.wary = false;
        }
        passes
    }

    /// Bytes of the run going on, when one is (without ending it).
    pub(crate) fn suppressed_bytes(&self) -> Option<u64> {
        self.suppressed.filter(|&n| n > 0)
    }

    /// Ends suppression; returns what was suppressed, if any bytes were.
    pub(crate) fn take_suppressed(&mut self) -> Option<Suppressed> {
        self.line_ended = false;
        let text_lines = std::mem::take(&mut self.text_lines);
        self.line_run = None;
        let taken = self
            .suppressed
            .take()
            .filter(|&n| n > 0)
            .map(|bytes| Suppressed { bytes, text_lines });
        self.wary |= taken.is_some();
        taken
    }

    /// Ends suppression; returns the line that stands for what was suppressed, if any bytes
    /// were: with the advice on how to look at them when it is the first since
    /// [`BinaryFilter::restart_advice`], only the count after that.
    pub(crate) fn take_summary_line(&mut self) -> Option<String> {
        let run = self.take_suppressed()?;
        let advice = !std::mem::replace(&mut self.advised, true);
        Some(suppressed_line(run, advice))
    }

    /// The next summary line gives the advice again (a new result starts: its reader has not
    /// seen the advice).
    pub(crate) fn restart_advice(&mut self) {
        self.advised = false;
    }

    /// Counts the text-looking lines among suppressed `bytes`.
    fn count_text_lines(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.line_run = match (b, self.line_run) {
                (b'\n', run) => {
                    if run.is_some_and(|len| len >= MIN_TEXT_RUN) {
                        self.text_lines += 1;
                    }
                    Some(0)
                }
                (b' '..=b'~' | b'\t' | b'\r', Some(len)) => Some(len + 1),
                _ => None,
            };
        }
    }

    /// Keeps `bytes` (after [`Verdict::Hold`]) to be judged with the next chunk.
    pub(crate) fn hold(&mut self, bytes: &[u8]) {
        self.held = bytes.to_vec();
    }

    /// The bytes kept by [`BinaryFilter::hold`], if any.
    pub(crate) fn take_held(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }

    /// Whether output is being suppressed.
    pub(crate) fn suppressing(&self) -> bool {
        self.suppressed.is_some()
    }
}

impl Screen {
    /// A new result starts here (a send's span, after the previous result was seen): the next
    /// summary line of a binary run says again how to look at the bytes.
    pub(crate) fn restart_binary_advice(&mut self) {
        self.binary.restart_advice();
    }
}

/// Bytes of the whole lines at the start of `window` that are text: UTF-8 text, or text in
/// another encoding ([`lines_of_text`] of the line alone, at least [`MIN_TEXT_RUN`] bytes
/// with most of them printable ASCII, so that random bytes seldom pass).
fn text_lines_before(window: &[u8]) -> usize {
    let mut end = 0;
    for line in window.split_inclusive(|&b| b == b'\n') {
        let text = line.ends_with(b"\n")
            && (first_non_text(line).is_none()
                || (line.len() >= MIN_TEXT_RUN
                    && lines_of_text(line, false, true)
                    && line
                        .iter()
                        .filter(|b| b.is_ascii_graphic() || **b == b' ')
                        .count()
                        * 2
                        > line.len()));
        if !text {
            break;
        }
        end += line.len();
    }
    end
}

/// Whether `mark` (bytes from a prompt mark's start) is the mark of a command's end with a
/// status above 128, a command a signal ended (an interrupted `cat /dev/urandom`).
fn ended_by_signal(mark: &[u8]) -> bool {
    let Some(status) = mark
        .strip_prefix(MARK_START)
        .and_then(|rest| rest.strip_prefix(b"D;"))
    else {
        return false;
    };
    let digits = status.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&status[..digits])
        .ok()
        .and_then(|code| code.parse::<u32>().ok())
        .is_some_and(|code| code > 128)
}

/// Whether every line of `bytes` is shorter than [`MIN_TEXT_RUN`] (too short to be told
/// from random bytes).
fn short_lines(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .all(|line| line.strip_suffix(b"\r").unwrap_or(line).len() < MIN_TEXT_RUN)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `n` bytes of deterministic noise (xorshift), as binary output for tests.
#[cfg(test)]
pub(crate) fn pseudo_random(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x9e37_79b9;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

#[cfg(test)]
mod tests;

//! What a window of output holds: the bytes that are neither text nor a text program's
//! controls, and where the first and last of them are.

use super::super::classes::is_odd_control;

/// Where the last byte of `window` that is neither text nor a text program's control is (a
/// character cut by the window's end is not evidence).
pub(super) fn last_non_text(window: &[u8]) -> Option<usize> {
    let mut last = None;
    let mut at = 0;
    let mut rest = window;
    while !rest.is_empty() {
        let (good, invalid) = match std::str::from_utf8(rest) {
            Ok(_) => (rest.len(), None),
            Err(e) => (e.valid_up_to(), e.error_len()),
        };
        if let Some(i) = rest[..good].iter().rposition(|&b| is_odd_control(b)) {
            last = Some(at + i);
        }
        let Some(n) = invalid else { break };
        last = Some(at + good + n - 1);
        at += good + n;
        rest = &rest[good + n..];
    }
    last
}

/// Where the first byte of `window` that is neither text nor a text program's control is.
pub(super) fn first_non_text(window: &[u8]) -> Option<usize> {
    let valid = match std::str::from_utf8(window) {
        Ok(_) => window.len(),
        Err(e) => e.valid_up_to(),
    };
    match window[..valid].iter().position(|&b| is_odd_control(b)) {
        Some(i) => Some(i),
        None => (valid < window.len()).then_some(valid),
    }
}

/// Most other non-text bytes (one in this many of the bytes that are not NUL) that text
/// among NUL bytes may hold: a stray byte.
const TEXT_AMONG_NULS_ODD_SHARE: usize = 32;

/// The UTF-16 byte-order marks (little- and big-endian), which start a UTF-16 file.
const UTF16_BOMS: [&[u8]; 2] = [b"\xff\xfe", b"\xfe\xff"];

/// Least share of NUL bytes (percent) in a window of UTF-16 text of Latin characters (every
/// other byte).
const UTF16_NUL_SHARE_PERCENT: usize = 30;

/// The non-text bytes of `window` and the bytes they are a share of. NUL bytes count on
/// neither side when the other bytes are text (but UTF-16 byte-order marks and at most one
/// in [`TEXT_AMONG_NULS_ODD_SHARE`]), or when they are every other byte the program wrote
/// (UTF-16 text of Latin characters, accented ones among them): a terminal shows nothing
/// for them, so such text reads as its text there, told from binary by its other bytes.
/// Among other non-text bytes otherwise (an executable, a compressed file) they count as
/// non-text. The third value says whether NUL bytes count on neither side.
pub(super) fn non_text_among_nuls(window: &[u8]) -> (usize, usize, bool) {
    let non_text = non_text_bytes(window);
    let nuls = window.iter().filter(|&&b| b == 0).count();
    if nuls == 0 {
        return (non_text, window.len(), false);
    }
    let odd_nuls = odd_placed_nuls(window);
    let aligned = odd_nuls.max(nuls - odd_nuls) * 10 >= nuls * 9;
    let utf16 = aligned && nuls * 100 >= window.len() * UTF16_NUL_SHARE_PERCENT;
    let boms: usize = UTF16_BOMS
        .iter()
        .map(|bom| window.windows(2).filter(|w| w == bom).count() * 2)
        .sum();
    // Every NUL is among `non_text` (it is valid UTF-8 and an odd control); saturating all
    // the same.
    let others = non_text.saturating_sub(nuls).saturating_sub(boms);
    if utf16 || others * TEXT_AMONG_NULS_ODD_SHARE <= window.len() - nuls {
        (others, window.len() - nuls, true)
    } else {
        (non_text, window.len(), false)
    }
}

/// How many NUL bytes of `window` are at odd places among the bytes the program wrote: the
/// CR the terminal puts before each newline (ONLCR) is not one of them, so UTF-16 text
/// through a terminal keeps its NULs on one side however many lines it has.
fn odd_placed_nuls(window: &[u8]) -> usize {
    let mut odd = false;
    let mut count = 0;
    for (i, &b) in window.iter().enumerate() {
        if b == b'\r' && window.get(i + 1) == Some(&b'\n') {
            continue;
        }
        count += usize::from(odd && b == 0);
        odd = !odd;
    }
    count
}

/// How many bytes of `window` are neither text nor controls a text program writes.
fn non_text_bytes(window: &[u8]) -> usize {
    let mut bad = 0;
    let mut rest = window;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                bad += text.bytes().filter(|&b| is_odd_control(b)).count();
                break;
            }
            Err(e) => {
                let (good, after) = rest.split_at(e.valid_up_to());
                bad += good.iter().filter(|&&b| is_odd_control(b)).count();
                match e.error_len() {
                    Some(n) => {
                        bad += n;
                        rest = &after[n..];
                    }
                    // A character cut by the window's end is not evidence.
                    None => break,
                }
            }
        }
    }
    bad
}

/// Most bytes between two newlines (or a newline and the window's edge) that hold no letter
/// in [`lines_of_text`]: a short word of a 2-byte encoding may have none.
const LETTERLESS_MAX: usize = 16;

/// Whether `window` is lines of text, whatever share of it is not UTF-8: text in a legacy
/// 8-bit encoding (Latin-1, cp1251), a 2-byte one (Shift-JIS) or UTF-16 is lines of letters
/// with bytes that are not UTF-8 scattered among them. Such a window holds no control byte a
/// text program does not write (NUL bytes aside when they count on neither side, see
/// [`non_text_among_nuls`]), holds a newline (`short`, a short output before a prompt mark,
/// ends with one), and no stretch of more than [`LETTERLESS_MAX`] bytes between newlines
/// lacks a letter: an ASCII letter or digit, or a byte from `0xC0` up (where the letters of
/// the 8-bit encodings are, and which most characters of the 2-byte ones hold). Random and
/// compressed bytes hold a control byte in about one byte of ten, an executable NULs among
/// other controls, and a run of bytes such as `0x80` repeated is letters in no encoding.
pub(super) fn lines_of_text(window: &[u8], nuls_are_text: bool, short: bool) -> bool {
    let is_nul = |b: &u8| *b == 0 && nuls_are_text;
    let end = window.iter().rposition(|b| !is_nul(b) && *b != b'\r');
    let ends_with_newline = end.is_some_and(|e| window[e] == b'\n');
    if !ends_with_newline && (short || !window.contains(&b'\n')) {
        return false;
    }
    let mut stretch = 0;
    let mut letter = false;
    for b in window {
        if *b == b'\n' {
            if stretch > LETTERLESS_MAX && !letter {
                return false;
            }
            stretch = 0;
            letter = false;
        } else if !is_nul(b) {
            if is_odd_control(*b) {
                return false;
            }
            stretch += 1;
            letter |= b.is_ascii_alphanumeric() || *b >= 0xC0;
        }
    }
    stretch <= LETTERLESS_MAX || letter
}

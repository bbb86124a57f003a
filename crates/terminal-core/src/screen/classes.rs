//! Byte-class scans over output chunks, the reader's per-byte work on a flood.
//!
//! Every chunk of plain output is scanned twice before it reaches history: once for bytes
//! the binary filter must judge and once for the end of each printable run. A byte-at-a-time
//! loop that stops at the first hit keeps the compiler from testing several bytes at once,
//! and costs about a fifth of the reader thread's time on a `cat` of short lines. These
//! scans test blocks of [`BLOCK_BYTES`] with branch-free compares (which the compiler turns
//! into SIMD) and look byte by byte only inside the block that holds a hit.

/// Bytes tested together.
const BLOCK_BYTES: usize = 32;

/// Index of the first byte of `bytes` for which `hit` holds. `hit` must be branch-free
/// (plain compares combined with `&`, `|`, `!`) for the block test to vectorise.
#[inline(always)]
fn first_hit(bytes: &[u8], hit: impl Fn(u8) -> bool + Copy) -> Option<usize> {
    let mut base = 0;
    for block in bytes.chunks(BLOCK_BYTES) {
        if block.iter().fold(false, |any, &b| any | hit(b)) {
            return block.iter().position(|&b| hit(b)).map(|i| base + i);
        }
        base += block.len();
    }
    None
}

/// Printable ASCII (`0x20..=0x7e`): what a flood line is made of.
#[inline(always)]
fn is_printable(b: u8) -> bool {
    b.wrapping_sub(0x20) < 0x5f
}

/// A byte a text program writes: printable ASCII, the controls BEL, BS, TAB, LF, VT, FF, CR
/// (`0x07..=0x0d`) and ESC. Everything else (other C0 controls, DEL, any byte of a multi-byte
/// character) is for the binary filter to judge.
#[inline(always)]
fn is_plain_text(b: u8) -> bool {
    is_printable(b) | (b.wrapping_sub(0x07) < 7) | (b == 0x1b)
}

/// An ASCII byte a text program does not write: C0 controls other than BEL, BS, TAB, LF, VT,
/// FF, CR and ESC, and DEL.
pub(crate) fn is_odd_control(b: u8) -> bool {
    b.is_ascii() && !is_plain_text(b)
}

/// Index of the first byte of `bytes` that is not printable ASCII.
pub(crate) fn first_unprintable(bytes: &[u8]) -> Option<usize> {
    first_hit(bytes, |b| !is_printable(b))
}

/// Whether every byte of `bytes` is ASCII a text program writes (see [`is_plain_text`]).
pub(crate) fn all_plain_text(bytes: &[u8]) -> bool {
    first_hit(bytes, |b| !is_plain_text(b)).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block scans agree with the byte-at-a-time definitions at every byte value and
    /// every position, including block edges and a ragged last block.
    #[test]
    fn block_scans_match_the_byte_definitions() {
        for value in 0..=u8::MAX {
            let printable = (0x20..=0x7e).contains(&value);
            let plain = printable || (0x07..=0x0d).contains(&value) || value == 0x1b;
            assert_eq!(is_printable(value), printable, "{value:#04x}");
            assert_eq!(is_plain_text(value), plain, "{value:#04x}");
            let odd = matches!(value, 0x00..=0x06 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f);
            assert_eq!(is_odd_control(value), odd, "{value:#04x}");
            for len in [1, 31, 32, 33, 64, 100] {
                for at in [0, len / 2, len - 1] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = value;
                    let expect_unprintable = (!printable).then_some(at);
                    assert_eq!(
                        first_unprintable(&bytes),
                        expect_unprintable,
                        "{value:#04x} at {at}/{len}"
                    );
                    assert_eq!(all_plain_text(&bytes), plain, "{value:#04x} at {at}/{len}");
                }
            }
        }
        assert_eq!(first_unprintable(b""), None);
        assert!(all_plain_text(b""));
    }
}

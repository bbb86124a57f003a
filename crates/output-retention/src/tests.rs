//! Unit and property tests for the retainer (the seed's §7.1, §8.8 item 129).

use super::*;
use pretty_assertions::assert_eq;
use proptest::prelude::{Just, any, prop_assert, prop_assert_eq, prop_oneof, proptest};
use proptest::strategy::Strategy as _;

fn run(strategy: Strategy, chunks: &[&[u8]]) -> Retained {
    let mut r = TextRetainer::new(strategy);
    for c in chunks {
        r.push(c);
    }
    r.finish()
}

fn retained(text: &str, truncated: bool, omitted: Omitted, gap: Option<usize>) -> Retained {
    Retained {
        text: text.to_owned(),
        truncated,
        omitted_bytes: omitted,
        gap_offset_bytes: gap,
    }
}

#[test]
fn head_keeps_prefix_and_counts_exactly() {
    let out = run(Strategy::Head { max_bytes: 5 }, &[b"hello ", b"world"]);
    assert_eq!(out, retained("hello", true, Omitted::Exact(6), Some(5)));
}

#[test]
fn tail_keeps_suffix_and_counts_exactly() {
    let out = run(Strategy::Tail { max_bytes: 5 }, &[b"hello ", b"world"]);
    assert_eq!(out, retained("world", true, Omitted::Exact(6), Some(0)));
}

#[test]
fn head_tail_drops_the_middle() {
    let out = run(
        Strategy::HeadTail {
            head_bytes: 3,
            tail_bytes: 3,
        },
        &[b"abc", b"defg", b"hij"],
    );
    assert_eq!(out, retained("abchij", true, Omitted::Exact(4), Some(3)));
    assert_eq!(out.text_with_marker("[..]"), "abc[..]hij");
}

#[test]
fn fitting_input_is_unchanged_and_not_truncated() {
    let out = run(
        Strategy::HeadTail {
            head_bytes: 4,
            tail_bytes: 4,
        },
        &[b"12345678"],
    );
    assert_eq!(out, retained("12345678", false, Omitted::None, None));
    assert_eq!(out.text_with_marker("[..]"), "12345678");
}

#[test]
fn code_point_straddling_the_internal_split_survives_when_nothing_is_omitted() {
    // "é" is C3 A9; the head budget of 2 puts C3 in the head and A9 in the tail.
    let out = run(
        Strategy::HeadTail {
            head_bytes: 2,
            tail_bytes: 2,
        },
        &["aé".as_bytes(), b"b"],
    );
    assert_eq!(out, retained("aéb", false, Omitted::None, None));
}

#[test]
fn no_code_point_is_glued_across_the_gap() {
    // head gets "a" + C3, tail gets A9 + "b"; one byte dropped between them.
    let out = run(
        Strategy::HeadTail {
            head_bytes: 2,
            tail_bytes: 2,
        },
        &["aéxé".as_bytes(), b"b"],
    );
    // input: 61 C3 A9 78 C3 A9 62 (7 bytes) -> head 61 C3 | dropped A9 78 C3 | tail A9 62
    assert_eq!(out, retained("ab", true, Omitted::Exact(5), Some(1)));
}

#[test]
fn two_three_and_four_byte_chars_at_the_head_cut() {
    for (ch, len) in [("é", 2), ("€", 3), ("😀", 4)] {
        let input = format!("a{ch}");
        for cut in 1..=len {
            let out = run(Strategy::Head { max_bytes: cut }, &[input.as_bytes()]);
            assert_eq!(out.text, "a", "{ch} cut at {cut}");
            assert_eq!(
                out.omitted_bytes,
                Omitted::Exact(len as u64),
                "{ch} cut at {cut}"
            );
        }
        let out = run(Strategy::Head { max_bytes: len + 1 }, &[input.as_bytes()]);
        assert_eq!(out, retained(&input, false, Omitted::None, None));
    }
}

#[test]
fn two_three_and_four_byte_chars_at_the_tail_cut() {
    for (ch, len) in [("é", 2), ("€", 3), ("😀", 4)] {
        let input = format!("{ch}z");
        for keep in 1..=len {
            let out = run(Strategy::Tail { max_bytes: keep }, &[input.as_bytes()]);
            assert_eq!(out.text, "z", "{ch} keep {keep}");
            assert_eq!(
                out.omitted_bytes,
                Omitted::Exact(len as u64),
                "{ch} keep {keep}"
            );
        }
    }
}

#[test]
fn a_code_point_split_across_chunks_is_reassembled() {
    let bytes = "😀".as_bytes();
    let out = run(
        Strategy::Tail { max_bytes: 16 },
        &[&bytes[..1], &bytes[1..3], &bytes[3..]],
    );
    assert_eq!(out, retained("😀", false, Omitted::None, None));
}

#[test]
fn zero_budgets_omit_everything() {
    for strategy in [
        Strategy::Head { max_bytes: 0 },
        Strategy::Tail { max_bytes: 0 },
        Strategy::HeadTail {
            head_bytes: 0,
            tail_bytes: 0,
        },
    ] {
        let mut r = TextRetainer::new(strategy);
        let first = r.push(b"abc");
        assert_eq!(
            first,
            PushOutcome {
                kept: false,
                truncated: true
            }
        );
        let out = r.finish();
        assert_eq!(out.text, "", "{strategy:?}");
        assert_eq!(out.omitted_bytes, Omitted::Exact(3), "{strategy:?}");
    }
    // Zero budget and empty input: nothing omitted.
    let out = run(Strategy::Head { max_bytes: 0 }, &[b""]);
    assert_eq!(out, retained("", false, Omitted::None, None));
}

#[test]
fn push_reports_kept_per_chunk_and_truncated_cumulatively() {
    let mut r = TextRetainer::new(Strategy::Head { max_bytes: 4 });
    assert_eq!(
        r.push(b"ab"),
        PushOutcome {
            kept: true,
            truncated: false
        }
    );
    assert_eq!(
        r.push(b"cde"),
        PushOutcome {
            kept: false,
            truncated: true
        }
    );
    assert_eq!(
        r.push(b""),
        PushOutcome {
            kept: true,
            truncated: true
        }
    );

    // Tail: a chunk that evicts older bytes is itself kept.
    let mut r = TextRetainer::new(Strategy::Tail { max_bytes: 3 });
    assert!(r.push(b"ab").kept);
    assert_eq!(
        r.push(b"cd"),
        PushOutcome {
            kept: true,
            truncated: true
        }
    );
    assert!(!r.push(b"wxyz").kept);
    assert_eq!(r.total_bytes(), 8);
    assert!(r.is_truncated());
}

#[test]
fn stray_continuation_and_invalid_lead_bytes_are_left_alone_in_the_head() {
    // Four continuation bytes: no lead within reach, nothing trimmed; decoded lossily.
    let out = run(Strategy::Head { max_bytes: 5 }, &[b"a\x80\x80\x80\x80zz"]);
    assert_eq!(out.omitted_bytes, Omitted::Exact(2));
    assert_eq!(out.text, "a\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}");
    // Invalid lead 0xF8: left alone.
    let out = run(Strategy::Head { max_bytes: 2 }, &[b"a\xF8zz"]);
    assert_eq!(out.omitted_bytes, Omitted::Exact(2));
    assert_eq!(out.text, "a\u{FFFD}");
    // ASCII before the continuation bytes: stray, left alone.
    let out = run(Strategy::Head { max_bytes: 2 }, &[b"a\x80zz"]);
    assert_eq!(out.omitted_bytes, Omitted::Exact(2));
}

#[test]
fn invalid_utf8_without_omission_decodes_lossily() {
    let out = run(Strategy::Tail { max_bytes: 10 }, &[b"a\xFFb"]);
    assert_eq!(out, retained("a\u{FFFD}b", false, Omitted::None, None));
}

#[test]
fn convenience_head_and_tail_cut_on_char_boundaries() {
    assert_eq!(head("a€b", 3), "a");
    assert_eq!(head("a€b", 4), "a€");
    assert_eq!(head("a€b", 100), "a€b");
    assert_eq!(head("a€b", 0), "");
    assert_eq!(tail("a€b", 3), "b");
    assert_eq!(tail("a€b", 4), "€b");
    assert_eq!(tail("a€b", 0), "");
    assert_eq!(tail("a€b", 100), "a€b");
}

#[test]
fn describe_and_notice_join_non_empty_halves() {
    assert_eq!(
        describe_omitted(&Omitted::Exact(12), "bytes"),
        "Omitted 12 bytes."
    );
    assert_eq!(describe_omitted(&Omitted::Exact(0), "bytes"), "");
    assert_eq!(describe_omitted(&Omitted::None, "bytes"), "");
    assert_eq!(
        format_retention_notice(&Omitted::Exact(3), "bytes", "Call read for more."),
        "Omitted 3 bytes. Call read for more."
    );
    assert_eq!(
        format_retention_notice(&Omitted::Exact(3), "bytes", ""),
        "Omitted 3 bytes."
    );
    assert_eq!(
        format_retention_notice(&Omitted::None, "bytes", "Call read for more."),
        "Call read for more."
    );
    assert_eq!(format_retention_notice(&Omitted::None, "bytes", ""), "");
}

#[test]
fn companion_says_why_there_is_no_check() {
    use dsh_context::Context;
    use dsh_invariants::{Invariants, InvariantsPlugin};
    let ctx = Context::builder()
        .with(InvariantsPlugin)
        .with(invariant_companion())
        .apply()
        .unwrap_or_else(|e| panic!("{e}"));
    let inv = ctx
        .require::<Invariants>()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        inv.reason("dsh-output-retention")
            .is_some_and(|r| r.starts_with("no runtime invariant:"))
    );
}

// ---- property tests -------------------------------------------------------------------------

fn strategy_strategy() -> impl proptest::strategy::Strategy<Value = Strategy> {
    prop_oneof![
        (0usize..40).prop_map(|max_bytes| Strategy::Head { max_bytes }),
        (0usize..40).prop_map(|max_bytes| Strategy::Tail { max_bytes }),
        (0usize..40, 0usize..40).prop_map(|(head_bytes, tail_bytes)| Strategy::HeadTail {
            head_bytes,
            tail_bytes
        }),
    ]
}

fn text_strategy() -> impl proptest::strategy::Strategy<Value = String> {
    // Mix ASCII with 2-, 3- and 4-byte chars so cuts land inside code points.
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('z'),
            Just('\n'),
            Just('é'),
            Just('€'),
            Just('😀'),
            any::<char>()
        ],
        0..60,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// The longest prefix of `text` within `max_bytes` that ends on a char boundary.
fn char_prefix(text: &str, max_bytes: usize) -> &str {
    let end = (0..=max_bytes.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    &text[..end]
}

/// The longest suffix of `text` within `max_bytes` that starts on a char boundary.
fn char_suffix(text: &str, max_bytes: usize) -> &str {
    let start = (text.len().saturating_sub(max_bytes)..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    &text[start..]
}

/// Splits `bytes` at the given (sorted, deduplicated, clamped) positions.
fn chunk(bytes: &[u8], mut cuts: Vec<usize>) -> Vec<&[u8]> {
    cuts.iter_mut().for_each(|c| *c = (*c).min(bytes.len()));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut start = 0;
    for c in cuts {
        out.push(&bytes[start..c]);
        start = c;
    }
    out.push(&bytes[start..]);
    out
}

proptest! {
    #[test]
    fn valid_utf8_properties(
        strategy in strategy_strategy(),
        text in text_strategy(),
        cuts in proptest::collection::vec(0usize..250, 0..8),
    ) {
        let whole = run(strategy, &[text.as_bytes()]);
        let chunked = run(strategy, &chunk(text.as_bytes(), cuts));
        // Independent of chunking.
        prop_assert_eq!(&chunked, &whole);

        let (head_cap, tail_cap) = strategy.budgets();
        // Retained bytes within the budget.
        prop_assert!(whole.text.len() <= head_cap + tail_cap);

        match whole.omitted_bytes {
            Omitted::None => {
                prop_assert!(!whole.truncated);
                prop_assert_eq!(&whole.text, &text);
            }
            Omitted::Exact(n) => {
                prop_assert!(whole.truncated);
                // retained + omitted = total.
                prop_assert_eq!(whole.text.len() as u64 + n, text.len() as u64);
                // The head part is a prefix and the tail part a suffix of the input, each
                // the longest that fits its budget on a char boundary (a stream keeps code
                // points whole, not grapheme clusters as `head_slice` does: the character
                // after its cut may be a mark it has not seen yet, or its first one, gone).
                let gap = whole.gap_offset_bytes.unwrap_or(usize::MAX);
                let (h, t) = whole.text.split_at(gap);
                prop_assert!(text.starts_with(h));
                prop_assert!(text.ends_with(t));
                prop_assert_eq!(h, char_prefix(&text, head_cap));
                prop_assert_eq!(t, char_suffix(&text, tail_cap));
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_are_chunk_independent(
        strategy in strategy_strategy(),
        bytes in proptest::collection::vec(any::<u8>(), 0..120),
        cuts in proptest::collection::vec(0usize..130, 0..8),
    ) {
        let whole = run(strategy, &[&bytes]);
        let chunked = run(strategy, &chunk(&bytes, cuts));
        prop_assert_eq!(&chunked, &whole);
        let (head_cap, tail_cap) = strategy.budgets();
        prop_assert!(whole.omitted_bytes.count() <= bytes.len() as u64);
        prop_assert_eq!(whole.truncated, bytes.len() > head_cap + tail_cap);
    }

    #[test]
    fn convenience_fns_are_bounded_prefixes_and_suffixes(text in text_strategy(), max in 0usize..250) {
        use unicode_segmentation::UnicodeSegmentation as _;
        let h = head(&text, max);
        let t = tail(&text, max);
        prop_assert!(h.len() <= max && text.starts_with(&h));
        prop_assert!(t.len() <= max && text.ends_with(&t));
        // Each keeps all it can: within a code point of the bound, or cut between grapheme
        // clusters where the next one (a letter with its marks) would not fit.
        let bounds: Vec<usize> = text
            .grapheme_indices(true)
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        let head_full = h.len() + 3 >= max.min(text.len())
            || (bounds.contains(&h.len()) && bounds.iter().any(|&b| b > h.len() && b > max));
        let start = text.len() - t.len();
        let tail_full = t.len() + 3 >= max.min(text.len())
            || (bounds.contains(&start)
                && bounds.iter().any(|&b| b < start && text.len() - b > max));
        prop_assert!(head_full, "head {h:?} of {text:?} within {max}");
        prop_assert!(tail_full, "tail {t:?} of {text:?} within {max}");
    }
}

#[test]
fn tail_whole_lines_never_starts_inside_a_line() {
    let text = "4614\n4615\n4616";
    assert_eq!(tail_whole_lines(text, 100), text);
    assert_eq!(tail_whole_lines(text, 9), "4615\n4616");
    assert_eq!(tail_whole_lines(text, 8), "4616");
    assert_eq!(tail_whole_lines(text, 3), "");
    assert_eq!(tail_whole_lines("a\n", 1), "");
    assert_eq!(tail_whole_lines("ab\ncd\n", 3), "cd\n");
    // Char boundaries hold.
    assert_eq!(tail_whole_lines("一二\n三", 4), "三");
}

/// A cut never parts a letter from its combining accents, an emoji sequence at its joiners,
/// or a flag's two halves; a cluster longer than the shift bound is cut at a code point.
#[test]
fn cuts_fall_between_grapheme_clusters() {
    let accents = "e\u{301}\u{302}".repeat(10);
    for max in 0..accents.len() {
        let head = head_slice(&accents, max);
        let tail = tail_slice(&accents, max);
        assert_eq!(head.len() % 5, 0, "{max}: {head:?}");
        assert_eq!(tail.len() % 5, 0, "{max}: {tail:?}");
        assert!(head.len() <= max && tail.len() <= max);
    }
    let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
    let text = format!("ab{family}{family}cd");
    for max in 0..text.len() {
        let head = head_slice(&text, max);
        let tail = tail_slice(&text, max);
        for kept in [head, tail] {
            assert!(
                !kept.starts_with('\u{200d}') && !kept.ends_with('\u{200d}'),
                "{max}: {kept:?}"
            );
        }
    }
    let flags = "\u{1f1eb}\u{1f1f7}\u{1f1e9}\u{1f1ea}";
    assert_eq!(head_slice(flags, 12), "\u{1f1eb}\u{1f1f7}");
    assert_eq!(tail_slice(flags, 12), "\u{1f1e9}\u{1f1ea}");
    // One letter with 100 accents: cut at a code point, not emptied.
    let zalgo = format!("a{}", "\u{301}".repeat(100));
    assert_eq!(head_slice(&zalgo, 150).len(), 149);
}

/// A stream keeps code points whole at its cuts, not clusters (it may not have seen the mark
/// after its head's cut, nor kept the CR before its tail's LF): inputs `valid_utf8_properties`
/// once found, when it compared a stream's cuts with `head_slice` and `tail_slice`.
#[test]
fn a_streams_cuts_keep_code_points_whole() {
    let text = "\r\naa0aé€aé😀";
    let kept = run(Strategy::Tail { max_bytes: 17 }, &[text.as_bytes()]);
    assert_eq!(kept.text, "\naa0aé€aé😀");
    let text = "€€a😀a€aa\u{11127}";
    let kept = run(Strategy::Head { max_bytes: 20 }, &[text.as_bytes()]);
    assert_eq!(kept.text, "€€a😀a€aa");
}

/// A cut that would part a character from the variation selector after it keeps the pair out
/// whole (found by the property above: `€` and U+E0100 are one cluster of 7 bytes).
#[test]
fn a_cut_keeps_a_character_and_its_variation_selector_together() {
    let text = "€\u{e0100}é😀😀0aaaa😀€aa😀😀éaaaA😀éé€";
    for max in 0..text.len() {
        let h = head(text, max);
        assert!(h.is_empty() || h.len() >= 7, "{max}: {h:?}");
    }
}

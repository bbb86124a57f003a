//! Terminal queries a program writes are answered as xterm answers them.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn dsr_and_da_queries_are_answered() {
    let mut s = screen();
    let out = s.feed(b"abc\x1b[6n");
    assert_eq!(out.replies, vec![b"\x1b[1;4R".to_vec()]);
    let out = s.feed(b"\r\n\x1b[c\x1b[>c\x1b[5n");
    assert_eq!(
        out.replies,
        vec![
            b"\x1b[?1;2c".to_vec(),
            b"\x1b[>0;0;0c".to_vec(),
            b"\x1b[0n".to_vec()
        ]
    );
    // Window-size queries (text area in characters, screen, pixels, cell).
    let out = s.feed(b"\x1b[18t\x1b[19t\x1b[14t\x1b[16t");
    assert_eq!(
        out.replies,
        vec![
            b"\x1b[8;24;80t".to_vec(),
            b"\x1b[9;24;80t".to_vec(),
            b"\x1b[4;384;640t".to_vec(),
            b"\x1b[6;16;8t".to_vec(),
        ]
    );
    // Mode reports (DECRQM), for modes kept and not, the tertiary attributes and the
    // terminal's version.
    let out = s.feed(b"\x1b[?2004h\x1b[?2004$p\x1b[?1$p\x1b[?25$p\x1b[?2026$p\x1b[4$p");
    assert_eq!(
        out.replies,
        vec![
            b"\x1b[?2004;1$y".to_vec(),
            b"\x1b[?1;2$y".to_vec(),
            b"\x1b[?25;1$y".to_vec(),
            b"\x1b[?2026;0$y".to_vec(),
            b"\x1b[4;0$y".to_vec(),
        ]
    );
    let out = s.feed(b"\x1b[=c\x1b[>q\x1b[>0q");
    let version = format!("\x1bP>|dsh-terminal({})\x1b\\", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        out.replies,
        vec![
            b"\x1bP!|00000000\x1b\\".to_vec(),
            version.clone().into_bytes(),
            version.into_bytes(),
        ]
    );
    // Other window operations (moving, iconifying, titles) get no reply.
    assert!(s.feed(b"\x1b[21t\x1b[2t\x1b[22;0t").replies.is_empty());
    // A query split across chunks is answered once it completes.
    assert!(s.feed(b"\x1b[").replies.is_empty());
    assert_eq!(s.feed(b"6n").replies, vec![b"\x1b[2;1R".to_vec()]);
    assert_eq!(s.transcript(), "abc\n");
}

#[test]
fn colour_identity_and_dcs_queries_are_answered() {
    let mut s = screen();
    // Colours: foreground and background at once, the cursor's, palette entries (an ANSI
    // colour, one of the cube, one of the greys); each reply ends as its query did.
    let out = s.feed(b"\x1b]10;?;?\x07\x1b]12;?\x1b\\\x1b]4;1;?;196;?;250;?\x07");
    assert_eq!(
        out.replies,
        vec![
            b"\x1b]10;rgb:ffff/ffff/ffff\x07".to_vec(),
            b"\x1b]11;rgb:0000/0000/0000\x07".to_vec(),
            b"\x1b]12;rgb:ffff/ffff/ffff\x1b\\".to_vec(),
            b"\x1b]4;1;rgb:cdcd/0000/0000\x07".to_vec(),
            b"\x1b]4;196;rgb:ffff/0000/0000\x07".to_vec(),
            b"\x1b]4;250;rgb:bcbc/bcbc/bcbc\x07".to_vec(),
        ]
    );
    // Setting a colour is no query.
    assert!(
        s.feed(b"\x1b]10;#ffffff\x07\x1b]4;1;red\x07")
            .replies
            .is_empty()
    );
    // DECID, DECREQTPARM, the colour scheme.
    let out = s.feed(b"\x1bZ\x1b[x\x1b[1x\x1b[?996n");
    assert_eq!(
        out.replies,
        vec![
            b"\x1b[?1;2c".to_vec(),
            b"\x1b[2;1;1;112;112;1;0x".to_vec(),
            b"\x1b[3;1;1;112;112;1;0x".to_vec(),
            b"\x1b[?997;1n".to_vec(),
        ]
    );
    // DECRQSS (attributes, scroll region, an unknown setting) and XTGETTCAP, a query split
    // across reads included; nothing of them shows.
    let out =
        s.feed(b"\x1b[1;31m\x1bP$qm\x1b\\\x1b[3;10r\x1bP$qr\x1b\\\x1bP$q\"p\x1b\\\x1b[0m\x1bP+q54");
    assert_eq!(
        out.replies,
        vec![
            b"\x1bP1$r0;31;1m\x1b\\".to_vec(),
            b"\x1bP1$r3;10r\x1b\\".to_vec(),
            b"\x1bP0$r\x1b\\".to_vec(),
        ]
    );
    let out = s.feed(b"4e\x1b\\\x1b[r");
    assert_eq!(
        out.replies,
        vec![b"\x1bP1+r544e=787465726D2D323536636F6C6F72\x1b\\".to_vec()]
    );
    // Other DCS strings (sixel data) get no reply.
    assert!(s.feed(b"\x1bPq#0;2;0;0;0#0~~\x1b\\").replies.is_empty());
    assert_eq!(s.transcript(), "");
}

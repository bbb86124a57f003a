//! Notices about how the output reached the screen: bytes that are not UTF-8, lines cut at
//! the right edge with auto-wrap off, invisible characters.

use super::*;

#[test]
fn output_that_is_not_utf8_is_said_to_need_its_encoding() {
    let latin1 = SettleFacts {
        output: OutputNotes {
            undecodable: true,
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("undecodable", assemble(latin1).notices.join("\n"));
    assert!(assemble(facts(Settle::Prompt)).notices.is_empty());
}

#[test]
fn lines_cut_at_the_right_edge_with_auto_wrap_off_are_said_to_be() {
    let cut = SettleFacts {
        output: OutputNotes {
            cut_at_edge: true,
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("cut_at_edge", assemble(cut).notices.join("\n"));
}

#[test]
fn lines_the_program_erased_before_they_were_shown_are_said_to_be() {
    let erased = |rows: u64, first: &str, last: &str, problem: Option<&str>| SettleFacts {
        output: OutputNotes {
            erased: Some(crate::screen::clears::ErasedLines {
                rows,
                frames: if problem.is_some() { 47 } else { 0 },
                first: first.to_owned(),
                last: last.to_owned(),
                problem: problem.map(str::to_owned),
            }),
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    };
    let one = erased(1, "ERROR: disk full", "ERROR: disk full", None);
    let same = erased(12, "Downloading 45%", "Downloading 45%", None);
    let two = erased(4, "FAIL: test_login", "| retrying...", None);
    let among = erased(3, "test_a ok", "test_c ok", Some("test_b FAILED"));
    insta::assert_snapshot!(
        "erased",
        [one, same, two, among]
            .into_iter()
            .flat_map(|f| assemble(f).notices)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn text_typed_ahead_that_a_prompt_took_or_the_terminal_echoed_is_said_to_be() {
    let taken = SettleFacts {
        typed_ahead_taken: Some("sleep".to_owned()),
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("typed_ahead_taken", assemble(taken).notices.join("\n"));
    let echoed = SettleFacts {
        typed_ahead_echoed: Some("python3".to_owned()),
        echo_off: true,
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!("typed_ahead_echoed", assemble(echoed).notices.join("\n"));
    let held = SettleFacts {
        held_text_taken: Some("sleep".to_owned()),
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("held_text_taken", assemble(held).notices.join("\n"));
}

#[test]
fn text_an_unended_escape_string_hid_is_quoted() {
    let string = |introducer: u8, body: &[u8]| crate::screen::notes::UnendedString {
        introducer,
        body: body.to_vec(),
    };
    let one = assemble(SettleFacts {
        output: OutputNotes {
            unended_string: Some((string(b'P', b"PRETTY_NAME=\"Debian GNU/Linux 12\""), 1)),
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    });
    insta::assert_snapshot!("unended_dcs", one.notices.join("\n"));
    let several = assemble(SettleFacts {
        output: OutputNotes {
            unended_string: Some((string(b']', b"0;titlevisible-after"), 3)),
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    });
    insta::assert_snapshot!("unended_osc_and_more", several.notices.join("\n"));
}

#[test]
fn text_printed_in_line_drawing_is_quoted() {
    let drawn = assemble(SettleFacts {
        output: OutputNotes {
            line_drawn_text: Some(("error: disk quota exceeded".to_owned(), 3)),
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    });
    insta::assert_snapshot!("line_drawn_text", drawn.notices.join("\n"));
}

#[test]
fn a_row_that_mixes_two_texts_is_quoted() {
    let mixed = assemble(SettleFacts {
        output: OutputNotes {
            mixed_row: Some(("2,bob,b@y@x.org".to_owned(), 2)),
            ..OutputNotes::default()
        },
        ..facts(Settle::Prompt)
    });
    insta::assert_snapshot!("mixed_row", mixed.notices.join("\n"));
}

#[test]
fn invisible_characters_in_the_output_are_said_to_be_there() {
    for (invisible, name) in [
        (('\u{feff}', 1), "invisible_character"),
        (('\u{200b}', 3), "invisible_characters"),
    ] {
        let facts = SettleFacts {
            output: OutputNotes {
                invisible: Some(invisible),
                ..OutputNotes::default()
            },
            ..facts(Settle::Prompt)
        };
        insta::assert_snapshot!(name, assemble(facts).notices.join("\n"));
    }
}

#[test]
fn concealed_characters_in_the_output_are_said_to_be_there() {
    for (count, name) in [(1, "concealed_character"), (6, "concealed_characters")] {
        let facts = SettleFacts {
            output: OutputNotes {
                concealed: count,
                ..OutputNotes::default()
            },
            ..facts(Settle::Prompt)
        };
        insta::assert_snapshot!(name, assemble(facts).notices.join("\n"));
    }
    let facts = facts(Settle::Prompt);
    assert!(assemble(facts).notices.is_empty());
}

#[test]
fn highlighted_text_on_screen_is_quoted() {
    let row = |row: u16, runs: &[&str], text: &str| crate::screen::highlight::HighlightedRow {
        row,
        runs: runs.iter().map(|run| (*run).to_owned()).collect(),
        text: text.to_owned(),
    };
    let menu = vec![row(4, &["Remove"], "  Remove")];
    // A pager's search matches: several runs on a row, more rows than the notice quotes, and
    // its status line.
    let search = vec![
        row(0, &["a", "a", "a", "a"], "alpha beta gamma"),
        row(1, &["a"], "zeta"),
        row(
            2,
            &["x".repeat(50).as_str()],
            &format!("{} and more", "x".repeat(50)),
        ),
        row(5, &["a"], "a"),
        row(9, &["a"], "data"),
        row(23, &["(END)"], "(END)"),
    ];
    for (rows, name) in [
        (menu, "highlighted_menu_item"),
        (search, "highlighted_search"),
    ] {
        let facts = SettleFacts {
            output: OutputNotes {
                highlighted: rows,
                ..OutputNotes::default()
            },
            ..facts(Settle::Prompt)
        };
        insta::assert_snapshot!(name, assemble(facts).notices.join("\n"));
    }
}

//! The notice for text a send typed whose deadline passed before the shell was done with it:
//! with no program to name, the result must still say that the text went in and goes on (a
//! bare `timeout` with no output reads as if nothing happened, and the text would be sent
//! again).

use super::*;

#[test]
fn typed_text_the_deadline_overtook_is_said_typed() {
    let bare = SettleFacts {
        rendered: Rendered {
            text: String::new(),
            truncated: false,
        },
        typed_unfinished: true,
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!("typed_unfinished", assemble(bare).notices.join("\n"));
    // Said otherwise, or not the case: a program of it runs, the shell runs a line of its own
    // or is stopped, the text waits unread, another settle.
    for facts in [
        SettleFacts {
            foreground: Some("sleep".to_owned()),
            typed_unfinished: true,
            ..facts(Settle::Timeout)
        },
        SettleFacts {
            shell_running_line: true,
            typed_unfinished: true,
            ..facts(Settle::Timeout)
        },
        SettleFacts {
            shell_stopped: true,
            typed_unfinished: true,
            ..facts(Settle::Timeout)
        },
        SettleFacts {
            input_unread: true,
            shell_running_line: true,
            typed_unfinished: true,
            ..facts(Settle::Timeout)
        },
        SettleFacts {
            typed_unfinished: true,
            ..facts(Settle::Prompt)
        },
        facts(Settle::Timeout),
    ] {
        let notices = assemble(facts).notices.join("\n");
        assert!(!notices.contains("before the shell was done"), "{notices}");
    }
}

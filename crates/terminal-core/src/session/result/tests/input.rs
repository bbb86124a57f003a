//! Notices about where the send's text went and what the shell said of it: a password prompt
//! it answered, a command whose exit code is unknown.

use super::*;

#[test]
fn a_line_to_a_password_prompt_is_said_to_have_answered_it() {
    for (name, prompt) in [
        ("answered_password", "Password:"),
        ("answered_password_unprompted", ""),
    ] {
        let answered = SettleFacts {
            answered_password: Some(prompt.to_owned()),
            ..facts(Settle::Prompt)
        };
        insta::assert_snapshot!(name, assemble(answered).notices.join("\n"));
    }
}

#[test]
fn a_status_no_mark_tells_from_an_empty_lines_is_said_to_be_unknown() {
    let unknown = assemble(SettleFacts {
        exit_unknown: true,
        ..facts(Settle::Prompt)
    });
    insta::assert_snapshot!("exit_unknown", unknown.notices.join("\n"));
}

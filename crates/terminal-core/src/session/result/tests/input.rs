//! Notices about where the send's text went and what the shell said of it: a password prompt
//! it answered, a command whose exit code is unknown, errexit in the shell, a cancelled send
//! nobody saw.

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

#[test]
fn a_result_after_a_cancelled_send_nobody_saw_says_its_command_was_interrupted() {
    let after_cancel = SettleFacts {
        earlier_cancel: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("earlier_cancel", assemble(after_cancel).notices.join("\n"));
    assert!(assemble(facts(Settle::Prompt)).notices.is_empty());
}

#[test]
fn errexit_in_the_shell_is_said_and_so_is_the_end_it_caused() {
    let errexit = SettleFacts {
        errexit_on: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("errexit_on", assemble(errexit).notices.join("\n"));
    let ended = SettleFacts {
        errexit_ended: true,
        status: SessionStatus::Exited {
            exit_code: Some(1),
            signal: None,
        },
        ..facts(Settle::Exit)
    };
    insta::assert_snapshot!("errexit_ended", assemble(ended).notices.join("\n"));
}

#[test]
fn an_exiting_err_trap_in_the_shell_is_said_and_so_is_the_end_it_caused() {
    let set = SettleFacts {
        exiting_err_trap: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("err_trap_on", assemble(set).notices.join("\n"));
    let ended = SettleFacts {
        exiting_err_trap: true,
        status: SessionStatus::Exited {
            exit_code: Some(3),
            signal: None,
        },
        ..facts(Settle::Exit)
    };
    insta::assert_snapshot!("err_trap_ended", assemble(ended).notices.join("\n"));
}

#[test]
fn a_line_keys_left_at_the_shells_prompt_is_quoted() {
    let edited = SettleFacts {
        edited_line: Some("python3 keys_src.py".to_owned()),
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!("edited_line", assemble(edited).notices.join("\n"));
}

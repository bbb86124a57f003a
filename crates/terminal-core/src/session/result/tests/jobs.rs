//! Notices for the shell's jobs found stopped as a send settled: one stopped in the foreground
//! (the Ctrl-Z key) is said as `terminal_signal SIGTSTP` says it, one stopped in the
//! background (it read the terminal) with how to answer it; each stopped, not finished.

use pretty_assertions::assert_eq;

use super::*;

fn job(program: &str, was_in_foreground: bool) -> StoppedJob {
    StoppedJob {
        program: program.to_owned(),
        was_in_foreground,
    }
}

#[test]
fn a_job_found_stopped_is_said_stopped_with_how_to_go_on() {
    let by_key = SettleFacts {
        stopped_jobs: vec![job("sleep", true)],
        ..facts(Settle::Prompt)
    };
    let notices = assemble(by_key).notices;
    assert_eq!(
        notices,
        vec![format!("[job: {}]", stopped_job_advice("sleep"))]
    );
    insta::assert_snapshot!("stopped_in_the_foreground", notices.join("\n"));
    let reading = SettleFacts {
        stopped_jobs: vec![job("python3", false)],
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!(
        "stopped_in_the_background",
        assemble(reading).notices.join("\n")
    );
    // One notice per job.
    let both = SettleFacts {
        stopped_jobs: vec![job("vim", true), job("cat", false)],
        ..facts(Settle::StdinWait)
    };
    assert_eq!(assemble(both).notices.len(), 2);
    // Not once the shell is gone with them.
    let exited = SettleFacts {
        stopped_jobs: vec![job("sleep", true)],
        ..facts(Settle::Exit)
    };
    assert!(assemble(exited).notices.is_empty());
}

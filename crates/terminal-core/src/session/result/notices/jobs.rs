//! The texts for a job of the shell that is stopped (job control): what it is and how it goes
//! on or ends. One home for `terminal_signal`'s SIGTSTP result (see [`stopped_job_advice`])
//! and a send's notice for a job its output shows stopped (see [`SettleFacts::stopped_jobs`]).

#[cfg(doc)]
use super::super::SettleFacts;
use super::super::StoppedJob;

/// How stopped jobs are listed and ended, and what `exit` does while one is stopped.
const STOPPED_JOBS_TAIL: &str = "jobs lists the jobs with their numbers, kill %N ends job \
     N; exit refuses once while a job is stopped";

/// What became of `program`, stopped in the foreground (SIGTSTP: `terminal_signal`, or the
/// Ctrl-Z key), and how to continue it: `terminal_signal`'s SIGTSTP result and a send's notice
/// say it alike.
pub fn stopped_job_advice(program: &str) -> String {
    format!(
        "{program} is stopped (suspended, with its state kept) and the shell holds the terminal \
         again: text sent next runs as a shell command, not in {program}; send fg to continue \
         it where it was (only it: a shell loop it ran in does not go on; {STOPPED_JOBS_TAIL})"
    )
}

/// The notice for one of [`SettleFacts::stopped_jobs`]: stopped, not finished, and how to go
/// on. One that held the terminal during the send was stopped there (the Ctrl-Z key); another
/// is a job in the background, which the kernel stops when it reads the terminal (SIGTTIN; or
/// writes to it under `stty tostop`: SIGTTOU), or that got SIGSTOP.
pub(in crate::session::result) fn stopped_job_notice(job: &StoppedJob) -> String {
    let program = &job.program;
    if job.was_in_foreground {
        return format!("[job: {}]", stopped_job_advice(program));
    }
    format!(
        "[job: {program}, a job in the background, is stopped (suspended, with its state kept), \
         not finished: a job in the background stops when it reads the terminal (or writes to \
         it under stty tostop), or on SIGSTOP; send fg to bring it to the foreground, where it \
         goes on and reads what is sent next (answer it there), bg to let it go on in the \
         background (it stops again if it reads the terminal), or end it ({STOPPED_JOBS_TAIL})]"
    )
}

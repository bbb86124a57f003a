//! What a killed job's command left running behind the shell's prompt: processes of the
//! program groups the kill went to that outlived the command line (a non-interactive shell's
//! `server &` children ignore SIGINT, so the interrupt ended the shell that started them and
//! left them running in its group, which no longer holds the terminal).

use std::time::Duration;

use dsh_context::Agent;
use dsh_terminal_core::{SessionId, TerminalSignal};

use super::follow::KILL_ESCALATION;
use crate::Terminals;

/// How often the groups are looked at while they are being stopped.
const LOOK_EVERY: Duration = Duration::from_millis(50);
/// How long past the SIGKILL the groups may take to empty before the job gives up on them.
const AFTER_SIGKILL: Duration = Duration::from_secs(1);
/// Most program names a notice lists.
const MOST_NAMED: usize = 6;

/// The program names of the live processes of `groups` in session `id`.
fn members(terminals: &Terminals, owner: &Agent, id: &SessionId, groups: &[i32]) -> Vec<String> {
    groups
        .iter()
        .flat_map(|&pgid| terminals.group_members(owner, id, pgid))
        .collect()
}

/// `names` as a notice lists them (the first [`MOST_NAMED`], then how many more).
fn listed(names: &[String]) -> String {
    let text = names
        .iter()
        .take(MOST_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match names.len().checked_sub(MOST_NAMED) {
        Some(more) if more > 0 => format!("{text} and {more} more"),
        _ => text,
    }
}

/// Stops what is left of `groups` (the program groups a killed job's interrupt went to or that
/// held the terminal after it) once the shell's prompt came back: the kill goes on with them,
/// as it would have had they held the terminal, SIGTERM once [`KILL_ESCALATION`] passed since
/// `killed_at` and SIGKILL once it passed again, until none is left. Returns the notice that
/// says what ran on and how it ended, or `None` when nothing of the groups was left.
pub(super) async fn stop_stragglers(
    terminals: &Terminals,
    owner: &Agent,
    id: &SessionId,
    groups: &[i32],
    killed_at: tokio::time::Instant,
) -> Option<String> {
    let first = members(terminals, owner, id, groups);
    if first.is_empty() {
        return None;
    }
    let names = listed(&first);
    let mut sent: Vec<&str> = Vec::new();
    let give_up = killed_at + 2 * KILL_ESCALATION + AFTER_SIGKILL;
    loop {
        let left = members(terminals, owner, id, groups);
        if left.is_empty() {
            let how = if sent.is_empty() {
                "they ended by themselves since".to_owned()
            } else {
                format!(
                    "job_kill then sent them {}, and they are gone",
                    sent.join(", then ")
                )
            };
            return Some(format!(
                "[job: the interrupt ended the command line, but processes it started in the same process group ran on after the shell's prompt came back ({names}: a program started with & by a non-interactive shell ignores SIGINT); {how}]"
            ));
        }
        let now = tokio::time::Instant::now();
        if now >= give_up {
            return Some(format!(
                "[job: processes the command started in its process group still run after job_kill's SIGINT, SIGTERM and SIGKILL ({}): terminal_close {{\"sessionId\": \"{id}\"}} ends the session and everything in it]",
                listed(&left)
            ));
        }
        let due = match sent.len() {
            0 if now >= killed_at + KILL_ESCALATION => Some(TerminalSignal::Sigterm),
            1 if now >= killed_at + 2 * KILL_ESCALATION => Some(TerminalSignal::Sigkill),
            _ => None,
        };
        if let Some(signal) = due {
            sent.push(if signal == TerminalSignal::Sigterm {
                "SIGTERM"
            } else {
                "SIGKILL"
            });
            for &pgid in groups {
                if terminals.signal_group(owner, id, pgid, signal) {
                    tracing::debug!(session_id = %id, pgid, %signal, "signalled what a killed job left running");
                }
            }
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_listed_up_to_a_bound() {
        let names: Vec<String> = (0..8).map(|i| format!("p{i}")).collect();
        assert_eq!(super::listed(&names[..2]), "p0, p1");
        assert_eq!(super::listed(&names), "p0, p1, p2, p3, p4, p5 and 2 more");
    }
}

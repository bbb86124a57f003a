//! The renders of opening, listing and closing sessions (`terminal_open`, `terminal_list`,
//! `terminal_close`).

use super::bound::{bound_body_with_suffix, fit_with_prefix};
use crate::schema::{OpenOutput, SessionOutput};

/// `terminal_open`: `started terminal session <id>[ (<name>)] [type: <type>]\n<motd>`.
pub fn render_spawn(result: &OpenOutput, max_bytes: usize) -> String {
    let snapshot = &result.session;
    let label = match &snapshot.name {
        Some(name) => format!("{} ({name})", snapshot.session_id),
        None => snapshot.session_id.to_string(),
    };
    let prefix = format!(
        "started terminal session {label} [type: {}]\n",
        snapshot.backend_type
    );
    let motd = if result.motd.is_empty() {
        "(no startup output)"
    } else {
        result.motd.as_str()
    };
    let complete = format!("{prefix}{motd}");
    if complete.len() <= max_bytes {
        complete
    } else {
        fit_with_prefix(&prefix, motd, max_bytes)
    }
}

/// `terminal_list`: one line per session, `<id>[ (<name>)] [<type>] <status>[ pid=<pid>]`, or
/// `(no terminal sessions)`.
pub fn render_list(sessions: &[SessionOutput], max_bytes: usize) -> String {
    if sessions.is_empty() {
        return "(no terminal sessions)".to_owned();
    }
    let lines: Vec<String> = sessions
        .iter()
        .map(|s| {
            let name = s
                .name
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            let pid = s.pid.map(|p| format!(" pid={p}")).unwrap_or_default();
            format!(
                "{}{name} [{}] {}{pid}",
                s.session_id,
                s.backend_type,
                s.status.render()
            )
        })
        .collect();
    bound_body_with_suffix(&lines.join("\n"), "", false, max_bytes)
}

/// `terminal_close`: `closed terminal session <id> [stopped N processes]` or
/// `terminal session <id> was already closing`, then, when the close ended a background
/// send's job (`ended_job`), `[ended background job <job> (killed)]`.
pub fn render_close(
    session_id: &str,
    processes_stopped: Option<usize>,
    ended_job: Option<&str>,
) -> String {
    let closed = match processes_stopped {
        Some(n) => format!(
            "closed terminal session {session_id} [stopped {n} process{}]",
            if n == 1 { "" } else { "es" }
        ),
        None => format!("terminal session {session_id} was already closing"),
    };
    match ended_job {
        Some(job) => format!("{closed} [ended background job {job} (killed)]"),
        None => closed,
    }
}

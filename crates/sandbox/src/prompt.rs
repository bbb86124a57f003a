//! The system prompt section that tells the model what the default sandbox changes for its
//! sessions: where it may write, that each session's `/tmp` and network are its own, and what
//! to do about it (share files through the workspace; run a server and its client in one
//! session). A model that does not know would take these for faults.

use crate::mode::SandboxMode;

/// The section's name in the system prompt.
pub const PROMPT_SECTION_NAME: &str = "sandbox";
/// Its order: right after the terminal tools' guidance (106).
pub const PROMPT_SECTION_ORDER: i32 = 107;

/// The section for the host's default `mode`; `None` without confinement. It names no path:
/// the text is the same wherever the server runs.
pub(crate) fn prompt_text(mode: SandboxMode, allow_network: bool) -> Option<String> {
    let writes = match mode {
        SandboxMode::DangerFullAccess => return None,
        SandboxMode::WorkspaceWrite => {
            "only the workspace directory (where sessions start unless opened with another cwd) and the session's own /tmp are writable; the rest of the filesystem, the home directory included, is read-only".to_owned()
        }
        SandboxMode::ReadOnly => "the whole filesystem is read-only".to_owned(),
    };
    let network = if allow_network {
        "shares the host's network"
    } else {
        "has no network: a port one session listens on cannot be reached from another"
    };
    let mut advice = Vec::new();
    if mode == SandboxMode::WorkspaceWrite {
        advice.push("Keep files that other sessions or later steps need in the workspace.");
    }
    if !allow_network {
        advice.push(
            "Run a server and the client that talks to it in the same session (the server in the background with &).",
        );
    }
    let keep = advice.join(" ");
    Some(format!(
        "Terminal sessions are sandboxed ({mode}): {writes}. Each session has its own private /tmp, emptied when it closes: a file written there (outside the workspace) reaches neither the host nor other sessions; and it {network}. Setting the set-user-ID or set-group-ID bit (chmod u+s, g+s, or 755 on a directory that has g+s: use 00755) and the kernel's key rings are refused (\"Operation not permitted\"). {keep}"
    )
    .trim_end()
    .to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_says_what_the_mode_changes() {
        assert_eq!(prompt_text(SandboxMode::DangerFullAccess, false), None);
        let ws = prompt_text(SandboxMode::WorkspaceWrite, false).unwrap();
        insta::assert_snapshot!("workspace_write", ws);
        let ro = prompt_text(SandboxMode::ReadOnly, true).unwrap();
        insta::assert_snapshot!("read_only_with_network", ro);
    }
}

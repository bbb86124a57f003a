//! Whether a foreground program waiting at the terminal is another interactive shell (one
//! that prints none of our prompt marks), told from its name and command line.

/// Programs that are shells: one of them waiting at the terminal in place of ours prints none
/// of our marks.
const SHELL_NAMES: [&str; 11] = [
    "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "busybox",
];

/// Whether a foreground program named `name` is a shell (`bash`, `sh`, `dash`, `zsh`, …).
#[must_use]
pub fn is_shell_name(name: &str) -> bool {
    SHELL_NAMES.contains(&name)
}

/// Whether `row` (a cursor row's text before the cursor) is the prompt of a shell named
/// `program` reading its next command: the program is a shell and the row ends as shells'
/// prompts do (`$`, `#`, `%` or `>`: `bash-5.2$ `, `sh-5.2# `, `user@host:~$ `, zsh's `% `).
/// A program's question ends otherwise (`Name:`, `Continue? [y/N]`).
#[must_use]
pub fn is_shell_prompt_of(row: &str, program: &str) -> bool {
    is_shell_name(program) && row.trim_end().ends_with(['$', '#', '%', '>'])
}

/// [`is_shell_prompt_of`] for the process `pid` runs (a group's leader, or the member that
/// reads the terminal), which must read its commands from the terminal: a shell running a
/// script or a `-c` string at a `> ` prompt asks the script's question (see
/// [`runs_interactively`]).
pub(super) fn is_nested_shell_prompt(row: &str, program: &str, pid: i32) -> bool {
    is_shell_prompt_of(row, program)
        && crate::process::cmdline(pid).is_none_or(|c| runs_interactively(&c))
}

/// Whether the process `pid` is a fork of its parent, not a program it started: a subshell
/// (the first part of a pipeline such as `while …; done | cat`, a `( … )` list) runs the
/// parent's command line and has its name. A nested interactive shell started with the same
/// command line as the shell that started it (`bash` typed in a `bash`) looks the same.
pub(super) fn is_fork_of_parent(pid: i32) -> bool {
    let Some(stat) = crate::process::stat(pid) else {
        return false;
    };
    crate::process::stat(stat.ppid).is_some_and(|parent| parent.comm == stat.comm)
        && crate::process::cmdline(pid)
            .zip(crate::process::cmdline(stat.ppid))
            .is_some_and(|(own, parent)| own == parent)
}

/// Whether a shell started with the command line `cmdline` (`/proc/PID/cmdline`: arguments
/// separated by NUL bytes) reads its commands from the terminal, as opposed to running a
/// script or a `-c` string (`bash ask.sh` reading an answer is a script asking, not a nested
/// shell at its prompt).
///
/// Interactive: a login shell (`-bash`), `-i` among the options, `-s`, or no `-c` and no
/// script operand. Options that take a value (`-o opt`, `-O shopt`, `--rcfile FILE`,
/// `--init-file FILE`) skip it; `--` ends the options. `busybox sh ...` is read past its
/// applet name. An empty command line (unreadable) counts as interactive.
pub(super) fn runs_interactively(cmdline: &[u8]) -> bool {
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(String::from_utf8_lossy);
    let Some(argv0) = args.next() else {
        return true;
    };
    if argv0.starts_with('-') {
        return true;
    }
    if argv0.rsplit('/').next() == Some("busybox") {
        // The applet name (`sh`, `ash`).
        let _ = args.next();
    }
    let mut takes_value = false;
    let mut command_string = false;
    while let Some(arg) = args.next() {
        if std::mem::take(&mut takes_value) {
            continue;
        }
        match &*arg {
            // A script or the `-c` string may follow.
            "--" => return args.next().is_none() && !command_string,
            "--rcfile" | "--init-file" => takes_value = true,
            long if long.starts_with("--") => {}
            short if short.starts_with(['-', '+']) && short.len() > 1 => {
                let flags = &short[1..];
                if short.starts_with('-') && flags.contains(['i', 's']) {
                    return true;
                }
                command_string |= short.starts_with('-') && flags.contains('c');
                takes_value = flags.ends_with(['o', 'O']);
            }
            // The first operand: a script, or the `-c` string.
            _ => return false,
        }
    }
    !command_string
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmdline(args: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for a in args {
            out.extend_from_slice(a.as_bytes());
            out.push(0);
        }
        out
    }

    #[test]
    fn interactive_shells_and_scripts_are_told_apart() {
        for interactive in [
            &["bash"][..],
            &["/bin/bash"],
            &["-bash"],
            &["bash", "-i"],
            &["bash", "--norc", "--noprofile"],
            &["bash", "--rcfile", "/tmp/rc"],
            &["bash", "-o", "vi"],
            &["bash", "-ic", "echo hi; exec bash"],
            &["sh", "-s"],
            &["zsh", "-l"],
            &["busybox", "sh"],
            &["bash", "--"],
            &[],
        ] {
            assert!(
                runs_interactively(&cmdline(interactive)),
                "{interactive:?} is interactive"
            );
        }
        for script in [
            &["bash", "ask.sh"][..],
            &["bash", "-c", "read -p 'Continue? ' a"],
            &["bash", "-ec", "read a"],
            &["bash", "-x", "ask.sh"],
            &["bash", "--norc", "ask.sh"],
            &["bash", "-o", "errexit", "ask.sh"],
            &["bash", "--rcfile", "rc", "ask.sh"],
            &["bash", "--", "ask.sh"],
            &["sh", "/usr/bin/script"],
            &["busybox", "sh", "ask.sh"],
        ] {
            assert!(
                !runs_interactively(&cmdline(script)),
                "{script:?} runs a script"
            );
        }
        assert!(is_shell_name("bash") && is_shell_name("sh") && !is_shell_name("python3"));
    }
}

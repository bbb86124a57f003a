//! Programs a debugger runs: gdb's or lldb's inferior (a process group of its own that the
//! debugger, its parent, traces and hands the terminal), or a script an interpreter runs
//! under its own debugger (`python3 -m pdb app.py`, `perl -d app.pl`, `node inspect app.js`).
//! SIGINT to such a program breaks into the debugger, which reads again at its prompt with
//! the program's state kept (it is no server to put in the background); and what the program
//! asks on the terminal is the program's question, not the debugger's prompt.

/// Debuggers that run their program as a child process they trace, by process name.
const TRACING_DEBUGGERS: [&str; 3] = ["gdb", "lldb", "lldb-server"];

/// Python modules run with `-m` that debug the script they are given.
const PYTHON_DEBUGGERS: [&str; 4] = ["pdb", "ipdb", "pudb", "pdbpp"];

/// perl's switches that take the rest of their word, or the next word, as a value: a `d` after
/// one of them is no debugger switch (`-Idir`, `-Mdata`).
const PERL_VALUE_SWITCHES: &str = "IMmeExC0liDV";

/// The debugger that runs the program of process group `pgid` (its leader, or, when the
/// leader is gone, its youngest member): the tracing debugger that is its parent and traces
/// it (`gdb` for gdb's inferior), or the interpreter's debugger its command line starts
/// (see [`interpreter_debugger`]). `None` for a program no debugger runs. Blocking `/proc`
/// reads.
pub(in crate::session) fn debugger_of(pgid: i32) -> Option<&'static str> {
    let member = crate::process::group_member(pgid)?;
    if let Some(debugger) = crate::process::cmdline(member.pid)
        .as_deref()
        .and_then(interpreter_debugger)
    {
        return Some(debugger);
    }
    let parent = crate::process::stat(member.ppid)?;
    let name = TRACING_DEBUGGERS
        .into_iter()
        .find(|&name| name == parent.comm)?;
    (tracer(member.pid) == Some(parent.pid)).then_some(name)
}

/// Whether `debugger` (a name [`debugger_of`] gives) traces its program from a process of its
/// own (gdb, lldb), so that SIGINT stops the program at once, in a read of the terminal too;
/// not an interpreter's own debugger (`pdb`, `perl -d`), whose handler only notes the signal
/// while the program waits for a line.
pub(in crate::session) fn is_tracing_debugger(debugger: &str) -> bool {
    TRACING_DEBUGGERS.contains(&debugger)
}

/// Whether process group `pgid` is a debugger at its own prompt's side of the terminal: gdb
/// or lldb themselves, or an interpreter running a script under its debugger (the same
/// process reads the debugger's commands). Blocking `/proc` reads.
pub(in crate::session) fn runs_a_debugger(pgid: i32) -> bool {
    crate::process::group_member(pgid).is_some_and(|leader| {
        TRACING_DEBUGGERS.contains(&&*leader.comm)
            || crate::process::cmdline(leader.pid)
                .as_deref()
                .and_then(interpreter_debugger)
                .is_some()
    })
}

/// Whether process group `fg` is the program that the debugger of group `debugger` runs: the
/// same group (an interpreter's debugger), or one whose leader that debugger started and
/// traces (gdb's inferior). Blocking `/proc` reads.
pub(in crate::session) fn runs_under(fg: i32, debugger: i32) -> bool {
    if fg == debugger {
        return runs_a_debugger(debugger);
    }
    crate::process::group_member(fg).is_some_and(|member| {
        crate::process::stat(member.ppid).is_some_and(|parent| {
            parent.pgrp == debugger
                && TRACING_DEBUGGERS.contains(&&*parent.comm)
                && tracer(member.pid) == Some(parent.pid)
        })
    })
}

/// The debugger an interpreter's command line (`cmdline`, NUL-separated as
/// `/proc/<pid>/cmdline`) runs its script under: `pdb` for `python3 -m pdb app.py` (and the
/// other Python debuggers, [`PYTHON_DEBUGGERS`]), `perl -d` for `perl -d app.pl` or
/// `perl -de 0` (not `perl -d:NYTProf`, a profiler), `node inspect` for `node inspect app.js`.
fn interpreter_debugger(cmdline: &[u8]) -> Option<&'static str> {
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(String::from_utf8_lossy);
    let program = args.next()?;
    let name = program.rsplit('/').next().unwrap_or_default();
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match stem {
        "python" | "pypy" => {
            while let Some(arg) = args.next() {
                if arg == "-m" {
                    let module = args.next()?;
                    return PYTHON_DEBUGGERS.into_iter().find(|&d| d == module);
                }
                if !arg.starts_with('-') || arg == "-c" {
                    return None;
                }
            }
            None
        }
        "perl" => args
            .take_while(|arg| arg.starts_with('-') && arg != "--")
            .any(|arg| perl_debug_switch(&arg))
            .then_some("perl -d"),
        "node" | "nodejs" => args
            .find(|arg| !arg.starts_with('-'))
            .filter(|arg| arg == "inspect")
            .map(|_| "node inspect"),
        _ => None,
    }
}

/// Whether perl's switch word `arg` (`-d`, `-de`, `-wd`) turns on its debugger: a `d` not
/// followed by `:` (a `Devel::` module such as a profiler), before any switch that takes a
/// value.
fn perl_debug_switch(arg: &str) -> bool {
    let switches = arg.strip_prefix('-').unwrap_or_default();
    for (at, c) in switches.char_indices() {
        if c == 'd' {
            return !switches[at + 1..].starts_with(':');
        }
        if PERL_VALUE_SWITCHES.contains(c) {
            return false;
        }
    }
    false
}

/// Whether `step` (a line typed at a debugger's prompt) resumes the program it runs, which
/// may then read the terminal: a command of gdb, lldb, pdb or perl's debugger that runs,
/// continues or steps it, in full or in its short forms (`n`, `s`, `c`, `r`, `unt`), with
/// arguments (`next 3`, `c 12`, `run < in.txt`). Not a command that prints or sets (`p x`).
pub(in crate::session) fn resumes_the_program(step: &str) -> bool {
    const RESUMES: [&str; 22] = [
        "n", "next", "s", "step", "c", "cont", "continue", "r", "run", "unt", "until", "finish",
        "fin", "return", "advance", "start", "starti", "ni", "nexti", "si", "stepi", "restart",
    ];
    step.split_whitespace()
        .next()
        .is_some_and(|word| RESUMES.contains(&word))
}

/// The process that traces process `pid` (`TracerPid` of `/proc/<pid>/status`), when one does.
fn tracer(pid: i32) -> Option<i32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("TracerPid:"))
        .and_then(|value| value.trim().parse().ok())
        .filter(|&tracer: &i32| tracer > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmdline(args: &[&str]) -> Vec<u8> {
        args.join("\0").into_bytes()
    }

    #[test]
    fn an_interpreters_debugger_is_told_by_its_command_line() {
        for (args, debugger) in [
            (&["python3", "-m", "pdb", "app.py"][..], "pdb"),
            (
                &["/usr/bin/python3.12", "-u", "-m", "pdb", "app.py"][..],
                "pdb",
            ),
            (&["python", "-m", "ipdb", "app.py"][..], "ipdb"),
            (&["perl", "-d", "app.pl"][..], "perl -d"),
            (&["perl", "-de", "0"][..], "perl -d"),
            (&["perl", "-wd", "app.pl"][..], "perl -d"),
            (&["perl", "-d", "-e", "while(1){$i++}"][..], "perl -d"),
            (&["node", "inspect", "app.js"][..], "node inspect"),
        ] {
            assert_eq!(
                interpreter_debugger(&cmdline(args)),
                Some(debugger),
                "{args:?}"
            );
        }
        for args in [
            &["python3", "-m", "http.server"][..],
            &["python3", "app.py", "-m", "pdb"],
            &["python3", "-c", "import pdb"],
            &["python3"],
            &["perl", "-d:NYTProf", "app.pl"],
            &["perl", "-Idir", "app.pl"],
            &["perl", "app.pl", "-d"],
            &["node", "app.js", "inspect"],
            &["node", "--inspect", "app.js"],
            &["gdb", "-q", "-ex", "run"],
        ] {
            assert_eq!(interpreter_debugger(&cmdline(args)), None, "{args:?}");
        }
    }

    #[test]
    fn only_gdb_and_lldb_trace_their_program() {
        for debugger in ["gdb", "lldb", "lldb-server"] {
            assert!(is_tracing_debugger(debugger), "{debugger}");
        }
        for debugger in ["pdb", "ipdb", "perl -d", "node inspect"] {
            assert!(!is_tracing_debugger(debugger), "{debugger}");
        }
    }

    #[test]
    fn a_debuggers_commands_that_resume_its_program_are_known() {
        for step in [
            "n",
            "next 3",
            "s",
            "c",
            "continue",
            "r",
            "run < in.txt",
            "unt 12",
        ] {
            assert!(resumes_the_program(step), "{step:?}");
        }
        for step in ["finish", "ni", "restart"] {
            assert!(resumes_the_program(step), "{step:?}");
        }
        for step in [
            "p name", "print(x)", "bt", "l", "b 12", "x", "u", "where", "",
        ] {
            assert!(!resumes_the_program(step), "{step:?}");
        }
    }
}

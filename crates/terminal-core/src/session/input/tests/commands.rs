//! Command lines the send looks into: one that turns on errexit in the shell, one that resets
//! the terminal, one that continues a stopped job.

#[test]
fn a_send_turning_on_errexit_is_told_apart() {
    for text in [
        "set -e",
        "set -euo pipefail",
        "cd /tmp && set -e; false",
        "set -o errexit",
        "set -x -e",
        "{ set -e; false; }",
        "cat > a.sh <<'EOF'\necho hi\nEOF\nset -e",
    ] {
        assert!(super::super::turns_on_errexit(text), "{text:?}");
    }
    for text in [
        "set +e",
        "set -x",
        "set -o pipefail",
        "( set -e; false )",
        "bash -c 'set -e; false'",
        "echo set -e",
        "set -- -e",
        "cat > a.sh <<'EOF'\nset -euo pipefail\nEOF",
    ] {
        assert!(!super::super::turns_on_errexit(text), "{text:?}");
    }
}

#[test]
fn a_send_setting_an_exiting_err_trap_is_told_apart() {
    for text in [
        "trap 'exit 3' ERR",
        "trap \"echo failed; exit 1\" ERR",
        "cd /tmp && trap 'exit' ERR EXIT",
        "set -u; trap 'exit 2' ERR",
        "if true; then trap 'exit 3' ERR; fi",
    ] {
        assert!(super::super::sets_an_exiting_err_trap(text), "{text:?}");
    }
    for text in [
        "trap 'echo failed' ERR",
        "trap 'exit 3' EXIT",
        "trap - ERR",
        "( trap 'exit 3' ERR; false )",
        "bash -c \"trap 'exit 3' ERR; false\"",
        "echo trap 'exit 3' ERR",
        "cat > run.sh <<'EOF'\ntrap 'exit 3' ERR\nEOF",
        "cat > run.sh <<-END\n\ttrap 'exit 3' ERR\n\tEND\nbash run.sh",
    ] {
        assert!(!super::super::sets_an_exiting_err_trap(text), "{text:?}");
    }
}

#[test]
fn a_command_that_resets_the_terminal_is_told_apart() {
    for line in [
        "reset",
        "tput reset",
        "tput init; clear",
        "stty sane",
        "tset -Q",
    ] {
        assert!(super::super::resets_the_terminal(line), "{line:?}");
    }
    for line in ["stty -echo", "echo reset", "tput cols", "python3 reset.py"] {
        assert!(!super::super::resets_the_terminal(line), "{line:?}");
    }
}

#[test]
fn a_line_continuing_a_stopped_job_is_told_apart() {
    for line in ["fg", "fg %1", "fg %python3", "%1", "%+", "%"] {
        assert!(super::super::continues_a_job(line), "{line:?}");
    }
    for line in [
        "fg; ls",
        "bg",
        "bg %1",
        "fg %1 && ls",
        "%1 &",
        "echo fg",
        "fgrep x",
        "",
    ] {
        assert!(!super::super::continues_a_job(line), "{line:?}");
    }
}

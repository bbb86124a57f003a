//! The command line: `--help` lists every option with its default; invalid configuration
//! exits with status 2 and a clear message, before reading stdin.

use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dsh-mcp"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run dsh-mcp")
}

#[test]
fn help_lists_every_option_with_its_default() {
    let out = run(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).expect("utf-8 help");
    for needle in [
        "--shell <PATH>",
        "[default: /bin/bash]",
        "--cwd <DIR>",
        "[default: the server's current directory]",
        "--max-result-bytes <BYTES>",
        "[default: 262144]",
        "--max-input-bytes <BYTES>",
        "[default: 65536]",
        "--enable-run-in-background",
        "jobs service",
        "--poll-interval-ms <MS>",
        "[default: 50]",
        "--exact-probe-after-ms <MS>",
        "[default: 0]",
        "--idle-silence-ms <MS>",
        "--idle-on-silence-alone",
        "[default: 3000]",
        "--handoff-grace-ms <MS>",
        "[default: 500]",
        "--timeout-ms <MS>",
        "[default: 30000]",
        "--dispose-grace-ms <MS>",
        "--rows <N>",
        "[default: 40]",
        "--cols <N>",
        "[default: 160]",
        "RUST_LOG",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

fn assert_config_error(args: &[&str], expected: &str) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    assert!(
        stderr.contains(expected),
        "{args:?}: stderr lacks {expected:?}:\n{stderr}"
    );
    assert!(out.stdout.is_empty(), "{args:?}: stdout must stay empty");
}

#[test]
fn invalid_configuration_exits_with_status_2() {
    assert_config_error(&["--max-result-bytes", "63"], "invalid configuration");
    assert_config_error(&["--max-result-bytes", "63"], "64");
    assert_config_error(
        &["--cwd", "/nonexistent/dsh-mcp-test"],
        "--cwd /nonexistent/dsh-mcp-test: not a directory",
    );
    assert_config_error(&["--rows", "0"], "invalid configuration");
    // clap's own usage errors use status 2 as well.
    assert_config_error(&["--rows", "many"], "invalid value 'many'");
    assert_config_error(&["--no-such-option"], "--no-such-option");
}

//! The command line: `--help` lists every option with its default; invalid configuration
//! exits with status 2 and a clear message, before reading stdin.

use std::process::{Command, Output, Stdio};

use crate::support::TempDir;

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
        "[default: --workspace, else the server's current directory]",
        "--max-result-bytes <BYTES>",
        "[default: 32768]",
        "--max-input-bytes <BYTES>",
        "[default: 65536]",
        "--max-send-timeout-ms <MS>",
        "[default: 600000]",
        "--disable-run-in-background",
        "--max-concurrent-jobs-per-owner <N>",
        "[default: 10]",
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
        "--sandbox <MODE>",
        "[default: workspace-write]",
        "--workspace <DIR>",
        "[default: --cwd, else the server's current directory]",
        "--allow-network",
        "--bwrap <PATH>",
        "[default: /usr/bin/bwrap]",
        "--max-session-pids <N>",
        "[default: 1024]",
        "--max-session-memory-mib <MIB>",
        "[default: 4096]",
        "--deny-command <REGEX>",
        "--ask-command <REGEX>",
        "A question unanswered for 10 minutes, or whose session closes meanwhile, is withdrawn",
        "--allow-command <REGEX>",
        "Per-session limits on this host: ",
        "--max-message-bytes <BYTES>",
        "[default: 8388608]",
        "--env <NAME[=VALUE]>",
        "PATH, HOME, USER",
        "LC_CTYPE",
        "XDG_CONFIG_HOME",
        "C.UTF-8",
        "--inherit-env",
        "KEY|PASSWORD|PASSWD|PASSPHRASE|SSHPASS|SECRET|TOKEN|CREDENTIAL|JWT|BEARER|DSN|HMAC|TOTP|CSRF|XSRF|NETRC|SIGNATURE|CLIENT_CERT",
        "PASS|PW|PWD|PAT|OTP|PIN|AUTH|CREDS|SK|SALT|WEBHOOK|COOKIE|PRIVATE|PEM|MFA",
        "--max-terminals-per-agent <N>",
        "[default: 16]",
        "--warm-sessions <N>",
        "Serving over HTTP (with --listen):",
        "--listen <ADDR:PORT>",
        "[default: off: serve stdio]",
        "--token-file <PATH>",
        "DSH_MCP_TOKEN",
        "[default: none: no token needed on a loopback address]",
        "--allowed-origin <ORIGIN>",
        "[default: none: every Origin is refused]",
        "--allowed-host <HOST>",
        "[default: localhost, 127.0.0.1 and ::1 on a loopback address; any host on another address]",
        "--max-sessions <N>",
        "[default: 32]",
        "--session-idle-timeout-ms <MS>",
        "[default: 1800000]",
        "/healthz",
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
        &["--max-send-timeout-ms", "0"],
        "max_send_timeout_ms must be at least 1",
    );
    assert_config_error(
        &["--cwd", "/nonexistent/dsh-mcp-test"],
        "--cwd /nonexistent/dsh-mcp-test: not a directory",
    );
    assert_config_error(
        &["--workspace", "/usr", "--cwd", "/"],
        "--cwd / lies outside --workspace /usr",
    );
    assert_config_error(&["--rows", "0"], "invalid configuration");
    assert_config_error(
        &["--cols", "65535"],
        "cols must be at most 1000 (got 65535)",
    );
    assert_config_error(
        &["--workspace", "/nonexistent/dsh-mcp-ws"],
        "--workspace /nonexistent/dsh-mcp-ws: not a directory",
    );
    assert_config_error(
        &["--deny-command", "("],
        "command policy: the deny pattern \"(\" is not a valid regular expression",
    );
    // An empty pattern matches every line (an unset variable in the operator's command line).
    for option in ["--deny-command", "--ask-command", "--allow-command"] {
        let kind = &option[2..option.len() - "-command".len()];
        assert_config_error(
            &[option, ""],
            &format!("command policy: the {kind} pattern \"\" is empty"),
        );
    }
    // A shell every terminal_open would refuse: missing, not executable, known not to be bash.
    assert_config_error(
        &["--shell", "/nonexistent/dsh-mcp-test/bash"],
        "--shell /nonexistent/dsh-mcp-test/bash is not an executable file on this host, so every terminal_open would fail",
    );
    let dir = TempDir::new("shell");
    let plain = failing_script(&dir, "bash", 0o644);
    assert_config_error(&["--shell", &plain], "is not an executable file");
    let dash = failing_script(&dir, "dash", 0o755);
    assert_config_error(
        &["--shell", &dash],
        "is not bash (this backend needs bash's line editor and prompt hooks)",
    );
    assert_config_error(
        &["--sandbox", "rw"],
        "unknown sandbox mode \"rw\"; use read-only, workspace-write or danger-full-access",
    );
    assert_config_error(
        &["--max-concurrent-jobs-per-owner", "0"],
        "max_concurrent_jobs_per_owner must be a positive integer",
    );
    // clap's own usage errors use status 2 as well.
    assert_config_error(&["--rows", "many"], "invalid value 'many'");
    assert_config_error(&["--no-such-option"], "--no-such-option");
    assert_config_error(&["--env", "DSH_SHELL=0"], "DSH_SHELL is reserved");
    assert_config_error(&["--env", "1BAD"], "is not valid");
    assert_config_error(
        &["--max-message-bytes", "10"],
        "--max-message-bytes must be at least 1024 (got 10)",
    );
    assert_config_error(
        &["--listen", "127.0.0.1:0", "--max-sessions", "0"],
        "--max-sessions must be at least 1",
    );
    assert_config_error(
        &[
            "--listen",
            "127.0.0.1:0",
            "--token-file",
            "/nonexistent/dsh-mcp-token",
        ],
        "--token-file /nonexistent/dsh-mcp-token: ",
    );
    assert_config_error(&["--listen", "localhost"], "invalid value 'localhost'");
    // A session must outlive the pause before a client's first call (0 ended every session
    // before it).
    assert_config_error(
        &["--listen", "127.0.0.1:0", "--session-idle-timeout-ms", "0"],
        "invalid value '0' for '--session-idle-timeout-ms <MS>'",
    );
}

/// A file `name` in `dir` with permission bits `mode`.
fn failing_script(dir: &TempDir, name: &str, mode: u32) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.0.join(name);
    std::fs::write(&path, "#!/bin/sh\nexit 1\n").expect("write file");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    path.to_string_lossy().into_owned()
}

/// The server's stderr when it starts with `args` (and `PATH` set to `path`, when given) and
/// stdin at end of file.
fn start_up_stderr(args: &[&str], path: Option<&std::path::Path>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dsh-mcp"));
    command
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let out = command.output().expect("run dsh-mcp");
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An unusable bubblewrap is told to the operator at start-up when sessions would be confined
/// (each sandboxed `terminal_open` would fail), saying what to fix: a path with nothing there,
/// a file that is not executable, a bare name not on `PATH`. A bare name found on `PATH` is
/// usable, as it is for a shell; unconfined sessions need no bubblewrap.
#[test]
fn a_missing_bubblewrap_is_warned_at_start_up() {
    const FAILS: &str = "so every sandboxed terminal_open will fail";
    let missing = "/nonexistent/dsh-mcp-test/bwrap";
    let stderr = start_up_stderr(&["--bwrap", missing], None);
    assert!(
        stderr.contains(&format!("bubblewrap is not installed at {missing} on this host, {FAILS}; install it (Debian: apt-get install bubblewrap), point to it (dsh-mcp: --bwrap PATH)")),
        "{stderr}"
    );
    let stderr = start_up_stderr(
        &["--bwrap", missing, "--sandbox", "danger-full-access"],
        None,
    );
    assert!(!stderr.contains("bubblewrap"), "{stderr}");

    // A file that exists but may not be executed.
    let dir = TempDir::new("bwrap");
    let plain = failing_script(&dir, "plain-bwrap", 0o644);
    let stderr = start_up_stderr(&["--bwrap", &plain], None);
    assert!(
        stderr.contains(&format!("bubblewrap at {plain} on this host is not executable, {FAILS}; make it executable (chmod +x {plain})")),
        "{stderr}"
    );

    // A bare name is looked up on PATH, and a program found there is usable.
    let on_path = TempDir::new("bwrap-on-path");
    failing_script(&on_path, "bwrap", 0o755);
    let stderr = start_up_stderr(&["--bwrap", "bwrap"], Some(&on_path.0));
    assert!(!stderr.contains("bubblewrap"), "{stderr}");
    let empty = TempDir::new("bwrap-not-on-path");
    let stderr = start_up_stderr(&["--bwrap", "bwrap"], Some(&empty.0));
    assert!(
        stderr.contains(&format!("bubblewrap (bwrap) is not installed in any directory of this host's PATH, {FAILS}; install it (Debian: apt-get install bubblewrap), add its directory to the server's PATH (now {:?})", empty.0.display().to_string())),
        "{stderr}"
    );
}

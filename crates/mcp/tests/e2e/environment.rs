//! Field cases C31 and C32 through the built binary: the server's own environment (with
//! credentials and `LANG=C`) against what a session sees, with `--env` and `--inherit-env`.

use serde_json::json;

use crate::support::{ServerProcess, ok, send};

const SECRETS: [(&str, &str); 4] = [
    ("DATABASE_URL", "postgres://u:pw-e2e@db:5432/x"),
    ("AWS_ACCESS_KEY_ID", "AKIAE2EEXAMPLE"),
    ("GH_TOKEN", "ghp_e2eexample"),
    ("MY_SERVICE_CREDENTIALS", "creds-e2e"),
];

/// Server environment of the field cases: the credentials, `LANG=C`, no other locale, and one
/// plain variable outside the allowlist.
fn server_env() -> Vec<(&'static str, &'static str)> {
    let mut env = SECRETS.to_vec();
    env.extend([("LANG", "C"), ("E2E_PLAIN", "plain-e2e")]);
    env
}

const LOCALE_VARS: [&str; 3] = ["LC_ALL", "LC_CTYPE", "LANGUAGE"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c31_c32_session_environment_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("dsh-e2e-c32-{}", std::process::id()));
    let (mut server, client) = ServerProcess::start_with_env(
        &["--env", "GH_TOKEN", "--env", "E2E_MODE=explicit"],
        &server_env(),
        &LOCALE_VARS,
    )
    .await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let r = send(&client, "pty-1", "env").await;
    for (name, value) in SECRETS.iter().filter(|(n, _)| *n != "GH_TOKEN") {
        assert!(!r.text.contains(name), "{name} leaked: {:?}", r.text);
        assert!(!r.text.contains(value), "{name} leaked: {:?}", r.text);
    }
    assert!(r.has_line("GH_TOKEN=ghp_e2eexample"), "{:?}", r.text);
    assert!(r.has_line("E2E_MODE=explicit"), "{:?}", r.text);
    let r = send(
        &client,
        "pty-1",
        &format!("mkdir -p '{0}/目录' && ls '{0}'", dir.display()),
    )
    .await;
    assert!(r.has_line("目录"), "{:?}", r.text);
    server.disconnect(client).await;

    let (mut server, client) =
        ServerProcess::start_with_env(&["--inherit-env"], &server_env(), &LOCALE_VARS).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    // The whole environment but what looks like a credential: a key's name, or a URL with a
    // password in it.
    let r = send(
        &client,
        "pty-1",
        "echo \"[${DATABASE_URL-unset}] [${AWS_ACCESS_KEY_ID-unset}] [${E2E_PLAIN-unset}]\"",
    )
    .await;
    assert!(r.has_line("[unset] [unset] [plain-e2e]"), "{:?}", r.text);
    server.disconnect(client).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `--cwd` inside `--workspace` is where sessions start (before, the workspace took its
/// place silently); one outside it is refused at start-up (see `cli.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_start_in_a_cwd_inside_the_workspace() {
    let ws = crate::support::TempDir::new("cwd-in-ws");
    let inside = ws.0.join("proj");
    std::fs::create_dir_all(&inside).expect("mkdir");
    let (ws_arg, cwd_arg) = (ws.0.display().to_string(), inside.display().to_string());
    let (mut server, client) =
        ServerProcess::start(&["--workspace", &ws_arg, "--cwd", &cwd_arg]).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let r = send(&client, "pty-1", "pwd").await;
    assert!(r.has_line(&cwd_arg), "{:?}", r.text);
    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    server.disconnect(client).await;
}

//! Approval through MCP elicitation, against the built binary: `--ask-command` input goes to
//! the human behind a client that supports `elicitation/create` (approved → it runs;
//! declined → a denial, nothing runs; a form filled in wrong → not understood, no rejection;
//! unanswered while its session closes → withdrawn, denied), and is denied with a clear reason
//! for a client without elicitation. `--deny-command` input is refused without asking.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use serde_json::json;

use crate::support::{ServerProcess, call, ok};

/// How the human behind the client answers every form.
#[derive(Clone)]
enum Answer {
    /// Accepts with `approve: true`.
    Approve,
    /// Declines.
    Decline,
    /// Accepts with this content (a form the client filled in wrong).
    Accept(serde_json::Value),
    /// Never answers; notes when the server withdraws the question.
    Never,
}

/// A client that declares elicitation and answers every form as `answer` says, recording the
/// questions it was asked.
#[derive(Clone)]
struct Human {
    answer: Answer,
    asked: Arc<Mutex<Vec<String>>>,
    /// When set: says it was asked (the first), then answers only once told to (the second).
    gate: Option<Arc<(tokio::sync::Notify, tokio::sync::Notify)>>,
    /// Set when the server withdrew a question (`notifications/cancelled` for it).
    withdrawn: Arc<AtomicBool>,
}

impl Human {
    fn new(answer: Answer) -> Self {
        Self {
            answer,
            asked: Arc::default(),
            gate: None,
            withdrawn: Arc::default(),
        }
    }
}

impl ClientHandler for Human {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("dsh-e2e-human", "0.1.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.asked.lock().push(message);
        if let Some(gate) = &self.gate {
            gate.0.notify_one();
            gate.1.notified().await;
        }
        Ok(match &self.answer {
            Answer::Approve => {
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true}))
            }
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
            Answer::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(content.clone())
            }
            Answer::Never => {
                context.ct.cancelled().await;
                self.withdrawn.store(true, Ordering::SeqCst);
                ElicitResult::new(ElicitationAction::Cancel)
            }
        })
    }
}

/// A scratch workspace, removed on drop.
struct Workspace(PathBuf);

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn workspace(tag: &str) -> Workspace {
    let dir = std::env::temp_dir().join(format!("dsh-e2e-approval-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("workspace");
    Workspace(dir)
}

/// Starts the server with an ask rule for `touch` and a deny rule for `mkfs`, connected to
/// `human`.
async fn serve(ws: &Workspace, human: Human) -> (ServerProcess, RunningService<RoleClient, Human>) {
    let ws_arg = ws.0.display().to_string();
    let args = [
        "--ask-command",
        "^touch ",
        "--deny-command",
        r"\bmkfs\b",
        "--workspace",
        &ws_arg,
    ];
    ServerProcess::start_with_client(&args, &[], &[], human).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_is_answered_by_the_human_through_elicitation() {
    let ws = workspace("yes");
    for approve in [true, false] {
        let human = Human::new(if approve {
            Answer::Approve
        } else {
            Answer::Decline
        });
        let asked = Arc::clone(&human.asked);
        let (mut server, client) = serve(&ws, human).await;
        ok(&client, "terminal_open", json!({"type": "shell"})).await;
        let file = if approve {
            "approved.txt"
        } else {
            "declined.txt"
        };
        let r = call(
            &client,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": format!("touch {file}")}),
        )
        .await;
        let questions = asked.lock().clone();
        assert_eq!(questions.len(), 1, "{questions:?}");
        assert!(
            questions[0].contains("wants to call terminal_send with:\ntouch ")
                && questions[0].contains("ask pattern \"^touch \""),
            "{questions:?}"
        );
        if approve {
            assert!(!r.is_error, "{r:?}");
            assert!(ws.0.join(file).exists(), "the approved command did not run");
        } else {
            assert!(r.is_error, "{r:?}");
            assert!(
                r.text
                    .starts_with("Error: the user rejected this call of tool \"terminal_send\""),
                "{r:?}"
            );
            assert!(!ws.0.join(file).exists(), "a declined command ran");
        }
        // Input no rule matches runs without asking; a deny rule refuses without asking.
        let r = call(
            &client,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "echo free"}),
        )
        .await;
        assert!(r.has_line("free"), "{r:?}");
        let r = call(
            &client,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "mkfs /dev/null"}),
        )
        .await;
        assert!(
            r.is_error && r.text.contains("the operator's command policy refuses"),
            "{r:?}"
        );
        assert_eq!(asked.lock().len(), 1);
        ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
        server.disconnect(client).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_is_denied_for_a_client_without_elicitation() {
    let ws = workspace("no-elicitation");
    let ws_arg = ws.0.display().to_string();
    let (mut server, client) =
        ServerProcess::start(&["--ask-command", "^touch ", "--workspace", &ws_arg]).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let r = call(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "touch x"}),
    )
    .await;
    assert!(r.is_error, "{r:?}");
    assert_eq!(
        r.text,
        "Error: tool \"terminal_send\" requires approval (the operator's command policy asks for approval of \"touch x\" (ask pattern \"^touch \")), and approval is unavailable: this MCP client does not support elicitation (elicitation/create), so no human can be asked; nothing ran. Do something that needs no approval, or ask the operator to allow it"
    );
    assert!(!ws.0.join("x").exists());
    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    server.disconnect(client).await;
}

/// Input that reached the session while an approval was pending (a REPL started): the approved
/// input is not sent when the approval comes, since the terminal may now hold another program
/// than the one it was approved for (it was typed into the REPL).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_after_other_input_reached_the_session_sends_nothing() {
    let ws = workspace("late");
    let gate = Arc::new((tokio::sync::Notify::new(), tokio::sync::Notify::new()));
    let human = Human {
        gate: Some(Arc::clone(&gate)),
        ..Human::new(Answer::Approve)
    };
    let (mut server, client) = serve(&ws, human).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let asking = call(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "touch late.txt"}),
    );
    let meanwhile = async {
        gate.0.notified().await;
        let r = call(
            &client,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "python3 -q"}),
        )
        .await;
        gate.1.notify_one();
        r
    };
    let (r, other) = tokio::join!(asking, meanwhile);
    assert!(other.text.contains(">>>"), "{other:?}");
    assert!(r.is_error, "{r:?}");
    assert!(
        r.text.starts_with(
            "Error: nothing was sent: while this input waited for the user's approval, other input reached terminal session pty-1"
        ),
        "{r:?}"
    );
    assert!(!ws.0.join("late.txt").exists());
    let r = call(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "print(6 * 7)"}),
    )
    .await;
    assert!(r.has_line("42"), "{r:?}");
    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    server.disconnect(client).await;
}

/// A Ctrl-X a send without Enter left waiting at the shell's prompt: the next send, whose first
/// key would go with it, is refused saying so and how to end it. SIGINT ends it (bash discards
/// the line), and so does Ctrl-G (the line stays); the commands after them run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_left_waiting_is_named_and_can_be_ended() {
    let ws = workspace("waiting");
    let ws_arg = ws.0.display().to_string();
    let (mut server, client) =
        ServerProcess::start(&["--deny-command", "FORBID", "--workspace", &ws_arg]).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let typed = |text: &str| json!({"sessionId": "pty-1", "text": text, "submit": false});
    ok(&client, "terminal_send", typed("yy\u{18}")).await;
    let echo = json!({"sessionId": "pty-1", "text": "echo hi"});
    let r = call(&client, "terminal_send", echo.clone()).await;
    assert!(
        r.is_error
            && r.text.contains(
                "an earlier send without Enter left \"\\u0018\" waiting for the next key"
            )
            && r.text
                .contains("send \"\\u0007\" (Ctrl-G) with submit false"),
        "{r:?}"
    );
    let signal = json!({"sessionId": "pty-1", "signal": "SIGINT"});
    ok(&client, "terminal_signal", signal).await;
    let r = ok(&client, "terminal_send", echo).await;
    assert!(r.text.contains("\nhi\n"), "{r:?}");
    ok(&client, "terminal_send", typed("echo h\u{18}")).await;
    ok(&client, "terminal_send", typed("\u{7}")).await;
    let r = ok(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "o"}),
    )
    .await;
    assert!(r.text.contains("\nho\n"), "{r:?}");
    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    server.disconnect(client).await;
}

/// A form accepted without a boolean `approve` is an answer the client got wrong, not the
/// user's rejection: the denial says so, and nothing runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_form_without_a_boolean_approve_is_not_understood() {
    let ws = workspace("not-understood");
    for (content, quoted) in [
        (json!({}), "{}"),
        (json!({"approve": "maybe"}), "{\"approve\":\"maybe\"}"),
    ] {
        let (mut server, client) = serve(&ws, Human::new(Answer::Accept(content))).await;
        ok(&client, "terminal_open", json!({"type": "shell"})).await;
        let r = call(
            &client,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "touch unclear.txt"}),
        )
        .await;
        assert!(r.is_error, "{r:?}");
        assert!(
            r.text.starts_with(
                "Error: the client's answer to the approval request for this call of tool \"terminal_send\""
            ),
            "{r:?}"
        );
        assert!(
            r.text.contains(&format!(
                "was not understood: it accepted the form without a true or false \"approve\" (content: {quoted}); nothing ran (the user rejected nothing)"
            )),
            "{r:?}"
        );
        assert!(!r.text.contains("the user rejected this call"), "{r:?}");
        assert!(
            !ws.0.join("unclear.txt").exists(),
            "an unclear answer ran the command"
        );
        ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
        server.disconnect(client).await;
    }
}

/// A question nobody answers ends when its session is closed: the send is denied as such
/// (not left pending), and the client is told to withdraw the question.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_approval_ends_when_its_session_closes() {
    let ws = workspace("closed");
    let human = Human::new(Answer::Never);
    let asked = Arc::clone(&human.asked);
    let withdrawn = Arc::clone(&human.withdrawn);
    let (mut server, client) = serve(&ws, human).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let asking = call(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "touch closed.txt"}),
    );
    let closing = async {
        while asked.lock().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await
    };
    let (r, _) = tokio::join!(asking, closing);
    assert!(r.is_error, "{r:?}");
    assert!(
        r.text.starts_with(
            "Error: session closed while waiting for approval: terminal session pty-1 was closed before the user answered, so the question was withdrawn; nothing ran"
        ),
        "{r:?}"
    );
    assert!(!ws.0.join("closed.txt").exists());
    crate::support::within("the question's withdrawal", async {
        while !withdrawn.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    server.disconnect(client).await;
}

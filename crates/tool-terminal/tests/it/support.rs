//! Shared fixtures: a composed context with the terminal tools, and a call helper.

use std::sync::Arc;
use std::time::Duration;

use dsh_context::{Agent, Context};
use dsh_invariants::InvariantsPlugin;
use dsh_system_prompt::SystemPromptPlugin;
use dsh_terminal_bash::{BashConfig, TerminalBashPlugin};
use dsh_terminal_core::{Terminals, TerminalsPlugin};
use dsh_tool_terminal::{ToolTerminalConfig, ToolTerminalPlugin};
use dsh_tools::{ToolCall, ToolResult, Tools, ToolsPlugin};
use serde_json::Value;

/// Timeouts short enough that `sleep` tests settle quickly, generous for real work.
pub(crate) fn fast_bash() -> BashConfig {
    BashConfig {
        idle_silence_ms: 1500,
        timeout_ms: 20_000,
        ..BashConfig::default()
    }
}

pub(crate) struct Host {
    pub(crate) ctx: Context,
    pub(crate) tools: Arc<Tools>,
    pub(crate) terminals: Arc<Terminals>,
}

impl Host {
    pub(crate) fn new(config: ToolTerminalConfig, bash: Option<BashConfig>) -> Self {
        Self::build(config, bash, false)
    }

    /// A host that also composes the jobs service and the job tools.
    pub(crate) fn with_jobs(config: ToolTerminalConfig, bash: BashConfig) -> Self {
        Self::build(config, Some(bash), true)
    }

    /// A host with jobs and quick bash, its agent `a`, and a session that agent opened.
    pub(crate) async fn with_jobs_and_session() -> (Self, Agent, String) {
        let host = Self::with_jobs(ToolTerminalConfig::default(), fast_bash());
        let agent = host.agent("a");
        let session = host.open_session(&agent).await;
        (host, agent, session)
    }

    fn build(config: ToolTerminalConfig, bash: Option<BashConfig>, jobs: bool) -> Self {
        let mut builder = Context::builder()
            .with(InvariantsPlugin)
            .with(SystemPromptPlugin)
            .with(ToolsPlugin)
            .with(TerminalsPlugin)
            .with(ToolTerminalPlugin { config });
        if let Some(bash) = bash {
            builder = builder.with(TerminalBashPlugin { config: bash });
        }
        if jobs {
            builder = builder
                .with(dsh_jobs::JobsPlugin::default())
                .with(dsh_tool_jobs::ToolJobsPlugin::default());
        }
        let ctx = builder.apply().unwrap();
        let tools = ctx.require::<Tools>().unwrap();
        let terminals = ctx.require::<Terminals>().unwrap();
        Self {
            ctx,
            tools,
            terminals,
        }
    }

    /// A host with the default tool config and [`fast_bash`], and agent `a` with `pty-1`
    /// open.
    pub(crate) async fn with_open_shell() -> (Self, Agent) {
        let host = Self::new(ToolTerminalConfig::default(), Some(fast_bash()));
        let agent = host.agent("a");
        host.call(
            &agent,
            "terminal_open",
            serde_json::json!({"type": "shell"}),
        )
        .await;
        (host, agent)
    }

    /// Opens a shell session for `agent` and returns its id.
    pub(crate) async fn open_session(&self, agent: &Agent) -> String {
        let r = self
            .call(agent, "terminal_open", serde_json::json!({"type": "shell"}))
            .await;
        assert!(!r.is_error, "{}", r.text());
        r.structured.expect("an open result")["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    /// Starts a background send of `text` in `session`; returns the job id and the
    /// acknowledgement text, whose lines after the first are what the screen showed so far
    /// (the job's reads continue after it).
    pub(crate) async fn start_job(
        &self,
        agent: &Agent,
        session: &str,
        text: &str,
    ) -> (String, String) {
        let r = self
            .call(
                agent,
                "terminal_send",
                serde_json::json!({"sessionId": session, "text": text, "run_in_background": true}),
            )
            .await;
        assert!(!r.is_error, "{}", r.text());
        let value: Value = r.structured.clone().expect("a background result");
        assert_eq!(value["kind"], "background");
        let job = job_id(&r);
        assert!(
            r.text()
                .starts_with(&format!("started background job {job}"))
        );
        (job, r.text())
    }

    pub(crate) fn agent(&self, id: &str) -> Agent {
        Agent::new(&self.ctx, id)
    }

    /// `job_output` of `job` (no wait): its text.
    pub(crate) async fn job_output(&self, agent: &Agent, job: &str) -> String {
        self.call(agent, "job_output", serde_json::json!({"job_id": job}))
            .await
            .text()
    }

    /// `job_output` of `job` with `wait` (a minute at most): its text.
    pub(crate) async fn wait_job(&self, agent: &Agent, job: &str) -> String {
        self.call(
            agent,
            "job_output",
            serde_json::json!({"job_id": job, "wait": true, "timeout_ms": 60_000}),
        )
        .await
        .text()
    }

    /// Runs `text` as a background job to its end: the job's acknowledgement and its output,
    /// read once with `wait` (a minute at most), joined by a newline.
    pub(crate) async fn job_to_end(&self, agent: &Agent, session: &str, text: &str) -> String {
        let (job, ack) = self.start_job(agent, session, text).await;
        let read = self.wait_job(agent, &job).await;
        format!("{ack}\n{read}")
    }

    /// Reads the running `job` until it printed the line `line` (bounded by a deadline).
    pub(crate) async fn until_job_prints(&self, agent: &Agent, job: &str, line: &str) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let r = self.job_output(agent, job).await;
            if r.lines().any(|l| l == line) {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "{r}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Reads finished `job` (`job_output`, which consumes nothing once it ended) until its
    /// last line, the `[status: …]` line, ends with `suffix`, within a generous deadline (a
    /// job's status may change after it ended: its leftover program's end is watched);
    /// returns that read.
    pub(crate) async fn until_job_status(&self, agent: &Agent, job: &str, suffix: &str) -> String {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let read = self.job_output(agent, job).await;
            if read
                .rsplit('\n')
                .next()
                .is_some_and(|l| l.ends_with(suffix))
            {
                return read;
            }
            assert!(tokio::time::Instant::now() < deadline, "{read}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(crate) async fn call(&self, agent: &Agent, name: &str, args: Value) -> ToolResult {
        let call = ToolCall::new("test").with_agent(agent.clone());
        tokio::time::timeout(
            Duration::from_secs(60),
            self.tools.execute(name, args, call),
        )
        .await
        .expect("tool call did not finish within 60 s")
    }

    /// A `terminal_send` of `text` (with Enter) to `session`.
    pub(crate) async fn send(&self, agent: &Agent, session: &str, text: &str) -> ToolResult {
        self.call(
            agent,
            "terminal_send",
            serde_json::json!({"sessionId": session, "text": text}),
        )
        .await
    }

    /// A `terminal_signal` of `signal` (`SIGINT`, …) to `session`.
    pub(crate) async fn signal(&self, agent: &Agent, session: &str, signal: &str) -> ToolResult {
        self.call(
            agent,
            "terminal_signal",
            serde_json::json!({"sessionId": session, "signal": signal}),
        )
        .await
    }

    pub(crate) async fn shutdown(self) {
        self.ctx.dispose().await;
    }
}

/// The JSON arguments after `terminal_read ` in a marker line such as
/// `[… N lines omitted; page them with terminal_read {…}]`.
pub(crate) fn read_args_of(line: &str) -> Option<serde_json::Value> {
    let args = line.split_once("terminal_read ")?.1.strip_suffix(']')?;
    serde_json::from_str(args).ok()
}

/// Whether `program` is on the PATH (`.ci/run` installs what the tests drive).
pub(crate) fn installed(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The job id of a background send's result.
pub(crate) fn job_id(r: &ToolResult) -> String {
    r.structured.as_ref().expect("a background result")["jobId"]
        .as_str()
        .expect("a job id")
        .to_owned()
}

/// Files a test's program waits for (`while [ ! -e file ]`) and the test creates to let it go
/// on, so that a step of a background job's program happens only once the test saw what it
/// needs (a read showed a line): in a directory of their own, removed on drop.
pub(crate) struct Gates(std::path::PathBuf);

impl Gates {
    /// Gates for test `test` in `session` (unique per process and session).
    pub(crate) fn new(test: &str, session: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "dsh-{test}-{}-{}",
            std::process::id(),
            session.replace(|c: char| !c.is_ascii_alphanumeric(), "")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// The shell loop that waits until gate `name` is open.
    pub(crate) fn wait(&self, name: &str) -> String {
        format!(
            "while [ ! -e '{}' ]; do sleep 0.05; done",
            self.0.join(name).display()
        )
    }

    /// Lets a program waiting at gate `name` go on.
    pub(crate) fn open(&self, name: &str) {
        std::fs::write(self.0.join(name), "").unwrap();
    }

    /// Where gate `name` is (a program may create it to tell the test it got there).
    pub(crate) fn path(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for Gates {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

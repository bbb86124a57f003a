//! A composed host (jobs, tools, prompt, tool-jobs) and a controllable producer.

use std::sync::Arc;

use dsh_context::{Agent, Context};
use dsh_jobs::{
    FinalStatus, JobHooks, JobId, JobOutcome, JobRegistry, JobStart, JobsPlugin, ReadOutputHook,
};
use dsh_system_prompt::SystemPromptPlugin;
use dsh_tool_jobs::{JobNotices, ToolJobsConfig, ToolJobsPlugin};
use dsh_tools::{ToolCall, ToolResult, Tools, ToolsPlugin};
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::oneshot;

pub struct Host {
    pub ctx: Context,
    pub tools: Arc<Tools>,
    pub jobs: Arc<dyn JobRegistry>,
    pub notices: Arc<JobNotices>,
}

impl Host {
    pub fn new(config: ToolJobsConfig) -> Self {
        let ctx = Context::builder()
            .with(SystemPromptPlugin)
            .with(ToolsPlugin)
            .with(JobsPlugin::default())
            .with(ToolJobsPlugin { config })
            .apply()
            .unwrap();
        Self {
            tools: ctx.require::<Tools>().unwrap(),
            jobs: ctx.require::<dyn JobRegistry>().unwrap(),
            notices: ctx.require::<JobNotices>().unwrap(),
            ctx,
        }
    }

    pub fn agent(&self, id: &str) -> Agent {
        Agent::new(&self.ctx, id)
    }

    pub async fn call(&self, agent: Option<&Agent>, name: &str, args: Value) -> ToolResult {
        let mut call = ToolCall::new("test");
        call.agent = agent.cloned();
        self.tools.execute(name, args, call).await
    }

    pub fn start(&self, probe: &Arc<Probe>, owner: Option<&Agent>, limit: Option<usize>) -> JobId {
        self.jobs.start(probe.spec(owner, limit)).unwrap()
    }
}

/// A stream producer the test drives: push output, settle, observe cancels.
#[derive(Default)]
pub struct Probe {
    buffer: Mutex<String>,
    pub cancels: Mutex<Vec<String>>,
    finish: Mutex<Option<oneshot::Sender<JobOutcome>>>,
    pub fail_cancel: Mutex<bool>,
}

impl Probe {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    pub fn push(&self, text: &str) {
        self.buffer.lock().push_str(text);
    }
    pub fn finish(&self, status: FinalStatus, detail: &str) {
        if let Some(tx) = self.finish.lock().take() {
            let _ = tx.send(JobOutcome::new(status, Some(detail.to_owned())));
        }
    }
    pub fn spec(self: &Arc<Self>, owner: Option<&Agent>, limit: Option<usize>) -> JobStart {
        let p = self.clone();
        JobStart {
            kind: "pty-send".into(),
            label: "pty-1: make test".into(),
            output_limit_bytes: limit,
            owner: owner.cloned(),
            run: Box::new(move || {
                let (tx, rx) = oneshot::channel();
                *p.finish.lock() = Some(tx);
                let c = p.clone();
                let r = p.clone();
                Ok(JobHooks {
                    cancel: Box::new(move |reason| {
                        if *c.fail_cancel.lock() {
                            return Err("interrupt failed: no foreground process group".into());
                        }
                        c.cancels.lock().push(reason.to_owned());
                        c.finish(FinalStatus::Killed, "wait: stdin_read");
                        Ok(())
                    }),
                    read_output: Some(
                        Box::new(move || std::mem::take(&mut *r.buffer.lock())) as ReadOutputHook
                    ),
                    stop_leftover: None,
                    done: Box::pin(
                        async move { rx.await.map_err(|_| "producer dropped".to_owned()) },
                    ),
                })
            }),
        }
    }
}

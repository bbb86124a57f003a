//! Delivery of background-job completion notices and of call progress over MCP.
//!
//! A notice reaches the model two ways, so every client shows it: it is appended as its own
//! text block to the connection's next `tools/call` result (each notice once), and it is sent
//! at once as a log notification (`notifications/message`, level `info`, logger `dsh-jobs`).
//!
//! rmcp marks MCP logging deprecated (SEP-2577) in favour of a successor clients do not
//! implement yet; log notifications are the push channel clients render today.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use dsh_context::Agent;
use dsh_tool_jobs::JobNotices;
use rmcp::model::{
    CallToolResult, ContentBlock, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// The logger name of notice log notifications.
pub const NOTICE_LOGGER: &str = "dsh-jobs";

/// Appends `agent`'s pending notices to `result`, one text block each, as many as fit what
/// `result` left of the result cap ([`JobNotices::take`] applies it).
pub(crate) fn append_notices(notices: &JobNotices, agent: &Agent, result: &mut CallToolResult) {
    for notice in notices.take(agent, text_bytes(result)) {
        result.content.push(ContentBlock::text(notice.text));
    }
}

/// The bytes of `result`'s text as a client shows it: its text blocks with one line break
/// ([`dsh_tool_jobs::NOTICE_SEPARATOR_BYTES`]) between each two.
fn text_bytes(result: &CallToolResult) -> usize {
    let lengths: Vec<usize> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.len()))
        .collect();
    lengths.iter().sum::<usize>()
        + lengths.len().saturating_sub(1) * dsh_tool_jobs::NOTICE_SEPARATOR_BYTES
}

/// The least severe level of log notification a connection's client asked for with
/// `logging/setLevel` (MCP's logging utility); `info` until it asks. Notices go at `info`, so a
/// client that asked for `warning` or above gets them in tool results only.
#[derive(Debug)]
pub(crate) struct LogLevel(AtomicU8);

impl Default for LogLevel {
    fn default() -> Self {
        Self(AtomicU8::new(severity(LoggingLevel::Info)))
    }
}

impl LogLevel {
    /// Sets the least severe level sent from now on.
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(severity(level), Ordering::Relaxed);
    }

    /// Whether a notification at `level` is sent.
    fn sends(&self, level: LoggingLevel) -> bool {
        severity(level) >= self.0.load(Ordering::Relaxed)
    }
}

/// RFC 5424's order of the MCP log levels, least severe first.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Forwards `agent`'s notices to the client as log notifications, while `level` lets `info`
/// through, until `stop` is cancelled or the client goes away.
pub(crate) fn spawn_log_forwarder(
    notices: Arc<JobNotices>,
    agent: Agent,
    (peer, level): (Peer<RoleServer>, Arc<LogLevel>),
    stop: CancellationToken,
) {
    let mut rx = notices.subscribe();
    tokio::spawn(async move {
        loop {
            let notice = tokio::select! {
                () = stop.cancelled() => return,
                n = rx.recv() => match n {
                    Ok(n) => n,
                    Err(RecvError::Lagged(skipped)) => {
                        tracing::warn!(skipped, "notice log forwarder lagged; those notices still reach the next tool result");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                },
            };
            if notice.owner != agent || !level.sends(LoggingLevel::Info) {
                continue;
            }
            let param = LoggingMessageNotificationParam::new(
                LoggingLevel::Info,
                serde_json::Value::String(notice.text),
            )
            .with_logger(NOTICE_LOGGER);
            let sent = peer.notify_logging_message(param).await;
            if let Err(e) = sent {
                tracing::debug!(error = %e, "could not send a notice log notification");
                return;
            }
        }
    });
}

/// A progress sink for one `tools/call` that carried `progressToken`: reports become
/// `notifications/progress` in order, sent by one task that ends when the call's sink is
/// dropped.
pub(crate) fn progress_sink(
    peer: Peer<RoleServer>,
    token: ProgressToken,
) -> dsh_tools::ProgressSink {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<dsh_tools::ToolProgress>();
    tokio::spawn(async move {
        while let Some(report) = rx.recv().await {
            let mut param = ProgressNotificationParam::new(token.clone(), report.progress);
            if let Some(message) = report.message {
                param = param.with_message(message);
            }
            if let Err(e) = peer.notify_progress(param).await {
                tracing::debug!(error = %e, "could not send a progress notification");
                return;
            }
        }
    });
    dsh_tools::ProgressSink::new(move |report| {
        let _ = tx.send(report);
    })
}

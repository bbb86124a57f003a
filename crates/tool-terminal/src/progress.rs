//! Progress of a long foreground send, for callers that asked for it (e.g. an MCP
//! `progressToken`): once a second while output grows, the bytes produced so far and the newest
//! output line.

use std::time::Duration;

use dsh_output_retention::tail_slice;
use dsh_terminal_core::{SendOperation, SendResult, TerminalError};
use dsh_tools::{ProgressSink, ToolProgress};

/// How often a running send is sampled.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);
/// Longest progress message (the newest line's tail), in bytes.
const MAX_MESSAGE_BYTES: usize = 200;

/// Awaits the send; meanwhile reports progress to `sink` whenever the output grew.
pub(crate) async fn done_reporting(
    op: &SendOperation,
    sink: Option<&ProgressSink>,
) -> Result<SendResult, TerminalError> {
    let Some(sink) = sink else {
        return op.done().await;
    };
    let done = op.done();
    tokio::pin!(done);
    let mut ticker = tokio::time::interval_at(
        tokio::time::Instant::now() + PROGRESS_INTERVAL,
        PROGRESS_INTERVAL,
    );
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut reported = 0;
    loop {
        tokio::select! {
            result = &mut done => return result,
            _ = ticker.tick() => {
                let progress = op.progress();
                if progress.output_bytes > reported {
                    reported = progress.output_bytes;
                    sink.report(ToolProgress {
                        progress: progress.output_bytes as f64,
                        message: progress
                            .last_line
                            .map(|line| tail_slice(&line, MAX_MESSAGE_BYTES).to_owned()),
                    });
                }
            }
        }
    }
}

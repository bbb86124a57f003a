//! [`LineTransport`]: newline-delimited JSON-RPC over a byte stream (stdio), in front of rmcp,
//! so that every request gets an answer.
//!
//! rmcp's own stream transport drops lines it cannot parse (a lone surrogate escape, a cut-short
//! object) and answers shape errors with `id: null`, so the client waits forever. This one reads
//! lines itself (bounded, by default to [`DEFAULT_MAX_MESSAGE_BYTES`]), classifies each
//! (`inbound`), hands the messages rmcp can serve to rmcp, and writes the answers to the rest
//! itself, as it does to a request reusing the id of one still in flight; rmcp sees ids of the
//! server's own (`in_flight`). One writer task owns the output stream; rmcp's responses and our own answers queue to
//! it, so lines never interleave.

use std::io;

use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::in_flight::InFlight;
use crate::inbound::{Inbound, classify, oversized};

/// Default longest incoming line (one JSON-RPC message) served, in bytes: 8 MiB. A longer line
/// is discarded as it streams in (memory stays bounded) and answered with a JSON-RPC error that
/// names the limit; the connection keeps serving.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// The smallest line limit accepted (an `initialize` request must fit).
pub const MIN_MAX_MESSAGE_BYTES: usize = 1024;

/// How much of an over-long line is kept to find its `id`.
const OVERSIZED_HEAD_BYTES: usize = 4096;

/// Queued outgoing lines (backpressure on a client that stops reading).
const OUTGOING_QUEUE: usize = 64;

/// One line to write, with an optional report of the write's outcome.
struct Outgoing {
    line: Vec<u8>,
    written: Option<oneshot::Sender<io::Result<()>>>,
}

/// An rmcp server [`Transport`] over a reader and a writer carrying newline-delimited
/// JSON-RPC, which answers every request (see the module docs).
pub struct LineTransport<R> {
    lines: LineReader<R>,
    answers: std::collections::VecDeque<Value>,
    outgoing: Option<mpsc::Sender<Outgoing>>,
    writer: Option<JoinHandle<()>>,
    /// Cancelled when the input ends (see [`LineTransport::cancel_on_eof`]).
    on_eof: Option<CancellationToken>,
    /// Requests forwarded and not answered yet (a duplicate id among them is refused).
    in_flight: InFlight,
    /// The order calls to each terminal session arrived in (see
    /// [`LineTransport::ordering_calls`]).
    arrival: dsh_tools::ArrivalOrder,
    /// The number of the group of lines written together the line being read came in (see
    /// [`WRITTEN_TOGETHER_WITHIN`]).
    batch: u64,
    /// When the last line was read.
    last_line_at: Option<std::time::Instant>,
    /// An answer was written since the last line was read.
    answered_since_line: bool,
    /// An `initialize` request was forwarded: rmcp ends the connection on a notification
    /// before it (a client's stray `notifications/initialized` or `cancelled`), so until then
    /// notifications are dropped; requests get rmcp's error (see [`BEFORE_INITIALIZE_ADVICE`]).
    initialize_seen: bool,
}

/// Lines the client wrote together (an agent's parallel tool calls) are in one group: each
/// read within this long of the one before, with no answer written in between. A call to a
/// session written together with sends comes after them; one written later, while the first
/// of them runs, acts on what runs (see [`dsh_tools::ArrivalOrder`]). Parallel calls are
/// written back to back; a later call follows a model's turn, seconds on.
const WRITTEN_TOGETHER_WITHIN: std::time::Duration = std::time::Duration::from_millis(100);

impl<R> std::fmt::Debug for LineTransport<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport")
            .field("pending_answers", &self.answers.len())
            .finish_non_exhaustive()
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> LineTransport<R> {
    /// A transport reading `read` and writing `write` (e.g. stdin and stdout), with lines of at
    /// most [`DEFAULT_MAX_MESSAGE_BYTES`]. Starts the writer task, so call it within a tokio
    /// runtime.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Self {
        Self::with_max_message_bytes(read, write, DEFAULT_MAX_MESSAGE_BYTES)
    }

    /// [`Self::new`] with another line limit.
    pub fn with_max_message_bytes<W: AsyncWrite + Unpin + Send + 'static>(
        read: R,
        write: W,
        max_message_bytes: usize,
    ) -> Self {
        let (tx, rx) = mpsc::channel(OUTGOING_QUEUE);
        Self {
            lines: LineReader::new(read, max_message_bytes),
            answers: std::collections::VecDeque::new(),
            outgoing: Some(tx),
            writer: Some(tokio::spawn(write_lines(write, rx))),
            on_eof: None,
            in_flight: InFlight::default(),
            arrival: dsh_tools::ArrivalOrder::default(),
            batch: 0,
            last_line_at: None,
            answered_since_line: false,
            initialize_seen: false,
        }
    }

    /// Cancels `token` when the input ends (EOF or a read error): pass the token the
    /// connection is served with, so that calls still running stop at once (their client is
    /// gone and reads no answer) instead of being waited for.
    #[must_use]
    pub fn cancel_on_eof(mut self, token: CancellationToken) -> Self {
        self.on_eof = Some(token);
        self
    }

    /// Gives each `tools/call` its place in `order` as its line arrives, so that the calls
    /// to one terminal session take effect in the order the client wrote them (pass
    /// [`crate::McpServer::arrival_order`]); without it, calls are not ordered.
    #[must_use]
    pub fn ordering_calls(mut self, order: dsh_tools::ArrivalOrder) -> Self {
        self.arrival = order;
        self
    }

    /// The input ended: cancel the token given to [`Self::cancel_on_eof`].
    fn input_ended(&self) {
        if let Some(token) = &self.on_eof {
            token.cancel();
        }
    }

    /// Queues our own answers; cancel safe (an answer leaves `answers` only into the queue).
    async fn flush_answers(&mut self) -> Option<()> {
        while let Some(answer) = self.answers.front() {
            let mut line = serde_json::to_vec(answer).unwrap_or_default();
            line.push(b'\n');
            let permit = self.outgoing.as_ref()?.reserve().await.ok()?;
            permit.send(Outgoing {
                line,
                written: None,
            });
            self.answers.pop_front();
        }
        Some(())
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut rx: mpsc::Receiver<Outgoing>) {
    while let Some(out) = rx.recv().await {
        let result = match write.write_all(&out.line).await {
            Ok(()) => write.flush().await,
            Err(e) => Err(e),
        };
        let failed = result.is_err();
        if let Err(e) = &result {
            tracing::warn!(error = %e, "cannot write to the client");
        }
        if let Some(written) = out.written {
            let _ = written.send(result);
        }
        if failed {
            return;
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        // The client's id back; freed before the answer is written (the client may reuse it
        // as soon as it reads it).
        let mut item = item;
        advise_before_initialize(&mut item);
        self.in_flight.send(&mut item);
        if matches!(
            item,
            rmcp::model::JsonRpcMessage::Response(_) | rmcp::model::JsonRpcMessage::Error(_)
        ) {
            self.answered_since_line = true;
        }
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            let closed = || io::Error::new(io::ErrorKind::NotConnected, "transport is closed");
            let outgoing = outgoing.ok_or_else(closed)?;
            let (written, result) = oneshot::channel();
            outgoing
                .send(Outgoing {
                    line,
                    written: Some(written),
                })
                .await
                .map_err(|_| closed())?;
            result.await.map_err(|_| closed())?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.flush_answers().await?;
            let line = self.lines.next().await;
            // Written together with the line before it (an agent's parallel tool calls):
            // with no answer written in between, and within a moment of it.
            let now = std::time::Instant::now();
            if self.answered_since_line
                || self
                    .last_line_at
                    .is_none_or(|at| now.duration_since(at) > WRITTEN_TOGETHER_WITHIN)
            {
                self.batch += 1;
            }
            (self.last_line_at, self.answered_since_line) = (Some(now), false);
            match line {
                None => {
                    self.input_ended();
                    return None;
                }
                Some(Err(e)) => {
                    tracing::error!(error = %e, "cannot read from the client");
                    self.input_ended();
                    return None;
                }
                Some(Ok(Line::Whole(line))) => match classify(&line) {
                    Inbound::Forward(message)
                        if !self.initialize_seen && is_notification(&message) =>
                    {
                        tracing::debug!(?message, "ignored a notification sent before initialize");
                    }
                    Inbound::Forward(mut message) => match self.in_flight.receive(&mut message) {
                        Ok(()) => {
                            self.initialize_seen |= is_initialize(&message);
                            crate::in_flight::take_arrival_ticket(
                                &self.arrival,
                                &mut message,
                                self.batch,
                            );
                            return Some(*message);
                        }
                        Err(answer) => self.answers.push_back(answer),
                    },
                    Inbound::Answer(answer) => {
                        tracing::debug!(%answer, "answering a message rmcp cannot serve");
                        self.answers.push_back(answer);
                    }
                    Inbound::Ignore => {}
                },
                Some(Ok(Line::Oversized(head))) => {
                    tracing::warn!(
                        limit = self.lines.max,
                        "discarded an incoming message over the line limit"
                    );
                    self.answers.push_back(oversized(&head, self.lines.max));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        // Answers still queued go out before the writer stops.
        let _ = self.flush_answers().await;
        drop(self.outgoing.take());
        if let Some(writer) = self.writer.take() {
            writer.await.map_err(io::Error::other)?;
        }
        Ok(())
    }
}

/// The start of rmcp's error for a request that came before `initialize`: it reads such a
/// request as a stateless one of protocol 2026-07-28 and names the `_meta` fields it lacks.
const META_MISSING: &str = "request _meta is missing";

/// What a client that sent a request before `initialize` does next (rmcp's error says only
/// what the request lacked).
const BEFORE_INITIALIZE_ADVICE: &str = "the request came before initialize: this server starts a session with initialize, so send it (then notifications/initialized) first and repeat the request";

/// Whether `message` is a notification (no answer is owed to it).
fn is_notification(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    matches!(message, rmcp::model::JsonRpcMessage::Notification(_))
}

/// Whether `message` is the `initialize` request that starts the session.
fn is_initialize(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    matches!(
        message,
        rmcp::model::JsonRpcMessage::Request(request)
            if matches!(request.request, rmcp::model::ClientRequest::InitializeRequest(_))
    )
}

/// Adds [`BEFORE_INITIALIZE_ADVICE`] to rmcp's error for a request sent before `initialize`.
fn advise_before_initialize(item: &mut TxJsonRpcMessage<RoleServer>) {
    if let rmcp::model::JsonRpcMessage::Error(e) = item
        && e.error.message.starts_with(META_MISSING)
    {
        // The advice first: rmcp's own words name `_meta` fields no client of a session sends.
        e.error.message = format!(
            "{BEFORE_INITIALIZE_ADVICE} (read without a session, as a stateless request: {})",
            e.error.message
        )
        .into();
    }
}

/// One framed input line.
enum Line {
    /// A whole line, without its newline.
    Whole(Vec<u8>),
    /// A line over the limit, discarded; its first bytes.
    Oversized(Vec<u8>),
}

/// Reads newline-terminated lines of at most `max` bytes. Cancel safe: a partial line stays in
/// the reader and the next call resumes it.
struct LineReader<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// `Some(head)` while discarding the rest of an over-long line.
    discarding: Option<Vec<u8>>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(read: R, max: usize) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            max,
            discarding: None,
        }
    }

    async fn next(&mut self) -> Option<io::Result<Line>> {
        loop {
            let buf = match self.read.fill_buf().await {
                Ok(buf) => buf,
                Err(e) => return Some(Err(e)),
            };
            if buf.is_empty() {
                // End of input: a last line without a newline still counts.
                if let Some(head) = self.discarding.take() {
                    return Some(Ok(Line::Oversized(head)));
                }
                if self.line.is_empty() {
                    return None;
                }
                return Some(Ok(Line::Whole(std::mem::take(&mut self.line))));
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..newline.map_or(buf.len(), |i| i)];
            if let Some(head) = self.discarding.as_mut() {
                let room = OVERSIZED_HEAD_BYTES.saturating_sub(head.len());
                head.extend_from_slice(&chunk[..chunk.len().min(room)]);
            } else if self.line.len() + chunk.len() > self.max {
                let mut head = std::mem::take(&mut self.line);
                head.truncate(OVERSIZED_HEAD_BYTES);
                let room = OVERSIZED_HEAD_BYTES.saturating_sub(head.len());
                head.extend_from_slice(&chunk[..chunk.len().min(room)]);
                self.discarding = Some(head);
            } else {
                self.line.extend_from_slice(chunk);
            }
            let consumed = newline.map_or(buf.len(), |i| i + 1);
            self.read.consume(consumed);
            if newline.is_some() {
                if let Some(head) = self.discarding.take() {
                    return Some(Ok(Line::Oversized(head)));
                }
                return Some(Ok(Line::Whole(std::mem::take(&mut self.line))));
            }
        }
    }
}

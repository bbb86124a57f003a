//! [`AnswerOrEnd`]: a request's event stream that ends without the request's answer (its MCP
//! session was deleted, expired or closed by the server's shutdown while it ran, and rmcp
//! dropped the request) ends with a JSON-RPC error saying so, as a request running on stdio is
//! answered when the server stops: the client never waits on a stream that just closed. A
//! request the client cancelled (`notifications/cancelled`) gets no answer, as on stdio and as
//! MCP asks (it was said that its session ended, and the client was told to start a new one).
//! A request's event stream dropped before its answer (the client disconnected; MCP takes that
//! for the network's, so the request runs on) tells the tool call that its answer is lost
//! ([`LostAnswers`]): a terminal send then leaves its output to the session's next send.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use futures_core::Stream;
use parking_lot::Mutex;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ErrorCode, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use tokio_util::sync::CancellationToken;

/// JSON-RPC's first implementation-defined server error: the request's session ended.
const SESSION_ENDED: ErrorCode = ErrorCode(-32000);

/// What a request whose session ended under it is answered.
const SESSION_ENDED_MESSAGE: &str = "the MCP session ended while this request ran (a DELETE of \
     it, its idle expiry, or the server shutting down): its terminal sessions were closed and \
     every process they started stopped, so this request has no result; start a new MCP session \
     (initialize) to go on";

/// Most cancelled request ids kept per MCP session (see [`Cancelled`]).
const MAX_CANCELLED: usize = 1024;

/// The ids (as JSON text) of one MCP session's requests its client cancelled, until their
/// event streams ended.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cancelled(Arc<Mutex<HashSet<String>>>);

impl Cancelled {
    /// Notes the request `message` cancels, when it is `notifications/cancelled`.
    pub(crate) fn note(&self, message: &ClientJsonRpcMessage) {
        if let JsonRpcMessage::Notification(n) = message
            && let ClientNotification::CancelledNotification(c) = &n.notification
            && let Some(id) = &c.params.request_id
        {
            let mut ids = self.0.lock();
            // A client that cancels what never runs (or was answered) grows it no further.
            if ids.len() < MAX_CANCELLED {
                ids.insert(crate::in_flight::key(id));
            }
        }
    }

    /// Whether the request with id `id` was cancelled (forgotten then).
    fn take(&self, id: &RequestId) -> bool {
        self.0.lock().remove(&crate::in_flight::key(id))
    }
}

/// The tool calls of one MCP session being run, by request id (as JSON text), each with the
/// token cancelled when the request's event stream is dropped before its answer passed.
#[derive(Clone, Debug, Default)]
pub(crate) struct LostAnswers(Arc<Mutex<HashMap<String, CancellationToken>>>);

impl LostAnswers {
    /// Registers the call of request `id` until the returned guard is dropped; the guard's
    /// token is cancelled if the request's answer is lost meanwhile.
    pub(crate) fn watch(&self, id: &RequestId) -> AnswerWatch {
        let key = crate::in_flight::key(id);
        let token = CancellationToken::new();
        self.0.lock().insert(key.clone(), token.clone());
        AnswerWatch {
            answers: self.clone(),
            key,
            token,
        }
    }

    /// The answer of request `id` can no longer reach the client.
    fn lost(&self, id: &RequestId) {
        if let Some(token) = self.0.lock().get(&crate::in_flight::key(id)) {
            token.cancel();
        }
    }
}

/// A tool call registered with [`LostAnswers::watch`].
pub(crate) struct AnswerWatch {
    answers: LostAnswers,
    key: String,
    token: CancellationToken,
}

impl AnswerWatch {
    /// Cancelled when the call's answer is lost.
    pub(crate) fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

impl Drop for AnswerWatch {
    fn drop(&mut self) {
        self.answers.0.lock().remove(&self.key);
    }
}

/// The event stream of request `id` (see the module docs).
pub(crate) struct AnswerOrEnd {
    inner: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>,
    /// The request's id until its answer passed (or the error was given).
    id: Option<RequestId>,
    cancelled: Cancelled,
    lost: LostAnswers,
}

impl AnswerOrEnd {
    /// `inner`, the event stream of the request with id `id` (`None`: no request, nothing
    /// added) in an MCP session whose cancelled requests are `cancelled` and whose running
    /// tool calls are `lost`.
    pub(crate) fn new(
        inner: impl Stream<Item = ServerSseMessage> + Send + Sync + 'static,
        id: Option<RequestId>,
        cancelled: Cancelled,
        lost: LostAnswers,
    ) -> Self {
        Self {
            inner: Box::pin(inner),
            id,
            cancelled,
            lost,
        }
    }
}

impl Drop for AnswerOrEnd {
    /// Dropped before the answer passed: the client went away (a cancelled request needs no
    /// answer).
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && !self.cancelled.take(&id)
        {
            self.lost.lost(&id);
        }
    }
}

impl Stream for AnswerOrEnd {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match ready!(self.inner.as_mut().poll_next(cx)) {
            Some(event) => {
                if let Some(message) = event.message.as_deref()
                    && self.id.as_ref().is_some_and(|id| answers(message, id))
                    && let Some(id) = self.id.take()
                {
                    self.cancelled.take(&id);
                }
                Poll::Ready(Some(event))
            }
            None => {
                let id = self.id.take().filter(|id| !self.cancelled.take(id));
                Poll::Ready(id.map(|id| {
                    ServerSseMessage::from_message(JsonRpcMessage::error(
                        ErrorData::new(SESSION_ENDED, Cow::Borrowed(SESSION_ENDED_MESSAGE), None),
                        Some(id),
                    ))
                }))
            }
        }
    }
}

/// Whether `message` answers the request with id `id`.
fn answers(message: &ServerJsonRpcMessage, id: &RequestId) -> bool {
    match message {
        JsonRpcMessage::Response(response) => &response.id == id,
        JsonRpcMessage::Error(error) => error.id.as_ref() == Some(id),
        _ => false,
    }
}

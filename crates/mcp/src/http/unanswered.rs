//! [`AnswerOrEnd`]: a request's event stream that ends without the request's answer (its MCP
//! session was deleted, expired or closed by the server's shutdown while it ran, and rmcp
//! dropped the request) ends with a JSON-RPC error saying so, as a request running on stdio is
//! answered when the server stops: the client never waits on a stream that just closed.

use std::borrow::Cow;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures_core::Stream;
use rmcp::model::{ErrorCode, ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;

/// JSON-RPC's first implementation-defined server error: the request's session ended.
const SESSION_ENDED: ErrorCode = ErrorCode(-32000);

/// What a request whose session ended under it is answered.
const SESSION_ENDED_MESSAGE: &str = "the MCP session ended while this request ran (a DELETE of \
     it, its idle expiry, or the server shutting down): its terminal sessions were closed and \
     every process they started stopped, so this request has no result; start a new MCP session \
     (initialize) to go on";

/// The event stream of request `id` (see the module docs).
pub(crate) struct AnswerOrEnd {
    inner: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>,
    /// The request's id until its answer passed (or the error was given).
    id: Option<RequestId>,
}

impl AnswerOrEnd {
    /// `inner`, the event stream of the request with id `id` (`None`: no request, nothing
    /// added).
    pub(crate) fn new(
        inner: impl Stream<Item = ServerSseMessage> + Send + Sync + 'static,
        id: Option<RequestId>,
    ) -> Self {
        Self {
            inner: Box::pin(inner),
            id,
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
                {
                    self.id = None;
                }
                Poll::Ready(Some(event))
            }
            None => Poll::Ready(self.id.take().map(|id| {
                ServerSseMessage::from_message(JsonRpcMessage::error(
                    ErrorData::new(SESSION_ENDED, Cow::Borrowed(SESSION_ENDED_MESSAGE), None),
                    Some(id),
                ))
            })),
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

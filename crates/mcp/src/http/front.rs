//! [`Front`]: what every HTTP request passes before rmcp's Streamable HTTP service sees it.
//!
//! - `GET /healthz`: liveness and readiness without the token (probes carry no secrets):
//!   200 `{"status":"ok"}` while serving, 503 `{"status":"shutting_down"}` once shutdown began.
//! - Any path but `/mcp`: 404.
//! - `/mcp`: the `Host` header first ([`super::host`]: missing, repeated or malformed: 400;
//!   not on the allowlist: 403), then the other headers acted on, each at most once
//!   ([`super::headers`]: `Authorization`, `Mcp-Session-Id`, `MCP-Protocol-Version`,
//!   `Last-Event-ID`, `Origin`; repeated: 400), then the bearer token (401 with
//!   `WWW-Authenticate: Bearer`),
//!   then the session (`Mcp-Session-Id` of a session that is not live: 404; otherwise the
//!   request is marked in flight until its answer was sent, which keeps the session from idling
//!   out, see [`super::sessions`]), then the session limit for a request that would open a
//!   session (a POST without `Mcp-Session-Id`: 503), then a JSON POST's body (over the limit:
//!   413), which is classified like a stdio line ([`crate::inbound`]: lone surrogates repaired,
//!   parse and shape errors answered as JSON-RPC errors with the request's id, 400), then rmcp
//!   (the Origin allowlist: 403).
//!
//! Every error answer is JSON: a JSON-RPC error for a bad message, else
//! `{"error": "<what happened and what to do>"}` (rmcp's plain-text error answers are
//! rewrapped).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{
    AUTHORIZATION, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, EXPECT, WWW_AUTHENTICATE,
};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Empty, Full};
use hyper::body::Frame;
use rmcp::model::RequestId;
use rmcp::transport::streamable_http_server::{SessionId, StreamableHttpService};
use subtle::ConstantTimeEq as _;
use tokio_util::sync::CancellationToken;

use super::body::{BodyError, read_body};
use super::host::AllowedHosts;
use super::sessions::{AgentSessions, RequestGuard, full_message};
use crate::in_flight;
use crate::inbound::{Inbound, classify_body};
use crate::server::Connection;

/// The path MCP is served at.
pub const MCP_PATH: &str = "/mcp";
/// The health path.
pub const HEALTH_PATH: &str = "/healthz";

/// The HTTP body type of every answer.
pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// A bearer token; its `Debug` never shows it.
#[derive(Clone)]
pub(crate) struct BearerToken(Arc<[u8]>);

impl BearerToken {
    pub(crate) fn new(token: &str) -> Self {
        Self(Arc::from(token.as_bytes()))
    }

    /// Whether `header` is `Bearer <this token>` (scheme case-insensitive; the token compared
    /// in constant time).
    fn admits(&self, header: Option<&HeaderValue>) -> bool {
        let Some(value) = header.map(HeaderValue::as_bytes) else {
            return false;
        };
        let Some((scheme, token)) = value.split_at_checked(7) else {
            return false;
        };
        scheme.eq_ignore_ascii_case(b"bearer ") && bool::from(token.trim_ascii().ct_eq(&self.0))
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

/// The request guard in front of rmcp (see the module docs).
#[derive(Clone)]
pub(crate) struct Front {
    pub(crate) mcp: StreamableHttpService<Connection, AgentSessions>,
    pub(crate) sessions: Arc<AgentSessions>,
    /// The `Host` values served.
    pub(crate) hosts: AllowedHosts,
    pub(crate) token: Option<BearerToken>,
    pub(crate) shutdown: CancellationToken,
    /// The longest request body read (413 beyond it), in bytes.
    pub(crate) max_body_bytes: usize,
    /// How long a request body may take to arrive after its headers (408 beyond it).
    pub(crate) body_read_timeout: Duration,
}

impl Front {
    /// Answers one request from `peer`.
    pub(crate) async fn handle<B>(&self, request: Request<B>, peer: SocketAddr) -> Response<Body>
    where
        B: hyper::body::Body + Send + 'static,
        B::Error: std::fmt::Display + Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let path = request.uri().path();
        if path == HEALTH_PATH {
            return if self.shutdown.is_cancelled() {
                json(
                    StatusCode::SERVICE_UNAVAILABLE,
                    serde_json::json!({"status": "shutting_down"}),
                )
            } else {
                json(StatusCode::OK, serde_json::json!({"status": "ok"}))
            };
        }
        if path != MCP_PATH {
            return error(
                StatusCode::NOT_FOUND,
                &format!(
                    "no such path {path:?}: MCP is served at {MCP_PATH}, health at {HEALTH_PATH}"
                ),
            );
        }
        if let Some(answer) = self.hosts.refusal(request.uri(), request.headers()) {
            return answer;
        }
        // Read once each below (and by rmcp): a repeated one would be taken for its first.
        if let Some(answer) = super::headers::repeated(request.headers(), self.token.is_some()) {
            return answer;
        }
        if let Some(token) = &self.token
            && !token.admits(request.headers().get(AUTHORIZATION))
        {
            tracing::warn!(%peer, "refused a request without the right bearer token");
            let mut response = error(
                StatusCode::UNAUTHORIZED,
                "missing or wrong bearer token: send the header \"Authorization: Bearer <token>\" with the server's token",
            );
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
        if self.shutdown.is_cancelled() {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down; start a new session once it is back",
            );
        }
        let session_id: Option<SessionId> = request
            .headers()
            .get("mcp-session-id")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into());
        // Marks the request in flight for its whole duration, so its session does not idle
        // out under it.
        let mut guard = match &session_id {
            Some(id) => match self.sessions.begin_request(id) {
                Some(guard) => Some(guard),
                None => return session_ended(),
            },
            None => None,
        };
        if session_id.is_none()
            && request.method() == Method::POST
            && self.sessions.len() >= self.sessions.max_sessions()
        {
            tracing::warn!(%peer, max = self.sessions.max_sessions(), "refused a new session: at the session limit");
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                &full_message(self.sessions.max_sessions()),
            );
        }
        let is_post = request.method() == Method::POST;
        let response = if is_post && is_json(request.headers()) {
            match self.screen(request).await {
                Ok((request, request_id)) => {
                    // A request reusing the id of one of its session's still being served is
                    // refused (see `RequestGuard::claim_id`).
                    if let (Some(guard), Some(request_id)) = (guard.as_mut(), request_id)
                        && !guard.claim_id(in_flight::key(&request_id))
                    {
                        return json(StatusCode::BAD_REQUEST, in_flight::duplicate(&request_id));
                    }
                    self.mcp.handle(request).await
                }
                Err(answer) => return answer,
            }
        } else {
            self.mcp.handle(request).await
        };
        let response = match &session_id {
            // rmcp found the session gone after all (its service ended, or a DELETE raced
            // this request): the same answer as for any ended session.
            Some(id) if response.status().is_server_error() && !self.sessions.is_live(id) => {
                return session_ended();
            }
            _ => as_json_error(response).await,
        };
        match guard {
            // A POST is in flight until its whole answer (e.g. a tool call's event stream)
            // was sent; a GET's event stream only listens, so it does not keep its session
            // active. A client that disconnects before its answer does not cancel the request
            // (MCP's Streamable HTTP transport: a disconnection may be the network's, and a
            // client cancels with `notifications/cancelled`): a send's command runs on.
            Some(guard) if is_post => response.map(|body| {
                Guarded {
                    body,
                    _guard: guard,
                }
                .boxed()
            }),
            _ => response,
        }
    }

    /// Reads a JSON POST's body (at most `max_body_bytes`, within `body_read_timeout`; see
    /// [`super::body`]: 413 over the limit, 408 past the deadline, both closing the connection
    /// unless the whole body was read) and classifies it as the stdio
    /// transport classifies a line ([`crate::inbound`]): the messages rmcp can serve are
    /// forwarded (lone surrogates repaired), with the id of a request among them, the rest
    /// answered here.
    async fn screen<B>(
        &self,
        request: Request<B>,
    ) -> Result<(Request<Full<Bytes>>, Option<RequestId>), Response<Body>>
    where
        B: hyper::body::Body + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (mut parts, body) = request.into_parts();
        let expects_continue = parts
            .headers
            .get(EXPECT)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
        let max = self.max_body_bytes;
        let read = read_body(body, max, self.body_read_timeout, expects_continue).await;
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(BodyError::TooLarge { declared, read_all }) => {
                let size = match declared {
                    Some(n) => format!(
                        "the request body declares {n} bytes, over the limit of {max} bytes"
                    ),
                    None => format!("the request body exceeds the limit of {max} bytes"),
                };
                let mut answer = error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!(
                        "Payload Too Large: {size}; {}",
                        advice(StatusCode::PAYLOAD_TOO_LARGE, "").unwrap_or_default()
                    ),
                );
                if !read_all {
                    close_after(&mut answer);
                }
                return Err(answer);
            }
            Err(BodyError::TimedOut { declared, received }) => {
                let declared =
                    declared.map_or_else(String::new, |n| format!(" of the {n} declared"));
                let mut answer = error(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "Request Timeout: the request body did not arrive within {} s of its headers ({received} bytes{declared} came); send the whole body at once, with a Content-Length that matches it",
                        self.body_read_timeout.as_secs()
                    ),
                );
                close_after(&mut answer);
                return Err(answer);
            }
            Err(BodyError::Read(e)) => {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    &format!("cannot read the request body: {e}; send it again"),
                ));
            }
        };
        let message = match classify_body(&bytes) {
            Inbound::Forward(message) => message,
            Inbound::Answer(answer) => {
                let status = if answer.get("error").is_some() {
                    StatusCode::BAD_REQUEST
                } else {
                    StatusCode::OK
                };
                return Err(json(status, answer));
            }
            // A notification rmcp would drop: accepted, as rmcp accepts notifications.
            Inbound::Ignore => {
                let mut response = Response::new(Empty::new().boxed());
                *response.status_mut() = StatusCode::ACCEPTED;
                return Err(response);
            }
        };
        let body = match serde_json::to_vec(&message) {
            Ok(body) => Bytes::from(body),
            Err(e) => {
                tracing::error!(error = %e, "cannot serialize a parsed client message");
                return Err(error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("cannot forward the message: {e}"),
                ));
            }
        };
        parts.headers.insert(CONTENT_LENGTH, body.len().into());
        let request_id = in_flight::request_id(&message);
        Ok((Request::from_parts(parts, Full::new(body)), request_id))
    }
}

/// Whether `headers` declare a JSON body (the only kind rmcp reads; rmcp answers 415 to the
/// rest).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        })
}

/// The answer to a request of a session that is not live.
fn session_ended() -> Response<Body> {
    error(
        StatusCode::NOT_FOUND,
        &format!(
            "Not Found: no live MCP session has this Mcp-Session-Id; {}",
            advice(StatusCode::NOT_FOUND, "").unwrap_or_default()
        ),
    )
}

/// An answer body that holds its request's [`RequestGuard`] until it is sent (or dropped).
struct Guarded {
    body: Body,
    _guard: RequestGuard,
}

impl hyper::body::Body for Guarded {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// `value` as a JSON answer with `status`.
fn json(status: StatusCode, value: serde_json::Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Marks `answer` as the connection's last (`Connection: close`): sent when a request body was
/// not read to its end, so the client knows not to send more on it.
fn close_after(answer: &mut Response<Body>) {
    answer
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
}

/// `{"error": message}` with `status`.
pub(crate) fn error(status: StatusCode, message: &str) -> Response<Body> {
    json(status, serde_json::json!({"error": message}))
}

/// rmcp answers some errors in plain text; those become `{"error": "<text>"}`, keeping the
/// status and the other headers. JSON answers (JSON-RPC errors) and successes pass unchanged.
async fn as_json_error(response: Response<Body>) -> Response<Body> {
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = match body.collect().await {
        Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
        Err(never) => match never {},
    };
    let mut text = if text.trim().is_empty() {
        status.canonical_reason().unwrap_or("error").to_owned()
    } else {
        text.trim().to_owned()
    };
    if let Some(advice) = advice(status, &text) {
        text.push_str("; ");
        text.push_str(advice);
    }
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(
        parts,
        Full::new(Bytes::from(serde_json::json!({"error": text}).to_string())).boxed(),
    )
}

/// What a client can do about an error rmcp answers with `status` and `text` (rmcp says only
/// what happened).
fn advice(status: StatusCode, text: &str) -> Option<&'static str> {
    Some(match status {
        // rmcp's other 400s: an MCP-Protocol-Version it does not know (the Host ones cannot
        // happen: the front answered them).
        StatusCode::BAD_REQUEST if text.contains("Session ID") => {
            "start a session with initialize (a POST without Mcp-Session-Id), then send the Mcp-Session-Id header its answer carries on every later request"
        }
        StatusCode::BAD_REQUEST if text.contains("MCP-Protocol-Version") => {
            "send the protocol version the initialize answer named, or no MCP-Protocol-Version header"
        }
        StatusCode::NOT_FOUND => {
            "the MCP session ended (HTTP DELETE, no request for --session-idle-timeout-ms, or a server restart) and its terminals with it: send initialize for a new session (a POST without Mcp-Session-Id)"
        }
        // rmcp's only 403 here: the Origin check (the front checks Host).
        StatusCode::FORBIDDEN => {
            "the server admits only the Origin values given with --allowed-origin (a request without Origin is served); ask its operator to add yours"
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            "the limit is the server's --max-message-bytes: send less per request (write large input to a file first)"
        }
        StatusCode::NOT_ACCEPTABLE => "send the header Accept: application/json, text/event-stream",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "send the header Content-Type: application/json",
        StatusCode::METHOD_NOT_ALLOWED => {
            "MCP uses POST (requests), GET (the event stream) and DELETE (end the session)"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_compared_after_a_bearer_scheme() {
        let token = BearerToken::new("s3cret");
        let admits = |v: &str| token.admits(Some(&HeaderValue::from_str(v).unwrap()));
        assert!(admits("Bearer s3cret"));
        assert!(admits("bearer s3cret "));
        assert!(!admits("Bearer s3cre"));
        assert!(!admits("Bearer s3cret2"));
        assert!(!admits("Basic s3cret"));
        assert!(!admits("s3cret"));
        assert!(!token.admits(None));
        assert_eq!(format!("{token:?}"), "BearerToken(<redacted>)");
    }
}

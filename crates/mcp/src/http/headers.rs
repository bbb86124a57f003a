//! The request headers the server acts on that a request must carry at most once: a repeated
//! one gets 400 (the `Host` header has its own check, [`super::host`]).
//!
//! hyper keeps every value of a repeated header, and the code that reads one (ours, or rmcp's)
//! takes the first: a request with two `Mcp-Session-Id` headers was served in the first
//! session, one with a second token after the right one was let in. None of these headers is a
//! list (RFC 9110 §5.3: only a list header may be repeated), so a repeated one is a client's
//! mistake or an attempt to have two readers see two values; either way the request is refused
//! before anything acts on it.

use http::header::{AUTHORIZATION, ORIGIN};
use http::{HeaderMap, HeaderName, Response, StatusCode};

use super::front::{Body, error};

/// A header served only once, with what a client sends instead of repeating it.
struct Single {
    name: HeaderName,
    /// How the header names itself in the error text.
    shown: &'static str,
    /// What to send instead (after "send exactly one, ").
    send: &'static str,
}

/// The headers checked, in the order checked. `Authorization` counts only when the server has
/// a token (without one it reads no `Authorization`).
fn singles(with_token: bool) -> impl Iterator<Item = Single> {
    let token = with_token.then(|| Single {
        name: AUTHORIZATION,
        shown: "Authorization",
        send: "\"Authorization: Bearer <token>\"",
    });
    token.into_iter().chain([
        Single {
            name: HeaderName::from_static("mcp-session-id"),
            shown: "Mcp-Session-Id",
            send: "the Mcp-Session-Id the initialize answer carried (none on the initialize request itself)",
        },
        Single {
            name: HeaderName::from_static("mcp-protocol-version"),
            shown: "MCP-Protocol-Version",
            send: "with the protocol version the initialize answer named, or none",
        },
        Single {
            name: HeaderName::from_static("last-event-id"),
            shown: "Last-Event-ID",
            send: "with the id of the last event read on the stream being resumed",
        },
        Single {
            name: ORIGIN,
            shown: "Origin",
            send: "naming the page's origin (a client that is no browser may send none)",
        },
    ])
}

/// The 400 answer to the first header of [`singles`] that `headers` repeat; `None` when none
/// is repeated.
pub(crate) fn repeated(headers: &HeaderMap, with_token: bool) -> Option<Response<Body>> {
    refusal(headers, with_token).map(|message| error(StatusCode::BAD_REQUEST, &message))
}

/// The error text for the first header of [`singles`] that `headers` repeat.
fn refusal(headers: &HeaderMap, with_token: bool) -> Option<String> {
    singles(with_token)
        .find(|single| headers.get_all(&single.name).iter().nth(1).is_some())
        .map(|single| {
            format!(
                "repeated {} header: send exactly one, {}",
                single.shown, single.send
            )
        })
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap_or_else(|e| panic!("{e}")),
                HeaderValue::from_str(value).unwrap_or_else(|e| panic!("{e}")),
            );
        }
        map
    }

    fn refused(pairs: &[(&str, &str)], with_token: bool) -> Option<String> {
        let headers = headers(pairs);
        if let Some(answer) = repeated(&headers, with_token) {
            assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
        }
        refusal(&headers, with_token)
    }

    #[test]
    fn each_header_acted_on_is_refused_when_repeated_even_with_equal_values() {
        for name in [
            "Authorization",
            "Mcp-Session-Id",
            "mcp-protocol-version",
            "Last-Event-ID",
            "Origin",
        ] {
            for second in ["a", "b"] {
                let error = refused(&[(name, "a"), (name, second)], true)
                    .unwrap_or_else(|| panic!("{name} twice passed"));
                let start = format!("repeated {name} header: send exactly one, ");
                assert!(
                    error
                        .to_ascii_lowercase()
                        .starts_with(&start.to_ascii_lowercase()),
                    "{name}: {error}"
                );
            }
        }
    }

    #[test]
    fn single_and_list_headers_pass_and_authorization_counts_only_with_a_token() {
        let once = [
            ("Authorization", "Bearer t"),
            ("Mcp-Session-Id", "s"),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Last-Event-ID", "1"),
            ("Origin", "http://localhost"),
            // A list header may be repeated.
            ("Accept", "application/json"),
            ("Accept", "text/event-stream"),
        ];
        assert_eq!(refused(&once, true), None);
        let two_tokens = [("Authorization", "Bearer t"), ("Authorization", "Bearer u")];
        assert_eq!(refused(&two_tokens, false), None);
        assert_eq!(
            refused(&two_tokens, true).as_deref(),
            Some(
                "repeated Authorization header: send exactly one, \"Authorization: Bearer <token>\""
            )
        );
    }
}

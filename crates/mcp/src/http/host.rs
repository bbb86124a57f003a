//! [`AllowedHosts`]: the `Host` header check, against DNS rebinding (a web page whose name
//! resolves to the server's address must not reach it).
//!
//! Every request to `/mcp` must carry exactly one valid `Host` header (RFC 9112 §3.2; a request
//! in absolute form may carry the authority in its target instead): none, more than one, or one
//! that is no `HOST` or `HOST:PORT` (port 1–65535) gets 400. A valid one not on the allowlist
//! gets 403. The allowlist: on a loopback listen address `localhost`, `127.0.0.1` and `::1`
//! plus every `--allowed-host`; on another address only the `--allowed-host` values, and any
//! host when there are none; `--allowed-host '*'` allows any host on either. An entry without
//! a port matches every port; names compare case-insensitively.

use std::net::SocketAddr;

use http::header::HOST;
use http::uri::Authority;
use http::{HeaderMap, Response, StatusCode, Uri};

use super::front::{Body, error};

/// The `Host` names always served on a loopback listen address.
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The `Host` values a server answers to (see the module docs).
#[derive(Debug, Clone)]
pub(crate) enum AllowedHosts {
    /// Any valid `Host`.
    Any,
    /// Only these (never empty).
    Only(Vec<Allowed>),
}

/// One allowlist entry.
#[derive(Debug, Clone)]
pub(crate) struct Allowed {
    /// As given, for error texts.
    given: String,
    /// Lowercase, without IPv6 brackets.
    host: String,
    /// `None`: any port.
    port: Option<u16>,
}

impl Allowed {
    fn new(given: &str) -> Self {
        let given = given.trim();
        let (host, port) = match Authority::try_from(given) {
            Ok(authority) => (normalize(authority.host()), authority.port_u16()),
            Err(_) => (normalize(given), None),
        };
        Self {
            given: given.to_owned(),
            host,
            port,
        }
    }

    fn admits(&self, host: &str, port: Option<u16>) -> bool {
        self.host == host && self.port.is_none_or(|p| Some(p) == port)
    }
}

impl AllowedHosts {
    /// The allowlist of a server listening on `listen` with `--allowed-host` values `given`.
    pub(crate) fn new(listen: SocketAddr, given: &[String]) -> Self {
        if given.iter().any(|h| h.trim() == "*") {
            return Self::Any;
        }
        let mut allowed: Vec<Allowed> = Vec::new();
        if listen.ip().is_loopback() {
            allowed.extend(LOOPBACK_NAMES.iter().map(|name| Allowed::new(name)));
        }
        allowed.extend(
            given
                .iter()
                .filter(|h| !h.trim().is_empty())
                .map(|h| Allowed::new(h)),
        );
        if allowed.is_empty() {
            Self::Any
        } else {
            Self::Only(allowed)
        }
    }

    /// The answer refusing a request for its `Host` (see the module docs); `None` when the
    /// `Host` is served.
    pub(crate) fn refusal(&self, uri: &Uri, headers: &HeaderMap) -> Option<Response<Body>> {
        let mut values = headers.get_all(HOST).iter();
        let value = match (values.next(), values.next()) {
            (Some(value), None) => String::from_utf8_lossy(value.as_bytes()).into_owned(),
            (Some(_), Some(_)) => {
                return Some(error(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: more than one Host header; send exactly one, naming the server as in the URL you connect to (HOST or HOST:PORT)",
                ));
            }
            (None, _) => match uri.authority() {
                Some(authority) => authority.as_str().to_owned(),
                None => {
                    return Some(error(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: no Host header; send one, naming the server as in the URL you connect to (HOST or HOST:PORT)",
                    ));
                }
            },
        };
        let Some((host, port)) = parse(&value) else {
            return Some(error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Bad Request: invalid Host header {value:?}; send the server's name or IP address as in the URL you connect to, optionally with :PORT (1-65535)"
                ),
            ));
        };
        match self {
            Self::Any => None,
            Self::Only(allowed) if allowed.iter().any(|a| a.admits(&host, port)) => None,
            Self::Only(allowed) => {
                tracing::warn!(host = %value, "refused a request with a Host not on the allowlist (possible DNS rebinding)");
                let names: Vec<&str> = allowed.iter().map(|a| a.given.as_str()).collect();
                Some(error(
                    StatusCode::FORBIDDEN,
                    &format!(
                        "Forbidden: Host {value:?} is not served here (served: {}); connect by one of those names, or ask the server's operator to add yours with --allowed-host",
                        names.join(", ")
                    ),
                ))
            }
        }
    }
}

/// A `Host` value's host (normalized) and port; `None` when it is no `HOST` or `HOST:PORT`
/// with a port of 1–65535 (an empty port, which RFC 3986 allows, counts as none).
fn parse(value: &str) -> Option<(String, Option<u16>)> {
    let authority = Authority::try_from(value).ok()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let port = match authority
        .as_str()
        .strip_prefix(authority.host())
        .and_then(|rest| rest.strip_prefix(':'))
    {
        None | Some("") => None,
        Some(port) => Some(port.parse::<u16>().ok().filter(|&p| p != 0)?),
    };
    Some((normalize(authority.host()), port))
}

/// Lowercase, without the brackets of an IPv6 address.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(allowed: &AllowedHosts, hosts: &[&str]) -> u16 {
        let mut headers = HeaderMap::new();
        for host in hosts {
            headers.append(HOST, host.parse().unwrap());
        }
        allowed
            .refusal(&Uri::from_static("/mcp"), &headers)
            .map_or(200, |response| response.status().as_u16())
    }

    fn given(hosts: &[&str]) -> Vec<String> {
        hosts.iter().map(|&h| h.to_owned()).collect()
    }

    #[test]
    fn on_loopback_the_allowed_hosts_add_to_the_loopback_names() {
        let loopback: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let allowed = AllowedHosts::new(loopback, &given(&["App.example.com", "other:9"]));
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "[::1]:8080",
            "app.example.com",
            "other:9",
        ] {
            assert_eq!(status(&allowed, &[host]), 200, "{host}");
        }
        for host in ["other:10", "other", "evil.example", "127.0.0.2"] {
            assert_eq!(status(&allowed, &[host]), 403, "{host}");
        }
        let default = AllowedHosts::new(loopback, &[]);
        assert_eq!(status(&default, &["localhost:3"]), 200);
        assert_eq!(status(&default, &["evil.example"]), 403);
    }

    #[test]
    fn elsewhere_only_the_allowed_hosts_are_served_or_any_without_them() {
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let allowed = AllowedHosts::new(any, &given(&["app.example.com"]));
        assert_eq!(status(&allowed, &["app.example.com:8080"]), 200);
        assert_eq!(status(&allowed, &["localhost"]), 403);
        let default = AllowedHosts::new(any, &[]);
        assert_eq!(status(&default, &["whatever.example"]), 200);
        let star = AllowedHosts::new("[::1]:1".parse().unwrap(), &given(&["x", "*"]));
        assert_eq!(status(&star, &["whatever.example"]), 200);
    }

    #[test]
    fn a_missing_repeated_or_malformed_host_is_a_bad_request_even_for_any_host() {
        let any = AllowedHosts::new("0.0.0.0:1".parse().unwrap(), &given(&["*"]));
        for hosts in [
            &[][..],
            &["localhost", "localhost"],
            &["localhost:abc"],
            &["localhost:99999"],
            &["localhost:0"],
            &["user@localhost"],
            &["a b"],
        ] {
            assert_eq!(status(&any, hosts), 400, "{hosts:?}");
        }
        assert_eq!(status(&any, &["localhost:"]), 200);
    }
}

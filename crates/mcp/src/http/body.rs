//! [`read_body`]: reading a request body within its size limit and deadline.
//!
//! - A body whose declared length (`Content-Length`) is over the limit is refused without
//!   reading it when it is more than [`OVERSIZE_DRAIN_BYTES`] over, or when the client waits
//!   for `100 Continue` before sending it.
//! - Otherwise a body over the limit is read on and discarded, up to [`OVERSIZE_DRAIN_BYTES`]
//!   past the limit, so the client is done sending when the 413 comes and reads it (a server
//!   that closes a connection with unread bytes resets it, and the client sees a broken pipe
//!   instead of the answer); a longer one is refused once that much was discarded.
//! - The whole body must arrive within the deadline (counted from the end of the headers, not
//!   per chunk, so a body dripped a byte at a time cannot hold the connection either).

use std::time::Duration;

use bytes::{Buf as _, Bytes, BytesMut};
use http_body_util::BodyExt as _;

/// How many bytes past the limit are read and discarded before a 413 (see the module docs):
/// 16 MiB.
pub(crate) const OVERSIZE_DRAIN_BYTES: u64 = 16 * 1024 * 1024;

/// Why a request body was not read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// More bytes than the limit were declared or sent.
    TooLarge {
        /// The declared length (`Content-Length`), when there was one.
        declared: Option<u64>,
        /// Whether the whole body was read (the connection can serve another request).
        read_all: bool,
    },
    /// The body did not arrive in full within the deadline.
    TimedOut {
        /// The declared length (`Content-Length`), when there was one.
        declared: Option<u64>,
        /// The bytes that did arrive.
        received: u64,
    },
    /// The connection failed mid-body.
    Read(String),
}

/// Reads `body`, at most `max` bytes, within `deadline` (see the module docs).
/// `expects_continue`: the request carries `Expect: 100-continue`.
///
/// # Errors
/// [`BodyError`]: over `max`, not complete within `deadline`, or the connection failed.
pub(crate) async fn read_body<B>(
    body: B,
    max: usize,
    deadline: Duration,
    expects_continue: bool,
) -> Result<Bytes, BodyError>
where
    B: hyper::body::Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let declared = body.size_hint().exact();
    let max = u64::try_from(max).unwrap_or(u64::MAX);
    if let Some(length) = declared
        && length > max
        && (expects_continue || length - max > OVERSIZE_DRAIN_BYTES)
    {
        return Err(BodyError::TooLarge {
            declared,
            read_all: false,
        });
    }
    let mut reader = Reader {
        kept: BytesMut::new(),
        received: 0,
        max,
        declared,
    };
    match tokio::time::timeout(deadline, reader.read(body)).await {
        Ok(result) => result,
        Err(_elapsed) if reader.received > max || declared.is_some_and(|l| l > max) => {
            Err(BodyError::TooLarge {
                declared,
                read_all: false,
            })
        }
        Err(_elapsed) => Err(BodyError::TimedOut {
            declared,
            received: reader.received,
        }),
    }
}

/// A body read so far (kept across the deadline, so a timeout can tell what arrived).
struct Reader {
    kept: BytesMut,
    received: u64,
    max: u64,
    declared: Option<u64>,
}

impl Reader {
    async fn read<B>(&mut self, body: B) -> Result<Bytes, BodyError>
    where
        B: hyper::body::Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let mut body = std::pin::pin!(body);
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| BodyError::Read(e.into().to_string()))?;
            let Ok(mut data) = frame.into_data() else {
                continue; // trailers
            };
            let len = u64::try_from(data.remaining()).unwrap_or(u64::MAX);
            self.received = self.received.saturating_add(len);
            if self.received <= self.max {
                while data.has_remaining() {
                    let chunk = data.chunk();
                    self.kept.extend_from_slice(chunk);
                    let n = chunk.len();
                    data.advance(n);
                }
            } else {
                // Over the limit: discard, up to the drain bound.
                self.kept = BytesMut::new();
                if self.received - self.max > OVERSIZE_DRAIN_BYTES {
                    return Err(BodyError::TooLarge {
                        declared: self.declared,
                        read_all: false,
                    });
                }
            }
        }
        if self.received > self.max {
            return Err(BodyError::TooLarge {
                declared: self.declared,
                read_all: true,
            });
        }
        Ok(std::mem::take(&mut self.kept).freeze())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use hyper::body::{Frame, SizeHint};

    use super::*;

    /// A body of `chunks` declaring `declared` bytes, which then ends (`ends`) or stalls.
    struct TestBody {
        chunks: VecDeque<Bytes>,
        declared: Option<u64>,
        ends: bool,
    }

    impl TestBody {
        fn new(chunks: &[&[u8]], declared: Option<u64>, ends: bool) -> Self {
            Self {
                chunks: chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect(),
                declared,
                ends,
            }
        }
    }

    impl hyper::body::Body for TestBody {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            let this = self.get_mut();
            match this.chunks.pop_front() {
                Some(chunk) => Poll::Ready(Some(Ok(Frame::data(chunk)))),
                None if this.ends => Poll::Ready(None),
                // Stalled: only the deadline's timer wakes the reader.
                None => Poll::Pending,
            }
        }

        fn size_hint(&self) -> SizeHint {
            self.declared
                .map_or_else(SizeHint::new, SizeHint::with_exact)
        }
    }

    /// Long enough that a deadline this long never elapses in a test.
    const NEVER: Duration = Duration::from_secs(600);
    /// What a stalled body gets; short, since the tests wait for it to pass.
    const SHORT: Duration = Duration::from_millis(50);

    /// How long a test waits for an outcome at most (a generous bound: the outcomes come at once
    /// or after [`SHORT`]).
    const GENEROUS: Duration = Duration::from_secs(20);

    async fn read(body: TestBody, max: usize, deadline: Duration) -> Result<Bytes, BodyError> {
        read_expecting(body, max, deadline, false).await
    }

    async fn read_expecting(
        body: TestBody,
        max: usize,
        deadline: Duration,
        expects_continue: bool,
    ) -> Result<Bytes, BodyError> {
        tokio::time::timeout(GENEROUS, read_body(body, max, deadline, expects_continue))
            .await
            .expect("an outcome within 20 s")
    }

    #[tokio::test]
    async fn a_body_within_the_limit_is_read_whole() {
        let body = TestBody::new(&[b"abc", b"def"], Some(6), true);
        assert_eq!(
            read(body, 6, NEVER).await,
            Ok(Bytes::from_static(b"abcdef"))
        );
        let chunked = TestBody::new(&[b"abc", b"def"], None, true);
        assert_eq!(
            read(chunked, 6, NEVER).await,
            Ok(Bytes::from_static(b"abcdef"))
        );
    }

    #[tokio::test]
    async fn a_body_that_stops_arriving_times_out() {
        // 41 of 100 declared bytes, then nothing.
        let body = TestBody::new(&[&[b'x'; 41]], Some(100), false);
        assert_eq!(
            read(body, 4096, SHORT).await,
            Err(BodyError::TimedOut {
                declared: Some(100),
                received: 41
            })
        );
    }

    #[tokio::test]
    async fn a_declared_length_far_over_the_limit_is_refused_unread() {
        // Stalls at once: only an answer from the declared length ends it before the deadline.
        let body = TestBody::new(&[], Some(99_999_999_999), false);
        assert_eq!(
            read(body, 4096, NEVER).await,
            Err(BodyError::TooLarge {
                declared: Some(99_999_999_999),
                read_all: false
            })
        );
        let waiting = TestBody::new(&[], Some(5000), false);
        assert_eq!(
            read_expecting(waiting, 4096, NEVER, true).await,
            Err(BodyError::TooLarge {
                declared: Some(5000),
                read_all: false
            })
        );
    }

    #[tokio::test]
    async fn a_body_somewhat_over_the_limit_is_read_to_its_end() {
        let body = TestBody::new(&[&[b'x'; 3000], &[b'x'; 3000]], Some(6000), true);
        assert_eq!(
            read(body, 4096, NEVER).await,
            Err(BodyError::TooLarge {
                declared: Some(6000),
                read_all: true
            })
        );
        // Sent without a length, it is discarded up to the drain bound, then refused.
        let big = vec![b'x'; 1024 * 1024];
        let chunks: Vec<&[u8]> = std::iter::repeat_n(big.as_slice(), 18).collect();
        let endless = TestBody::new(&chunks, None, false);
        assert_eq!(
            read(endless, 4096, NEVER).await,
            Err(BodyError::TooLarge {
                declared: None,
                read_all: false
            })
        );
    }
}

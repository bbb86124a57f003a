//! End-to-end tests of `dsh-mcp`: the built binary over stdio with rmcp's client, and
//! in-process connections over `tokio::io::duplex` sharing one server context.
//!
//! Every test closes what it opens and leaves no process behind; waits are bounded by
//! generous deadlines and never sleep to synchronise.

#![cfg(target_os = "linux")]
// Test helpers outside #[test] fns fail loudly on broken preconditions; clippy's
// allow-expect-in-tests only covers #[test] bodies.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod approval;
mod bad_input;
mod catalog;
mod cli;
mod environment;
mod host_death;
mod http;
mod http_answers;
mod http_front;
mod http_idle;
mod http_server;
mod isolation;
mod jobs;
mod notices;
mod ordering;
mod protocol;
mod raw;
mod snapshots;
mod stdio;
mod support;
mod warm;

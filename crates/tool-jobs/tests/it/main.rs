//! dsh-tool-jobs through the `Tools` pipeline with a probe producer (seed §8.7 items 122–125).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod closing;
mod support;
mod tools;

//! Integration tests of the six tools through the `Tools` registry: schemas (snapshots),
//! config validation, bad input, byte caps, and the full lifecycle against real bash.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration-test helpers outside #[test] fns"
)]

mod background;
mod background_flood;
mod background_kill;
mod background_notices;
mod background_output;
mod background_prompts;
mod background_redraw;
mod background_repl;
mod bad_input;
mod cancel;
mod input_line;
mod interrupt_races;
mod lifecycle;
mod long_lines;
mod paging;
mod schemas;
mod screen_rows;
mod signals;
mod support;

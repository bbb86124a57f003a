//! Output throughput against a raw PTY: `cat` of 80- and 4000-character lines and `yes`, and
//! the server's memory for 10k lines of scrollback.
//!
//! Hook for the output-path work: [`rows`] returns the rows the report prints. Not measured
//! yet; fill it with same-run ratios (ours: a send of `cat FILE` / `yes | head -c N` until it
//! settles; reference: [`super::raw::RawPty`] reading the same bytes until the prompt marker).

use anyhow::Result;

use super::stats::Row;

/// Throughput rows for the report (none yet: see the module docs).
pub(crate) fn rows(_quick: bool) -> Result<Vec<Row>> {
    Ok(Vec::new())
}

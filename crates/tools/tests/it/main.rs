//! Integration tests for the tool registry (one binary, grouped by area).

mod approval;
mod arrival;
mod fixtures;
mod pipeline;
mod schema;
mod validation;

/// Unwraps with the error's `Display` (tests only).
pub(crate) fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

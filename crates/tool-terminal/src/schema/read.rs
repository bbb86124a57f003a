//! `terminal_read`'s arguments and output, and the pointers other results give to pages of it.

use dsh_terminal_core::ReadResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `terminal_read` arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// Terminal session id.
    #[serde(rename = "sessionId")]
    #[schemars(length(max = crate::MAX_SESSION_ID_CHARS))]
    pub session_id: String,
    /// Newest-relative line offset (default 0).
    #[serde(default)]
    #[schemars(with = "u64")]
    pub offset: Option<u64>,
    /// First line of the range to read, by its number from the session's first line (0), as
    /// the omission lines of results give it; takes the place of offset (also when both are
    /// given), and still names the same lines after more output arrived. A range larger than
    /// one result holds comes newest first: the page holds its newest lines, and names the
    /// arguments for the rest.
    #[serde(default, rename = "fromLine")]
    #[schemars(with = "u64")]
    pub from_line: Option<u64>,
    /// Requested line count (default 500; backend caps apply).
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub count: Option<u64>,
}

/// `terminal_read` arguments that address a range of retained lines.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ReadPointer {
    /// The session to read.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// Newest-relative offset of the range's newest line (when the pointer was made: each
    /// line printed since moves it).
    pub offset: u64,
    /// Number of lines in the range.
    pub count: u64,
    /// The range's first line by its number from the session's first line (0): the same
    /// lines however much output follows; absent when not known.
    #[serde(rename = "fromLine", skip_serializing_if = "Option::is_none")]
    pub from_line: Option<u64>,
}

impl ReadPointer {
    /// The pointer to the `count` lines that end `offset` lines before the newest one, whose
    /// number is `newest_line` (from the session's first line) when known.
    pub(crate) fn new(session_id: &str, offset: u64, count: u64, newest_line: Option<u64>) -> Self {
        Self {
            session_id: session_id.to_owned(),
            offset,
            count,
            from_line: newest_line.and_then(|newest| (newest + 1).checked_sub(offset + count)),
        }
    }
}

/// `terminal_read` output.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ReadOutput {
    /// The page's lines joined by newlines.
    pub text: String,
    /// Number of retained lines.
    #[serde(rename = "totalLines")]
    pub total_lines: u64,
    /// Inclusive newest-relative start of the page.
    #[serde(rename = "lineBegin")]
    pub line_begin: u64,
    /// Exclusive newest-relative end of the page.
    #[serde(rename = "lineEnd")]
    pub line_end: u64,
    /// Whether the page was cut: by the byte cap, or it reaches the oldest line after a drop.
    pub truncated: bool,
    /// When the page could not hold every requested line (the result's byte cap): the
    /// `terminal_read` arguments that page the older lines it left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub older: Option<ReadPointer>,
    /// Present and true while a full-screen program holds the terminal: the newest lines are
    /// its screen, and the shell's lines it covers page again once it exits (addition).
    #[serde(
        rename = "alternateScreen",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub alternate_screen: bool,
    /// On a page asked for by `fromLine`: the number `fromLine` gives its first line (counted
    /// from the session's first line); the text's footer counts in those numbers then
    /// (addition).
    #[serde(rename = "firstLine", skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u64>,
}

impl From<ReadResult> for ReadOutput {
    fn from(r: ReadResult) -> Self {
        Self {
            text: r.text,
            total_lines: r.total_lines,
            line_begin: r.line_begin,
            line_end: r.line_end,
            truncated: r.truncated,
            older: None,
            alternate_screen: r.alternate_screen,
            first_line: None,
        }
    }
}

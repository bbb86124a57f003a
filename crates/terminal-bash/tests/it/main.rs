//! Real-bash tests of the `shell` backend (one integration binary, house-style rule 19).
//!
//! Every test runs under a generous per-test timeout, uses a unique session id, and closes its
//! session asserting that no process of the session remains.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod after_full_screen;
mod answer_notices;
mod basics;
mod binary_output;
mod cancels;
mod cases;
mod cases_status;
mod confined;
mod counted_readers;
mod cursor_keys;
mod debugged_programs;
mod display_modes;
mod editor_unshown_insert;
mod editors;
mod environment;
mod full_screen_rows;
mod history_search;
mod input;
mod jvm_repls;
mod key_editors;
mod key_progress;
mod keys;
mod late_answers;
mod left_changed;
mod lifecycle;
mod limits;
mod literal_escapes;
mod long_lines;
mod multiplexer;
mod open_commands;
mod pacing;
mod pending_work;
mod prompt_answer_state;
mod prompt_widths;
mod python_background_output;
mod python_blocks;
mod python_busy_blocks;
mod python_one_line_blocks;
mod python_programs;
mod python_unended;
mod queries;
mod races;
mod redraws;
mod repl_prompts;
mod replaced_shell_signals;
mod running_lines;
mod sandbox;
mod sandbox_engine;
mod sandbox_filters;
mod sandbox_git;
mod screen_cases;
mod script_prompts;
mod settle_stress;
mod shell_config;
mod shell_ended_lines;
mod signal_prompts;
mod silence;
mod statement_reads;
mod stopped_jobs;
mod support;
mod suspend;
mod typed_ahead;
mod untyped_lines;
mod warm;

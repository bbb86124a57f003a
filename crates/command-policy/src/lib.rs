//! The operator's command policy: decide, by pattern on the text an agent sends to a terminal,
//! whether the send runs (`allow`), is refused (`deny`) or needs a human's approval (`ask`).
//!
//! [`CommandPolicy`] is a pre-execute policy of the tool registry for `terminal_send`: each
//! line of the `text` argument gets the verdict of the strictest rule kind that matches it,
//! `deny` before `allow` before `ask` (so `allow` carves exceptions out of `ask`, never out of
//! `deny`); a line no rule matches is allowed. The send gets the strictest verdict of its
//! lines. Patterns are regular expressions (the `regex` crate's syntax) searched anywhere in
//! the line; anchor them (`^git push`) to match from the start. An `ask` goes to the call's
//! approval service (in `dsh-mcp`: the human, through MCP elicitation).
//!
//! The lines checked are the text as sent and as the line editor will hold it: with its
//! editing keys applied as readline's emacs keys do (the cursor keys, Ctrl-A/E/B/F, Home,
//! End, Backspace, DEL, Delete, Ctrl-U/K/W, Meta-b/f/d, Ctrl-T, Meta-t/u/l/c, numeric
//! arguments: `m a3` + Ctrl-A + `r` is the line `rm a3`), keys that leave the line as it is
//! (Ctrl-G, Ctrl-L, meta keys bound to nothing) and bracketed-paste markers dropped, and
//! joined to the text earlier allowed sends to the same session typed without
//! Enter (`tou` with `submit: false`, then `ch x`, is the line `touch x`, and `m x` with
//! Ctrl-A, then `r`, is `rm x`), or with Enter after a backslash that continues the line (`r\`
//! then `m x` is the line `rm x`). Keys whose effect on the line is not followed (completion,
//! history, character search, yank, undo, macros, Meta-\, a count to a transpose, escape
//! sequences readline has no plain meaning for) leave the line unknown: a policy with `deny`
//! patterns refuses such a send, one with only `ask` patterns asks for it (fail closed). A
//! guard rail, not a boundary: what a script, an alias or a typed-ahead key runs is not seen.
//!
//! ```
//! use dsh_command_policy::{CommandPolicy, CommandPolicyConfig};
//! use dsh_tools::{Decision, PreExecute, ToolCallInfo};
//! use serde_json::json;
//!
//! let policy = CommandPolicy::new(&CommandPolicyConfig {
//!     deny: vec![r"^rm -rf /".into()],
//!     ask: vec![r"^git push".into()],
//!     allow: vec![],
//! })?;
//! let call = |text: &str| ToolCallInfo {
//!     name: "terminal_send".into(),
//!     args: json!({"sessionId": "pty-1", "text": text}),
//!     agent_id: None,
//! };
//! assert_eq!(policy.check(&call("ls")), Decision::Allow);
//! assert!(matches!(policy.check(&call("git push origin main")), Decision::Ask { .. }));
//! assert!(matches!(policy.check(&call("rm -rf /")), Decision::Deny { .. }));
//! # Ok::<(), String>(())
//! ```

#![forbid(unsafe_code)]

use std::sync::Arc;

use dsh_context::{BoxError, Plugin, Registrar, ServiceKey};
use dsh_tools::{Decision, PreExecute, ToolCallInfo, Tools};
use regex::Regex;

mod line_editor;
mod typed;

use line_editor::edit;
use typed::UnendedLines;

/// The tool whose input the policy checks.
pub const CHECKED_TOOL: &str = "terminal_send";
/// The argument of [`CHECKED_TOOL`] that holds the input.
pub const CHECKED_ARG: &str = "text";

/// The operator's patterns, per verdict.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandPolicyConfig {
    /// Lines matching one of these are allowed even when an `ask` pattern matches too.
    pub allow: Vec<String>,
    /// Lines matching one of these are refused.
    pub deny: Vec<String>,
    /// Lines matching one of these need approval.
    pub ask: Vec<String>,
}

impl CommandPolicyConfig {
    /// Whether no pattern is configured.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty() && self.ask.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Allow,
    Ask,
    Deny,
}

/// The compiled policy (see the crate docs for the rules), with the line each session's
/// allowed sends left unended.
#[derive(Debug)]
pub struct CommandPolicy {
    deny: Vec<Regex>,
    allow: Vec<Regex>,
    ask: Vec<Regex>,
    unended: UnendedLines,
}

fn compile(kind: &str, patterns: &[String]) -> Result<Vec<Regex>, String> {
    patterns
        .iter()
        .map(|p| {
            if p.is_empty() {
                // Matches every line: an unset variable in the operator's command line, most
                // likely, not a policy.
                return Err(format!(
                    "command policy: the {kind} pattern \"\" is empty, which matches every line; give a pattern for the commands to {kind} (`.` for every line)"
                ));
            }
            Regex::new(p).map_err(|e| {
                format!("command policy: the {kind} pattern {p:?} is not a valid regular expression: {e}")
            })
        })
        .collect()
}

impl CommandPolicy {
    /// Compiles `config`.
    ///
    /// # Errors
    /// A message naming the first pattern that is not a valid regular expression.
    pub fn new(config: &CommandPolicyConfig) -> Result<Self, String> {
        Ok(Self {
            deny: compile("deny", &config.deny)?,
            allow: compile("allow", &config.allow)?,
            ask: compile("ask", &config.ask)?,
            unended: UnendedLines::default(),
        })
    }

    /// The verdict for one line, with the pattern that decided it.
    fn line_verdict<'a>(&'a self, line: &str) -> (Kind, Option<&'a Regex>) {
        let find = |rules: &'a [Regex]| rules.iter().find(|r| r.is_match(line));
        if let Some(r) = find(&self.deny) {
            return (Kind::Deny, Some(r));
        }
        if let Some(r) = find(&self.allow) {
            return (Kind::Allow, Some(r));
        }
        if let Some(r) = find(&self.ask) {
            return (Kind::Ask, Some(r));
        }
        (Kind::Allow, None)
    }
}

impl PreExecute for CommandPolicy {
    fn check(&self, call: &ToolCallInfo) -> Decision {
        if call.name != CHECKED_TOOL {
            self.forget_ended_line(call);
            return Decision::Allow;
        }
        let Some(text) = call.args.get(CHECKED_ARG).and_then(|t| t.as_str()) else {
            // Validation reports a missing or mistyped text; nothing is sent then.
            return Decision::Allow;
        };
        let submit = call
            .args
            .get("submit")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(true);
        let key = session_key(call);
        let before = self.unended.get(&key);
        // Keys an earlier send left waiting for the next (a numeric argument, Ctrl-X, Ctrl-V)
        // act on this text's first key, unless the session ended them first (it types
        // `abort` ahead of a command sent with Enter): both lines are checked.
        let mut edits = vec![edit(&before.line, before.cursor_back, text)];
        if !before.pending.is_empty() {
            let text = format!("{}{text}", before.pending);
            edits.push(edit(&before.line, before.cursor_back, &text));
        }
        // The shell joins a line that ends in a backslash to the next (`r\` + `m x`).
        let joined: Vec<String> = edits
            .iter()
            .map(|e| e.typed.replace("\\\n", "").replace("\\\r", ""))
            .collect();
        let worst = text
            .split(['\n', '\r'])
            .chain(edits.iter().flat_map(|e| e.typed.split(['\n', '\r'])))
            .chain(joined.iter().flat_map(|j| j.split(['\n', '\r'])))
            .map(|line| (line, self.line_verdict(line)))
            .max_by_key(|(_, (kind, _))| *kind);
        // A key whose effect on the line is not followed: the line is not known, so a policy
        // that refuses or asks about lines does so for this text (fail closed).
        let unknown = edits
            .iter()
            .find_map(|e| e.unknown.as_deref())
            .filter(|_| !self.deny.is_empty() || !self.ask.is_empty());
        // Unknown only with the keys an earlier send left waiting: that send's doing.
        let waiting = (edits[0].unknown.is_none() && !before.pending.is_empty())
            .then_some(before.pending.as_str());
        match (worst, unknown) {
            (Some((line, (Kind::Deny, Some(rule)))), _) => Decision::Deny {
                reason: format!(
                    "the operator's command policy refuses {line:?} (deny pattern {:?}); nothing was sent. Do not retry it: do something else, or ask the user",
                    rule.as_str()
                ),
            },
            (_, Some(keys)) if !self.deny.is_empty() => Decision::Deny {
                reason: match waiting {
                    Some(waiting) => format!(
                        "the operator's command policy cannot tell which line the key {} leaves for the shell to run ({UNKNOWN_KEYS}): an earlier send without Enter left {} waiting for the next key, and this text's first key goes with it; nothing was sent. End the waiting key first: send \"\\u0007\" (Ctrl-G) with submit false (the line stays as it is), or terminal_signal SIGINT (the line is discarded); then send this text again",
                        shown(keys),
                        shown(waiting)
                    ),
                    None => format!(
                        "the operator's command policy cannot tell which line the key {} leaves for the shell to run ({UNKNOWN_KEYS}), so it refuses this text; nothing was sent. Type the command as plain text: characters, Enter, Backspace, Delete, the arrow keys, Home, End and Ctrl-A/E/U/K/W are followed. To a full-screen program (vim), put Ctrl-G (\\u0007) between ESC and such a key (\\u001b\\u0007gg)",
                        shown(keys)
                    ),
                },
            },
            (_, Some(keys)) => Decision::Ask {
                reason: format!(
                    "the operator's command policy asks for approval of {text:?}: it cannot tell which line its key {} leaves for the shell to run ({UNKNOWN_KEYS})",
                    shown(keys)
                ),
            },
            (Some((line, (Kind::Ask, Some(rule)))), None) => Decision::Ask {
                reason: format!(
                    "the operator's command policy asks for approval of {line:?} (ask pattern {:?})",
                    rule.as_str()
                ),
            },
            _ => {
                // What the line editor holds now: with the waiting keys applied when the
                // session did not end them (a send without Enter).
                let edited = &edits[if submit { 0 } else { edits.len() - 1 }];
                // A last line ending in a backslash goes on in the next send, whose text the
                // shell joins to it (`r\` with Enter, then `m x`, runs `rm x`).
                match continued_line(&edited.typed).filter(|_| submit) {
                    Some(start) => self.unended.record(key, start, 0, "", false),
                    None => self.unended.record(
                        key,
                        &edited.typed,
                        edited.cursor_back,
                        &edited.pending,
                        submit,
                    ),
                }
                Decision::Allow
            }
        }
    }
}

impl CommandPolicy {
    /// Forgets the line `call`'s session held when the call ends it: SIGINT at bash's prompt
    /// discards the line and any key waiting for the next (bash reads a new line), and a
    /// closed session holds nothing.
    fn forget_ended_line(&self, call: &ToolCallInfo) {
        let ends = match call.name.as_str() {
            "terminal_signal" => {
                call.args.get("signal").and_then(serde_json::Value::as_str) == Some("SIGINT")
            }
            "terminal_close" => true,
            _ => false,
        };
        if ends {
            self.unended.forget(&session_key(call));
        }
    }
}

/// The agent's id (empty when none) and the session id `call` names.
fn session_key(call: &ToolCallInfo) -> (String, String) {
    let session = call
        .args
        .get("sessionId")
        .and_then(|s| s.as_str())
        .unwrap_or_default();
    (
        call.agent_id.clone().unwrap_or_default(),
        session.to_owned(),
    )
}

/// What the keys the policy does not follow do, for its refusals.
const UNKNOWN_KEYS: &str = "completion, history, search, yank, undo, macro and similar keys put text there the policy does not see";

/// `keys` as a JSON string, the way the agent writes them (`"\u001b/"`).
fn shown(keys: &str) -> String {
    serde_json::Value::from(keys).to_string()
}

/// `typed` without the backslash ending its last line, when that backslash is not itself
/// escaped: the shell goes on reading the line from the next one.
fn continued_line(typed: &str) -> Option<&str> {
    let start = typed.strip_suffix('\\')?;
    let escapes = start.len() - start.trim_end_matches('\\').len();
    (escapes % 2 == 0).then_some(start)
}

/// Plugin `command-policy`: requires `Tools`, compiles its config at apply time (a bad pattern
/// is a config error) and adds the [`CommandPolicy`] as a pre-execute policy. Adds nothing
/// when no pattern is configured.
#[derive(Clone, Debug, Default)]
pub struct CommandPolicyPlugin {
    /// The patterns.
    pub config: CommandPolicyConfig,
}

impl Plugin for CommandPolicyPlugin {
    fn name(&self) -> &str {
        "command-policy"
    }

    fn requires(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<Tools>()]
    }

    fn validate_config(&self) -> Result<(), String> {
        CommandPolicy::new(&self.config).map(|_| ())
    }

    fn build(&self, registrar: &mut Registrar<'_>) -> Result<(), BoxError> {
        if self.config.is_empty() {
            return Ok(());
        }
        let tools = registrar.require::<Tools>()?;
        tools.add_pre_execute(Arc::new(CommandPolicy::new(&self.config)?));
        Ok(())
    }
}

/// The package name used with the invariants registry.
pub const PACKAGE: &str = "dsh-command-policy";

/// This crate's invariant companion. No runtime invariant: the patterns are immutable once
/// compiled, and the unended lines kept are bounded by construction (per line and in
/// sessions).
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::none(
        PACKAGE,
        "no runtime invariant: the compiled patterns are immutable; the unended lines kept are bounded by construction",
    )
}

#[cfg(test)]
mod tests;

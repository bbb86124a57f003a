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
//! End, Backspace, DEL, Delete, Ctrl-U/K/W, Meta-b/f/d, Ctrl-T, Meta-t/u/l/c: `m a3` +
//! Ctrl-A + `r` is the line `rm a3`), other escape sequences and bracketed-paste markers
//! dropped, and joined to the text earlier allowed sends to the same session typed without
//! Enter (`tou` with `submit: false`, then `ch x`, is the line `touch x`), or with Enter after
//! a backslash that continues the line (`r\` then `m x` is the line `rm x`). Keys that bring
//! back other text (history, yank) are not followed: a guard rail, not a boundary.
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
        let session = call
            .args
            .get("sessionId")
            .and_then(|s| s.as_str())
            .unwrap_or_default();
        let key = (
            call.agent_id.clone().unwrap_or_default(),
            session.to_owned(),
        );
        let typed = edit(&self.unended.get(&key), text);
        // The shell joins a line that ends in a backslash to the next (`r\` + `m x`).
        let joined = typed.replace("\\\n", "").replace("\\\r", "");
        let worst = text
            .split(['\n', '\r'])
            .chain(typed.split(['\n', '\r']))
            .chain(joined.split(['\n', '\r']))
            .map(|line| (line, self.line_verdict(line)))
            .max_by_key(|(_, (kind, _))| *kind);
        match worst {
            Some((line, (Kind::Deny, Some(rule)))) => Decision::Deny {
                reason: format!(
                    "the operator's command policy refuses {line:?} (deny pattern {:?}); nothing was sent. Do not retry it: do something else, or ask the user",
                    rule.as_str()
                ),
            },
            Some((line, (Kind::Ask, Some(rule)))) => Decision::Ask {
                reason: format!(
                    "the operator's command policy asks for approval of {line:?} (ask pattern {:?})",
                    rule.as_str()
                ),
            },
            _ => {
                // A last line ending in a backslash goes on in the next send, whose text the
                // shell joins to it (`r\` with Enter, then `m x`, runs `rm x`).
                match continued_line(&typed).filter(|_| submit) {
                    Some(start) => self.unended.record(key, start, false),
                    None => self.unended.record(key, &typed, submit),
                }
                Decision::Allow
            }
        }
    }
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
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn policy() -> CommandPolicy {
        CommandPolicy::new(&CommandPolicyConfig {
            allow: vec![r"^git push --dry-run".into()],
            deny: vec![r"\bmkfs\b".into()],
            ask: vec![r"^git push".into(), r"^sudo ".into()],
        })
        .unwrap()
    }

    fn send(text: &str) -> ToolCallInfo {
        ToolCallInfo {
            name: CHECKED_TOOL.into(),
            args: json!({"sessionId": "pty-1", "text": text}),
            agent_id: Some("a".into()),
        }
    }

    #[test]
    fn verdicts_per_line_strictest_wins() {
        let p = policy();
        assert_eq!(p.check(&send("ls -la")), Decision::Allow);
        assert_eq!(p.check(&send("")), Decision::Allow);
        assert_eq!(p.check(&send("git push --dry-run")), Decision::Allow);
        assert_eq!(
            p.check(&send("echo hi\ngit push origin main")),
            Decision::Ask {
                reason: "the operator's command policy asks for approval of \"git push origin main\" (ask pattern \"^git push\")".into()
            }
        );
        assert_eq!(
            p.check(&send("sudo ls\nmkfsutil /dev/sda")),
            Decision::Ask {
                reason: "the operator's command policy asks for approval of \"sudo ls\" (ask pattern \"^sudo \")".into()
            }
        );
        assert_eq!(
            p.check(&send("sudo ls\nmkfs /dev/sda")),
            Decision::Deny {
                reason: "the operator's command policy refuses \"mkfs /dev/sda\" (deny pattern \"\\\\bmkfs\\\\b\"); nothing was sent. Do not retry it: do something else, or ask the user".into()
            }
        );
        // Other tools are not checked.
        let mut other = send("mkfs /dev/sda");
        other.name = "terminal_open".into();
        assert_eq!(p.check(&other), Decision::Allow);
    }

    fn typed(session: &str, text: &str, submit: bool) -> ToolCallInfo {
        ToolCallInfo {
            name: CHECKED_TOOL.into(),
            args: json!({"sessionId": session, "text": text, "submit": submit}),
            agent_id: Some("a".into()),
        }
    }

    fn denied(d: &Decision) -> bool {
        matches!(d, Decision::Deny { .. })
    }

    /// Keys cannot spell a refused line past the patterns: editing keys, escape sequences and
    /// paste markers are applied as the line editor applies them, and a line typed over two
    /// sends (the first without Enter) is checked whole, per session.
    #[test]
    fn the_line_the_editor_holds_is_checked() {
        let p = policy();
        assert!(denied(&p.check(&send("mkx\u{7f}fs /dev/sda"))));
        assert!(denied(
            &p.check(&send("\u{1b}[200~mkfs /dev/sda\u{1b}[201~"))
        ));
        assert!(denied(&p.check(&send("mk\u{8}\u{8}mkfs x"))));
        assert_eq!(p.check(&typed("pty-1", "mk", false)), Decision::Allow);
        // Another session's line is its own.
        assert_eq!(
            p.check(&typed("pty-2", "fs /dev/sda", true)),
            Decision::Allow
        );
        assert!(denied(&p.check(&typed("pty-1", "fs /dev/sda", true))));
        // A refused send typed nothing: the unended `mk` is still there.
        assert!(denied(&p.check(&typed("pty-1", "fs", false))));
        assert_eq!(p.check(&typed("pty-1", "dir x", true)), Decision::Allow);
        // Enter ended that line: nothing carries over.
        assert_eq!(
            p.check(&typed("pty-1", "fs /dev/sda", true)),
            Decision::Allow
        );
        // A backslash at a line's end joins it to the next, as the shell does.
        assert!(denied(&p.check(&send("mk\\\nfs x"))));
        assert_eq!(p.check(&typed("pty-3", "mk\\", false)), Decision::Allow);
        assert!(denied(&p.check(&typed("pty-3", "\nfs x", true))));
        // Also when the line with the backslash went with its Enter (the shell's `> `
        // continuation prompt then reads the rest); an escaped backslash ends the line.
        assert_eq!(p.check(&typed("pty-4", "mk\\", true)), Decision::Allow);
        assert!(denied(&p.check(&typed("pty-4", "fs x", true))));
        assert_eq!(
            p.check(&typed("pty-4", "echo mk\\\\", true)),
            Decision::Allow
        );
        assert_eq!(p.check(&typed("pty-4", "fs x", true)), Decision::Allow);
        // Cursor keys and kills are followed (a breaker's ways past a pattern).
        for text in [
            "kfs x\u{1}m",
            "x\u{17}mkfs y",
            "fs z\u{1b}[Hmk",
            "mfks\u{1b}[D\u{1b}[D\u{14}",
        ] {
            assert!(denied(&p.check(&send(text))), "{text:?}");
        }
        // Ctrl-O runs the line before it, as Enter does: the next starts a line (`^sudo `).
        assert!(matches!(
            p.check(&send("true\u{f}sudo reboot")),
            Decision::Ask { .. }
        ));
        // Ctrl-U discards the line typed so far.
        assert_eq!(p.check(&typed("pty-1", "mk", false)), Decision::Allow);
        assert_eq!(
            p.check(&typed("pty-1", "\u{15}ls fs", true)),
            Decision::Allow
        );
    }

    #[test]
    fn bad_patterns_are_config_errors() {
        let e = CommandPolicy::new(&CommandPolicyConfig {
            deny: vec!["(".into()],
            ..CommandPolicyConfig::default()
        })
        .unwrap_err();
        assert!(
            e.starts_with(
                "command policy: the deny pattern \"(\" is not a valid regular expression"
            ),
            "{e}"
        );
    }
}

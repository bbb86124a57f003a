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

    /// Keys whose effect on the line is not followed (readline completion, character search,
    /// delete-horizontal-space, history, yank) leave the line unknown: refused under `deny`
    /// patterns, asked about under `ask` patterns alone, left alone without either. Plain
    /// text, TABs in it and the keys that are followed pass.
    #[test]
    fn keys_not_followed_fail_closed() {
        let deny = CommandPolicy::new(&CommandPolicyConfig {
            deny: vec!["forbidden".into(), "^shutdown".into()],
            ..CommandPolicyConfig::default()
        })
        .unwrap();
        for text in [
            "cat forbidd\u{1b}/",
            "cat forbidd\u{1b}\t",
            "shutdow\u{1b}! --help | head -1",
            "cat forbidd\u{18}/",
            "echo forbdden\u{1}\u{1d}di",
            "echo forbdden\u{1b}\u{1d}d\u{2}i",
            "echo forbid den\u{2}\u{2}\u{2}\u{1b}\\",
            "\u{1b}[A",
            "x\u{19}",
        ] {
            assert!(denied(&deny.check(&send(text))), "{text:?}");
        }
        let Decision::Deny { reason } = deny.check(&send("cat forbidd\u{1b}/")) else {
            unreachable!()
        };
        assert!(
            reason.starts_with("the operator's command policy cannot tell which line the key \"\\u001b/\" leaves for the shell to run"),
            "{reason}"
        );
        for text in [
            "ls -la",
            "printf 'a\tb' | cut -f2",
            "echo forbid\u{7f}x",
            "ihello\u{1b}:wq",
            "ihello\u{1b}\u{7}gg",
            "cat notes\u{1b}[D\u{1b}[D\u{7f}",
        ] {
            assert_eq!(deny.check(&send(text)), Decision::Allow, "{text:?}");
        }
        let ask = CommandPolicy::new(&CommandPolicyConfig {
            ask: vec!["forbidden".into()],
            ..CommandPolicyConfig::default()
        })
        .unwrap();
        assert!(matches!(
            ask.check(&send("echo forbid den\u{2}\u{2}\u{2}\u{1b}\\")),
            Decision::Ask { .. }
        ));
        assert_eq!(ask.check(&send("echo fine")), Decision::Allow);
        let allow_only = CommandPolicy::new(&CommandPolicyConfig {
            allow: vec!["^ls".into()],
            ..CommandPolicyConfig::default()
        })
        .unwrap();
        assert_eq!(allow_only.check(&send("cat x\u{1b}/")), Decision::Allow);
    }

    /// A line carried over from a send without Enter goes on where its cursor was, and keys it
    /// left waiting (a numeric argument, Ctrl-X) act on the next send's first key.
    #[test]
    fn the_cursor_and_waiting_keys_carry_over() {
        let p = policy();
        assert_eq!(
            p.check(&typed("pty-5", "fs /dev/x\u{1}", false)),
            Decision::Allow
        );
        assert!(denied(&p.check(&typed("pty-5", "mk", true))));
        assert_eq!(
            p.check(&typed("pty-6", "xxmkfs y\u{1}\u{1b}2", false)),
            Decision::Allow
        );
        assert!(denied(&p.check(&typed("pty-6", "\u{4}", false))));
        // Ctrl-X waits for its key: with `*` it expands a glob, which is not followed.
        assert_eq!(
            p.check(&typed("pty-7", "ls m*\u{18}", false)),
            Decision::Allow
        );
        assert!(denied(&p.check(&typed("pty-7", "*", false))));
        // Bound to nothing, Ctrl-X and its key change nothing (nano's Ctrl-X, then `y`).
        assert_eq!(p.check(&typed("pty-8", "\u{18}", false)), Decision::Allow);
        assert_eq!(p.check(&typed("pty-8", "y", false)), Decision::Allow);
    }

    /// A Ctrl-X an earlier send left waiting: a text whose first key goes with it is refused
    /// saying so and how to end it. Ctrl-G or Ctrl-C ends it, and so do SIGINT by the signal
    /// tool and closing the session, which also forget the line carried over.
    #[test]
    fn a_waiting_key_is_named_and_can_be_ended() {
        let deny = CommandPolicy::new(&CommandPolicyConfig {
            deny: vec!["FORBID".into(), r"\bmkfs\b".into()],
            ..CommandPolicyConfig::default()
        })
        .unwrap();
        let call = |name: &str, args: serde_json::Value| ToolCallInfo {
            name: name.into(),
            args,
            agent_id: Some("a".into()),
        };
        assert_eq!(
            deny.check(&typed("pty-1", "yy\u{18}", false)),
            Decision::Allow
        );
        for (text, submit) in [("echo hi", true), ("\u{5}\u{15}", false)] {
            let Decision::Deny { reason } = deny.check(&typed("pty-1", text, submit)) else {
                panic!("{text:?} allowed")
            };
            assert!(
                reason.contains(
                    "an earlier send without Enter left \"\\u0018\" waiting for the next key"
                ) && reason.contains("send \"\\u0007\" (Ctrl-G) with submit false"),
                "{reason}"
            );
        }
        assert_eq!(deny.check(&typed("pty-1", "\u{7}", false)), Decision::Allow);
        assert_eq!(
            deny.check(&typed("pty-1", "echo hi", true)),
            Decision::Allow
        );
        // Ctrl-C as a key (the terminal's SIGINT) ends it too.
        assert_eq!(
            deny.check(&typed("pty-2", "yy\u{18}", false)),
            Decision::Allow
        );
        assert_eq!(deny.check(&typed("pty-2", "\u{3}", false)), Decision::Allow);
        assert_eq!(
            deny.check(&typed("pty-2", "echo hi", true)),
            Decision::Allow
        );
        // SIGINT by the signal tool; another signal leaves it waiting.
        let signal = |sig: &str| {
            call(
                "terminal_signal",
                json!({"sessionId": "pty-3", "signal": sig}),
            )
        };
        assert_eq!(
            deny.check(&typed("pty-3", "yy\u{18}", false)),
            Decision::Allow
        );
        assert_eq!(deny.check(&signal("SIGTSTP")), Decision::Allow);
        assert!(denied(&deny.check(&typed("pty-3", "echo hi", true))));
        assert_eq!(deny.check(&signal("SIGINT")), Decision::Allow);
        assert_eq!(
            deny.check(&typed("pty-3", "echo hi", true)),
            Decision::Allow
        );
        // The line carried over goes with it (`mk`, SIGINT, `fs x` runs `fs x`), and with a
        // closed session.
        assert_eq!(deny.check(&typed("pty-3", "mk", false)), Decision::Allow);
        assert_eq!(deny.check(&signal("SIGINT")), Decision::Allow);
        assert_eq!(deny.check(&typed("pty-3", "fs x", true)), Decision::Allow);
        assert_eq!(
            deny.check(&typed("pty-4", "mk\u{18}", false)),
            Decision::Allow
        );
        let close = call("terminal_close", json!({"sessionId": "pty-4"}));
        assert_eq!(deny.check(&close), Decision::Allow);
        assert_eq!(deny.check(&typed("pty-4", "fs x", true)), Decision::Allow);
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
        // An empty pattern would match every line (an unset variable in a command line).
        for kind in ["deny", "ask", "allow"] {
            let mut config = CommandPolicyConfig::default();
            match kind {
                "deny" => config.deny.push(String::new()),
                "ask" => config.ask.push(String::new()),
                _ => config.allow.push(String::new()),
            }
            let e = CommandPolicy::new(&config).unwrap_err();
            assert!(
                e.starts_with(&format!("command policy: the {kind} pattern \"\" is empty")),
                "{e}"
            );
        }
    }
}

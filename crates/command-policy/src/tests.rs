//! The policy's verdicts on lines, keys and kept state across sends.

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
        e.starts_with("command policy: the deny pattern \"(\" is not a valid regular expression"),
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

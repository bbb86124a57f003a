//! Field cases C30 and C33 against real bash: the user's shell configuration (PROMPT_COMMAND,
//! PS0/PS1/PS2, DEBUG traps, `set -x`, `set -v`) and programs that leave the terminal modes changed never
//! cost a send its prompt mark, its exit status or a clean result.

use dsh_terminal_core::{InputMode, SendResult, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

/// The send settled on the shell's own nonce'd mark (the only source of an exit status) with
/// `code`, and none of our prompt machinery shows in the result.
#[track_caller]
fn on_mark(r: &SendResult, code: i32) {
    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
    assert_eq!(r.exit_code, Some(code), "{r:?}");
    assert_clean(r);
}

/// None of our machinery (hook names, rc variables, trace lines of it) shows, in the text or
/// in a notice (one about a line erased under `set -v` quoted the hook's command line).
#[track_caller]
fn assert_clean(r: &SendResult) {
    assert!(!r.viewport.contains("__dsh"), "{:?}", r.viewport);
    assert!(!r.viewport.contains("133;"), "{:?}", r.viewport);
    assert!(
        r.notices.iter().all(|n| !n.contains("__dsh")),
        "{:?}",
        r.notices
    );
}

/// Whether `r` says its prompt came without our marks (so no exit code).
fn says_prompt_unmarked(r: &SendResult) -> bool {
    r.notices
        .iter()
        .any(|n| n.starts_with("[shell: the shell reads input with no prompt mark"))
}

/// The lines of `r` that start with `prefix`.
fn lines_starting<'a>(r: &'a SendResult, prefix: &str) -> Vec<&'a str> {
    r.viewport
        .lines()
        .filter(|l| l.starts_with(prefix))
        .collect()
}

/// Field case C33, PROMPT_COMMAND: set, exported, prepended (a hook that replaces `$?` runs
/// first), appended, as an array, and unset: every later send settles on the mark with the
/// right status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_prompt_command_changes_keep_marks_and_exit_status() {
    within(async {
        let sh = Shell::open(config()).await;
        on_mark(&sh.send("PROMPT_COMMAND='history -a'").await, 0);
        on_mark(&sh.send("false").await, 1);
        on_mark(&sh.send("export PROMPT_COMMAND='history -a'").await, 0);
        on_mark(&sh.send("(exit 3)").await, 3);
        // Prepended: the hook's own `false` must not replace the command's status.
        on_mark(
            &sh.send("PROMPT_COMMAND=\"false; $PROMPT_COMMAND\"").await,
            0,
        );
        on_mark(&sh.send("true").await, 0);
        on_mark(&sh.send("(exit 4)").await, 4);
        // Appended.
        on_mark(
            &sh.send("PROMPT_COMMAND=\"${PROMPT_COMMAND:+$PROMPT_COMMAND; }(exit 9)\"")
                .await,
            0,
        );
        on_mark(&sh.send("(exit 5)").await, 5);
        // The bash 5.1 array form, replacing every element (ours too), with a hook that sets
        // PS1: the prompt right after has no mark (it settles on the kernel's evidence), the
        // next ones do.
        let r = sh.send("PROMPT_COMMAND=(false 'PS1=\"arr> \"')").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_clean(&r);
        assert!(says_prompt_unmarked(&r), "{r:?}");
        let r = sh.send("(exit 6)").await;
        on_mark(&r, 6);
        assert!(!says_prompt_unmarked(&r), "{r:?}");
        assert!(r.viewport.ends_with("arr> "), "{:?}", r.viewport);
        // Unset.
        on_mark(&sh.send("unset PROMPT_COMMAND").await, 0);
        on_mark(&sh.send("false").await, 1);
        on_mark(&sh.send("echo still").await, 0);
        sh.close().await;
    })
    .await;
}

/// Field case C33, PROMPT_COMMAND replaced by one that cannot be assigned (readonly, an
/// integer, either after an `unset`): the shell neither crashes nor loops on the prompt, and
/// every later send settles on the mark with the right status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_a_readonly_or_integer_prompt_command_keeps_the_shell() {
    within(async {
        for replace in [
            "unset PROMPT_COMMAND; PROMPT_COMMAND='history -a'; readonly PROMPT_COMMAND",
            "unset PROMPT_COMMAND; declare -r PROMPT_COMMAND=''",
            "unset PROMPT_COMMAND; declare -i PROMPT_COMMAND=1",
            // With no value: the prompt strings took it for one they could assign to, and
            // the shell repeated the error without end (megabytes a send, every later
            // command lost).
            "unset PROMPT_COMMAND; readonly PROMPT_COMMAND",
            "unset PROMPT_COMMAND; declare -i PROMPT_COMMAND",
            "unset PROMPT_COMMAND; readonly PROMPT_COMMAND; PS1='w$ '",
        ] {
            let sh = Shell::open(config()).await;
            let r = sh.send(replace).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{replace}: {r:?}");
            assert!(r.output_bytes < 4096, "{replace}: {r:?}");
            on_mark(&sh.send("false").await, 1);
            let r = sh.send("echo alive").await;
            on_mark(&r, 0);
            assert!(r.viewport.contains("\nalive\n"), "{replace}: {r:?}");
            sh.close().await;
        }
    })
    .await;
}

/// Field case C33, PROMPT_COMMAND and PS1 both replaced in one command: the prompt right after
/// has no mark (it settles on the kernel's evidence), and the marks are back for the next;
/// not after PS1 was made read-only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_marks_come_back_after_prompt_command_and_ps1_are_both_replaced() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("unset PROMPT_COMMAND; PS1='raw$ '").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_clean(&r);
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(says_prompt_unmarked(&r), "{r:?}");
        insta::assert_snapshot!("prompt_unmarked", r.notices.join("\n"));
        let r = sh.send("(exit 7)").await;
        on_mark(&r, 7);
        assert!(!says_prompt_unmarked(&r), "{r:?}");
        assert!(r.viewport.ends_with("raw$ "), "{:?}", r.viewport);
        // A prompt made read-only cannot take the marks again: the notice says so at every
        // send (it said the marks were back for the next command, which never came).
        let r = sh.send("readonly PS1='ro$ '").await;
        assert!(says_prompt_unmarked(&r), "{r:?}");
        let r = sh.send("false").await;
        assert!(says_prompt_unmarked(&r), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.contains("unless PS1 was made read-only")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Field case C33, PS0 and PROMPT_COMMAND replaced together (PS1 kept): the next command runs
/// before the hook can mark its start again. Its status is still its own, also one equal to
/// the previous command's: the prompts' command numbers (bash's `\#`, which an empty line
/// leaves as it was) tell that a command ran. A line bash cannot parse (no start mark, no
/// number either) reports its 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_a_command_whose_start_went_unmarked_still_reports_its_exit_code() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("print('x', x)").await;
        assert_eq!(r.exit_code, Some(2), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        let r = sh.send("false\nprint(1)").await;
        assert_eq!(r.exit_code, Some(2), "{r:?}");
        let r = sh
            .send("PS0='[ps0]\\n'; PROMPT_COMMAND=()\n(exit 7)\n(exit 8)")
            .await;
        assert_eq!(r.exit_code, Some(8), "{r:?}");
        assert_eq!(r.earlier_exits.failed, 1, "{r:?}");
        let r = sh.send("PS0='[ps0]\\n'; PROMPT_COMMAND=()").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("echo c; (exit 0)").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "c"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        let r = sh.send("echo d; (exit 4)").await;
        on_mark(&r, 4);
        assert!(r.notices.is_empty(), "{r:?}");
        // An empty line runs no command: no status, and nothing to say about it.
        let r = sh.send("").await;
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A script sourced into the shell that exports the prompt (a Python venv's `activate` does
/// `export PS1`) hands no child process the nonce: the prompt strings only name the variable
/// holding it (a child could otherwise print a look-alike mark and fake an exit status), and
/// from the next prompt on they are not exported at all. The prompt text is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exported_prompt_strings_do_not_reach_child_processes() {
    within(async {
        let sh = Shell::open(config()).await;
        // Exported and read by a child on the same line.
        let r = sh
            .send("PS1=\"(venv) ${PS1-}\"; export PS1 PS0 PS2; printenv PS1 PS0 PS2 | grep -Ec '[0-9a-f]{32}'")
            .await;
        assert!(r.viewport.lines().any(|l| l == "0"), "{r:?}");
        let r = sh
            .send("printenv PS1 PS0 PS2 | grep -c dsh= || echo none-exported")
            .await;
        assert!(r.viewport.lines().any(|l| l == "none-exported"), "{r:?}");
        assert!(r.viewport.ends_with("(venv) dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Field case C33, everything that prints or restores the marks replaced in one command
/// (`PS0`, `PS1` and `PROMPT_COMMAND`, in several spellings): the prompt right after has no
/// mark, and the next command settles on its mark with its exit status (the host types the
/// repair keys at the line editor), printing nothing but its own output and the prompt; the
/// user's prompt text is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_marks_come_back_after_ps0_ps1_and_prompt_command_are_all_replaced() {
    within(async {
        let sh = Shell::open(config()).await;
        for (round, replace) in [
            "unset PROMPT_COMMAND PS0; PS1='m> '",
            "PS0=; PROMPT_COMMAND=; PS1='n> '",
            "PS0='' PS1='o> ' && unset PROMPT_COMMAND",
            "set -o vi; unset PS0 PROMPT_COMMAND; PS1='p> '",
        ]
        .into_iter()
        .enumerate()
        {
            // A user PS0 first, so ours is replaced, not re-added.
            on_mark(&sh.send("PS0=''").await, 0);
            let r = sh.send(replace).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{replace}: {r:?}");
            assert_clean(&r);
            // Some spellings leave a mark to the prompt right after (the exit code is known).
            assert_eq!(
                says_prompt_unmarked(&r),
                r.exit_code.is_none(),
                "{replace}: {r:?}"
            );
            let code = 3 + i32::try_from(round).unwrap();
            let r = sh.send(&format!("(exit {code})")).await;
            on_mark(&r, code);
            assert!(!says_prompt_unmarked(&r), "{replace}: {r:?}");
            let prompt = &replace[replace.rfind("PS1='").unwrap() + 5..][..3];
            // Exactly the command line and the prompt: the repair left bash nothing freed to
            // expand as the line's PS0 (it printed heap bytes there before the prompt).
            assert_eq!(
                r.viewport.trim_end(),
                format!("(exit {code})\n{}", prompt.trim_end()),
                "{replace}"
            );
            on_mark(&sh.send("false").await, 1);
        }
        sh.close().await;
    })
    .await;
}

/// Field case C33, the marks' repair in a fresh shell whose PS0 was set empty by the same
/// command: bash took PS0's value for the next line when it printed the prompt, so a repair
/// that assigned PS0 while that line was read had bash expand freed memory at Enter (heap
/// bytes printed before the command's output, or run as prompt code).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_the_marks_repair_leaves_the_lines_ps0_alone() {
    within(async {
        for replace in [
            "unset PROMPT_COMMAND; PS1='> '; PS0=''",
            "PROMPT_COMMAND=(); PS1='$ '; PS0=''",
        ] {
            let sh = Shell::open(config()).await;
            let r = sh.send(replace).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{replace}: {r:?}");
            let r = sh.send("echo x").await;
            on_mark(&r, 0);
            let prompt = &replace[replace.rfind("PS1='").unwrap() + 5..][..1];
            assert_eq!(
                r.viewport.trim_end(),
                format!("echo x\nx\n{prompt}"),
                "{replace}"
            );
            on_mark(&sh.send("false").await, 1);
            sh.close().await;
        }
    })
    .await;
}

/// Field case C33, PS1/PS2/PS0: the user's prompt text is kept (wrapped in our marks), also
/// when it holds a command substitution that changes `$?`; a user PS0 is kept too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_user_prompts_are_kept_and_still_settle() {
    within(async {
        let sh = Shell::open(config()).await;
        // `\$` is `#` for root, `$` otherwise.
        let user_prompt = |r: &SendResult| {
            let last = r.viewport.lines().last().unwrap_or_default().to_owned();
            assert!(
                last.contains('@') && (last.ends_with("$ ") || last.ends_with("# ")),
                "{:?}",
                r.viewport
            );
        };
        let r = sh.send(r"PS1='\u@\h:\w\$ '").await;
        on_mark(&r, 0);
        user_prompt(&r);
        let r = sh.send("true").await;
        on_mark(&r, 0);
        user_prompt(&r);
        // A command substitution in PS1 runs after our status is taken.
        let r = sh.send("PS1='$(echo sub; false) > '").await;
        on_mark(&r, 0);
        let r = sh.send("(exit 8)").await;
        on_mark(&r, 8);
        assert!(r.viewport.ends_with("sub > "), "{:?}", r.viewport);
        // PS2 and PS0.
        let r = sh.send("PS2='more: '; PS0='running\\n'").await;
        on_mark(&r, 0);
        let r = sh.send("echo one\\\ntwo").await;
        on_mark(&r, 0);
        assert!(r.viewport.contains("more: two"), "{:?}", r.viewport);
        assert!(r.viewport.contains("\nrunning\n"), "{:?}", r.viewport);
        assert!(r.viewport.contains("\nonetwo\n"), "{:?}", r.viewport);
        // Prompt variables turned off: turned back on before the next prompt.
        on_mark(&sh.send("shopt -u promptvars").await, 0);
        on_mark(&sh.send("false").await, 1);
        sh.close().await;
    })
    .await;
}

/// Field case C33, `set -x`: the trace shows the user's commands only, never our hook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_set_x_traces_only_the_users_commands() {
    within(async {
        let sh = Shell::open(config()).await;
        on_mark(&sh.send("set -x").await, 0);
        let r = sh.send("echo hi").await;
        on_mark(&r, 0);
        assert_eq!(
            lines_starting(&r, "+"),
            vec!["+ echo hi"],
            "{:?}",
            r.viewport
        );
        assert!(r.viewport.lines().any(|l| l == "hi"), "{:?}", r.viewport);
        // With a user PROMPT_COMMAND, its commands are traced (as in plain bash); ours are not.
        on_mark(&sh.send("PROMPT_COMMAND='history -a'").await, 0);
        let r = sh.send("false").await;
        on_mark(&r, 1);
        assert_eq!(
            lines_starting(&r, "+"),
            vec!["+ false", "++ history -a"],
            "{:?}",
            r.viewport
        );
        on_mark(&sh.send("set +x").await, 0);
        sh.close().await;
    })
    .await;
}

/// Field case C33, `set -v`: bash echoes the lines it reads, the user's only; the echo of our
/// hook's command line before each prompt is erased by the prompt, and nothing is erased once
/// `set +v` turned it off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_set_v_echoes_only_the_users_lines() {
    within(async {
        let sh = Shell::open(config()).await;
        on_mark(&sh.send("set -v").await, 0);
        let r = sh.send("echo verbose").await;
        on_mark(&r, 0);
        assert_eq!(r.viewport, "echo verbose\necho verbose\nverbose\ndsh> ");
        let r = sh.send("set +v").await;
        on_mark(&r, 0);
        let r = sh.send("echo one; echo two").await;
        assert_eq!(r.viewport, "echo one; echo two\none\ntwo\ndsh> ");
        sh.close().await;
    })
    .await;
}

/// User functions named like the builtins and programs our hook uses (`shopt`, `stty`, `read`,
/// `command`) do not stand in for them: prompt variables and terminal modes are still put
/// back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_functions_named_like_builtins_do_not_break_the_hook() {
    within(async {
        let sh = Shell::open(config()).await;
        on_mark(
            &sh.send("shopt() { :; }; stty() { :; }; read() { :; }; command() { echo fake; }")
                .await,
            0,
        );
        on_mark(&sh.send("builtin shopt -u promptvars").await, 0);
        on_mark(&sh.send("(exit 4)").await, 4);
        on_mark(&sh.send("env stty -echo -icanon").await, 0);
        let r = sh.send("echo visible-check").await;
        on_mark(&r, 0);
        assert!(
            r.viewport
                .starts_with("echo visible-check\nvisible-check\n"),
            "{:?}",
            r.viewport
        );
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// User functions named like the builtins the hook declares its variables and sets its options
/// with (`local`, `set`, `unset`, `return`) do not stand in for them: the user's options stay
/// on (they were cleared at every prompt) and a new prompt is the user's (a fake `local` made
/// the hook take the user's `$p` for it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_functions_named_like_declaration_builtins_leave_options_and_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        on_mark(&sh.send("set -u -o pipefail; p=mine").await, 0);
        on_mark(
            &sh.send("local() { :; }; set() { :; }; unset() { :; }; return() { :; }")
                .await,
            0,
        );
        on_mark(&sh.send("PS1='changed> '").await, 0);
        let r = sh
            .send("echo \"opts=$-\"; builtin set -o | grep -c 'pipefail.*on'")
            .await;
        on_mark(&r, 0);
        let opts = r.viewport.lines().find_map(|l| l.strip_prefix("opts="));
        assert!(opts.is_some_and(|o| o.contains('u')), "{:?}", r.viewport);
        assert!(r.viewport.lines().any(|l| l == "1"), "{:?}", r.viewport);
        assert!(r.viewport.ends_with("\nchanged> "), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

/// With `set -x` traces sent to the terminal through `BASH_XTRACEFD`, our hook is traced (its
/// `&>/dev/null` does not cover that descriptor) but stays at a few lines: it checks the
/// options first and hands over to the part that turns tracing off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trace_on_another_descriptor_shows_little_of_the_hook() {
    within(async {
        let sh = Shell::open(config()).await;
        // Not `on_mark`: the trace names our hook here.
        let settled = |r: &SendResult| {
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        };
        settled(&sh.send("exec 5>&2; BASH_XTRACEFD=5; set -x").await);
        let r = sh.send("echo hi").await;
        settled(&r);
        // The trace of the prompt after `echo hi`.
        let after = r.viewport.split("\nhi\n").nth(1).unwrap_or_default();
        let hook: Vec<&str> = after.lines().filter(|l| l.starts_with("++")).collect();
        // The hook's call, its check for a fork the cap refused, the options check, the call
        // of the part that turns tracing off and that part's first two lines.
        assert!(hook.len() <= 6, "{:?}", r.viewport);
        assert!(
            !r.viewport.contains("read -r") && !r.viewport.contains("stty"),
            "{:?}",
            r.viewport
        );
        settled(&sh.send("set +x").await);
        sh.close().await;
    })
    .await;
}

/// Field case C33, DEBUG traps (also inherited into functions with `set -o functrace`): the
/// trap fires for the user's commands only, and a later `trap - DEBUG` leaves things working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c33_debug_trap_fires_only_for_the_users_commands() {
    within(async {
        let sh = Shell::open(config()).await;
        on_mark(&sh.send("trap 'echo trap' DEBUG").await, 0);
        let r = sh.send("echo there").await;
        on_mark(&r, 0);
        assert_eq!(lines_starting(&r, "trap"), vec!["trap"], "{:?}", r.viewport);
        assert!(r.viewport.lines().any(|l| l == "there"), "{:?}", r.viewport);
        on_mark(&sh.send("set -o functrace").await, 0);
        let r = sh.send("false").await;
        on_mark(&r, 1);
        assert_eq!(lines_starting(&r, "trap"), vec!["trap"], "{:?}", r.viewport);
        // A command that runs a child (a subshell, a pipeline) has the prompt check the
        // terminal modes: the inherited trap's output is not taken for them.
        for command in ["(exit 3)", "true | cat"] {
            let r = sh.send(command).await;
            assert!(!says_modes_restored(&r), "{command}: {r:?}");
            assert!(r.notices.is_empty(), "{command}: {r:?}");
        }
        on_mark(&sh.send("trap - DEBUG; set +o functrace").await, 0);
        let r = sh.send("echo plain").await;
        on_mark(&r, 0);
        assert!(lines_starting(&r, "trap").is_empty(), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

/// Whether the result says the shell set the terminal modes back at its prompt.
fn says_modes_restored(r: &dsh_terminal_core::SendResult) -> bool {
    r.notices
        .iter()
        .any(|n| n.starts_with("[terminal: the command left the terminal's modes or size changed"))
}

const LEAVE_NO_ECHO: &str = "python3 -c \"import termios,sys; a=termios.tcgetattr(0); \
    a[3]&=~(termios.ECHO|termios.ICANON); termios.tcsetattr(0,0,a)\"";

/// Field case C30: a program that exits leaving the terminal in no-echo / non-canonical mode
/// (and `stty -echo`, `stty raw` typed at the prompt) does not change later results: the
/// session's starting modes are back at the next prompt, and the result says they were set
/// back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c30_terminal_modes_are_restored_at_the_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        for change in [
            LEAVE_NO_ECHO,
            "stty -echo",
            "stty raw",
            "stty -icanon -isig",
        ] {
            let r = sh.send(change).await;
            on_mark(&r, 0);
            // The result says the modes were set back; the next, which changed none, does not.
            assert!(says_modes_restored(&r), "after {change}: {r:?}");
            let r = sh.send("echo visible-check").await;
            on_mark(&r, 0);
            assert!(!says_modes_restored(&r), "after {change}: {r:?}");
            assert!(
                r.viewport
                    .starts_with("echo visible-check\nvisible-check\n"),
                "after {change}: {:?}",
                r.viewport
            );
            assert_eq!(r.input_mode, InputMode::Normal, "after {change}: {r:?}");
            // A program reading the terminal sees the starting modes: its input is echoed
            // and line-buffered.
            let r = sh.send("cat").await;
            assert_eq!(
                r.wait_reason,
                WaitReason::StdinRead,
                "after {change}: {r:?}"
            );
            let r = sh.send("abc").await;
            assert_eq!(r.viewport, "abc\nabc\n", "after {change}: {r:?}");
            let r = sh.send_raw("\u{4}", false).await;
            on_mark(&r, 0);
        }
        sh.close().await;
    })
    .await;
}

/// `read -e` reads with the line editor and no prompt mark: the result says either may be the
/// case, and the answer settles on the prompt with its exit code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_with_the_line_editor_is_answered() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("read -e -p 'Dir: ' d; echo \"got $d\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Dir: "), "{r:?}");
        assert!(says_prompt_unmarked(&r), "{r:?}");
        let r = sh.send("/tmp/x").await;
        on_mark(&r, 0);
        assert!(r.viewport.contains("got /tmp/x"), "{r:?}");
        assert!(!says_prompt_unmarked(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program that sets another window size (`stty rows 60 cols 100`, also in a subshell)
/// leaves programs drawing for a screen the session's emulator does not have: the size is
/// set back at the prompt, the result says so, and a pager started next draws for the
/// session's rows (its first lines are on the screen).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_window_size_is_set_back_at_the_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        let (rows, cols) = (config().rows, config().cols);
        for change in ["stty rows 60 cols 100", "(stty cols 90)"] {
            let r = sh.send(change).await;
            on_mark(&r, 0);
            assert!(says_modes_restored(&r), "after {change}: {r:?}");
            let r = sh.send("stty size").await;
            on_mark(&r, 0);
            assert!(
                r.viewport.contains(&format!("\n{rows} {cols}\n")),
                "after {change}: {r:?}"
            );
            assert!(!says_modes_restored(&r), "after {change}: {r:?}");
        }
        on_mark(&sh.send("stty rows 60").await, 0);
        let r = sh.send("seq 1 200 | less").await;
        assert!(
            r.viewport.lines().next() == Some("1") || r.viewport.contains("\n1\n2\n"),
            "drawn for the session's rows: {r:?}"
        );
        let r = sh.send_raw("q", false).await;
        on_mark(&r, 0);
        sh.close().await;
    })
    .await;
}

//! Programs that read a line key by key with an editor of their own (cbreak or raw mode,
//! echoing each key themselves, at times only after reading the next; prompt_toolkit) get each
//! answer whole with its Enter, and several answers in one send meet their own prompts;
//! answers of characters other than ASCII go key by key to key reads as ASCII ones do.

use dsh_terminal_core::{SendResult, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, within};

/// A line editor of its own in cbreak mode with the terminal's echo off: it echoes each key
/// itself and reads on until Enter, at the prompt given as its first argument, then at
/// `Second: `.
const CBREAK_EDITOR: &str = "import sys, termios, tty\n\
def line(prompt):\n\
\x20   sys.stdout.write(prompt); sys.stdout.flush()\n\
\x20   old = termios.tcgetattr(0); tty.setcbreak(0); text = ''\n\
\x20   while (c := sys.stdin.read(1)) not in '\\r\\n':\n\
\x20       text += c; sys.stdout.write(c); sys.stdout.flush()\n\
\x20   termios.tcsetattr(0, termios.TCSADRAIN, old); print()\n\
\x20   return text\n\
a = line(sys.argv[1]); b = line('Second: ')\n\
print('A=[%s] B=[%s]' % (a, b))\n";

/// A line editor of its own in raw mode, run by Python (not its REPL), with bracketed paste
/// on, that waits for keys with a timeout (as prompt_toolkit does while a key sequence may
/// go on) and draws the keys it read two at a time, or once no key came for a moment (as an
/// editor that renders after it reads again does), at `Host: ` then `Port: `.
const LAGGING_EDITOR: &str = "import os, select, sys, termios\n\
def line(prompt):\n\
\x20   os.write(1, b'\\x1b[?2004h' + prompt.encode())\n\
\x20   old = termios.tcgetattr(0); new = termios.tcgetattr(0)\n\
\x20   new[0] &= ~termios.ICRNL; new[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG)\n\
\x20   termios.tcsetattr(0, termios.TCSADRAIN, new)\n\
\x20   text = b''; shown = 0\n\
\x20   while True:\n\
\x20       ready = select.select([0], [], [], 0.3)[0]\n\
\x20       if not ready or len(text) - shown >= 2:\n\
\x20           os.write(1, text[shown:]); shown = len(text)\n\
\x20       if not ready:\n\
\x20           continue\n\
\x20       c = os.read(0, 1)\n\
\x20       if c in (b'\\r', b'\\n'):\n\
\x20           break\n\
\x20       text += c\n\
\x20   os.write(1, text[shown:] + b'\\x1b[?2004l')\n\
\x20   termios.tcsetattr(0, termios.TCSADRAIN, old); print()\n\
\x20   return text.decode()\n\
a = line('Host: '); b = line('Port: ')\n\
print('A=[%s] B=[%s]' % (a, b))\n";

/// Runs `command` (a program asking `Host: `, then `Port: `, then printing `A=[host]
/// B=[port]`) with its two answers in the same send, then again with them sent once it waits,
/// and checks each answer met its own prompt whole.
async fn answer_host_and_port(sh: &Shell, command: &str) {
    let r = sh.send(&format!("{command}\nexample.com\n8080")).await;
    assert!(answered(&r, "A=[example.com] B=[8080]"), "{r:?}");
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    let r = sh.send(command).await;
    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
    let r = sh.send("db.internal\n5432").await;
    assert!(answered(&r, "A=[db.internal] B=[5432]"), "{r:?}");
}

/// Whether `r` shows the line `want` and no input notice.
fn answered(r: &SendResult, want: &str) -> bool {
    r.viewport.lines().any(|l| l == want) && r.notices.iter().all(|n| !n.starts_with("[input:"))
}

/// A cbreak-mode line editor at a yes/no question gets the word or key with its Enter, and
/// the next line of the send answers its next prompt (the key alone, its Enter or the rest of
/// the word left out, went to the next prompt's answer before); a cbreak reader that does not
/// echo still gets the key alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cbreak_line_editor_at_a_yes_no_question_gets_the_whole_answer() {
    within(async {
        let dir = TempDir::new("cbreak-editor");
        let sh = Shell::open(config()).await;
        let script = dir.0.join("editor.py");
        std::fs::write(&script, CBREAK_EDITOR).unwrap();
        for (question, answers, want) in [
            ("Are you sure? (y/n) ", "yes\nbob", "A=[yes] B=[bob]"),
            (
                "Overwrite existing file? [y/N] ",
                "n\nsecond",
                "A=[n] B=[second]",
            ),
        ] {
            let r = sh
                .send(&format!("python3 '{}' '{question}'", script.display()))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send(answers).await;
            assert!(answered(&r, want), "{question}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        // The word alone, without Enter: all of it waits on the editor's line.
        sh.send(&format!("python3 '{}' 'Sure? [y/N] '", script.display()))
            .await;
        let r = sh.send_raw("yes", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.viewport, "yes", "{r:?}");
        let r = sh.send("\nlast").await;
        assert!(answered(&r, "A=[yes] B=[last]"), "{r:?}");
        // A silent key reader at the same question takes the key alone.
        let r = sh
            .send(
                "read -s -n 1 -p 'Delete? [y/N] ' a; echo; read -p 'Name: ' n; \
                 echo \"a=[$a] n=[$n]\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("y\nbob").await;
        assert!(r.viewport.lines().any(|l| l == "a=[y] n=[bob]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A raw-mode line editor that draws the keys only after reading more of them gets every key
/// and the Enter of each answer, also when the command and its answers go in one send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_editor_that_draws_late_gets_every_key() {
    within(async {
        let dir = TempDir::new("lagging-editor");
        let sh = Shell::open(config()).await;
        let script = dir.0.join("editor.py");
        std::fs::write(&script, LAGGING_EDITOR).unwrap();
        answer_host_and_port(&sh, &format!("python3 '{}'", script.display())).await;
        sh.close().await;
    })
    .await;
}

/// prompt_toolkit's `prompt()` (a line editor in raw mode with bracketed paste on, run by
/// Python but no REPL) gets each answer of a send as its own line, the command and its
/// answers in one send or the answers once its first prompt shows: none is pasted into
/// another's line, nor loses keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_toolkit_prompts_get_one_answer_each() {
    within(async {
        let sh = Shell::open(config()).await;
        let command = "python3 -c \"from prompt_toolkit import prompt; a = prompt('Host: '); \
                       b = prompt('Port: '); print('A=[%s] B=[%s]' % (a, b))\"";
        answer_host_and_port(&sh, command).await;
        sh.close().await;
    })
    .await;
}

/// Keys other than ASCII (letters of other scripts, two columns wide or one) go to the
/// shell's `read -n` one at a time as ASCII ones do: the Enter after them is not typed
/// once the read took what it counts, so it answers no next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_other_than_ascii_go_one_at_a_time() {
    within(async {
        let sh = Shell::open(config()).await;
        for (answer, want) in [("日本", "[日本][x]"), ("Éa", "[Éa][x]")] {
            let r = sh
                .send("read -n2 -p 'Initials: ' k; echo; read -p 'Next: ' n; echo \"[$k][$n]\"")
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send(answer).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{answer}: {r:?}");
            assert!(r.viewport.ends_with("Next: "), "{answer}: {r:?}");
            let r = sh.send("x").await;
            assert!(r.viewport.lines().any(|l| l == want), "{answer}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// An answer whose first key is no letter or digit, or a long one, goes to a key read one key
/// at a time too: the keys the read does not take never run in the shell, nor does its Enter
/// answer the next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_a_read_does_not_take_never_reach_the_shell() {
    within(async {
        let sh = Shell::open(config()).await;
        let long = format!("becho LONG{}", "A".repeat(70));
        for (read, answer, want) in [
            ("read -n 2 -p 'Offset: ' a", "-1echo INJECTED", "[-1]"),
            ("read -n 1 -p 'Sign (+/-)? ' a", "+echo INJECTED", "[+]"),
            ("read -n 1 -p 'Go? ' a", long.as_str(), "[b]"),
        ] {
            let r = sh.send(&format!("{read}; echo; echo \"[$a]\"")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{read}: {r:?}");
            let r = sh.send(answer).await;
            assert!(r.viewport.lines().any(|l| l == want), "{read}: {r:?}");
            assert!(
                !r.viewport
                    .lines()
                    .any(|l| l.starts_with("INJECTED") || l.starts_with("LONG")),
                "{read}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{read}: {r:?}");
        }
        // The shell's own subshell reading one key with the terminal raw (`stty raw`) is no
        // line editor of the shell's: it gets the first key, and nothing else.
        let r = sh
            .send(
                "stty raw -echo; printf 'Pick one: '; c=$(dd bs=1 count=1 2>/dev/null); \
                 stty sane; echo \"[$c]\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("-echo INJECTED").await;
        assert!(r.viewport.lines().any(|l| l == "[-]"), "{r:?}");
        assert!(!r.viewport.contains("INJECTED\n"), "{r:?}");
        assert!(!r.viewport.contains("not found"), "{r:?}");
        // The Enter after `-5` is not typed: the next line answers the next prompt.
        let r = sh
            .send("read -n 2 -p 'Offset: ' a; echo; read -p 'Name: ' n; echo \"a=[$a] n=[$n]\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("-5\nbob").await;
        assert!(r.viewport.lines().any(|l| l == "a=[-5] n=[bob]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A reader behind a terminal relay (Python's `pty.spawn`, as `script` or `sudo` with
/// `use_pty`): this terminal is in the relay's raw mode whatever the program behind it reads,
/// so a password and a question's answer go whole with their Enter (they were cut to their
/// first key as if the relay read keys, and each later send typed one key more).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_behind_a_terminal_relay_gets_its_answer_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c 'import pty; pty.spawn([\"bash\", \"--norc\"])'")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send("read -s -p 'Password: ' p; echo; echo \"p=[$p]\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("hunter2").await;
        assert!(r.viewport.lines().any(|l| l == "p=[hunter2]"), "{r:?}");
        let r = sh
            .send("read -p 'Continue? [y/N] ' a; echo \"a=[$a]\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("yes").await;
        assert!(r.viewport.lines().any(|l| l == "a=[yes]"), "{r:?}");
        let r = sh.send("exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// An answer longer than the rest of the prompt's row, typed one key at a time to a line
/// editor in raw mode (node's `readline.question`, prompt_toolkit's `prompt()`): its echo
/// wraps at the screen's edge, and every key and the Enter still go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_wider_than_the_screen_goes_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let answer: String = ('a'..='z').cycle().take(250).collect();
        let mut commands = vec![
            "python3 -c \"from prompt_toolkit import prompt; print('LEN=%d' % len(prompt('first: ')))\"",
        ];
        if crate::support::installed("node") {
            commands.push(
                "node -e \"require('readline').createInterface({ input: process.stdin, output: \
                 process.stdout }).question('name: ', (a) => { console.log('LEN=' + a.length); \
                 process.exit(0); })\"",
            );
        }
        for command in commands {
            let r = sh.send(command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{command}: {r:?}");
            let r = sh.send(&answer).await;
            assert!(r.viewport.lines().any(|l| l == "LEN=250"), "{command}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{command}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A program in raw mode (ISIG off) whose thread reads keys while its main thread computes:
/// `terminal_signal`'s SIGINT goes as the Ctrl-C key, as the terminal's own key would; before,
/// the group got a real SIGINT, which the program never expected (here, a Python traceback
/// from the main thread instead of the key's handling). So it does when the signal keys are
/// on but the interrupt key is unset (jline's `intr <undef>`: jshell's engine ended on the
/// SIGINT, its state lost, where the key stops the statement).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_reaches_a_raw_mode_key_reader_while_another_thread_computes() {
    use dsh_terminal_core::{BackendSession, SignalDelivery, TerminalSignal};
    const PROGRAM: &str = "import os, sys, termios, threading, time, tty\n\
old = termios.tcgetattr(0)\n\
if sys.argv[1] == 'raw': tty.setraw(0)\n\
else:\n\
\x20   tty.setcbreak(0); a = termios.tcgetattr(0); a[6][termios.VINTR] = b'\\0'\n\
\x20   termios.tcsetattr(0, termios.TCSADRAIN, a)\n\
def keys():\n\
\x20   while os.read(0, 1) != b'\\x03': pass\n\
\x20   termios.tcsetattr(0, termios.TCSADRAIN, old); os.write(1, b'key-interrupt\\r\\n'); os._exit(0)\n\
threading.Thread(target=keys, daemon=True).start()\n\
os.write(1, b'computing\\r\\n')\n\
end = time.time() + 60\n\
while time.time() < end: pass\n\
termios.tcsetattr(0, termios.TCSADRAIN, old); print('ran-out')\n";
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("raw-reader");
        let script = dir.0.join("compute.py");
        std::fs::write(&script, PROGRAM).expect("write the program");
        for mode in ["raw", "intr-unset"] {
            let r = sh
                .send_within(&format!("python3 {} {mode}", script.display()), true, 1500)
                .await;
            assert!(r.viewport.contains("computing"), "{mode}: {r:?}");
            let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
            assert_eq!(
                s.delivery,
                SignalDelivery::InterruptCharacter,
                "{mode}: {s:?}"
            );
            let r = sh.send_raw("", false).await;
            assert!(r.viewport.contains("key-interrupt"), "{mode}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{mode}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A key read with echo off (`read -s -n 5`, a PIN) given a longer answer: the keys it did not
/// take are a secret's rest, never quoted in the result (a notice quoted `tTail` of
/// `SecretTail`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rest_of_a_hidden_key_answer_is_not_quoted() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("read -s -n 5 -p 'PIN: ' p; echo; echo \"len=${#p}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("SecretTail").await;
        assert!(r.viewport.lines().any(|l| l == "len=5"), "{r:?}");
        let shown = format!("{} {:?}", r.viewport, r.notices);
        assert!(!shown.contains("Tail") && !shown.contains("Secre"), "{r:?}");
        sh.close().await;
    })
    .await;
}

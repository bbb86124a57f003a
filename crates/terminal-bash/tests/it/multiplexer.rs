//! A terminal multiplexer in the session: tmux's client holds the foreground while its server,
//! outside the foreground group, reads the client's terminal itself.

use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, installed, within};

/// A line sent to a shell inside tmux runs at once: the Enter kept apart from the line for a
/// full-screen program that takes pastes goes once tmux's server has read the line (it reads
/// the terminal for the client, which waits on its socket), not when silence settles the send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_sent_inside_tmux_runs_at_once() {
    if !installed("tmux") {
        eprintln!(
            "tmux is not installed: a multiplexer's server reading the terminal is not exercised"
        );
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        // A socket of this test's own; the session's close stops the server with the rest.
        let dir = TempDir::new("tmux");
        let socket = dir.0.join("tmux.sock");
        sh.send(&format!(
            "tmux -f /dev/null -S {} new -s t 'bash --norc --noprofile'",
            socket.display()
        ))
        .await;
        for n in [6, 7] {
            let r = sh.send(&format!("echo $(({n}*7))-done")).await;
            let want = format!("{}-done", n * 7);
            assert!(
                r.viewport.lines().any(|l| l.trim_end() == want),
                "{n}: {:?}",
                r.viewport
            );
        }
        let r = sh.send("exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

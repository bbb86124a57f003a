//! A send settles only once the shell's output and prompt are on the screen (field case C07,
//! prompt detection under load): the kernel may show the shell blocked reading the terminal
//! before the bytes it wrote just before reach the reader. Many plain sends under CPU load,
//! each checked for its own output and exit status.

use std::process::{Child, Command, Stdio};

use dsh_terminal_core::WaitReason;

use crate::support::{Shell, config, within};

/// How many sends the stress run makes.
const SENDS: usize = 200;

/// Busy loops that keep both cores loaded while they live; killed and reaped on drop.
struct Load(Vec<Child>);

impl Load {
    fn start(n: usize) -> Self {
        Self(
            (0..n)
                .map(|_| {
                    Command::new("yes")
                        .stdout(Stdio::null())
                        .spawn()
                        .unwrap_or_else(|e| panic!("cannot start yes: {e}"))
                })
                .collect(),
        )
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The `i`-th command and a line its result must show.
fn command(i: usize) -> (String, String) {
    match i % 4 {
        0 => ("ulimit -a | head -20".to_owned(), "file size".to_owned()),
        // The prompt is drawn over the start of the echoed line.
        1 => (
            format!("echo up-{i}-tail-{i}; printf '\\033[A'"),
            format!("-tail-{i}"),
        ),
        2 => (format!("seq {i} {}", i + 49), format!("{}", i + 49)),
        _ => (format!("echo plain-{i}"), format!("plain-{i}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_send_under_load_carries_its_output_and_exit_status() {
    within(async {
        let load = Load::start(2);
        let shell = Shell::open(config()).await;
        for i in 0..SENDS {
            let (text, expected) = command(i);
            let r = shell.send(&text).await;
            assert_eq!(
                r.wait_reason,
                WaitReason::StdinRead,
                "send {i} {text:?}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "send {i} {text:?}: {r:?}");
            assert!(
                r.viewport.contains(&expected),
                "send {i} {text:?}: {expected:?} missing from {:?}",
                r.viewport
            );
        }
        drop(load);
        shell.close().await;
    })
    .await;
}

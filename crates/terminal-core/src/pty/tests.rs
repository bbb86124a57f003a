//! The write path against a real PTY: a write larger than the terminal can hold while its
//! program is not reading is queued in part, and a later write waits behind it.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::*;

/// Generous bound for anything the test waits on.
const DEADLINE: Duration = Duration::from_secs(30);

/// Bytes of the first write: well beyond what a PTY buffers for a program that is not reading.
const BIG: usize = 200_000;

#[test]
fn a_write_queued_in_part_keeps_later_writes_behind_it() {
    let dir = std::env::temp_dir().join(format!("dsh-pty-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gate = dir.join("gate");
    let out = dir.join("out");
    let status = std::process::Command::new("mkfifo")
        .arg(&gate)
        .status()
        .unwrap();
    assert!(status.success());
    // Raw mode, so input is not cut into lines; the program reads nothing until the gate opens.
    let script = format!(
        "stty raw -echo && echo ready && read g < '{}' && head -c {} > '{}' && echo done",
        gate.display(),
        BIG + 5,
        out.display()
    );
    let command = PtyCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        cwd: None,
        rows: 24,
        cols: 80,
    };
    let (pty, streams) = Pty::spawn(&command, "write-test").unwrap();
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>();
    Pty::start_reader(streams, "write-test", move |event| {
        if let ReadEvent::Output(bytes) = event {
            let _ = out_tx.send(bytes.to_vec());
        }
    })
    .unwrap();
    let (exit_tx, exit_rx) = mpsc::channel();
    Pty::start_waiter(pty.pid(), "write-test", move |info| {
        let _ = exit_tx.send(info);
    })
    .unwrap();
    let mut seen = Vec::new();
    let mut wait_for = |text: &str| {
        let start = Instant::now();
        while !String::from_utf8_lossy(&seen).contains(text) {
            let left = DEADLINE.saturating_sub(start.elapsed());
            match out_rx.recv_timeout(left) {
                Ok(bytes) => seen.extend(bytes),
                Err(_) => panic!("no {text:?} within the deadline: {seen:?}"),
            }
        }
    };
    wait_for("ready");

    let first = pty.write(vec![b'a'; BIG]);
    let second = pty.write(b"BBBBB".to_vec());
    std::fs::write(&gate, "go\n").unwrap();
    assert!(first.blocking_recv().unwrap().is_ok());
    assert!(second.blocking_recv().unwrap().is_ok());
    wait_for("done");

    let written = std::fs::read(&out).unwrap();
    assert_eq!(written.len(), BIG + 5);
    assert!(written[..BIG].iter().all(|&b| b == b'a'));
    assert_eq!(&written[BIG..], b"BBBBB");
    let exit = exit_rx.recv_timeout(DEADLINE).unwrap();
    assert_eq!(exit.code, Some(0));
    drop(pty);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Discarding queued input drops the rest of a write the terminal has not taken (its
/// receiver says so) and every write queued behind it; a later write goes through.
#[test]
fn queued_input_can_be_discarded() {
    let command = PtyCommand {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "stty raw -echo && echo ready && sleep 60".into(),
        ],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        cwd: None,
        rows: 24,
        cols: 80,
    };
    let (pty, streams) = Pty::spawn(&command, "discard-test").unwrap();
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>();
    Pty::start_reader(streams, "discard-test", move |event| {
        if let ReadEvent::Output(bytes) = event {
            let _ = out_tx.send(bytes.to_vec());
        }
    })
    .unwrap();
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("ready") {
        seen.extend(out_rx.recv_timeout(DEADLINE).expect("ready"));
    }
    let first = pty.write(vec![b'a'; BIG]);
    let second = pty.write(b"BBBBB".to_vec());
    pty.discard_queued_input();
    let start = Instant::now();
    let first = first.blocking_recv().unwrap();
    assert_eq!(first.map_err(|e| e.kind()), Err(io::ErrorKind::Interrupted));
    let second = second.blocking_recv().unwrap();
    assert_eq!(
        second.map_err(|e| e.kind()),
        Err(io::ErrorKind::Interrupted)
    );
    assert!(start.elapsed() < DEADLINE);
    assert!(pty.flush_unread_input());
    let third = pty.write(b"C".to_vec());
    assert!(third.blocking_recv().unwrap().is_ok());
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_raw(pty.pid() as i32).unwrap(),
        rustix::process::Signal::KILL,
    );
    drop(pty);
}

//! Whether a process holds a listening socket: a server waiting for connections. Its sockets
//! (`/proc/PID/fd` links `socket:[INODE]`) are looked up among the sockets its network
//! namespace lists as listening: TCP ones in state `0A` (LISTEN) in `/proc/PID/net/tcp` and
//! `tcp6`, Unix ones with the accepting flag (`__SO_ACCEPTCON`, `0x10000`) in
//! `/proc/PID/net/unix` (procfs formats, see proc(5)).

use std::collections::HashSet;
use std::fs;

/// The `St` column of a TCP socket in LISTEN state.
const TCP_LISTEN: &str = "0A";
/// The flag of a Unix socket that accepts connections (`__SO_ACCEPTCON`).
const UNIX_ACCEPTING: u32 = 0x1_0000;

/// Whether process `pid` holds a listening TCP or Unix socket (blocking `/proc` reads; `false`
/// when they fail).
pub(crate) fn holds_listening_socket(pid: i32) -> bool {
    let Ok(entries) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    let sockets: HashSet<u64> = entries
        .flatten()
        .filter_map(|entry| fs::read_link(entry.path()).ok())
        .filter_map(|target| socket_inode(&target.to_string_lossy()))
        .collect();
    if sockets.is_empty() {
        return false;
    }
    let listed = |file: &str, listening: fn(&[&str]) -> Option<u64>| {
        fs::read_to_string(format!("/proc/{pid}/net/{file}"))
            .ok()
            .is_some_and(|text| {
                text.lines().skip(1).any(|line| {
                    let fields: Vec<&str> = line.split_whitespace().collect();
                    listening(&fields).is_some_and(|inode| sockets.contains(&inode))
                })
            })
    };
    listed("tcp", tcp_listening) || listed("tcp6", tcp_listening) || listed("unix", unix_listening)
}

/// The inode of an fd link target `socket:[INODE]`.
fn socket_inode(target: &str) -> Option<u64> {
    target
        .strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// The inode of a `/proc/net/tcp` row's socket when it listens (`sl local rem st tx_rx tr_tm
/// retrnsmt uid timeout inode …`).
fn tcp_listening(fields: &[&str]) -> Option<u64> {
    (*fields.get(3)? == TCP_LISTEN).then_some(())?;
    fields.get(9)?.parse().ok()
}

/// The inode of a `/proc/net/unix` row's socket when it accepts connections (`Num RefCount
/// Protocol Flags Type St Inode Path`).
fn unix_listening(fields: &[&str]) -> Option<u64> {
    let flags = u32::from_str_radix(fields.get(3)?, 16).ok()?;
    (flags & UNIX_ACCEPTING != 0).then_some(())?;
    fields.get(6)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of proc(5)'s formats, listening and not.
    #[test]
    fn listening_rows_are_told_by_state_and_flags() {
        let tcp = "0: 0100007F:225F 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 4242 1 0000000000000000 100 0 0 10 0";
        let fields: Vec<&str> = tcp.split_whitespace().collect();
        assert_eq!(tcp_listening(&fields), Some(4242));
        let established = tcp.replace(" 0A ", " 01 ");
        let fields: Vec<&str> = established.split_whitespace().collect();
        assert_eq!(tcp_listening(&fields), None);
        let unix = "0000000000000000: 00000002 00000000 00010000 0001 01 777 /run/app.sock";
        let fields: Vec<&str> = unix.split_whitespace().collect();
        assert_eq!(unix_listening(&fields), Some(777));
        let connected = "0000000000000000: 00000003 00000000 00000000 0001 03 778";
        let fields: Vec<&str> = connected.split_whitespace().collect();
        assert_eq!(unix_listening(&fields), None);
        assert_eq!(socket_inode("socket:[4242]"), Some(4242));
        assert_eq!(socket_inode("pipe:[4242]"), None);
    }

    /// This test's own listening socket is found; a process without one has none.
    #[test]
    fn a_listening_socket_of_this_process_is_found() {
        let pid = i32::try_from(std::process::id()).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        assert!(holds_listening_socket(pid));
        drop(listener);
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let child_pid = i32::try_from(child.id()).unwrap();
        assert!(!holds_listening_socket(child_pid));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

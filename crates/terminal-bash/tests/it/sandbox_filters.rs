//! The system-call filters of a confined session: no set-user-ID or set-group-ID file can be
//! made (a root-owned one left in the workspace would make any host user root), the kernel's
//! key rings (shared with the host's user of the same id) are out of reach, and the calls
//! that would get around the first filter answer as a kernel without them does; no program
//! can push keys into the session's terminal (TIOCSTI), where the shell would run them.
//! Ordinary file modes and terminal requests still work, and no filter's descriptor reaches
//! the session.

use std::os::unix::fs::PermissionsExt as _;

use dsh_sandbox::SandboxMode;
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, sandboxed, within};

/// The last line before the prompt of a result's screen text.
fn last_output_line(viewport: &str) -> &str {
    viewport
        .lines()
        .rev()
        .find(|l| !l.starts_with("dsh> ") && !l.is_empty())
        .unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confined_session_makes_no_set_id_files_and_reaches_no_key_rings() {
    within(async {
        let ws = TempDir::new("filters");
        // A tree with a set-group-ID directory, made on the host.
        let sg = ws.0.join("tree/sg");
        std::fs::create_dir_all(&sg).unwrap();
        std::fs::write(sg.join("file"), "x").unwrap();
        std::fs::set_permissions(&sg, std::fs::Permissions::from_mode(0o2775)).unwrap();
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        // Setting either bit on a file the session owns is refused, in every form.
        for command in [
            "touch f && chmod 4755 f",
            "chmod u+s f",
            "chmod g+s f",
            "install -m 4755 /bin/true t",
            "cp /bin/true u && chmod 6711 u",
        ] {
            let r = sh.send(command).await;
            assert_eq!(r.exit_code, Some(1), "{command}: {r:?}");
            assert!(
                r.viewport.contains("Operation not permitted"),
                "{command}: {r:?}"
            );
        }
        // Created with the bit in its mode (`open` with `O_CREAT`, `O_TMPFILE`), by a program
        // that makes the call itself.
        let r = sh
            .send(
                "python3 -c \"import os\nfor flags in (os.O_CREAT | os.O_WRONLY, os.O_TMPFILE | os.O_WRONLY):\n    try:\n        os.open('g' if flags & os.O_CREAT else '.', flags, 0o4755)\n        print('made')\n    except PermissionError:\n        print('refused')\"",
            )
            .await;
        assert!(
            r.viewport.contains("\nrefused\nrefused\n"),
            "{r:?}"
        );
        // Nothing of it reached the host's filesystem (but the tree made there).
        for entry in std::fs::read_dir(&ws.0).unwrap() {
            let entry = entry.unwrap();
            let mode = entry.metadata().unwrap().permissions().mode();
            assert_eq!(mode & 0o6000, 0, "{:?} has mode {mode:o}", entry.path());
        }
        // Ordinary modes still work.
        let r = sh.send("chmod 750 f && stat -c %a f").await;
        assert_eq!(last_output_line(&r.viewport), "750", "{r:?}");
        // A directory made with either bit in its mode is made (the kernel drops them), so a
        // copy of a tree with a set-group-ID directory works.
        let r = sh
            .send("python3 -c \"import os; os.mkdir('d', 0o2775)\" && cp -r tree copy && test -f copy/sg/file && echo copied")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\ncopied\n"), "{r:?}");
        // The key rings: `add_key` into the user's key ring is refused; io_uring and
        // `openat2` answer "not implemented", so programs use their fallbacks.
        let r = sh
            .send(&format!(
                "python3 -c \"import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nfor name, args in (('add_key', ({}, b'user', b'dsh-probe', b'x', 1, -4)), ('io_uring_setup', ({}, 1, ctypes.create_string_buffer(120))), ('openat2', ({}, -100, b'.', ctypes.create_string_buffer(24), 24))):\n    libc.syscall(*args)\n    print(name, os.strerror(ctypes.get_errno()))\"",
                libc::SYS_add_key,
                libc::SYS_io_uring_setup,
                libc::SYS_openat2,
            ))
            .await;
        assert!(
            r.viewport.contains(
                "\nadd_key Operation not permitted\nio_uring_setup Function not implemented\nopenat2 Function not implemented\n"
            ),
            "{r:?}"
        );
        // bubblewrap read and closed the filters' descriptors: the shell holds its terminal
        // only.
        let r = sh.send("ls /proc/$$/fd | tr '\\n' ' '").await;
        assert!(r.viewport.contains("\n0 1 2 255\ndsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confined_session_cannot_push_keys_into_its_terminal() {
    within(async {
        let ws = TempDir::new("tiocsti");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        // Pushed into the terminal's input, the bytes would run as a command once the shell
        // reads again; the request is refused, also with bits above its low 32 set (the
        // kernel reads only those).
        let r = sh
            .send(
                "python3 -c \"import fcntl, os, termios\nfd = os.open('/dev/tty', os.O_RDWR)\nfor request in (termios.TIOCSTI, termios.TIOCSTI | 1 << 32):\n    try:\n        [fcntl.ioctl(fd, request, bytes([b])) for b in b'echo PUSHED-$((6*7))\\n']\n        print('pushed')\n    except OSError as e:\n        print('refused', e.errno)\"",
            )
            .await;
        assert!(r.viewport.contains("\nrefused 1\nrefused 1\n"), "{r:?}");
        let r = sh.send("echo after").await;
        assert!(!r.viewport.contains("PUSHED-42"), "{r:?}");
        // Other terminal requests still work.
        let r = sh.send("stty size").await;
        assert_eq!(last_output_line(&r.viewport), "40 160", "{r:?}");
        sh.close().await;
    })
    .await;
}

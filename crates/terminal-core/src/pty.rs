//! A thin wrapper over portable-pty that avoids its traps, such as blocking kill/wait calls
//! and a writer that sends EOF when dropped.
//!
//! The PTY layer only moves bytes and lifecycle events; interpreting them is [`crate::screen`]'s
//! and [`crate::session`]'s job.
//!
//! # Responsibilities
//! - Spawn a program on a fresh PTY with exactly the given environment (portable-pty starts
//!   from the host environment; we clear it), then drop the slave so EOF arrives once every
//!   process holding the terminal is gone.
//! - One named reader thread (`dsh-pty-read-<label>`) doing blocking reads and handing each
//!   chunk to a callback; one named waiter thread (`dsh-pty-wait-<label>`) blocked in
//!   `waitpid` that reports the exit status; one named writer thread (`dsh-pty-write-<label>`)
//!   for writes the terminal cannot take at once, so a program that stops reading can never
//!   block the async runtime. The master is non-blocking: a write with nothing queued before
//!   it is first tried from the caller (a typical command line goes in whole, with no thread
//!   hop), and only what the terminal did not take is queued for the writer thread, which
//!   waits for room with `poll`.
//! - Flow control (`IXON`) is off and UTF-8 input (`IUTF8`) on from the start (see [`modes`]).
//! - The writer obtained from portable-pty is never used: dropping it writes `"\n"` + VEOF, which
//!   makes bash exit and leak its jobs. Writes go to our own duplicate of the master fd.
//! - Terminal facts from the master side: foreground process group (`tcgetpgrp`), termios
//!   (Linux forwards master termios ioctls to the slave), bytes still queued for the
//!   foreground program to read.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, mpsc};

use parking_lot::Mutex;

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use rustix::process::{Pid, WaitOptions};
use rustix::termios::LocalModes;

pub(crate) use modes::TtyModes;
use writer::{WriteJob, WriterQueue, write_now, writer_loop};

/// Size of one blocking read from the master.
const READ_CHUNK_BYTES: usize = 64 * 1024;
/// Stack size of the PTY threads (they hold no large stack buffers).
const THREAD_STACK_BYTES: usize = 256 * 1024;

/// What to run on the PTY.
#[derive(Clone, Debug, Default)]
pub struct PtyCommand {
    /// Program path (absolute, or resolved against `PATH` in `env`).
    pub program: PathBuf,
    /// Arguments after the program name.
    pub args: Vec<OsString>,
    /// The complete environment of the program (nothing is inherited).
    pub env: Vec<(OsString, OsString)>,
    /// Working directory; must be an existing directory when set.
    pub cwd: Option<PathBuf>,
    /// Terminal rows.
    pub rows: u16,
    /// Terminal columns.
    pub cols: u16,
}

/// How the top-level process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExitInfo {
    /// Exit status when it exited normally.
    pub(crate) code: Option<i32>,
    /// Signal number when a signal ended it.
    pub(crate) signal: Option<i32>,
}

impl ExitInfo {
    /// The status as the contract reports it (`exited code=3 signal=null`,
    /// `exited code=null signal=SIGKILL`).
    pub(crate) fn status(&self) -> crate::types::SessionStatus {
        crate::types::SessionStatus::Exited {
            exit_code: if self.signal.is_some() {
                None
            } else {
                self.code
            },
            signal: self
                .signal
                .and_then(crate::types::signal_name)
                .map(str::to_owned),
        }
    }
}

/// One event from the reader thread.
#[derive(Debug)]
pub(crate) enum ReadEvent<'a> {
    /// Output is ready and the thread is about to read it: until the next event, bytes may be
    /// neither in the terminal nor handed on (the read takes them out of the terminal).
    WillRead,
    /// The read after [`ReadEvent::WillRead`] returned nothing (interrupted).
    ReadNothing,
    /// Bytes the program wrote.
    Output(&'a [u8]),
    /// No output is ready: the thread is about to block until there is (sent once per
    /// pause, after the last [`ReadEvent::Output`] of a burst).
    Quiet,
    /// The output stream ended: `None` for a normal end (every process holding the terminal is
    /// gone), `Some` for a read error.
    End(Option<io::Error>),
}

/// A spawned PTY program. Dropping it closes our master descriptors (the reader thread keeps
/// its own until EOF) and stops the writer thread.
pub(crate) struct Pty {
    pid: u32,
    fd: Arc<OwnedFd>,
    tty_path: Option<PathBuf>,
    writer: Mutex<Option<mpsc::Sender<WriteJob>>>,
    queue: Arc<WriterQueue>,
    // Kept only so the original master descriptor lives as long as we do; portable-pty's
    // master is not `Sync` (it holds a `RefCell`), hence the mutex.
    _master: Mutex<Box<dyn MasterPty + Send>>,
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pty")
            .field("pid", &self.pid)
            .field("tty_path", &self.tty_path)
            .finish_non_exhaustive()
    }
}

/// The halves of a spawn that run on their own threads (see [`Pty::spawn`]).
pub(crate) struct PtyStreams {
    reader: Box<dyn Read + Send>,
    /// The master, polled before each read.
    ready: Arc<OwnedFd>,
}

impl std::fmt::Debug for PtyStreams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PtyStreams")
    }
}

impl Pty {
    /// Opens a PTY and starts `command` on it as a session leader with the PTY as its
    /// controlling terminal. Blocking (fork + exec): call it from a blocking context.
    ///
    /// Returns the PTY and the output stream; pass the stream to [`Pty::start_reader`] and the
    /// pid to [`Pty::start_waiter`] right away.
    ///
    /// # Errors
    /// The PTY cannot be opened, the working directory is missing, or the program cannot be
    /// started.
    pub(crate) fn spawn(command: &PtyCommand, label: &str) -> io::Result<(Pty, PtyStreams)> {
        if let Some(cwd) = &command.cwd
            && !cwd.is_dir()
        {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("working directory {} is not a directory", cwd.display()),
            ));
        }
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: command.rows.max(1),
                cols: command.cols.max(1),
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(io::Error::other)?;
        let raw = pair
            .master
            .as_raw_fd()
            .ok_or_else(|| io::Error::other("PTY master has no file descriptor"))?;
        // One of the crate's two unsafe blocks (the other reads pidfd exit statuses): portable-pty exposes the master only as a raw fd.
        // SAFETY: `raw` is the master's open descriptor, owned by `pair.master`, which outlives
        // this borrow (we only duplicate it here).
        #[allow(unsafe_code)]
        let borrowed = unsafe { BorrowedFd::borrow_raw(raw) };
        let fd = rustix::io::fcntl_dupfd_cloexec(borrowed, 0)?;
        modes::set_session_modes(&fd);
        let mut builder = CommandBuilder::new(&command.program);
        builder.args(&command.args);
        builder.env_clear();
        for (k, v) in &command.env {
            builder.env(k, v);
        }
        if let Some(cwd) = &command.cwd {
            builder.cwd(cwd);
        }
        // A program that exits at once is a zombie of ours before its pid is registered: a
        // concurrent orphan reaper must not see it in between (see `while_no_spawn_pending`).
        let spawning = SPAWNING.lock();
        let child = pair
            .slave
            .spawn_command(builder)
            .map_err(io::Error::other)?;
        // The slave must go, or the master never sees EOF (measured: dropping the slave is what lets the master see EOF).
        drop(pair.slave);
        let pid = child.process_id().unwrap_or(0);
        register_shell(pid);
        drop(spawning);
        // The waiter thread reaps by pid (waitpid); portable-pty's child handle does nothing.
        drop(child);
        let master = pair.master;
        // Non-blocking for the whole open file description (the reader's clone shares it): the
        // reader polls before it reads, and writers never wait inside `write`.
        rustix::fs::fcntl_setfl(
            &fd,
            rustix::fs::fcntl_getfl(&fd)? | rustix::fs::OFlags::NONBLOCK,
        )?;
        let reader = master.try_clone_reader().map_err(io::Error::other)?;
        let tty_path = master.tty_name();
        let fd = Arc::new(fd);
        let ready = Arc::clone(&fd);
        let (tx, rx) = mpsc::channel::<WriteJob>();
        let write_fd = Arc::clone(&fd);
        let queue = Arc::new(WriterQueue::default());
        let writer_queue = Arc::clone(&queue);
        std::thread::Builder::new()
            .name(format!("dsh-pty-write-{label}"))
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || writer_loop(&write_fd, &rx, &writer_queue))?;
        Ok((
            Pty {
                pid,
                fd,
                tty_path,
                writer: Mutex::new(Some(tx)),
                queue,
                _master: Mutex::new(master),
            },
            PtyStreams { reader, ready },
        ))
    }

    /// Starts the reader thread: it calls `sink` with every chunk (bounded to 64 KiB) and
    /// finally with [`ReadEvent::End`]. The sink runs on the reader thread; keep its work per
    /// chunk bounded.
    ///
    /// # Errors
    /// The thread cannot be spawned.
    pub(crate) fn start_reader<F>(streams: PtyStreams, label: &str, mut sink: F) -> io::Result<()>
    where
        F: FnMut(ReadEvent<'_>) + Send + 'static,
    {
        let mut reader = streams.reader;
        let ready = streams.ready;
        std::thread::Builder::new()
            .name(format!("dsh-pty-read-{label}"))
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || {
                let mut buf = vec![0u8; READ_CHUNK_BYTES];
                loop {
                    // Wait until output is ready, say so, then read: whoever asks "is all
                    // output handed on?" never sees the bytes in neither place.
                    let mut fds = [rustix::event::PollFd::new(
                        &*ready,
                        rustix::event::PollFlags::IN,
                    )];
                    // Ask without waiting first: when nothing is ready, the burst is over
                    // and the sink hears so before the thread blocks.
                    let zero = rustix::event::Timespec {
                        tv_sec: 0,
                        tv_nsec: 0,
                    };
                    let ready_now =
                        matches!(rustix::event::poll(&mut fds, Some(&zero)), Ok(n) if n > 0);
                    let polled = if ready_now {
                        Ok(1)
                    } else {
                        sink(ReadEvent::Quiet);
                        loop {
                            match rustix::event::poll(&mut fds, None) {
                                Err(rustix::io::Errno::INTR) => {}
                                other => break other,
                            }
                        }
                    };
                    if polled.is_ok() {
                        sink(ReadEvent::WillRead);
                    }
                    match reader.read(&mut buf) {
                        // portable-pty maps EIO (slave side closed) to Ok(0).
                        Ok(0) => {
                            sink(ReadEvent::End(None));
                            break;
                        }
                        Ok(n) => sink(ReadEvent::Output(&buf[..n])),
                        // Non-blocking: a read that raced another reader of the terminal (none
                        // of ours) finds nothing; poll again.
                        Err(e)
                            if matches!(
                                e.kind(),
                                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                            ) =>
                        {
                            sink(ReadEvent::ReadNothing);
                        }
                        Err(e) => {
                            sink(ReadEvent::End(Some(e)));
                            break;
                        }
                    }
                }
            })?;
        Ok(())
    }

    /// Starts the waiter thread: it blocks in `waitpid(pid)` and calls `on_exit` once with the
    /// status (`code` and `signal` both `None` when the status could not be collected).
    ///
    /// # Errors
    /// The thread cannot be spawned.
    pub(crate) fn start_waiter<F>(pid: u32, label: &str, on_exit: F) -> io::Result<()>
    where
        F: FnOnce(ExitInfo) + Send + 'static,
    {
        let target = i32::try_from(pid).ok().and_then(Pid::from_raw);
        std::thread::Builder::new()
            .name(format!("dsh-pty-wait-{label}"))
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || {
                let info = loop {
                    let Some(target) = target else {
                        break ExitInfo {
                            code: None,
                            signal: None,
                        };
                    };
                    match rustix::process::waitpid(Some(target), WaitOptions::empty()) {
                        Ok(Some((_, status))) if status.exited() || status.signaled() => {
                            break ExitInfo {
                                code: status.exit_status(),
                                signal: status.terminating_signal(),
                            };
                        }
                        Ok(_) => {}
                        Err(rustix::io::Errno::INTR) => {}
                        Err(err) => {
                            tracing::warn!(%err, pid = target.as_raw_nonzero().get(), "waitpid failed; exit status unknown");
                            break ExitInfo {
                                code: None,
                                signal: None,
                            };
                        }
                    }
                };
                unregister_shell(pid);
                on_exit(info);
            })?;
        Ok(())
    }

    /// The spawned program's pid.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Path of the slave side (e.g. `/dev/pts/3`), when known.
    pub(crate) fn tty_path(&self) -> Option<&Path> {
        self.tty_path.as_deref()
    }

    /// Whether input is waiting on the terminal that its reader has not taken: `poll` for
    /// input on the slave side, which first lets the kernel finish handing bytes written to
    /// the master over to the line discipline (n_tty's poll flushes the port's pending buffer
    /// work), then reports what a `read` would return at once (a whole line in canonical
    /// mode, `VMIN` bytes in raw mode). A program seen blocked reading the terminal while
    /// this holds has not read everything it was sent yet. `false` when the slave cannot be
    /// opened. Blocking only as long as that hand-over: call it off the async workers.
    pub(crate) fn input_pending(&self) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        use rustix::fs::{Mode, OFlags, open};
        let Some(path) = self.tty_path.as_deref() else {
            return false;
        };
        let flags = OFlags::RDONLY | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let Ok(slave) = open(path, flags, Mode::empty()) else {
            return false;
        };
        let mut fds = [PollFd::new(&slave, PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0)
            && fds[0].revents().contains(PollFlags::IN)
    }

    /// Writes `bytes` to the terminal; the receiver resolves when all were written. With
    /// nothing queued, what the terminal takes at once is written here (never waiting); the
    /// rest is queued for the writer thread. A closed PTY resolves with an error.
    pub(crate) fn write(&self, bytes: Vec<u8>) -> tokio::sync::oneshot::Receiver<io::Result<()>> {
        let (done, rx) = tokio::sync::oneshot::channel();
        let stopped = || io::Error::other("terminal writer has stopped");
        // Held throughout, so a write from here and the queue keep their order.
        let guard = self.writer.lock();
        let Some(tx) = guard.as_ref() else {
            let _ = done.send(Err(stopped()));
            return rx;
        };
        let mut written = 0;
        if self.queue.queued.load(Ordering::SeqCst) == 0 {
            match write_now(&self.fd, &bytes) {
                Ok(n) if n == bytes.len() => {
                    let _ = done.send(Ok(()));
                    return rx;
                }
                Ok(n) => written = n,
                Err(e) => {
                    let _ = done.send(Err(e));
                    return rx;
                }
            }
        }
        let rest = if written == 0 {
            bytes
        } else {
            bytes[written..].to_vec()
        };
        self.queue.queued.fetch_add(1, Ordering::SeqCst);
        let job = WriteJob {
            bytes: rest,
            done,
            epoch: self.queue.discards.load(Ordering::SeqCst),
        };
        if let Err(mpsc::SendError(job)) = tx.send(job) {
            self.queue.queued.fetch_sub(1, Ordering::SeqCst);
            let _ = job.done.send(Err(stopped()));
        }
        rx
    }

    /// Discards the input still queued for the writer thread (the rest of a write the
    /// terminal has not taken yet, and every write queued behind it), as the terminal's
    /// interrupt key discards input typed ahead. Those writes resolve with an
    /// `Interrupted` error; what the terminal already took stays (flush it with
    /// [`flush_unread_input`](Self::flush_unread_input)). Writes made after this call are
    /// written as usual.
    pub(crate) fn discard_queued_input(&self) {
        // Under the writer lock: no write is being queued with the old epoch meanwhile.
        let _guard = self.writer.lock();
        if self.queue.queued.load(Ordering::SeqCst) > 0 {
            self.queue.discards.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Stops accepting writes (the writer thread ends after the jobs already queued).
    pub(crate) fn close_writer(&self) {
        self.writer.lock().take();
    }

    /// The terminal's foreground process group (`tcgetpgrp` on the master), if any.
    pub(crate) fn foreground_pgid(&self) -> Option<i32> {
        rustix::termios::tcgetpgrp(self.fd.as_fd())
            .ok()
            .map(|p| p.as_raw_nonzero().get())
            .filter(|&p| p > 0)
    }

    /// The terminal's modes that matter to the host ([`TtyModes`]).
    pub(crate) fn modes(&self) -> Option<TtyModes> {
        let t = rustix::termios::tcgetattr(self.fd.as_fd()).ok()?;
        Some(TtyModes::of(&t))
    }

    /// The byte the terminal's own key for `signal` sends when the foreground program reads
    /// keys raw: Ctrl-C (`VINTR`) for SIGINT, Ctrl-Z (`VSUSP`) for SIGTSTP. With `ISIG` off
    /// (the line discipline turns no key into a signal, so the program expects the byte), the
    /// character set for it, unless disabled; with `ISIG` on and the character disabled
    /// (jline's `intr <undef>`: jshell takes Ctrl-C as a key and stops its statement, where a
    /// SIGINT to its group ends it), the key's own byte (0x03, 0x1a), which then arrives as
    /// data. `None` for another signal, when `ISIG` is on and the character set (the key means
    /// the signal to the foreground group), or when the modes cannot be read.
    pub(crate) fn raw_signal_char(&self, signal: crate::types::TerminalSignal) -> Option<u8> {
        use crate::types::TerminalSignal;
        use rustix::termios::SpecialCodeIndex;
        let (index, key) = match signal {
            TerminalSignal::Sigint => (SpecialCodeIndex::VINTR, 0x03),
            TerminalSignal::Sigtstp => (SpecialCodeIndex::VSUSP, 0x1a),
            _ => return None,
        };
        let t = rustix::termios::tcgetattr(self.fd.as_fd()).ok()?;
        // 0 is _POSIX_VDISABLE on Linux.
        let byte = t.special_codes[index];
        if t.local_modes.contains(LocalModes::ISIG) {
            (byte == 0).then_some(key)
        } else {
            (byte != 0).then_some(byte)
        }
    }

    /// Discards input written to the terminal that no program has read yet, as the line
    /// discipline does when its own interrupt, quit or suspend key arrives (unless `NOFLSH`
    /// is set): `tcflush(TCIFLUSH)` on a short-lived descriptor of the slave side. Returns
    /// whether it flushed.
    pub(crate) fn flush_unread_input(&self) -> bool {
        let noflsh = rustix::termios::tcgetattr(self.fd.as_fd())
            .map_or(true, |t| t.local_modes.contains(LocalModes::NOFLSH));
        !noflsh
            && self.open_slave().is_some_and(|fd| {
                rustix::termios::tcflush(&fd, rustix::termios::QueueSelector::IFlush).is_ok()
            })
    }

    /// A short-lived descriptor of the slave side (never our controlling terminal).
    fn open_slave(&self) -> Option<OwnedFd> {
        rustix::fs::open(
            self.tty_path.as_deref()?,
            rustix::fs::OFlags::RDWR
                | rustix::fs::OFlags::NOCTTY
                | rustix::fs::OFlags::NONBLOCK
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()
    }

    /// Bytes written to the terminal that its foreground program has not read yet (`FIONREAD`
    /// on a short-lived descriptor of the slave side; in canonical mode, the complete lines
    /// only). `None` when it cannot be asked.
    ///
    /// The descriptor is polled first, without waiting: the kernel hands bytes written to the
    /// master over to the slave's line discipline from a work queue, and a poll that finds
    /// nothing readable finishes that hand-off, so bytes just written are never counted as
    /// read.
    pub(crate) fn pending_input_bytes(&self) -> Option<u64> {
        let slave = self.open_slave()?;
        let mut fds = [rustix::event::PollFd::new(
            &slave,
            rustix::event::PollFlags::IN,
        )];
        let now = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let _ = rustix::event::poll(&mut fds, Some(&now));
        rustix::io::ioctl_fionread(&slave).ok()
    }

    /// Output bytes the program wrote that the reader thread has not read yet.
    pub(crate) fn unread_output_bytes(&self) -> Option<u64> {
        rustix::io::ioctl_fionread(self.fd.as_fd()).ok()
    }

    /// Whether output the program wrote is waiting to be read. Polls the master without
    /// waiting, which also makes the kernel finish handing over output it has accepted from
    /// the program but not yet queued on the master's reading side (`FIONREAD` does not count
    /// that, and on a loaded machine the hand-off can lag the program by milliseconds).
    pub(crate) fn output_pending(&self) -> bool {
        let mut fds = [rustix::event::PollFd::new(
            &*self.fd,
            rustix::event::PollFlags::IN,
        )];
        let now = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        match rustix::event::poll(&mut fds, Some(&now)) {
            Ok(_) => fds[0].revents().contains(rustix::event::PollFlags::IN),
            Err(_) => self.unread_output_bytes().unwrap_or(0) > 0,
        }
    }
}

/// Pids of the PTY top-level processes this host spawned and whose waiter thread has not
/// reaped them yet. Zombie reapers must leave these alone (their waiter owns the status).
static LIVE_SHELLS: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Held from a PTY program's spawn until its pid is in [`LIVE_SHELLS`].
static SPAWNING: Mutex<()> = Mutex::new(());

/// Runs `reap` (a reaper of zombie children that leaves [`is_live_shell`] pids alone) while no
/// PTY program is being spawned: one that exited at once (a `-c` script, a shell that cannot
/// start) is already a zombie of this process before its pid is registered, and was reaped in
/// that gap, its status lost to its waiter and its startup failing to read it.
pub(crate) fn while_no_spawn_pending<T>(reap: impl FnOnce() -> T) -> T {
    let _spawning = SPAWNING.lock();
    reap()
}

fn register_shell(pid: u32) {
    LIVE_SHELLS.lock().insert(pid);
}

fn unregister_shell(pid: u32) {
    LIVE_SHELLS.lock().remove(&pid);
}

/// Whether `pid` is a PTY top-level process of this host whose waiter has not reaped it yet.
pub(crate) fn is_live_shell(pid: i32) -> bool {
    u32::try_from(pid).is_ok_and(|pid| LIVE_SHELLS.lock().contains(&pid))
}

mod modes;
#[cfg(test)]
mod tests;
mod writer;

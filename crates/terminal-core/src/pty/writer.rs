//! The write path of a [`Pty`](super::Pty): input the terminal did not take at once waits in
//! a queue for the writer thread, which writes it as the terminal makes room (`poll`), in
//! order, and drops what a discard ([`Pty::discard_queued_input`](super::Pty::discard_queued_input))
//! says is no longer wanted.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;

pub(super) struct WriteJob {
    pub(super) bytes: Vec<u8>,
    pub(super) done: tokio::sync::oneshot::Sender<io::Result<()>>,
    /// [`WriterQueue::discards`] when the job was queued: a later discard drops it.
    pub(super) epoch: u64,
}

/// What the caller and the writer thread share about the queue.
#[derive(Debug, Default)]
pub(super) struct WriterQueue {
    /// Write jobs queued for (or in progress on) the writer thread: while any is, a new write
    /// queues behind it instead of writing from the caller, so writes keep their order.
    pub(super) queued: AtomicUsize,
    /// How many times queued input was discarded ([`Pty::discard_queued_input`]).
    pub(super) discards: AtomicU64,
}

impl WriterQueue {
    fn discarded_since(&self, epoch: u64) -> bool {
        self.discards.load(Ordering::SeqCst) != epoch
    }
}

/// How a write whose rest was discarded before the terminal took it resolves.
pub(super) fn input_discarded() -> io::Error {
    io::Error::new(
        io::ErrorKind::Interrupted,
        "input discarded before the terminal took it",
    )
}

/// Longest the writer thread waits for room before checking for a discard again.
const DISCARD_CHECK_MS: u16 = 20;

pub(super) fn writer_loop(fd: &OwnedFd, rx: &mpsc::Receiver<WriteJob>, queue: &WriterQueue) {
    while let Ok(job) = rx.recv() {
        let result = write_all(fd, &job.bytes, || queue.discarded_since(job.epoch));
        // Written (or failed) before the caller hears so: its next write may go from there.
        queue.queued.fetch_sub(1, Ordering::SeqCst);
        let _ = job.done.send(result);
    }
}

/// Writes what the (non-blocking) terminal takes now; returns how many bytes that was.
pub(super) fn write_now(fd: &OwnedFd, bytes: &[u8]) -> io::Result<usize> {
    let mut written = 0;
    while written < bytes.len() {
        match rustix::io::write(fd, &bytes[written..]) {
            Ok(0) | Err(rustix::io::Errno::AGAIN) => break,
            Ok(n) => written += n,
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(written)
}

/// Writes all of `bytes`, waiting (`poll`) whenever the terminal has no room, unless
/// `discarded` says the rest is no longer wanted ([`input_discarded`]).
fn write_all(fd: &OwnedFd, mut bytes: &[u8], discarded: impl Fn() -> bool) -> io::Result<()> {
    while !bytes.is_empty() {
        if discarded() {
            return Err(input_discarded());
        }
        match rustix::io::write(fd, bytes) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => {
                let mut fds = [rustix::event::PollFd::new(
                    fd,
                    rustix::event::PollFlags::OUT,
                )];
                let wait = rustix::event::Timespec {
                    tv_sec: 0,
                    tv_nsec: i64::from(DISCARD_CHECK_MS) * 1_000_000,
                };
                match rustix::event::poll(&mut fds, Some(&wait)) {
                    Ok(_) | Err(rustix::io::Errno::INTR) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

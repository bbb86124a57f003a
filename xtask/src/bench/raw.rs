//! The reference: a program in a bare portable-pty PTY, read directly (no emulation, no
//! readiness engine), timed until the bytes that show it is ready appear.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// Marker bash prints before each prompt (`PROMPT_COMMAND`).
pub(crate) const MARK: &[u8] = b"\x1b]133;D;";

pub(crate) struct RawPty {
    _child: Box<dyn portable_pty::Child + Send + Sync>,
    reader: Box<dyn Read + Send>,
    writer: Box<dyn Write + Send>,
    killer: Box<dyn portable_pty::ChildKiller + Send + Sync>,
    seen: Vec<u8>,
}

impl RawPty {
    /// `bash --noprofile --norc -i` with a prompt marker, ready at its first prompt.
    pub(crate) fn bash() -> Result<Self> {
        let mut cmd = CommandBuilder::new("/bin/bash");
        cmd.args(["--noprofile", "--norc", "-i"]);
        cmd.env("PS1", "$ ");
        cmd.env("PROMPT_COMMAND", r#"printf "\033]133;D;%s\007" "$?""#);
        cmd.env("TERM", "dumb");
        let mut raw = Self::spawn(cmd)?;
        raw.read_until_prompt()?;
        Ok(raw)
    }

    fn spawn(cmd: CommandBuilder) -> Result<Self> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 160,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| anyhow::anyhow!("openpty: {e}"))?;
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| anyhow::anyhow!("spawn: {e}"))?;
        drop(pair.slave);
        let killer = child.clone_killer();
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(|e| anyhow::anyhow!("reader: {e}"))?;
        let writer = pair
            .master
            .take_writer()
            .map_err(|e| anyhow::anyhow!("writer: {e}"))?;
        // Keep the master alive for the PTY's lifetime.
        std::mem::forget(pair.master);
        Ok(Self {
            _child: child,
            reader,
            writer,
            killer,
            seen: Vec::new(),
        })
    }

    /// Reads until `done(seen bytes)` holds; the seen bytes are then cleared.
    pub(crate) fn read_until(&mut self, done: impl Fn(&[u8]) -> bool) -> Result<()> {
        read_until(&mut self.reader, &mut self.seen, done)
    }

    pub(crate) fn read_until_prompt(&mut self) -> Result<()> {
        self.read_until(|s| s.windows(MARK.len()).any(|w| w == MARK) && s.ends_with(b"$ "))
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer.write_all(bytes).context("pty write")
    }

    /// Writes `command` + Enter and reads until the prompt marker, keeping only a bounded window
    /// of what was read (so a flood costs no memory); returns the time taken and the bytes read.
    pub(crate) fn run_counting(&mut self, command: &str) -> Result<(Duration, u64)> {
        /// Enough of the newest bytes to hold the marker and the prompt after it.
        const WINDOW: usize = 256;
        let start = Instant::now();
        self.write(format!("{command}\r").as_bytes())?;
        let mut total = 0u64;
        let mut buf = vec![0u8; 65536];
        loop {
            let n = self.reader.read(&mut buf).context("pty read")?;
            if n == 0 {
                bail!("raw PTY program exited");
            }
            total += n as u64;
            self.seen.extend_from_slice(&buf[..n]);
            if self.seen.len() > WINDOW {
                self.seen.drain(..self.seen.len() - WINDOW);
            }
            if self.seen.windows(MARK.len()).any(|w| w == MARK) && self.seen.ends_with(b"$ ") {
                self.seen.clear();
                return Ok((start.elapsed(), total));
            }
        }
    }

    /// Writes `input` and times until `done` holds.
    pub(crate) fn timed(&mut self, input: &[u8], done: impl Fn(&[u8]) -> bool) -> Result<Duration> {
        let start = Instant::now();
        self.write(input)?;
        self.read_until(done)?;
        Ok(start.elapsed())
    }
}

impl Drop for RawPty {
    fn drop(&mut self) {
        let _ = self.killer.kill();
    }
}

/// Reads `reader` into `seen` until `done(seen)` holds, then clears `seen`.
fn read_until(
    reader: &mut Box<dyn Read + Send>,
    seen: &mut Vec<u8>,
    done: impl Fn(&[u8]) -> bool,
) -> Result<()> {
    let mut buf = [0u8; 65536];
    while !done(seen) {
        let n = reader.read(&mut buf).context("pty read")?;
        if n == 0 {
            bail!("raw PTY program exited");
        }
        seen.extend_from_slice(&buf[..n]);
    }
    seen.clear();
    Ok(())
}

/// Writes `input` to every PTY in one burst from this thread, each PTY's reader already waiting
/// on a thread of its own, and returns for each the time from the start of the burst until
/// `done` holds for what it read: the same shape as many requests leaving an MCP client at
/// once, each timed from that moment.
pub(crate) fn all_at_once(
    raws: &mut [RawPty],
    input: &[u8],
    done: fn(&[u8]) -> bool,
) -> Result<Vec<Duration>> {
    let start = std::sync::OnceLock::<Instant>::new();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let mut writers = Vec::with_capacity(raws.len());
        let mut handles = Vec::with_capacity(raws.len());
        for raw in raws.iter_mut() {
            let RawPty {
                reader,
                writer,
                seen,
                killer,
                ..
            } = raw;
            writers.push((writer, killer));
            let (ready, start) = (ready_tx.clone(), &start);
            handles.push(s.spawn(move || {
                let _ = ready.send(());
                read_until(reader, seen, done)?;
                Ok(start.get().context("the burst started")?.elapsed())
            }));
        }
        for _ in 0..handles.len() {
            ready_rx.recv().context("a reader thread ended early")?;
        }
        let _ = start.set(Instant::now());
        let mut failed = None;
        for (writer, killer) in &mut writers {
            if let Err(e) = writer.write_all(input) {
                // Its reader would wait forever: end the program so it reads EOF.
                let _ = killer.kill();
                failed = Some(e);
            }
        }
        let times = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow::anyhow!("raw PTY thread panicked"))?
            })
            .collect::<Result<Vec<_>>>();
        match failed {
            Some(e) => Err(anyhow::Error::new(e).context("pty write")),
            None => times,
        }
    })
}

/// Whether `seen` ends with `tail`.
pub(crate) fn ends(tail: &'static [u8]) -> impl Fn(&[u8]) -> bool {
    move |s: &[u8]| s.ends_with(tail)
}

//! Terminal modes: the ones the host sets on a fresh PTY before its program starts, and the
//! facts it reads from them.

use std::os::fd::AsFd;

use rustix::termios::{
    InputModes, LocalModes, OptionalActions, OutputModes, Termios, tcgetattr, tcsetattr,
};

/// Sets the modes the host wants on the terminal whose master is `master` (Linux applies
/// termios calls on the master to the slave) before its program starts:
///
/// - Output flow control (`IXON`) off. With it on, a Ctrl-S typed to the shell or to a
///   program reading in canonical mode stops all output until a Ctrl-Q, so every later result
///   comes back empty while the program blocks writing; a model has no use for it. Programs
///   that want the key (an editor's "save") read it as a byte, as they do anyway in raw mode.
/// - UTF-8 input (`IUTF8`) on, as a UTF-8 terminal emulator sets it (sessions run a UTF-8
///   locale): the kernel's canonical-mode line editing then erases a whole multibyte
///   character per erase key. With it off, a backspace over `é` erased one byte of it, the
///   echo looked clean and the program read invalid UTF-8 (`caf\303e` for `café`, DEL, `e`).
///
/// The shell records these modes as the session's own at startup, so a program that changes
/// them (`stty sane`, `stty ixon`) has them set again at the next prompt. Best effort: a
/// failure leaves the kernel's defaults.
pub(super) fn set_session_modes(master: impl AsFd) {
    let fd = master.as_fd();
    let Ok(mut modes) = tcgetattr(fd) else {
        return;
    };
    let wanted = modes.input_modes.difference(InputModes::IXON) | InputModes::IUTF8;
    if wanted != modes.input_modes {
        modes.input_modes = wanted;
        if let Err(e) = tcsetattr(fd, OptionalActions::Now, &modes) {
            tracing::debug!(error = %e, "could not set the PTY's session modes");
        }
    }
}

/// Termios facts of the terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TtyModes {
    /// `ECHO`: the terminal echoes typed input.
    pub(crate) echo: bool,
    /// `ICANON`: line-buffered input (what password prompts keep; raw-mode programs clear it).
    pub(crate) canonical: bool,
    /// `ICRNL`: a typed carriage return arrives as a newline. Readline clears it (it tells
    /// the two keys apart); bash's builtin `read -n`/`-N` keeps it.
    pub(crate) maps_cr: bool,
    /// `IGNCR`: a typed carriage return is dropped.
    pub(crate) ignores_cr: bool,
    /// `OPOST`: output processing (a written newline starts a new row at its first column).
    /// Raw-mode programs clear it; cbreak-mode key readers keep it.
    pub(crate) output_processing: bool,
    /// `ISIG`: the interrupt, quit and suspend keys send signals. Raw mode (`setRawMode` in
    /// node, Python's `tty.setraw`) clears it; cbreak-mode key readers (`top`, `less`) keep it.
    pub(crate) signals: bool,
}

impl TtyModes {
    pub(super) fn of(t: &Termios) -> Self {
        Self {
            echo: t.local_modes.contains(LocalModes::ECHO),
            canonical: t.local_modes.contains(LocalModes::ICANON),
            maps_cr: t.input_modes.contains(InputModes::ICRNL),
            ignores_cr: t.input_modes.contains(InputModes::IGNCR),
            output_processing: t.output_modes.contains(OutputModes::OPOST),
            signals: t.local_modes.contains(LocalModes::ISIG),
        }
    }

    /// Whether a carriage return (the Enter key) ends no line, where a newline does:
    /// `IGNCR` on (the terminal drops every carriage return, whatever reads: `stty igncr`), or
    /// canonical mode with `ICRNL` off (`stty -icrnl`). A line editor takes a newline as Enter.
    pub(crate) fn cr_ends_no_line(self) -> bool {
        self.ignores_cr || (self.canonical && !self.maps_cr)
    }

    /// Whether the modes are readline's while it edits a line: non-canonical, no echo (it
    /// echoes itself), `ICRNL` off and output processing on. Bash's builtin `read -n`/`-N`/`-s`
    /// keeps `ICRNL` on, so a single-key prompt of the shell itself does not look like its
    /// line editor, nor does `stty raw` (output processing off too) with the shell's own
    /// subshell reading (`c=$(dd bs=1 count=1)`).
    pub(crate) fn line_editing(self) -> bool {
        !self.canonical && !self.echo && !self.maps_cr && self.output_processing
    }

    /// Whether the modes are GNU readline's (or editline's) while it edits a line:
    /// [`TtyModes::line_editing`] with the signal keys left on. Such an editor takes a
    /// bracketed paste as one line with the newlines in it (Python 3.7 and older, whose
    /// readline turns pastes on, then compile a pasted block as one line); the editors that
    /// take a paste as a block of lines turn the signal keys off (prompt_toolkit's, in
    /// IPython) or keep the carriage return mapping (Python 3.13's own REPL).
    pub(crate) fn readline_editing(self) -> bool {
        self.line_editing() && self.signals
    }

    /// Whether the modes are a key reader's (cbreak mode): no line editing, a carriage return
    /// still arriving as a newline, and the terminal echoing each key (`read -n 1`) or not
    /// (`read -s -n 1`, Python's `tty.setcbreak`) with output processing on. A line editor
    /// (readline, prompt_toolkit, linenoise) turns the carriage return mapping off; a raw-mode
    /// program (node, Python's own REPL) output processing too.
    pub(crate) fn single_keys(self) -> bool {
        !self.canonical && self.maps_cr && (self.echo || self.output_processing)
    }
}

//! The rc file bash reads at startup: prompt marks that survive the user's shell
//! configuration, the session's terminal modes restored at each prompt, quiet defaults.
//!
//! Design (direction "Where we go past the seed" 2, hardened against user configuration):
//! - The marks live in the prompt strings, which bash expands without running a command, so
//!   they never show under `set -x` and never trigger a user's DEBUG trap. `PS1` is
//!   `D;$?` + `A` + the prompt text + `B`. Bash restores `$?` after `PROMPT_COMMAND` runs, and
//!   the `D` mark is expanded first, so its status is the user's last command's, whatever a
//!   `PROMPT_COMMAND` hook or a command substitution in the user's `PS1` does. `PS0` starts
//!   with a `C` mark: bash prints it only before a command runs, so a prompt after an empty
//!   or comment-only line (whose `D` repeats the previous status) is not taken for a command.
//! - One hook, `__dsh_prompt`, runs from `PROMPT_COMMAND` as the array element after every
//!   other (bash 5.1+ runs each element), wrapped as `{ __dsh_prompt; } 3>&2 &>/dev/null` so
//!   that neither its `set -x` trace nor a user DEBUG trap firing for it reaches the screen
//!   (fd 3 is the shell's own stderr meanwhile). It
//!   runs at every prompt, so its usual case is one `/proc` read and three tests (bash spends
//!   microseconds per command it runs); only when something changed does `__dsh_settle`
//!   re-wrap whatever `PS0`/`PS1`/`PS2` the user (or an earlier hook) set in our marks (the
//!   user's prompt text is kept), re-enables `promptvars`, moves itself behind elements
//!   appended after it, and restores the terminal modes (`stty -g` at startup) when a program
//!   left them changed, and the window size when a program set another (`stty rows 60`: the
//!   emulator keeps the session's size); that prompt's `D` mark then carries `stty=restored`,
//!   for the result to say so. While the user's errexit (`set -e`) is on, each `D` mark
//!   carries `errexit`. It references no unset variable, runs with `set +euxTE` local to
//!   itself and returns 0, so it works under `set -euo pipefail`.
//! - Bash writes its prompts to its stderr. While that is not the terminal (`exec 2>file`),
//!   the hook sets the prompt strings to the user's text alone: no mark, and so no nonce,
//!   lands in the file; the marks are back at the first prompt after stderr is.
//! - `PS0` and `PS1` re-install the hook (a `${…:=…}` expansion that prints nothing) when a
//!   command replaced or unset `PROMPT_COMMAND`, so the marks are back at the next prompt even
//!   after `unset PROMPT_COMMAND; PS1='$ '`.
//! - When one command replaced `PS0`, `PS1` and `PROMPT_COMMAND` together, nothing of ours is
//!   expanded any more. The rc binds [`REPAIR_KEYS`] (an unused key sequence) in every
//!   readline keymap to `__dsh_settle`, and the host types them ahead of the next send when it
//!   sees our shell reading at its line editor with no prompt mark: the hook and the marks are
//!   back before that command runs (readline only redraws the line it shows).
//! - `ignoreeof` is on: a Ctrl-D (end of input) that reaches the shell's empty prompt, one
//!   more than a program needed or one sent by mistake, prints bash's `Use "exit" to leave
//!   the shell.` instead of ending the session and everything its shell holds (variables,
//!   the working directory, jobs); `exit` still ends it.
//! - The `D` mark is followed by resets of the display state a program may leave behind that
//!   would garble every later result, as a careful shell setup does: ASCII designated into G0
//!   and shifted in (a log with a stray `ESC ( 0` turned later text into line drawing),
//!   auto-wrap on (`ESC [ ? 7 l` cut later lines at the right edge), insert mode off, and the
//!   character attributes reset (`ESC [ 0 m`: a program that left the hidden attribute, SGR 8,
//!   on blanked every later line, the prompt and the echoed commands too). None
//!   moves the cursor (resetting a scroll region would: it homes the cursor, and the screen
//!   forgets the TABs of every row when a region changes).
//! - Under `set -v` bash echoes the hook's command line before every prompt: the prompt then
//!   erases it (cursor up, erase line) right after its `D` mark, so results show the user's
//!   lines only, and the erase comes once the command has ended (before the mark, it was
//!   taken for the command erasing a line it printed, and the notice quoted the hook).
//! - The rc binds [`CLEAR_LINE_KEYS`] to readline's `kill-whole-line` in every keymap: the
//!   host types them ahead of each send at the shell's own prompt, so text no send typed
//!   (pushed into the terminal's input by a program) never runs joined to the send's text;
//!   on an empty line they do nothing. [`EDITOR_RESET_KEYS`] are bound to `abort` (emacs, vi
//!   insert, and after the emacs `Ctrl-X` prefix) and to `vi-insertion-mode` (vi command):
//!   typed ahead of a command after a send that left its line unended, they end a pending
//!   numeric argument, prefix or vi command mode and keep the line.
//! - Every mark carries the per-session nonce; a program that prints look-alike marks cannot
//!   fake completion. The nonce lives only in this file and in an unexported, read-only shell
//!   variable (`__dsh_n`) that the prompt strings name and bash expands as it prints them, so
//!   child processes never inherit it, even from a prompt string someone exports (a venv's
//!   `activate` exports `PS1`); the hook also takes the export flag off `PS0`, `PS1` and `PS2`
//!   at every prompt. The file is 0600, and the rc deletes it first thing
//!   (bash has read it whole by then), so no command of the session ever sees it; inside a
//!   sandbox that deletes the session's private copy. The host's copy is removed after
//!   startup in any case.
//! - Bash's option variables from the environment (`SHELLOPTS`, `BASHOPTS`,
//!   `POSIXLY_CORRECT`) reach the shell as `DSH_RC_<name>` (bash would apply them before
//!   reading this file, and in POSIX mode not read it at all); the last step here applies
//!   them, quietly (an `xtrace` turned on traces nothing of ours), and exports them again.
//! - Quiet, predictable input: bracketed paste off (when readline is active), TAB inserts
//!   itself instead of completing (a sent TAB, e.g. in a Makefile heredoc, arrives as a TAB
//!   and never opens a completion listing), history expansion off (`set +H`: `!` in commands
//!   is literal), no history file. The terminal's flow control is off, so Ctrl-S is
//!   readline's forward history search, as in a terminal with `stty -ixon`.
//! - A read-only home (a confined session's) gets vim without its viminfo file: vim could not
//!   write `~/.viminfo` and stopped at a "Press ENTER" prompt (E138) on every exit, taking
//!   the next command typed as its answer. `VIMINIT` then loads what vim would have loaded
//!   (`~/.vimrc`, else `~/.vim/vimrc`, else vim's `defaults.vim`) and sets `viminfo` empty
//!   and `viminfofile` to `NONE` where vim has it (`set nocompatible`, in a vimrc read later
//!   or given with `-c`, puts `viminfo` back to its default);
//!   a `VIMINIT` already set is kept.

use std::io::{self, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use dsh_terminal_core::PromptNonce;

/// The key sequence bound to the marks' repair (`ESC [ 2024 ~`, a function-key form no
/// terminal sends), typed by the host ahead of a send when our shell reads at its line editor
/// with its prompt marks gone.
pub const REPAIR_KEYS: &[u8] = b"\x1b[2024~";

/// The key sequence the rc binds to readline's `kill-whole-line` in every keymap (emacs, vi
/// insert and command), unused by terminals: the host types it to empty the input line of
/// text no send typed (see `PtySpawnSpec::clear_line_keys`).
pub const CLEAR_LINE_KEYS: &[u8] = b"\x1b[2025~";

/// The key sequence bound to readline's `abort` in the emacs and vi insert keymaps (also
/// after the emacs `Ctrl-X` prefix) and to `vi-append-eol` in the vi command keymap: it
/// ends a pending command (a numeric argument, a prefix, vi command mode) and leaves the line
/// as it is, the next text going after it (in vi, as `A` does: ESC put the cursor on the
/// line's last character; see `PtySpawnSpec::editor_reset_keys`).
pub const EDITOR_RESET_KEYS: &[u8] = b"\x1b[2026~";

/// The rc template; `@NONCE@` is replaced by the session's nonce, `@ROWS@` and `@COLS@` by
/// its terminal size.
const RC_TEMPLATE: &str = r#"# dsh-terminal-bash rc: generated for one session and deleted once the shell has read it.
command rm -f -- "${BASH_SOURCE[0]}" 2>/dev/null
set +H 2>/dev/null
set -o ignoreeof 2>/dev/null
unset HISTFILE
if [[ ! -w ${HOME:-/} && -z ${VIMINIT+set} ]]; then
  export VIMINIT="if filereadable(expand('~/.vimrc')) | source ~/.vimrc | elseif filereadable(expand('~/.vim/vimrc')) | source ~/.vim/vimrc | elseif filereadable(expand('\$VIMRUNTIME/defaults.vim')) | source \$VIMRUNTIME/defaults.vim | endif | set viminfo= | if exists('+viminfofile') | set viminfofile=NONE | endif"
fi
if [[ -o emacs || -o vi ]]; then
  bind 'set enable-bracketed-paste off' 2>/dev/null
  bind -m emacs '"\C-i": self-insert' 2>/dev/null
  bind -m vi-insert '"\C-i": self-insert' 2>/dev/null
  for __dsh_m in emacs vi-insert vi-command; do
    bind -m "$__dsh_m" -x '"\e[2024~": __dsh_repair' 2>/dev/null
    bind -m "$__dsh_m" '"\e[2025~": kill-whole-line' 2>/dev/null
  done
  bind -m emacs '"\e[2026~": abort' 2>/dev/null
  bind -m emacs '"\C-x\e[2026~": abort' 2>/dev/null
  bind -m vi-insert '"\e[2026~": abort' 2>/dev/null
  bind -m vi-command '"\e[2026~": vi-append-eol' 2>/dev/null
  unset __dsh_m
fi
__dsh_e=
__dsh_r=
__dsh_ps0=
__dsh_ps1=
__dsh_ps2=
__dsh_v=
__dsh_t=
__dsh_i=999
if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] < 501)); then __dsh_i=0; fi
__dsh_hook='{ __dsh_prompt; } 3>&2 &>/dev/null'
# The prompt strings put the hook back into PROMPT_COMMAND when a command removed it, unless
# PROMPT_COMMAND was made readonly or given another attribute than array or export: an
# assignment to it that fails while bash expands a prompt string crashes bash, or repeats
# the error forever (`readonly PROMPT_COMMAND`, `declare -i PROMPT_COMMAND=1`, and so with no
# value after an `unset`). The attributes of one with no value are read as `[*]@a`, which
# `set -u` allows; what the expansion yields is a pattern for the empty __dsh_e, so only the
# assignment in it counts.
declare -A __dsh_pc_ok=([x]=1 [xa]=1 [xx]=1 [xax]=1)
__dsh_keep='${__dsh_e/${__dsh_pc_ok[x${PROMPT_COMMAND[*]+${PROMPT_COMMAND@a}}]:+${PROMPT_COMMAND[*]-${__dsh_pc_ok[x${PROMPT_COMMAND[*]@a}]:+${PROMPT_COMMAND[__dsh_i]:=$__dsh_hook}}}${PROMPT_COMMAND[*]+${PROMPT_COMMAND[__dsh_i]:=$__dsh_hook}}}/}'
# The nonce stays in this unexported variable: the prompt strings name it, and bash expands
# it as it prints them, so a prompt string someone exports (a venv's `activate`) hands no
# child process the nonce itself.
declare -r __dsh_n=@NONCE@
__dsh_d='\[\033]133;D;$?;dsh=${__dsh_n};n=\#${__dsh_t}\007${__dsh_v}\033(B\017\033[?7h\033[4l\033[0m\]'
__dsh_a='\[\033]133;A;dsh=${__dsh_n};n=\#\007\]'
__dsh_b='\[\033]133;B;dsh=${__dsh_n};n=\#\007\]'
__dsh_a2='\[\033]133;A;k=s;dsh=${__dsh_n};n=\#\007\]'
__dsh_b2='\[\033]133;B;k=s;dsh=${__dsh_n};n=\#\007\]'
__dsh_c='\033]133;C;dsh=${__dsh_n};n=\#\007'
# stty by its path, found now: a user function named `command` (or `stty`) cannot stand in.
__dsh_stty_bin=
if hash stty 2>/dev/null; then __dsh_stty_bin=${BASH_CMDS[stty]-}; fi
__dsh_stty=
# The session's terminal size, set back at the prompt when a program changed it.
__dsh_rows=@ROWS@
__dsh_cols=@COLS@
if [[ -n $__dsh_stty_bin ]]; then __dsh_stty=$("$__dsh_stty_bin" -g 2>/dev/null) || __dsh_stty=; fi
# The shell's pids cgroup directory (v1 `pids` or v2), found with builtins only: while it is at
# its cap, a fork would stall in bash's retries (about 15 s) and then abandon the hook.
__dsh_pids=
while IFS=: builtin read -r __dsh_x __dsh_sc __dsh_r; do
  if [[ $__dsh_sc == pids || -z $__dsh_sc ]]; then
    for __dsh_m in "/sys/fs/cgroup/pids$__dsh_r" "/sys/fs/cgroup$__dsh_r" "/sys/fs/cgroup/unified$__dsh_r"; do
      if [[ -z $__dsh_pids && -r $__dsh_m/pids.max && -r $__dsh_m/pids.current ]]; then __dsh_pids=$__dsh_m; fi
    done
  fi
done </proc/self/cgroup 2>/dev/null
unset __dsh_m
# Whether the hook may start a process: not when the user's command line could not fork (its
# status is then 254) nor while the session's pids cgroup is at its cap.
__dsh_can_fork() {
  [[ $__dsh_s != 254 ]] || builtin return 1
  [[ -n $__dsh_pids ]] || builtin return 0
  builtin local cur max
  builtin read -r cur <"$__dsh_pids/pids.current" && builtin read -r max <"$__dsh_pids/pids.max" ||
    builtin return 0
  [[ $max == max ]] || ((cur < max))
}
__dsh_strip() {
  builtin local p="$1"
  p=${p//"$__dsh_d"/}; p=${p//"$__dsh_a"/}; p=${p//"$__dsh_b"/}
  p=${p//"$__dsh_a2"/}; p=${p//"$__dsh_b2"/}; p=${p//"$__dsh_c"/}; p=${p//"$__dsh_keep"/}
  __dsh_r=$p
}
__dsh_faults=
__dsh_sc=
__dsh_sf=
__dsh_x=
__dsh_s=0
# Whether a child was waited for since the last call: cminflt (page faults of waited-for
# children), the 9th field after the command name in /proc/$$/stat, changed. One `read` splits
# the line into globals (declaring locals costs bash more than the read): __dsh_sc is the
# name, __dsh_sf cminflt. A name with a space in it would shift the fields: it does not end
# in `)` then, and counts as a child having run.
__dsh_children_ran() {
  IFS=' ' builtin read -r __dsh_x __dsh_sc __dsh_x __dsh_x __dsh_x __dsh_x __dsh_x __dsh_x \
    __dsh_x __dsh_x __dsh_sf __dsh_x </proc/$$/stat 2>/dev/null && [[ $__dsh_sc == *')' ]] ||
    builtin return 0
  [[ $__dsh_sf != "$__dsh_faults" ]] || builtin return 1
  __dsh_faults=$__dsh_sf
  builtin return 0
}
# What the hook's usual case compares, joined by a separator no prompt string holds: the
# export flags of PS0, PS1 and PS2 (none), the shell options (promptvars on), the prompt
# strings, the hook (still the last element, its indices those __dsh_settle left) and the
# command name and cminflt (see __dsh_children_ran). Recorded by __dsh_settle once it has
# put everything right; empty (so every prompt takes the slow path) while a prompt must
# differ from the next (`set -v`'s erase, a terminal-modes notice), while stderr is not the
# terminal, before bash 5.1 (PROMPT_COMMAND is no array there) and when the command name
# cannot be read.
__dsh_sep=$'\x1f'
__dsh_state=
__dsh_now() {
  __dsh_r=${PS1@a}${PS0@a}${PS2@a}$__dsh_sep$BASHOPTS$__dsh_sep${PS1-}$__dsh_sep${PS2-}$__dsh_sep${PS0-}$__dsh_sep${PROMPT_COMMAND[__dsh_i]-}$__dsh_sep${!PROMPT_COMMAND[*]}$__dsh_sep$__dsh_sc$__dsh_sf
}
# The hook. Its usual case is one `/proc` read and three tests, and runs no other command
# (bash interprets every command it runs, and copies a function's body at each call, so
# fewer and shorter is cheaper; its errors go where the hook's output goes, to /dev/null,
# with no redirection of their own): no option it would undo is set (checked first, so a
# `set -x` trace sent elsewhere by BASH_XTRACEFD stays short), stderr is the terminal, and
# nothing __dsh_state records changed, so in particular no child was waited for since the
# last prompt (no program can have left the terminal modes changed) and no prompt string
# was exported: a script sourced into the shell that exports PS1 (a Python venv's
# `activate`) would hand the nonce to every later child process, which could then fake a
# mark. Anything else goes to __dsh_settle. The line compared is __dsh_now's, written out
# here (a call would cost as much again). Builtins are called as `builtin`, and stty by the
# path found at startup, so that user functions of the same names (`shopt() { :; }`,
# `command() { …; }`) cannot stand in for them (a function named `builtin` still can).
__dsh_prompt() {
  # After a fork the session's process cap refused (the user's status is then 254), bash 5.2
  # waits, after the next simple command it runs (this hook's first), for the last child it
  # made: a background job still running kept the shell from its prompt for as long. A stop
  # and a continue of that job (`$!`) end the wait, and the job runs on (measured: no notice).
  # Only tests come before them (any simple command would start that wait), so the cap cannot
  # be read here: a session with a process cap whose command exits 254 for another reason
  # also gets its last background job stopped and continued (one the user stopped runs on).
  if [[ $((__dsh_s = $?)) == 254 && -n $__dsh_pids && -n $! && -d /proc/$! ]]; then
    builtin kill -STOP -- "$!"
    builtin kill -CONT -- "$!"
  elif [[ $- != *[euxv]* && ! -o pipefail && -t 3 && -n $__dsh_state ]] && { [[ -z $__dsh_stty ]] ||
    IFS=' ' builtin read -r __dsh_x __dsh_sc __dsh_x __dsh_x __dsh_x __dsh_x __dsh_x __dsh_x \
      __dsh_x __dsh_x __dsh_sf __dsh_x </proc/$$/stat; } &&
    [[ ${PS1@a}${PS0@a}${PS2@a}$__dsh_sep$BASHOPTS$__dsh_sep${PS1-}$__dsh_sep${PS2-}$__dsh_sep${PS0-}$__dsh_sep${PROMPT_COMMAND[__dsh_i]-}$__dsh_sep${!PROMPT_COMMAND[*]}$__dsh_sep$__dsh_sc$__dsh_sf == "$__dsh_state" ]]; then
    builtin return 0
  fi
  __dsh_settle "$SHELLOPTS"
}
# Bound to the repair keys (see `REPAIR_KEYS`): the host types them at our line editor when
# the prompt marks are gone (one command replaced PS0, PS1 and PROMPT_COMMAND together).
# PS0 stays as it is until the next prompt's hook: bash took PS0's value for the line being
# read when it printed the prompt, and expands it at Enter, so assigning PS0 now would free
# the string it holds (the line's command start then goes unmarked; `__dsh_state` stays
# empty, so the next prompt's hook puts PS0 right).
__dsh_repairing=
__dsh_repair() { __dsh_repairing=1; __dsh_settle "$SHELLOPTS"; __dsh_repairing=; } 3>&2 &>/dev/null
# Its argument is the shell's SHELLOPTS as the caller saw it (this turns options off first).
__dsh_settle() {
  builtin local -
  # Off also: trap inheritance (`set -T`/`-E`), which would run a user's DEBUG or ERR trap in
  # the command substitution below, its output taken for the terminal modes.
  builtin set +euxTE +o pipefail
  # Under `set -v` bash echoes the hook's command line before each prompt: the prompt erases
  # that line (cursor up, erase line) after its `D` mark.
  if [[ $- == *v* ]]; then __dsh_v=$'\e[A\e[2K'; else __dsh_v=; fi
  # The user's errexit (`set -e`) goes on this prompt's `D` mark: a command that fails now
  # ends the session's shell, and the result says so when it was turned on. By its name (a
  # pattern on `$-` takes errtrace's `E` for its `e` under nocasematch).
  __dsh_t=
  if [[ :${1-}: == *:errexit:* ]]; then __dsh_t=';errexit'; fi
  builtin export -n PS0 PS1 PS2
  builtin shopt -s promptvars
  builtin local held=
  if [[ -n $__dsh_stty ]] && ! __dsh_can_fork; then
    # Checked at a later prompt (this one records no state, so the next takes this path).
    held=1
  elif [[ -n $__dsh_stty ]] && __dsh_children_ran; then
    builtin local now
    now=$("$__dsh_stty_bin" -g 2>/dev/null) || now=
    if [[ -n $now && $now != "$__dsh_stty" ]]; then
      "$__dsh_stty_bin" "$__dsh_stty" 2>/dev/null
      # This prompt's `D` mark says so (the next prompt takes the slow path to drop it).
      __dsh_t+=';stty=restored'
    fi
    # The window size too (bash's checkwinsize keeps LINES and COLUMNS current after each
    # program): the terminal's emulator keeps the session's size, so a program that drew for
    # another (`stty rows 60`, then `less`) would be shown wrong.
    if [[ ${LINES-$__dsh_rows} != "$__dsh_rows" || ${COLUMNS-$__dsh_cols} != "$__dsh_cols" ]]; then
      "$__dsh_stty_bin" rows "$__dsh_rows" cols "$__dsh_cols" 2>/dev/null
      LINES=$__dsh_rows
      COLUMNS=$__dsh_cols
      if [[ $__dsh_t != *stty=restored* ]]; then __dsh_t+=';stty=restored'; fi
    fi
    __dsh_children_ran
  fi
  if [[ ! -t 3 ]]; then
    # The shell's stderr (fd 3 here) is not the terminal (`exec 2>file`): bash writes its
    # prompts there, so they go without our marks, which carry the nonce, until it is back.
    __dsh_strip "${PS1-}"; PS1=$__dsh_r; __dsh_ps1=
    __dsh_strip "${PS2-}"; PS2=$__dsh_r; __dsh_ps2=
    if [[ -z $__dsh_repairing ]]; then __dsh_strip "${PS0-}"; PS0=$__dsh_r; __dsh_ps0=; fi
    __dsh_state=
    builtin return 0
  fi
  # A PROMPT_COMMAND made readonly or integer (also one with no value) is left as it is: an
  # assignment to it would abort this function before the prompt strings are put right.
  if [[ ${PROMPT_COMMAND[*]@a} == *[ri]* ]]; then
    :
  elif ((__dsh_i > 0)); then
    builtin local -a at
    at=(-1 "${!PROMPT_COMMAND[@]}")
    if [[ ${PROMPT_COMMAND[__dsh_i]-} != "$__dsh_hook" || ${at[-1]} != "$__dsh_i" ]]; then
      if [[ ${PROMPT_COMMAND[__dsh_i]-} == "$__dsh_hook" ]]; then builtin unset 'PROMPT_COMMAND[__dsh_i]'; fi
      __dsh_i=$((at[-1] < 999 ? 999 : at[-1] + 1))
      PROMPT_COMMAND[__dsh_i]=$__dsh_hook
    fi
  elif [[ ${PROMPT_COMMAND-} != *"$__dsh_hook"* ]]; then
    PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND
}$__dsh_hook"
  fi
  if [[ -z $__dsh_ps1 || ${PS1-} != "$__dsh_ps1" ]]; then
    __dsh_strip "${PS1-}"
    __dsh_ps1=$__dsh_d$__dsh_keep$__dsh_a$__dsh_r$__dsh_b
    PS1=$__dsh_ps1
  fi
  if [[ -z $__dsh_ps2 || ${PS2-} != "$__dsh_ps2" ]]; then
    __dsh_strip "${PS2-}"
    __dsh_ps2=$__dsh_a2$__dsh_r$__dsh_b2
    PS2=$__dsh_ps2
  fi
  if [[ -z $__dsh_repairing ]] && [[ -z $__dsh_ps0 || ${PS0-} != "$__dsh_ps0" ]]; then
    __dsh_strip "${PS0-}"
    __dsh_ps0=$__dsh_c$__dsh_keep$__dsh_r
    PS0=$__dsh_ps0
  fi
  __dsh_state=
  if ((__dsh_i > 0)) && [[ -z $__dsh_v$__dsh_t$__dsh_repairing$held && ( -z $__dsh_stty || $__dsh_sc == *')' ) ]]; then
    __dsh_now
    __dsh_state=$__dsh_r
  fi
  builtin return 0
}
unset PROMPT_COMMAND
PS0=
PS1='dsh> '
PS2='> '
__dsh_children_ran
{ __dsh_prompt; } 3>&2
{
  if [[ -n ${DSH_RC_BASHOPTS+set} ]]; then
    IFS=: read -ra __dsh_o <<< "$DSH_RC_BASHOPTS"
    builtin shopt -s "${__dsh_o[@]}"
    export BASHOPTS
  fi
  if [[ -n ${DSH_RC_SHELLOPTS+set} ]]; then
    IFS=: read -ra __dsh_o <<< "$DSH_RC_SHELLOPTS"
    for __dsh_m in "${__dsh_o[@]}"; do builtin set -o "$__dsh_m"; done
    export SHELLOPTS
  fi
  if [[ -n ${DSH_RC_POSIXLY_CORRECT+set} ]]; then
    export POSIXLY_CORRECT=$DSH_RC_POSIXLY_CORRECT
  fi
  unset DSH_RC_BASHOPTS DSH_RC_SHELLOPTS DSH_RC_POSIXLY_CORRECT __dsh_o __dsh_m
} &>/dev/null
"#;

/// The rc script for `nonce` and a terminal of `rows` by `cols` cells (the size the shell
/// sets back at its prompt when a program changed it).
pub fn rc_script(nonce: &PromptNonce, rows: u16, cols: u16) -> String {
    RC_TEMPLATE
        .replace("@NONCE@", nonce.as_str())
        .replace("@ROWS@", &rows.to_string())
        .replace("@COLS@", &cols.to_string())
}

/// The rc file on disk: created with mode 0600 in the temp directory (or `/tmp`, see
/// [`RcFile::create`]), removed on drop, and by the host watchdog if the host dies first.
#[derive(Debug)]
pub struct RcFile {
    path: PathBuf,
}

/// The directory tried when the temp directory cannot take the rc file.
const FALLBACK_DIR: &str = "/tmp";

impl RcFile {
    /// Writes [`rc_script`] for `nonce`, `rows` and `cols` to a new private file named
    /// `dsh-bash-rc-<16 hex digits>.bash` in [`std::env::temp_dir`] (`$TMPDIR`, else `/tmp`),
    /// or in `/tmp` when that fails (a `TMPDIR` that does not exist or is not writable).
    ///
    /// # Errors
    /// The file can be created and written in neither directory; the message names each
    /// directory tried with its error (see [`RcFile::create_in`]).
    pub fn create(nonce: &PromptNonce, rows: u16, cols: u16) -> io::Result<Self> {
        let temp = std::env::temp_dir();
        let mut dirs = vec![temp.clone()];
        if temp != Path::new(FALLBACK_DIR) {
            dirs.push(PathBuf::from(FALLBACK_DIR));
        }
        Self::create_in(nonce, rows, cols, &dirs)
    }

    /// [`RcFile::create`] in the first of `dirs`, in order, where the file can be created and
    /// written (a partly written file is removed before the next is tried).
    ///
    /// # Errors
    /// It fails in every directory (or `dirs` is empty): the error has the kind of the last
    /// failure and a message listing each directory with its error, as
    /// `in /nonexistent: No such file or directory (os error 2); in /tmp: …`.
    pub fn create_in(
        nonce: &PromptNonce,
        rows: u16,
        cols: u16,
        dirs: &[PathBuf],
    ) -> io::Result<Self> {
        let mut failures = Vec::new();
        let mut kind = io::ErrorKind::NotFound;
        for (i, dir) in dirs.iter().enumerate() {
            match Self::create_one(nonce, rows, cols, dir) {
                Ok(rc) => {
                    if i > 0 {
                        warn_fallback_once(&dirs[0], dir, &failures);
                    }
                    return Ok(rc);
                }
                Err(err) => {
                    kind = err.kind();
                    failures.push(format!("in {}: {err}", dir.display()));
                }
            }
        }
        if failures.is_empty() {
            failures.push("no directory to write it in".to_owned());
        }
        Err(io::Error::new(kind, failures.join("; ")))
    }

    fn create_one(nonce: &PromptNonce, rows: u16, cols: u16, dir: &Path) -> io::Result<Self> {
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).map_err(|e| io::Error::other(e.to_string()))?;
        let name: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        let path = dir.join(format!("dsh-bash-rc-{name}.bash"));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        // From here on, dropping `rc` removes the file (also a partly written one), and the
        // host watchdog removes it if the host dies first (a SIGKILL while the shell starts).
        dsh_terminal_core::process::watch_file(&path);
        let rc = Self { path };
        // No sync: the shell reads it through the page cache, and it is never needed after
        // a crash.
        file.write_all(rc_script(nonce, rows, cols).as_bytes())?;
        Ok(rc)
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RcFile {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_file(&self.path)
            && err.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(%err, path = %self.path.display(), "cannot remove the bash rc file");
        }
        dsh_terminal_core::process::unwatch_file(&self.path);
    }
}

/// Logs, once per process, that the rc file went to `used` because `first` failed.
fn warn_fallback_once(first: &Path, used: &Path, failures: &[String]) {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            temp_dir = %first.display(),
            used = %used.display(),
            errors = %failures.join("; "),
            "cannot write the bash rc file in the temp directory (is TMPDIR a writable directory?); writing it elsewhere"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn nonce() -> PromptNonce {
        PromptNonce::from_hex("00112233445566778899aabbccddeeff")
            .unwrap_or_else(|| panic!("valid nonce"))
    }

    #[test]
    fn script_shape() {
        insta::assert_snapshot!(rc_script(&nonce(), 40, 160));
    }

    #[test]
    fn file_is_private_and_removed_on_drop() {
        let rc = RcFile::create(&nonce(), 40, 160).unwrap_or_else(|e| panic!("{e}"));
        let path = rc.path().to_path_buf();
        let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(text.contains("__dsh_n=00112233445566778899aabbccddeeff"));
        // Nothing of ours is exported: the exports in the code take the flag off, give vim
        // its settings, or restore bash's option variables (meant for the session's
        // programs).
        assert!(
            text.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .all(|l| !l.contains("export")
                    || l.contains("export -n")
                    || [
                        "export VIMINIT=",
                        "export BASHOPTS",
                        "export SHELLOPTS",
                        "export POSIXLY_CORRECT="
                    ]
                    .iter()
                    .any(|e| l.trim_start().starts_with(e))),
            "{text}"
        );
        drop(rc);
        assert!(!path.exists());
    }

    #[test]
    fn a_missing_or_unwritable_directory_falls_back_to_the_next() {
        let base = std::env::temp_dir().join(format!(
            "dsh-rc-fallback-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let missing = base.join("missing");
        let good = base.join("good");
        std::fs::create_dir_all(&good).unwrap_or_else(|e| panic!("{e}"));
        let rc = RcFile::create_in(&nonce(), 40, 160, &[missing.clone(), good.clone()])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rc.path().parent(), Some(good.as_path()));
        assert!(rc.path().is_file());
        assert!(!missing.exists());
        let path = rc.path().to_path_buf();
        drop(rc);
        assert!(!path.exists());

        // Both failing: the error names each directory with its own error.
        let file = base.join("a-file");
        std::fs::write(&file, "").unwrap_or_else(|e| panic!("{e}"));
        let err = RcFile::create_in(&nonce(), 40, 160, &[missing.clone(), file.clone()])
            .map(|rc| rc.path().to_path_buf())
            .err()
            .unwrap_or_else(|| panic!("created in neither directory"));
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("in {}: ", missing.display()))
                && message.contains(&format!("; in {}: ", file.display())),
            "{message}"
        );
        let err = RcFile::create_in(&nonce(), 40, 160, &[])
            .err()
            .unwrap_or_else(|| panic!("created with no directory"));
        assert_eq!(err.to_string(), "no directory to write it in");
        std::fs::remove_dir_all(&base).unwrap_or_else(|e| panic!("{e}"));
    }
}

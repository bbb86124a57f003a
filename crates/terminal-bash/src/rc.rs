//! The rc file bash reads at startup: prompt marks, PS1 self-healing, quiet defaults.
//!
//! Design (direction "Where we go past the seed" 2):
//! - `PROMPT_COMMAND` runs `__dsh_prompt`, which first captures `$?`, prints the
//!   command-finished mark `OSC 133;D;<status>;dsh=<nonce>`, and re-asserts `PS1`/`PS2`, so an
//!   in-shell `PS1=...` lasts zero prompts. It references no unset variable and returns 0, so
//!   it works under `set -euo pipefail`; under `set -x` it turns tracing off for its own body.
//! - `PS1` is `dsh> ` wrapped in the prompt-start and prompt-end marks (`133;A`, `133;B`);
//!   `PS2` is `> ` wrapped in continuation marks (`133;A;k=s`, `133;B;k=s`). The marks sit
//!   inside `\[ \]` so readline does not count them as visible width.
//! - Every mark carries the per-session nonce; a program that prints look-alike marks cannot
//!   fake completion. The nonce lives only in this (0600, deleted after startup) file and in
//!   unexported shell state, so child processes do not inherit it.
//! - Quiet, predictable input: bracketed paste off (when readline is active), history
//!   expansion off (`set +H`: `!` in commands is literal), no history file.

use std::io::{self, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use dsh_terminal_core::PromptNonce;

/// The rc script for `nonce`.
pub fn rc_script(nonce: &PromptNonce) -> String {
    let n = nonce.as_str();
    let ps1 = format!(r"\[\033]133;A;dsh={n}\007\]dsh> \[\033]133;B;dsh={n}\007\]");
    let ps2 = format!(r"\[\033]133;A;k=s;dsh={n}\007\]> \[\033]133;B;k=s;dsh={n}\007\]");
    format!(
        r#"# dsh-terminal-bash rc: generated for one session and deleted once the shell has read it.
set +H 2>/dev/null
unset HISTFILE
if [[ -o emacs || -o vi ]]; then
  bind 'set enable-bracketed-paste off' 2>/dev/null
fi
__dsh_prompt() {{
  local __dsh_status=$?
  [[ $- == *x* ]] && {{ local -; set +x; }} 2>/dev/null
  builtin printf '\033]133;D;%s;dsh={n}\007' "$__dsh_status"
  PS1='{ps1}'
  PS2='{ps2}'
  return 0
}}
PROMPT_COMMAND=__dsh_prompt
PS1='{ps1}'
PS2='{ps2}'
"#
    )
}

/// The rc file on disk: created with mode 0600 in the temp directory, removed on drop.
#[derive(Debug)]
pub struct RcFile {
    path: PathBuf,
}

impl RcFile {
    /// Writes [`rc_script`] for `nonce` to a new private file.
    ///
    /// # Errors
    /// The file cannot be created or written.
    pub fn create(nonce: &PromptNonce) -> io::Result<Self> {
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).map_err(|e| io::Error::other(e.to_string()))?;
        let name: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        let path = std::env::temp_dir().join(format!("dsh-bash-rc-{name}.bash"));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        let rc = Self { path };
        file.write_all(rc_script(nonce).as_bytes())?;
        file.sync_all()?;
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
        insta::assert_snapshot!(rc_script(&nonce()));
    }

    #[test]
    fn file_is_private_and_removed_on_drop() {
        let rc = RcFile::create(&nonce()).unwrap_or_else(|e| panic!("{e}"));
        let path = rc.path().to_path_buf();
        let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(text.contains("dsh=00112233445566778899aabbccddeeff"));
        assert!(!text.contains("export"), "nothing of ours is exported");
        drop(rc);
        assert!(!path.exists());
    }
}

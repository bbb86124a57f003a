//! Bash's option variables (`SHELLOPTS`, `BASHOPTS`, `POSIXLY_CORRECT`), held back from the
//! shell's start and applied at the end of the rc.
//!
//! Bash turns these on before it reads any startup file: `POSIXLY_CORRECT` (or `posix` in
//! `SHELLOPTS`) makes an interactive bash skip `--rcfile` altogether, leaving the session
//! without prompt marks; `xtrace` or `verbose` print the rc (and its nonce) into the first
//! result; `nounset` and `errexit` make it fail half-way. So the shell starts without them,
//! under `DSH_RC_<name>` instead, and the rc sets them as its last step (then exports them
//! again, as bash would, and unsets the `DSH_RC_` copies): the session runs with the options
//! the environment asked for, and the marks are in place.

use std::ffi::OsString;

/// The variables held back, each applied by the rc from `DSH_RC_<name>`.
pub(crate) const HELD_BACK: [&str; 3] = ["SHELLOPTS", "BASHOPTS", "POSIXLY_CORRECT"];

/// The name a held-back variable has in the shell's start environment.
fn held_name(name: &str) -> String {
    format!("DSH_RC_{name}")
}

/// Renames every [`HELD_BACK`] variable in `env` to its `DSH_RC_` name.
pub(crate) fn hold_back(env: &mut [(OsString, OsString)]) {
    for (k, _) in env.iter_mut() {
        if let Some(name) = HELD_BACK.iter().find(|n| k == *n) {
            *k = held_name(name).into();
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn the_rc_applies_every_held_back_variable() {
        let nonce = dsh_terminal_core::PromptNonce::from_hex("00112233445566778899aabbccddeeff")
            .unwrap_or_else(|| panic!("valid nonce"));
        let rc = crate::rc::rc_script(&nonce, 40, 160);
        for name in HELD_BACK {
            assert!(rc.contains(&held_name(name)), "{name}");
        }
    }

    #[test]
    fn held_back_variables_are_renamed_and_others_kept() {
        let mut env: Vec<(OsString, OsString)> = [
            ("PATH", "/usr/bin"),
            ("SHELLOPTS", "xtrace:errexit"),
            ("POSIXLY_CORRECT", "1"),
            ("BASHOPTS", "extglob"),
        ]
        .iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
        hold_back(&mut env);
        let names: Vec<_> = env
            .iter()
            .map(|(k, v)| (k.to_str().unwrap(), v.to_str().unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                ("PATH", "/usr/bin"),
                ("DSH_RC_SHELLOPTS", "xtrace:errexit"),
                ("DSH_RC_POSIXLY_CORRECT", "1"),
                ("DSH_RC_BASHOPTS", "extglob"),
            ]
        );
    }
}

//! The shell's environment (seed-contract §3.2, extended): the host environment minus
//! secrets, plus the variables the backend sets.

use std::ffi::{OsStr, OsString};

/// Whether a host variable is dropped: names matching `/KEY|PASSWORD|SECRET|TOKEN/i`, and
/// names starting with `DSH_` (case-insensitive; the backend sets its own).
pub fn is_scrubbed(name: &OsStr) -> bool {
    let upper = name.to_string_lossy().to_ascii_uppercase();
    upper.starts_with("DSH_")
        || ["KEY", "PASSWORD", "SECRET", "TOKEN"]
            .iter()
            .any(|word| upper.contains(word))
}

/// Host variables that describe the host's own terminal and would be wrong inside ours.
const HOST_TERMINAL_VARS: [&str; 2] = ["COLUMNS", "LINES"];

/// The complete environment of a new shell: `host` minus [`is_scrubbed`] names and the host's
/// terminal size, then (overriding) `TERM=xterm-256color` (we emulate a real screen),
/// `PAGER`/`GIT_PAGER`/`MANPAGER`/`SYSTEMD_PAGER=cat`, `DSH_SHELL=1`,
/// `DSH_SESSION_ID=<owner_id>`, `DSH_PTY_SESSION_ID=<session_id>`,
/// `BASH_SILENCE_DEPRECATION_WARNING=1`; and `LC_CTYPE=C.UTF-8` when the host sets none of
/// `LC_ALL`, `LC_CTYPE`, `LANG` (so programs print UTF-8 rather than escapes).
///
/// Pure: the caller passes the host environment (e.g. `std::env::vars_os()`).
pub fn shell_env<I>(host: I, owner_id: &str, session_id: &str) -> Vec<(OsString, OsString)>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    let overrides: [(&str, &str); 9] = [
        ("TERM", "xterm-256color"),
        ("PAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("MANPAGER", "cat"),
        ("SYSTEMD_PAGER", "cat"),
        ("DSH_SHELL", "1"),
        ("DSH_SESSION_ID", owner_id),
        ("DSH_PTY_SESSION_ID", session_id),
        ("BASH_SILENCE_DEPRECATION_WARNING", "1"),
    ];
    let mut env: Vec<(OsString, OsString)> = host
        .into_iter()
        .filter(|(k, _)| !is_scrubbed(k))
        .filter(|(k, _)| !HOST_TERMINAL_VARS.iter().any(|v| k == v))
        .filter(|(k, _)| !overrides.iter().any(|(o, _)| k == o))
        .collect();
    let has_locale = env
        .iter()
        .any(|(k, _)| k == "LC_ALL" || k == "LC_CTYPE" || k == "LANG");
    if !has_locale {
        env.push(("LC_CTYPE".into(), "C.UTF-8".into()));
    }
    env.extend(
        overrides
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    env
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn host(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    fn get<'a>(env: &'a [(OsString, OsString)], key: &str) -> Option<&'a OsStr> {
        env.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_os_str())
    }

    #[test]
    fn secrets_and_dsh_names_are_scrubbed() {
        let env = shell_env(
            host(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/root"),
                ("AWS_SECRET_ACCESS_KEY", "x"),
                ("GITHUB_TOKEN", "x"),
                ("db_password", "x"),
                ("ApiKey", "x"),
                ("dsh_test_value", "x"),
                ("DSH_SHELL", "0"),
                ("COLUMNS", "80"),
                ("LANG", "en_US.UTF-8"),
            ]),
            "agent-1",
            "pty-7",
        );
        let names: Vec<String> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            vec![
                "PATH",
                "HOME",
                "LANG",
                "TERM",
                "PAGER",
                "GIT_PAGER",
                "MANPAGER",
                "SYSTEMD_PAGER",
                "DSH_SHELL",
                "DSH_SESSION_ID",
                "DSH_PTY_SESSION_ID",
                "BASH_SILENCE_DEPRECATION_WARNING"
            ]
        );
        assert_eq!(get(&env, "DSH_SHELL"), Some(OsStr::new("1")));
        assert_eq!(get(&env, "DSH_SESSION_ID"), Some(OsStr::new("agent-1")));
        assert_eq!(get(&env, "DSH_PTY_SESSION_ID"), Some(OsStr::new("pty-7")));
        assert_eq!(get(&env, "TERM"), Some(OsStr::new("xterm-256color")));
    }

    #[test]
    fn overrides_replace_host_values_and_locale_defaults_to_utf8() {
        let env = shell_env(host(&[("PAGER", "less"), ("TERM", "dumb")]), "a", "pty-1");
        assert_eq!(get(&env, "PAGER"), Some(OsStr::new("cat")));
        assert_eq!(get(&env, "TERM"), Some(OsStr::new("xterm-256color")));
        assert_eq!(env.iter().filter(|(k, _)| k == "PAGER").count(), 1);
        assert_eq!(get(&env, "LC_CTYPE"), Some(OsStr::new("C.UTF-8")));
    }

    #[test]
    fn scrub_rule_is_case_insensitive() {
        for name in ["key", "MyKey", "x_password_y", "Secret", "token", "Dsh_x"] {
            assert!(is_scrubbed(OsStr::new(name)), "{name}");
        }
        for name in ["PATH", "HOME", "MONKEY_BUSINESS"] {
            // MONKEY contains KEY: the seed's rule drops it too.
            assert_eq!(
                is_scrubbed(OsStr::new(name)),
                name.contains("KEY"),
                "{name}"
            );
        }
    }
}

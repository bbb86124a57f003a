//! Which locales a session may get: the host's locales that are installed (glibc keeps every
//! category in the C locale when one names a missing locale), and step 4 of
//! [`shell_env`](crate::env::shell_env), which makes the character locale UTF-8.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::sync::LazyLock;

use crate::env::{FALLBACK_UTF8_LOCALE, set};

/// The locale variables that name a locale: `LC_ALL`, the twelve categories, `LANG` (not
/// `LANGUAGE`, a list of message languages that never makes `setlocale` fail).
pub(crate) const LOCALE_VARS: [&str; 14] = [
    "LC_ALL",
    "LC_CTYPE",
    "LC_COLLATE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_MONETARY",
    "LC_PAPER",
    "LC_NAME",
    "LC_ADDRESS",
    "LC_TELEPHONE",
    "LC_MEASUREMENT",
    "LC_IDENTIFICATION",
    "LANG",
];

/// Which locales are installed, for [`shell_env`](crate::env::shell_env)'s step 4.
///
/// Names are compared the way glibc does: the codeset (between `.` and `@`) lowercased with
/// everything but ASCII letters and digits removed (`iso` prepended when only digits remain),
/// so `en_US.UTF-8` matches `en_US.utf8` and `de_DE.ISO-8859-1` matches `de_DE.iso88591`; the
/// language, territory and modifier compare exactly. `C` and `POSIX` are always installed.
/// Aliases from `locale.alias` (such as `german`) are not known and count as missing. The
/// default is [`InstalledLocales::unknown`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstalledLocales {
    /// Normalised names, or `None` when unknown (every locale counts as installed).
    names: Option<HashSet<String>>,
}

impl InstalledLocales {
    /// Unknown: every locale counts as installed (nothing is replaced for being missing).
    pub const fn unknown() -> Self {
        Self { names: None }
    }

    /// Exactly `names` (as `locale -a` prints them, any spelling of the codeset), plus `C`
    /// and `POSIX`.
    pub fn from_names<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self {
            names: Some(
                names
                    .into_iter()
                    .map(|n| normalize_locale_name(n.as_ref()))
                    .collect(),
            ),
        }
    }

    /// This host's locales: `locale -a`, run once per process (the first call waits for it,
    /// a few milliseconds) and cached. [`Self::unknown`] when `locale -a` cannot run, fails or
    /// lists nothing, so a host without the `locale` program keeps every locale it is given.
    pub fn of_host() -> &'static Self {
        static HOST: LazyLock<InstalledLocales> = LazyLock::new(InstalledLocales::query_host);
        &HOST
    }

    fn query_host() -> Self {
        let output = std::process::Command::new("locale")
            .arg("-a")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        match output {
            Ok(out) if out.status.success() => {
                let text = String::from_utf8_lossy(&out.stdout);
                let names: Vec<&str> = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect();
                if names.is_empty() {
                    Self::unknown()
                } else {
                    Self::from_names(names)
                }
            }
            Ok(out) => {
                tracing::debug!(status = %out.status, "`locale -a` failed; every locale counts as installed");
                Self::unknown()
            }
            Err(err) => {
                tracing::debug!(%err, "cannot run `locale -a`; every locale counts as installed");
                Self::unknown()
            }
        }
    }

    /// Whether the locale `name` (e.g. `en_US.UTF-8`) is installed.
    pub fn contains(&self, name: &str) -> bool {
        let Some(names) = &self.names else {
            return true;
        };
        let name = normalize_locale_name(name);
        name == "C" || name == "POSIX" || names.contains(&name)
    }
}

/// `language[_territory][.codeset][@modifier]` with the codeset normalised as glibc's
/// `_nl_normalize_codeset` does (see [`InstalledLocales`]).
fn normalize_locale_name(name: &str) -> String {
    let (base, modifier) = match name.split_once('@') {
        Some((base, modifier)) => (base, Some(modifier)),
        None => (name, None),
    };
    let mut out = match base.split_once('.') {
        Some((locale, codeset)) => {
            let codeset: String = codeset
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect();
            let prefix = if codeset.chars().all(|c| c.is_ascii_digit()) {
                "iso"
            } else {
                ""
            };
            format!("{locale}.{prefix}{codeset}")
        }
        None => base.to_owned(),
    };
    if let Some(modifier) = modifier {
        out.push('@');
        out.push_str(modifier);
    }
    out
}

fn is_utf8_locale(value: &OsStr) -> bool {
    let lower = value.to_string_lossy().to_ascii_lowercase();
    lower.contains("utf-8") || lower.contains("utf8")
}

/// Step 4 of [`shell_env`](crate::env::shell_env) on `env`: a locale variable naming a locale
/// that is not `installed` becomes [`FALLBACK_UTF8_LOCALE`] (only `LC_ALL` counts while it is
/// set), then the variable deciding the character locale is made UTF-8. Variables the
/// operator passed (`explicit`) are kept as given.
pub(crate) fn ensure_utf8_ctype(
    env: &mut Vec<(OsString, OsString)>,
    explicit: impl Fn(&str) -> bool,
    installed: &InstalledLocales,
) {
    let lc_all_set = env.iter().any(|(k, v)| k == "LC_ALL" && !v.is_empty());
    for (name, value) in env.iter_mut() {
        let Some(var) = LOCALE_VARS.iter().find(|v| name == **v) else {
            continue;
        };
        let counts = !lc_all_set || *var == "LC_ALL";
        let usable = value.to_str().is_some_and(|v| installed.contains(v));
        if counts && !value.is_empty() && !usable && !explicit(var) {
            *value = FALLBACK_UTF8_LOCALE.into();
        }
    }
    let deciding = ["LC_ALL", "LC_CTYPE", "LANG"].into_iter().find_map(|name| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| (name, v.clone()))
    });
    match deciding {
        Some((_, value)) if is_utf8_locale(&value) => {}
        Some((name, _)) if explicit(name) => {}
        Some(("LC_ALL", _)) => set(env, "LC_ALL", FALLBACK_UTF8_LOCALE.into()),
        _ => set(env, "LC_CTYPE", FALLBACK_UTF8_LOCALE.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_names_compare_like_glibc() {
        for (name, normal) in [
            ("en_US.UTF-8", "en_US.utf8"),
            ("en_US.utf8", "en_US.utf8"),
            ("C.UTF-8", "C.utf8"),
            ("de_DE.ISO-8859-1", "de_DE.iso88591"),
            ("de_DE.8859-1", "de_DE.iso88591"),
            ("de_DE.ISO_8859-15@euro", "de_DE.iso885915@euro"),
            ("ca_ES.UTF-8@valencia", "ca_ES.utf8@valencia"),
            ("ja_JP.eucJP", "ja_JP.eucjp"),
            ("de_DE@euro", "de_DE@euro"),
            ("C", "C"),
            ("POSIX", "POSIX"),
        ] {
            assert_eq!(normalize_locale_name(name), normal, "{name}");
        }
        let installed = InstalledLocales::from_names(["C.utf8", "en_US.utf8", "de_DE@euro"]);
        for (name, expected) in [
            ("en_US.UTF-8", true),
            ("en_US.utf-8", true),
            ("en_US.utf8", true),
            ("C.UTF-8", true),
            ("C", true),
            ("POSIX", true),
            ("de_DE@euro", true),
            // Language and territory compare exactly, as glibc's do.
            ("en_us.UTF-8", false),
            ("en_US", false),
            ("de_DE.UTF-8", false),
            ("xx_XX.UTF-8", false),
        ] {
            assert_eq!(installed.contains(name), expected, "{name}");
        }
        let none = InstalledLocales::from_names(Vec::<String>::new());
        assert!(none.contains("C") && none.contains("POSIX"));
        assert!(!none.contains("C.UTF-8"));
        assert!(InstalledLocales::unknown().contains("xx_XX.UTF-8"));
    }

    #[test]
    fn the_host_locales_come_from_locale_a() {
        let lists = std::process::Command::new("locale")
            .arg("-a")
            .output()
            .is_ok_and(|o| o.status.success() && !o.stdout.trim_ascii().is_empty());
        let host = InstalledLocales::of_host();
        assert!(host.contains("C") && host.contains("POSIX"));
        // No host has this one: it counts as missing exactly when `locale -a` answered.
        assert_eq!(host.contains("xx_XX.UTF-8"), !lists);
    }
}

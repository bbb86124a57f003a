//! The shell's environment: an allowlist of the host's variables (or, on request, the host
//! environment minus secrets), what the operator passes explicitly, a UTF-8 character locale,
//! and the variables the backend sets.

use std::ffi::{OsStr, OsString};
use std::str::FromStr;

pub use crate::locale::InstalledLocales;
use crate::locale::{LOCALE_VARS, ensure_utf8_ctype};

/// Host variables a session gets by default (exact names, no wildcards, so a look-alike such
/// as `LC_SECRET_TOKEN` or `XDG_SESSION_KEY` never passes): who and where the user is, the
/// locale categories, the time zone, the preferred editor, the XDG base directories, toolchain
/// locations and TLS trust-store paths. None of them holds a credential.
pub const ALLOWED_HOST_VARS: &[&str] = &ALLOWED;

/// [`ALLOWED_HOST_VARS`] but the locale variables ([`LOCALE_VARS`], which join them).
const ALLOWED_BESIDES_LOCALE: [&str; 30] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "EDITOR",
    "VISUAL",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    "PYENV_ROOT",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "NVM_DIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "GIT_SSL_CAINFO",
];

const ALLOWED: [&str; LOCALE_VARS.len() + ALLOWED_BESIDES_LOCALE.len()] =
    joined(LOCALE_VARS, ALLOWED_BESIDES_LOCALE);

/// `a` then `b`, as one array of `N` names (`N` is `A + B`; checked when the constant is built).
const fn joined<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "joined: N must be A + B");
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

/// The locale a session gets when the host's character locale is not UTF-8, and in place of
/// a host locale that is not installed.
pub const FALLBACK_UTF8_LOCALE: &str = "C.UTF-8";

/// Whether a host variable reaches sessions by default ([`ALLOWED_HOST_VARS`]).
pub fn is_allowed(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|name| ALLOWED_HOST_VARS.contains(&name))
}

/// What a variable's name contains that [`is_scrubbed`] drops it for (case-insensitively).
pub const SCRUBBED_NAME_PARTS: [&str; 18] = [
    "KEY",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "SSHPASS",
    "SECRET",
    "TOKEN",
    "CREDENTIAL",
    "JWT",
    "BEARER",
    "DSN",
    "HMAC",
    "TOTP",
    "CSRF",
    "XSRF",
    "NETRC",
    "SIGNATURE",
    "CLIENT_CERT",
];

/// The words (between `_`s) of a variable's name that [`is_scrubbed`] drops it for.
pub const SCRUBBED_NAME_WORDS: [&str; 15] = [
    "PASS", "PW", "PWD", "PAT", "OTP", "PIN", "AUTH", "CREDS", "SK", "SALT", "WEBHOOK", "COOKIE",
    "PRIVATE", "PEM", "MFA",
];

/// Whether a host variable is dropped when the host environment is inherited
/// ([`EnvPolicy::inherit_host`]), case-insensitively: names containing one of
/// [`SCRUBBED_NAME_PARTS`] or with one of [`SCRUBBED_NAME_WORDS`] as a word (between `_`s:
/// `DB_PASS`, `LDAP_BIND_PW`, `GH_PAT`, `SSH_AUTH_SOCK`, `STRIPE_SK`; not `GIT_AUTHOR_NAME`,
/// nor `PWD` alone, the working directory); names ending in the word `SESSION` or starting
/// with `OP_SESSION_` (a password manager's unlocked session: `BW_SESSION`, 1Password's);
/// names starting with `DSH_` (the backend sets its own); and values holding a URL with user
/// information (`postgres://u:pw@db/x`, a token as the user: `http://token@proxy:3128`), a
/// connection string's or query's secret (`Server=x;Password=…`, `Pwd=…`, Azure's
/// `AccountKey=…`, `?api_key=…`, a SAS `sig=…`), a `Bearer` or `Basic` credential, a JSON
/// field holding one (`"auth":"…"`, `"password":"…"`), a netrc `password …`, a private key
/// (PEM, a kubeconfig's `client-key-data`), or a token of a well-known issuer's shape
/// (GitHub's `ghp_…`, GitLab's `glpat-…`, Slack's `xoxb-…`, an AWS access key id `AKIA…`);
/// names ending in `PASS` (`PGPASS`) too.
pub fn is_scrubbed(name: &OsStr, value: &OsStr) -> bool {
    let upper = name.to_string_lossy().to_ascii_uppercase();
    let value = value.to_string_lossy();
    upper.starts_with("DSH_")
        || SCRUBBED_NAME_PARTS.iter().any(|part| upper.contains(part))
        || (upper != "PWD"
            && upper
                .split('_')
                .any(|word| SCRUBBED_NAME_WORDS.contains(&word)))
        || upper.ends_with("PASS")
        || upper.rsplit('_').next() == Some("SESSION") && upper.contains('_')
        || upper.starts_with("OP_SESSION_")
        || holds_url_credentials(&value)
        || holds_connection_password(&value)
        || holds_secret_text(&value)
        || holds_issuer_token(&value)
}

/// Prefixes of tokens of well-known issuers: GitHub, GitLab, Slack, npm, PyPI, Stripe,
/// OpenAI and Anthropic, Google API keys, and AWS access key ids (`AKIA`, `ASIA`).
const TOKEN_PREFIXES: [&str; 21] = [
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "npm_",
    "pypi-",
    "sk_live_",
    "sk-proj-",
    "sk-ant-",
    "AIza",
    "AKIA",
    "ASIA",
    "hf_",
    "shpat_",
    "dop_v1_",
];

/// Whether a word of `value` is a token of a well-known issuer's shape: one of
/// [`TOKEN_PREFIXES`] followed by at least 16 letters, digits, `_` or `-`.
fn holds_issuer_token(value: &str) -> bool {
    value
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .any(|word| {
            TOKEN_PREFIXES.iter().any(|prefix| {
                word.strip_prefix(prefix)
                    .is_some_and(|rest| rest.len() >= 16)
            })
        })
}

/// Whether `value` carries a secret in text of a known shape: an HTTP `Authorization:` header
/// or `Bearer` token (`git -c http.extraHeader`), a PEM private key or a kubeconfig's embedded client key, or a
/// netrc entry's `password <secret>`.
fn holds_secret_text(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let followed = |key: &[&str]| words.windows(2).any(|w| key.contains(&w[0]));
    let netrc = words.iter().any(|w| matches!(*w, "machine" | "login"));
    // `Basic` then a credential (base64 of `user:password`, quoted or not), not the word in
    // prose.
    let basic = words.windows(2).any(|w| {
        let credential = w[1].trim_matches(|c: char| matches!(c, '\'' | '"' | ',' | ';'));
        w[0] == "basic"
            && credential.len() >= 8
            && credential
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    });
    // An `Authorization:` header's value, also glued to what names it
    // (`http.extraheader=Authorization: …`).
    followed(&["bearer"])
        || lower.contains("authorization:")
        || basic
        || holds_json_secret(&lower)
        || (netrc && followed(&["password", "passwd"]))
        || lower.contains("-----begin ")
        || lower.contains("client-key-data")
        || SECRET_URLS.iter().any(|url| lower.contains(url))
}

/// URLs that are themselves a secret (whoever has one can post with it): chat webhooks.
const SECRET_URLS: [&str; 3] = [
    "hooks.slack.com/services/",
    "discord.com/api/webhooks/",
    "outlook.office.com/webhook/",
];

/// Words that make a key (a JSON field, an option, a connection string's key) a secret's:
/// found in it with `_` and `-` left out (`access_token`, `clientSecret`, `api-key`,
/// `trustStorePassword`).
const SECRET_KEY_WORDS: [&str; 8] = [
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "credential",
    "privatekey",
    "auth",
];

/// Whether `key` (lowercase) names a secret: one of [`SECRET_KEY_WORDS`] in it, `_` and `-`
/// left out; `auth` only as the whole key or at its end (`"auth"`, `basicAuth`; not
/// `author`).
fn is_secret_key(key: &str) -> bool {
    let key: String = key.chars().filter(|c| !matches!(c, '_' | '-')).collect();
    SECRET_KEY_WORDS.iter().any(|word| {
        if *word == "auth" {
            key.ends_with(word)
        } else {
            key.contains(word)
        }
    })
}

/// Whether `lower` (a value, lowercase) holds a JSON field with a secret's name and a string
/// value (`"access_token": "…"`, `{"clientSecret":"…"}`).
fn holds_json_secret(lower: &str) -> bool {
    let mut rest = lower;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else {
            return false;
        };
        let key = &after[..close];
        let tail = after[close + 1..].trim_start();
        if let Some(value) = tail.strip_prefix(':')
            && value.trim_start().starts_with('"')
            && is_secret_key(key)
        {
            return true;
        }
        rest = &after[close + 1..];
    }
    false
}

/// Keys of a connection string or a URL query whose value is a secret.
const SECRET_KEYS: [&str; 11] = [
    "password",
    "pwd",
    "accountkey",
    "sharedaccesskey",
    "sig",
    "api_key",
    "apikey",
    "api-key",
    "access_token",
    "client_secret",
    "secret",
];

/// Whether `value` is a connection string, a URL query or options with a secret in it
/// (`Server=db;Password=s3`, ODBC's `Pwd=s3`, Azure's `AccountKey=…`, `?api_key=…`, a SAS
/// `sig=…`, a signed URL's `X-Amz-Signature=…`, `--password=…`,
/// `-Djavax.net.ssl.trustStorePassword=…`): one of [`SECRET_KEYS`], or a key whose last
/// dotted part names a secret ([`is_secret_key`]), case-insensitively, with a value.
fn holds_connection_password(value: &str) -> bool {
    value
        .split([';', '&', '?', ' ', '\t'])
        .filter_map(|part| part.trim().split_once('='))
        .any(|(key, secret)| {
            let key = key.trim().trim_start_matches('-').to_ascii_lowercase();
            let last = key.rsplit('.').next().unwrap_or_default();
            (SECRET_KEYS.contains(&key.as_str())
                || SECRET_KEYS.contains(&last)
                || last.ends_with("signature")
                || (is_secret_key(last) && !last.ends_with("auth")))
                && !secret.trim().is_empty()
        })
}

/// Whether `value` holds a URL with user information (`scheme://user:pw@`, or a token as the
/// user: `https://key@sentry.io/1`, `http://token@proxy:3128`).
fn holds_url_credentials(value: &str) -> bool {
    value.split("://").skip(1).any(|after| {
        let authority = after.split(['/', '?', '#', ' ']).next().unwrap_or_default();
        authority
            .rsplit_once('@')
            .is_some_and(|(user_info, _)| !user_info.is_empty())
    })
}

/// One variable the operator passes to sessions: `NAME` copies the host's value (nothing when
/// the host has none), `NAME=VALUE` sets it. Parsed from `NAME[=VALUE]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvPass {
    name: String,
    value: Option<String>,
}

impl EnvPass {
    /// A pass of `name` (with `value`, or the host's value when `None`).
    ///
    /// # Errors
    /// `name` is not a shell variable name (`[A-Za-z_][A-Za-z0-9_]*`), starts with `DSH_`
    /// (the backend's own variables), or `value` holds a NUL byte.
    pub fn new(name: impl Into<String>, value: Option<String>) -> Result<Self, String> {
        let name = name.into();
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "environment variable name {name:?} is not valid: use letters, digits and _, not starting with a digit"
            ));
        }
        if name.to_ascii_uppercase().starts_with("DSH_") {
            return Err(format!(
                "environment variable {name} is reserved: the backend sets DSH_* itself"
            ));
        }
        if value.as_deref().is_some_and(|v| v.contains('\0')) {
            return Err(format!(
                "the value of environment variable {name} contains a NUL byte"
            ));
        }
        Ok(Self { name, value })
    }

    /// The variable's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value to set, or `None` to copy the host's.
    pub fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }
}

impl FromStr for EnvPass {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((name, value)) => Self::new(name, Some(value.to_owned())),
            None => Self::new(s, None),
        }
    }
}

/// Which host variables reach sessions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Inherit the whole host environment minus [`is_scrubbed`] names (the behaviour before
    /// the allowlist) instead of only the [`is_allowed`] ones (default `false`).
    pub inherit_host: bool,
    /// Variables passed explicitly, applied in order after the host's (a later pass of the
    /// same name wins). They override everything but the backend's `DSH_*` variables.
    pub pass: Vec<EnvPass>,
}

/// Host variables that describe the host's own terminal and would be wrong inside ours.
const HOST_TERMINAL_VARS: [&str; 2] = ["COLUMNS", "LINES"];

/// The complete environment of a new shell, in this order:
/// 1. from `host`: the [`is_allowed`] variables, or with [`EnvPolicy::inherit_host`] every
///    variable but the [`is_scrubbed`] ones and the host's terminal size (`COLUMNS`, `LINES`);
/// 2. the backend's own: `TERM=xterm-256color` (we emulate a real screen),
///    `PAGER`/`GIT_PAGER`/`MANPAGER`/`SYSTEMD_PAGER=cat`, `DSH_SHELL=1`,
///    `DSH_SESSION_ID=<owner_id>`, `DSH_PTY_SESSION_ID=<session_id>`,
///    `BASH_SILENCE_DEPRECATION_WARNING=1`, an empty `NODE_REPL_HISTORY` and
///    `PYTHON_HISTORY=/dev/null` (the REPLs of node and Python 3.13 keep no history file: the
///    sandbox's home is read-only, where node printed an error at start and Python 3.13 a
///    traceback at exit), and `PYTHON_BASIC_REPL=1` (Python 3.13's REPL is the one earlier
///    versions have: its new line editor drops a typed or pasted TAB and re-indents typed
///    blocks; `--env PYTHON_BASIC_REPL=` brings it back);
/// 3. [`EnvPolicy::pass`], each replacing a variable of the same name;
/// 4. a usable UTF-8 character locale, in two steps:
///    - a locale variable from the host that names a locale not in `installed` becomes
///      [`FALLBACK_UTF8_LOCALE`]: `LC_ALL` when set, else each `LC_*` category and `LANG`
///      (with `LC_ALL` set the others do not count). glibc's `setlocale(LC_ALL, "")` fails
///      as a whole when any category names a missing locale, which would leave programs in
///      the C locale whatever `LC_CTYPE` says (e.g. a Docker host with
///      `LANG=en_US.UTF-8` but only `C.utf8` installed);
///    - then, when the variable that decides the character locale (`LC_ALL`, else
///      `LC_CTYPE`, else `LANG`) is missing or not UTF-8 and was not passed explicitly,
///      `LC_ALL` (if that decides) or `LC_CTYPE` becomes [`FALLBACK_UTF8_LOCALE`],
///
///    so programs print UTF-8 file names and text rather than escapes. An installed UTF-8
///    locale the host chose is kept. A variable the operator passed explicitly
///    ([`EnvPolicy::pass`]) is kept as given, UTF-8 or not, installed or not: the operator
///    may know better than `locale -a` (and owns the result);
/// 5. bash's option variables (`SHELLOPTS`, `BASHOPTS`, `POSIXLY_CORRECT`) renamed to
///    `DSH_RC_<name>`: the rc applies them as its last step (before, POSIX mode skipped the
///    rc, and `xtrace` printed it).
///
/// Pure: the caller passes the host environment (e.g. `std::env::vars_os()`) and the
/// installed locales (e.g. [`InstalledLocales::of_host`]; [`InstalledLocales::unknown`]
/// replaces nothing for being missing).
pub fn shell_env<I>(
    host: I,
    policy: &EnvPolicy,
    installed: &InstalledLocales,
    owner_id: &str,
    session_id: &str,
) -> Vec<(OsString, OsString)>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    let own: [(&str, &str); 13] = [
        ("TERM", "xterm-256color"),
        ("PAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("GIT_MERGE_AUTOEDIT", "no"),
        ("MANPAGER", "cat"),
        ("SYSTEMD_PAGER", "cat"),
        ("DSH_SHELL", "1"),
        ("DSH_SESSION_ID", owner_id),
        ("DSH_PTY_SESSION_ID", session_id),
        ("BASH_SILENCE_DEPRECATION_WARNING", "1"),
        ("NODE_REPL_HISTORY", ""),
        ("PYTHON_HISTORY", "/dev/null"),
        ("PYTHON_BASIC_REPL", "1"),
    ];
    let host: Vec<(OsString, OsString)> = host.into_iter().collect();
    let mut env: Vec<(OsString, OsString)> = host
        .iter()
        .filter(|(k, v)| {
            if policy.inherit_host {
                !is_scrubbed(k, v) && !HOST_TERMINAL_VARS.iter().any(|h| k == h)
            } else {
                is_allowed(k)
            }
        })
        .filter(|(k, _)| !own.iter().any(|(o, _)| k == o))
        .cloned()
        .collect();
    env.extend(
        own.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    for pass in &policy.pass {
        let value = match pass.value() {
            Some(v) => Some(OsString::from(v)),
            None => host
                .iter()
                .find(|(k, _)| k == pass.name())
                .map(|(_, v)| v.clone()),
        };
        if let Some(value) = value {
            set(&mut env, pass.name(), value);
        }
    }
    let explicit = |name: &str| policy.pass.iter().any(|p| p.name() == name);
    ensure_utf8_ctype(&mut env, explicit, installed);
    crate::shell_options::hold_back(&mut env);
    env
}

/// Replaces (or adds, at the end) `name`.
pub(crate) fn set(env: &mut Vec<(OsString, OsString)>, name: &str, value: OsString) {
    env.retain(|(k, _)| k != name);
    env.push((name.into(), value));
}

#[cfg(test)]
mod tests;

use pretty_assertions::assert_eq;

use super::*;

/// Every locale counts as installed: the tests that are not about missing locales.
const ANY: InstalledLocales = InstalledLocales::unknown();

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

fn names(env: &[(OsString, OsString)]) -> Vec<String> {
    env.iter()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect()
}

fn passes(specs: &[&str]) -> Vec<EnvPass> {
    specs
        .iter()
        .map(|s| s.parse().unwrap_or_else(|e| panic!("{s}: {e}")))
        .collect()
}

const BACKEND: [&str; 13] = [
    "TERM",
    "PAGER",
    "GIT_PAGER",
    "GIT_MERGE_AUTOEDIT",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "DSH_SHELL",
    "DSH_SESSION_ID",
    "DSH_PTY_SESSION_ID",
    "BASH_SILENCE_DEPRECATION_WARNING",
    "NODE_REPL_HISTORY",
    "PYTHON_HISTORY",
    "PYTHON_BASIC_REPL",
];

fn sample_host() -> Vec<(OsString, OsString)> {
    host(&[
        ("PATH", "/usr/bin"),
        ("HOME", "/root"),
        ("DATABASE_URL", "postgres://u:pw@db:5432/x"),
        ("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE"),
        ("GH_TOKEN", "ghp_x"),
        ("MY_SERVICE_CREDENTIALS", "c"),
        ("db_password", "x"),
        ("DSH_SHELL", "0"),
        ("COLUMNS", "80"),
        ("LANG", "en_US.UTF-8"),
        ("LC_TIME", "C"),
        ("XDG_CACHE_HOME", "/c"),
        ("PAGER", "less"),
        ("LC_SECRET_TOKEN", "look-alike"),
        ("XDG_SESSION_KEY", "look-alike"),
    ])
}

#[test]
fn by_default_only_allowed_host_variables_reach_the_shell() {
    let env = shell_env(
        sample_host(),
        &EnvPolicy::default(),
        &ANY,
        "agent-1",
        "pty-7",
    );
    let mut expected = vec!["PATH", "HOME", "LANG", "LC_TIME", "XDG_CACHE_HOME"];
    expected.extend(BACKEND);
    assert_eq!(names(&env), expected);
    assert_eq!(get(&env, "DSH_SHELL"), Some(OsStr::new("1")));
    assert_eq!(get(&env, "DSH_SESSION_ID"), Some(OsStr::new("agent-1")));
    assert_eq!(get(&env, "DSH_PTY_SESSION_ID"), Some(OsStr::new("pty-7")));
    assert_eq!(get(&env, "PAGER"), Some(OsStr::new("cat")));
    // Look-alikes of allowed names (a locale or XDG prefix on a secret) do not pass.
    assert_eq!(get(&env, "LC_SECRET_TOKEN"), None);
    assert_eq!(get(&env, "XDG_SESSION_KEY"), None);
}

#[test]
fn inheriting_keeps_the_old_scrub_rule() {
    let policy = EnvPolicy {
        inherit_host: true,
        pass: Vec::new(),
    };
    let env = shell_env(sample_host(), &policy, &ANY, "a", "pty-1");
    let mut expected = vec!["PATH", "HOME", "LANG", "LC_TIME", "XDG_CACHE_HOME"];
    expected.extend(BACKEND);
    assert_eq!(names(&env), expected);
}

#[test]
fn inheriting_scrubs_credentials_by_name_and_urls_with_passwords() {
    let scrubbed = [
        ("DB_PASS", "x"),
        ("PGPASSWD", "x"),
        ("SSH_AUTH_SOCK", "/tmp/agent.1"),
        ("DOCKER_AUTH_CONFIG", "{}"),
        ("SENTRY_DSN", "https://k@o.ingest.sentry.io/1"),
        ("SLACK_WEBHOOK_URL", "https://hooks.slack.com/x"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/k.json"),
        ("AWS_SECRET_ACCESS_KEY", "x"),
        ("HTTP_PROXY", "http://user:proxypw@proxy:3128"),
        ("MY_DB", "see postgres://u:pw@db:5432/x"),
        ("MYSQL_PWD", "x"),
        ("SSHPASS", "x"),
        ("PASSPHRASE", "x"),
        ("GH_PAT", "x"),
        ("GITLAB_PAT", "x"),
        ("CI_JOB_JWT", "x"),
        ("JWT", "x"),
        ("BW_SESSION", "x"),
        ("OP_SESSION_my", "x"),
        ("BEARER", "x"),
        ("OTP", "x"),
        ("PIN", "x"),
        ("CONN_STR", "Server=x;Password=s14;"),
        ("ODBC", "Driver=x; Uid=u; Pwd=s"),
        ("LDAP_BIND_PW", "x"),
        ("SENTRYDSN", "x"),
        ("STRIPE_SK", "x"),
        ("SIGNING_SALT", "x"),
        ("HTTPS_PROXY", "http://tokenonly@proxy:3128"),
        ("GIT_CONFIG_VALUE_0", "Authorization: Bearer ghp_x"),
        ("NETRC_DATA", "machine h login u password s3"),
        (
            "KUBECONFIG_DATA",
            "users:\n- user:\n    client-key-data: LS0t",
        ),
        ("TLS_PEM", "-----BEGIN PRIVATE KEY-----\nMII"),
        ("PGPASS", "x"),
        ("MYPASS", "x"),
        (
            "AZURE_STORAGE_CONNECTION_STRING",
            "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=v-azure26;",
        ),
        ("BASIC_HDR", "Authorization: Basic dXNlcjpodW50ZXIy"),
        (
            "DOCKER_CONFIG_JSON",
            r#"{"auths":{"r.io":{"auth": "dXNlcjpwdw=="}}}"#,
        ),
        ("FOO_ENDPOINT", "https://api.x.com/v1?api_key=abc123"),
        (
            "SAS",
            "https://a.blob.core.windows.net/c?sv=2024&sig=abcdEFGH",
        ),
        ("GITLAB_ACCESS", "glpat-abcdefghij0123456789"),
        ("MY_GH", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("AWS_ID", "AKIAIOSFODNN7EXAMPLE"),
        // Secrets under other keys of the same kinds: JSON fields, options, signed URLs.
        ("OAUTH_JSON", r#"{"access_token":"ya29.a0Af"}"#),
        ("APP_JSON", r#"{"client_secret": "s3cr3t"}"#),
        ("APP_CONF", r#"{"clientSecret":"s3cr3t"}"#),
        ("SVC_JSON", r#"{"api_key":"k-123"}"#),
        (
            "JAVA_TOOL_OPTIONS",
            "-Djavax.net.ssl.trustStorePassword=changeit",
        ),
        ("JOPTS", "-Xmx1g -Dpassword=hunter2"),
        ("CLI_ARGS", "--user ada --password=hunter2"),
        (
            "GIT_CONFIG_PARAMETERS",
            "'http.extraheader=AUTHORIZATION: basic dXNlcjpwYXNzd29yZA=='",
        ),
        ("HDR", "Authorization: token abc"),
        (
            "NOTIFY_URL",
            "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
        ),
        (
            "SIGNED",
            "https://b.s3.amazonaws.com/k?X-Amz-Credential=a&X-Amz-Signature=abcd",
        ),
        (
            "GCS",
            "https://storage.googleapis.com/b/o?X-Goog-Signature=abcd",
        ),
        ("HF", "hf_abcdefghijklmnopqrstuvwxyz0123"),
        // Names of other kinds of secrets, and a header glued to its option.
        (
            "GIT_CONFIG_PARAMETERS",
            "'http.extraheader=Authorization: Basic ...'",
        ),
        ("CERT_PEM", "x"),
        ("AZURE_CLIENT_CERTIFICATE", "x"),
        ("WEBHOOK_HMAC", "x"),
        ("HMAC", "x"),
        ("REQUEST_SIGNATURE", "x"),
        ("TOTP", "x"),
        ("TOTP_SEED", "x"),
        ("CSRF", "x"),
        ("XSRF_COOKIE_VALUE", "x"),
        ("NETRC", "x"),
        ("MFA_CODE", "x"),
    ];
    for (name, value) in scrubbed {
        assert!(is_scrubbed(OsStr::new(name), OsStr::new(value)), "{name}");
    }
    let kept = [
        ("GIT_AUTHOR_NAME", "Ada"),
        ("PASSAGE", "x"),
        ("HTTP_PROXY", "http://proxy:3128"),
        ("DOCS", "see https://example.com/a:b@c"),
        ("PWD", "/work"),
        ("OLDPWD", "/work"),
        ("PATH_INFO", "x"),
        ("SESSION", "x"),
        ("QUERY", "a=1&b=2"),
        ("OLDPWD", "/work"),
        ("DISK", "sda"),
        ("HINT", "enter your password here"),
        ("DOCS_URL", "https://example.com/@user"),
        ("SEARCH", "https://example.com/?q=sig&lang=en"),
        ("NOTE", "basic auth is off"),
        ("GH_REPO", "ghp_short"),
        ("MODE", "{\"auth\": null}"),
        ("META", r#"{"author": "Ada", "tokens": 3}"#),
        ("OPTS", "-Dfile.encoding=UTF-8 --color=auto"),
        ("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"),
        ("REQUESTS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt"),
        ("GPG_SIGNING_FORMAT", "ssh"),
    ];
    for (name, value) in kept {
        assert!(!is_scrubbed(OsStr::new(name), OsStr::new(value)), "{name}");
    }
}

#[test]
fn explicit_passes_copy_or_set_and_override() {
    let policy = EnvPolicy {
        inherit_host: false,
        pass: passes(&[
            "GH_TOKEN",
            "NOT_ON_HOST",
            "MODE=dev",
            "PAGER=less",
            "MODE=prod",
        ]),
    };
    let env = shell_env(sample_host(), &policy, &ANY, "a", "pty-1");
    assert_eq!(get(&env, "GH_TOKEN"), Some(OsStr::new("ghp_x")));
    assert_eq!(get(&env, "NOT_ON_HOST"), None);
    assert_eq!(get(&env, "MODE"), Some(OsStr::new("prod")));
    assert_eq!(env.iter().filter(|(k, _)| k == "MODE").count(), 1);
    assert_eq!(get(&env, "PAGER"), Some(OsStr::new("less")));
    assert_eq!(get(&env, "DATABASE_URL"), None);
}

#[test]
fn the_character_locale_is_utf8_unless_chosen_explicitly() {
    let default = EnvPolicy::default();
    let ctype = |env: &[(OsString, OsString)]| {
        (
            get(env, "LC_ALL").map(OsStr::to_owned),
            get(env, "LC_CTYPE").map(OsStr::to_owned),
            get(env, "LANG").map(OsStr::to_owned),
        )
    };
    let s = |v: &str| Some(OsString::from(v));
    // Nothing set, or LANG=C: LC_CTYPE=C.UTF-8 (LANG stays for the other categories).
    let env = shell_env(host(&[]), &default, &ANY, "a", "p");
    assert_eq!(ctype(&env), (None, s("C.UTF-8"), None));
    let env = shell_env(host(&[("LANG", "C")]), &default, &ANY, "a", "p");
    assert_eq!(ctype(&env), (None, s("C.UTF-8"), s("C")));
    // A non-UTF-8 LC_CTYPE is replaced; a non-UTF-8 LC_ALL (which wins) too.
    let env = shell_env(host(&[("LC_CTYPE", "POSIX")]), &default, &ANY, "a", "p");
    assert_eq!(ctype(&env), (None, s("C.UTF-8"), None));
    let env = shell_env(
        host(&[("LC_ALL", "C"), ("LANG", "en_US.UTF-8")]),
        &default,
        &ANY,
        "a",
        "p",
    );
    assert_eq!(ctype(&env), (s("C.UTF-8"), None, s("en_US.UTF-8")));
    // A UTF-8 choice is kept, whatever the spelling.
    let env = shell_env(host(&[("LANG", "de_DE.utf8")]), &default, &ANY, "a", "p");
    assert_eq!(ctype(&env), (None, None, s("de_DE.utf8")));
    let env = shell_env(host(&[("LC_ALL", "ja_JP.UTF-8")]), &default, &ANY, "a", "p");
    assert_eq!(ctype(&env), (s("ja_JP.UTF-8"), None, None));
    // The operator's explicit choice wins, UTF-8 or not.
    let policy = EnvPolicy {
        inherit_host: false,
        pass: passes(&["LANG=fr_FR.UTF-8"]),
    };
    let env = shell_env(host(&[("LANG", "C")]), &policy, &ANY, "a", "p");
    assert_eq!(ctype(&env), (None, None, s("fr_FR.UTF-8")));
    let policy = EnvPolicy {
        inherit_host: false,
        pass: passes(&["LC_ALL=C"]),
    };
    let env = shell_env(host(&[]), &policy, &ANY, "a", "p");
    assert_eq!(ctype(&env), (s("C"), None, None));
}

#[test]
fn a_locale_that_is_not_installed_is_replaced_unless_passed_explicitly() {
    // A Docker-like host, plus German.
    let installed =
        InstalledLocales::from_names(["C", "C.utf8", "POSIX", "de_DE.utf8", "de_DE.iso88591"]);
    type Row<'a> = (
        &'a [(&'a str, &'a str)],
        &'a [&'a str],
        [Option<&'a str>; 4],
    );
    const U: Option<&str> = Some("C.UTF-8");
    let rows: &[Row] = &[
        // host, passes, expected [LC_ALL, LC_CTYPE, LANG, LC_TIME]
        // A missing UTF-8 LANG: replaced (an added LC_CTYPE would not do: glibc drops the
        // whole environment locale when LC_COLLATE etc. name a missing locale).
        (&[("LANG", "en_US.UTF-8")], &[], [None, None, U, None]),
        // A missing non-UTF-8 LANG: replaced too.
        (&[("LANG", "fr_FR.ISO-8859-1")], &[], [None, None, U, None]),
        // Installed ones are kept, whatever the codeset's spelling.
        (
            &[("LANG", "de_DE.ISO-8859-1")],
            &[],
            [None, U, Some("de_DE.ISO-8859-1"), None],
        ),
        (
            &[("LANG", "de_DE.UTF-8")],
            &[],
            [None, None, Some("de_DE.UTF-8"), None],
        ),
        (&[("LANG", "C.UTF-8")], &[], [None, None, U, None]),
        (&[("LANG", "C")], &[], [None, U, Some("C"), None]),
        // Any missing category is replaced, not only the character locale's.
        (
            &[("LANG", "de_DE.utf8"), ("LC_TIME", "xx_XX.UTF-8")],
            &[],
            [None, None, Some("de_DE.utf8"), U],
        ),
        (
            &[("LANG", "de_DE.utf8"), ("LC_CTYPE", "en_US.UTF-8")],
            &[],
            [None, U, Some("de_DE.utf8"), None],
        ),
        // With LC_ALL set, only LC_ALL counts.
        (
            &[("LC_ALL", "C.UTF-8"), ("LANG", "xx_XX.UTF-8")],
            &[],
            [U, None, Some("xx_XX.UTF-8"), None],
        ),
        (
            &[("LC_ALL", "xx_XX.UTF-8"), ("LANG", "C")],
            &[],
            [U, None, Some("C"), None],
        ),
        (
            &[("LC_ALL", ""), ("LANG", "xx_XX.UTF-8")],
            &[],
            [Some(""), None, U, None],
        ),
        // The operator's explicit choice is kept as given, installed or not (set or
        // copied from the host); the host's other missing ones are still replaced.
        (
            &[],
            &["LANG=xx_XX.UTF-8"],
            [None, None, Some("xx_XX.UTF-8"), None],
        ),
        (
            &[("LANG", "en_US.UTF-8")],
            &["LANG"],
            [None, None, Some("en_US.UTF-8"), None],
        ),
        (
            &[("LANG", "en_US.UTF-8")],
            &["LC_CTYPE=C.UTF-8"],
            [None, U, U, None],
        ),
    ];
    for (host_vars, pass, expected) in rows {
        let policy = EnvPolicy {
            inherit_host: false,
            pass: passes(pass),
        };
        let env = shell_env(host(host_vars), &policy, &installed, "a", "p");
        let got = ["LC_ALL", "LC_CTYPE", "LANG", "LC_TIME"]
            .map(|name| get(&env, name).map(|v| v.to_string_lossy().into_owned()));
        let expected = expected.map(|v| v.map(str::to_owned));
        assert_eq!(got, expected, "host {host_vars:?}, passes {pass:?}");
    }
    // With the installed locales unknown, nothing is replaced for being missing.
    let env = shell_env(
        host(&[("LANG", "xx_XX.UTF-8")]),
        &EnvPolicy::default(),
        &ANY,
        "a",
        "p",
    );
    assert_eq!(get(&env, "LANG"), Some(OsStr::new("xx_XX.UTF-8")));
    assert_eq!(get(&env, "LC_CTYPE"), None);
}

#[test]
fn pass_specs_are_parsed_and_checked() {
    let p: EnvPass = "A_1=x=y".parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((p.name(), p.value()), ("A_1", Some("x=y")));
    let p: EnvPass = "EMPTY=".parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((p.name(), p.value()), ("EMPTY", Some("")));
    let p: EnvPass = "_X".parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((p.name(), p.value()), ("_X", None));
    for bad in ["", "=x", "1A", "A-B", "A B=1", "dsh_shell=0"] {
        assert!(bad.parse::<EnvPass>().is_err(), "{bad:?}");
    }
    assert_eq!(
        "DSH_SHELL=0".parse::<EnvPass>(),
        Err("environment variable DSH_SHELL is reserved: the backend sets DSH_* itself".into())
    );
    assert!(EnvPass::new("A", Some("a\0b".into())).is_err());
}

#[test]
fn scrub_rule_is_case_insensitive() {
    for name in ["key", "MyKey", "x_password_y", "Secret", "token", "Dsh_x"] {
        assert!(is_scrubbed(OsStr::new(name), OsStr::new("")), "{name}");
    }
    for name in ["PATH", "HOME", "MONKEY_BUSINESS"] {
        // MONKEY contains KEY: the seed's rule drops it too.
        assert_eq!(
            is_scrubbed(OsStr::new(name), OsStr::new("")),
            name.contains("KEY"),
            "{name}"
        );
    }
}

//! Field cases C31 and C32 against real bash: the host's credentials stay out of sessions
//! unless passed explicitly, and sessions get a UTF-8 locale (also when the host's names a
//! locale that is not installed).

use std::ffi::OsString;

use dsh_terminal_bash::{BashConfig, EnvPass, EnvPolicy};
use dsh_terminal_core::WaitReason;

use crate::support::{Shell, config, installed, newest_lines, unique_id, within};

/// This process's environment with its locale variables replaced by `locale`.
fn host_with_locale(locale: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    let mut host: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| k != "LANG" && k != "LANGUAGE" && !k.to_string_lossy().starts_with("LC_"))
        .collect();
    host.extend(locale.iter().map(|(k, v)| (k.into(), v.into())));
    host
}

const SECRETS: [(&str, &str); 4] = [
    ("DATABASE_URL", "postgres://u:pw-c31@db:5432/x"),
    ("AWS_ACCESS_KEY_ID", "AKIAC31EXAMPLE"),
    ("GH_TOKEN", "ghp_c31example"),
    ("MY_SERVICE_CREDENTIALS", "creds-c31"),
];

/// This process's environment plus the field case's credentials.
fn host_with_secrets() -> Vec<(OsString, OsString)> {
    let mut host: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !SECRETS.iter().any(|(s, _)| k == s))
        .collect();
    host.extend(SECRETS.iter().map(|(k, v)| (k.into(), v.into())));
    host
}

/// `ls` in the session prints a UTF-8 file name made in `dir` as itself (not octal escapes).
async fn lists_a_utf8_name(sh: &Shell, dir: &std::path::Path) {
    let r = sh
        .send(&format!("mkdir -p '{0}/目录' && ls '{0}'", dir.display()))
        .await;
    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    assert!(r.viewport.contains("\n目录\n"), "{:?}", r.viewport);
}

fn with_policy(inherit_host: bool, pass: &[&str]) -> BashConfig {
    BashConfig {
        env: EnvPolicy {
            inherit_host,
            pass: pass
                .iter()
                .map(|s| s.parse::<EnvPass>().unwrap_or_else(|e| panic!("{e}")))
                .collect(),
        },
        ..config()
    }
}

/// Field case C31: `env` in a session shows none of the host's credentials by default; an
/// explicitly passed variable (copied or set) arrives; `inherit_host` restores the old
/// name-based scrub.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c31_host_credentials_do_not_reach_the_session() {
    within(async {
        let sh = Shell::open_with_host_env(config(), host_with_secrets()).await;
        let r = sh.send("env").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nPATH="), "{:?}", r.viewport);
        assert!(r.viewport.contains("\nHOME="), "{:?}", r.viewport);
        for (name, value) in SECRETS {
            assert!(
                !r.viewport.contains(name),
                "{name} leaked: {:?}",
                r.viewport
            );
            assert!(
                !r.viewport.contains(value),
                "{name} leaked: {:?}",
                r.viewport
            );
        }
        sh.close().await;

        let sh = Shell::open_with_host_env(
            with_policy(false, &["GH_TOKEN", "C31_MODE=explicit"]),
            host_with_secrets(),
        )
        .await;
        let r = sh
            .send("echo \"[$GH_TOKEN] [$C31_MODE] [${DATABASE_URL-unset}]\"")
            .await;
        assert!(
            r.viewport
                .contains("\n[ghp_c31example] [explicit] [unset]\n"),
            "{:?}",
            r.viewport
        );
        sh.close().await;

        // Inheriting the host's environment still leaves out what looks like a credential (a
        // key's name, a URL with a password) and passes the rest.
        let mut host = host_with_secrets();
        host.push(("C31_PLAIN".into(), "plain".into()));
        let sh = Shell::open_with_host_env(with_policy(true, &[]), host).await;
        let r = sh
            .send("echo \"[${DATABASE_URL-unset}] [${GH_TOKEN-unset}] [${C31_PLAIN-unset}]\"")
            .await;
        assert!(
            r.viewport.contains("\n[unset] [unset] [plain]\n"),
            "{:?}",
            r.viewport
        );
        sh.close().await;
    })
    .await;
}

/// Field case C32: a host started with `LANG=C` (no `LC_ALL`) still lists a UTF-8 file name
/// as itself, not as octal escapes; a UTF-8 locale the host chose is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c32_sessions_get_a_utf8_locale() {
    let dir = std::env::temp_dir().join(format!("dsh-c32-{}", unique_id()));
    within(async {
        let host = host_with_locale;
        let sh = Shell::open_with_host_env(config(), host(&[("LANG", "C")])).await;
        lists_a_utf8_name(&sh, &dir).await;
        let r = sh.send("echo \"[$LANG] [$LC_CTYPE]\"").await;
        assert!(r.viewport.contains("\n[C] [C.UTF-8]\n"), "{:?}", r.viewport);
        sh.close().await;

        let sh = Shell::open_with_host_env(config(), host(&[("LC_ALL", "C.utf8")])).await;
        let r = sh
            .send(&format!(
                "echo \"[$LC_ALL] [${{LC_CTYPE-unset}}]\"; ls '{}'",
                dir.display()
            ))
            .await;
        assert!(
            r.viewport.contains("\n[C.utf8] [unset]\n"),
            "{:?}",
            r.viewport
        );
        assert!(r.viewport.contains("\n目录\n"), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Field case C32 on a Docker-like host: `LANG` (and a category) name locales that are not
/// installed, which would make glibc drop the whole environment locale; the session gets
/// `C.UTF-8` in their place and lists a UTF-8 file name as itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c32_a_host_locale_that_is_not_installed_is_replaced() {
    if !installed("locale") {
        eprintln!("skipped: no `locale` program, so installed locales are unknown");
        return;
    }
    let dir = std::env::temp_dir().join(format!("dsh-c32-missing-{}", unique_id()));
    within(async {
        let host = host_with_locale(&[("LANG", "xx_XX.UTF-8"), ("LC_TIME", "yy_YY.ISO-8859-1")]);
        let sh = Shell::open_with_host_env(config(), host).await;
        lists_a_utf8_name(&sh, &dir).await;
        let r = sh
            .send("echo \"[$LANG] [${LC_CTYPE-unset}] [$LC_TIME]\"; locale >/dev/null")
            .await;
        assert!(
            r.viewport.contains("\n[C.UTF-8] [unset] [C.UTF-8]\n"),
            "{:?}",
            r.viewport
        );
        assert!(!r.viewport.contains("Cannot set"), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bash's option variables in the environment (`SHELLOPTS`, `BASHOPTS`, `POSIXLY_CORRECT`,
/// here passed by the operator) are in force in the session, and none of them breaks it:
/// POSIX mode had bash skip the rc (no prompt marks, no exit codes), and `xtrace` printed
/// the rc, nonce and all, into the first result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_option_variables_apply_without_breaking_the_session() {
    within(async {
        let sh = Shell::open(with_policy(
            false,
            &[
                "SHELLOPTS=xtrace:nounset",
                "BASHOPTS=extglob",
                "POSIXLY_CORRECT=1",
            ],
        ))
        .await;
        let r = sh
            .send("shopt -q extglob && echo extglob-on; [[ -o posix ]] && echo posix-on; echo \"$- ${POSIXLY_CORRECT}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let lines: Vec<&str> = r.viewport.lines().collect();
        assert!(lines.contains(&"extglob-on"), "{:?}", r.viewport);
        assert!(lines.contains(&"posix-on"), "{:?}", r.viewport);
        let flags = lines
            .iter()
            .find(|l| l.ends_with(" 1") && !l.starts_with('+'))
            .unwrap_or_else(|| panic!("{:?}", r.viewport));
        assert!(flags.contains('x') && flags.contains('u'), "{:?}", r.viewport);
        let r = sh.send("false").await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        let r = sh.send("env | grep -c '^DSH_RC_' || true").await;
        assert!(r.viewport.lines().any(|l| l == "0"), "{:?}", r.viewport);
        // Nothing of the rc was traced anywhere on the screen or in the scrollback.
        let page = newest_lines(&sh, 500);
        assert!(!page.text.contains("__dsh"), "{:?}", page.text);
        sh.close().await;
    })
    .await;
}

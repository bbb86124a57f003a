//! The argv `Bubblewrap` builds for each mode, and its refusals.

use super::*;

fn request(mode: SandboxMode, allow_network: bool) -> ConfineRequest {
    ConfineRequest {
        argv: vec!["/bin/bash".into(), "-i".into()],
        policy: SandboxPolicy {
            mode,
            workspace_root: PathBuf::from("/w"),
            owner_id: "agent".into(),
            allow_network,
            git_dirs: crate::GitDirs::default(),
        },
        startup_files: vec![PathBuf::from("/tmp/rc")],
        cwd: Some(PathBuf::from("/w/src")),
        tmp_size_bytes: None,
    }
}

fn joined(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn wraps_the_argv_per_mode() {
    // `/bin/sh` exists everywhere the tests run; the argv shape is what is checked.
    let bwrap = Bubblewrap::at("/bin/sh");
    let ro = bwrap
        .confine(&request(SandboxMode::ReadOnly, false))
        .unwrap();
    assert_eq!(ro[..2], [OsString::from("/bin/sh"), "-c".into()]);
    // A server run as root keeps the capabilities ordinary file work needs.
    let caps: String = if rustix::process::geteuid().is_root() {
        ROOT_FILE_CAPS.map(|c| format!("--cap-add {c} ")).concat()
    } else {
        String::new()
    };
    // The host's runtime directories are hidden, its resolver's configuration kept.
    let run: String = RUN_DIRS
        .iter()
        .filter(|d| Path::new(d).is_dir() && !Path::new(d).is_symlink())
        .map(|d| format!("--tmpfs {d} "))
        .chain(resolver_dir().map(|d| format!("--ro-bind {0} {0} ", d.display())))
        .collect();
    assert!(run.starts_with("--tmpfs /run "), "{run}");
    // The kernel's settings in the session's /proc are bound read-only.
    let proc_ro: String = PROC_READ_ONLY
        .iter()
        .filter(|p| Path::new(p).exists())
        .map(|p| format!("--ro-bind {p} {p} "))
        .collect();
    assert!(
        proc_ro.starts_with("--ro-bind /proc/sys /proc/sys "),
        "{proc_ro}"
    );
    // Both system-call filters, each opened from this process's sealed copy.
    let filters: String = crate::seccomp::program_paths()
        .iter()
        .map(|p| format!("--add-seccomp-fd @DSH_FD_NUMBER@ {p} "))
        .collect();
    assert_eq!(filters.matches("--add-seccomp-fd").count(), 2, "{filters}");
    assert_eq!(
        joined(&ro[3..]),
        format!(
            "dsh-sandbox /bin/sh --ro-bind / / --dev /dev --dev /dev/.dsh --tmpfs /dev/pts \
             --dev-bind @DSH_TTY@ @DSH_TTY@ --symlink /dev/.dsh/pts/ptmx /dev/pts/ptmx --remount-ro /dev/pts \
             --tmpfs /dev/shm --remount-ro /dev --remount-ro /dev/.dsh --proc /proc {proc_ro}--tmpfs /tmp {run}--file @DSH_FD@ /tmp/rc \
             --ro-bind /w /w --unshare-pid --unshare-ipc --unshare-uts --cap-drop ALL {caps}{filters}\
             --die-with-parent --unshare-net --chdir /w/src -- /bin/bash -i"
        )
    );
    let ww = bwrap
        .confine(&request(SandboxMode::WorkspaceWrite, true))
        .unwrap();
    assert!(joined(&ww).contains(&format!(
        "--bind /w /w --unshare-pid --unshare-ipc --unshare-uts --cap-drop ALL {caps}{filters}\
         --die-with-parent --chdir /w/src -- /bin/bash -i"
    )));
    assert!(!joined(&ww).contains("--new-session"));
    // Under a memory cap, /tmp, /run and /dev/shm together hold half of it: /run and
    // /dev/shm an eighth of that each (at most MAX_RUN_BYTES), /tmp the rest.
    let run_dirs = RUN_DIRS
        .into_iter()
        .filter(|dir| Path::new(dir).is_dir() && !Path::new(dir).is_symlink())
        .count() as u64;
    for cap_mib in [512_u64, 100, 2048] {
        let half = cap_mib * 1024 * 1024 / 2;
        let run = (half / 8).min(MAX_RUN_BYTES);
        let mut sized = request(SandboxMode::WorkspaceWrite, false);
        sized.tmp_size_bytes = tmp_size_for(Some(cap_mib * 1024 * 1024));
        let sized = joined(&bwrap.confine(&sized).unwrap());
        let tmp = half - run * (1 + run_dirs);
        assert!(
            sized.contains(&format!("--size {tmp} --tmpfs /tmp ")),
            "{sized}"
        );
        assert!(
            sized.contains(&format!("--size {run} --tmpfs /run ")),
            "{sized}"
        );
        assert!(
            sized.contains(&format!("--size {run} --tmpfs /dev/shm ")),
            "{sized}"
        );
        assert!(tmp + run * (1 + run_dirs) <= cap_mib * 1024 * 1024 / 2);
    }
    assert_eq!(tmp_size_for(None), None);
}

/// A workspace named through a symbolic link is bound at that path and at its real one,
/// in the mode's way (a cwd naming the real directory made bubblewrap fail to chdir).
#[test]
fn a_workspace_named_through_a_link_is_bound_at_its_real_path_too() {
    let base = std::env::temp_dir().join(format!(
        "dsh-bwrap-link-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let real = base.join("real");
    std::fs::create_dir_all(&real).unwrap();
    let link = base.join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let bwrap = Bubblewrap::at(PathBuf::from("/usr/bin/bwrap"));
    for (mode, bind) in [
        (SandboxMode::WorkspaceWrite, "--bind"),
        (SandboxMode::ReadOnly, "--ro-bind"),
    ] {
        let mut linked = request(mode, false);
        linked.policy.workspace_root = link.clone();
        linked.cwd = Some(real.clone());
        let argv = joined(&bwrap.confine(&linked).unwrap());
        let real = std::fs::canonicalize(&real).unwrap();
        for path in [&link, &real] {
            let path = path.display();
            assert!(argv.contains(&format!("{bind} {path} {path} ")), "{argv}");
        }
    }
    std::fs::remove_dir_all(&base).unwrap();
}

/// The prelude fills in the terminal and the startup files' descriptors, in the options
/// only, and runs the rest unchanged (here `sh` stands in for bwrap and prints its argv).
#[test]
fn the_prelude_fills_the_placeholders_of_the_options_only() {
    let file = std::env::temp_dir().join(format!("dsh-prelude-{}", std::process::id()));
    std::fs::write(&file, "content").unwrap();
    let out = std::process::Command::new("/bin/sh")
        .args(["-c", PRELUDE, "dsh-sandbox", "/bin/sh", "-c"])
        .arg(r#"for a do printf '%s|' "$a"; done; cat <&3"#)
        .args(["printer", TTY, "--file", OPEN_FD])
        .arg(&file)
        .args(["--", TTY])
        .stdin(std::fs::File::open("/dev/null").unwrap())
        .output()
        .unwrap();
    // `/dev/null` is not a terminal: refused with a clear message.
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs the session's terminal"));
    let out = std::process::Command::new("/usr/bin/script")
        .args(["-qec"])
        .arg(format!(
            "/bin/sh -c '{prelude}' dsh-sandbox /bin/sh -c 'for a do printf \"%s|\" \"$a\"; done; cat <&3; cat <&4' printer {TTY} --file {OPEN_FD} {path} --add-seccomp-fd {OPEN_FD_NUMBER} {path} -- {TTY}",
            prelude = PRELUDE.replace('\'', r"'\''"),
            path = file.display()
        ))
        .arg("/dev/null")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    // A descriptor-only placeholder takes its path with it.
    let expected = format!(
        "|--file|3|{}|--add-seccomp-fd|4|--|{TTY}|contentcontent",
        file.display()
    );
    assert!(
        text.starts_with("/dev/pts/") && text.contains(&expected),
        "{text:?}"
    );
}

/// In `workspace-write`, the git directories and the directories pinned in them are bound
/// writable before what stays read-only; a directory that became a link since, or a
/// read-only path that is gone, is not bound.
#[test]
fn binds_git_directories_then_their_read_only_paths() {
    let dir = std::env::temp_dir().join(format!("dsh-bwrap-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = {
        std::fs::create_dir_all(dir.join("g/modules/s/hooks")).unwrap();
        std::fs::canonicalize(&dir).unwrap()
    };
    std::os::unix::fs::symlink(&dir, dir.join("g/link")).unwrap();
    let mut r = request(SandboxMode::WorkspaceWrite, false);
    let g = dir.join("g");
    r.policy.git_dirs = crate::GitDirs {
        writable: vec![g.clone()],
        pinned: vec![g.join("link"), g.join("modules"), g.join("modules/s")],
        read_only: vec![g.join("modules/s/config"), g.join("modules/s/hooks")],
    };
    let argv = joined(&Bubblewrap::at("/bin/sh").confine(&r).unwrap());
    // In `read-only` none of it is bound.
    r.policy.mode = SandboxMode::ReadOnly;
    let ro = joined(&Bubblewrap::at("/bin/sh").confine(&r).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ro.contains("--ro-bind /w /w --unshare-pid"), "{ro}");
    let g = g.display();
    assert!(
        argv.contains(&format!(
            "--bind /w /w --bind {g} {g} --bind {g}/modules {g}/modules \
             --bind {g}/modules/s {g}/modules/s --ro-bind {g}/modules/s/hooks \
             {g}/modules/s/hooks --unshare-pid"
        )),
        "{argv}"
    );
}

#[test]
fn refuses_empty_argv_and_missing_bwrap() {
    let mut r = request(SandboxMode::ReadOnly, false);
    r.argv.clear();
    assert!(matches!(
        Bubblewrap::at("/bin/sh").confine(&r),
        Err(SandboxError::EmptyArgv)
    ));
    let e = Bubblewrap::at("/nonexistent/bwrap")
        .confine(&request(SandboxMode::ReadOnly, false))
        .unwrap_err();
    insta::assert_snapshot!(e.to_string());
}

/// A bare name runs what the start-up check found on `PATH`, by its absolute path, so a
/// session's own `PATH` cannot change which program confines it.
#[test]
fn a_bare_name_runs_the_program_found_on_path() {
    let bwrap = Bubblewrap::at("sh");
    let found = bwrap.locate().unwrap();
    assert!(found.is_absolute(), "{found:?}");
    let argv = bwrap
        .confine(&request(SandboxMode::ReadOnly, false))
        .unwrap();
    assert_eq!(argv[4], found.into_os_string());
}

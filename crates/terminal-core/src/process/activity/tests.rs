//! The activity rules on thread waits, and how sleeping syscalls are told apart.

use super::*;

#[test]
fn verdict_rules() {
    use GroupActivity::{Busy, Idle};
    use Wait::*;
    const TTY: Wait = OnTty {
        only_tty: true,
        wakes_in: None,
    };
    const TTY_AMONG: Wait = OnTty {
        only_tty: false,
        wakes_in: None,
    };
    const TTY_TIMED: Wait = OnTty {
        only_tty: false,
        wakes_in: Some(Duration::from_millis(300)),
    };
    const TTY_TIMED_SOONER: Wait = OnTty {
        only_tty: false,
        wakes_in: Some(Duration::from_millis(20)),
    };
    const READING: GroupActivity = GroupActivity::ReadingTty {
        only_tty: true,
        wakes_in: None,
    };
    const READING_AMONG: GroupActivity = GroupActivity::ReadingTty {
        only_tty: false,
        wakes_in: None,
    };
    let cases: &[(&[Wait], GroupActivity, &str)] = &[
        (&[Running, TTY], Busy, "a running thread wins"),
        (&[TTY, Timer], READING, "a REPL with a timer thread reads"),
        (
            &[TTY_AMONG, Other],
            READING_AMONG,
            "an event loop that watches the tty",
        ),
        (
            &[TTY, TTY_AMONG],
            READING_AMONG,
            "one weak wait makes the verdict weak",
        ),
        (
            &[TTY, TTY_TIMED, TTY_TIMED_SOONER],
            GroupActivity::ReadingTty {
                only_tty: false,
                wakes_in: Some(Duration::from_millis(20)),
            },
            "the soonest timeout of the terminal waits",
        ),
        (&[TTY, Stopped], Idle, "a stopped job is not reading"),
        (&[Event, Timer], Idle, "a server with a housekeeping timer"),
        (
            &[TimedEvent, Other],
            GroupActivity::TimedWait,
            "an event loop with a timer pending",
        ),
        (
            &[Event, TimedEvent],
            Idle,
            "one thread waits with no timeout",
        ),
        (&[Timer], Busy, "sleep 5"),
        (&[Timer, Other], Busy, "a timed pause with futex waiters"),
        (&[Other], Idle, "blocked forever on a lock"),
        (
            &[],
            Busy,
            "the job is gone: its shell is taking the terminal back",
        ),
        (&[Stopped], Idle, "stopped"),
    ];
    for (waits, expected, why) in cases {
        assert_eq!(verdict(waits), *expected, "{why}");
        assert_eq!(group_verdict(&[waits.to_vec()]), *expected, "{why}");
    }
}

#[test]
fn an_event_loops_main_thread_decides_over_its_helpers() {
    use Wait::*;
    let node = with_main_event_loop(vec![TimedEvent, Event, Other], Some(TimedEvent));
    assert_eq!(verdict(&node), GroupActivity::TimedWait);
    let server = with_main_event_loop(vec![Event, Timer], Some(Event));
    assert_eq!(verdict(&server), GroupActivity::Idle);
    let helper_timed = with_main_event_loop(vec![Event, TimedEvent], Some(Event));
    assert_eq!(verdict(&helper_timed), GroupActivity::Idle);
    // A worker asleep on a timer beside a thread reading the terminal: it wakes by itself.
    let tty = OnTty {
        only_tty: true,
        wakes_in: None,
    };
    let worker = with_timer_beside_tty(vec![Timer, tty]);
    let reading = |wakes_in| GroupActivity::ReadingTty {
        only_tty: true,
        wakes_in,
    };
    assert_eq!(verdict(&worker), reading(Some(Duration::MAX)));
    assert_eq!(verdict(&with_timer_beside_tty(vec![tty])), reading(None));
}

#[test]
fn a_process_busy_on_its_own_keeps_an_idle_group_busy() {
    use GroupActivity::{Busy, Idle};
    use Wait::*;
    let cases: &[(&[&[Wait]], GroupActivity, &str)] = &[
        (&[&[Timer], &[Event]], Busy, "sleep 5 | cat"),
        (&[&[Event, Timer], &[Event]], Idle, "server | tee log"),
        (
            &[&[TimedEvent], &[Event]],
            GroupActivity::TimedWait,
            "curl … | cat",
        ),
        (&[&[Timer], &[TimedEvent]], Busy, "sleep 5 | a client"),
        (
            &[&[Event], &[Event]],
            Idle,
            "two processes blocked on pipes",
        ),
        (&[&[], &[Event]], Idle, "a member that just ended"),
        (&[&[Timer], &[Stopped]], Idle, "a stopped pipeline"),
        (
            &[
                &[Timer],
                &[OnTty {
                    only_tty: true,
                    wakes_in: None,
                }],
            ],
            GroupActivity::ReadingTty {
                only_tty: true,
                wakes_in: None,
            },
            "sleep 1 | less: less reads the terminal",
        ),
    ];
    for (processes, expected, why) in cases {
        let processes: Vec<Vec<Wait>> = processes.iter().map(|p| p.to_vec()).collect();
        assert_eq!(group_verdict(&processes), *expected, "{why}");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn sleeping_syscalls_are_told_apart() {
    let cases: &[(i64, [u64; 6], Wait, &str)] = &[
        (230, [0; 6], Wait::Timer, "clock_nanosleep"),
        (
            219,
            [0; 6],
            Wait::Timer,
            "restart_syscall: a timed wait resumed",
        ),
        (35, [0; 6], Wait::Timer, "nanosleep"),
        (
            7,
            [0x10, 1, 500, 0, 0, 0],
            Wait::TimedEvent,
            "poll on a socket with a timeout",
        ),
        (
            7,
            [0x10, 1, 0xffff_ffff, 0, 0, 0],
            Wait::Event,
            "poll on a socket",
        ),
        (7, [0, 0, 500, 0, 0, 0], Wait::Timer, "poll as a sleep"),
        (
            7,
            [0, 0, 0xffff_ffff, 0, 0, 0],
            Wait::Event,
            "poll on nothing forever",
        ),
        (271, [0, 0, 0x7ff0, 0, 0, 0], Wait::Timer, "ppoll sleep"),
        (23, [0, 0, 0, 0, 0x7ff0, 0], Wait::Timer, "select sleep"),
        (
            270,
            [4, 0x7ff0, 0, 0, 0x7ff8, 0],
            Wait::TimedEvent,
            "pselect6 on fds with a timeout",
        ),
        (270, [4, 0x7ff0, 0, 0, 0, 0], Wait::Event, "pselect6 on fds"),
        (43, [3, 0, 0, 0, 0, 0], Wait::Event, "accept"),
        (
            281,
            [5, 0, 1, 500, 0, 0],
            Wait::TimedEvent,
            "epoll with a timeout",
        ),
        (232, [5, 0, 1, 0xffff_ffff, 0, 0], Wait::Event, "epoll_wait"),
        (0, [3, 0x7ff0, 4096, 0, 0, 0], Wait::Event, "a socket read"),
        (61, [0; 6], Wait::Children { of: None }, "wait4"),
        (
            61,
            [u64::MAX, 0, 0, 0, 0, 0],
            Wait::Children { of: None },
            "wait4 for any child",
        ),
        (
            61,
            [42, 0, 0, 0, 0, 0],
            Wait::Children { of: Some(42) },
            "wait4 for one",
        ),
        (
            247,
            [1, 42, 0, 0, 0, 0],
            Wait::Children { of: Some(42) },
            "waitid P_PID",
        ),
        (
            247,
            [0, 0, 0, 0, 0, 0],
            Wait::Children { of: None },
            "waitid P_ALL",
        ),
        (202, [0; 6], Wait::Other, "futex"),
    ];
    for &(nr, args, expected, why) in cases {
        assert_eq!(sleeping_wait(SyscallLine { nr, args }), expected, "{why}");
    }
}

/// The threads a reading verdict rests on are followed after it: waiting while no input came,
/// no longer once a line came (the program took it and sleeps on a timer now), though the
/// look that found them is not taken again.
#[test]
fn the_readers_of_a_reading_verdict_are_followed_after_it() {
    use std::io::Write;
    use std::time::{Duration, Instant};

    use portable_pty::{CommandBuilder, PtySize, native_pty_system};

    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let tty = pair.master.tty_name().unwrap();
    let mut cmd = CommandBuilder::new("python3");
    cmd.args([
        "-c",
        "import sys, time; sys.stdin.readline(); time.sleep(60)",
    ]);
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let pid = i32::try_from(child.process_id().unwrap()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let until = |what: &str, check: &mut dyn FnMut() -> bool| {
        while !check() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    let scope = ProcessScope::everywhere();
    let mut readers = None;
    until("python3 to read its line", &mut || {
        let (activity, found) = group_activity_and_readers_in(pid, &tty, &scope);
        let reading = matches!(activity, GroupActivity::ReadingTty { .. });
        readers = reading.then_some(found);
        reading
    });
    let readers = readers.unwrap();
    assert!(readers.still_waiting());
    let mut writer = pair.master.take_writer().unwrap();
    writer.write_all(b"line\n").unwrap();
    until("python3 to take its line", &mut || !readers.still_waiting());
    child.kill().unwrap();
    child.wait().unwrap();
}

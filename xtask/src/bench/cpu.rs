//! CPU time of a process (from `/proc/PID/stat`, user + system, in clock ticks of 1/100 s) and
//! of the processes under it (from each thread's `/proc/PID/task/TID/schedstat`, in ns: a shell
//! answering one command uses well under a tick, and `stat` rounds each process down to whole
//! ticks), to split a figure's cost between the server, its shells and the client measuring them.

/// User + system CPU of one process (all its threads) so far, in clock ticks; 0 once it is gone.
pub(crate) fn process_ticks(pid: u32) -> u64 {
    stat_fields(pid).map_or(0, |f| ticks_of(&f))
}

/// CPU time so far of every live process below `root` (not `root` itself), in ns.
pub(crate) fn descendants_ns(root: u32) -> u64 {
    let all: Vec<(u32, u32, u64)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let f = stat_fields(pid)?;
            // ppid: field 4, the 2nd after the command name.
            let ppid = f.get(1)?.parse().ok()?;
            Some((pid, ppid, runtime_ns(pid)))
        })
        .collect();
    let mut below = vec![root];
    let mut total = 0;
    let mut i = 0;
    while i < below.len() {
        let parent = below[i];
        for &(pid, ppid, ns) in &all {
            if ppid == parent {
                below.push(pid);
                total += ns;
            }
        }
        i += 1;
    }
    total
}

/// Clock ticks as milliseconds (Linux's `USER_HZ` is 100).
pub(crate) fn ticks_ms(ticks: u64) -> f64 {
    ticks as f64 * 10.0
}

/// Time on a CPU so far of every thread of `pid`, in ns (the first field of each thread's
/// `schedstat`).
fn runtime_ns(pid: u32) -> u64 {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|t| {
            let s = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
            s.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum()
}

/// The fields of `/proc/PID/stat` after the command name.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// utime and stime: fields 14 and 15, the 12th and 13th after the command name.
fn ticks_of(fields: &[String]) -> u64 {
    [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum()
}

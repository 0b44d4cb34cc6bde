//! How much memory a run may take: the least of what the machine has free and what the limits
//! set on this process allow.
//!
//! A run the estimate (`budget`) accepts must not then fail to allocate: under an address-space
//! limit (`ulimit -v`) or a container's memory limit, an allocation past it aborts the process
//! (exit 134, no message a user can act on). So the default budget is the least of
//! - `MemAvailable` (/proc/meminfo): what the kernel can hand out without swapping;
//! - each cgroup's `memory.max` less its `memory.current` (cgroup v2; `memory.limit_in_bytes`
//!   less `memory.usage_in_bytes` under v1), this process's group and its ancestors;
//! - `RLIMIT_AS` less the address space already mapped (`VmSize`), and `RLIMIT_DATA` less the
//!   data already mapped (`VmData`);
//!
//! each with `HEADROOM` kept back (the estimate is an upper bound of what grows with the
//! scenario; allocators, thread stacks and libraries map more). A limit the user gives
//! (`--max-memory`) replaces `MemAvailable` (it may count on swap) but not the hard limits
//! (cgroup, rlimits): past those the run would abort whatever the user asked.

/// Used when nothing can be read (not Linux, or /proc hidden).
pub const FALLBACK_LIMIT: u64 = 8 << 30;

/// The fraction of each free figure kept back, as a divisor: 1/4.
const HEADROOM_DIVISOR: u64 = 4;

/// A memory limit and what sets it, for the refusal's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub source: &'static str,
}

impl MemoryLimit {
    fn least(self, other: Option<MemoryLimit>) -> MemoryLimit {
        match other {
            Some(o) if o.bytes < self.bytes => o,
            _ => self,
        }
    }
}

/// The limit of a run: `max_memory` (bytes) if given, else what the machine has free; in both
/// cases no more than the hard limits on this process allow.
pub fn effective(max_memory: Option<u64>) -> MemoryLimit {
    let soft = match max_memory {
        Some(bytes) => MemoryLimit { bytes, source: "--max-memory" },
        None => available().unwrap_or(MemoryLimit { bytes: FALLBACK_LIMIT, source: "default" }),
    };
    let hard = [
        cgroup(),
        rlimit_left(libc::RLIMIT_AS, "VmSize:", "ulimit -v"),
        rlimit_left(libc::RLIMIT_DATA, "VmData:", "ulimit -d"),
    ];
    hard.into_iter().fold(soft, MemoryLimit::least)
}

/// The default limit in bytes (`effective(None)`).
pub fn default_limit() -> u64 {
    effective(None).bytes
}

fn keep_headroom(free: u64) -> u64 {
    free - free / HEADROOM_DIVISOR
}

fn available() -> Option<MemoryLimit> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let bytes = keep_headroom(kib_field(&text, "MemAvailable:")?);
    Some(MemoryLimit { bytes, source: "MemAvailable" })
}

/// A `Name:   123 kB` line of /proc/meminfo or /proc/self/status, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// What the soft limit `resource` leaves above the process's current `status_field`.
#[allow(clippy::unnecessary_cast)] // rlim_t is u64 here, not on every platform
fn rlimit_left(resource: libc::__rlimit_resource_t, status_field: &str, source: &'static str) -> Option<MemoryLimit> {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes into `r`, a valid rlimit.
    if unsafe { libc::getrlimit(resource, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, status_field)?;
    Some(MemoryLimit { bytes: keep_headroom((r.rlim_cur as u64).saturating_sub(used)), source })
}

/// The least room any cgroup of this process leaves (v2, or v1's memory controller).
fn cgroup() -> Option<MemoryLimit> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let free = cgroup_free(&text, &|p| std::fs::read_to_string(p).ok())?;
    Some(MemoryLimit { bytes: keep_headroom(free), source: "the cgroup's memory limit" })
}

/// The least `limit - usage` over the process's memory cgroups and their ancestors, reading
/// files through `read` (a test gives a fake hierarchy).
fn cgroup_free(proc_cgroup: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<u64> {
    let number = |p: String| read(&p).and_then(|t| t.trim().parse::<u64>().ok());
    let mut least: Option<u64> = None;
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let (root, max, current) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        let mut dir = path.trim_end_matches('/').to_string();
        loop {
            // "max" (v2) does not parse: no limit at this level.
            if let (Some(m), Some(c)) = (number(format!("{root}{dir}/{max}")), number(format!("{root}{dir}/{current}")))
            {
                let free = m.saturating_sub(c);
                least = Some(least.map_or(free, |l| l.min(free)));
            }
            match dir.rfind('/') {
                Some(i) => dir.truncate(i),
                None => break,
            }
            if dir.is_empty() {
                break;
            }
        }
    }
    least
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kib_fields() {
        let meminfo = "MemTotal:       24684084 kB\nMemAvailable:   1000 kB\n";
        assert_eq!(kib_field(meminfo, "MemTotal:"), Some(24684084 * 1024));
        assert_eq!(kib_field(meminfo, "MemAvailable:"), Some(1_024_000));
        assert_eq!(kib_field("nothing", "MemTotal:"), None);
    }

    #[test]
    fn the_least_cgroup_room_counts_ancestors_and_v1() {
        let files = |p: &str| -> Option<String> {
            Some(
                match p {
                    "/sys/fs/cgroup/a/b/memory.max" => "max",
                    "/sys/fs/cgroup/a/b/memory.current" => "100",
                    "/sys/fs/cgroup/a/memory.max" => "1000",
                    "/sys/fs/cgroup/a/memory.current" => "400",
                    "/sys/fs/cgroup/memory/x/memory.limit_in_bytes" => "5000",
                    "/sys/fs/cgroup/memory/x/memory.usage_in_bytes" => "1000",
                    _ => return None,
                }
                .to_string(),
            )
        };
        assert_eq!(cgroup_free("0::/a/b\n", &files), Some(600));
        assert_eq!(cgroup_free("4:memory:/x\n3:cpu:/y\n", &files), Some(4000));
        assert_eq!(cgroup_free("0::/\n", &files), None);
    }

    #[test]
    fn a_given_limit_is_kept_below_the_hard_ones() {
        assert_eq!(effective(Some(1 << 20)).bytes, 1 << 20);
        assert!(default_limit() >= 1 << 20);
    }
}

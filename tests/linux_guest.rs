//! Unmodified Linux on the plugin (scripts/linux-guest/). Debian 12's s390x kernel (6.1),
//! lscpumf and perf run in a 2-CPU guest: the facilities are detected, perf stat reads the
//! counter facility, perf record samples with the sampling facility, and the kernel logs no
//! CPU-MF error. Without the plugin the facilities are absent and the guest still runs to its
//! end. Debian 13's (Linux 6.12, perf 6.12, s390-tools 2.35) runs on 4 CPUs of a z14: per-CPU
//! counting, sampling of every CPU, CPU hotplug while both measure, and AUX-mode diagnostic
//! sampling. Skips (recorded, `common::skip`: not a pass) only when the Debian packages
//! cannot be downloaded or the guest cannot be built from them. Runs on either Hercules
//! (`HCPUMF_HERCULES`, scripts/linux-guest/run.sh) and fails, as every Hercules run of the
//! tests, on a caught panic, a panic message, a signal or an exit status but 0.
mod common;
use std::process::Command;
use std::sync::Mutex;

// The guest is built in one cache directory: one boot at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn boot(plugin: bool) -> Option<String> {
    boot_release("bookworm", 2, plugin, &[])
}

fn boot_release(release: &str, cpus: u32, plugin: bool, env: &[(&str, &str)]) -> Option<String> {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let root = env!("CARGO_MANIFEST_DIR");
    let build = Command::new("bash")
        .arg(format!("{root}/scripts/linux-guest/build.sh"))
        .arg(release)
        .output()
        .expect("bash");
    if !build.status.success() {
        let err = String::from_utf8_lossy(&build.stderr);
        eprintln!("linux_guest: scripts/linux-guest/build.sh {release}:\n{err}");
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        common::skip(
            "download",
            &format!(
                "Debian {release}'s s390x packages could not be downloaded or the guest not \
                 built (build.sh {}): {}",
                build.status,
                tail.join(" / ")
            ),
        );
        return None;
    }
    // What the build took from the mirror (and what it substituted, or could not check),
    // and the kernel, perf and s390-tools that boot: build.sh lists the packages in
    // `versions` next to the .ins file it prints last.
    for l in String::from_utf8_lossy(&build.stderr).lines() {
        eprintln!("linux_guest: {release}: {l}");
    }
    let stdout = String::from_utf8_lossy(&build.stdout);
    let ins = std::path::Path::new(stdout.lines().last().unwrap_or_default().trim());
    let versions = ins.with_file_name("versions");
    match std::fs::read_to_string(&versions) {
        Ok(v) => {
            for l in v.lines().filter(|l| {
                l.starts_with("linux-image-")
                    || l.starts_with("linux-perf ")
                    || l.starts_with("s390-tools ")
            }) {
                eprintln!("linux_guest: {release} boots {l}");
            }
        }
        Err(e) => eprintln!("linux_guest: {}: {e}", versions.display()),
    }
    let mut cmd = Command::new("bash");
    // run.sh stops Hercules only when the console stays silent (a slow host lengthens the
    // run, it does not fail it).
    cmd.arg(format!("{root}/scripts/linux-guest/run.sh"))
        .arg(cpus.to_string())
        .arg(release)
        .envs(env.iter().copied());
    if !plugin {
        cmd.env("NOPLUGIN", "1");
    }
    let out = cmd.output().expect("run.sh");
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    // Per test process: two checkouts' runs on one machine keep their own.
    let keep = std::env::temp_dir().join(format!(
        "hcpumf-linux-guest-{release}-{plugin}-{}.log",
        std::process::id()
    ));
    std::fs::write(&keep, &log).ok();
    eprintln!("linux_guest: console output in {}", keep.display());
    let fatal = common::fatal_lines(&log);
    assert!(fatal.is_empty(), "{}\n{log}", fatal.join("\n"));
    assert!(
        log.trim_end().ends_with("run.sh: Hercules exit status 0"),
        "Hercules did not end cleanly ({}):\n{log}",
        log.lines().last().unwrap_or_default()
    );
    Some(log)
}

/// The guest's lines tagged `tag`. The kernel's own console messages share the 3215 console
/// and can run into a tagged line (a message cut at 150 bytes has no newline), so the tag
/// may appear anywhere in a line.
fn lines<'a>(log: &'a str, tag: &str) -> Vec<&'a str> {
    log.lines()
        .filter_map(|l| l.find(tag).map(|i| &l[i + tag.len()..]))
        .map(str::trim)
        .collect()
}

fn stat(log: &str, event: &str) -> Option<f64> {
    lines(log, "STAT:")
        .into_iter()
        .find(|l| l.contains(event))
        .and_then(|l| l.split(',').next())
        .and_then(|v| v.trim().parse().ok())
}

/// A NSAMP line: `<percent>% <samples> work <cycles>`.
fn samples_and_cycles(log: &str, tag: &str) -> (f64, f64) {
    let l = lines(log, tag);
    let f: Vec<&str> = l
        .first()
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    match (
        f.get(1).and_then(|v| v.parse().ok()),
        f.get(3).and_then(|v| v.parse().ok()),
    ) {
        (Some(n), Some(c)) if f.get(2) == Some(&"work") => (n, c),
        _ => panic!("{tag} not as expected: {l:?}"),
    }
}

/// `poweroff -f` after HCPUMF-END: the kernel stops its CPUs with SIGP stop.
fn powered_off(log: &str) {
    let end = log.find("HCPUMF-END").unwrap_or(0);
    assert!(
        common::hercules().said_every_cpu_stopped(&log[end..]),
        "the guest did not power off:\n{}",
        &log[end..]
    );
}

/// The kernel log's CPU-MF lines (`DMESG:`), after checking that the guest read the log
/// (`DMESG-COUNT: <lines> <bad>`: a missing or empty log is a failure, not a clean one) and
/// that none of its CPU-MF lines reports lost or incorrect sample data.
fn dmesg_checked(log: &str) -> String {
    let dmesg = lines(log, "DMESG:").join("\n");
    let count = lines(log, "DMESG-COUNT:");
    let nums: Vec<u64> = count
        .first()
        .map(|l| {
            l.split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        nums.len() == 2 && nums[0] > 0,
        "the guest did not read its kernel log: {count:?}"
    );
    assert_eq!(nums[1], 0, "kernel log: {dmesg}");
    for bad in ["incorrect", "lost"] {
        assert!(!dmesg.contains(bad), "kernel log: {dmesg}");
    }
    dmesg
}

/// The share of the samples of CPU `cpu` (`000`...) in `perf report --sort cpu` lines
/// (`<percent>%  <cpu>`), 0 if it has none.
fn cpu_share(report: &[&str], cpu: &str) -> f64 {
    report
        .iter()
        .find(|l| l.ends_with(cpu))
        .and_then(|l| l.split('%').next())
        .and_then(|p| p.trim().parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn crypto(log: &str, event: &str) -> Option<f64> {
    lines(log, "CRYPTO:")
        .into_iter()
        .find(|l| l.contains(event))
        .and_then(|l| l.split(',').next())
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn linux_perf_and_lscpumf_use_the_facilities() {
    let Some(log) = boot(true) else { return };
    bookworm_results(&log);
}

/// The same guest and the same results with `dedicated=yes`: the CPUs' sampling timers run
/// on while they wait and the sampler stores W = 1 entries for the waits (SA23-2260, BSDE
/// programming note 5), which Linux's cpum_sf takes as samples with the PSW's wait bit
/// (`perf_push_sample`). Nothing of what perf counts and records for the workloads, nor the
/// kernel's log, may change: the busy CPUs' samples are still one per interval of their
/// cycles, and no sample-data block overflows or is lost.
#[test]
fn linux_perf_on_dedicated_cpus() {
    let Some(log) = boot_release("bookworm", 2, true, &[("HCPUMF_OPTIONS", "dedicated=yes")])
    else {
        return;
    };
    assert!(
        log.contains("dedicated CPUs (sampled in the wait state)"),
        "the plugin did not take the CPUs as dedicated:\n{log}"
    );
    bookworm_results(&log);
}

/// What the bookworm guest's init reports, checked (`scripts/linux-guest/init`).
fn bookworm_results(log: &str) {
    let log = log.to_string();
    assert!(
        log.contains("HCPUMF-END"),
        "the guest did not finish:\n{log}"
    );
    let fac = lines(&log, "FACILITIES:").join(" ");
    for f in ["40", "67", "68", "142"] {
        assert!(
            fac.split_whitespace().any(|x| x == f),
            "facility {f}: {fac}"
        );
    }
    let pmus = lines(&log, "PMUS:").join(" ");
    assert!(
        pmus.contains("cpum_cf") && pmus.contains("cpum_sf"),
        "{pmus}"
    );
    let sl = lines(&log, "SL:").join("\n");
    assert!(
        sl.contains("Counter facility: version=1.1 authorization=800f"),
        "{sl}"
    );
    assert!(
        sl.contains("Sampling facility: min_rate=220200 max_rate=4404000000 cpu_speed=4404"),
        "{sl}"
    );
    assert!(sl.contains("mode=basic sample_size=32"), "{sl}");
    let ls = lines(&log, "LSCPUMF-I:").join("\n");
    assert!(
        ls.contains("Version: 1.1") && ls.contains("Basic counter Set"),
        "{ls}"
    );
    assert!(ls.contains("Minimum:     220200 cycles"), "{ls}");
    assert!(ls.contains("Maximum: 4404000000 cycles"), "{ls}");
    for set in [
        "Basic counter Set",
        "Problem-State counter Set",
        "Crypto-Activity counter Set",
        "Extended counter Set",
    ] {
        assert!(ls.contains(set), "{set} not authorized: {ls}");
    }
    assert!(
        ls.contains("Authorized sampling modes:") && ls.contains("basic"),
        "{ls}"
    );
    // lscpumf -c picks its counter table from the CPU model the guest sees (STIDP 2097).
    let lc = lines(&log, "LSCPUMF-C:").join("\n");
    assert!(lc.contains("IBM System z10 EC"), "{lc}");
    // perf stat over /work: 100,000,000 BRCTGs in user space (plus exec and exit).
    let instr = stat(&log, "cpum_cf/INSTRUCTIONS/").expect("INSTRUCTIONS");
    assert!((instr - 1e8).abs() / 1e8 < 0.05, "instructions {instr}");
    let prob = stat(&log, "PROBLEM_STATE_INSTRUCTIONS").expect("PROBLEM_STATE_INSTRUCTIONS");
    assert!(
        prob / instr > 0.85 && prob <= instr,
        "problem-state instructions {prob} of {instr}"
    );
    let cycles = stat(&log, "cpum_cf/CPU_CYCLES/").expect("CPU_CYCLES");
    let enabled_ns: f64 = lines(&log, "STAT:")
        .into_iter()
        .find(|l| l.contains("CPU_CYCLES"))
        .and_then(|l| l.split(',').nth(3))
        .and_then(|v| v.parse().ok())
        .expect("enabled time");
    // Cycles are the CPU thread's host CPU time at 4404 cycles/us: never more than the
    // enabled (TOD) time allows, less when the host does not run the thread all the time
    // (83-97% seen on CI; on a loaded host as little as the host gives). Their ratio to the
    // exact instruction count, the CPI, is what the emulation costs per instruction, which
    // the host's load does not change: tens of cycles on any host this runs on.
    let ratio = cycles / (enabled_ns * 4.404);
    assert!(
        ratio < 1.05,
        "cycles {cycles} over {enabled_ns} ns: {ratio}"
    );
    // What bounds the CPI from outside the plugin: cycles are CPU time x 4,404, and no
    // interpreter on a host core executes 2,000 guest instructions a microsecond (CPI 2.2),
    // nor is Hercules slower than about 9 million a CPU-second (CPI 500). The emulator's own
    // speed has no independent value to hold it to; the sample counts below check the
    // cycles against the sampling facility's intervals.
    let cpi = cycles / instr;
    assert!((2.0..500.0).contains(&cpi), "CPI {cpi} ({cycles} cycles)");
    // The crypto-activity counters over /sha: 1,000 KIMD-SHA-256 calls (each possibly
    // several executions ending in partial completion), no DEA.
    let sha = crypto(&log, "SHA_FUNCTIONS").expect("SHA_FUNCTIONS");
    assert!(sha >= 1000.0, "SHA functions {sha}");
    let sha_cycles = crypto(&log, "SHA_CYCLES").expect("SHA_CYCLES");
    assert!(sha_cycles > 0.0, "SHA cycles {sha_cycles}");
    assert_eq!(crypto(&log, "DEA_FUNCTIONS"), Some(0.0), "DEA functions");
    // perf record with cpum_sf: the hot function is the top symbol.
    let report = lines(&log, "REPORT:");
    let top = report.first().expect("perf report output");
    assert!(top.ends_with("hot"), "{report:?}");
    let share: f64 = top
        .split('%')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    assert!(share > 60.0, "{report:?}");
    // Sample counts: perf record samples a perf stat that counts the cycles of /work in the
    // same run; the samples of /work are one per interval of those cycles (-c 500000, and
    // -F 2000 = an interval of 4404 * 10^6 / 2000 cycles).
    for (tag, interval) in [("NSAMP-c:", 500_000.0), ("NSAMP-F:", 4404e6 / 2000.0)] {
        let (n, ran) = samples_and_cycles(&log, tag);
        let expected = ran / interval;
        assert!(
            (n / expected - 1.0).abs() < 0.05,
            "{tag} {n} samples, {expected:.0} expected from {ran} cycles"
        );
    }
    // perf record -a -F 2000 while both CPUs run the workload: samples from both CPUs, no
    // lost records.
    let cpus = lines(&log, "CPUS:");
    for c in ["000", "001"] {
        assert!(cpu_share(&cpus, c) > 10.0, "CPU {c}: {cpus:?}");
    }
    let stats = lines(&log, "STATS:").join("\n");
    assert!(stats.contains("SAMPLE events"), "{stats}");
    assert!(!stats.to_ascii_uppercase().contains("LOST"), "{stats}");
    powered_off(&log);
    dmesg_checked(&log);
}

#[test]
fn without_the_plugin_the_facilities_are_absent() {
    let Some(log) = boot(false) else { return };
    assert!(
        log.contains("HCPUMF-END"),
        "the guest did not finish:\n{log}"
    );
    let fac = lines(&log, "FACILITIES:").join(" ");
    for f in ["67", "68", "142"] {
        assert!(
            !fac.split_whitespace().any(|x| x == f),
            "facility {f}: {fac}"
        );
    }
    let pmus = lines(&log, "PMUS:").join(" ");
    assert!(
        !pmus.contains("cpum_cf") && !pmus.contains("cpum_sf"),
        "{pmus}"
    );
    powered_off(&log);
}

/// One CSV line of `perf stat -x,` (`value,unit,event,enabled-ns,...`) for `event`, per CPU
/// with `-A` (`CPUn,value,...`): the value and the enabled time.
fn stat_a(log: &str, cpu: &str, event: &str) -> Option<(f64, f64)> {
    let l = lines(log, "STATA:")
        .into_iter()
        .find(|l| l.starts_with(&format!("{cpu},")) && l.contains(event))?;
    let f: Vec<&str> = l.split(',').collect();
    Some((f.get(1)?.parse().ok()?, f.get(4)?.parse().ok()?))
}

#[test]
fn debian_13_linux_6_12_measures_four_cpus_through_cpu_hotplug() {
    let Some(log) = boot_release("trixie", 4, true, &[("CPUMODEL", "3906")]) else {
        return;
    };
    // The results come from the guest's disk (run.sh prints it after the console).
    let Some((_, disk)) = log.split_once("=== DISK ===") else {
        panic!("the guest wrote no results disk:\n{log}");
    };
    assert!(
        disk.contains("HCPUMF-END"),
        "the guest did not finish:\n{log}"
    );
    let kernel = lines(disk, "KERNEL:").join(" ");
    eprintln!("linux_guest: trixie guest's uname -r: {kernel}");
    assert!(kernel.starts_with("6.12."), "{kernel}");
    let fac = lines(disk, "FACILITIES:").join(" ");
    for f in ["40", "67", "68", "142"] {
        assert!(
            fac.split_whitespace().any(|x| x == f),
            "facility {f}: {fac}"
        );
    }
    assert_eq!(lines(disk, "CPUS:"), ["0-3"]);
    // A z14 (CPUMODEL 3906): counter facility 1, counter-second version 5 (the z14's
    // SMF113_2_CTRVN2 in "CPU MF Formulas", seed 003), 5,208 cycles per microsecond, and the
    // sampling interval bounds QSI gives for that speed.
    let sl = lines(disk, "SL:").join("\n");
    assert!(sl.contains("Counter facility: version=1.5 "), "{sl}");
    assert!(
        sl.contains("Sampling facility: min_rate=260400 max_rate=5208000000 cpu_speed=5208"),
        "{sl}"
    );
    assert!(sl.contains("mode=diagnostic sample_size=64"), "{sl}");
    let lc = lines(disk, "LSCPUMF-C:").join("\n");
    assert!(lc.contains("IBM z14"), "{lc}");
    // chcpumf -m 64 raises the kernel's minimum number of sample-data blocks.
    assert_eq!(lines(disk, "CHCPUMF-RC:"), ["0"]);
    let dmesg = dmesg_checked(disk);
    assert!(dmesg.contains("limits have changed to: min 64"), "{dmesg}");
    // perf stat -a -A while four workloads keep every CPU busy: each CPU counts its own
    // cycles (its thread's CPU time at 5,208 per microsecond, no more than the enabled time
    // allows) and instructions, at an emulator's CPI.
    let mut ratios = Vec::new();
    for cpu in ["CPU0", "CPU1", "CPU2", "CPU3"] {
        let (cycles, enabled) = stat_a(disk, cpu, "CPU_CYCLES").expect(cpu);
        let (instr, _) = stat_a(disk, cpu, "INSTRUCTIONS").expect(cpu);
        let ratio = cycles / (enabled * 5.208);
        assert!(
            (0.02..1.05).contains(&ratio),
            "{cpu}: {cycles} cycles in {enabled} ns"
        );
        ratios.push(ratio);
        let cpi = cycles / instr;
        assert!((2.0..500.0).contains(&cpi), "{cpu}: CPI {cpi}");
    }
    // The four CPU threads' CPU time together cannot exceed what the host's cores give in
    // the enabled time: cycles that were not the threads' CPU time would show here (four
    // threads counting wall time give 4.0 on a 2-core host).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let sum: f64 = ratios.iter().sum();
    eprintln!("linux_guest: the four CPUs' cycles over the enabled time: {ratios:.3?}, {sum:.3} of {cores} cores");
    assert!(
        sum <= cores * 1.05,
        "the four CPUs counted {sum:.3} cores' worth of cycles on a {cores}-core host: {ratios:?}"
    );
    // perf record -a: samples from every CPU, no lost records.
    let rcpu = lines(disk, "RCPU:");
    for c in ["000", "001", "002", "003"] {
        assert!(cpu_share(&rcpu, c) > 10.0, "CPU {c}: {rcpu:?}");
    }
    for tag in ["RSTATS:", "HSTATS:"] {
        let stats = lines(disk, tag).join("\n");
        assert!(stats.contains("SAMPLE events"), "{tag} {stats}");
        assert!(
            !stats.to_ascii_uppercase().contains("LOST"),
            "{tag} {stats}"
        );
    }
    // CPU 2 goes offline and back ten times while perf stat -a and perf record -a measure:
    // all CPUs come back, the counts go on, and the kernel warns of nothing.
    assert_eq!(lines(disk, "HOTPLUG:"), ["10 cycles, online 0-3"]);
    let hstat: f64 = lines(disk, "HSTAT:")
        .first()
        .and_then(|l| l.split(',').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    assert!(hstat > 0.0, "{:?}", lines(disk, "HSTAT:"));
    assert_eq!(
        lines(disk, "WARNINGS:"),
        ["0"],
        "{}",
        lines(disk, "DWARN:").join("\n")
    );
    // AUX-mode diagnostic sampling: perf decodes basic and diagnostic entries.
    let aux: u32 = lines(disk, "DIAGAUX:")
        .first()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(aux > 0, "no AUX records");
    let dump = lines(disk, "DIAGDUMP:").join("\n");
    assert!(dump.contains("Basic") && dump.contains("Diag"), "{dump}");
}

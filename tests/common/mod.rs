//! Scripted Hercules runs for the integration tests, on either Hercules (`dialect.rs`:
//! `HCPUMF_HERCULES=313`, the default, or `hyperion`).
//!
//! A test assembles a guest program (`tests/guest/*.s`, with `lowcore.inc`) with
//! `s390x-linux-gnu-as`, links it at address 0, writes a Hercules configuration that loads
//! the plugin and an rc file that loads the program with `loadcore` and restarts the CPU(s),
//! runs Hercules without its panel bounded by `timeout`, and ends the run through the
//! automatic operator when CPU 0 enters a disabled wait: the check script displays storage
//! and quits. Results are read from the `r` displays in the log.
//!
//! A run fails loudly, printing the log, when the module did not load, Hercules refused a
//! configuration statement, the plugin caught a panic (`HHCMF999E`) or anything panicked,
//! the plugin's sampler thread failed (`HHCMF09nE`), Hercules died by a signal, timed out
//! or ended with any exit status but 0, or CPU 0 never reached its disabled wait. A run is
//! repeated only when the automatic operator missed CPU 0's wait and either the plugin was
//! not loaded or the run ended cleanly; each retry is recorded (`skip.rs`) and listed in the
//! summary of `scripts/test.sh`.
#![allow(dead_code)]

mod dialect;
mod skip;
pub mod stored;

#[allow(unused_imports)]
pub use dialect::{hercules, Dialect, Hercules, HYPERION, V313};
pub use skip::{note_retry, skip};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicU32, Ordering};

/// Run the rest of the test only on Hercules `which`: on the other one, record a skip (a
/// test about one Hercules' behaviour, `reason` says which) and answer false.
pub fn only_on(which: Hercules, reason: &str) -> bool {
    let d = hercules();
    if d.which == which {
        return true;
    }
    skip("hercules", &format!("not on {}: {reason}", d.name));
    false
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The plugin under test: $HCPUMF_SO, else target/{release,debug}/libhcpumf.so (newest).
pub fn plugin() -> PathBuf {
    if let Ok(p) = std::env::var("HCPUMF_SO") {
        return PathBuf::from(p);
    }
    let cands = [
        root().join("target/release/libhcpumf.so"),
        root().join("target/debug/libhcpumf.so"),
    ];
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    for c in cands {
        if let Ok(md) = std::fs::metadata(&c) {
            let t = md.modified().unwrap_or(std::time::UNIX_EPOCH);
            if best.as_ref().map(|(bt, _)| t > *bt).unwrap_or(true) {
                best = Some((t, c));
            }
        }
    }
    best.map(|(_, p)| p)
        .expect("libhcpumf.so not built: run `cargo build --release` first")
}

/// The report tool the tests run on the files a run wrote: $HCPUMF_REPORT, else the
/// `hcpumf-report` that the same cargo build put beside this test's own directory
/// (`target/<profile>/deps/..`). It is another package of the workspace, so `cargo test
/// --workspace` (scripts/test.sh) builds it; `cargo test -p hcpumf` alone may not.
pub fn report_tool() -> PathBuf {
    if let Ok(p) = std::env::var("HCPUMF_REPORT") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executable in target/<profile>/deps");
    let tool = dir.join(format!("hcpumf-report{}", std::env::consts::EXE_SUFFIX));
    assert!(
        tool.exists(),
        "{} not built: run `cargo build --release -p hcpumf-report` (or `cargo test --workspace`)",
        tool.display()
    );
    tool
}

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A fresh scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "hcpumf-{}-{}-{}",
        name,
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// The files in `dir` whose names contain `suffix` (e.g. ".SMP"), sorted.
pub fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("output dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains(suffix))
        .collect();
    v.sort();
    v
}

/// Assemble and link `tests/guest/<name>.s` at address 0; returns the flat binary.
pub fn assemble(name: &str, dir: &Path) -> PathBuf {
    let guest = root().join("tests/guest");
    let src = guest.join(format!("{name}.s"));
    let obj = dir.join(format!("{name}.o"));
    let elf = dir.join(format!("{name}.elf"));
    let bin = dir.join(format!("{name}.bin"));
    let out = Command::new("s390x-linux-gnu-as")
        .args(["-march=z13", "-I"])
        .arg(&guest)
        .arg("-o")
        .arg(&obj)
        .arg(&src)
        .output()
        .expect("s390x-linux-gnu-as (run scripts/setup.sh)");
    assert!(
        out.status.success(),
        "assembling {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("s390x-linux-gnu-ld")
        .args(["-Ttext=0", "-e", "0", "--no-relax", "-o"])
        .arg(&elf)
        .arg(&obj)
        .output()
        .expect("s390x-linux-gnu-ld");
    assert!(
        out.status.success(),
        "linking {}:\n{}",
        name,
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("s390x-linux-gnu-objcopy")
        .args(["-O", "binary", "-j", ".text"])
        .arg(&elf)
        .arg(&bin)
        .output()
        .expect("s390x-linux-gnu-objcopy");
    assert!(out.status.success(), "objcopy {name}");
    bin
}

/// How to run Hercules.
#[derive(Clone, Debug)]
pub struct Config {
    pub numcpu: u32,
    pub archmode: &'static str,
    pub cpumodel: &'static str,
    pub mainsize_mb: u32,
    /// Load the plugin (a run without it shows what plain Hercules does).
    pub plugin: bool,
    /// Console commands before the program starts (after loadcore).
    pub before: Vec<String>,
    /// Console commands when CPU 0 finished, before the storage displays.
    pub after: Vec<String>,
    /// Storage ranges to display when done: (address, length).
    pub show: Vec<(u64, u64)>,
    /// Start every CPU (each gets a restart), not just CPU 0.
    pub start_all: bool,
    /// Seconds before the run is killed: a guard against hangs, not a time limit of the
    /// guest's work. The default is generous: `demo_workload` is 7 s of CPU time on the
    /// development VM (1.2 G instructions at a CPI of 25), and Hercules' CPU threads run at
    /// nice 15, so on a loaded 2-core host with two tests at once it took over 60 s.
    pub timeout: u32,
    /// Extra environment (e.g. HCPUMF_OPTIONS).
    pub env: Vec<(String, String)>,
    /// Extra configuration-file statements (e.g. `DIAG8CMD ENABLE`), before `ldmod`.
    pub config: Vec<String>,
    /// `ldmod` among the system statements (before the first device statement, where
    /// people put it: Hercules has not built the CPU ID yet), not after the devices.
    pub ldmod_first: bool,
    /// Console commands while the guest runs (after the restarts; `pause N` waits).
    pub during: Vec<String>,
    /// A command Hercules runs under, given Hercules' path and arguments (the harness's own
    /// tests put a crash or a message after a real run this way).
    pub wrap: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            numcpu: 1,
            archmode: "z/Arch",
            cpumodel: "2097",
            mainsize_mb: 64,
            plugin: true,
            before: Vec::new(),
            after: Vec::new(),
            show: vec![(0x3000, 0x400), (0x37f0, 0x110), (0x3bf0, 0x90)],
            start_all: false,
            timeout: 180,
            env: Vec::new(),
            config: Vec::new(),
            ldmod_first: false,
            during: Vec::new(),
            wrap: Vec::new(),
        }
    }
}

/// What a run left behind.
#[derive(Debug)]
pub struct Outcome {
    pub log: String,
    pub storage: BTreeMap<u64, u8>,
    pub dir: PathBuf,
    /// Host CPU time (ns) of Hercules' busiest thread when CPU 0 entered its disabled wait:
    /// the CPU thread of a one-CPU guest (Linux schedstat: time on a host CPU).
    pub busiest_thread_ns: Option<u64>,
}

impl Outcome {
    /// Bytes displayed at `addr`.
    pub fn bytes(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| {
                *self
                    .storage
                    .get(&(addr + i))
                    .unwrap_or_else(|| panic!("{:#x} was not displayed\n{}", addr + i, self.log))
            })
            .collect()
    }
    /// Big-endian doubleword displayed at `addr`.
    pub fn u64(&self, addr: u64) -> u64 {
        let b = self.bytes(addr, 8);
        u64::from_be_bytes(b.try_into().expect("8 bytes"))
    }
    /// Big-endian word at `addr`.
    pub fn u32(&self, addr: u64) -> u32 {
        let b = self.bytes(addr, 4);
        u32::from_be_bytes(b.try_into().expect("4 bytes"))
    }
    /// Big-endian halfword at `addr`.
    pub fn u16(&self, addr: u64) -> u16 {
        let b = self.bytes(addr, 2);
        u16::from_be_bytes(b.try_into().expect("2 bytes"))
    }
    /// Program-interruption codes logged by lowcore.inc's handler, in order.
    pub fn program_checks(&self) -> Vec<u16> {
        let n = self.u64(0x37f8);
        // The first 32 of the 120 lowcore.inc logs are displayed by default.
        (0..n.min(32))
            .map(|i| (self.u64(0x3800 + 8 * i) & 0xffff) as u16)
            .collect()
    }
    /// External interruptions logged by lowcore.inc's handler: (code, parameter).
    pub fn external_interruptions(&self) -> Vec<(u16, u32)> {
        let n = self.u64(0x3bf8);
        (0..n.min(16))
            .map(|i| {
                let v = self.u64(0x3c00 + 8 * i);
                ((v >> 32) as u16, v as u32)
            })
            .collect()
    }
    /// The first basic-sampling data entry of the loop at `lp` among the first three of the
    /// block at `sdb`. It is the first entry unless the host charged the CPU's thread an
    /// interval's CPU time on the few instructions between the activating LSCTL and the loop
    /// (the cycles are that time: tests/sampling_s370.rs); the entries before it, if any,
    /// must then be of those instructions, just before the loop.
    pub fn first_sample_of_loop(&self, sdb: u64, lp: u64) -> u64 {
        let first = (0..3u64)
            .map(|k| sdb + 32 * k)
            .find(|&a| self.u64(a + 8) == lp)
            .unwrap_or_else(|| panic!("no sample of the loop {lp:#x} among the first three"));
        for a in (sdb..first).step_by(32) {
            let ia = self.u64(a + 8);
            assert!(
                (lp - 0x40..lp).contains(&ia),
                "sample at {ia:#x}, neither the loop nor just before it"
            );
        }
        first
    }
    /// Did the log say this?
    pub fn said(&self, text: &str) -> bool {
        self.log.contains(text)
    }
    /// The number right after `after` in every line of the log that holds `tag` and
    /// `after` (as `hcpumf status` prints its figures).
    fn numbers_after<'a>(&'a self, tag: &'a str, after: &'a str) -> impl Iterator<Item = u64> + 'a {
        self.log
            .lines()
            .filter(move |l| l.contains(tag))
            .filter_map(move |l| l.split(after).nth(1))
            .filter_map(|t| t.split(|c: char| !c.is_ascii_digit()).next())
            .filter_map(|n| n.parse::<u64>().ok())
    }
    /// The intervals a HIS run's sampling clocks missed, all CPUs, as the last `hcpumf his status`
    /// says (HHCMF048I "N intervals missed"): stretches whose CPU time (and cycles) no sample
    /// stands for.
    pub fn his_intervals_missed(&self) -> Option<u64> {
        self.numbers_after("HHCMF048I", " us at most; ").last()
    }
    /// Samples the sampler thread took from outside the running CPUs, summed over every
    /// `hcpumf status` line of the run ("samples taken without one N").
    pub fn samples_taken_outside(&self) -> u64 {
        self.numbers_after("HHCMF021I", "samples taken without one ")
            .sum()
    }
    /// HIS-run samples the sampler left to the tick because the CPU switched address spaces
    /// between its reads of the registers and of the PSA, summed over every `hcpumf status`
    /// line of the run ("left to it at an address-space switch N").
    pub fn samples_left_at_space_switch(&self) -> u64 {
        self.numbers_after("HHCMF021I", "address-space switch ")
            .sum()
    }
    /// What `hcpumf status` says of the sampler thread's cost (HHCMF022I): its CPU time
    /// in ms, and the samples it divides that by.
    pub fn sampler_cost(&self) -> Option<(u64, u64)> {
        let cpu_ms = self.numbers_after("HHCMF022I", "; CPU ").next()?;
        let samples = self.numbers_after("HHCMF022I", " us per sample (").next()?;
        Some((cpu_ms, samples))
    }
    /// The guest's samples stored per `hcpumf status` (HHCMF021I "samples N"), all CPUs.
    pub fn samples_stored(&self) -> u64 {
        self.numbers_after("HHCMF021I", " samples ").sum()
    }
    /// The disabled-wait PSW address of CPU 0 (0 = the test's DONE, 0xbad = FAIL).
    pub fn wait_code(&self) -> Option<u64> {
        hercules().wait_code(&self.log)
    }
    /// Did CPU 0 reach a disabled wait (whatever its code)?
    pub fn reached_disabled_wait(&self) -> bool {
        self.log.contains(hercules().cpu0_wait)
    }
}

/// Run guest program `name` under Hercules with `cfg`.
pub fn run(name: &str, cfg: &Config) -> Outcome {
    let dir = scratch(name);
    let bin = assemble(name, &dir);
    run_binary(&bin, &dir, cfg)
}

/// Run an already-built binary.
pub fn run_binary(bin: &Path, dir: &Path, cfg: &Config) -> Outcome {
    let d = hercules();
    let conf = dir.join("hercules.cnf");
    let rc = dir.join("hercules.rc");
    let check = dir.join("check.rc");
    let so = plugin();
    let ldmod = format!("ldmod {}\n", so.display());
    let mut c = String::new();
    for line in d.config_prelude {
        c.push_str(line);
        c.push('\n');
    }
    c.push_str(&format!(
        "ARCHMODE {}\nMAINSIZE {}\nNUMCPU {}\n",
        cfg.archmode, cfg.mainsize_mb, cfg.numcpu,
    ));
    if cfg.plugin && cfg.ldmod_first {
        c.push_str(&ldmod);
    }
    c.push_str(&format!(
        "CPUMODEL {}\nCPUSERIAL 000611\n000E 1403 {}\n",
        cfg.cpumodel,
        dir.join("print.txt").display()
    ));
    for line in &cfg.config {
        c.push_str(line);
        c.push('\n');
    }
    if cfg.plugin && !cfg.ldmod_first {
        c.push_str(&ldmod);
    }
    std::fs::write(&conf, c).expect("write config");
    let mut r = format!("loadcore {} 0\n", bin.display());
    for cmd in &cfg.before {
        r.push_str(cmd);
        r.push('\n');
    }
    r.push_str(&format!("hao tgt {}\n", d.hao_cpu0_wait));
    r.push_str(&format!("hao cmd script {}\n", check.display()));
    // The automatic operator's thread starts asynchronously; a guest that ends at once
    // could otherwise reach its disabled wait before anyone watches the log.
    r.push_str("pause 1\n");
    if cfg.start_all {
        for cpu in (0..cfg.numcpu).rev() {
            r.push_str(&format!("cpu {cpu:x}\nrestart\n"));
        }
    } else {
        r.push_str("restart\n");
    }
    for cmd in &cfg.during {
        r.push_str(cmd);
        r.push('\n');
    }
    std::fs::write(&rc, r).expect("write rc");
    let mut k = String::new();
    for cmd in &cfg.after {
        k.push_str(cmd);
        k.push('\n');
    }
    for (a, l) in &cfg.show {
        k.push_str(&format!("r {a:x}.{l:x}\n"));
    }
    k.push_str("quit\n");
    std::fs::write(&check, k).expect("write check");

    let mut attempt = 1;
    let ran = loop {
        let ran = run_hercules(&conf, &rc, dir, cfg);
        // Kept for a look afterwards, whatever happened (a retried run's beside it).
        let kept = match attempt {
            1 => "hercules.log".to_string(),
            n => format!("hercules.{n}.log"),
        };
        std::fs::write(dir.join(kept), &ran.log).ok();
        let problems = problems(&ran, cfg, &so);
        if !ran.operator_missed() {
            if !problems.is_empty() {
                let problems = problems.join("; ");
                panic!("{} run failed: {problems}\n{}", d.name, ran.log);
            }
            break ran;
        }
        // Hercules 3.13's automatic operator occasionally never fires on a disabled-wait
        // message it was told to watch (seen on CI without the plugin loaded): the run would
        // otherwise hang until the timeout. Nothing of the guest's result is lost by running
        // it again, provided nothing else went wrong: a crash, a caught panic, or an exit
        // status the plugin may have caused is never run again.
        let why = missed(attempt, cfg, &ran);
        if attempt >= 3 {
            panic!("{why}; giving up after 3 attempts:\n{}", ran.log);
        }
        if cfg.plugin && !problems.is_empty() {
            let problems = problems.join("; ");
            panic!(
                "{why}; not run again, the run did not end cleanly: {problems}\n{}",
                ran.log
            );
        }
        note_retry(&format!("{}: {why}", dir.display()));
        eprintln!("harness: the log of the missed run:\n{}", ran.log);
        attempt += 1;
    };
    let log = ran.log;
    let storage = d.parse_displays(&log);
    Outcome {
        log,
        storage,
        dir: dir.to_path_buf(),
        busiest_thread_ns: ran.busiest,
    }
}

/// An automatic-operator miss, in words.
fn missed(attempt: u32, cfg: &Config, ran: &Ran) -> String {
    let plugin = if cfg.plugin {
        "plugin loaded"
    } else {
        "no plugin"
    };
    let ended = ended(ran.status, cfg.timeout);
    format!(
        "{}: the automatic operator missed CPU 0's disabled wait (attempt {attempt}, {plugin}, \
         Hercules {ended})",
        hercules().name
    )
}

/// What went wrong in a run, in words (empty: nothing).
fn problems(ran: &Ran, cfg: &Config, so: &Path) -> Vec<String> {
    let d = hercules();
    let mut p = Vec::new();
    let fatal = fatal_lines(&ran.log);
    if !fatal.is_empty() {
        p.push(format!("the log says: {}", fatal.join(" | ")));
    }
    if !ran.status.success() {
        p.push(format!("Hercules {}", ended(ran.status, cfg.timeout)));
    }
    if cfg.plugin && !d.module_load_ok(&ran.log, so) {
        p.push("the plugin did not load".into());
    }
    for m in d.config_error {
        if ran.log.contains(m) {
            p.push(format!("a configuration statement was refused ({m})"));
        }
    }
    if !ran.log.contains(d.cpu0_wait) {
        p.push("CPU 0 never reached its disabled wait".into());
    }
    p
}

/// The lines that fail any run: the plugin's caught panic (HHCMF999E), a Rust panic
/// message, and the plugin's messages about its sampler thread (HHCMF090E-HHCMF099E: it
/// could not start, or it ended).
pub fn fatal_lines(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| {
            l.contains("HHCMF999E")
                || l.contains("panicked")
                || l.match_indices("HHCMF09").any(|(i, _)| {
                    let b = l.as_bytes();
                    b.get(i + 7).is_some_and(u8::is_ascii_digit) && b.get(i + 8) == Some(&b'E')
                })
        })
        .take(10)
        .collect()
}

/// How a run ended, in words.
fn ended(status: ExitStatus, timeout: u32) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => "ended with exit status 0".into(),
        (Some(124), _) => format!("timed out after {timeout} s (exit status 124)"),
        (Some(137), _) => {
            format!("timed out after {timeout} s and was killed 5 s later (exit status 137)")
        }
        (Some(c), _) if c > 128 => format!("died by signal {} (exit status {c})", c - 128),
        (Some(c), _) => format!("ended with exit status {c}"),
        (None, Some(s)) => format!("died by signal {s}"),
        (None, None) => format!("ended as {status:?}"),
    }
}

/// One Hercules run as it went.
struct Ran {
    /// stdout, then stderr.
    log: String,
    status: ExitStatus,
    /// The busiest thread's CPU time at CPU 0's wait.
    busiest: Option<u64>,
    /// CPU 0's disabled wait was logged.
    waited: bool,
    /// The automatic operator fired (the check script ran).
    fired: bool,
}

impl Ran {
    /// CPU 0 reached its disabled wait, but the automatic operator never fired (the harness
    /// stopped Hercules 10 s later, or it ended by itself).
    fn operator_missed(&self) -> bool {
        self.waited && !self.fired
    }
}

/// One Hercules run, its stdout and stderr watched as they come.
fn run_hercules(conf: &Path, rc: &Path, dir: &Path, cfg: &Config) -> Ran {
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    let d = hercules();
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", &cfg.timeout.to_string()]);
    // SAFETY: geteuid has no preconditions.
    if d.is_hyperion()
        && unsafe { libc::geteuid() } == 0
        && std::env::var("HCPUMF_HYPERION_THREADS").as_deref() == Ok("ordinary")
    {
        // As root (or with CAP_SYS_NICE, as Hyperion's install notes advise) Hyperion puts
        // every thread in SCHED_RR (hthreads.c), and the plugin's sampler goes one priority
        // above them. That is how Hyperion runs, so the tests run it so. Asked for ordinary
        // threads, it runs without CAP_SYS_NICE: its threads, and the sampler, are then
        // SCHED_OTHER, and a sampler that cannot preempt the CPU threads misses intervals.
        cmd.args([
            "setpriv",
            "--inh-caps=-sys_nice",
            "--bounding-set=-sys_nice",
        ]);
    }
    cmd.args(&cfg.wrap)
        .arg(d.bin())
        .args([d.no_panel, "-f"])
        .arg(conf)
        .env("HERCULES_RC", rc)
        .current_dir(dir)
        .stdin(if d.reads_stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &cfg.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| {
        panic!(
            "run {} ({}): {e} (run scripts/setup.sh)",
            d.bin().display(),
            d.name
        )
    });
    // Hyperion quits when its stdin ends and no CPU runs: it stays open until Hercules ends.
    let mut stdin = child.stdin.take();
    let (tx, rx) = mpsc::channel::<(bool, Vec<u8>)>();
    let mut readers = Vec::new();
    let pipes: [(bool, Box<dyn Read + Send>); 2] = [
        (false, Box::new(child.stdout.take().expect("stdout piped"))),
        (true, Box::new(child.stderr.take().expect("stderr piped"))),
    ];
    for (is_err, mut pipe) in pipes {
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 || tx.send((is_err, buf[..n].to_vec())).is_err() {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut waited_since: Option<Instant> = None;
    let mut fired = false;
    let mut stopped = false;
    // Only the output not looked at yet is searched (with an overlap for a marker split
    // between two reads): a runaway guest can print megabytes before the timeout.
    let mut scanned = 0usize;
    let mut busiest = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok((false, b)) => out.extend_from_slice(&b),
            Ok((true, b)) => err.extend_from_slice(&b),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let text = String::from_utf8_lossy(&out[scanned.saturating_sub(64)..]);
        scanned = out.len();
        // Hyperion has shut down ("Hercules terminated"): end its stdin now. On Debian 13
        // (glibc 2.41) its exit waits for the thread that is blocked reading stdin, so a
        // stdin kept open until it ends never lets it end (seen: every Hyperion run hung
        // until the timeout killed it).
        // (Its last messages go to stderr once its logger thread has ended.)
        if stdin.is_some()
            && (text.contains("HHC01412I") || String::from_utf8_lossy(&err).contains("HHC01412I"))
        {
            drop(stdin.take());
        }
        if stopped {
            continue;
        }
        if waited_since.is_none() && text.contains(d.cpu0_wait) {
            waited_since = Some(Instant::now());
            busiest = busiest_thread_ns(child.id());
        }
        fired |= text.contains(d.hao_fired);
        if let Some(t) = waited_since {
            if !fired && t.elapsed() > Duration::from_secs(10) {
                stopped = true;
                match stdin.as_mut() {
                    // Hyperion reads its stdin as commands.
                    Some(s) => {
                        let _ = s.write_all(b"quit\n");
                        let _ = s.flush();
                    }
                    // SAFETY: plain kill(2) of our own child (`timeout`), which passes
                    // SIGTERM on to Hercules; Hercules 3.13 shuts down in order on SIGTERM.
                    None => unsafe {
                        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
                    },
                }
            }
        }
    }
    for r in readers {
        let _ = r.join();
    }
    let status = child.wait().expect("wait for hercules");
    drop(stdin);
    let mut log = String::from_utf8_lossy(&out).into_owned();
    log.push_str(&String::from_utf8_lossy(&err));
    if !status.success() {
        log.push_str(&format!(
            "\nharness: Hercules {}\n",
            ended(status, cfg.timeout)
        ));
    }
    // Seen once without the plugin loaded: CPU 0's disabled wait logged, the operator never
    // fired, and Hercules shut down by itself a moment later (its logger thread ending
    // first). The check script never ran: that is the same miss.
    Ran {
        log,
        status,
        busiest,
        waited: waited_since.is_some(),
        fired,
    }
}

/// The on-CPU time (ns) of the busiest thread of the Hercules process under `timeout` (pid
/// `parent`), from /proc/PID/task/TID/schedstat.
fn busiest_thread_ns(parent: u32) -> Option<u64> {
    let children =
        std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children")).ok()?;
    let pid: u32 = children.split_whitespace().next()?.parse().ok()?;
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
        .filter_map(|t| {
            let s = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
            s.split_whitespace().next()?.parse::<u64>().ok()
        })
        .max()
}

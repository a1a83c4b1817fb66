//! Host-driven HIS-style collection: `hcpumf his begin ...` / `hcpumf his end`, modelled on
//! z/OS `F HIS,BEGIN` / `F HIS,END` (Redbook SG24-7857 chapter 2; z/OS MVS System Commands).
//!
//! The collector never touches guest storage and never changes guest-visible facility state:
//! counters come from the plugin's own metering (the numbers the guest's counter sets would
//! show), samples are taken by the same per-CPU tick as the guest's sampling but stored in
//! buffers the plugin owns and written as raw 4-KB sample-data blocks to `.SMP.cpu#` files by
//! a writer thread. Guest and host collection coexist: each has its own interval and buffers.

use crate::cpu::CpuView;
use crate::model::{self, CounterSet, CounterSets};
use crate::runtime::{self, CpuState};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Size of a sample-data block in the .SMP file (SA23-2260 maximum-buffer-size indicator 0).
pub const BLOCK: usize = 4096;
const TRAILER: usize = 64;

const HELP: &str = "\
HHCMF040I hcpumf his: hardware event data collection from the host side
  hcpumf his begin [keywords]   start a run; keywords as z/OS F HIS,BEGIN:
      ctrset=(b,p,c,e) | ctrset=all | ctronly     counter sets (default b,p)
      sampfreq=N          samples per minute per CPU (default 800000, max by QSI)
      samptype=b|d        basic, or basic + diagnostic (default b)
      nosamp              counters only (same as ctronly)
      duration=M          minutes (default 10 with sampling, until END otherwise)
      path=DIR            output directory (default .)
      title=TEXT          title for the .CNT file
      bufcnt=N            accepted (4..1024); the plugin's buffers are its own
      dataloss=ignore|stop  when samples are lost (disk full): go on counting, or end the run
      mapasid=all|(a,...) write a .MAP at the end; private areas of these ASIDs (hex, <= 32)
      mapjob=(job,...)    write a .MAP at the end; private areas of these jobs
      mapverbose          the map's notes (bad pointers, loops) on the console too
      maponly             write just the .MAP, now
      map=yes|no          write a .MAP of every address space (default no)
      mvs=yes|no          fill the guest program parameter from MVS PSA/ASCB (default no)
      (DDNAME, SMFINTVAL, STATECHANGE are z/OS-only and refused)
  hcpumf his end                end the run and write the files
  hcpumf his status             show the run";

/// Per-CPU snapshot of what the counter sets would show.
#[derive(Clone, Copy, Debug, Default)]
struct Snap {
    instructions: u64,
    cpu_ns: u64,
    problem_instructions: u64,
    problem_ns: u64,
    crypto: [u64; 20],
}

fn snap(cpu: u16, st: &CpuState) -> Snap {
    let r = st.meter.reading();
    let mut s = Snap {
        instructions: r.instructions,
        cpu_ns: r.cpu_ns,
        problem_instructions: r.problem_instructions,
        problem_ns: r.problem_cpu_ns,
        crypto: [0; 20],
    };
    for (i, c) in st.crypto_totals.iter().enumerate() {
        s.crypto[i] = c.load(Ordering::Relaxed);
    }
    let _ = cpu;
    s
}

/// Host-owned sample buffer of one CPU: the block being filled.
pub struct HostBuffer {
    block: Vec<u8>,
    used: usize,
    overflow: u64,
}

impl Default for HostBuffer {
    fn default() -> Self {
        HostBuffer {
            block: vec![0; BLOCK],
            used: 0,
            overflow: 0,
        }
    }
}

enum Msg {
    Block(u16, Vec<u8>),
    Stop,
}

struct Run {
    id: String,
    dir: PathBuf,
    title: String,
    command: String,
    sets: CounterSets,
    sampling: bool,
    started: Instant,
    start_time: std::time::SystemTime,
    start_tod: u64,
    begin: Vec<Option<Snap>>,
    tx: Option<mpsc::Sender<Msg>>,
    writer: Option<std::thread::JoinHandle<WriterReport>>,
    deadline: Option<Instant>,
    /// The .CNT and .MAP, created at BEGIN with their space reserved, so that a disk that
    /// fills with samples cannot cost the run its counters or its map.
    cnt_file: Option<Reserved>,
    map_file: Option<Reserved>,
    map_filter: crate::mvs::MapFilter,
    map_verbose: bool,
    /// Why the timer is to end the run at its deadline, if not DURATION.
    stop_reason: Option<String>,
}

/// A file created with its space written (not sparse), rewritten in place at the end.
struct Reserved {
    name: String,
    file: File,
    reserved: u64,
}

impl Reserved {
    fn create(dir: &Path, name: String, len: u64) -> Result<Reserved, String> {
        let path = dir.join(&name);
        let mut file = File::create(&path).map_err(|e| format!("cannot create {name}: {e}"))?;
        // Blanks with a newline per 64 bytes: a run that never ends (Hercules killed) leaves a
        // text file a reader reports as empty, not binary zeros.
        let mut line = [b' '; 64];
        line[63] = b'\n';
        let chunk: Vec<u8> = line.iter().copied().cycle().take(64 * 1024).collect();
        let mut left = len;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            if let Err(e) = file.write_all(&chunk[..n]) {
                drop(file);
                let _ = std::fs::remove_file(&path);
                return Err(format!("cannot reserve {len} bytes for {name}: {e}"));
            }
            left -= n as u64;
        }
        Ok(Reserved {
            name,
            file,
            reserved: len,
        })
    }

    /// Replace the reserved blanks by `text` (written in place; only what exceeds the
    /// reservation needs new space). On failure the file is removed: no half file is left.
    fn finish(mut self, dir: &Path, text: &[u8]) -> Result<String, String> {
        use std::io::{Seek, SeekFrom};
        let r = self
            .file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.write_all(text))
            .and_then(|_| self.file.set_len(text.len() as u64))
            .and_then(|_| self.file.sync_all());
        match r {
            Ok(()) => Ok(self.name),
            Err(e) => {
                drop(self.file);
                let _ = std::fs::remove_file(dir.join(&self.name));
                Err(format!(
                    "cannot write {} ({} bytes, {} reserved): {e}; it was removed",
                    self.name,
                    text.len(),
                    self.reserved
                ))
            }
        }
    }
}

#[derive(Default)]
struct WriterReport {
    blocks: Vec<u64>,
    error: Option<String>,
    /// Samples in blocks that could not be written.
    lost_samples: u64,
}

static RUN: Mutex<Option<Run>> = Mutex::new(None);
/// What the writer of the active run has done, for `his status`: blocks written, and the
/// write error that stopped sampling.
static BLOCKS_WRITTEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static WRITE_ERROR: Mutex<Option<String>> = Mutex::new(None);

/// Options of `his begin`, parsed and checked before anything starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeginOptions {
    pub sets: CounterSets,
    pub sampling: bool,
    pub diagnostic: bool,
    pub sampfreq: u64,
    pub duration_min: Option<u64>,
    pub path: PathBuf,
    pub title: String,
    pub map: bool,
    pub mvs: bool,
    /// MAPASID: the address spaces whose private areas the map covers (None: all).
    pub map_asids: Option<Vec<u16>>,
    /// MAPJOB: jobs whose address spaces the map covers (with MAPASID's, if both).
    pub map_jobs: Vec<String>,
    /// MAPVERBOSE: the map's notes on the console too.
    pub map_verbose: bool,
    /// MAPONLY: just the map, now.
    pub map_only: bool,
    /// DATALOSS=STOP: end the run when sample data is lost (the disk fills).
    pub dataloss_stop: bool,
}

/// Parse `his begin` keywords (z/OS spellings and abbreviations accepted).
pub fn parse_begin(words: &[String]) -> Result<BeginOptions, String> {
    let mut o = BeginOptions {
        sets: CounterSets::BASIC | CounterSets::PROBLEM_STATE,
        sampling: true,
        diagnostic: false,
        sampfreq: 800_000,
        duration_min: None,
        path: PathBuf::from("."),
        title: String::new(),
        map: false,
        mvs: false,
        map_asids: None,
        map_jobs: Vec::new(),
        map_verbose: false,
        map_only: false,
        dataloss_stop: false,
    };
    let mut explicit_duration = false;
    let mut seen: Vec<&'static str> = Vec::new();
    let mut sampling_keyword: Option<&'static str> = None;
    let mut map_no = false;
    for w in words {
        let (k, v, has_value) = match w.split_once('=') {
            Some((k, v)) => (k.to_ascii_lowercase(), v.to_string(), true),
            None => (w.to_ascii_lowercase(), String::new(), false),
        };
        // The keyword's z/OS name (abbreviations and hcpumf synonyms folded).
        let name: &'static str = match k.as_str() {
            "ctronly" | "nosamp" => "CTRONLY",
            "ctrset" | "ctr" => "CTRSET",
            "sampfreq" | "sf" => "SAMPFREQ",
            "samptype" | "st" => "SAMPTYPE",
            "duration" | "dur" => "DURATION",
            "path" => "PATH",
            "title" | "tt" => "TITLE",
            "map" => "MAP",
            "mvs" => "MVS",
            "bufcnt" | "buf" => "BUFCNT",
            "mapasid" | "mas" => "MAPASID",
            "mapjob" | "mjob" => "MAPJOB",
            "mapverbose" | "mapv" => "MAPVERBOSE",
            "maponly" => "MAPONLY",
            "dataloss" | "dl" => "DATALOSS",
            "ddname" | "dd" => {
                return Err(format!(
                    "'{w}': DDNAME (keywords from a data set) is a z/OS HIS keyword hcpumf does \
                     not support; give the keywords on the command"
                ))
            }
            "smfintval" | "si" => {
                return Err(format!(
                    "'{w}': SMFINTVAL is a z/OS HIS keyword hcpumf does not support (it writes \
                     no SMF records; the .CNT has the run's deltas)"
                ))
            }
            "statechange" | "sc" => {
                return Err(format!(
                    "'{w}': STATECHANGE is a z/OS HIS keyword hcpumf does not support (one \
                     interval per run, .000)"
                ))
            }
            _ => {
                return Err(format!(
                    "unknown keyword '{w}' (enter 'hcpumf his help' for the keywords)"
                ))
            }
        };
        if seen.contains(&name) {
            return Err(format!("{name} is given more than once"));
        }
        seen.push(name);
        if matches!(name, "CTRONLY" | "MAPVERBOSE" | "MAPONLY") {
            if has_value {
                return Err(format!("{} takes no value ('{w}')", k.to_ascii_uppercase()));
            }
        } else if v.trim_matches('\'').is_empty() && name != "TITLE" {
            return Err(format!("{name} needs a value ({name}=...)"));
        }
        if matches!(name, "SAMPFREQ" | "SAMPTYPE" | "BUFCNT") {
            sampling_keyword = Some(name);
        }
        match name {
            "CTRONLY" => o.sampling = false,
            "CTRSET" => {
                let list = v.trim_matches(|c| c == '(' || c == ')');
                if list.eq_ignore_ascii_case("all") {
                    o.sets = CounterSets::CPU_SETS;
                } else if list.eq_ignore_ascii_case("none") {
                    o.sets = CounterSets::empty();
                } else {
                    o.sets = CounterSets::empty();
                    for s in list.split(',') {
                        o.sets |= match s.to_ascii_lowercase().as_str() {
                            "b" => CounterSets::BASIC,
                            "p" => CounterSets::PROBLEM_STATE,
                            "c" => CounterSets::CRYPTO,
                            "e" => CounterSets::EXTENDED,
                            other => {
                                return Err(format!(
                                "CTRSET: unknown counter set '{other}' (B, P, C, E, ALL or NONE)"
                            ))
                            }
                        };
                    }
                }
            }
            "SAMPFREQ" => {
                let f: u64 = v
                    .parse()
                    .map_err(|_| format!("SAMPFREQ: '{v}' is not a number"))?;
                let m = model::current();
                let max = m.rate_for_interval(m.min_sampling_interval) * 60;
                let min = m.rate_for_interval(m.max_sampling_interval) * 60;
                if f < min.max(1) || f > max {
                    return Err(format!(
                        "SAMPFREQ must be {}..{max} samples per minute per CPU, not {f}",
                        min.max(1)
                    ));
                }
                o.sampfreq = f;
            }
            "SAMPTYPE" => match v.to_ascii_lowercase().as_str() {
                "b" | "basic" => o.diagnostic = false,
                "d" | "diag" => o.diagnostic = true,
                _ => return Err(format!("SAMPTYPE must be B or D, not '{v}'")),
            },
            "DURATION" => {
                let d: u64 = v
                    .parse()
                    .map_err(|_| format!("DURATION: '{v}' is not a number of minutes"))?;
                if d == 0 || d > 24 * 60 {
                    return Err(format!("DURATION must be 1..1440 minutes, not {d}"));
                }
                o.duration_min = Some(d);
                explicit_duration = true;
            }
            "PATH" => {
                let p = PathBuf::from(v.trim_matches('\''));
                if !p.is_dir() {
                    return Err(format!("PATH '{}' is not a directory", p.display()));
                }
                if !writable(&p) {
                    return Err(format!("PATH '{}' is not writable", p.display()));
                }
                o.path = p;
            }
            "TITLE" => o.title = v.trim_matches('\'').to_string(),
            "MAP" => {
                o.map = yes_no(name, &v)?;
                map_no = !o.map;
            }
            "MVS" => o.mvs = yes_no(name, &v)?,
            "MAPASID" => {
                o.map = true;
                let list = v.trim_matches(|c| c == '(' || c == ')');
                if !list.eq_ignore_ascii_case("all") {
                    let mut asids = Vec::new();
                    for a in list.split(',') {
                        match u16::from_str_radix(a, 16) {
                            Ok(n) if n > 0 && n <= 0x7FFF => asids.push(n),
                            _ => {
                                return Err(format!(
                                    "MAPASID: '{a}' is not an ASID (hexadecimal 1..7FFF)"
                                ))
                            }
                        }
                    }
                    if asids.len() > 32 {
                        return Err(format!("MAPASID: {} ASIDs, at most 32", asids.len()));
                    }
                    o.map_asids = Some(asids);
                }
            }
            "MAPJOB" => {
                o.map = true;
                let list = v.trim_matches(|c| c == '(' || c == ')');
                for j in list.split(',') {
                    if j.is_empty()
                        || j.len() > 8
                        || !j
                            .bytes()
                            .all(|c| c.is_ascii_alphanumeric() || b"$#@*".contains(&c))
                    {
                        return Err(format!("MAPJOB: '{j}' is not a job name (1-8 characters)"));
                    }
                    o.map_jobs.push(j.to_ascii_uppercase());
                }
            }
            "MAPVERBOSE" => o.map_verbose = true,
            "MAPONLY" => {
                o.map_only = true;
                o.map = true;
            }
            "DATALOSS" => match v.to_ascii_lowercase().as_str() {
                "ignore" => o.dataloss_stop = false,
                "stop" => o.dataloss_stop = true,
                _ => return Err(format!("DATALOSS must be IGNORE or STOP, not '{v}'")),
            },
            "BUFCNT" => {
                let b: u64 = v
                    .parse()
                    .map_err(|_| format!("BUFCNT: '{v}' is not a number"))?;
                if !(4..=1024).contains(&b) {
                    return Err(format!("BUFCNT must be 4..1024, not {b}"));
                }
            }
            other => return Err(format!("keyword {other} is not handled")),
        }
    }
    if let (false, Some(k)) = (o.sampling, sampling_keyword) {
        return Err(format!(
            "{k} is a sampling keyword; CTRONLY collects no samples"
        ));
    }
    if map_no {
        if let Some(k) = seen
            .iter()
            .find(|k| matches!(**k, "MAPASID" | "MAPJOB" | "MAPVERBOSE" | "MAPONLY"))
        {
            return Err(format!("MAP=NO contradicts {k}"));
        }
    }
    if o.map_only {
        if let Some(k) = seen.iter().find(|k| {
            matches!(
                **k,
                "CTRONLY" | "CTRSET" | "SAMPFREQ" | "SAMPTYPE" | "BUFCNT" | "DURATION" | "DATALOSS"
            )
        }) {
            return Err(format!(
                "{k} does not go with MAPONLY, which writes just the map"
            ));
        }
        o.sets = CounterSets::empty();
        o.sampling = false;
        return Ok(o);
    }

    if o.sets.is_empty() && !o.sampling {
        return Err("nothing to collect: no counter sets and no sampling".into());
    }
    if o.sampling && !explicit_duration {
        o.duration_min = Some(10);
    }
    Ok(o)
}

fn yes_no(k: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "y" => Ok(true),
        "no" | "n" => Ok(false),
        _ => Err(format!("{k} must be YES or NO, not '{v}'")),
    }
}

/// Can files be created in `dir` (access(2) with W_OK and X_OK)?
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// `hcpumf his ...`
pub fn command(words: &[String]) {
    let (sub, rest) = runtime::subcommand(words);
    match sub.as_deref() {
        Some("begin") | Some("b") => match begin(rest, words) {
            Ok(msg) => runtime::log(&msg),
            Err(e) => runtime::log(&format!("HHCMF041E hcpumf his begin: {e}; nothing started")),
        },
        Some("end") | Some("e") | Some("status") if !rest.is_empty() => runtime::log(&format!(
            "HHCMF049E hcpumf his {}: takes no keywords, not '{}'; nothing changed",
            sub.as_deref().unwrap_or(""),
            rest.join(" ")
        )),
        Some("end") | Some("e") => match end("END command", None) {
            Ok(msg) => runtime::log(&msg),
            Err(e) => runtime::log(&format!("HHCMF043E hcpumf his end: {e}")),
        },
        None | Some("status") => status(),
        Some("help") => runtime::log(HELP),
        Some(other) => runtime::log(&format!(
            "HHCMF049E unknown hcpumf his subcommand '{other}'; enter 'hcpumf his help'"
        )),
    }
}

/// SYSHISyyyymmdd.hhmmss.xxx: xxx is the first sequence number no file in `dir` has yet, so
/// that runs started within one second do not overwrite each other's files.
fn run_id(now: std::time::SystemTime, dir: &Path) -> Result<String, String> {
    let secs = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, mo, d, h, mi, s) = civil(secs);
    let base = format!("SYSHIS{y:04}{mo:02}{d:02}.{h:02}{mi:02}{s:02}");
    let names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read PATH '{}': {e}", dir.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&base))
        .collect();
    (0..1000)
        .map(|seq| format!("{base}.{seq:03}"))
        .find(|id| !names.iter().any(|n| n.starts_with(&format!("{id}."))))
        .ok_or_else(|| format!("1000 runs in {base} already"))
}

/// UTC calendar date and time of a Unix time (days-from-civil inverse, Howard Hinnant).
pub fn civil(secs: u64) -> (u64, u64, u64, u64, u64, u64) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (
        y as u64,
        m as u64,
        d as u64,
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
    )
}

fn begin(rest: &[String], all: &[String]) -> Result<String, String> {
    let o = parse_begin(rest)?;
    let mut guard = RUN
        .lock()
        .map_err(|_| "collector state poisoned".to_string())?;
    if guard.is_some() {
        return Err("a run is already active; enter 'hcpumf his end' first".into());
    }
    let now = std::time::SystemTime::now();
    let id = run_id(now, &o.path)?;
    let m = model::current();
    let interval_cycles = (u64::from(m.cpu_speed) * 1_000_000 * 60 / o.sampfreq)
        .clamp(m.min_sampling_interval, m.max_sampling_interval);
    let interval_ns = runtime::cycles_to_ns(interval_cycles).max(1);
    let r = runtime::rt();
    let mut begin = Vec::with_capacity(r.cpus.len());
    for (i, st) in r.cpus.iter().enumerate() {
        let cpu = i as u16;
        if runtime::cpu_online(cpu) {
            begin.push(Some(snap(cpu, st)));
        } else {
            begin.push(None);
        }
    }
    // Reserve the .CNT and .MAP first: if even that fails, nothing starts.
    let cnt_file = if o.sets.is_empty() {
        None
    } else {
        let online = begin.iter().filter(|b| b.is_some()).count() as u64;
        Some(Reserved::create(
            &o.path,
            format!("{id}.CNT"),
            cnt_reservation(o.sets, online, all),
        )?)
    };
    let map_file = if o.map {
        match Reserved::create(&o.path, format!("{id}.MAP"), MAP_RESERVATION) {
            Ok(r) => Some(r),
            Err(e) => {
                if let Some(c) = cnt_file {
                    let _ = std::fs::remove_file(o.path.join(&c.name));
                }
                return Err(e);
            }
        }
    } else {
        None
    };
    BLOCKS_WRITTEN.store(0, Ordering::Relaxed);
    if let Ok(mut w) = WRITE_ERROR.lock() {
        *w = None;
    }
    // One .SMP file per online CPU, created now as HIS does (a CPU that takes no sample
    // leaves an empty file); if one cannot be created, nothing starts and nothing is left.
    let mut smp_files: Vec<Option<File>> = (0..runtime::MAX_CPUS).map(|_| None).collect();
    if o.sampling {
        for (i, b) in begin.iter().enumerate().take(runtime::MAX_CPUS) {
            if b.is_none() {
                continue;
            }
            let name = format!("{id}.SMP.{i:X}");
            match File::create(o.path.join(&name)) {
                Ok(f) => smp_files[i] = Some(f),
                Err(e) => {
                    for (k, f) in smp_files.iter().enumerate() {
                        if f.is_some() {
                            let _ = std::fs::remove_file(o.path.join(format!("{id}.SMP.{k:X}")));
                        }
                    }
                    for r in [&cnt_file, &map_file].into_iter().flatten() {
                        let _ = std::fs::remove_file(o.path.join(&r.name));
                    }
                    return Err(format!("cannot create {name}: {e}"));
                }
            }
        }
    }
    let (tx, writer) = if o.sampling {
        let (tx, rx) = mpsc::channel::<Msg>();
        let dir = o.path.clone();
        let id2 = id.clone();
        let h = std::thread::Builder::new()
            .name("hcpumf-his-writer".into())
            .spawn({
                let stop = o.dataloss_stop;
                move || writer_loop(&dir, &id2, rx, stop, smp_files)
            })
            .map_err(|e| format!("cannot start the writer thread: {e}"))?;
        (Some(tx), Some(h))
    } else {
        (None, None)
    };
    let run = Run {
        id: id.clone(),
        dir: o.path.clone(),
        title: o.title.clone(),
        command: format!("hcpumf {}", all.join(" ")),
        sets: o.sets,
        sampling: o.sampling,
        started: Instant::now(),
        start_time: now,
        start_tod: runtime::tod_now(),
        begin,
        tx,
        writer,
        // MAPONLY: the map as soon as a tick of CPU 0 has shown its state (the timer looks),
        // at most 10 s after BEGIN.
        deadline: if o.map_only {
            Some(Instant::now() + Duration::from_secs(10))
        } else {
            o.duration_min
                .map(|m| Instant::now() + Duration::from_secs(m * 60))
        },
        cnt_file,
        map_file,
        map_filter: crate::mvs::MapFilter {
            asids: o.map_asids.clone(),
            jobs: o.map_jobs.clone(),
        },
        map_verbose: o.map_verbose,
        stop_reason: o.map_only.then(|| "MAPONLY: map taken".to_string()),
    };
    // Start the per-CPU host sampling and the accounting points the problem-state split needs.
    for (i, st) in r.cpus.iter().enumerate() {
        if run.begin[i].is_none() {
            continue;
        }
        if let Ok(mut b) = st.host_buffer.lock() {
            *b = HostBuffer::default();
        }
        // The map is taken from what this run's ticks see, not from an earlier run's.
        if let Ok(mut l) = st.last_seen.lock() {
            *l = None;
        }
        st.schedule.host_accounting.store(true, Ordering::Release);
        if o.sampling {
            // The first host sample is due one interval after the CPU's next tick.
            st.schedule.host.start_pending(interval_ns);
            st.schedule.host_mvs.store(o.mvs, Ordering::Release);
            st.schedule
                .host_diagnostic
                .store(o.diagnostic, Ordering::Release);
        }
        runtime::schedule(i as u16, runtime::wall_ns());
    }
    let msg = format!(
        "HHCMF042I hcpumf his: run {} started: counter sets {}, sampling {}, files in {}{}",
        id,
        crate::console::sets_text(o.sets),
        if o.sampling {
            format!(
                "{} at {} samples/min per CPU (interval {} cycles)",
                if o.diagnostic {
                    "basic+diagnostic"
                } else {
                    "basic"
                },
                o.sampfreq,
                interval_cycles
            )
        } else {
            "off".into()
        },
        o.path.display(),
        o.duration_min
            .map(|d| format!(", duration {d} min"))
            .unwrap_or_default()
    );
    *guard = Some(run);
    drop(guard);
    start_timer(id.clone());
    Ok(msg)
}

/// The timer of run `id`: ends it at its deadline (DURATION, MAPONLY, DATALOSS=STOP); gone
/// when the run is (a later run has a timer of its own).
fn start_timer(id: String) {
    let _ = std::thread::Builder::new()
        .name("hcpumf-his-timer".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let due = match RUN.lock() {
                Ok(g) => match g.as_ref() {
                    None => return,
                    Some(r) if r.id != id => return,
                    Some(r) => {
                        let map_only_ready = r.map_file.is_some()
                            && r.cnt_file.is_none()
                            && !r.sampling
                            && runtime::last_view(0).is_some();
                        r.deadline
                            .filter(|d| map_only_ready || Instant::now() >= *d)
                            .map(|_| r.stop_reason.clone())
                    }
                },
                Err(_) => return,
            };
            if let Some(reason) = due {
                // An error here means END or a shutdown ended the run in the meantime.
                if let Ok(m) = end(reason.as_deref().unwrap_or("DURATION expired"), Some(&id)) {
                    runtime::log(&m);
                }
                return;
            }
        });
}

fn writer_loop(
    dir: &Path,
    id: &str,
    rx: mpsc::Receiver<Msg>,
    stop_run: bool,
    mut files: Vec<Option<File>>,
) -> WriterReport {
    let mut rep = WriterReport {
        blocks: vec![0; runtime::MAX_CPUS],
        error: None,
        lost_samples: 0,
    };
    while let Ok(msg) = rx.recv() {
        match msg {
            Msg::Stop => break,
            Msg::Block(cpu, block) => {
                if rep.error.is_some() {
                    rep.lost_samples += samples_in(&block);
                    continue;
                }
                let c = usize::from(cpu);
                if c >= files.len() {
                    continue;
                }
                if files[c].is_none() {
                    let p = dir.join(format!("{id}.SMP.{cpu:X}"));
                    match File::create(&p) {
                        Ok(f) => files[c] = Some(f),
                        Err(e) => {
                            rep.error = Some(format!("cannot create {}: {e}", p.display()));
                            continue;
                        }
                    }
                }
                if let Some(f) = files[c].as_mut() {
                    if let Err(e) = f.write_all(&block) {
                        // Keep the file whole up to the last complete block, stop sampling
                        // (further blocks could not be written) and say so now.
                        let _ = f.set_len(rep.blocks[c] * BLOCK as u64);
                        rep.lost_samples += samples_in(&block);
                        for st in runtime::rt().cpus.iter() {
                            st.schedule.host.stop();
                        }
                        let e = format!(
                            "writing {id}.SMP.{cpu:X}: {e}; sampling stopped, every .SMP file \
                             complete up to its last full block ({} blocks in {id}.SMP.{cpu:X}), \
                             counters go on until END",
                            rep.blocks[c]
                        );
                        runtime::log(&format!("HHCMF045W hcpumf his: {e}"));
                        if let Ok(mut w) = WRITE_ERROR.lock() {
                            *w = Some(e.clone());
                        }
                        rep.error = Some(e);
                        if stop_run {
                            // DATALOSS=STOP: the timer ends the run at once.
                            if let Ok(mut g) = RUN.lock() {
                                if let Some(r) = g.as_mut() {
                                    r.deadline = Some(Instant::now());
                                    r.stop_reason = Some("DATALOSS=STOP: sample data lost".into());
                                }
                            }
                        }
                    } else {
                        rep.blocks[c] += 1;
                        BLOCKS_WRITTEN.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
    }
    for f in files.iter_mut().flatten() {
        let _ = f.flush();
    }
    rep
}

/// Basic samples in a block (what a block that could not be written loses).
fn samples_in(block: &[u8]) -> u64 {
    let mut sum = crate::his::smp::ScanSummary::default();
    crate::his::smp::scan_block(block, 0, &mut sum, &mut |_| {});
    sum.samples + sum.invalid
}

/// Host sampling on the CPU's tick: store one entry into the CPU's host buffer when due.
pub fn host_tick(cpu: u16, st: &CpuState, view: &CpuView, prefix: u64, cr1: u64, now_ns: u64) {
    let s = &st.schedule;
    if s.host_accounting.load(Ordering::Relaxed) {
        if let Ok(mut l) = st.last_seen.lock() {
            *l = Some((*view, prefix, cr1));
        }
    }
    if !s.host.poll(now_ns, view.meter.instructions) {
        return;
    }
    let m = model::current();
    // The guest program parameter: what MVS awareness reads from the PSA and ASCB, or else
    // what the guest itself loaded with LPP (z/OS's dispatcher does, while the guest samples).
    let mvs = if s.host_mvs.load(Ordering::Relaxed) {
        crate::mvs::program_parameter(view, prefix, cr1)
    } else {
        0
    };
    let gpp = if mvs != 0 {
        mvs
    } else {
        st.program_parameter.get()
    };
    let diag = s.host_diagnostic.load(Ordering::Relaxed);
    let bsdes = usize::from(m.bsdes);
    let dsdes = usize::from(m.dsdes);
    let size = if diag { bsdes + dsdes } else { bsdes };
    let Ok(mut b) = st.host_buffer.lock() else {
        return;
    };
    if b.used + size > BLOCK - TRAILER {
        let full = seal(&mut b, m.bsdes, m.dsdes, runtime::tod_or_now(view.tod));
        send(cpu, full);
    }
    let at = b.used;
    let entry = crate::sampling::basic_entry_bytes(view, gpp, 0, false);
    b.block[at..at + bsdes].copy_from_slice(&entry[..bsdes]);
    if diag {
        let d = crate::sampling::diagnostic_entry_bytes(m, view);
        let n = d.len().min(dsdes);
        b.block[at + bsdes..at + bsdes + n].copy_from_slice(&d[..n]);
    }
    b.used += size;
}

/// Finish the block being filled: trailer with F, T (STCKE), sizes, overflow and timestamp.
fn seal(b: &mut HostBuffer, bsdes: u16, dsdes: u16, tod: u64) -> Vec<u8> {
    let mut block = std::mem::replace(&mut b.block, vec![0; BLOCK]);
    let t = BLOCK - TRAILER;
    block[t] = 0x80 | 0x20; // F, T = STCKE
    block[t + 4..t + 6].copy_from_slice(&bsdes.to_be_bytes());
    block[t + 6..t + 8].copy_from_slice(&dsdes.to_be_bytes());
    block[t + 8..t + 16].copy_from_slice(&b.overflow.to_be_bytes());
    // STCKE: epoch index 0, then TOD bits 0-63 in bytes 1-8.
    block[t + 16] = 0;
    block[t + 17..t + 25].copy_from_slice(&tod.to_be_bytes());
    b.used = 0;
    b.overflow = 0;
    block
}

fn send(cpu: u16, block: Vec<u8>) {
    if let Ok(g) = RUN.lock() {
        if let Some(tx) = g.as_ref().and_then(|r| r.tx.as_ref()) {
            let _ = tx.send(Msg::Block(cpu, block));
        }
    }
}

/// End the active run (`only`: if it is that run).
fn end(why: &str, only: Option<&str>) -> Result<String, String> {
    let mut guard = RUN
        .lock()
        .map_err(|_| "collector state poisoned".to_string())?;
    if let (Some(id), Some(r)) = (only, guard.as_ref()) {
        if r.id != id {
            return Err(format!("run {id} already ended"));
        }
    }
    let Some(mut run) = guard.take() else {
        return Err("no run is active".into());
    };
    drop(guard);
    let r = runtime::rt();
    let m = model::current();
    let end_tod = runtime::tod_now();
    let end_time = std::time::SystemTime::now();
    // Stop sampling first, then flush every CPU's partial block.
    for st in r.cpus.iter() {
        st.schedule.host.stop();
        st.schedule.host_accounting.store(false, Ordering::Release);
    }
    if let Some(tx) = run.tx.as_ref() {
        for (i, st) in r.cpus.iter().enumerate() {
            if run.begin[i].is_none() {
                continue;
            }
            if let Ok(mut b) = st.host_buffer.lock() {
                if b.used > 0 {
                    let mut blk = seal(&mut b, m.bsdes, m.dsdes, end_tod);
                    // A partial last block is not full: clear F.
                    blk[BLOCK - TRAILER] &= !0x80;
                    let _ = tx.send(Msg::Block(i as u16, blk));
                }
            }
        }
        let _ = tx.send(Msg::Stop);
    }
    run.tx = None;
    let report = run
        .writer
        .take()
        .and_then(|h| h.join().ok())
        .unwrap_or_default();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    if let Some(f) = run.cnt_file.take() {
        let text = cnt_text(&run, &f.name, end_time, end_tod, report.lost_samples);
        match f.finish(&run.dir, text.as_bytes()) {
            Ok(name) => files.push(name),
            Err(e) => errors.push(e),
        }
    }
    if let Some(f) = run.map_file.take() {
        let (text, note, notes) = crate::mvs::map_text(&run.map_filter);
        if run.map_verbose {
            for n in &notes {
                runtime::log(&format!("HHCMF050I hcpumf his map: {n}"));
            }
        }
        match f.finish(&run.dir, text.as_bytes()) {
            Ok(name) => files.push(format!("{name} ({note})")),
            Err(e) => errors.push(e),
        }
    }
    let smp: u64 = report.blocks.iter().sum();
    if smp > 0 {
        files.push(format!("{}.SMP.* ({smp} blocks)", run.id));
    }
    let mut msg = format!(
        "HHCMF044I hcpumf his: run {} ended ({why}) after {:.1} s; files: {}",
        run.id,
        run.started.elapsed().as_secs_f64(),
        if files.is_empty() {
            "none".into()
        } else {
            files.join(", ")
        }
    );
    if let Some(e) = report.error {
        msg.push_str(&format!("\nHHCMF045W hcpumf his: {e}"));
    }
    for e in errors {
        msg.push_str(&format!("\nHHCMF045W hcpumf his: {e}"));
    }
    let _ = m;
    Ok(msg)
}

/// Space reserved for the .MAP at BEGIN (an MVS 3.8J map is a few hundred records).
const MAP_RESERVATION: u64 = 256 * 1024;

/// Space for the .CNT of `cpus` CPUs: the text with zero counters is as long as the real one
/// (fixed-width values), plus room for the title and command.
fn cnt_reservation(sets: CounterSets, cpus: u64, command: &[String]) -> u64 {
    let m = model::current();
    let mut values = Vec::new();
    for set in [
        CounterSet::Basic,
        CounterSet::ProblemState,
        CounterSet::CryptoActivity,
        CounterSet::Extended,
    ] {
        if sets.contains(set.bit()) {
            values.push((set, vec![0u64; usize::from(m.set_size(set))]));
        }
    }
    let text = crate::his::cnt::render(&crate::his::cnt::CntRun {
        file_name: "SYSHISyyyymmdd.hhmmss.xxx.CNT".into(),
        command: format!("hcpumf his {}", command.join(" ")),
        title: String::new(),
        machine_type: m.machine_type,
        cfvn: m.cfvn,
        csvn: m.csvn,
        cpu_speed: m.cpu_speed,
        start: std::time::UNIX_EPOCH,
        end: std::time::UNIX_EPOCH,
        start_tod: 0,
        end_tod: 0,
        lost_samples: u64::MAX,
        cpus: (0..cpus.max(1) as u16)
            .map(|c| (c, values.clone()))
            .collect(),
    });
    text.len() as u64 + 4096
}

fn cnt_text(
    run: &Run,
    name: &str,
    end_time: std::time::SystemTime,
    end_tod: u64,
    lost_samples: u64,
) -> String {
    let m = model::current();
    let r = runtime::rt();
    let mut cpus = Vec::new();
    for (i, st) in r.cpus.iter().enumerate() {
        let Some(b) = run.begin[i] else { continue };
        let e = snap(i as u16, st);
        let mut values: Vec<(CounterSet, Vec<u64>)> = Vec::new();
        let cyc = |ns: u64| -> u64 {
            ((u128::from(ns) * u128::from(m.cpu_speed)) / 1000).min(u128::from(u64::MAX)) as u64
        };
        for set in [
            CounterSet::Basic,
            CounterSet::ProblemState,
            CounterSet::CryptoActivity,
            CounterSet::Extended,
        ] {
            if !run.sets.contains(set.bit()) {
                continue;
            }
            let n = usize::from(m.set_size(set));
            let mut v = vec![0u64; n];
            match set {
                CounterSet::Basic => {
                    v[0] = cyc(e.cpu_ns.wrapping_sub(b.cpu_ns));
                    v[1] = e.instructions.wrapping_sub(b.instructions);
                }
                CounterSet::ProblemState => {
                    v[0] = cyc(e.problem_ns.wrapping_sub(b.problem_ns));
                    v[1] = e.problem_instructions.wrapping_sub(b.problem_instructions);
                }
                CounterSet::CryptoActivity => {
                    for (k, x) in v.iter_mut().enumerate().take(20) {
                        *x = e.crypto[k].wrapping_sub(b.crypto[k]);
                    }
                }
                _ => {}
            }
            values.push((set, v));
        }
        cpus.push((i as u16, values));
    }
    crate::his::cnt::render(&crate::his::cnt::CntRun {
        file_name: name.to_string(),
        command: run.command.clone(),
        title: run.title.clone(),
        machine_type: m.machine_type,
        cfvn: m.cfvn,
        csvn: m.csvn,
        cpu_speed: m.cpu_speed,
        start: run.start_time,
        end: end_time,
        start_tod: run.start_tod,
        end_tod,
        lost_samples,
        cpus,
    })
}

fn status() {
    let g = match RUN.lock() {
        Ok(g) => g,
        Err(_) => return,
    };
    match g.as_ref() {
        None => runtime::log("HHCMF046I hcpumf his: no run is active"),
        Some(run) => {
            let samples: u64 = runtime::rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.taken.load(Ordering::Relaxed))
                .sum();
            let late: u64 = runtime::rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.late_total.load(Ordering::Relaxed))
                .sum();
            let late_max: u64 = runtime::rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.late_max.load(Ordering::Relaxed))
                .max()
                .unwrap_or(0);
            runtime::log(&format!(
                "HHCMF048I hcpumf his: sample ticks late by {:.1} us on average, {:.1} us at most",
                late as f64 / 1000.0 / samples.max(1) as f64,
                late_max as f64 / 1000.0
            ));
            let error = WRITE_ERROR.lock().ok().and_then(|w| w.clone());
            runtime::log(&format!(
                "HHCMF047I hcpumf his: run {} active for {:.1} s, counter sets {}, sampling {}, {} samples so far, {} blocks written{}",
                run.id,
                run.started.elapsed().as_secs_f64(),
                crate::console::sets_text(run.sets),
                match (run.sampling, error.is_some()) {
                    (false, _) => "off",
                    (true, false) => "on",
                    (true, true) => "stopped",
                },
                samples,
                BLOCKS_WRITTEN.load(Ordering::Relaxed),
                run.deadline
                    .map(|d| format!(", ends in {:.0} s", d.saturating_duration_since(Instant::now()).as_secs_f64()))
                    .unwrap_or_default()
            ));
            if let Some(e) = error {
                runtime::log(&format!("HHCMF045W hcpumf his: {e}"));
            }
        }
    }
}

/// Module unload (Hercules shutting down): end the run so that nothing is lost.
pub fn stop_on_unload() {
    let active = RUN.lock().map(|g| g.is_some()).unwrap_or(false);
    if active {
        match end("Hercules is stopping", None) {
            Ok(m) => runtime::log(&m),
            Err(e) => runtime::log(&format!("HHCMF043E hcpumf his: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<BeginOptions, String> {
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        parse_begin(&words)
    }

    #[test]
    fn defaults_are_those_of_z_os_his() {
        let o = parse("").unwrap();
        assert_eq!(o.sets, CounterSets::BASIC | CounterSets::PROBLEM_STATE);
        assert!(o.sampling && !o.diagnostic && !o.map && !o.mvs);
        assert_eq!((o.sampfreq, o.duration_min), (800_000, Some(10)));
        let o = parse("CTRONLY").unwrap();
        assert_eq!((o.sampling, o.duration_min), (false, None));
        let o = parse("ctr=(b,e) sf=600000 st=d dur=2 buf=16 tt='x' map=yes mvs=y").unwrap();
        assert_eq!(o.sets, CounterSets::BASIC | CounterSets::EXTENDED);
        assert_eq!(
            (o.sampfreq, o.diagnostic, o.duration_min),
            (600_000, true, Some(2))
        );
        assert_eq!(o.title, "x");
        assert!(o.map && o.mvs);
        let o = parse("mapasid=(1,21) mapjob=(demojob) mapv dl=stop").unwrap();
        assert_eq!(o.map_asids, Some(vec![1, 0x21]));
        assert_eq!(o.map_jobs, vec!["DEMOJOB".to_string()]);
        assert!(o.map && o.map_verbose && o.dataloss_stop && o.sampling);
        let o = parse("mas=all").unwrap();
        assert_eq!((o.map, o.map_asids), (true, None));
        let o = parse("maponly path=/tmp").unwrap();
        assert!(o.map_only && o.map && !o.sampling && o.sets.is_empty());
    }

    #[test]
    fn every_bad_keyword_or_value_is_named() {
        for (line, says) in [
            ("bogus=1", "unknown keyword 'bogus=1'"),
            ("ctrset=(b,x)", "unknown counter set 'x'"),
            ("ctrset=", "CTRSET needs a value"),
            ("ctronly=yes", "CTRONLY takes no value"),
            ("nosamp=1", "NOSAMP takes no value"),
            ("ctronly ctrset=none", "nothing to collect"),
            ("ctronly sampfreq=1000", "SAMPFREQ is a sampling keyword"),
            ("ctronly samptype=d", "SAMPTYPE is a sampling keyword"),
            ("ctronly bufcnt=8", "BUFCNT is a sampling keyword"),
            ("sampfreq=abc", "SAMPFREQ: 'abc' is not a number"),
            ("sampfreq=99999999", "SAMPFREQ must be"),
            ("sampfreq=0", "SAMPFREQ must be"),
            ("sampfreq", "SAMPFREQ needs a value"),
            ("samptype=x", "SAMPTYPE must be B or D"),
            ("duration=0", "DURATION must be 1..1440"),
            ("duration=1441", "DURATION must be 1..1440"),
            ("duration=ten", "is not a number of minutes"),
            ("path=/nonexistent/dir", "is not a directory"),
            ("path=/etc/passwd", "is not a directory"),
            ("map=maybe", "MAP must be YES or NO"),
            ("mvs=", "MVS needs a value"),
            ("bufcnt=3", "BUFCNT must be 4..1024"),
            ("bufcnt=1025", "BUFCNT must be 4..1024"),
            ("bufcnt=x", "BUFCNT: 'x' is not a number"),
            (
                "sf=600000 sampfreq=600000",
                "SAMPFREQ is given more than once",
            ),
            ("dur=1 duration=2", "DURATION is given more than once"),
            ("mapasid=(1,zz)", "MAPASID: 'zz' is not an ASID"),
            ("mapasid=8000", "MAPASID: '8000' is not an ASID"),
            (
                "mapjob=(toolongname)",
                "MAPJOB: 'toolongname' is not a job name",
            ),
            ("mapjob=", "MAPJOB needs a value"),
            ("mapverbose=yes", "MAPVERBOSE takes no value"),
            ("maponly ctrset=b", "CTRSET does not go with MAPONLY"),
            ("maponly duration=5", "DURATION does not go with MAPONLY"),
            ("map=no mapjob=(a)", "MAP=NO contradicts MAPJOB"),
            ("dataloss=maybe", "DATALOSS must be IGNORE or STOP"),
            (
                "ddname=HISCMDS",
                "DDNAME (keywords from a data set) is a z/OS HIS keyword",
            ),
            ("si=sync", "SMFINTVAL is a z/OS HIS keyword"),
            ("statechange=save", "STATECHANGE is a z/OS HIS keyword"),
        ] {
            match parse(line) {
                Ok(o) => panic!("'{line}' was accepted: {o:?}"),
                Err(e) => assert!(e.contains(says), "'{line}': {e}"),
            }
        }
    }
}

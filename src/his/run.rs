//! Host-driven HIS-style collection: `hcpumf his begin ...` / `hcpumf his end`, modelled on
//! z/OS `F HIS,BEGIN` / `F HIS,END` (Redbook SG24-7857 chapter 2; z/OS MVS System Commands).
//!
//! The collector never touches guest storage and never changes guest-visible facility state:
//! counters come from the plugin's own metering (the numbers the guest's counter sets would
//! show), samples are taken by the same per-CPU tick as the guest's sampling but stored in
//! buffers the plugin owns and written as raw 4-KB sample-data blocks to `.SMP.xx` files by
//! a writer thread. Guest and host collection coexist: each has its own interval and buffers.

use crate::his::counters::{cnt_reservation, RunCounters};
use crate::his::files::{run_id, FileError, Reserved, MAPX_RESERVATION, MAP_RESERVATION};
use crate::his::intervals::Intervals;
use crate::his::mvs::{self, MapFilter};
use crate::his::options::{parse_begin, BeginError, HELP};
use crate::his::writer::{self, WriterReport};
use crate::host::model;
use crate::host::run::{self as host_run, Block, RunSampling};
use crate::host::services::{log, tod_now};
use crate::host::state::{rt, MAX_CPUS};
use hcpumf_arch::model::sets_text;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};
use thiserror::Error;

/// Why `his begin` starts nothing or `his end` ends nothing: the text after HHCMF041E or
/// HHCMF043E. The keywords' and the files' own errors pass through unchanged.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Begin(#[from] BeginError),
    #[error(transparent)]
    File(#[from] FileError),
    #[error("a run is already active; enter 'hcpumf his end' first")]
    AlreadyActive,
    #[error("no run is active")]
    NoneActive,
    /// The timer of run `0` came to end it, and END (or a shutdown) had ended it already.
    #[error("run {0} already ended")]
    AlreadyEnded(String),
    #[error("cannot start the writer thread: {0}")]
    WriterThread(#[source] std::io::Error),
    /// A thread panicked holding the run's state (a bug; the plugin keeps going).
    #[error("collector state poisoned")]
    Poisoned,
}

/// The active run.
struct Run {
    id: String,
    dir: PathBuf,
    title: String,
    command: String,
    counters: RunCounters,
    sampling: bool,
    started: Instant,
    /// The run's own sender of blocks (the partial ones at END); the host has another.
    tx: Option<mpsc::Sender<Block>>,
    writer: Option<std::thread::JoinHandle<WriterReport>>,
    deadline: Option<Instant>,
    /// The .CNT and .MAP, created at BEGIN with their space reserved, so that a disk that
    /// fills with samples cannot cost the run its counters or its map.
    cnt_file: Option<Reserved>,
    /// The .MAP and its .MAPX.
    map_file: Option<(Reserved, Reserved)>,
    /// SMFINTVAL: the interval counters.
    intervals: Option<Intervals>,
    map_filter: MapFilter,
    map_verbose: bool,
    /// Why the timer is to end the run at its deadline, if not DURATION.
    stop_reason: Option<String>,
}

static RUN: Mutex<Option<Run>> = Mutex::new(None);

/// `hcpumf his ...`: `words` are the words after `his`; `line` the command as typed (the
/// .CNT's COMMAND line).
pub fn command(words: &[String], line: &str) {
    let (sub, rest) = match words.split_first() {
        Some((first, rest)) => (Some(first.to_ascii_lowercase()), rest),
        None => (None, &[][..]),
    };
    match sub.as_deref() {
        Some("begin") | Some("b") => match begin(rest, line) {
            Ok(msg) => log(&msg),
            Err(e) => log(&format!("HHCMF041E hcpumf his begin: {e}; nothing started")),
        },
        Some("end") | Some("e") | Some("status") if !rest.is_empty() => log(&format!(
            "HHCMF049E hcpumf his {}: takes no keywords, not '{}'; nothing changed",
            sub.as_deref().unwrap_or(""),
            rest.join(" ")
        )),
        Some("end") | Some("e") => match end("END command", None) {
            Ok(msg) => log(&msg),
            Err(e) => log(&format!("HHCMF043E hcpumf his end: {e}")),
        },
        None | Some("status") => status(),
        Some("help") => log(HELP),
        Some(other) => log(&format!(
            "HHCMF049E unknown hcpumf his subcommand '{other}'; enter 'hcpumf his help'"
        )),
    }
}

fn begin(rest: &[String], line: &str) -> Result<String, RunError> {
    let o = parse_begin(rest, model::current())?;
    let mut guard = RUN.lock().map_err(|_| RunError::Poisoned)?;
    if guard.is_some() {
        return Err(RunError::AlreadyActive);
    }
    let now = SystemTime::now();
    let id = run_id(crate::his::localtime::local(now), &o.path)?;
    let m = model::current();
    let interval_cycles = (u64::from(m.cpu_speed) * 1_000_000 * 60 / o.sampfreq)
        .clamp(m.min_sampling_interval, m.max_sampling_interval);
    let interval_ns = model::cycles_to_ns(interval_cycles).max(1);
    let command = line.to_string();
    let counters = RunCounters::begin(o.sets, now, tod_now());
    // Reserve the .CNT and .MAP first: if even that fails, nothing starts.
    let cnt_file = if o.sets.is_empty() {
        None
    } else {
        Some(Reserved::create(
            &o.path,
            format!("{id}.CNT"),
            cnt_reservation(o.sets, counters.online() as u64, &command),
        )?)
    };
    // The .MAP and hcpumf's .MAPX beside it (what IBM's layout has no place for).
    let map_file = if o.map {
        let gone = |names: &[Option<&String>]| {
            for n in names.iter().flatten() {
                let _ = std::fs::remove_file(o.path.join(n));
            }
        };
        let cnt_name = cnt_file.as_ref().map(|c| &c.name);
        let map = match Reserved::create(&o.path, format!("{id}.MAP"), MAP_RESERVATION) {
            Ok(m) => m,
            Err(e) => {
                gone(&[cnt_name]);
                return Err(e.into());
            }
        };
        match Reserved::create(&o.path, format!("{id}.MAPX"), MAPX_RESERVATION) {
            Ok(x) => Some((map, x)),
            Err(e) => {
                gone(&[cnt_name, Some(&map.name)]);
                return Err(e.into());
            }
        }
    } else {
        None
    };
    // What BEGIN made so far, removed when a later file cannot be made.
    let reserved: Vec<String> = [cnt_file.as_ref().map(|c| c.name.clone())]
        .into_iter()
        .flatten()
        .chain(
            map_file
                .iter()
                .flat_map(|(m, x)| [m.name.clone(), x.name.clone()]),
        )
        .collect();
    // SMFINTVAL: the .INT with its header.
    let intervals = match o.smfintval_secs {
        None => None,
        Some(secs) => match Intervals::create(&o.path, &id, secs, &counters) {
            Ok(i) => Some(i),
            Err(e) => {
                for n in &reserved {
                    let _ = std::fs::remove_file(o.path.join(n));
                }
                return Err(e.into());
            }
        },
    };
    // One .SMP file per online CPU, created now as HIS does (a CPU that takes no sample
    // leaves an empty file); if one cannot be created, nothing starts and nothing is left.
    let mut smp_files: Vec<Option<File>> = (0..MAX_CPUS).map(|_| None).collect();
    if o.sampling {
        for (i, b) in counters.begin.iter().enumerate().take(MAX_CPUS) {
            if b.is_none() {
                continue;
            }
            let name = format!("{id}.SMP.{i:02X}");
            match File::create(o.path.join(&name)) {
                Ok(f) => smp_files[i] = Some(f),
                Err(source) => {
                    for (k, f) in smp_files.iter().enumerate() {
                        if f.is_some() {
                            let _ = std::fs::remove_file(o.path.join(format!("{id}.SMP.{k:02X}")));
                        }
                    }
                    for n in &reserved {
                        let _ = std::fs::remove_file(o.path.join(n));
                    }
                    if let Some(i) = &intervals {
                        let _ = std::fs::remove_file(o.path.join(&i.name));
                    }
                    return Err(FileError::Create {
                        path: o.path.join(&name),
                        source,
                    }
                    .into());
                }
            }
        }
    }
    let (tx, writer) = if o.sampling {
        let (tx, rx) = mpsc::channel::<Block>();
        let h = writer::spawn(
            o.path.clone(),
            id.clone(),
            rx,
            (o.dataloss_stop, o.bufcnt as usize),
            smp_files,
        )
        .map_err(RunError::WriterThread)?;
        (Some(tx), Some(h))
    } else {
        (None, None)
    };
    host_run::attach(tx.clone(), mvs::program_parameter);
    // Start the per-CPU host sampling and the accounting points the problem-state split needs.
    let how = RunSampling {
        interval_ns: if o.sampling { interval_ns } else { 0 },
        diagnostic: o.diagnostic,
        program_parameter_from_guest: o.mvs,
    };
    for (i, b) in counters.begin.iter().enumerate() {
        if b.is_some() {
            host_run::start_cpu(i as u16, how);
        }
    }
    let run = Run {
        id: id.clone(),
        dir: o.path.clone(),
        title: o.title.clone(),
        command,
        counters,
        sampling: o.sampling,
        started: Instant::now(),
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
        intervals,
        map_filter: MapFilter {
            asids: o.map_asids.clone(),
            jobs: o.map_jobs.clone(),
        },
        map_verbose: o.map_verbose,
        stop_reason: o.map_only.then(|| "MAPONLY: map taken".to_string()),
    };
    let msg = format!(
        "HHCMF042I hcpumf his: run {} started: counter sets {}, sampling {}, files in {}{}",
        id,
        sets_text(o.sets),
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
    ) + &o
        .smfintval_secs
        .map(|s| format!(", counters every {s} s"))
        .unwrap_or_default();
    *guard = Some(run);
    drop(guard);
    start_timer(id.clone());
    Ok(msg)
}

/// The timer of run `id`: writes its SMFINTVAL intervals and ends it at its deadline
/// (DURATION, MAPONLY, DATALOSS=STOP); gone when the run is (a later run has a timer of its
/// own).
fn start_timer(id: String) {
    let _ = std::thread::Builder::new()
        .name("hcpumf-his-timer".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let due = match RUN.lock() {
                Ok(mut g) => match g.as_mut() {
                    None => return,
                    Some(r) if r.id != id => return,
                    Some(_) if writer::stop_requested() => {
                        Some(Some("DATALOSS=STOP: sample data lost".to_string()))
                    }
                    Some(r) => {
                        if let Some(i) = r.intervals.as_mut() {
                            i.tick(&r.counters, tod_now());
                        }
                        let map_only_ready = r.map_file.is_some()
                            && r.cnt_file.is_none()
                            && !r.sampling
                            && host_run::last_view(0).is_some();
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
                    log(&m);
                }
                return;
            }
        });
}

/// End the active run (`only`: if it is that run).
fn end(why: &str, only: Option<&str>) -> Result<String, RunError> {
    let mut guard = RUN.lock().map_err(|_| RunError::Poisoned)?;
    if let (Some(id), Some(r)) = (only, guard.as_ref()) {
        if r.id != id {
            return Err(RunError::AlreadyEnded(id.to_string()));
        }
    }
    let Some(mut run) = guard.take() else {
        return Err(RunError::NoneActive);
    };
    drop(guard);
    let end_tod = tod_now();
    let end_time = SystemTime::now();
    // Stop sampling first, then flush every CPU's partial block; the writer ends when the
    // last sender is gone.
    let partial = host_run::detach(end_tod);
    if let Some(tx) = run.tx.take() {
        for b in partial {
            let _ = tx.send(b);
        }
    }
    let report: WriterReport = run
        .writer
        .take()
        .and_then(|h| h.join().ok())
        .unwrap_or_default();
    let mut files = Vec::new();
    let mut errors: Vec<FileError> = Vec::new();
    // One set of END snapshots for the .CNT and the last interval: the intervals add up.
    let ends = run.counters.snaps_now();
    if let Some(f) = run.cnt_file.take() {
        let text = run.counters.cnt_text(
            &f.name,
            &run.command,
            (end_time, end_tod),
            report.lost_samples,
            &ends,
        );
        match f.finish(&run.dir, text.as_bytes()) {
            Ok(name) => files.push(name),
            Err(e) => errors.push(e),
        }
    }
    if let Some(i) = run.intervals.take() {
        match i.finish(&run.counters, &ends, end_tod) {
            Ok(name) => files.push(name),
            Err(e) => errors.push(e),
        }
    }
    if let Some((f, x)) = run.map_file.take() {
        let t = mvs::map_text(&run.map_filter);
        if run.map_verbose {
            for n in &t.notes {
                log(&format!("HHCMF050I hcpumf his map: {n}"));
            }
        }
        match f.finish(&run.dir, t.map.as_bytes()) {
            Ok(name) => files.push(format!("{name} ({})", t.note)),
            Err(e) => errors.push(e),
        }
        match x.finish(&run.dir, t.extras.as_bytes()) {
            Ok(name) => files.push(name),
            Err(e) => errors.push(e),
        }
    }
    let smp: u64 = report.blocks.iter().sum();
    if smp > 0 {
        files.push(format!("{}.SMP.* ({smp} blocks)", run.id));
    }
    // The title, as HIS022I repeats it at the end (Redbook Example 4-2: TITLE= ''); the
    // .CNT has it in its COMMAND line.
    let mut msg = format!(
        "HHCMF044I hcpumf his: run {}{} ended ({why}) after {:.1} s; files: {}",
        run.id,
        if run.title.is_empty() {
            String::new()
        } else {
            format!(" (title '{}')", run.title)
        },
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
    Ok(msg)
}

fn status() {
    let g = match RUN.lock() {
        Ok(g) => g,
        Err(_) => return,
    };
    match g.as_ref() {
        None => log("HHCMF046I hcpumf his: no run is active"),
        Some(run) => {
            let samples: u64 = rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.taken.load(Ordering::Relaxed))
                .sum();
            let late: u64 = rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.late_total.load(Ordering::Relaxed))
                .sum();
            let late_max: u64 = rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.late_max.load(Ordering::Relaxed))
                .max()
                .unwrap_or(0);
            let missed: u64 = rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.missed.load(Ordering::Relaxed))
                .sum();
            // CPU by CPU, in CPU-address order (tests/common/stored.rs reads them so).
            let held: Vec<String> = rt()
                .cpus
                .iter()
                .map(|st| st.schedule.host.held.load(Ordering::Relaxed).to_string())
                .collect();
            log(&format!(
                "HHCMF048I hcpumf his: sample ticks late by {:.1} us on average, {:.1} us at \
                 most; {missed} intervals missed, held by the host CPU by CPU {}",
                late as f64 / 1000.0 / samples.max(1) as f64,
                late_max as f64 / 1000.0,
                held.join("/")
            ));
            let error = writer::write_error();
            log(&format!(
                "HHCMF047I hcpumf his: run {} active for {:.1} s, counter sets {}, sampling {}, {} samples so far, {} blocks written{}",
                run.id,
                run.started.elapsed().as_secs_f64(),
                sets_text(run.counters.sets),
                match (run.sampling, error.is_some()) {
                    (false, _) => "off",
                    (true, false) => "on",
                    (true, true) => "stopped",
                },
                samples,
                writer::blocks_written(),
                run.deadline
                    .map(|d| format!(", ends in {:.0} s", d.saturating_duration_since(Instant::now()).as_secs_f64()))
                    .unwrap_or_default()
            ));
            if let Some(e) = error {
                log(&format!("HHCMF045W hcpumf his: {e}"));
            }
        }
    }
}

/// Module unload (Hercules shutting down): end the run so that nothing is lost.
pub fn stop_on_unload() {
    let active = RUN.lock().map(|g| g.is_some()).unwrap_or(false);
    if active {
        match end("Hercules is stopping", None) {
            Ok(m) => log(&m),
            Err(e) => log(&format!("HHCMF043E hcpumf his: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::his::options::Keyword;

    fn ws(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    /// The keywords' errors reach the console as they are, and END without a run says so;
    /// neither starts or needs a run (nothing here touches the host).
    #[test]
    fn begin_and_end_pass_their_errors_up_whole() {
        let e = begin(&ws("sf=600000 sampfreq=600000"), "").unwrap_err();
        assert!(
            matches!(e, RunError::Begin(BeginError::Repeated(Keyword::Sampfreq))),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "SAMPFREQ is given more than once");
        let e = begin(&ws("path=/nonexistent/dir"), "").unwrap_err();
        assert!(matches!(
            e,
            RunError::Begin(BeginError::PathNotADirectory(_))
        ));
        let e = end("END command", None).unwrap_err();
        assert!(matches!(e, RunError::NoneActive), "{e:?}");
        assert_eq!(e.to_string(), "no run is active");
        assert_eq!(
            RunError::AlreadyEnded("SYSHIS20250101.000000.000".into()).to_string(),
            "run SYSHIS20250101.000000.000 already ended"
        );
    }
}

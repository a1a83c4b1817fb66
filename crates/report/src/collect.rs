//! Reading a run: the map, counters and intervals whole (they are small text files), the
//! .SMP files streamed through a visitor that aggregates their samples (and, for the page,
//! the timeline) as they go by, so that memory does not grow with the input.

use super::input::{Options, ReportError, RunFiles};
use super::progress::{Counting, Progress};
use super::samples::{asid_of, Addresses, Tag, NO_ENTRY};
use super::timeline::{Cursor, Timeline};
use hcpumf_formats::{cnt, int, map, smp};
use std::path::{Path, PathBuf};

/// Everything read from a run.
#[derive(Default)]
pub struct Collected {
    pub map: map::MapFile,
    pub addrs: Addresses,
    /// Samples the machine lost (sum of the trailers' overflow counts).
    pub overflow: u64,
    pub blocks: u64,
    /// .SMP files read.
    pub smp_files: usize,
    pub counters: Vec<(PathBuf, cnt::CntFile)>,
    pub intervals: Vec<(PathBuf, int::IntFile)>,
    /// With `Options::html`.
    pub timeline: Option<Timeline>,
    /// Damaged input: file, offset, what.
    pub problems: Vec<String>,
}

fn io_error(path: &Path, e: std::io::Error) -> ReportError {
    ReportError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

fn read(path: &Path) -> Result<Vec<u8>, ReportError> {
    std::fs::read(path).map_err(|e| io_error(path, e))
}

/// Which samples a report takes.
trait Pass {
    fn pass(&self, s: &smp::Bsde) -> bool;
}

/// Every sample.
struct All;

impl Pass for All {
    #[inline]
    fn pass(&self, _: &smp::Bsde) -> bool {
        true
    }
}

/// The report's filters of samples.
struct Filter {
    asid: Option<u16>,
    problem: Option<bool>,
    range: Option<(u64, u64)>,
}

impl Pass for &Filter {
    #[inline]
    fn pass(&self, s: &smp::Bsde) -> bool {
        !(self.asid.is_some_and(|a| a != asid_of(s))
            || self.problem.is_some_and(|p| p != s.problem_state)
            || self.range.is_some_and(|(lo, hi)| s.ia < lo || s.ia > hi))
    }
}

/// Where a file's samples go besides the addresses: nowhere, or the timeline.
trait Sink {
    fn block(&mut self, t: &smp::Trailer);
    fn sample(&mut self, i: usize, addrs: &Addresses);
    fn block_end(&mut self);
    /// The file is done.
    fn end(&mut self);
}

impl Sink for () {
    #[inline]
    fn block(&mut self, _: &smp::Trailer) {}
    #[inline]
    fn sample(&mut self, _: usize, _: &Addresses) {}
    #[inline]
    fn block_end(&mut self) {}
    fn end(&mut self) {}
}

/// The timeline of a run, a file's cursor in it, and what classifies new entries.
struct Timed<'a> {
    timeline: &'a mut Timeline,
    cursor: Cursor,
    map: &'a map::MapFile,
    bucket: u64,
}

impl Sink for Timed<'_> {
    #[inline]
    fn block(&mut self, t: &smp::Trailer) {
        self.cursor.block(self.timeline, t);
    }
    fn end(&mut self) {
        self.cursor.finish(self.timeline);
    }
    #[inline]
    fn sample(&mut self, i: usize, addrs: &Addresses) {
        if i != NO_ENTRY {
            self.cursor
                .sample(self.timeline, i, &addrs.entries, self.map, self.bucket);
        }
    }
    #[inline]
    fn block_end(&mut self) {
        self.cursor.block_end(self.timeline);
    }
}

/// The visitor of one .SMP file: generic, so that a plain report pays for no filter and no
/// timeline per sample.
struct Stream<'a, P, S> {
    addrs: &'a mut Addresses,
    pass: P,
    sink: S,
}

impl<P: Pass, S: Sink> smp::Visitor for Stream<'_, P, S> {
    #[inline]
    fn block(&mut self, t: &smp::Trailer, _offset: u64) {
        self.sink.block(t);
    }

    #[inline]
    fn sample(&mut self, s: &smp::Bsde) {
        if self.pass.pass(s) {
            let i = self.addrs.add_same_cpu(s);
            self.sink.sample(i, self.addrs);
        }
    }

    #[inline]
    fn block_end(&mut self) {
        self.sink.block_end();
    }
}

/// Scan one file through a stream, then end its sink.
fn scan_stream<R: std::io::Read, P: Pass, S: Sink>(
    r: R,
    mut st: Stream<'_, P, S>,
) -> std::io::Result<smp::ScanSummary> {
    let sum = smp::scan_with(r, &mut st);
    st.sink.end();
    sum
}

/// Scan one file into `addrs` (and the timeline).
fn scan_file<R: std::io::Read>(
    r: R,
    addrs: &mut Addresses,
    filter: Option<&Filter>,
    timed: Option<Timed<'_>>,
) -> std::io::Result<smp::ScanSummary> {
    match (filter, timed) {
        (None, None) => scan_stream(
            r,
            Stream {
                addrs,
                pass: All,
                sink: (),
            },
        ),
        (Some(f), None) => scan_stream(
            r,
            Stream {
                addrs,
                pass: f,
                sink: (),
            },
        ),
        (None, Some(t)) => scan_stream(
            r,
            Stream {
                addrs,
                pass: All,
                sink: t,
            },
        ),
        (Some(f), Some(t)) => scan_stream(
            r,
            Stream {
                addrs,
                pass: f,
                sink: t,
            },
        ),
    }
}

/// The time the .SMP files cover, from their first and last trailers and the .CNT's START
/// TOD: (start, end), TOD clock.
fn time_span(smp: &[&(u16, PathBuf)], counters: &[(PathBuf, cnt::CntFile)]) -> (u64, u64) {
    let (mut first, mut last) = (u64::MAX, 0u64);
    for (_, p) in smp {
        let Ok(f) = std::fs::File::open(p) else {
            continue;
        };
        if let Ok(Some((a, b))) = smp::first_and_last(f) {
            first = first.min(a.tod());
            last = last.max(b.tod());
        }
    }
    if first > last {
        return (0, 0);
    }
    // The run's start, when the .CNT is of this run: before the first block, and not long
    // before (the first block's samples are spread from the start to its timestamp).
    let start = counters
        .iter()
        .filter_map(|(_, c)| c.start_tod)
        .filter(|&s| s <= first && first - s <= (last - first).max(60 * 4096 * 1_000_000))
        .min()
        .unwrap_or(first);
    (start, last)
}

/// Read the run's files.
pub fn collect(files: &RunFiles, opts: &Options) -> Result<Collected, ReportError> {
    let mut c = Collected::default();
    for p in &files.map {
        let f = map::parse_bytes(&read(p)?);
        for pr in &f.problems {
            c.problems.push(format!("{}: {pr}", p.display()));
        }
        let m = &mut c.map;
        m.info.extend(f.info);
        m.jobs.extend(f.jobs);
        m.modules.extend(f.modules);
        m.csects.extend(f.csects);
        m.entries.extend(f.entries);
        m.boundaries.extend(f.boundaries);
    }
    c.map.sort();
    for p in &files.cnt {
        let f = cnt::parse_bytes(&read(p)?);
        for pr in &f.problems {
            c.problems.push(format!("{}: {pr}", p.display()));
        }
        c.counters.push((p.clone(), f));
    }
    for p in &files.int {
        let f = int::parse_bytes(&read(p)?);
        for pr in &f.problems {
            c.problems.push(format!("{}: {pr}", p.display()));
        }
        c.intervals.push((p.clone(), f));
    }

    let smp: Vec<&(u16, PathBuf)> = files
        .smp
        .iter()
        .filter(|(cpu, _)| opts.cpu.is_none_or(|c| c == *cpu))
        .collect();
    c.smp_files = smp.len();
    let mut timeline = opts.html.is_some().then(|| {
        let (t0, t1) = time_span(&smp, &c.counters);
        Timeline::new(t0, t1)
    });
    let total: u64 = smp
        .iter()
        .filter_map(|(_, p)| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let mut progress = Progress::for_input(total);
    let filter =
        (opts.asid.is_some() || opts.problem.is_some() || opts.range.is_some()).then_some(Filter {
            asid: opts.asid,
            problem: opts.problem,
            range: opts.range,
        });
    let mut addrs = Addresses::default();
    for (cpu, p) in smp {
        let f = std::fs::File::open(p).map_err(|e| io_error(p, e))?;
        addrs.begin_cpu(Tag::of_cpu(*cpu));
        let timed = timeline.as_mut().map(|t| Timed {
            cursor: Cursor::new(t, *cpu),
            timeline: t,
            map: &c.map,
            bucket: opts.bucket,
        });
        let reader = Counting {
            inner: f,
            progress: progress.as_mut(),
        };
        let sum =
            scan_file(reader, &mut addrs, filter.as_ref(), timed).map_err(|e| io_error(p, e))?;
        c.overflow += sum.overflow;
        c.blocks += sum.blocks;
        for pr in &sum.problems {
            c.problems.push(format!(
                "{}: offset {}: {}",
                p.display(),
                pr.offset,
                pr.what
            ));
        }
        if sum.more_problems > 0 {
            c.problems.push(format!(
                "{}: {} more problems",
                p.display(),
                sum.more_problems
            ));
        }
    }
    if let Some(p) = progress.as_mut() {
        p.finish();
    }
    addrs.finish();
    c.addrs = addrs;
    c.timeline = timeline;
    Ok(c)
}

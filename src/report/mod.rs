//! The report of `hcpumf-report`: the hot-spot table of IBM's HIS report (SAMPLES, ISAMPLES,
//! CPU %, PASN, JOBNAME, MODULE, CSECT) from .SMP files attributed through a .MAP, the
//! counter metrics of "CPU MF Formulas" (CPI, PRBSTATE, LPARCPU, ...) from a .CNT, damaged
//! input with file offsets, and an SVG picture.

use crate::his::{cnt, map, smp};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a report could not be made at all.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("no HIS files (.SMP.n, .CNT, .MAP) found in {0}")]
    NoFiles(String),
    #[error("{0} is not a HIS file (a name ending in .SMP.n with n hexadecimal, .CNT or .MAP)")]
    NotHis(String),
}

/// Report options.
#[derive(Clone, Debug)]
pub struct Options {
    pub top: usize,
    pub asid: Option<u16>,
    /// Some(true): problem state only; Some(false): supervisor state only.
    pub problem: Option<bool>,
    pub cpu: Option<u16>,
    pub range: Option<(u64, u64)>,
    /// Address bucket size for samples outside any module of the map.
    pub bucket: u64,
    pub svg: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            top: 20,
            asid: None,
            problem: None,
            cpu: None,
            range: None,
            bucket: 4096,
            svg: None,
        }
    }
}

/// The files of a run.
#[derive(Clone, Debug, Default)]
pub struct RunFiles {
    pub smp: Vec<(u16, PathBuf)>,
    pub cnt: Vec<PathBuf>,
    pub map: Vec<PathBuf>,
}

/// Classify paths: files by suffix; a directory contributes every SYSHIS* file in it.
pub fn find_files(paths: &[PathBuf]) -> Result<RunFiles, ReportError> {
    let mut r = RunFiles::default();
    // Whether the name was one of a HIS file.
    let mut add = |p: &Path| -> bool {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(i) = name.rfind(".SMP.") {
            match u16::from_str_radix(&name[i + 5..], 16) {
                Ok(cpu) => r.smp.push((cpu, p.to_path_buf())),
                Err(_) => return false,
            }
        } else if name.ends_with(".CNT") {
            r.cnt.push(p.to_path_buf());
        } else if name.ends_with(".MAP") {
            r.map.push(p.to_path_buf());
        } else {
            return false;
        }
        true
    };
    for p in paths {
        if p.is_dir() {
            let rd = std::fs::read_dir(p).map_err(|e| ReportError::Io {
                path: p.display().to_string(),
                source: e,
            })?;
            let mut names: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            names.sort();
            for n in names {
                if n.file_name()
                    .map(|x| x.to_string_lossy().starts_with("SYSHIS"))
                    .unwrap_or(false)
                {
                    add(&n);
                }
            }
        } else if !add(p) {
            return Err(ReportError::NotHis(p.display().to_string()));
        }
    }
    r.smp.sort();
    if r.smp.is_empty() && r.cnt.is_empty() && r.map.is_empty() {
        return Err(ReportError::NoFiles(
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ));
    }
    Ok(r)
}

#[derive(Clone, Debug, Default)]
struct Row {
    samples: u64,
    invalid: u64,
    asid: u16,
    module: String,
    csect: String,
    start: u64,
    end: u64,
    cycles_share: f64,
}

fn read(path: &Path) -> Result<Vec<u8>, ReportError> {
    std::fs::read(path).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

/// Hot-spot aggregation of the samples of one or more .SMP files.
pub struct HotSpots {
    rows: Vec<Row>,
    index: HashMap<(u16, u64), usize>,
    last: Option<((u16, u64), usize)>,
    pub total: u64,
    pub total_invalid: u64,
    /// Samples per 1/200 of the sampled address range (for the picture).
    pub addresses: Vec<u64>,
}

impl HotSpots {
    fn new() -> Self {
        HotSpots {
            rows: Vec::new(),
            index: HashMap::new(),
            last: None,
            total: 0,
            total_invalid: 0,
            addresses: Vec::new(),
        }
    }

    fn add(&mut self, s: &smp::Sample, m: &map::MapFile, opts: &Options, ia_all: &mut Vec<u64>) {
        let asid = if s.gpp != 0 {
            ((s.gpp >> 16) & 0x7FFF) as u16
        } else {
            s.asn
        };
        if opts.asid.is_some_and(|a| a != asid)
            || opts.problem.is_some_and(|p| p != s.problem)
            || opts.range.is_some_and(|(lo, hi)| s.ia < lo || s.ia > hi)
        {
            return;
        }
        // Samples in a module are keyed by the start of their CSECT (when the map has C
        // records) or module; others by address bucket.
        let module = m.module_at(asid, s.ia);
        let csect = if m.csects.is_empty() {
            None
        } else {
            m.csect_at(asid, s.ia)
        };
        let (start, end) = match (csect, module) {
            (Some(c), _) => (c.start, c.end),
            (None, Some(e)) => (e.start, e.end),
            (None, None) => {
                let b = s.ia / opts.bucket.max(1) * opts.bucket.max(1);
                (b, b + opts.bucket.max(1) - 1)
            }
        };
        let key = (asid, start);
        let i = match self.last {
            Some((k, i)) if k == key => i,
            _ => {
                let n = self.rows.len();
                let i = *self.index.entry(key).or_insert(n);
                if i == n {
                    self.rows.push(Row {
                        asid,
                        module: module.map(|e| e.name.clone()).unwrap_or_default(),
                        csect: csect.map(|e| e.name.clone()).unwrap_or_default(),
                        start,
                        end,
                        ..Default::default()
                    });
                }
                self.last = Some((key, i));
                i
            }
        };
        if s.invalid {
            self.rows[i].invalid += 1;
            self.total_invalid += 1;
        } else {
            self.rows[i].samples += 1;
            self.total += 1;
            if ia_all.len() < 1_000_000 {
                ia_all.push(s.ia);
            }
        }
    }
}

/// A report: its text, and every damaged input (file, offset, what) it also lists.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub text: String,
    pub damaged: Vec<String>,
}

/// Make the report.
pub fn report(files: &RunFiles, opts: &Options) -> Result<Report, ReportError> {
    let mut out = String::new();
    let mut problems: Vec<String> = Vec::new();
    let mut m = map::MapFile::default();
    for p in &files.map {
        let f = map::parse_bytes(&read(p)?);
        for pr in &f.problems {
            problems.push(format!("{}: {pr}", p.display()));
        }
        m.info.extend(f.info);
        m.jobs.extend(f.jobs);
        m.modules.extend(f.modules);
        m.csects.extend(f.csects);
        m.entries.extend(f.entries);
        m.boundaries.extend(f.boundaries);
    }
    m.sort();

    // Samples.
    let mut hs = HotSpots::new();
    let mut ias = Vec::new();
    let mut overflow = 0u64;
    let mut blocks = 0u64;
    for (cpu, p) in &files.smp {
        if opts.cpu.is_some_and(|c| c != *cpu) {
            continue;
        }
        let f = std::fs::File::open(p).map_err(|e| ReportError::Io {
            path: p.display().to_string(),
            source: e,
        })?;
        let sum = smp::scan(std::io::BufReader::with_capacity(1 << 20, f), &mut |s| {
            hs.add(s, &m, opts, &mut ias)
        })
        .map_err(|e| ReportError::Io {
            path: p.display().to_string(),
            source: e,
        })?;
        overflow += sum.overflow;
        blocks += sum.blocks;
        for pr in &sum.problems {
            problems.push(format!(
                "{}: offset {}: {}",
                p.display(),
                pr.offset,
                pr.what
            ));
        }
        if sum.more_problems > 0 {
            problems.push(format!(
                "{}: {} more problems",
                p.display(),
                sum.more_problems
            ));
        }
    }

    // Counters.
    let mut counters = Vec::new();
    for p in &files.cnt {
        let f = cnt::parse_bytes(&read(p)?);
        for pr in &f.problems {
            problems.push(format!("{}: {pr}", p.display()));
        }
        counters.push(f);
    }

    let _ = writeln!(out, "hcpumf-report: hardware event data");
    if !files.smp.is_empty() {
        let _ = writeln!(
            out,
            "\nSAMPLES: {} valid, {} invalid, {} lost (overflow), {} blocks, {} CPU file(s)",
            hs.total,
            hs.total_invalid,
            overflow,
            blocks,
            files.smp.len()
        );
        let cpi = counters.first().and_then(total_cpi);
        let mut rows = hs.rows.clone();
        rows.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.start.cmp(&b.start)));
        let _ = writeln!(
            out,
            "\n{:>10} {:>9} {:>7} {:>6} {:>5} {:<8} {:<8} {:<8} ADDRESS RANGE",
            "SAMPLES", "ISAMPLES", "CPU %", "CPI", "PASN", "JOBNAME", "MODULE", "CSECT"
        );
        for r in rows.iter_mut().take(opts.top) {
            r.cycles_share = r.samples as f64 * 100.0 / hs.total.max(1) as f64;
            let job = m.jobs.get(&r.asid).cloned().unwrap_or_else(|| "-".into());
            let module = if r.module.is_empty() {
                "-".to_string()
            } else {
                r.module.clone()
            };
            // Without C records a module is its own CSECT (MVS 3.8J keeps no CSECT map).
            let csect = if r.csect.is_empty() {
                module.clone()
            } else {
                r.csect.clone()
            };
            let _ = writeln!(
                out,
                "{:>10} {:>9} {:>7.2} {:>6} {:>5} {:<8} {:<8} {:<8} {:08X}-{:08X}",
                r.samples,
                r.invalid,
                r.cycles_share,
                cpi.map(|c| format!("{c:.2}")).unwrap_or_else(|| "-".into()),
                format!("{:04X}", r.asid),
                job,
                module,
                csect,
                r.start,
                r.end
            );
        }
        if let Some(svg) = &opts.svg {
            let pic = picture(&rows, hs.total, &ias, opts.top);
            std::fs::write(svg, pic).map_err(|e| ReportError::Io {
                path: svg.display().to_string(),
                source: e,
            })?;
            let _ = writeln!(out, "\npicture: {}", svg.display());
        }
    }
    for f in &counters {
        let _ = writeln!(out, "\nCOUNTERS (CFVN {}, CSVN {})", f.cfvn, f.csvn);
        if f.lost_samples > 0 {
            let _ = writeln!(
                out,
                "samples lost by the collector (LOST SAMPLES): {}",
                f.lost_samples
            );
        }
        let _ = writeln!(
            out,
            "{:>4} {:>16} {:>16} {:>7} {:>9} {:>7} {:>8} {:>8}",
            "CPU", "CYCLES", "INSTRUCTIONS", "CPI", "PRBSTATE", "PRBCPI", "LPARCPU", "EFF GHZ"
        );
        let mut tot = [0u64; 4];
        let us = match (f.start_tod, f.end_tod) {
            (Some(a), Some(b)) if b > a => Some(((b - a) >> 12) as f64),
            _ => None,
        };
        for (cpu, (speed, v)) in &f.cpus {
            let g = |n: u16| v.get(&n).copied().unwrap_or(0);
            let (cyc, ins, pcyc, pins) = (g(0), g(1), g(32), g(33));
            tot[0] += cyc;
            tot[1] += ins;
            tot[2] += pcyc;
            tot[3] += pins;
            let _ = writeln!(
                out,
                "{:>4} {:>16} {:>16} {:>7} {:>9} {:>7} {:>8} {:>8}",
                format!("{cpu:02X}"),
                cyc,
                ins,
                ratio(cyc, ins),
                pct(pins, ins),
                ratio(pcyc, pins),
                us.map(|u| format!(
                    "{:.1}%",
                    cyc as f64 * 100.0 / (u * f64::from(*speed)).max(1.0)
                ))
                .unwrap_or_else(|| "-".into()),
                format!("{:.2}", f64::from(*speed) / 1000.0)
            );
        }
        let _ = writeln!(
            out,
            "{:>4} {:>16} {:>16} {:>7} {:>9} {:>7}",
            "ALL",
            tot[0],
            tot[1],
            ratio(tot[0], tot[1]),
            pct(tot[3], tot[1]),
            ratio(tot[2], tot[3])
        );
        let _ = writeln!(
            out,
            "(L1MP and the cache metrics need the L1 counters, which an emulator does not have)"
        );
    }
    if !problems.is_empty() {
        let _ = writeln!(out, "\nDAMAGED INPUT ({}):", problems.len());
        for p in &problems {
            let _ = writeln!(out, "  {p}");
        }
    }
    Ok(Report {
        text: out,
        damaged: problems,
    })
}

fn total_cpi(f: &cnt::CntFile) -> Option<f64> {
    let (mut c, mut i) = (0u64, 0u64);
    for (_, v) in f.cpus.values() {
        c += v.get(&0).copied().unwrap_or(0);
        i += v.get(&1).copied().unwrap_or(0);
    }
    if i == 0 {
        None
    } else {
        Some(c as f64 / i as f64)
    }
}

fn ratio(a: u64, b: u64) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
}

fn pct(a: u64, b: u64) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.1}%", a as f64 * 100.0 / b as f64)
    }
}

/// An SVG: bars of the top rows, and a histogram of samples over the sampled addresses.
fn picture(rows: &[Row], total: u64, ias: &[u64], top: usize) -> String {
    let mut s = String::new();
    let w = 900.0;
    let _ = writeln!(
        s,
        "<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='560' font-family='monospace' font-size='12'>"
    );
    let _ = writeln!(s, "<rect width='100%' height='100%' fill='white'/>");
    let _ = writeln!(
        s,
        "<text x='10' y='20' font-size='16'>hcpumf-report: where the CPU time goes</text>"
    );
    for (k, r) in rows.iter().take(top.min(12)).enumerate() {
        let y = 40.0 + k as f64 * 22.0;
        let frac = r.samples as f64 / total.max(1) as f64;
        let name = if r.module.is_empty() {
            format!("{:08X}", r.start)
        } else {
            r.module.clone()
        };
        let _ = writeln!(
            s,
            "<text x='10' y='{:.0}'>{}</text><rect x='120' y='{:.0}' width='{:.1}' height='16' fill='#3a6ea5'/><text x='{:.1}' y='{:.0}'>{:.1}%</text>",
            y + 13.0,
            xml(&name),
            y,
            frac * 600.0,
            126.0 + frac * 600.0,
            y + 13.0,
            frac * 100.0
        );
    }
    // Address histogram.
    if let (Some(&lo), Some(&hi)) = (ias.iter().min(), ias.iter().max()) {
        let bins = 200usize;
        let span = (hi - lo).max(1) as f64;
        let mut h = vec![0u64; bins];
        for &a in ias {
            let b = (((a - lo) as f64 / span) * (bins - 1) as f64) as usize;
            h[b.min(bins - 1)] += 1;
        }
        let max = *h.iter().max().unwrap_or(&1) as f64;
        let base = 540.0;
        let _ = writeln!(
            s,
            "<text x='10' y='330'>samples over the address space {lo:08X} - {hi:08X}</text>"
        );
        for (i, &c) in h.iter().enumerate() {
            let hgt = c as f64 / max.max(1.0) * 190.0;
            let _ = writeln!(
                s,
                "<rect x='{:.1}' y='{:.1}' width='4' height='{:.1}' fill='#c0504d'/>",
                10.0 + i as f64 * 4.4,
                base - hgt,
                hgt
            );
        }
    }
    let _ = writeln!(s, "</svg>");
    s
}

fn xml(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

//! The report of `hcpumf-report`: the hot-spot table of IBM's HIS report (Redbook SG24-7857
//! Figure 4-9: SAMPLES, ISAMPLES, CPU %, CPI, PASN, JOBNAME, MODULE, CSECT) from .SMP files
//! attributed through a .MAP, with each row's hottest instruction addresses; the counter
//! metrics of "CPU MF Formulas" (CPI, PRBSTATE, LPARCPU, ...) from a .CNT; damaged input with
//! file offsets; and an SVG picture.
//!
//! | module | what |
//! |---|---|
//! | [`samples`] | the samples aggregated by address while they stream, then rows through the map |
//! | [`picture`] | the SVG |

pub mod picture;
pub mod samples;

use crate::his::{cnt, map, smp};
use samples::{Addresses, Rows};
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
    /// Hottest instruction addresses listed under each row.
    pub hot: usize,
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
            hot: 3,
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

/// A report: its text, and every damaged input (file, offset, what) it also lists.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub text: String,
    pub damaged: Vec<String>,
}

fn read(path: &Path) -> Result<Vec<u8>, ReportError> {
    std::fs::read(path).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

/// Does the sample pass the report's filters?
fn selected(s: &smp::Sample, opts: &Options) -> bool {
    !(opts.asid.is_some_and(|a| a != samples::asid_of(s))
        || opts.problem.is_some_and(|p| p != s.problem)
        || opts.range.is_some_and(|(lo, hi)| s.ia < lo || s.ia > hi))
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
    let mut addrs = Addresses::default();
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
            if selected(s, opts) {
                addrs.add(s)
            }
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
    addrs.finish();

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
        let total = addrs.total;
        let _ = writeln!(
            out,
            "\nSAMPLES: {} valid ({} busy), {} invalid, {} lost (overflow), {} blocks, {} CPU file(s)",
            total.samples,
            total.busy,
            addrs.invalid,
            overflow,
            blocks,
            files.smp.len()
        );
        let _ = writeln!(
            out,
            "CPI: {} from the samples (busy samples / sum of U), {} from the counters",
            total
                .cpi()
                .map(|c| format!("{c:.2}"))
                .unwrap_or_else(|| "-".into()),
            counters
                .first()
                .and_then(total_cpi)
                .map(|c| format!("{c:.2}"))
                .unwrap_or_else(|| "-".into())
        );
        let rows = Rows::build(&addrs, &m, opts.bucket, opts.hot);
        let _ = writeln!(
            out,
            "\n{:>10} {:>9} {:>8} {:>7} {:>5} {:<8} {:<10} {:<9} ADDRESS RANGE",
            "SAMPLES", "ISAMPLES", "CPU %", "CPI", "PASN", "JOBNAME", "MODULE", "CSECT"
        );
        for r in rows.rows.iter().take(opts.top) {
            let _ = writeln!(
                out,
                "{:>10} {:>9} {:>8.3} {:>7} {:>5} {:<8} {:<10} {:<9} {:08X}-{:08X}",
                r.count.samples,
                r.count.unique,
                r.count.samples as f64 * 100.0 / total.samples.max(1) as f64,
                r.count
                    .cpi()
                    .map(|c| format!("{c:.2}"))
                    .unwrap_or_else(|| "-".into()),
                format!("{:04X}", r.asid),
                r.job,
                r.module,
                r.csect,
                r.start,
                r.end
            );
            if r.hot.len() > 1 {
                // Addresses with at least 0.1% of the row's samples.
                let list: Vec<String> = r
                    .hot
                    .iter()
                    .filter(|(_, n)| *n * 1000 >= r.count.samples)
                    .map(|(ia, n)| {
                        format!(
                            "{ia:08X} {:.1}%",
                            *n as f64 * 100.0 / r.count.samples.max(1) as f64
                        )
                    })
                    .collect();
                let _ = writeln!(out, "{:>36} hot: {}", "", list.join(", "));
            }
        }
        if let Some(svg) = &opts.svg {
            let pic = picture::svg(&rows.rows, total.samples, &addrs, opts.top);
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

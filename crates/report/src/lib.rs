//! The report of `hcpumf-report`: the hot-spot table of IBM's HIS report (Redbook SG24-7857
//! Figure 4-9: SAMPLES, ISAMPLES, CPU %, CPI, PASN, JOBNAME, MODULE, CSECT) from .SMP files
//! attributed through a .MAP, with each row's hottest instruction addresses; the counter
//! metrics of "CPU MF Formulas" (CPI, PRBSTATE, LPARCPU, ...) from a .CNT and over time from
//! a .INT; damaged input with file offsets; an SVG picture, an HTML page, the folded stacks
//! and a JSON summary.
//!
//! | module | what |
//! |---|---|
//! | [`collect`] | reading a run: the .SMP files streamed through one visitor |
//! | [`samples`] | the samples aggregated by CPU, state and address while they stream |
//! | [`rows`] | the hot-spot rows through the map |
//! | [`timeline`] | samples over time per CPU, by module and job |
//! | [`metrics`] | counter metrics per CPU and interval |
//! | [`text`] | the text report |
//! | [`flame`] | the stacks: folded text and inferno's flame graph |
//! | [`html`], [`charts`] | the page and its charts |
//! | [`json`] | the JSON summary |
//! | [`picture`] | the SVG |
//! | [`progress`] | the progress bar on stderr |

pub mod charts;
pub mod collect;
pub mod flame;
pub mod html;
pub mod json;
pub mod metrics;
pub mod picture;
pub mod progress;
pub mod rows;
pub mod samples;
pub mod text;
pub mod timeline;

use rows::Rows;
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
    #[error("no HIS files (.SMP.n, .CNT, .MAP, .INT) found in {0}")]
    NoFiles(String),
    #[error(
        "{0} is not a HIS file (a name ending in .SMP.n with n hexadecimal, .CNT, .MAP or .INT)"
    )]
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
    /// The HTML page.
    pub html: Option<PathBuf>,
    /// The stacks in the folded format.
    pub folded: Option<PathBuf>,
    /// The JSON summary.
    pub json: Option<PathBuf>,
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
            html: None,
            folded: None,
            json: None,
        }
    }
}

/// The files of a run.
#[derive(Clone, Debug, Default)]
pub struct RunFiles {
    pub smp: Vec<(u16, PathBuf)>,
    pub cnt: Vec<PathBuf>,
    pub map: Vec<PathBuf>,
    /// Interval counters.
    pub int: Vec<PathBuf>,
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
        } else if name.ends_with(".INT") {
            r.int.push(p.to_path_buf());
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
    if r.smp.is_empty() && r.cnt.is_empty() && r.map.is_empty() && r.int.is_empty() {
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

fn write(path: &Path, what: &[u8]) -> Result<(), ReportError> {
    std::fs::write(path, what).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        source: e,
    })
}

/// Make the report, and write the files the options ask for.
pub fn report(files: &RunFiles, opts: &Options) -> Result<Report, ReportError> {
    let c = collect::collect(files, opts)?;
    let rows = Rows::build(&c.addrs, &c.map, opts.bucket, opts.hot);
    let mut out = text::text(&c, &rows.rows, opts, c.smp_files);
    let mut wrote = Vec::new();
    if let Some(svg) = &opts.svg {
        if c.smp_files > 0 {
            let pic = picture::svg(&rows.rows, c.addrs.total.samples, &c.addrs, opts.top);
            write(svg, pic.as_bytes())?;
            wrote.push(format!("picture: {}", svg.display()));
        }
    }
    let stacks = if opts.html.is_some() || opts.folded.is_some() {
        flame::stacks(&c.addrs, &c.map, opts.bucket)
    } else {
        Vec::new()
    };
    if let Some(p) = &opts.folded {
        write(p, flame::folded(&stacks).as_bytes())?;
        wrote.push(format!("folded stacks: {}", p.display()));
    }
    if let Some(p) = &opts.json {
        write(p, json::summary(files, &c, &rows.rows).as_bytes())?;
        wrote.push(format!("JSON summary: {}", p.display()));
    }
    if let Some(p) = &opts.html {
        write(p, html::page(files, &c, &rows.rows, &stacks).as_bytes())?;
        wrote.push(format!("HTML page: {}", p.display()));
    }
    if !wrote.is_empty() {
        out.push('\n');
        for w in wrote {
            out.push_str(&w);
            out.push('\n');
        }
    }
    if !c.problems.is_empty() {
        out.push_str(&format!("\nDAMAGED INPUT ({}):\n", c.problems.len()));
        for p in &c.problems {
            out.push_str(&format!("  {p}\n"));
        }
    }
    Ok(Report {
        text: out,
        damaged: c.problems,
    })
}

#[cfg(test)]
mod tests;

//! The report of `hcpumf-report`: the hot-spot table of IBM's HIS report (Redbook SG24-7857
//! Figure 4-9: SAMPLES, ISAMPLES, CPU %, CPI, PASN, JOBNAME, MODULE, CSECT) from .SMP files
//! attributed through a .MAP, with each row's hottest instruction addresses; the counter
//! metrics of "CPU MF Formulas" (CPI, PRBSTATE, LPARCPU, ...) from a .CNT and over time from
//! a .INT; damaged input with file offsets; an SVG picture, an HTML page, the folded stacks
//! and a JSON summary.
//!
//! | module | what |
//! |---|---|
//! | [`input`] | the options, the files of a run by name, why no report could be made |
//! | [`collect`] | reading a run: the .SMP files streamed through one visitor |
//! | [`samples`] | the samples aggregated by CPU, state and address while they stream |
//! | [`rows`] | the hot-spot rows through the map |
//! | [`timeline`] | samples over time per CPU, by module and job |
//! | [`metrics`] | counter metrics per CPU, the LPAR and interval |
//! | [`formulas`] | IBM's "CPU MF Formulas" per machine generation |
//! | [`text`] | the text report |
//! | [`flame`] | the stacks: folded text and inferno's flame graph |
//! | [`html`], [`html_counters`], [`charts`] | the page, its counters section, its charts |
//! | [`json`] | the JSON summary |
//! | [`picture`] | the SVG |
//! | [`progress`] | the progress bar on stderr |

pub mod charts;
pub mod collect;
pub mod flame;
pub mod formulas;
pub mod html;
pub mod html_counters;
pub mod input;
pub mod json;
pub mod metrics;
pub mod picture;
pub mod progress;
pub mod rows;
pub mod samples;
pub mod text;
pub mod timeline;

pub use input::{find_files, Options, ReportError, RunFiles};
use rows::Rows;
use std::path::Path;

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
mod ibm_tests;
#[cfg(test)]
mod tests;

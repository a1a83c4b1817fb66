//! The text report: the summary, the hot-spot table with IBM's columns and each row's hottest
//! addresses, the counter metrics per CPU, and the damaged input.

use super::collect::Collected;
use super::input::Options;
use super::metrics;
use super::rows::Row;
use std::fmt::Write as _;

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// The CPI of all CPUs of the first .CNT.
pub fn counters_cpi(c: &Collected) -> Option<f64> {
    let (_, f) = c.counters.first()?;
    let (mut cyc, mut ins) = (0u64, 0u64);
    for m in metrics::of_cnt(f) {
        cyc += m.cycles;
        ins += m.instructions;
    }
    (ins > 0).then(|| cyc as f64 / ins as f64)
}

/// The report's text.
pub fn text(c: &Collected, rows: &[Row], opts: &Options, files_smp: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "hcpumf-report: hardware event data");
    if files_smp > 0 {
        let total = c.addrs.total;
        let _ = writeln!(
            out,
            "\nSAMPLES: {} valid: {} busy, {} in the wait state (not attributed); {} invalid, \
             {} lost (overflow), {} blocks, {} CPU file(s)",
            total.samples + c.addrs.wait,
            total.samples,
            c.addrs.wait,
            c.addrs.invalid,
            c.overflow,
            c.blocks,
            files_smp
        );
        let _ = writeln!(
            out,
            "CPI: {} from the samples (SAMPLES / ISAMPLES), {} from the counters",
            opt(total.cpi(), |c| format!("{c:.2}")),
            opt(counters_cpi(c), |c| format!("{c:.2}"))
        );
        let _ = writeln!(
            out,
            "\n{:>10} {:>9} {:>8} {:>7} {:>5} {:<4} {:<8} {:<10} {:<9} ADDRESS RANGE",
            "SAMPLES", "ISAMPLES", "CPU %", "CPI", "PASN", "BY", "JOBNAME", "MODULE", "CSECT"
        );
        for r in rows.iter().take(opts.top) {
            let _ = writeln!(
                out,
                "{:>10} {:>9} {:>8.3} {:>7} {:>5} {:<4} {:<8} {:<10} {:<9} {:08X}-{:08X}",
                r.count.samples,
                r.count.isamples,
                r.count.samples as f64 * 100.0 / total.samples.max(1) as f64,
                opt(r.count.cpi(), |c| format!("{c:.2}")),
                format!("{:04X}", r.asid),
                r.by.map_or("-", |b| b.word()),
                r.job,
                r.module,
                r.csect,
                r.start,
                r.end
            );
            if !r.hot.is_empty() && r.end > r.start + 6 {
                let list: Vec<String> = r
                    .hot
                    .iter()
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
    }
    for (_, f) in &c.counters {
        let cpus = metrics::of_cnt(f);
        let generation = metrics::generation_of(f);
        let _ = writeln!(
            out,
            "\nCOUNTERS (CFVN {}, CSVN {}: {})",
            f.cfvn,
            f.csvn,
            generation.map_or("a machine IBM's CPU MF Formulas do not cover", |g| g.name())
        );
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
        let all = metrics::lpar(&cpus);
        for m in cpus.iter().chain(all.iter()) {
            let _ = writeln!(
                out,
                "{:>4} {:>16} {:>16} {:>7} {:>9} {:>7} {:>8} {:>8}",
                cpu_name(m.cpu),
                m.cycles,
                m.instructions,
                opt(m.cpi(), |v| format!("{v:.2}")),
                opt(m.prbstate(), |v| format!("{v:.1}%")),
                opt(m.problem_cpi(), |v| format!("{v:.2}")),
                opt(m.lparcpu(), |v| format!("{v:.1}%")),
                format!("{:.2}", m.eff_ghz())
            );
        }
        formulas_table(&mut out, &cpus, all.as_ref());
    }
    for (p, f) in &c.intervals {
        let cpus: std::collections::BTreeSet<u16> = f.rows.iter().map(|r| r.cpu).collect();
        let _ = writeln!(
            out,
            "\nINTERVALS: {} of {} s for {} CPU(s) in {}",
            f.rows.len() / cpus.len().max(1),
            f.interval_secs
                .map(|s| s.to_string())
                .unwrap_or_else(|| "?".into()),
            cpus.len(),
            p.display()
        );
        let lpar = metrics::lpar_points(&metrics::of_int(f, metrics::int_generation(f, c)));
        let _ = writeln!(
            out,
            "{:>9} {:>7} {:>9} {:>8} {:>7} {:>7} {:>8}",
            "SECONDS", "CPI", "PRBSTATE", "LPARCPU", "L1MP", "RNI", "LSPR"
        );
        for p in &lpar {
            let x = p.m.formulas();
            let _ = writeln!(
                out,
                "{:>9.3} {:>7} {:>9} {:>8} {:>7} {:>7} {:>8}",
                p.seconds,
                opt(x.cpi, |v| format!("{v:.2}")),
                opt(x.prbstate, |v| format!("{v:.1}%")),
                opt(x.lparcpu, |v| format!("{v:.1}%")),
                opt(x.l1mp, |v| format!("{v:.2}")),
                opt(x.rni, |v| format!("{v:.2}")),
                x.lspr.unwrap_or("-")
            );
        }
    }
    out
}

/// A CPU's name in the tables: its number, or LPAR for all CPUs.
pub fn cpu_name(cpu: u16) -> String {
    if cpu == metrics::LPAR {
        "LPAR".into()
    } else {
        format!("{cpu:02X}")
    }
}

/// IBM's formulas per CPU and for the LPAR: a row each, a column per metric.
fn formulas_table(out: &mut String, cpus: &[metrics::Metrics], all: Option<&metrics::Metrics>) {
    let Some(all) = all else { return };
    let lpar = all.formulas();
    let Some(g) = lpar.generation else {
        let _ = writeln!(
            out,
            "(L1MP {}; the cache, nest and TLB formulas are given for z10 to z15)",
            opt(lpar.l1mp, |v| format!("{v:.2}"))
        );
        return;
    };
    let _ = writeln!(
        out,
        "CPU MF FORMULAS ({}, IBM \"CPU MF Formulas\" 2019; LPAR: all CPUs' counters)",
        g.name()
    );
    let head: Vec<String> = lpar
        .columns()
        .iter()
        .map(|c| format!("{:>w$}", c.head, w = c.head.len().max(7)))
        .collect();
    let _ = writeln!(out, "{:>4} {} {:>8}", "CPU", head.join(" "), "LSPR");
    for m in cpus.iter().chain(std::iter::once(all)) {
        let f = m.formulas();
        let cells: Vec<String> = f
            .columns()
            .iter()
            .map(|c| {
                format!(
                    "{:>w$}",
                    opt(c.value, |v| format!("{v:.2}")),
                    w = c.head.len().max(7)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "{:>4} {} {:>8}",
            cpu_name(m.cpu),
            cells.join(" "),
            f.lspr.unwrap_or("-")
        );
    }
    if lpar.l1mp == Some(0.0) {
        let _ = writeln!(
            out,
            "(the L1 counters are zero: an emulator's caches are not modelled, so the sourcing \
             and nest metrics have no denominator)"
        );
    }
}

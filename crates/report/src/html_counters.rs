//! The page's counters section: per CPU and for the LPAR (all CPUs) the counter table (CPI,
//! PRBSTATE, problem-state CPI, LPARCPU, effective GHz, the crypto functions) and IBM's
//! formulas for the file's machine generation, and, from a .INT, their charts over the
//! run's time.

use super::charts::{self, Line, PALETTE};
use super::collect::Collected;
use super::metrics::{self, Metrics, CRYPTO, LPAR};
use super::picture::xml;
use super::text::cpu_name;
use std::fmt::Write as _;

/// A count with thousands separators.
pub fn fmt_n(n: u64) -> String {
    let s = n.to_string();
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            o.push(',');
        }
        o.push(c);
    }
    o
}

/// A value, or `-`.
pub fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// The counter table of one .CNT: a row per CPU and one for the LPAR.
fn counter_table(o: &mut String, rows: &[Metrics]) {
    o.push_str(
        "<div class='tablewrap'><table><thead><tr>\
         <th class='n'>CPU</th><th class='n'>CYCLES</th><th class='n'>INSTRUCTIONS</th>\
         <th class='n'>CPI</th><th class='n'>PRBSTATE</th><th class='n'>PRBCPI</th>\
         <th class='n'>LPARCPU</th><th class='n'>EFF GHZ</th>",
    );
    for (_, name) in CRYPTO {
        let _ = write!(o, "<th class='n'>{name}</th>");
    }
    o.push_str("</tr></thead><tbody>");
    for m in rows {
        let bar = |v: Option<f64>| {
            opt(v, |x| {
                format!(
                    "{x:.1}%<span class='bar' style='width:{:.0}px'></span>",
                    x.clamp(0.0, 100.0) * 0.5
                )
            })
        };
        let _ = write!(
            o,
            "<tr{}><td class='n'>{}</td><td class='n'>{}</td><td class='n'>{}</td><td class='n'>{}</td>\
             <td class='n'>{}</td><td class='n'>{}</td><td class='n'>{}</td><td class='n'>{:.2}</td>",
            if m.cpu == LPAR { " class='lpar'" } else { "" },
            cpu_name(m.cpu),
            fmt_n(m.cycles),
            fmt_n(m.instructions),
            opt(m.cpi(), |v| format!("{v:.2}")),
            bar(m.prbstate()),
            opt(m.problem_cpi(), |v| format!("{v:.2}")),
            bar(m.lparcpu()),
            m.eff_ghz()
        );
        for i in 0..CRYPTO.len() {
            let _ = write!(
                o,
                "<td class='n'>{}</td>",
                m.crypto.map(|c| fmt_n(c[i])).unwrap_or_else(|| "-".into())
            );
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div>");
}

/// IBM's formulas of one .CNT: a row per CPU and one for the LPAR, a column per metric.
fn formulas_table(o: &mut String, rows: &[Metrics]) {
    let Some(all) = rows.iter().find(|m| m.cpu == LPAR) else {
        return;
    };
    let lpar = all.formulas();
    let Some(g) = lpar.generation else {
        o.push_str(
            "<p class='note'>IBM's \"CPU MF Formulas\" give the cache, nest and TLB metrics for \
             z10 to z15; this machine is not among them.</p>",
        );
        return;
    };
    let _ = write!(
        o,
        "<p class='status'>IBM's \"CPU MF Formulas\" (2019) for the {}: the LPAR row takes all \
         CPUs' counters.</p><div class='tablewrap'><table class='formulas'><thead><tr>\
         <th class='n'>CPU</th>",
        xml(g.name())
    );
    for c in lpar.columns() {
        let _ = write!(o, "<th class='n'>{}</th>", xml(c.head));
    }
    o.push_str("<th>LSPR</th></tr></thead><tbody>");
    for m in rows {
        let f = m.formulas();
        let _ = write!(
            o,
            "<tr{}><td class='n'>{}</td>",
            if m.cpu == LPAR { " class='lpar'" } else { "" },
            cpu_name(m.cpu)
        );
        for c in f.columns() {
            let _ = write!(
                o,
                "<td class='n'>{}</td>",
                opt(c.value, |v| format!("{v:.2}"))
            );
        }
        let _ = write!(o, "<td>{}</td></tr>", f.lspr.unwrap_or("-"));
    }
    o.push_str("</tbody></table></div>");
    if lpar.l1mp == Some(0.0) {
        o.push_str(
            "<p class='note'>The L1 counters are zero (an emulator's caches are not modelled): \
             the sourcing and nest metrics have no denominator.</p>",
        );
    }
}

/// The counters section.
pub fn counters(o: &mut String, c: &Collected) {
    o.push_str(
        "<section id='counters'><h2>Counters</h2>\
         <p class='note'>The counter metrics per CPU and for the LPAR (all CPUs: LPARCPU is a \
         percentage of one CP), and IBM's \"CPU MF Formulas\" for the machine generation the \
         counter versions name.</p>",
    );
    if c.counters.is_empty() {
        o.push_str("<p class='note'>No .CNT file.</p>");
    }
    for (p, f) in &c.counters {
        let mut rows = metrics::of_cnt(f);
        rows.extend(metrics::lpar(&rows));
        let _ = write!(
            o,
            "<p class='status'>{}{} &middot; CFVN {} CSVN {}</p>",
            xml(&p.display().to_string()),
            if f.title.is_empty() {
                String::new()
            } else {
                format!(" &middot; {}", xml(&f.title))
            },
            f.cfvn,
            f.csvn
        );
        counter_table(o, &rows);
        formulas_table(o, &rows);
    }
    o.push_str("<h2 style='margin-top:16px'>Over time</h2>");
    if c.intervals.is_empty() {
        o.push_str(
            "<p class='note'>No .INT file: begin the run with <code>smfintval=N</code> to record \
             the counters every N seconds and see them here over the run's time.</p>",
        );
    }
    for (p, f) in &c.intervals {
        over_time(o, c, p, f);
    }
    o.push_str("</section>\n");
}

/// The charts of one .INT: per CPU and for the LPAR, CPI, PRBSTATE, LPARCPU, and L1MP and RNI
/// where the counters give them; the crypto functions of all CPUs.
fn over_time(o: &mut String, c: &Collected, p: &std::path::Path, f: &hcpumf_formats::int::IntFile) {
    let points = metrics::of_int(f, metrics::int_generation(f, c));
    let lpar = metrics::lpar_points(&points);
    let mut cpus: Vec<u16> = points.iter().map(|x| x.m.cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let _ = write!(
        o,
        "<p class='status'>{}: {} intervals of {} s</p><div class='charts'>",
        xml(&p.display().to_string()),
        lpar.len(),
        f.interval_secs
            .map(|s| s.to_string())
            .unwrap_or_else(|| "?".into())
    );
    type Of = dyn Fn(&Metrics) -> Option<f64>;
    let lines = |metric: &Of, with_lpar: bool| -> Vec<Line> {
        let mut v: Vec<Line> = cpus
            .iter()
            .enumerate()
            .map(|(i, cpu)| Line {
                label: format!("CPU {cpu:02X}"),
                colour: PALETTE[i % PALETTE.len()].into(),
                points: points
                    .iter()
                    .filter(|x| x.m.cpu == *cpu)
                    .map(|x| (x.seconds, metric(&x.m).unwrap_or(f64::NAN)))
                    .collect(),
            })
            .collect();
        if with_lpar && cpus.len() > 1 {
            v.push(Line {
                label: "LPAR".into(),
                colour: "#222".into(),
                points: lpar
                    .iter()
                    .map(|x| (x.seconds, metric(&x.m).unwrap_or(f64::NAN)))
                    .collect(),
            });
        }
        v
    };
    let l1mp = |m: &Metrics| m.formulas().l1mp;
    let rni = |m: &Metrics| m.formulas().rni;
    let mut charts: Vec<(&str, &str, f64, &Of, bool)> = vec![
        ("CPI (cycles per instruction)", "", 0.0, &Metrics::cpi, true),
        (
            "PRBSTATE (problem-state instructions)",
            "%",
            100.0,
            &Metrics::prbstate,
            true,
        ),
        (
            "LPARCPU (CPU busy; LPAR: all CPUs)",
            "%",
            100.0,
            &Metrics::lparcpu,
            true,
        ),
    ];
    let defined = |m: &Of| lpar.iter().any(|x| m(&x.m).is_some_and(|v| v > 0.0));
    if defined(&l1mp) {
        charts.push((
            "L1MP (L1 misses per 100 instructions)",
            "",
            0.0,
            &l1mp,
            true,
        ));
    }
    if defined(&rni) {
        charts.push(("RNI (relative nest intensity)", "", 0.0, &rni, true));
    }
    for (title, unit, floor, metric, with_lpar) in charts {
        let _ = write!(
            o,
            "<div>{}</div>",
            charts::lines(title, unit, &lines(metric, with_lpar), floor)
        );
    }
    if points
        .iter()
        .any(|x| x.m.crypto.is_some_and(|c| c.iter().any(|&n| n > 0)))
    {
        let lines: Vec<Line> = CRYPTO
            .iter()
            .enumerate()
            .map(|(i, (_, name))| Line {
                label: format!("{name} functions"),
                colour: PALETTE[i].into(),
                points: lpar
                    .iter()
                    .map(|x| (x.seconds, x.m.crypto.map(|c| c[i]).unwrap_or(0) as f64))
                    .collect(),
            })
            .collect();
        let _ = write!(
            o,
            "<div>{}</div>",
            charts::lines("Crypto functions per interval (all CPUs)", "", &lines, 1.0)
        );
    }
    o.push_str("</div>");
}

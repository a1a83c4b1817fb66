//! `--json`: the report as one machine-readable summary (fields in the README): the totals,
//! every hot-spot row with its split by CPU and state, the counter metrics per CPU, the
//! intervals and the damaged input.

use super::collect::Collected;
use super::input::RunFiles;
use super::metrics::{self, Metrics, CRYPTO};
use super::rows::Row;
use std::fmt::Write as _;

/// A JSON string.
pub fn q(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            // `</` would end an HTML page's script element.
            '/' => o.push_str("\\/"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON number, or null.
pub fn num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => {
            let s = format!("{x:.6}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s.is_empty() || s == "-" {
                "0".into()
            } else {
                s.to_string()
            }
        }
        _ => "null".into(),
    }
}

fn list<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> String) -> String {
    let v: Vec<String> = items.into_iter().map(f).collect();
    format!("[{}]", v.join(","))
}

fn paths(v: &[std::path::PathBuf]) -> String {
    list(v, |p| q(&p.display().to_string()))
}

/// IBM's formulas of one CPU, the LPAR or an interval: every metric of its generation,
/// null where it has no value.
fn formulas_object(m: &Metrics) -> String {
    let f = m.formulas();
    let mut fields: Vec<String> = vec![
        format!("\"cpi\":{}", num(f.cpi)),
        format!("\"prbstate\":{}", num(f.prbstate)),
    ];
    fields.extend(
        f.columns()
            .iter()
            .map(|c| format!("{}:{}", q(c.key), num(c.value))),
    );
    fields.push(format!("\"eff_ghz\":{}", num(f.eff_ghz)));
    fields.push(format!("\"lparcpu\":{}", num(f.lparcpu)));
    fields.push(format!(
        "\"lspr\":{}",
        f.lspr.map(q).unwrap_or_else(|| "null".into())
    ));
    format!("{{{}}}", fields.join(","))
}

/// The metrics object of one CPU, the LPAR or an interval.
fn metrics_fields(m: &Metrics) -> String {
    format!(
        "\"cpu\":{},\"speed\":{},\"cycles\":{},\"instructions\":{},\"cpi\":{},\
         \"problem_cycles\":{},\"problem_instructions\":{},\"prbstate\":{},\"problem_cpi\":{},\
         \"lparcpu\":{},\"eff_ghz\":{},\"crypto\":{},\"formulas\":{}",
        q(&super::text::cpu_name(m.cpu)),
        m.speed,
        m.cycles,
        m.instructions,
        num(m.cpi()),
        m.problem_cycles,
        m.problem_instructions,
        num(m.prbstate()),
        num(m.problem_cpi()),
        num(m.lparcpu()),
        num(Some(m.eff_ghz())),
        match m.crypto {
            None => "null".into(),
            Some(c) => format!(
                "{{{}}}",
                CRYPTO
                    .iter()
                    .zip(c)
                    .map(|((_, name), n)| format!("{}:{n}", q(name)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        },
        formulas_object(m)
    )
}

/// One hot-spot row.
pub fn row(r: &Row, total: u64) -> String {
    format!(
        "{{\"samples\":{},\"isamples\":{},\"unique\":{},\"cpu_pct\":{},\"cpi\":{},\"pasn\":{},\
         \"by\":{},\"jobname\":{},\"module\":{},\"csect\":{},\"start\":{},\"end\":{},\"hot\":{},\
         \"parts\":{}}}",
        r.count.samples,
        r.count.isamples,
        r.count.unique,
        num(Some(r.count.samples as f64 * 100.0 / total.max(1) as f64)),
        num(r.count.cpi()),
        q(&format!("{:04X}", r.asid)),
        match r.by {
            Some(b) => q(&b.word().to_ascii_lowercase()),
            None => q("common"),
        },
        q(&r.job),
        q(&r.module),
        q(&r.csect),
        q(&format!("{:08X}", r.start)),
        q(&format!("{:08X}", r.end)),
        list(&r.hot, |(ia, n)| format!(
            "{{\"address\":{},\"samples\":{n}}}",
            q(&format!("{ia:08X}"))
        )),
        list(&r.parts, |p| format!(
            "{{\"cpu\":{},\"state\":{},\"samples\":{},\"isamples\":{},\"unique\":{}}}",
            q(&format!("{:02X}", p.cpu)),
            q(if p.problem { "problem" } else { "supervisor" }),
            p.count.samples,
            p.count.isamples,
            p.count.unique
        )),
    )
}

/// The summary.
pub fn summary(files: &RunFiles, c: &Collected, rows: &[Row]) -> String {
    let t = c.addrs.total;
    let mut o = String::new();
    let _ = write!(
        o,
        "{{\n\"format\":\"hcpumf-report summary\",\"version\":2,\n\"files\":{{\"smp\":{},\"cnt\":{},\"map\":{},\"int\":{}}},\n",
        paths(&files.smp.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>()),
        paths(&files.cnt),
        paths(&files.map),
        paths(&files.int)
    );
    let _ = writeln!(
        o,
        "\"totals\":{{\"samples\":{},\"busy\":{},\"wait\":{},\"isamples\":{},\"unique\":{},\
         \"cpi\":{},\"cpi_unique\":{},\"counters_cpi\":{},\"invalid\":{},\"overflow\":{},\
         \"blocks\":{},\"cpu_files\":{}}},",
        t.samples + c.addrs.wait,
        t.samples,
        c.addrs.wait,
        t.isamples,
        t.unique,
        num(t.cpi()),
        num(t.cpi_unique()),
        num(super::text::counters_cpi(c)),
        c.addrs.invalid,
        c.overflow,
        c.blocks,
        c.smp_files
    );
    let _ = write!(o, "\"rows\":[");
    for (i, r) in rows.iter().enumerate() {
        let _ = write!(o, "{}\n{}", if i > 0 { "," } else { "" }, row(r, t.samples));
    }
    let _ = write!(o, "],\n\"counters\":[");
    for (i, (p, f)) in c.counters.iter().enumerate() {
        let cpus = metrics::of_cnt(f);
        let _ = write!(
            o,
            "{}\n{{\"file\":{},\"cfvn\":{},\"csvn\":{},\"generation\":{},\"lost_samples\":{},\
             \"cpus\":{},\"lpar\":{}}}",
            if i > 0 { "," } else { "" },
            q(&p.display().to_string()),
            f.cfvn,
            f.csvn,
            metrics::generation_of(f)
                .map(|g| q(g.name()))
                .unwrap_or_else(|| "null".into()),
            f.lost_samples,
            list(&cpus, |m| format!("{{{}}}", metrics_fields(m))),
            metrics::lpar(&cpus)
                .map(|m| format!("{{{}}}", metrics_fields(&m)))
                .unwrap_or_else(|| "null".into())
        );
    }
    let _ = write!(o, "],\n\"intervals\":[");
    for (i, (p, f)) in c.intervals.iter().enumerate() {
        let points = metrics::of_int(f, metrics::int_generation(f, c));
        let point = |p: &metrics::Point| {
            format!(
                "{{\"end_tod\":{},\"seconds\":{},\"length\":{},{}}}",
                q(&format!("{:016X}", p.end_tod)),
                num(Some(p.seconds)),
                num(p.m.micros.map(|u| u / 1e6)),
                metrics_fields(&p.m)
            )
        };
        let _ = write!(
            o,
            "{}\n{{\"file\":{},\"smfintval\":{},\"points\":{},\"lpar\":{}}}",
            if i > 0 { "," } else { "" },
            q(&p.display().to_string()),
            f.interval_secs
                .map(|s| s.to_string())
                .unwrap_or_else(|| "null".into()),
            list(&points, point),
            list(&metrics::lpar_points(&points), point)
        );
    }
    let _ = writeln!(o, "],\n\"damaged\":{}\n}}", list(&c.problems, |p| q(p)));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers() {
        assert_eq!(
            q("a\"b\\c</script>\n\u{1}"),
            r#""a\"b\\c<\/script>\n\u0001""#
        );
        assert_eq!(num(Some(2.5)), "2.5");
        assert_eq!(num(Some(3.0)), "3");
        assert_eq!(num(Some(0.0)), "0");
        assert_eq!(num(Some(-0.25)), "-0.25");
        assert_eq!(num(Some(f64::NAN)), "null");
        assert_eq!(num(None), "null");
    }
}

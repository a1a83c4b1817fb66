//! The report's SVG picture: bars of the hottest rows and a histogram of the samples over
//! the sampled address range. Drawn from the aggregated counts, so its memory does not grow
//! with the number of samples.

use super::rows::Row;
use super::samples::Addresses;
use std::fmt::Write as _;

/// An SVG: bars of the top rows, and a histogram of samples over the sampled addresses.
pub fn svg(rows: &[Row], total: u64, addrs: &Addresses, top: usize) -> String {
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
        let frac = r.count.samples as f64 / total.max(1) as f64;
        let name = if r.module.starts_with('<') {
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
    // Address histogram, weighted by each address's samples.
    let lo = addrs.entries.iter().map(|((_, ia), _)| *ia).min();
    let hi = addrs.entries.iter().map(|((_, ia), _)| *ia).max();
    if let (Some(lo), Some(hi)) = (lo, hi) {
        let bins = 200usize;
        let span = (hi - lo).max(1) as f64;
        let mut h = vec![0u64; bins];
        for ((_, a), c) in &addrs.entries {
            let b = (((a - lo) as f64 / span) * (bins - 1) as f64) as usize;
            h[b.min(bins - 1)] += c.samples;
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

/// Text for SVG/HTML.
pub fn xml(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

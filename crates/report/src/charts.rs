//! The page's small inline SVG charts: the timeline's stacked histogram per CPU and the line
//! charts of counter metrics over the run's intervals. Drawn from aggregated data only.

use super::picture::xml;
use super::timeline::{Kind, Series, Timeline, BUCKETS};
use std::fmt::Write as _;

/// Colours of the named groups and series (Tableau 10), then "other".
pub const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
];
pub const OTHER_COLOUR: &str = "#bab0ac";

/// A round step for an axis of `max` with about `n` ticks.
fn step(max: f64, n: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / n;
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    p * if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// A number for an axis label.
fn label(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

const W: f64 = 1000.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 12.0;

/// X-axis ticks of seconds `0..secs` along `y`.
fn time_axis(s: &mut String, secs: f64, y: f64, width: f64) {
    let st = step(secs, 8.0);
    let mut t = 0.0;
    while t <= secs + st * 1e-9 {
        let x = LEFT + t / secs.max(1e-9) * width;
        let _ = write!(
            s,
            "<line x1='{x:.1}' y1='{y}' x2='{x:.1}' y2='{:.0}' class='tick'/>\
             <text x='{x:.1}' y='{:.0}' class='axis' text-anchor='middle'>{} s</text>",
            y + 4.0,
            y + 16.0,
            label(t)
        );
        t += st;
    }
}

/// One CPU's timeline: its samples per time bucket, stacked by the groups `shown` (in their
/// palette colours) and "other" on top; `max` is the y scale shared by all CPUs.
pub fn timeline(t: &Timeline, s: &Series, kind: Kind, shown: &[u16], max: u64) -> String {
    let h = 150.0;
    let (top, bottom) = (8.0, 122.0);
    let width = W - LEFT - RIGHT;
    let bw = width / BUCKETS as f64;
    let secs = t.seconds();
    let stacks = t.stacks(s, kind, shown);
    let names = t.names(kind);
    let scale = (bottom - top) / max.max(1) as f64;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg class='timeline' viewBox='0 0 {W} {h}' role='img' aria-label='CPU {:02X} samples over time'>",
        s.cpu
    );
    // Grid and y axis.
    let yst = step(max as f64, 3.0);
    let mut v = 0.0;
    while v <= max as f64 + 1e-9 {
        let y = bottom - v * scale;
        let _ = write!(
            out,
            "<line x1='{LEFT}' y1='{y:.1}' x2='{:.0}' y2='{y:.1}' class='grid'/>\
             <text x='{:.0}' y='{:.1}' class='axis' text-anchor='end'>{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            label(v)
        );
        v += yst;
    }
    let mut base = [0u64; BUCKETS];
    for (i, st) in stacks.iter().enumerate() {
        let (name, colour) = if i < shown.len() {
            (
                names[usize::from(shown[i])].as_str(),
                PALETTE[i % PALETTE.len()],
            )
        } else {
            ("other", OTHER_COLOUR)
        };
        let total: u64 = st.iter().sum();
        if total == 0 {
            continue;
        }
        let mut d = String::new();
        for (b, &n) in st.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let y0 = bottom - base[b] as f64 * scale;
            let hh = n as f64 * scale;
            let _ = write!(
                d,
                "M{:.2} {:.2}h{:.2}v{:.2}h{:.2}z",
                LEFT + b as f64 * bw,
                y0 - hh,
                bw,
                hh,
                -bw
            );
            base[b] += n;
        }
        let _ = write!(
            out,
            "<path d='{d}' fill='{colour}'><title>{}: {total} samples on CPU {:02X}</title></path>",
            xml(name),
            s.cpu
        );
    }
    let _ = write!(
        out,
        "<line x1='{LEFT}' y1='{bottom}' x2='{:.0}' y2='{bottom}' class='axisline'/>",
        W - RIGHT
    );
    time_axis(&mut out, secs, bottom, width);
    out.push_str("</svg>");
    out
}

/// One line of a line chart.
pub struct Line {
    pub label: String,
    pub colour: String,
    /// (seconds, value) points.
    pub points: Vec<(f64, f64)>,
}

/// A small line chart over the run's seconds; `unit` follows the y labels ("%" or "").
pub fn lines(title: &str, unit: &str, lines: &[Line], y_floor_max: f64) -> String {
    let (w, h) = (480.0, 200.0);
    let (left, right, top, bottom) = (48.0, 12.0, 28.0, 170.0);
    let width = w - left - right;
    let xmax = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let ymax = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(y_floor_max, f64::max);
    // A share a little over its whole (interval lengths jitter) keeps the whole's axis.
    let ymax = if ymax <= y_floor_max * 1.05 {
        y_floor_max
    } else {
        ymax
    };
    let yst = step(ymax, 4.0);
    let ytop = (ymax / yst).ceil().max(1.0) * yst;
    let x = |s: f64| left + s / xmax * width;
    let y = |v: f64| bottom - v / ytop * (bottom - top);
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg class='chart' viewBox='0 0 {w} {h}' role='img' aria-label='{t}'><text x='{left}' y='16' class='ctitle'>{t}</text>",
        t = xml(title)
    );
    let mut v = 0.0;
    while v <= ytop + 1e-9 {
        let _ = write!(
            o,
            "<line x1='{left}' y1='{yy:.1}' x2='{:.0}' y2='{yy:.1}' class='grid'/>\
             <text x='{:.0}' y='{:.1}' class='axis' text-anchor='end'>{}{unit}</text>",
            w - right,
            left - 5.0,
            y(v) + 4.0,
            label(v),
            yy = y(v)
        );
        v += yst;
    }
    let xst = step(xmax, 5.0);
    let mut t = 0.0;
    while t <= xmax + 1e-9 {
        let _ = write!(
            o,
            "<text x='{:.1}' y='{:.0}' class='axis' text-anchor='middle'>{} s</text>",
            x(t),
            bottom + 16.0,
            label(t)
        );
        t += xst;
    }
    for l in lines {
        let pts: Vec<String> = l
            .points
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|&(s, v)| format!("{:.1},{:.1}", x(s), y(v)))
            .collect();
        let _ = write!(
            o,
            "<polyline points='{}' fill='none' stroke='{}' stroke-width='2'><title>{}</title></polyline>",
            pts.join(" "),
            l.colour,
            xml(&l.label)
        );
        if l.points.len() <= 60 {
            for &(s, v) in l.points.iter().filter(|p| p.1.is_finite()) {
                let _ = write!(
                    o,
                    "<circle cx='{:.1}' cy='{:.1}' r='2.5' fill='{}'><title>{}: {} at {:.1} s</title></circle>",
                    x(s),
                    y(v),
                    l.colour,
                    xml(&l.label),
                    label(v),
                    s
                );
            }
        }
    }
    let _ = write!(
        o,
        "<line x1='{left}' y1='{bottom}' x2='{:.0}' y2='{bottom}' class='axisline'/></svg>",
        w - right
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_steps_are_round() {
        assert_eq!(step(10.0, 5.0), 2.0);
        assert_eq!(step(7.3, 4.0), 2.0);
        assert_eq!(step(1234.0, 3.0), 500.0);
        assert_eq!(step(0.0, 3.0), 1.0);
        assert_eq!(label(2500.0), "2500");
        assert_eq!(label(25000.0), "25k");
        assert_eq!(label(0.25), "0.25");
        let svg = lines(
            "CPI",
            "",
            &[Line {
                label: "CPU 00".into(),
                colour: PALETTE[0].into(),
                points: vec![(1.0, 2.0), (2.0, f64::NAN), (3.0, 4.0)],
            }],
            0.0,
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("polyline") && !svg.contains("NaN"), "{svg}");
    }
}

//! `--html`: the report as one self-contained page (no network needed: style, script, data
//! and pictures inline): the summary, the hot-spot table (sortable, filterable by ASID, job,
//! module, state and CPU), the flame graph (inferno's icicle SVG in an `<iframe srcdoc>`, so
//! that its own script zooms and searches in a document of its own), the timeline per CPU by
//! module or job, and the counter metrics per CPU and over the run's intervals.

use super::charts::{self, OTHER_COLOUR, PALETTE};
use super::collect::Collected;
use super::html_counters::{fmt_n, opt};
use super::input::RunFiles;
use super::json::{num, q};
use super::picture::xml;
use super::rows::Row;
use super::timeline::{Kind, Timeline};
use std::fmt::Write as _;

/// Rows the page's table carries (the text and JSON reports have them all).
pub const MAX_ROWS: usize = 5000;
/// Groups the timeline names (the rest are "other").
const TOP_GROUPS: usize = 8;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// Text for an HTML attribute value in double quotes.
fn attr(t: &str) -> String {
    xml(t).replace('"', "&quot;")
}

/// The table's data for the page's script.
fn table_data(c: &Collected, rows: &[Row]) -> String {
    let shown = &rows[..rows.len().min(MAX_ROWS)];
    let cut = &rows[shown.len()..];
    let mut o = String::new();
    let _ = write!(
        o,
        "{{\"total\":{},\"filtered\":{},\"cut\":{},\"cutSamples\":{},\"rows\":[",
        c.addrs.total.samples,
        shown.iter().map(|r| r.count.samples).sum::<u64>(),
        cut.len(),
        cut.iter().map(|r| r.count.samples).sum::<u64>()
    );
    for (i, r) in shown.iter().enumerate() {
        let hot: Vec<String> = r
            .hot
            .iter()
            .map(|(ia, n)| {
                format!(
                    "{ia:08X} {:.1}%",
                    *n as f64 * 100.0 / r.count.samples.max(1) as f64
                )
            })
            .collect();
        let parts: Vec<String> = r
            .parts
            .iter()
            .map(|p| {
                format!(
                    "[\"{:02X}\",{},{},{}]",
                    p.cpu,
                    u8::from(p.problem),
                    p.count.samples,
                    p.count.isamples
                )
            })
            .collect();
        let _ = write!(
            o,
            "{}\n[{},{},{},{},\"{:08X}\",\"{:08X}\",{},[{}],{}]",
            if i > 0 { "," } else { "" },
            q(&format!("{:04X}", r.asid)),
            q(&r.job),
            q(&r.module),
            q(&r.csect),
            r.start,
            r.end,
            q(&hot.join(", ")),
            parts.join(","),
            q(r.by.map_or("-", |b| b.word()))
        );
    }
    o.push_str("]}");
    o
}

fn tiles(o: &mut String, c: &Collected) {
    let t = c.addrs.total;
    let lost: u64 = c.overflow + c.counters.iter().map(|(_, f)| f.lost_samples).sum::<u64>();
    let secs = c
        .timeline
        .as_ref()
        .filter(|t| t.has_time())
        .map(Timeline::seconds);
    let cpus: std::collections::BTreeSet<u16> = c
        .counters
        .iter()
        .flat_map(|(_, f)| f.cpus.keys().copied())
        .collect();
    let items = [
        ("samples", fmt_n(t.samples)),
        (
            "busy",
            opt(
                (t.samples + c.addrs.wait > 0)
                    .then(|| t.samples as f64 * 100.0 / (t.samples + c.addrs.wait) as f64),
                |v| format!("{v:.1}%"),
            ),
        ),
        ("wait samples", fmt_n(c.addrs.wait)),
        ("CPI (samples)", opt(t.cpi(), |v| format!("{v:.2}"))),
        (
            "CPI (counters)",
            opt(super::text::counters_cpi(c), |v| format!("{v:.2}")),
        ),
        ("run time", opt(secs, |v| format!("{v:.1} s"))),
        ("CPUs", c.smp_files.max(cpus.len()).to_string()),
        ("lost", fmt_n(lost)),
        ("invalid", fmt_n(c.addrs.invalid)),
    ];
    o.push_str("<section class='tiles'>");
    for (k, v) in items {
        let _ = write!(
            o,
            "<div class='tile'><div class='v'>{}</div><div class='k'>{}</div></div>",
            xml(&v),
            xml(k)
        );
    }
    o.push_str("</section>\n");
}

fn hot_table(o: &mut String, c: &Collected, rows: &[Row]) {
    o.push_str(
        "<section id='hotspots'><h2>Hot spots</h2>\
         <p class='note'>IBM's columns (HIS report, Redbook SG24-7857 4.4): SAMPLES are busy samples \
         (those in the wait state are counted apart), ISAMPLES those with the unique-instruction \
         bit (U), CPI = SAMPLES / ISAMPLES, CPU % of the samples selected; BY says whether PASN \
         is the entries' primary ASN or the home ASID of their program parameter. Click a \
         header to sort.</p>\
         <div class='filters'>\
         <label>ASID<select id='f-asid'></select></label>\
         <label>Job<select id='f-job'></select></label>\
         <label>Module<select id='f-module'></select></label>\
         <label>State<select id='f-state'><option value=''>all</option>\
         <option value='1'>problem</option><option value='0'>supervisor</option></select></label>\
         <label>CPU<select id='f-cpu'></select></label>\
         <label>Rows<select id='f-limit'><option>25</option><option selected>100</option>\
         <option>500</option><option value='100000'>all</option></select></label>\
         <button id='f-reset' type='button'>Reset</button></div>\
         <p class='status' id='hot-status'></p><div class='tablewrap'><table id='hot'><thead><tr>",
    );
    for (key, name, numeric) in [
        ("samples", "SAMPLES", true),
        ("isamples", "ISAMPLES", true),
        ("pct", "CPU %", true),
        ("cpi", "CPI", true),
        ("pasn", "PASN", false),
        ("by", "BY", false),
        ("job", "JOBNAME", false),
        ("module", "MODULE", false),
        ("csect", "CSECT", false),
        ("range", "ADDRESS RANGE", false),
    ] {
        let _ = write!(
            o,
            "<th class='sortable{}' data-key='{key}'>{name}</th>",
            if numeric { " n" } else { "" }
        );
    }
    o.push_str("<th>HOT ADDRESSES</th></tr></thead><tbody>");
    // The first rows without the script too.
    let total = c.addrs.total.samples.max(1);
    for r in rows.iter().take(25) {
        let _ = write!(
            o,
            "<tr><td class='n'>{}</td><td class='n'>{}</td><td class='n'>{:.3}</td><td class='n'>{}</td>\
             <td class='mono'>{:04X}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class='mono'>{:08X}-{:08X}</td><td></td></tr>",
            fmt_n(r.count.samples),
            fmt_n(r.count.isamples),
            r.count.samples as f64 * 100.0 / total as f64,
            opt(r.count.cpi(), |v| format!("{v:.2}")),
            r.asid,
            r.by.map_or("-", |b| b.word()),
            xml(&r.job),
            xml(&r.module),
            xml(&r.csect),
            r.start,
            r.end
        );
    }
    o.push_str("</tbody></table></div></section>\n");
}

fn flame(o: &mut String, stacks: &[(String, u64)]) {
    o.push_str(
        "<section id='flame'><h2>Flame graph</h2>\
         <p class='note'>Every sample as a stack: CPU state, address space (job), module, CSECT, \
         256-byte address bucket; a frame's width is its share of the samples. Click a frame to \
         zoom in, the top frame or \"Reset Zoom\" to zoom out. Drawn by inferno, the Rust port of \
         FlameGraph; <code>--folded</code> writes the same stacks.</p>",
    );
    match super::flame::svg(stacks) {
        None => o.push_str("<p class='note'>No samples.</p>"),
        Some(svg) => {
            let start = svg.find("<svg").unwrap_or(0);
            let svg = &svg[start..];
            // The SVG's own height: the frame's.
            let height = svg
                .split("height=\"")
                .nth(1)
                .and_then(|h| h.split('"').next())
                .and_then(|h| h.parse::<u32>().ok())
                .unwrap_or(400);
            // inferno's script keeps the zoom in the page's URL, which a srcdoc document may
            // not change: it zooms without.
            let doc = format!(
                "<!DOCTYPE html><html><head><meta charset='utf-8'><style>html,body{{margin:0;background:#fff}}svg{{display:block;width:100%}}\
                 svg text{{font-family:\"DejaVu Sans\",Verdana,sans-serif}}</style>\
                 <script>window.flameErrors=[];addEventListener('error',function(e){{flameErrors.push(e.message)}});\
                 history.replaceState=function(){{}};</script>\
                 </head><body>{svg}</body></html>"
            );
            let _ = write!(
                o,
                "<iframe id='flame-frame' class='flame' title='flame graph' style='height:{}px' srcdoc=\"{}\"></iframe>",
                height + 4,
                attr(&doc)
            );
        }
    }
    o.push_str("</section>\n");
}

fn timeline(o: &mut String, t: Option<&Timeline>) {
    o.push_str(
        "<section id='timeline'><h2>Timeline</h2>\
         <p class='note'>Samples over the run's time per CPU, from the sample blocks' timestamps \
         (each block's samples spread over the time since the block before it), by module or \
         by job; hover a colour for its name.</p>",
    );
    let Some(t) = t.filter(|t| t.has_time() && !t.series.is_empty()) else {
        o.push_str(
            "<p class='note'>The sample blocks' timestamps span no time (no samples, or files \
             without timestamps).</p></section>\n",
        );
        return;
    };
    o.push_str(
        "<div class='toggle'><button type='button' class='on' data-kind='module'>by module</button>\
         <button type='button' data-kind='job'>by job</button></div>",
    );
    let total: u64 = t
        .series
        .iter()
        .map(|s| s.counts[0].iter().flatten().sum::<u64>())
        .sum();
    let mut series: Vec<&super::timeline::Series> = t.series.iter().collect();
    series.sort_by_key(|s| s.cpu);
    for (kind, class) in [(Kind::Module, "tl-module"), (Kind::Job, "tl-job")] {
        let top = t.top(kind, TOP_GROUPS);
        let shown: Vec<u16> = top.iter().map(|x| x.0).collect();
        let _ = write!(
            o,
            "<div class='tl {class}'{}><div class='legend'>",
            if kind == Kind::Job { " hidden" } else { "" }
        );
        let named: u64 = top.iter().map(|x| x.1).sum();
        for (i, (g, n)) in top.iter().enumerate() {
            let _ = write!(
                o,
                "<span><i style='background:{}'></i>{} {:.1}%</span>",
                PALETTE[i % PALETTE.len()],
                xml(&t.names(kind)[usize::from(*g)]),
                *n as f64 * 100.0 / total.max(1) as f64
            );
        }
        if named < total {
            let _ = write!(
                o,
                "<span><i style='background:{OTHER_COLOUR}'></i>other {:.1}%</span>",
                (total - named) as f64 * 100.0 / total.max(1) as f64
            );
        }
        o.push_str("</div>");
        let max = series
            .iter()
            .flat_map(|s| {
                t.stacks(s, kind, &shown).iter().fold(
                    [0u64; super::timeline::BUCKETS],
                    |mut acc, st| {
                        for (a, v) in acc.iter_mut().zip(st.iter()) {
                            *a += v;
                        }
                        acc
                    },
                )
            })
            .max()
            .unwrap_or(1);
        for s in &series {
            let _ = write!(
                o,
                "<div class='cpu'>CPU {:02X} <span class='note'>samples per {:.0} ms</span></div>{}",
                s.cpu,
                t.seconds() * 1000.0 / super::timeline::BUCKETS as f64,
                charts::timeline(t, s, kind, &shown, max)
            );
        }
        o.push_str("</div>");
    }
    o.push_str("</section>\n");
}

/// The page.
pub fn page(files: &RunFiles, c: &Collected, rows: &[Row], stacks: &[(String, u64)]) -> String {
    let mut o = String::with_capacity(1 << 20);
    let title = c
        .counters
        .iter()
        .map(|(_, f)| f.title.as_str())
        .find(|t| !t.is_empty())
        .unwrap_or("hardware event data");
    let run = files
        .smp
        .iter()
        .map(|(_, p)| p)
        .chain(&files.cnt)
        .chain(&files.map)
        .filter_map(|p| p.file_name())
        .map(|n| {
            n.to_string_lossy()
                .split('.')
                .take(3)
                .collect::<Vec<_>>()
                .join(".")
        })
        .next()
        .unwrap_or_default();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\
         <meta name='viewport' content='width=device-width, initial-scale=1'>\
         <title>hcpumf-report: {t}</title><style>{CSS}</style></head>\n<body>\
         <header><h1>hcpumf-report <span>{t}</span></h1><p class='sub'>{}</p></header>\
         <nav><a href='#hotspots'>Hot spots</a><a href='#flame'>Flame graph</a>\
         <a href='#timeline'>Timeline</a><a href='#counters'>Counters</a>{}</nav><main>\
         <div id='errors' class='errors' hidden></div>\n",
        {
            let mut sub = format!(
                "run <code>{}</code>: {} CPU sample file(s), {} .CNT, {} .MAP, {} .INT",
                xml(&run),
                files.smp.len(),
                files.cnt.len(),
                files.map.len(),
                files.int.len()
            );
            if let Some(cmd) = c
                .counters
                .iter()
                .map(|(_, f)| &f.command)
                .find(|x| !x.is_empty())
            {
                let _ = write!(sub, " &middot; <code>{}</code>", xml(cmd));
            }
            sub
        },
        if c.problems.is_empty() {
            ""
        } else {
            "<a href='#damaged'>Damaged input</a>"
        },
        t = xml(title),
    );
    tiles(&mut o, c);
    hot_table(&mut o, c, rows);
    flame(&mut o, stacks);
    timeline(&mut o, c.timeline.as_ref());
    super::html_counters::counters(&mut o, c);
    if !c.problems.is_empty() {
        let _ = write!(
            o,
            "<section id='damaged'><h2>Damaged input ({})</h2><p class='note'>The report covers \
             what could be read; each damage with its file and byte offset.</p><ul class='damaged'>",
            c.problems.len()
        );
        for p in &c.problems {
            let _ = write!(o, "<li>{}</li>", xml(p));
        }
        o.push_str("</ul></section>\n");
    }
    let _ = write!(
        o,
        "<footer>hcpumf-report {} &middot; flame graph drawn with inferno &middot; totals: {} \
         samples, sample CPI {}</footer></main>\n\
         <script type='application/json' id='data'>{}</script>\n<script>{JS}</script>\n</body></html>\n",
        env!("CARGO_PKG_VERSION"),
        c.addrs.total.samples,
        num(c.addrs.total.cpi()),
        // Inside a script element no `<` may start a tag or comment; in JSON it is only in
        // strings, where \u003c means the same.
        table_data(c, rows).replace('<', "\\u003c")
    );
    o
}

//! The exports (`--folded`, `--json`, `--html`) of a small run built here: .SMP blocks from
//! `make_block`, a hand-written .MAP, a .CNT and a .INT, whose every number is known.

use super::*;
use hcpumf_formats::counter_sets::CounterSet;
use hcpumf_formats::{cnt, int, smp};
use std::path::PathBuf;

const RUN: &str = "SYSHIS20261123.120000.000";
/// TOD clock units per second.
const SEC: u64 = 4096 * 1_000_000;
const T0: u64 = 0xDA00_0000_0000_0000;

const MAP: &str = "I SYS HERCULES\n\
I MODE 64-BIT\n\
B BDY NUC     0000000000000000000000000000FFFF\n\
B BDY PRIVATE 000000000001000000000000007FFFFF\n\
B BDY CSA     000000000080000000000000009FFFFF\n\
AX0021DEMOJOB 00000000000089000000000000008900\n\
MX0021HOTLOOP 000000000002000000000000000201FF\n\
MPPLPAIEFBR14 0000000000A000000000000000A000FF\n";

fn sample(ia: u64, problem: bool, unique: u8, wait: bool) -> smp::Bsde {
    smp::Bsde {
        ia,
        primary_asn: 0x21,
        problem_state: problem,
        unique,
        wait,
        ..Default::default()
    }
}

/// CPU 0: a full block at T0 + 1 s (60 HOTLOOP problem-state samples, 20 with U = 1; 30
/// IEFBR14 supervisor-state, 10 with U = 1; 10 wait samples at 50000, outside any module;
/// 26 invalid), then at T0 + 2 s a partial block of 26 more HOTLOOP samples (U = 0) in
/// the module's second 256 bytes. CPU 1: nothing.
fn run_dir() -> (PathBuf, RunFiles) {
    let d = std::env::temp_dir().join(format!(
        "hcpumf-report-exports-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut first: Vec<smp::Bsde> = Vec::new();
    first.extend((0..60).map(|i| sample(0x20010 + (i % 2) * 4, true, u8::from(i % 3 == 0), false)));
    first.extend((0..30).map(|i| sample(0xA00010, false, u8::from(i % 3 == 0), false)));
    first.extend((0..10).map(|_| sample(0x50000, false, 0, true)));
    first.extend((0..26).map(|_| smp::Bsde {
        invalid: true,
        ..sample(0x20010, true, 0, false)
    }));
    assert_eq!(first.len(), 126);
    let second: Vec<smp::Bsde> = (0..26).map(|_| sample(0x20110, true, 0, false)).collect();
    let mut bytes = smp::make_block(&first, true, 0, T0 + SEC);
    bytes.extend(smp::make_block(&second, false, 0, T0 + 2 * SEC));
    std::fs::write(d.join(format!("{RUN}.SMP.0")), bytes).unwrap();
    std::fs::write(d.join(format!("{RUN}.SMP.1")), []).unwrap();
    std::fs::write(d.join(format!("{RUN}.MAP")), MAP).unwrap();
    let cnt = cnt::render(&cnt::CntRun {
        file_name: format!("{RUN}.CNT"),
        command: "hcpumf his begin smfintval=1 title=exports".into(),
        cfvn: 1,
        csvn: 1,
        cpu_speed: 1000,
        start: hcpumf_formats::time::Civil::default(),
        end: hcpumf_formats::time::Civil::default(),
        start_tod: T0,
        end_tod: T0 + 2 * SEC,
        lost_samples: 0,
        cpus: (0..2)
            .map(|c| {
                (
                    c,
                    vec![
                        (
                            CounterSet::Basic,
                            vec![1_000_000_000, 500_000_000, 0, 0, 0, 0],
                        ),
                        (
                            CounterSet::ProblemState,
                            vec![700_000_000, 350_000_000, 0, 0, 0, 0],
                        ),
                    ],
                )
            })
            .collect(),
    });
    std::fs::write(d.join(format!("{RUN}.CNT")), cnt).unwrap();
    let mut text = int::render_header(&int::IntHeader {
        file_name: format!("{RUN}.INT"),
        interval_secs: 1,
        start_tod: T0,
        cpu_speed: 1000,
        cfvn: 1,
        csvn: 1,
        counters: vec![0, 1, 32, 33],
    });
    for (k, cpu) in [(1u64, 0u16), (1, 1), (2, 0), (2, 1)] {
        text.push_str(&int::render_row(&int::IntRow {
            end_tod: T0 + k * SEC,
            seconds: k as f64,
            cpu,
            values: vec![500_000_000, 250_000_000 * k, 100_000_000, 100_000_000 * k],
        }));
    }
    std::fs::write(d.join(format!("{RUN}.INT")), text).unwrap();
    let files = find_files(std::slice::from_ref(&d)).unwrap();
    (d, files)
}

#[test]
fn folded_stacks_of_a_known_run() {
    let (d, files) = run_dir();
    let out = d.join("stacks.folded");
    let r = report(
        &files,
        &Options {
            folded: Some(out.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(r.damaged.is_empty(), "{:?}", r.damaged);
    assert!(r.text.contains("folded stacks: "), "{}", r.text);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "problem;DEMOJOB(0021);HOTLOOP;<NoCSECT>;00020000-000200FF 60\n\
         problem;DEMOJOB(0021);HOTLOOP;<NoCSECT>;00020100-000201FF 26\n\
         supervisor;<COMMON>;IEFBR14;<NoCSECT>;00A00000-00A000FF 30\n",
        "the 10 wait samples are in no stack"
    );
    // Filters apply: the problem state only.
    let r = report(
        &files,
        &Options {
            folded: Some(out.clone()),
            problem: Some(true),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(r.damaged.is_empty());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        2,
        "only the problem-state stacks"
    );
    let _ = std::fs::remove_dir_all(d);
}

/// A JSON value, for reading the summary back.
#[derive(Debug, Clone, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    fn get(&self, k: &str) -> &J {
        match self {
            J::Obj(v) => v
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, x)| x)
                .unwrap_or_else(|| panic!("no field {k} in {self:?}")),
            _ => panic!("{k}: not an object: {self:?}"),
        }
    }
    fn at(&self, i: usize) -> &J {
        match self {
            J::Arr(v) => &v[i],
            _ => panic!("not an array: {self:?}"),
        }
    }
    fn len(&self) -> usize {
        match self {
            J::Arr(v) => v.len(),
            _ => panic!("not an array: {self:?}"),
        }
    }
    fn num(&self) -> f64 {
        match self {
            J::Num(n) => *n,
            _ => panic!("not a number: {self:?}"),
        }
    }
    fn str(&self) -> &str {
        match self {
            J::Str(s) => s,
            _ => panic!("not a string: {self:?}"),
        }
    }
}

/// A strict reader of JSON (RFC 8259): the summary must be valid JSON.
fn parse_json(t: &str) -> J {
    fn ws(b: &[u8], i: &mut usize) {
        while *i < b.len() && b" \t\r\n".contains(&b[*i]) {
            *i += 1;
        }
    }
    fn value(b: &[u8], i: &mut usize) -> J {
        ws(b, i);
        match b[*i] {
            b'{' => {
                *i += 1;
                let mut v = Vec::new();
                ws(b, i);
                if b[*i] == b'}' {
                    *i += 1;
                    return J::Obj(v);
                }
                loop {
                    ws(b, i);
                    let J::Str(k) = value(b, i) else {
                        panic!("key at {i}")
                    };
                    ws(b, i);
                    assert_eq!(b[*i], b':', "':' at {i}");
                    *i += 1;
                    v.push((k, value(b, i)));
                    ws(b, i);
                    *i += 1;
                    match b[*i - 1] {
                        b',' => continue,
                        b'}' => return J::Obj(v),
                        c => panic!("'{}' at {i}", c as char),
                    }
                }
            }
            b'[' => {
                *i += 1;
                let mut v = Vec::new();
                ws(b, i);
                if b[*i] == b']' {
                    *i += 1;
                    return J::Arr(v);
                }
                loop {
                    v.push(value(b, i));
                    ws(b, i);
                    *i += 1;
                    match b[*i - 1] {
                        b',' => continue,
                        b']' => return J::Arr(v),
                        c => panic!("'{}' at {i}", c as char),
                    }
                }
            }
            b'"' => {
                *i += 1;
                let mut s = String::new();
                loop {
                    let c = b[*i];
                    *i += 1;
                    match c {
                        b'"' => return J::Str(s),
                        b'\\' => {
                            let e = b[*i];
                            *i += 1;
                            match e {
                                b'"' | b'\\' | b'/' => s.push(e as char),
                                b'n' => s.push('\n'),
                                b't' => s.push('\t'),
                                b'r' => s.push('\r'),
                                b'u' => {
                                    let h = std::str::from_utf8(&b[*i..*i + 4]).unwrap();
                                    s.push(
                                        char::from_u32(u32::from_str_radix(h, 16).unwrap())
                                            .unwrap(),
                                    );
                                    *i += 4;
                                }
                                _ => panic!("escape at {i}"),
                            }
                        }
                        c if c < 0x20 => panic!("control character at {i}"),
                        _ => {
                            // Whole UTF-8 sequences.
                            let start = *i - 1;
                            while *i < b.len() && b[*i] & 0xC0 == 0x80 {
                                *i += 1;
                            }
                            s.push_str(std::str::from_utf8(&b[start..*i]).unwrap());
                        }
                    }
                }
            }
            b'n' => {
                assert_eq!(&b[*i..*i + 4], b"null");
                *i += 4;
                J::Null
            }
            b't' | b'f' => {
                let t = b[*i] == b't';
                *i += if t { 4 } else { 5 };
                J::Bool(t)
            }
            _ => {
                let start = *i;
                while *i < b.len() && b"+-0123456789.eE".contains(&b[*i]) {
                    *i += 1;
                }
                J::Num(
                    std::str::from_utf8(&b[start..*i])
                        .unwrap()
                        .parse()
                        .unwrap_or_else(|_| panic!("number at {start}")),
                )
            }
        }
    }
    let b = t.as_bytes();
    let mut i = 0;
    let v = value(b, &mut i);
    ws(b, &mut i);
    assert_eq!(i, b.len(), "text after the value");
    v
}

#[test]
fn json_summary_of_a_known_run() {
    let (d, files) = run_dir();
    let out = d.join("summary.json");
    let r = report(
        &files,
        &Options {
            json: Some(out.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(r.damaged.is_empty(), "{:?}", r.damaged);
    let j = parse_json(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(j.get("format").str(), "hcpumf-report summary");
    assert_eq!(j.get("version").num(), 2.0);
    assert_eq!(j.get("files").get("smp").len(), 2);
    let t = j.get("totals");
    // 126 valid: 116 busy, 10 in the wait state; ISAMPLES 20 + 10 (U = 1 on every third).
    assert_eq!(t.get("samples").num(), 126.0);
    assert_eq!(t.get("busy").num(), 116.0);
    assert_eq!(t.get("wait").num(), 10.0);
    assert_eq!(t.get("isamples").num(), 30.0);
    assert_eq!(t.get("unique").num(), 30.0);
    assert!((t.get("cpi").num() - 116.0 / 30.0).abs() < 1e-5);
    assert!((t.get("cpi_unique").num() - 116.0 / 30.0).abs() < 1e-5);
    assert_eq!(t.get("counters_cpi").num(), 2.0);
    assert_eq!(t.get("invalid").num(), 26.0);
    assert_eq!(t.get("blocks").num(), 2.0);
    assert_eq!(t.get("cpu_files").num(), 2.0);
    let rows = j.get("rows");
    assert_eq!(rows.len(), 2, "no row for the wait samples");
    let hot = rows.at(0);
    assert_eq!(hot.get("module").str(), "HOTLOOP");
    assert_eq!(hot.get("jobname").str(), "DEMOJOB");
    assert_eq!(hot.get("pasn").str(), "0021");
    assert_eq!(hot.get("csect").str(), "<NoCSECT>");
    assert_eq!(
        (hot.get("start").str(), hot.get("end").str()),
        ("00020000", "000201FF")
    );
    assert_eq!(hot.get("samples").num(), 86.0);
    assert_eq!(hot.get("isamples").num(), 20.0);
    assert_eq!(hot.get("cpi").num(), 4.3);
    assert_eq!(hot.get("by").str(), "pasn");
    assert!((hot.get("cpu_pct").num() - 8600.0 / 116.0).abs() < 1e-5);
    assert_eq!(hot.get("hot").at(0).get("address").str(), "00020010");
    assert_eq!(hot.get("hot").at(0).get("samples").num(), 30.0);
    let part = hot.get("parts").at(0);
    assert_eq!(
        (
            part.get("cpu").str(),
            part.get("state").str(),
            part.get("samples").num()
        ),
        ("00", "problem", 86.0)
    );
    let lpa = rows.at(1);
    assert_eq!(
        (
            lpa.get("module").str(),
            lpa.get("jobname").str(),
            lpa.get("pasn").str()
        ),
        ("IEFBR14", "<COMMON>", "0000")
    );
    assert_eq!(lpa.get("cpi").num(), 3.0);
    assert_eq!(lpa.get("by").str(), "common");
    let c = j.get("counters").at(0);
    assert_eq!(c.get("cpus").len(), 2);
    let cpu = c.get("cpus").at(1);
    assert_eq!(cpu.get("cpu").str(), "01");
    assert_eq!(cpu.get("cpi").num(), 2.0);
    assert_eq!(cpu.get("prbstate").num(), 70.0);
    assert_eq!(cpu.get("problem_cpi").num(), 2.0);
    // 1e9 cycles in 2 s at 1000 cycles/us.
    assert_eq!(cpu.get("lparcpu").num(), 50.0);
    assert_eq!(cpu.get("crypto"), &J::Null);
    let iv = j.get("intervals").at(0);
    assert_eq!(iv.get("smfintval").num(), 1.0);
    let p = iv.get("points");
    assert_eq!(p.len(), 4);
    assert_eq!(p.at(2).get("cpu").str(), "00");
    assert_eq!(p.at(2).get("seconds").num(), 2.0);
    assert_eq!(p.at(2).get("length").num(), 1.0);
    assert_eq!(p.at(2).get("cpi").num(), 1.0);
    assert_eq!(p.at(2).get("prbstate").num(), 40.0);
    assert_eq!(p.at(2).get("lparcpu").num(), 50.0);
    assert_eq!(j.get("damaged").len(), 0);
    let _ = std::fs::remove_dir_all(d);
}

/// The page without a browser: every section there, the data for the script valid JSON,
/// nothing that would load from the network.
#[test]
fn html_page_of_a_known_run() {
    let (d, files) = run_dir();
    let out = d.join("report.html");
    let r = report(
        &files,
        &Options {
            html: Some(out.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(r.damaged.is_empty(), "{:?}", r.damaged);
    let page = std::fs::read_to_string(&out).unwrap();
    for want in [
        "<section id='hotspots'>",
        "<iframe id='flame-frame'",
        "<section id='timeline'>",
        "class='timeline'",
        "CPI (cycles per instruction)",
        "PRBSTATE (problem-state instructions)",
        "<th class='sortable n' data-key='cpi'>CPI</th>",
    ] {
        assert!(page.contains(want), "{want}");
    }
    for never in ["<script src", "<link", "@import", "url(http"] {
        assert!(!page.contains(never), "{never}");
    }
    let data = page
        .split("<script type='application/json' id='data'>")
        .nth(1)
        .and_then(|x| x.split("</script>").next())
        .unwrap();
    let j = parse_json(data);
    assert_eq!(j.get("total").num(), 116.0, "busy samples");
    assert_eq!(j.get("rows").len(), 2);
    assert_eq!(j.get("rows").at(0).at(2).str(), "HOTLOOP");
    // The timeline: CPU 0's samples at 0-1 s and 1-2 s, by module.
    let c = collect::collect(
        &files,
        &Options {
            html: Some(out.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    let t = c.timeline.expect("timeline");
    assert_eq!((t.t0, t.t1), (T0, T0 + 2 * SEC));
    let top = t.top(timeline::Kind::Module, 8);
    let names: Vec<&str> = top
        .iter()
        .map(|(g, _)| t.names(timeline::Kind::Module)[usize::from(*g)].as_str())
        .collect();
    assert_eq!(names, ["HOTLOOP", "IEFBR14"], "no wait samples");
    let st = t.stacks(&t.series[0], timeline::Kind::Module, &[top[0].0]);
    let first_half: u64 = st[0][..timeline::BUCKETS / 2].iter().sum();
    let second_half: u64 = st[0][timeline::BUCKETS / 2..].iter().sum();
    assert_eq!((first_half, second_half), (60, 26));
    let _ = std::fs::remove_dir_all(d);
}

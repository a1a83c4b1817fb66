//! The `.CNT` file: the printable HIS019I "EVENT COUNTERS INFORMATION" text z/OS HIS writes
//! (Redbook SG24-7857 Example 2-6; z/OS MVS System Messages HIS019I): version numbers,
//! counter identifiers per set, start/end times and TODs, and per CPU the hexadecimal deltas
//! with the CPU speed.

use crate::arch::model::CounterSet;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Counter values of one CPU: (set, values in counter order).
pub type CpuSets = Vec<(CounterSet, Vec<u64>)>;

/// Everything a .CNT file says.
#[derive(Clone, Debug)]
pub struct CntRun {
    pub file_name: String,
    pub command: String,
    pub title: String,
    pub machine_type: u16,
    pub cfvn: u16,
    pub csvn: u16,
    pub cpu_speed: u32,
    pub start: std::time::SystemTime,
    pub end: std::time::SystemTime,
    pub start_tod: u64,
    pub end_tod: u64,
    /// Samples the collector lost (not written: disk full); HIS's sample buffer overflow count.
    pub lost_samples: u64,
    pub cpus: Vec<(u16, CpuSets)>,
}

/// The counter identifiers HIS prints for the architected counters.
pub fn counter_name(n: u16) -> String {
    match n {
        0 => "CYCLE COUNT".into(),
        1 => "INSTRUCTION COUNT".into(),
        2 => "L1 I-CACHE DIRECTORY-WRITE COUNT".into(),
        3 => "L1 I-CACHE PENALTY CYCLE COUNT".into(),
        4 => "L1 D-CACHE DIRECTORY-WRITE COUNT".into(),
        5 => "L1 D-CACHE PENALTY CYCLE COUNT".into(),
        32 => "PROBLEM-STATE CYCLE COUNT".into(),
        33 => "PROBLEM-STATE INSTRUCTION COUNT".into(),
        34 => "PROBLEM-STATE L1 I-CACHE DIRECTORY-WRITE COUNT".into(),
        35 => "PROBLEM-STATE L1 I-CACHE PENALTY CYCLE COUNT".into(),
        36 => "PROBLEM-STATE L1 D-CACHE DIRECTORY-WRITE COUNT".into(),
        37 => "PROBLEM-STATE L1 D-CACHE PENALTY CYCLE COUNT".into(),
        64..=83 => {
            let f = ["PRNG", "SHA", "DEA", "AES", "ECC"][usize::from((n - 64) / 4)];
            let k = [
                "FUNCTION COUNT",
                "CYCLE COUNT",
                "BLOCKED FUNCTION COUNT",
                "BLOCKED CYCLE COUNT",
            ][usize::from((n - 64) % 4)];
            format!("{f} {k}")
        }
        _ => format!("EXTENDED COUNTER {n}"),
    }
}

fn stamp(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, mo, d, h, mi, s) = crate::his::time::civil(secs);
    format!("{y:04}/{mo:02}/{d:02} {h:02}:{mi:02}:{s:02}")
}

/// Render the HIS019I text.
pub fn render(r: &CntRun) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "HIS019I EVENT COUNTERS INFORMATION VERSION 1");
    let _ = writeln!(o, "FILE NAME: {}", r.file_name);
    let _ = writeln!(o, "COMMAND: {}", r.command);
    if !r.title.is_empty() {
        let _ = writeln!(o, "TITLE: {}", r.title);
    }
    let _ = writeln!(
        o,
        "LOSS OF SAMPLE DATA ALERT: {}",
        if r.lost_samples > 0 { "YES" } else { "NO" }
    );
    let _ = writeln!(o, "SAMPLE BUFFER OVERFLOW COUNT: {}", r.lost_samples);
    let _ = writeln!(o, "LOSS OF COUNTER DATA ALERT: NO");
    let _ = writeln!(o, "MODEL: {:04X}-HERCULES", r.machine_type);
    let _ = writeln!(
        o,
        "COUNTER VERSION NUMBER 1: {}    COUNTER VERSION NUMBER 2: {}",
        r.cfvn, r.csvn
    );
    let mut sets: Vec<(CounterSet, usize)> = Vec::new();
    if let Some((_, cs)) = r.cpus.first() {
        for (set, v) in cs {
            sets.push((*set, v.len()));
        }
    }
    for (set, n) in &sets {
        let _ = writeln!(o);
        let _ = writeln!(o, "COUNTER SET= {}", set.name());
        let _ = writeln!(o, "COUNTER IDENTIFIERS:");
        for i in 0..*n {
            let num = set.first_counter() + i as u16;
            let _ = writeln!(o, "  {num}: {}", counter_name(num));
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "START TIME: {}  START TOD: {:016X}",
        stamp(r.start),
        r.start_tod
    );
    let _ = writeln!(
        o,
        "END TIME:   {}  END TOD:   {:016X}",
        stamp(r.end),
        r.end_tod
    );
    for (cpu, cs) in &r.cpus {
        let _ = writeln!(
            o,
            "COUNTER VALUES (HEXADECIMAL) FOR CPU {cpu:02X} (CPU SPEED = {} CYCLES/MIC):",
            r.cpu_speed
        );
        for (set, values) in cs {
            let first = set.first_counter();
            for (row, chunk) in values.chunks(4).enumerate() {
                let lo = first + (row * 4) as u16;
                let hi = lo + 3;
                let vals: Vec<String> = chunk.iter().map(|v| format!("{v:016X}")).collect();
                let _ = writeln!(o, "{lo:4}-{hi:4} {}", vals.join(" "));
            }
        }
    }
    o
}

/// A .CNT file as read back: version numbers, speed and every CPU's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CntFile {
    pub cfvn: u16,
    pub csvn: u16,
    /// START TOD and END TOD of the run (TOD clock bits 0-63), if present.
    pub start_tod: Option<u64>,
    pub end_tod: Option<u64>,
    /// SAMPLE BUFFER OVERFLOW COUNT: samples the collector lost.
    pub lost_samples: u64,
    /// CPU -> (speed, counter number -> value).
    pub cpus: BTreeMap<u16, (u32, BTreeMap<u16, u64>)>,
    /// What could not be read, or is missing.
    pub problems: Vec<super::text::LineProblem>,
}

/// Read HIS019I text (the plugin's or z/OS's; whitespace-tolerant). Never fails: what it
/// cannot read is listed in `problems` with byte offsets and line numbers.
pub fn parse(text: &str) -> CntFile {
    parse_bytes(text.as_bytes())
}

/// Read a .CNT from its bytes. Besides unreadable lines it reports a file that is not HIS019I
/// text, one that ends inside the counter values, and CPUs whose values do not cover every
/// counter the COUNTER IDENTIFIERS list (a file cut short at a line end).
pub fn parse_bytes(bytes: &[u8]) -> CntFile {
    use super::text::LineProblem;
    let mut f = CntFile::default();
    if let Some(p) = super::text::only_reserved_blanks(bytes) {
        f.problems.push(p);
        return f;
    }
    // CPU being read: (number, line, offset of its header, counters seen).
    let mut cpu: Option<(u16, usize, u64, BTreeSet<u16>)> = None;
    let mut identifiers = BTreeSet::new();
    let mut in_identifiers = false;
    let mut header_seen = false;
    let mut last = (0usize, 0u64);
    let check_cpu = |cpu: &Option<(u16, usize, u64, BTreeSet<u16>)>,
                     ids: &BTreeSet<u16>,
                     problems: &mut Vec<LineProblem>| {
        if let Some((c, line, offset, seen)) = cpu {
            let missing: Vec<u16> = ids.difference(seen).copied().collect();
            if let (Some(lo), Some(hi)) = (missing.first(), missing.last()) {
                problems.push(LineProblem {
                    line: *line,
                    offset: *offset,
                    what: format!(
                        "CPU {c:02X}: {} of the listed counters have no value ({lo}..{hi}; file \
                         damaged or truncated?)",
                        missing.len()
                    ),
                });
            }
        }
    };
    for (no, offset, line, newline) in super::text::lines(bytes) {
        last = (no, offset);
        let problem = |what: String| LineProblem {
            line: no,
            offset,
            what,
        };
        let Ok(line) = line else {
            f.problems
                .push(problem("bytes that are not text (binary data?)".into()));
            continue;
        };
        let l = line.trim();
        if l.is_empty() {
            in_identifiers = false;
            continue;
        }
        if !header_seen {
            header_seen = true;
            if !l.starts_with("HIS019I") {
                f.problems.push(problem(format!(
                    "not a HIS019I counter file: {}",
                    super::text::excerpt(l)
                )));
            }
        }
        if !newline && cpu.is_some() {
            f.problems.push(problem(format!(
                "the file ends inside this line (truncated?): {}",
                super::text::excerpt(l)
            )));
            // Its missing counters are this problem, not another.
            cpu = None;
            break;
        }
        if l == "COUNTER IDENTIFIERS:" {
            in_identifiers = true;
        } else if in_identifiers {
            match l
                .split_once(':')
                .and_then(|(n, _)| n.trim().parse::<u16>().ok())
            {
                Some(n) => {
                    identifiers.insert(n);
                }
                None => in_identifiers = false,
            }
        }
        if l.starts_with("START TIME:") || l.starts_with("END TIME:") {
            let tod = l
                .split("TOD:")
                .nth(1)
                .and_then(|x| u64::from_str_radix(x.trim(), 16).ok());
            if l.starts_with("START") {
                f.start_tod = f.start_tod.or(tod);
            } else {
                f.end_tod = tod.or(f.end_tod);
            }
        } else if let Some(rest) = l.strip_prefix("SAMPLE BUFFER OVERFLOW COUNT") {
            match rest.trim_start_matches(':').trim().parse() {
                Ok(n) => f.lost_samples = n,
                Err(_) => f.problems.push(problem(format!(
                    "the sample buffer overflow count is not a number: {}",
                    super::text::excerpt(l)
                ))),
            }
        } else if let Some(rest) = l.strip_prefix("COUNTER VERSION NUMBER 1:") {
            let mut parts = rest.split("COUNTER VERSION NUMBER 2:");
            f.cfvn = parts
                .next()
                .and_then(|x| x.trim().parse().ok())
                .unwrap_or(0);
            f.csvn = parts
                .next()
                .and_then(|x| x.trim().parse().ok())
                .unwrap_or(0);
        } else if let Some(rest) = l.strip_prefix("COUNTER VALUES (HEXADECIMAL) FOR CPU") {
            check_cpu(&cpu, &identifiers, &mut f.problems);
            cpu = None;
            let num = rest.split_whitespace().next().unwrap_or("");
            let speed = rest
                .split("CPU SPEED =")
                .nth(1)
                .and_then(|x| x.split_whitespace().next())
                .and_then(|x| x.parse().ok());
            match (u16::from_str_radix(num, 16), speed) {
                (Ok(c), Some(speed)) => {
                    cpu = Some((c, no, offset, BTreeSet::new()));
                    f.cpus.entry(c).or_insert((speed, BTreeMap::new()));
                }
                (Err(_), _) => f.problems.push(problem(format!(
                    "CPU number '{num}' is not hexadecimal: {}",
                    super::text::excerpt(l)
                ))),
                (_, None) => f.problems.push(problem(format!(
                    "no CPU SPEED in the CPU header: {}",
                    super::text::excerpt(l)
                ))),
            }
        } else if let Some((c, _, _, seen)) = cpu.as_mut() {
            // "  0-   3 00000006663C2773 000000013562F9B1 ..." ("-----": no counter).
            let Some(dash) = l.find('-') else { continue };
            let Ok(lo) = l[..dash].trim().parse::<u16>() else {
                continue;
            };
            let mut toks = l[dash + 1..].split_whitespace();
            let Some(hi) = toks.next().and_then(|t| t.parse::<u16>().ok()) else {
                f.problems.push(problem(format!(
                    "counter range '{lo}-...' has no upper end: {}",
                    super::text::excerpt(l)
                )));
                continue;
            };
            let mut n = lo;
            for t in toks {
                if n > hi {
                    f.problems.push(problem(format!(
                        "more values than counters {lo}-{hi}: {}",
                        super::text::excerpt(l)
                    )));
                    break;
                }
                if t.starts_with("---") {
                    seen.insert(n);
                    n += 1;
                    continue;
                }
                match u64::from_str_radix(t, 16) {
                    Ok(v) if t.len() <= 16 => {
                        if let Some(e) = f.cpus.get_mut(c) {
                            e.1.insert(n, v);
                        }
                        seen.insert(n);
                        n += 1;
                    }
                    _ => {
                        f.problems.push(problem(format!(
                            "value of counter {n} is not a 64-bit hexadecimal number: '{t}'"
                        )));
                        break;
                    }
                }
            }
        }
    }
    check_cpu(&cpu, &identifiers, &mut f.problems);
    if f.cpus.is_empty() && f.problems.is_empty() {
        f.problems.push(LineProblem {
            line: last.0,
            offset: bytes.len() as u64,
            what: if bytes.is_empty() {
                "empty file".into()
            } else {
                "no COUNTER VALUES section: no CPU's counters (file truncated?)".into()
            },
        });
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A z10 run (CFVN 1, CSVN 1, 4404 cycles/us) with no CPUs; tests add theirs.
    fn run() -> CntRun {
        CntRun {
            file_name: "SYSHIS20261122.120000.000.CNT".into(),
            command: "hcpumf his begin".into(),
            title: String::new(),
            machine_type: 0x2097,
            cfvn: 1,
            csvn: 1,
            cpu_speed: 4404,
            start: std::time::UNIX_EPOCH,
            end: std::time::UNIX_EPOCH,
            start_tod: 1,
            end_tod: 2,
            lost_samples: 0,
            cpus: Vec::new(),
        }
    }

    #[test]
    fn round_trip() {
        let r = CntRun {
            cpus: vec![
                (0, vec![(CounterSet::Basic, vec![10, 20, 0, 0, 0, 0])]),
                (
                    1,
                    vec![
                        (
                            CounterSet::Basic,
                            vec![0x6663_C277, 0x1356_2F9B1, 1, 2, 3, 4],
                        ),
                        (CounterSet::ProblemState, vec![5, 6, 0, 0, 0, 0]),
                    ],
                ),
            ],
            ..run()
        };
        let text = render(&r);
        assert!(text.starts_with("HIS019I EVENT COUNTERS INFORMATION VERSION 1"));
        assert!(
            text.contains("COUNTER VALUES (HEXADECIMAL) FOR CPU 01 (CPU SPEED = 4404 CYCLES/MIC):")
        );
        let f = parse(&text);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!((f.cfvn, f.csvn), (1, 1));
        assert_eq!(f.cpus[&0].1[&1], 20);
        assert_eq!(f.cpus[&1].1[&1], 0x1356_2F9B1);
        assert_eq!(f.cpus[&1].1[&33], 6);
        assert_eq!(f.cpus[&1].0, 4404);
        assert!(text.contains("LOSS OF SAMPLE DATA ALERT: NO\nSAMPLE BUFFER OVERFLOW COUNT: 0\n"));
        let lost = render(&CntRun {
            lost_samples: 1260,
            ..r.clone()
        });
        assert!(lost.contains("LOSS OF SAMPLE DATA ALERT: YES"));
        assert_eq!(parse(&lost).lost_samples, 1260);
    }

    #[test]
    fn reads_z_os_text_and_reports_bad_lines() {
        let text = "HIS019I EVENT COUNTERS INFORMATION VERSION 1\n\
            COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1\n\
            COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):\n\
            \x20 0-  3 00000006663C2773 000000013562F9B1 00000000020BFA21 00000000769FBCC0\n\
            \x20 4-  7 0000000003D2CA56 000000026DA59633 -----\n\
            \x20 8- 11 ZZZZZZZZZZZZZZZZ\n";
        let f = parse(text);
        assert_eq!(f.cpus[&0].1[&0], 0x6663C2773);
        assert_eq!(f.cpus[&0].1[&5], 0x26DA59633);
        assert_eq!(f.problems.len(), 1);
        assert_eq!(f.problems[0].line, 6);
        let line6 = text.lines().take(5).map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(f.problems[0].offset, line6 as u64);
        assert!(f.problems[0].what.contains("counter 8"), "{:?}", f.problems);
    }

    #[test]
    fn truncation_and_foreign_files_are_located() {
        let r = CntRun {
            file_name: "X.CNT".into(),
            command: "c".into(),
            cpus: (0..2)
                .map(|c| (c, vec![(CounterSet::Basic, vec![1, 2, 3, 4, 5, 6])]))
                .collect(),
            ..run()
        };
        let text = render(&r);
        assert!(parse(&text).problems.is_empty());
        // Cut inside the last line.
        let cut = text.len() - 10;
        let f = parse_bytes(&text.as_bytes()[..cut]);
        let last_line = text[..cut].rfind('\n').unwrap() as u64 + 1;
        assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
        assert_eq!(f.problems[0].offset, last_line);
        assert!(f.problems[0].what.contains("truncated"));
        // Cut at a line end: CPU 01 lacks counters 4 and 5.
        let cut = text.trim_end().rfind('\n').unwrap() + 1;
        let f = parse_bytes(&text.as_bytes()[..cut]);
        let cpu1 = text
            .find("COUNTER VALUES (HEXADECIMAL) FOR CPU 01")
            .unwrap() as u64;
        assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
        assert_eq!(f.problems[0].offset, cpu1);
        assert!(f.problems[0]
            .what
            .contains("CPU 01: 2 of the listed counters"));
        // Cut before any CPU.
        let cut = text.find("COUNTER VALUES").unwrap();
        let f = parse_bytes(&text.as_bytes()[..cut]);
        assert_eq!(f.problems[0].offset, cut as u64);
        assert!(f.problems[0].what.contains("no COUNTER VALUES"));
        // Not a .CNT at all.
        let f = parse_bytes(b"\x7fELF\x02\x01\x01\n");
        assert_eq!(f.problems[0].offset, 0);
        assert!(
            f.problems[0].what.contains("not a HIS019I"),
            "{:?}",
            f.problems
        );
    }
}

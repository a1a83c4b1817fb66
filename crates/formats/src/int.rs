//! `.INT` files: hcpumf's interval counters, the deltas of every CPU's counters over each
//! SMFINTVAL interval of a run (z/OS HIS writes such intervals as SMF type 113 records; hcpumf
//! writes this text instead). The layout, one header then one line per interval per CPU:
//!
//! ```text
//! HISINT INTERVAL COUNTERS VERSION 1
//! FILE NAME: SYSHIS20261123.114536.000.INT
//! SMFINTVAL: 5 SECONDS
//! START TOD: DA1B2C3D4E5F6000
//! CPU SPEED: 4404 CYCLES/MIC
//! COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1
//! COUNTERS: 0 1 32 33
//! END TOD           SECONDS CPU DELTAS OF THE COUNTERS ABOVE (DECIMAL)
//! DA1B2C3D53A3A000    5.000 00 22020000000 1200000000 15414000000 840000000
//! ```
//!
//! A data line: the interval's end (TOD clock bits 0-63, 16 hexadecimal digits), seconds from
//! the run's start to it (3 decimals), the CPU (hexadecimal), then one decimal delta per
//! counter of the COUNTERS line, in its order. The last interval of a run ends at END and is
//! shorter. The reader never fails: what it cannot read is listed with byte offsets.

use crate::text::{excerpt, lines, LineProblem};
use std::fmt::Write as _;

/// The first line of a .INT file.
pub const HEADER: &str = "HISINT INTERVAL COUNTERS VERSION 1";

/// What the header of a .INT file says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntHeader {
    pub file_name: String,
    /// SMFINTVAL: the interval in seconds.
    pub interval_secs: u64,
    /// The run's START TOD (that of the .CNT).
    pub start_tod: u64,
    /// Cycles per microsecond.
    pub cpu_speed: u32,
    /// The counter version numbers (the .CNT's line; files before it had none): they name
    /// the machine generation whose formulas apply.
    pub cfvn: u16,
    pub csvn: u16,
    /// The counter numbers of every data line's values, in order: every counter of the
    /// run's sets (files before had cycles and instructions of the basic and problem-state
    /// sets and the crypto counters only).
    pub counters: Vec<u16>,
}

/// One interval of one CPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntRow {
    /// TOD clock (bits 0-63) at the interval's end.
    pub end_tod: u64,
    /// Seconds from the run's start to the interval's end.
    pub seconds: f64,
    pub cpu: u16,
    /// The deltas, in the order of the header's counters.
    pub values: Vec<u64>,
}

/// The header text, up to and with the column line.
pub fn render_header(h: &IntHeader) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{HEADER}");
    let _ = writeln!(o, "FILE NAME: {}", h.file_name);
    let _ = writeln!(o, "SMFINTVAL: {} SECONDS", h.interval_secs);
    let _ = writeln!(o, "START TOD: {:016X}", h.start_tod);
    let _ = writeln!(o, "CPU SPEED: {} CYCLES/MIC", h.cpu_speed);
    let _ = writeln!(
        o,
        "COUNTER VERSION NUMBER 1: {}    COUNTER VERSION NUMBER 2: {}",
        h.cfvn, h.csvn
    );
    let list: Vec<String> = h.counters.iter().map(u16::to_string).collect();
    let _ = writeln!(o, "COUNTERS: {}", list.join(" "));
    let _ = writeln!(
        o,
        "END TOD           SECONDS CPU DELTAS OF THE COUNTERS ABOVE (DECIMAL)"
    );
    o
}

/// One data line, with its newline.
pub fn render_row(r: &IntRow) -> String {
    let mut o = format!("{:016X} {:>8.3} {:02X}", r.end_tod, r.seconds, r.cpu);
    for v in &r.values {
        let _ = write!(o, " {v}");
    }
    o.push('\n');
    o
}

/// A .INT file as read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntFile {
    pub interval_secs: Option<u64>,
    pub start_tod: Option<u64>,
    pub cpu_speed: Option<u32>,
    /// The counter version numbers (None in files written before they were).
    pub cfvn: Option<u16>,
    pub csvn: Option<u16>,
    pub counters: Vec<u16>,
    pub rows: Vec<IntRow>,
    /// What could not be read.
    pub problems: Vec<LineProblem>,
}

impl IntFile {
    /// The delta of `counter` in `row` (None: the file has no such counter).
    pub fn value(&self, row: &IntRow, counter: u16) -> Option<u64> {
        let i = self.counters.iter().position(|&c| c == counter)?;
        row.values.get(i).copied()
    }
}

/// Read a .INT file's text.
pub fn parse(text: &str) -> IntFile {
    parse_bytes(text.as_bytes())
}

/// Read a .INT file from its bytes. Never fails: a line that cannot be read is left out and
/// listed in `problems` with its byte offset and line number, as are a file that is not a
/// .INT file, data before the COUNTERS line and a last line cut short (truncated file).
pub fn parse_bytes(bytes: &[u8]) -> IntFile {
    let mut f = IntFile::default();
    let mut counters_seen = false;
    let mut header_seen = false;
    for (no, offset, line, newline) in lines(bytes) {
        let mut problem = |what: String| {
            f.problems.push(LineProblem {
                line: no,
                offset,
                what,
            })
        };
        let Ok(line) = line else {
            problem("bytes that are not text (binary data?)".into());
            continue;
        };
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        if !header_seen {
            header_seen = true;
            if !l.starts_with("HISINT") {
                problem(format!("not a HISINT interval file: {}", excerpt(l)));
                return f;
            }
            continue;
        }
        if !newline {
            problem(format!(
                "the file ends inside this line (truncated?): {}",
                excerpt(l)
            ));
            break;
        }
        if l.starts_with("FILE NAME:") || l.starts_with("END TOD") {
            continue;
        }
        let number = |rest: &str| rest.split_whitespace().next().map(str::to_string);
        if let Some(rest) = l.strip_prefix("SMFINTVAL:") {
            match number(rest).and_then(|n| n.parse().ok()) {
                Some(n) => f.interval_secs = Some(n),
                None => problem(format!("SMFINTVAL is not a number: {}", excerpt(l))),
            }
        } else if let Some(rest) = l.strip_prefix("START TOD:") {
            match number(rest).and_then(|n| u64::from_str_radix(&n, 16).ok()) {
                Some(n) => f.start_tod = Some(n),
                None => problem(format!("START TOD is not hexadecimal: {}", excerpt(l))),
            }
        } else if let Some(rest) = l.strip_prefix("CPU SPEED:") {
            match number(rest).and_then(|n| n.parse().ok()) {
                Some(n) => f.cpu_speed = Some(n),
                None => problem(format!("CPU SPEED is not a number: {}", excerpt(l))),
            }
        } else if let Some(rest) = l.strip_prefix("COUNTER VERSION NUMBER 1:") {
            let mut parts = rest.split("COUNTER VERSION NUMBER 2:");
            let mut next = || parts.next().and_then(|x| x.trim().parse::<u16>().ok());
            match (next(), next()) {
                (Some(a), Some(b)) => (f.cfvn, f.csvn) = (Some(a), Some(b)),
                _ => problem(format!(
                    "counter version numbers are not numbers: {}",
                    excerpt(l)
                )),
            }
        } else if let Some(rest) = l.strip_prefix("COUNTERS:") {
            match rest
                .split_whitespace()
                .map(str::parse::<u16>)
                .collect::<Result<Vec<u16>, _>>()
            {
                Ok(v) => {
                    f.counters = v;
                    counters_seen = true;
                }
                Err(_) => problem(format!(
                    "COUNTERS: not a list of counter numbers: {}",
                    excerpt(l)
                )),
            }
        } else if !counters_seen {
            problem(format!(
                "an interval line before the COUNTERS line: {}",
                excerpt(l)
            ));
        } else {
            match data_line(l, f.counters.len()) {
                Ok(r) => f.rows.push(r),
                Err(what) => problem(format!("{what}: {}", excerpt(l))),
            }
        }
    }
    if !header_seen {
        f.problems.push(LineProblem {
            line: 1,
            offset: 0,
            what: if bytes.is_empty() {
                "empty file".into()
            } else {
                "nothing but blank lines".into()
            },
        });
    }
    f
}

/// One data line of `n` values.
fn data_line(l: &str, n: usize) -> Result<IntRow, String> {
    let mut t = l.split_whitespace();
    let tod = t.next().unwrap_or("");
    let end_tod = match u64::from_str_radix(tod, 16) {
        Ok(v) if tod.len() <= 16 => v,
        _ => return Err(format!("END TOD '{tod}' is not 16 hexadecimal digits")),
    };
    let secs = t.next().unwrap_or("");
    let seconds = match secs.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => s,
        _ => return Err(format!("seconds '{secs}' is not a number")),
    };
    let c = t.next().unwrap_or("");
    let cpu = u16::from_str_radix(c, 16).map_err(|_| format!("CPU '{c}' is not hexadecimal"))?;
    let mut values = Vec::with_capacity(n);
    for v in t {
        values.push(
            v.parse::<u64>()
                .map_err(|_| format!("delta '{v}' is not a decimal number"))?,
        );
    }
    if values.len() != n {
        return Err(format!(
            "{} deltas where the COUNTERS line has {n}",
            values.len()
        ));
    }
    Ok(IntRow {
        end_tod,
        seconds,
        cpu,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (IntHeader, Vec<IntRow>, String) {
        let h = IntHeader {
            file_name: "SYSHIS20261123.114536.000.INT".into(),
            interval_secs: 5,
            start_tod: 0xDA1B_2C3D_4E5F_6000,
            cpu_speed: 4404,
            cfvn: 1,
            csvn: 1,
            counters: vec![0, 1, 32, 33, 64],
        };
        let rows = vec![
            IntRow {
                end_tod: 0xDA1B_2C3D_53A3_A000,
                seconds: 5.0,
                cpu: 0,
                values: vec![
                    22_020_000_000,
                    1_200_000_000,
                    15_414_000_000,
                    840_000_000,
                    0,
                ],
            },
            IntRow {
                end_tod: 0xDA1B_2C3D_53A3_A000,
                seconds: 5.0,
                cpu: 0x1F,
                values: vec![u64::MAX, 0, 1, 2, 3],
            },
            IntRow {
                end_tod: 0xDA1B_2C3D_5500_0000,
                seconds: 6.25,
                cpu: 0,
                values: vec![1, 2, 3, 4, 5],
            },
        ];
        let mut text = render_header(&h);
        for r in &rows {
            text.push_str(&render_row(r));
        }
        (h, rows, text)
    }

    #[test]
    fn round_trip() {
        let (h, rows, text) = sample();
        assert!(text.starts_with(HEADER), "{text}");
        assert!(
            text.contains("\nDA1B2C3D53A3A000    5.000 00 22020000000 1200000000 "),
            "{text}"
        );
        let f = parse(&text);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.interval_secs, Some(5));
        assert_eq!(f.start_tod, Some(h.start_tod));
        assert_eq!(f.cpu_speed, Some(4404));
        assert_eq!((f.cfvn, f.csvn), (Some(1), Some(1)));
        assert_eq!(f.counters, h.counters);
        // Files before the version line read as before, without versions.
        let mut old = String::new();
        for l in text.lines().filter(|l| !l.starts_with("COUNTER VERSION")) {
            old.push_str(l);
            old.push('\n');
        }
        let g = parse(&old);
        assert!(g.problems.is_empty(), "{:?}", g.problems);
        assert_eq!((g.cfvn, g.csvn, g.rows.len()), (None, None, 3));
        assert_eq!(f.rows, rows);
        assert_eq!(f.value(&f.rows[2], 33), Some(4));
        assert_eq!(f.value(&f.rows[2], 2), None);
    }

    /// Damage is named with the byte offset and line of the line it is in; the good lines
    /// are read all the same.
    #[test]
    fn damage_is_located_and_the_rest_read() {
        let (_, _, text) = sample();
        let lines: Vec<&str> = text.lines().collect();
        // Lines 9-11 are the data; damage line 10 in five ways, cut the file inside line 11.
        let offset_of =
            |n: usize| -> u64 { lines[..n - 1].iter().map(|l| l.len() as u64 + 1).sum() };
        for (bad, says) in [
            (
                "ZZ1B2C3D53A3A000 5.000 1F 1 2 3 4 5",
                "END TOD 'ZZ1B2C3D53A3A000'",
            ),
            ("DA1B2C3D53A3A000 five 1F 1 2 3 4 5", "seconds 'five'"),
            ("DA1B2C3D53A3A000 5.000 XY 1 2 3 4 5", "CPU 'XY'"),
            (
                "DA1B2C3D53A3A000 5.000 1F 1 2 3 4",
                "4 deltas where the COUNTERS line has 5",
            ),
            ("DA1B2C3D53A3A000 5.000 1F 1 2 -3 4 5", "delta '-3'"),
        ] {
            let mut damaged: Vec<&str> = lines.clone();
            damaged[9] = bad;
            let mut t = damaged.join("\n");
            t.truncate(t.len() - 3);
            let f = parse(&t);
            assert_eq!(f.rows.len(), 1, "{bad}");
            assert_eq!(f.problems.len(), 2, "{bad}: {:?}", f.problems);
            assert_eq!(
                (f.problems[0].line, f.problems[0].offset),
                (10, offset_of(10))
            );
            assert!(f.problems[0].what.contains(says), "{:?}", f.problems[0]);
            assert_eq!(f.problems[1].line, 11);
            assert!(f.problems[1].what.contains("truncated"));
        }
        let f = parse_bytes(b"HIS019I EVENT COUNTERS INFORMATION VERSION 1\n");
        assert!(f.problems[0].what.contains("not a HISINT"));
        assert!(parse_bytes(b"").problems[0].what.contains("empty"));
        let f = parse("HISINT INTERVAL COUNTERS VERSION 1\nDA1B2C3D53A3A000 5.000 00 1\n");
        assert!(f.problems[0].what.contains("before the COUNTERS line"));
        let f = parse_bytes(b"HISINT\nCOUNTERS: 0 1\n\xff\xfe 1\n");
        assert_eq!((f.problems[0].line, f.problems[0].offset), (3, 21));
        // Any bytes: no panic.
        for n in 0..text.len() {
            let _ = parse_bytes(&text.as_bytes()[..n]);
        }
    }
}

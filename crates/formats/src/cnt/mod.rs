//! The `.CNT` file: the printable HIS019I "EVENT COUNTERS INFORMATION" text z/OS HIS writes
//! (Redbook SG24-7857 Example 2-2, Example 2-6 and Figures 3-3 to 3-7; z/OS MVS System
//! Messages HIS019I): a header (file name, command, lost samples, version numbers), then per
//! counter set its own section: the counter identifiers, the start and end time (local) and
//! TOD, and per CPU the hexadecimal deltas of that set with the CPU speed.
//!
//! The writer writes IBM's lines only: no title line (the title is in the COMMAND line, as
//! the operator typed it) and no machine line (IBM's file names the machine generation by
//! its counter version numbers; the .MAP's `I MACH` has the machine type). The reader also
//! takes the lines of hcpumf's earlier files, `TITLE:` and `MODEL: tttt-HERCULES`.

use crate::counter_sets::CounterSet;
use crate::time::Civil;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Counter values of one CPU: (set, values in counter order).
pub type CpuSets = Vec<(CounterSet, Vec<u64>)>;

/// Everything a .CNT file says.
#[derive(Clone, Debug)]
pub struct CntRun {
    pub file_name: String,
    /// The command that began the run, written as given (with its TITLE keyword).
    pub command: String,
    pub cfvn: u16,
    pub csvn: u16,
    pub cpu_speed: u32,
    /// Start and end of the run in local time, as z/OS writes them (Example 2-6).
    pub start: Civil,
    pub end: Civil,
    pub start_tod: u64,
    pub end_tod: u64,
    /// Samples the collector lost (not written: disk full); HIS's `LOST SAMPLES: n` line,
    /// written only when n > 0 (Example 2-2).
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

/// What HIS prints instead of identifiers for a set whose counters are model dependent
/// (Figure 3-7: the extended set; the MT-diagnostic set is model dependent too).
const MODEL_DEPENDENT: &str = "MODEL DEPENDENT INFORMATION NOT AVAILABLE";

fn model_dependent(set: CounterSet) -> bool {
    matches!(set, CounterSet::Extended | CounterSet::MtDiagnostic)
}

/// The TITLE (TT) keyword's value in a command as HIS takes it (`TITLE='run 1'`,
/// `TT='x'`, or an unquoted word), case-insensitively; None when the command has none.
pub fn title_of_command(command: &str) -> Option<String> {
    let up = command.to_ascii_uppercase();
    let b = up.as_bytes();
    let mut from = 0;
    while let Some(i) = up[from..].find("T").map(|i| i + from) {
        from = i + 1;
        // A keyword starts the command or follows a blank or a comma.
        if i > 0 && !matches!(b[i - 1], b' ' | b',') {
            continue;
        }
        let rest = ["TITLE=", "TT="]
            .iter()
            .find(|k| up[i..].starts_with(*k))
            .map(|k| &command[i + k.len()..]);
        let Some(rest) = rest else { continue };
        let value = if let Some(q) = rest.strip_prefix('\'') {
            q.split('\'').next().unwrap_or("")
        } else {
            rest.split([' ', ',']).next().unwrap_or("")
        };
        return Some(value.to_string());
    }
    None
}

/// Render the HIS019I text: the header, then one section per counter set (in the order of
/// the first CPU's sets), each with its identifiers, the run's start and end, and the values
/// of that set for every CPU.
pub fn render(r: &CntRun) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "HIS019I EVENT COUNTERS INFORMATION VERSION 1");
    let _ = writeln!(o, "FILE NAME: {}", r.file_name);
    let _ = writeln!(o, "COMMAND: {}", r.command);
    if r.lost_samples > 0 {
        let _ = writeln!(o, "LOST SAMPLES: {}", r.lost_samples);
    }
    let _ = writeln!(
        o,
        "COUNTER VERSION NUMBER 1: {}    COUNTER VERSION NUMBER 2: {}",
        r.cfvn, r.csvn
    );
    // Every set any CPU has, in the order they come; the identifiers follow the number of
    // values of the first CPU that has the set.
    let mut sets: Vec<(CounterSet, usize)> = Vec::new();
    for (_, cs) in &r.cpus {
        for (set, v) in cs {
            if !sets.iter().any(|(s, _)| s == set) {
                sets.push((*set, v.len()));
            }
        }
    }
    for (set, n) in &sets {
        let _ = writeln!(o);
        let _ = writeln!(o, "COUNTER SET= {}", set.name());
        let _ = writeln!(o, "COUNTER IDENTIFIERS:");
        if model_dependent(*set) {
            let _ = writeln!(o, "  {MODEL_DEPENDENT}");
        } else {
            for i in 0..*n {
                let num = set.first_counter() + i as u16;
                let _ = writeln!(o, "{num:>3}: {}", counter_name(num));
            }
        }
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "START TIME: {}  START TOD: {:016X}",
            r.start.his_time(),
            r.start_tod
        );
        let _ = writeln!(
            o,
            "END TIME:   {}  END TOD:   {:016X}",
            r.end.his_time(),
            r.end_tod
        );
        for (cpu, cs) in &r.cpus {
            let Some((_, values)) = cs.iter().find(|(s, _)| s == set) else {
                continue;
            };
            let _ = writeln!(
                o,
                "COUNTER VALUES (HEXADECIMAL) FOR CPU {cpu:02X} (CPU SPEED = {} CYCLES/MIC):",
                r.cpu_speed
            );
            let first = set.first_counter();
            for (row, chunk) in values.chunks(4).enumerate() {
                let lo = first + (row * 4) as u16;
                let hi = lo + 3;
                let _ = write!(o, "{lo:>3}-{hi:>3}");
                for v in chunk {
                    let _ = write!(o, " {v:016X}");
                }
                // A short row ends with one marker (Example 2-6).
                if chunk.len() < 4 {
                    let _ = write!(o, " -----");
                }
                let _ = writeln!(o);
            }
        }
    }
    o
}

/// A .CNT file as read back: version numbers, speed and every CPU's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CntFile {
    /// The COMMAND line (empty when the file has none).
    pub command: String,
    /// The run's title: the COMMAND's TITLE keyword, or the `TITLE:` line of hcpumf's earlier
    /// files (empty when there is none).
    pub title: String,
    /// The machine type of the `MODEL: tttt-HERCULES` line of hcpumf's earlier files (IBM's
    /// files, and hcpumf's now, name the generation only by the counter version numbers).
    pub machine_type: Option<u16>,
    pub cfvn: u16,
    pub csvn: u16,
    /// START TOD and END TOD of the run (TOD clock bits 0-63), from the first section that
    /// has them (every section carries the same run's times).
    pub start_tod: Option<u64>,
    pub end_tod: Option<u64>,
    /// Samples the collector lost: `LOST SAMPLES:` (z/OS, hcpumf now) or `SAMPLE BUFFER
    /// OVERFLOW COUNT:` (files hcpumf wrote before).
    pub lost_samples: u64,
    /// CPU -> (speed, counter number -> value), the values of all sets merged.
    pub cpus: BTreeMap<u16, (u32, BTreeMap<u16, u64>)>,
    /// What could not be read, or is missing.
    pub problems: Vec<crate::text::LineProblem>,
}

/// The CPU whose counter rows are being read.
struct CpuRows {
    cpu: u16,
    /// Line number and offset of its COUNTER VALUES header.
    line: usize,
    offset: u64,
    /// Counters with a value or a `-----` marker.
    seen: BTreeSet<u16>,
    /// Counters with a value.
    valued: BTreeSet<u16>,
}

/// The counter-set section being read. z/OS (and hcpumf now) write one section per set, each
/// with its own identifiers and CPUs; hcpumf's old layout listed every set's identifiers first
/// and then each CPU with all sets, so identifiers of consecutive sections with no values in
/// between add up.
#[derive(Default)]
struct Section {
    /// The counters COUNTER IDENTIFIERS lists.
    ids: BTreeSet<u16>,
    /// For a section that lists no identifiers (EXTENDED: "MODEL DEPENDENT INFORMATION NOT
    /// AVAILABLE"), the counters the first CPU of the section has values for: the others
    /// are checked against them (a file cut short in the first CPU's rows is not detected).
    reference: Option<(u16, BTreeSet<u16>)>,
    /// A COUNTER VALUES header came in this section.
    has_values: bool,
    /// Name, line number and offset of its COUNTER SET line.
    start: Option<(String, usize, u64)>,
}

impl Section {
    /// Report the counters the CPU just read has no value for.
    fn close(&mut self, cpu: Option<CpuRows>, problems: &mut Vec<crate::text::LineProblem>) {
        let Some(c) = cpu else { return };
        let (missing, which): (Vec<u16>, String) = if !self.ids.is_empty() {
            (
                self.ids.difference(&c.seen).copied().collect(),
                "the listed counters".into(),
            )
        } else if let Some((first, r)) = &self.reference {
            (
                r.difference(&c.seen).copied().collect(),
                format!("the counters CPU {first:02X} has in this set"),
            )
        } else {
            self.reference = Some((c.cpu, c.valued));
            return;
        };
        if let (Some(lo), Some(hi)) = (missing.first(), missing.last()) {
            problems.push(crate::text::LineProblem {
                line: c.line,
                offset: c.offset,
                what: format!(
                    "CPU {:02X}: {} of {which} have no value ({lo}..{hi}; file damaged or \
                     truncated?)",
                    c.cpu,
                    missing.len()
                ),
            });
        }
    }
}

/// Read HIS019I text (the plugin's or z/OS's; whitespace-tolerant). Never fails: what it
/// cannot read is listed in `problems` with byte offsets and line numbers.
pub fn parse(text: &str) -> CntFile {
    parse_bytes(text.as_bytes())
}

/// Read a .CNT from its bytes: z/OS's layout and hcpumf's (one section per counter set, the
/// same CPU once in each) as well as the layout of files hcpumf wrote before (all sets'
/// identifiers, then one time section, then per CPU all sets' values). Besides unreadable
/// lines it reports a file that is not HIS019I text, one that ends inside a line after the
/// counter values began, CPUs whose values do not cover every counter their section's
/// COUNTER IDENTIFIERS list, and a last counter set with no CPU's values (a file cut short
/// at a line end).
pub fn parse_bytes(bytes: &[u8]) -> CntFile {
    use crate::text::LineProblem;
    let mut f = CntFile::default();
    if let Some(p) = crate::text::only_reserved_blanks(bytes) {
        f.problems.push(p);
        return f;
    }
    let mut cpu: Option<CpuRows> = None;
    let mut section = Section::default();
    let mut in_identifiers = false;
    let mut header_seen = false;
    let mut truncated = false;
    let mut last = (0usize, 0u64);
    for (no, offset, line, newline) in crate::text::lines(bytes) {
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
                    crate::text::excerpt(l)
                )));
            }
        }
        if !newline && (cpu.is_some() || !f.cpus.is_empty()) {
            f.problems.push(problem(format!(
                "the file ends inside this line (truncated?): {}",
                crate::text::excerpt(l)
            )));
            // Its missing counters are this problem, not another.
            truncated = true;
            cpu = None;
            break;
        }
        if let Some(name) = l.strip_prefix("COUNTER SET=") {
            section.close(cpu.take(), &mut f.problems);
            if section.has_values {
                section = Section::default();
            }
            section.start = Some((name.trim().to_string(), no, offset));
            in_identifiers = false;
            continue;
        }
        if l == "COUNTER IDENTIFIERS:" {
            in_identifiers = true;
            continue;
        }
        if in_identifiers {
            if l == MODEL_DEPENDENT {
                continue;
            }
            match l
                .split_once(':')
                .and_then(|(n, _)| n.trim().parse::<u16>().ok())
            {
                Some(n) => {
                    section.ids.insert(n);
                    continue;
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
                f.end_tod = f.end_tod.or(tod);
            }
        } else if let Some(rest) = l
            .strip_prefix("LOST SAMPLES")
            .or_else(|| l.strip_prefix("SAMPLE BUFFER OVERFLOW COUNT"))
        {
            match rest.trim_start().trim_start_matches(':').trim().parse() {
                Ok(n) => f.lost_samples = n,
                Err(_) => f.problems.push(problem(format!(
                    "the number of lost samples is not a number: {}",
                    crate::text::excerpt(l)
                ))),
            }
        } else if let Some(rest) = l.strip_prefix("COMMAND:").filter(|_| f.cpus.is_empty()) {
            f.command = rest.trim().to_string();
            if let Some(t) = title_of_command(&f.command) {
                f.title = t;
            }
        } else if let Some(rest) = l.strip_prefix("TITLE:").filter(|_| f.cpus.is_empty()) {
            f.title = rest.trim().to_string();
        } else if let Some(rest) = l.strip_prefix("MODEL:").filter(|_| f.cpus.is_empty()) {
            f.machine_type = rest
                .trim()
                .get(..4)
                .and_then(|t| u16::from_str_radix(t, 16).ok());
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
            section.close(cpu.take(), &mut f.problems);
            section.has_values = true;
            let num = rest.split_whitespace().next().unwrap_or("");
            let speed = rest
                .split("CPU SPEED =")
                .nth(1)
                .and_then(|x| x.split_whitespace().next())
                .and_then(|x| x.parse().ok());
            match (u16::from_str_radix(num, 16), speed) {
                (Ok(c), Some(speed)) => {
                    cpu = Some(CpuRows {
                        cpu: c,
                        line: no,
                        offset,
                        seen: BTreeSet::new(),
                        valued: BTreeSet::new(),
                    });
                    f.cpus.entry(c).or_insert((speed, BTreeMap::new()));
                }
                (Err(_), _) => f.problems.push(problem(format!(
                    "CPU number '{num}' is not hexadecimal: {}",
                    crate::text::excerpt(l)
                ))),
                (_, None) => f.problems.push(problem(format!(
                    "no CPU SPEED in the CPU header: {}",
                    crate::text::excerpt(l)
                ))),
            }
        } else if let Some(rows) = cpu.as_mut() {
            // "  0-  3 00000006663C2773 000000013562F9B1 ..." (hcpumf's old files: "   0-   3";
            // "-----": no further counter).
            let Some(dash) = l.find('-') else { continue };
            let Ok(lo) = l[..dash].trim().parse::<u16>() else {
                continue;
            };
            let mut toks = l[dash + 1..].split_whitespace();
            let Some(hi) = toks.next().and_then(|t| t.parse::<u16>().ok()) else {
                f.problems.push(problem(format!(
                    "counter range '{lo}-...' has no upper end: {}",
                    crate::text::excerpt(l)
                )));
                continue;
            };
            let mut n = u32::from(lo);
            for t in toks {
                if n > u32::from(hi) {
                    f.problems.push(problem(format!(
                        "more values than counters {lo}-{hi}: {}",
                        crate::text::excerpt(l)
                    )));
                    break;
                }
                // n <= hi, a u16.
                let k = n as u16;
                if t.starts_with("---") {
                    rows.seen.insert(k);
                    n += 1;
                    continue;
                }
                match u64::from_str_radix(t, 16) {
                    Ok(v) if t.len() <= 16 => {
                        if let Some(e) = f.cpus.get_mut(&rows.cpu) {
                            e.1.insert(k, v);
                        }
                        rows.seen.insert(k);
                        rows.valued.insert(k);
                        n += 1;
                    }
                    _ => {
                        f.problems.push(problem(format!(
                            "value of counter {k} is not a 64-bit hexadecimal number: '{t}'"
                        )));
                        break;
                    }
                }
            }
        }
    }
    section.close(cpu.take(), &mut f.problems);
    if !truncated && !f.cpus.is_empty() && !section.has_values {
        if let Some((name, line, offset)) = &section.start {
            f.problems.push(LineProblem {
                line: *line,
                offset: *offset,
                what: format!(
                    "COUNTER SET= {name}: no CPU's counter values follow (file truncated?)"
                ),
            });
        }
    }
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
mod tests;

//! `.MAP` files: fixed-format records of HIS (Redbook SG24-7857 4.3.2; shared reference §7):
//! type (I, A, B, M, C, E), area, place (an ASID of 4 hex digits, or BDY, NUC, PLPA, MLPA,
//! FLPA), name (8), start and end address (16 hex digits each), and for a private-area
//! record the address-space name (8). Information records (I) carry free text.

/// One address-carrying record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapEntry {
    pub kind: char,
    /// N nucleus, F fixed / M modified / P pageable LPA, C common, X private area (of
    /// `asid`); blank for boundaries.
    pub area: char,
    /// The address space of a private-area record (area X); 0 for the common area.
    pub asid: u16,
    pub name: String,
    pub start: u64,
    pub end: u64,
    /// The address-space (job) name HIS writes after the addresses of a private-area record;
    /// None where the record has none (common area, files written before it was added).
    pub job: Option<String>,
}

impl MapEntry {
    /// The fixed-format record line: boundaries and LPA or nucleus records name their place
    /// (BDY, PLPA, MLPA, FLPA, NUC) where private-area records have the ASID; a private-area
    /// record with a job name ends with it.
    pub fn line(&self) -> String {
        let place = match (self.kind, self.area) {
            ('B', _) => "BDY ".to_string(),
            (_, 'P') => "PLPA".to_string(),
            (_, 'M') => "MLPA".to_string(),
            (_, 'F') => "FLPA".to_string(),
            (_, 'N') => "NUC ".to_string(),
            _ => format!("{:04X}", self.asid),
        };
        let mut l = format!(
            "{}{}{place}{:<8.8}{:016X}{:016X}",
            self.kind, self.area, self.name, self.start, self.end
        );
        if let (Some(job), 'X') = (&self.job, self.area) {
            l.push_str(&format!("{job:<8.8}"));
        }
        l
    }
}

/// A .MAP file as read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapFile {
    /// Information records (I), without the leading "I ".
    pub info: Vec<String>,
    /// Address spaces: ASID -> job name (A records).
    pub jobs: std::collections::BTreeMap<u16, String>,
    /// Modules (M records), sorted by start address.
    pub modules: Vec<MapEntry>,
    /// Control sections (C records), sorted by start address.
    pub csects: Vec<MapEntry>,
    /// Entry points (E records: start = end = the entry point).
    pub entries: Vec<MapEntry>,
    /// Boundaries of the virtual-storage areas (B records; `name` is the area).
    pub boundaries: Vec<MapEntry>,
    /// Records that could not be read.
    pub problems: Vec<super::text::LineProblem>,
}

/// The last of `v` (sorted by start) that contains `ia` and belongs to the common area or to
/// `asid`. The common area and one address space's private area do not overlap, so only a
/// few of theirs before the address need a look; other address spaces' private records
/// (often at the same addresses: every job's program is loaded low in its private area) are
/// passed over.
fn containing(v: &[MapEntry], asid: u16, ia: u64) -> Option<&MapEntry> {
    let i = v.partition_point(|m| m.start <= ia);
    v[..i]
        .iter()
        .rev()
        .filter(|m| m.area != 'X' || m.asid == asid || m.asid == 0)
        .take(8)
        .find(|m| ia <= m.end)
}

impl MapFile {
    /// The module containing an address (in the common area, or the private area of `asid`);
    /// a CSECT when no module record covers it (z/OS writes the nucleus as C records only).
    pub fn module_at(&self, asid: u16, ia: u64) -> Option<&MapEntry> {
        containing(&self.modules, asid, ia).or_else(|| containing(&self.csects, asid, ia))
    }

    /// The CSECT containing an address.
    pub fn csect_at(&self, asid: u16, ia: u64) -> Option<&MapEntry> {
        containing(&self.csects, asid, ia)
    }

    /// Sort the address-carrying records (after reading or merging files).
    pub fn sort(&mut self) {
        self.modules.sort_by_key(|m| m.start);
        self.csects.sort_by_key(|m| m.start);
        self.entries.sort_by_key(|m| m.start);
    }
}

fn all_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_hexdigit())
}

/// One address-carrying record (A, B, M, C, E), or why it cannot be read. Bytes 2-5 are a
/// hexadecimal ASID or a place (BDY, NUC, PLPA, MLPA, FLPA: ASID 0); the addresses are 16
/// hexadecimal digits each (this writer, z/OS with I MODE 64-BIT) or 8 (older z/OS files).
/// A private-area record (area X) may go on with the address-space name (8 bytes).
fn record(line: &str, wide: bool) -> Result<MapEntry, String> {
    let b = line.as_bytes();
    if !matches!(b[0], b'A' | b'B' | b'M' | b'C' | b'E') {
        return Err(format!(
            "unknown record type '{}' (I, A, B, M, C or E)",
            line.chars().next().unwrap_or(' ')
        ));
    }
    // An entry-point record may carry just its address.
    let single = b[0] == b'E' && b.len() < if wide { 46 } else { 30 };
    let min = if single { 22 } else { 30 };
    if b.len() < min || !line.is_char_boundary(6) || !line.is_char_boundary(14) {
        return Err(format!(
            "record of {} bytes is too short (at least {min}: type, area, ASID, name, addresses)",
            b.len()
        ));
    }
    let place = &line[2..6];
    let asid = if all_hex(place) {
        u16::from_str_radix(place, 16).unwrap_or(0)
    } else if place.trim_end().bytes().all(|c| c.is_ascii_alphabetic()) {
        0
    } else {
        return Err(format!(
            "'{place}' in bytes 2-5 is neither an ASID nor an area"
        ));
    };
    let field = |r: std::ops::Range<usize>| line.get(r).filter(|f| all_hex(f));
    // `after`: where the fields that follow the addresses begin.
    let (start, end, after) = if single {
        match field(if wide { 14..30 } else { 14..22 }) {
            Some(a) => (a, a, line.len()),
            None => return Err("the entry address is not hexadecimal".into()),
        }
    } else {
        let w = field(14..30).zip(field(30..46));
        let n = field(14..22).zip(field(22..30));
        match (w, n) {
            (Some(w), _) => (w.0, w.1, 46),
            (None, Some(n)) if !wide => (n.0, n.1, 30),
            _ => {
                return Err(format!(
                    "start and end address are not hexadecimal ({} digits each from byte 14)",
                    if wide { "16" } else { "16 or 8" }
                ))
            }
        }
    };
    let start = u64::from_str_radix(start, 16).unwrap_or(0);
    let end = u64::from_str_radix(end, 16).unwrap_or(0);
    if end < start && b[0] != b'B' {
        return Err(format!("end address {end:X} is below the start {start:X}"));
    }
    let job = if b[1] == b'X' && b[0] != b'A' {
        line.get(after..line.len().min(after + 8))
            .map(str::trim_end)
            .filter(|j| !j.is_empty())
            .map(str::to_string)
    } else {
        None
    };
    Ok(MapEntry {
        kind: b[0] as char,
        area: b[1] as char,
        asid,
        name: line[6..14].trim_end().to_string(),
        start,
        end,
        job,
    })
}

/// Read a .MAP file. Never fails: malformed records are listed with their byte offsets and
/// line numbers.
pub fn parse(text: &str) -> MapFile {
    parse_bytes(text.as_bytes())
}

/// Read a .MAP file from its bytes (lines that are not text are reported, not guessed at).
pub fn parse_bytes(bytes: &[u8]) -> MapFile {
    use super::text::LineProblem;
    let mut f = MapFile::default();
    if let Some(p) = super::text::only_reserved_blanks(bytes) {
        f.problems.push(p);
        return f;
    }
    let mut wide = false;
    for (no, offset, line, newline) in super::text::lines(bytes) {
        let problem = |what: String| LineProblem {
            line: no,
            offset,
            what,
        };
        let line = match line {
            Ok(l) => l,
            Err(n) => {
                f.problems.push(problem(format!(
                    "{n} bytes that are not text (binary data?)"
                )));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with('I') {
            let info = line.get(2..).unwrap_or("").to_string();
            wide |= info.starts_with("MODE 64");
            f.info.push(info);
            continue;
        }
        match record(line, wide) {
            Ok(e) => match e.kind {
                'A' => {
                    f.jobs.insert(e.asid, e.name);
                }
                'M' => f.modules.push(e),
                'C' => f.csects.push(e),
                'E' => f.entries.push(e),
                _ => f.boundaries.push(e),
            },
            Err(what) => {
                let what = if newline {
                    what
                } else {
                    format!("{what}; the file ends in this record (truncated?)")
                };
                f.problems
                    .push(problem(format!("{what}: {}", super::text::excerpt(line))));
            }
        }
    }
    f.sort();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_records_and_reports_bad_ones() {
        let text = "I SYS HERCULES\n\
            AX0021DEMOJOB 00000000000089000000000000008900\n\
            MC0000HOTLOOP 000000000001000000000000000100FF\n\
            MX0021PRIVMOD 00000000000200000000000000020FFF\n\
            MC0000SHORT\n\
            ZZ0000BADKIND 00000000000000000000000000000000\n";
        let m = parse(text);
        assert_eq!(m.info, vec!["SYS HERCULES".to_string()]);
        assert_eq!(m.jobs[&0x21], "DEMOJOB");
        assert_eq!(
            m.module_at(0x21, 0x10080).map(|e| e.name.as_str()),
            Some("HOTLOOP")
        );
        assert_eq!(
            m.module_at(0x21, 0x20010).map(|e| e.name.as_str()),
            Some("PRIVMOD")
        );
        assert_eq!(m.module_at(0x22, 0x20010), None, "private to ASID 21");
        assert_eq!(m.module_at(0x21, 0x10100), None);
        assert_eq!(
            m.problems.iter().map(|p| p.line).collect::<Vec<_>>(),
            vec![5, 6]
        );
        let line5 = text.lines().take(4).map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(m.problems[0].offset, line5 as u64);
        assert!(m.problems[0].what.contains("too short"), "{:?}", m.problems);
        assert!(m.problems[1].what.contains("unknown record type 'Z'"));
    }

    #[test]
    fn reads_z_os_boundary_csect_and_entry_records() {
        // Redbook SG24-7857 Figure 4-7 (8-digit addresses, places instead of ASIDs).
        let text = "I SYS #@$2\n\
            B BDY PRIVATE 00000000007FFFFF\n\
            B BDY CSA     0080000000C63FFF\n\
            CNNUC IEAVFX0000000000000001FFF\n\
            ENNUC IEATCBP 00000218\n\
            CNNUC IGC203  00FD600000FD6BF8\n";
        let m = parse(text);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(m.boundaries.len(), 2);
        assert_eq!(m.boundaries[1].name, "CSA");
        assert_eq!(
            (m.boundaries[1].start, m.boundaries[1].end),
            (0x800000, 0xC63FFF)
        );
        assert_eq!(m.csects.len(), 2);
        assert_eq!(m.entries[0].start, 0x218);
        // No M record covers the nucleus: its CSECTs stand for modules.
        assert_eq!(
            m.module_at(1, 0xFD6100).map(|e| e.name.as_str()),
            Some("IGC203")
        );
        assert_eq!(
            m.csect_at(1, 0x100).map(|e| e.name.as_str()),
            Some("IEAVFX00")
        );
    }

    #[test]
    fn writes_and_reads_places_and_job_names() {
        let rec = |kind, area, asid, name: &str, start, end, job: Option<&str>| MapEntry {
            kind,
            area,
            asid,
            name: name.into(),
            start,
            end,
            job: job.map(str::to_string),
        };
        let written = [
            rec('M', 'P', 0, "PLPAONE", 0x91000, 0x912FF, None),
            rec('E', 'P', 0, "PLPAALI", 0x91010, 0x91010, None),
            rec('M', 'M', 0, "NIPMOD", 0x98000, 0x981FF, None),
            rec('M', 'X', 3, "BPROG", 0x20000, 0x201FF, Some("JOBB")),
            rec('E', 'X', 3, "BALIAS", 0x20010, 0x20010, Some("JOBB")),
            rec('B', ' ', 0, "NUC", 0, 0xFFFF, None),
        ];
        let lines: Vec<String> = written.iter().map(MapEntry::line).collect();
        assert_eq!(
            lines,
            vec![
                "MPPLPAPLPAONE 000000000009100000000000000912FF",
                "EPPLPAPLPAALI 00000000000910100000000000091010",
                "MMMLPANIPMOD  000000000009800000000000000981FF",
                "MX0003BPROG   000000000002000000000000000201FFJOBB    ",
                "EX0003BALIAS  00000000000200100000000000020010JOBB    ",
                "B BDY NUC     0000000000000000000000000000FFFF",
            ]
        );
        let m = parse(&format!("I MODE 64-BIT\n{}\n", lines.join("\n")));
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let mut read: Vec<MapEntry> = m.modules.clone();
        read.extend(m.entries.iter().cloned());
        read.extend(m.boundaries.iter().cloned());
        for w in &written {
            assert!(read.contains(w), "{w:?} in {read:#?}");
        }
        // Files written before the job name (none) and z/OS files with 8-digit addresses
        // (the name after them) read too.
        let m = parse(
            "I MODE 64-BIT\n\
             MX0021PRIVMOD 00000000000200000000000000020FFF\n",
        );
        assert_eq!(m.modules[0].job, None);
        let m = parse("MX0021PRIVMOD 0002000000020FFFDEMOJOB VOLSER=WORK01DSN=A.B\n");
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(
            (m.modules[0].end, m.modules[0].job.as_deref()),
            (0x20FFF, Some("DEMOJOB"))
        );
    }

    #[test]
    fn private_modules_at_one_address_belong_to_their_address_spaces() {
        // Every address space's program at the same private address: each sample's ASID
        // finds its own, however many address spaces have one there.
        let mut text =
            String::from("I MODE 64-BIT\nMMMLPANIPMOD  000000000001000000000000000100FF\n");
        for asid in 1..=40u16 {
            text.push_str(&format!(
                "MX{asid:04X}PROG{asid:04X}00000000000200000000000000020FFFJOB{asid:<5}\n"
            ));
        }
        let m = parse(&text);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        for asid in 1..=40u16 {
            let e = m.module_at(asid, 0x20800).expect("own module");
            assert_eq!(e.name, format!("PROG{asid:04X}"));
            assert_eq!(e.job.as_deref(), Some(format!("JOB{asid}").as_str()));
        }
        assert_eq!(m.module_at(41, 0x20800), None);
        assert_eq!(m.module_at(41, 0x10010).map(|e| e.area), Some('M'));
    }

    #[test]
    fn damage_is_located_by_offset() {
        let mut bytes = b"I MODE 64-BIT\nMC0000HOTLOOP 000000000001000000000000000100FF\n".to_vec();
        let second = bytes.len() as u64;
        bytes.extend_from_slice(b"MC0000BIN\xff\xfe\n");
        let third = bytes.len() as u64;
        bytes.extend_from_slice(b"MC0000WARMLOOP00000000000200000000"); // cut short
        let m = parse_bytes(&bytes);
        assert_eq!(m.modules.len(), 1);
        assert_eq!(m.problems.len(), 2, "{:?}", m.problems);
        assert_eq!((m.problems[0].line, m.problems[0].offset), (3, second));
        assert!(m.problems[0].what.contains("not text"));
        assert_eq!((m.problems[1].line, m.problems[1].offset), (4, third));
        assert!(m.problems[1].what.contains("truncated"), "{:?}", m.problems);
    }
}

//! `.MAP` files: the fixed-format records of HIS (Redbook SG24-7857 4.3.2, Figures 4-7 and
//! 4-8): byte 0 the type (I, B, C, E, M), byte 1 the area (N nucleus, F/M/P fixed, modified,
//! pageable LPA, C common, X private), bytes 2-5 the place (BDY, NUC, FLPA, MLPA, PLPA, or
//! the ASID in four hexadecimal digits), bytes 6-13 the name, bytes 14-21 the start and
//! 22-29 the end address (eight hexadecimal digits each; an E record has one address), and
//! for a private-area record the address-space name in the next 8 bytes. `I` records carry
//! a keyword in bytes 2-5 and its value (`I SMFI#@$2`, `I DATE10053`).
//!
//! What IBM's layout has no place for goes to hcpumf's companion `.MAPX`, read with the same
//! reader: hcpumf's earlier layout, announced by an `I MODE` record, with 16-digit addresses
//! (for addresses above 4 GB), `A` records (every address space's name, also those with no
//! module mapped) and `I NOTE` records. Earlier hcpumf .MAP files have that layout too.

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

/// The `I` record of keyword `key` as HIS writes it: the keyword from byte 2, its value right
/// after it (Figure 4-7: `I SYS #@$2`, `I SMFI#@$2`, `I OS z/OS`, `I MAP V1R1`).
pub fn info_record(key: &str, value: &str) -> String {
    format!("I {key}{value}")
}

/// The `I` record that announces hcpumf's wide layout (16-digit addresses) in a `.MAPX`.
pub const WIDE_LAYOUT: &str = "I MODE 64-BIT";

impl MapEntry {
    /// Bytes 2-5: boundaries and LPA or nucleus records name their place (BDY, PLPA, MLPA,
    /// FLPA, NUC) where private-area records have the ASID.
    fn place(&self) -> String {
        match (self.kind, self.area) {
            ('B', _) => "BDY ".to_string(),
            (_, 'P') => "PLPA".to_string(),
            (_, 'M') => "MLPA".to_string(),
            (_, 'F') => "FLPA".to_string(),
            (_, 'N') => "NUC ".to_string(),
            _ => format!("{:04X}", self.asid),
        }
    }

    /// The record as IBM lays it out (Redbook 4.3.2): 8-digit addresses, one for an E
    /// record, the address-space name after the addresses of a private-area record. None
    /// for what that layout has no place for: `A` records and addresses above 4 GB (they
    /// go to the `.MAPX`, [`MapEntry::wide_line`]).
    pub fn ibm_line(&self) -> Option<String> {
        if !matches!(self.kind, 'B' | 'M' | 'C' | 'E')
            || self.start > u64::from(u32::MAX)
            || self.end > u64::from(u32::MAX)
        {
            return None;
        }
        let mut l = format!(
            "{}{}{}{:<8.8}{:08X}",
            self.kind,
            self.area,
            self.place(),
            self.name,
            self.start
        );
        if self.kind != 'E' {
            l.push_str(&format!("{:08X}", self.end));
        }
        if let (Some(job), 'X') = (&self.job, self.area) {
            l.push_str(&format!("{job:<8.8}"));
        }
        Some(l)
    }

    /// The record in hcpumf's wide layout (16-digit start and end addresses, `A` records),
    /// as the `.MAPX` has it after its [`WIDE_LAYOUT`] record.
    pub fn wide_line(&self) -> String {
        let mut l = format!(
            "{}{}{}{:<8.8}{:016X}{:016X}",
            self.kind,
            self.area,
            self.place(),
            self.name,
            self.start,
            self.end
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
    /// Address spaces: ASID -> job name, from the address-space names of private-area
    /// records (IBM's M, C and E records) and from `A` records (hcpumf's `.MAPX`).
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
/// hexadecimal ASID or a place (BDY, NUC, PLPA, MLPA, FLPA: ASID 0). The addresses are 8
/// hexadecimal digits each, an E record's one (IBM's layout), or 16 each (`wide`: hcpumf's
/// layout after an `I MODE` record, where an E record may have one or two). A private-area
/// record (area X) may go on with the address-space name (8 bytes).
fn record(line: &str, wide: bool) -> Result<MapEntry, String> {
    let b = line.as_bytes();
    if !matches!(b[0], b'A' | b'B' | b'M' | b'C' | b'E') {
        return Err(format!(
            "unknown record type '{}' (I, A, B, M, C or E)",
            line.chars().next().unwrap_or(' ')
        ));
    }
    let single = b[0] == b'E' && (!wide || b.len() < 46);
    let digits = if wide { 16 } else { 8 };
    let min = 14 + digits * if single { 1 } else { 2 };
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
        match field(14..14 + digits) {
            Some(a) => (a, a, 14 + digits),
            None => return Err("the entry address is not hexadecimal".into()),
        }
    } else {
        match field(14..14 + digits).zip(field(14 + digits..14 + 2 * digits)) {
            Some((s, e)) => (s, e, 14 + 2 * digits),
            None => {
                return Err(format!(
                    "start and end address are not hexadecimal ({digits} digits each from \
                     byte 14)"
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
            // hcpumf's wide layout (`I MODE 64-BIT`; its first files said `I MODE 31-BIT`).
            wide |= info.starts_with("MODE ");
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
    f.name_address_spaces();
    f
}

impl MapFile {
    /// Fill `jobs` from the address-space names of the private-area records (an `A` record's
    /// name, read first, stays).
    pub fn name_address_spaces(&mut self) {
        for e in self.modules.iter().chain(&self.csects).chain(&self.entries) {
            if let (Some(job), 'X') = (&e.job, e.area) {
                self.jobs.entry(e.asid).or_insert_with(|| job.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests;

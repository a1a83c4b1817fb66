//! `.MAP` files: fixed-format records of HIS (Redbook SG24-7857 4.3.2; shared reference §7):
//! type (I, A, B, M, C, E), area, ASID (4 hex digits), name (8), start and end address
//! (16 hex digits each). Information records (I) carry free text.

/// One address-carrying record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapEntry {
    pub kind: char,
    pub area: char,
    pub asid: u16,
    pub name: String,
    pub start: u64,
    pub end: u64,
}

impl MapEntry {
    /// The fixed-format record line.
    pub fn line(&self) -> String {
        format!(
            "{}{}{:04X}{:<8.8}{:016X}{:016X}",
            self.kind, self.area, self.asid, self.name, self.start, self.end
        )
    }
}

/// A .MAP file as read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapFile {
    /// Information records (I), without the leading "I ".
    pub info: Vec<String>,
    /// Address spaces: ASID -> job name (A records).
    pub jobs: std::collections::BTreeMap<u16, String>,
    /// Modules, CSECTs and entry points (M, C, E records), sorted by start address.
    pub modules: Vec<MapEntry>,
    /// Boundaries (B records).
    pub boundaries: Vec<MapEntry>,
    /// Lines that could not be read: (line number, text).
    pub problems: Vec<(usize, String)>,
}

impl MapFile {
    /// The module containing an address (in the common area, or the private area of `asid`).
    pub fn module_at(&self, asid: u16, ia: u64) -> Option<&MapEntry> {
        // Modules do not overlap; find the last one starting at or below the address.
        let i = self.modules.partition_point(|m| m.start <= ia);
        self.modules[..i]
            .iter()
            .rev()
            .take(8)
            .find(|m| ia <= m.end && (m.area != 'X' || m.asid == asid || m.asid == 0))
    }
}

/// Read a .MAP file. Never fails: malformed records are listed with their line numbers.
pub fn parse(text: &str) -> MapFile {
    let mut f = MapFile::default();
    for (no, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let b = line.as_bytes();
        if b[0] == b'I' {
            f.info.push(line.get(2..).unwrap_or("").to_string());
            continue;
        }
        if b.len() < 46 || !line.is_char_boundary(46) {
            f.problems.push((no + 1, line.to_string()));
            continue;
        }
        let hex = |r: std::ops::Range<usize>| u64::from_str_radix(&line[r], 16).ok();
        let (Some(asid), Some(start), Some(end)) = (hex(2..6), hex(14..30), hex(30..46)) else {
            f.problems.push((no + 1, line.to_string()));
            continue;
        };
        let e = MapEntry {
            kind: b[0] as char,
            area: b[1] as char,
            asid: asid as u16,
            name: line[6..14].trim_end().to_string(),
            start,
            end,
        };
        match e.kind {
            'A' => {
                f.jobs.insert(e.asid, e.name);
            }
            'M' | 'C' | 'E' => f.modules.push(e),
            'B' => f.boundaries.push(e),
            _ => f.problems.push((no + 1, line.to_string())),
        }
    }
    f.modules.sort_by_key(|m| m.start);
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
            m.problems.iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![5, 6]
        );
    }
}

//! The .MAP against the Redbook's own map (SG24-7857 Figure 4-7, its records as 4.3.2 lays
//! them out), hcpumf's records in IBM's layout and in the wide layout of the .MAPX, and
//! damage located by offset.

use super::*;

/// Figure 4-7 (a z/OS 1.12 map, 8-digit addresses), its text as the Redbook prints it but
/// for what its screen capture garbled, corrected from the same records in Example 2-7 and
/// Figure 4-8 and from 4.3.2's layout: `B BODY` is `B BDY` (Example 2-7, Figure 4-8, 4.3.2's
/// "BDY"); `I FMIDH887760` is `HBB7760` (Example 2-7); PRIVATE's `00000000007FFFFFFF`,
/// RON's `00FE400000FFFFFFF` and ECSA's `0935600018DFFFFFFF` have one or two `F`s too many
/// (Figure 4-8: `00000000007FFFFF`, `00FE400000FFFFFF`; 16 digits); CSA's `0000000000CE3FFF`
/// is Example 2-7's `0080000000C63FFF`; `C NNUC`/`E NNUC` are type C or E, area N, place
/// NUC (4.3.2: byte 1 the area, bytes 2-5 the place) without the capture's blank; and
/// `IEAVFX00000000000001FFF` (23 characters) is the name IEAVFX00 with 00000000-00001FFF.
const FIGURE_4_7: &str = "\
I SYS #@$2
I SMFI#@$2
I OS z/OS
I FMIDHBB7760
I DATE10053
I TIME23392786
I MAP V1R1
I LPID00000011
I MACH00002097
B BDY PRIVATE 00000000007FFFFF
B BDY CSA     0080000000C63FFF
B BDY CSAALLOC0004C14802EEB328
B BDY CSACONVT0000000000000000
B BDY MLPA    00C6400000C64FFF
B BDY FLPA    0000000000000000
B BDY PLPA    00C6500000E35FFF
B BDY SQA     00E3600000FD5FFF
B BDY SQAALLOC000E9DA801706878
B BDY RWNUC   00FD600000FE386F
B BDY RON     00FE400000FFFFFF
B BDY ERON    010000000199945F
B BDY ERWN    0199A00001A12FFF
B BDY ESQA    01A1300004FC6FFF
B BDY EPLPA   04FC700009351FFF
B BDY EFLPA   0000000000000000
B BDY EMLPA   0935200009355FFF
B BDY ECSA    0935600018DFFFFF
B BDY EPRV    18E000007FFFFFFF
B BDY DONUC   7F9AF0007F9B2FFF
CNNUC IEAVFX000000000000001FFF
ENNUC IEATCBP 00000218
CNNUC IGC203  00FD600000FD6BF8
CNNUC IECVPRNT00FD6C0000FD70F7
ENNUC PRTDSE  00FD6C06
ENNUC PRTSIO  00FD6C0C
ENNUC PRTEOS  00FD6C12
ENNUC PRTTRAP 00FD6C18
";

/// A private-area module record as 4.3.2 describes it (type M, area X, the ASID, name,
/// start, end, then the address-space name and the 48-byte tail), for the problem-state
/// sample of Example 4-1 (ASID 013C at 08143650).
pub const MYPROG: &str = "MX013CMYPROG  0814300008143FFFMYJOB   VOLSER=WORK01DSN=MY.LOAD";

#[test]
fn reads_figure_4_7() {
    let m = parse(FIGURE_4_7);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.info.len(), 9);
    assert_eq!(m.info[1], "SMFI#@$2");
    assert_eq!(m.info[8], "MACH00002097");
    // 20 areas, the allocation records (CSAALLOC, SQAALLOC) among them.
    assert_eq!(m.boundaries.len(), 20);
    let b = |name: &str| {
        let b = m.boundaries.iter().find(|b| b.name == name).expect(name);
        (b.start, b.end)
    };
    assert_eq!(b("PRIVATE"), (0, 0x7F_FFFF));
    assert_eq!(b("CSA"), (0x80_0000, 0xC6_3FFF));
    assert_eq!(b("ECSA"), (0x0935_6000, 0x18DF_FFFF));
    assert_eq!(b("DONUC"), (0x7F9A_F000, 0x7F9B_2FFF));
    assert_eq!(m.csects.len(), 3);
    let e: Vec<(&str, u64)> = m
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.start))
        .collect();
    assert_eq!(
        e,
        vec![
            ("IEATCBP", 0x218),
            ("PRTDSE", 0xFD_6C06),
            ("PRTSIO", 0xFD_6C0C),
            ("PRTEOS", 0xFD_6C12),
            ("PRTTRAP", 0xFD_6C18)
        ]
    );
    assert!(m.entries.iter().all(|e| e.area == 'N' && e.start == e.end));
    // No M record covers the nucleus: its CSECTs stand for modules.
    assert_eq!(
        m.module_at(1, 0xFD_6100).map(|e| e.name.as_str()),
        Some("IGC203")
    );
    assert_eq!(
        m.csect_at(1, 0x100).map(|e| e.name.as_str()),
        Some("IEAVFX00")
    );
    assert!(m.jobs.is_empty());
}

/// JOBNAME from IBM's private-area records: the address-space name after the addresses.
#[test]
fn job_names_come_from_private_area_records() {
    let m = parse(&format!("{FIGURE_4_7}{MYPROG}\n"));
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.jobs.get(&0x13C).map(String::as_str), Some("MYJOB"));
    let e = m.module_at(0x13C, 0x0814_3650).expect("MYPROG");
    assert_eq!(
        (e.name.as_str(), e.start, e.end, e.job.as_deref()),
        ("MYPROG", 0x0814_3000, 0x0814_3FFF, Some("MYJOB"))
    );
    assert_eq!(m.module_at(0x24, 0x0814_3650), None, "private to ASID 013C");
}

fn rec(
    kind: char,
    area: char,
    asid: u16,
    name: &str,
    start: u64,
    end: u64,
    job: Option<&str>,
) -> MapEntry {
    MapEntry {
        kind,
        area,
        asid,
        name: name.into(),
        start,
        end,
        job: job.map(str::to_string),
    }
}

/// hcpumf's records in IBM's layout, byte for byte as 4.3.2 places the fields; what that
/// layout cannot hold (A records, addresses above 4 GB) only in the wide layout.
#[test]
fn writes_ibms_layout_and_the_wide_one() {
    let written = [
        rec('M', 'P', 0, "PLPAONE", 0x91000, 0x912FF, None),
        rec('E', 'P', 0, "PLPAALI", 0x91010, 0x91010, None),
        rec('M', 'M', 0, "NIPMOD", 0x98000, 0x981FF, None),
        rec('M', 'X', 3, "BPROG", 0x20000, 0x201FF, Some("JOBB")),
        rec('E', 'X', 3, "BALIAS", 0x20010, 0x20010, Some("JOBB")),
        rec('B', ' ', 0, "RWNUC", 0, 0xFFFF, None),
    ];
    let lines: Vec<String> = written.iter().filter_map(MapEntry::ibm_line).collect();
    assert_eq!(
        lines,
        vec![
            "MPPLPAPLPAONE 00091000000912FF",
            "EPPLPAPLPAALI 00091010",
            "MMMLPANIPMOD  00098000000981FF",
            "MX0003BPROG   00020000000201FFJOBB    ",
            "EX0003BALIAS  00020010JOBB    ",
            "B BDY RWNUC   000000000000FFFF",
        ]
    );
    let m = parse(&format!("{}\n", lines.join("\n")));
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    let mut read: Vec<MapEntry> = m.modules.clone();
    read.extend(m.entries.iter().cloned());
    read.extend(m.boundaries.iter().cloned());
    for w in &written {
        assert!(read.contains(w), "{w:?} in {read:#?}");
    }
    assert_eq!(m.jobs.get(&3).map(String::as_str), Some("JOBB"));
    // Not IBM's: an A record, a module above 4 GB.
    let a = rec('A', 'X', 0x21, "DEMOJOB", 0x8900, 0x8900, None);
    let high = rec(
        'M',
        'X',
        0x21,
        "HIGH",
        0x1_0000_0000,
        0x1_0000_00FF,
        Some("DEMOJOB"),
    );
    assert_eq!((a.ibm_line(), high.ibm_line()), (None, None));
    let wide = format!("{WIDE_LAYOUT}\n{}\n{}\n", a.wide_line(), high.wide_line());
    assert_eq!(
        wide,
        "I MODE 64-BIT\n\
         AX0021DEMOJOB 00000000000089000000000000008900\n\
         MX0021HIGH    000000010000000000000001000000FFDEMOJOB \n"
    );
    let m = parse(&wide);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.jobs[&0x21], "DEMOJOB");
    assert_eq!(m.modules, vec![high]);
}

/// hcpumf's earlier maps (16 digits after `I MODE 64-BIT`, or `I MODE 31-BIT` in its first
/// files; A records) read as before.
#[test]
fn earlier_hcpumf_maps_still_read() {
    for mode in ["I MODE 64-BIT", "I MODE 31-BIT"] {
        let text = format!(
            "I SYS HERCULES\n{mode}\n\
             AX0021DEMOJOB 00000000000089000000000000008900\n\
             MC0000HOTLOOP 000000000001000000000000000100FF\n\
             MX0021PRIVMOD 00000000000200000000000000020FFF\n\
             EX0021PRIVENT 00000000000200100000000000020010DEMOJOB \n\
             MC0000SHORT\n\
             ZZ0000BADKIND 00000000000000000000000000000000\n"
        );
        let m = parse(&text);
        assert_eq!(m.info[0], "SYS HERCULES");
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
        assert_eq!(m.entries[0].start, 0x20010);
        assert_eq!(
            m.problems.iter().map(|p| p.line).collect::<Vec<_>>(),
            vec![7, 8]
        );
        let line7 = text.lines().take(6).map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(m.problems[0].offset, line7 as u64);
        assert!(m.problems[0].what.contains("too short"), "{:?}", m.problems);
        assert!(m.problems[1].what.contains("unknown record type 'Z'"));
    }
    // Without an I MODE record the addresses are IBM's 8 digits: a 16-digit record is read as
    // 8 + 8 and its name is then what follows (never two addresses out of one).
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
    let mut text = String::from("MMMLPANIPMOD  00010000000100FF\n");
    for asid in 1..=40u16 {
        text.push_str(&format!(
            "MX{asid:04X}PROG{asid:04X}0002000000020FFFJOB{asid:<5}\n"
        ));
    }
    let m = parse(&text);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    for asid in 1..=40u16 {
        let e = m.module_at(asid, 0x20800).expect("own module");
        assert_eq!(e.name, format!("PROG{asid:04X}"));
        assert_eq!(e.job.as_deref(), Some(format!("JOB{asid}").as_str()));
        assert_eq!(m.jobs[&asid], format!("JOB{asid}"));
    }
    assert_eq!(m.module_at(41, 0x20800), None);
    assert_eq!(m.module_at(41, 0x10010).map(|e| e.area), Some('M'));
}

#[test]
fn damage_is_located_by_offset() {
    let mut bytes = b"MC0000HOTLOOP 00010000000100FF\n".to_vec();
    let second = bytes.len() as u64;
    bytes.extend_from_slice(b"MC0000BIN\xff\xfe\n");
    let third = bytes.len() as u64;
    bytes.extend_from_slice(b"MC0000WARMLOOP0002000000"); // cut short
    let m = parse_bytes(&bytes);
    assert_eq!(m.modules.len(), 1);
    assert_eq!(m.problems.len(), 2, "{:?}", m.problems);
    assert_eq!((m.problems[0].line, m.problems[0].offset), (2, second));
    assert!(m.problems[0].what.contains("not text"));
    assert_eq!((m.problems[1].line, m.problems[1].offset), (3, third));
    assert!(m.problems[1].what.contains("truncated"), "{:?}", m.problems);
}

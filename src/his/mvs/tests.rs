//! MVS awareness against control blocks laid out as MVS 3.8J lays them out (offsets from
//! `blocks`), in in-memory storage.

use super::blocks::*;
use super::walk::MapFilter;
use super::*;
use crate::arch::storage::AbsAddr;

/// Real storage without DAT, prefix 0 (an MVS image laid out at its real addresses).
fn real(storage: &dyn GuestStorage) -> Space<'_> {
    Space {
        storage,
        prefix: 0,
        dat: Dat::Real,
    }
}
use crate::arch::storage::MemStorage;

fn put32(s: &MemStorage, a: u64, v: u32) {
    s.write(AbsAddr(a), &v.to_be_bytes()).unwrap();
}
fn put16(s: &MemStorage, a: u64, v: u16) {
    s.write(AbsAddr(a), &v.to_be_bytes()).unwrap();
}
fn ebcdic(name: &str) -> Vec<u8> {
    let mut v: Vec<u8> = name
        .bytes()
        .map(|c| match c {
            b'A'..=b'I' => 0xC1 + (c - b'A'),
            b'J'..=b'R' => 0xD1 + (c - b'J'),
            b'S'..=b'Z' => 0xE2 + (c - b'S'),
            b'0'..=b'9' => 0xF0 + (c - b'0'),
            _ => 0x40,
        })
        .collect();
    v.resize(8, 0x40);
    v
}

/// A minimal MVS: CVT at 0x1000, ASVT at 0x2000 with two address spaces, ASCBs at 0x3000
/// and 0x3100, job names at 0x4000, an LPA queue with one module, DAT off.
fn mvs() -> MemStorage {
    let s = MemStorage::new(0x20000);
    put32(&s, FLCCVT, 0x1000);
    put32(&s, 0x1000 + CVTASVT, 0x2000);
    put32(&s, 0x2000 + ASVTMAXU, 3);
    put32(&s, 0x2000 + ASVTENTY, 0x3000);
    put32(&s, 0x2000 + ASVTENTY + 4, 0x8000_0000);
    put32(&s, 0x2000 + ASVTENTY + 8, 0x3100);
    put16(&s, 0x3000 + ASCBASID, 1);
    put32(&s, 0x3000 + ASCBJBNS, 0x4000);
    put16(&s, 0x3100 + ASCBASID, 0x1A);
    put32(&s, 0x3100 + ASCBJBNI, 0x4008);
    s.write(AbsAddr(0x4000), &ebcdic("MASTER")).unwrap();
    s.write(AbsAddr(0x4008), &ebcdic("MYJOB")).unwrap();
    // LPA queue: CVTQLPAQ -> pointer -> CDE at 0x5000 (IEFBR14, extent list 0x5100).
    put32(&s, 0x1000 + CVTQLPAQ, 0x4F00);
    put32(&s, 0x4F00, 0x5000);
    s.write(AbsAddr(0x5000 + CDNAME), &ebcdic("IEFBR14"))
        .unwrap();
    put32(&s, 0x5000 + CDXLMJP, 0x5100);
    put32(&s, 0x5108, 0x8000_0010);
    put32(&s, 0x510C, 0x00A0_0000);
    // Minor CDE (alias IEFBR15 of IEFBR14) chained after it.
    put32(&s, 0x5000, 0x5200);
    s.write(AbsAddr(0x5200 + CDNAME), &ebcdic("IEFBR15"))
        .unwrap();
    put32(&s, 0x5200 + CDENTPT, 0x00A0_0008);
    put32(&s, 0x5200 + CDXLMJP, 0x5000);
    s.write(AbsAddr(0x5200 + CDATTR), &[CDMIN]).unwrap();
    // Storage boundaries: nucleus to 64K, private to 8M, CSA to 10M, LPA and SQA to 16M.
    put32(&s, 0x1000 + CVTNUCB, 0x1_0000);
    put32(&s, 0x1000 + CVTSHRVM, 0x80_0000);
    put32(&s, 0x1000 + CVTLPDIA, 0xA0_0000);
    put32(&s, 0x1000 + CVTMZ00, 0xFF_FFFF);
    // Running: TCB 0x6000 of ASID 1A, a subtask of job step TCB 0x6100 whose job pack
    // queue has MYPROG (CDE 0x5300, extent list 0x5340: 0x200 bytes at 0x7000).
    put32(&s, 0x6000 + TCBJSTCB, 0x6100);
    put32(&s, 0x6100 + TCBJPQ, 0x5300);
    s.write(AbsAddr(0x5300 + CDNAME), &ebcdic("MYPROG"))
        .unwrap();
    put32(&s, 0x5300 + CDXLMJP, 0x5340);
    put32(&s, 0x5348, 0x8000_0200);
    put32(&s, 0x534C, 0x7000);
    put32(&s, PSATOLD, 0x6000);
    put32(&s, PSAAOLD, 0x3100);
    s
}

#[test]
fn walks_address_spaces_and_modules() {
    let s = mvs();
    let space = real(&s);
    let (recs, notes) = walk(&space);
    assert!(notes.is_empty(), "{notes:?}");
    let lines: Vec<String> = recs.iter().map(|r| r.line()).collect();
    assert!(lines.contains(&"AX0001MASTER  00000000000030000000000000003000".to_string()));
    assert!(lines.contains(&"AX001AMYJOB   00000000000031000000000000003100".to_string()));
    assert!(lines.contains(&"MC0000IEFBR14 0000000000A000000000000000A0000F".to_string()));
    assert!(lines.contains(&"EC0000IEFBR15 0000000000A000080000000000A00008".to_string()));
    assert!(lines.contains(&"MX001AMYPROG  000000000000700000000000000071FF".to_string()));
    for b in [
        "B BDY NUC     0000000000000000000000000000FFFF",
        "B BDY PRIVATE 000000000001000000000000007FFFFF",
        "B BDY CSA     000000000080000000000000009FFFFF",
        "B BDY LPA+SQA 0000000000A000000000000000FFFFFF",
    ] {
        assert!(lines.contains(&b.to_string()), "{b} in {lines:#?}");
    }
    // The reader reads them back.
    let m = crate::his::map::parse(&lines.join("\n"));
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.boundaries.len(), 4);
    assert_eq!(m.entries[0].name, "IEFBR15");
}

#[test]
fn mapasid_and_mapjob_select_address_spaces() {
    let s = mvs();
    let space = real(&s);
    let (recs, _) = walk(&space);
    let asids = |f: &MapFilter| {
        let mut v: Vec<u16> = f
            .apply(recs.clone())
            .iter()
            .filter(|r| r.kind == 'A')
            .map(|r| r.asid)
            .collect();
        v.sort();
        v
    };
    assert_eq!(asids(&MapFilter::default()), vec![1, 0x1A]);
    let only_1 = MapFilter {
        asids: Some(vec![1]),
        jobs: vec![],
    };
    assert_eq!(asids(&only_1), vec![1]);
    let myjob = MapFilter {
        asids: None,
        jobs: vec!["MYJOB".into()],
    };
    assert_eq!(asids(&myjob), vec![0x1A]);
    // Common-area records stay.
    assert!(only_1
        .apply(recs.clone())
        .iter()
        .any(|r| r.name == "IEFBR14"));
}

#[test]
fn program_parameter_names_task_and_address_space() {
    let s = mvs();
    let space = real(&s);
    assert_eq!(
        program_parameter_in(&space),
        (0x6000u64 << 32) | (0x1A << 16)
    );
}

#[test]
fn hostile_chains_end_with_a_note() {
    let s = mvs();
    // The CDE chains to itself; the ASVT claims millions of entries beyond storage; the
    // storage boundaries are out of order.
    put32(&s, 0x5000, 0x5000);
    put32(&s, 0x1000 + CVTSHRVM, 0x1000);
    put32(&s, 0x2000 + ASVTMAXU, 0x7FFF_FFFF);
    let space = real(&s);
    let (_recs, notes) = walk(&space);
    assert!(notes.iter().any(|n| n.contains("loop")), "{notes:?}");
    assert!(
        notes.iter().any(|n| n.contains("not addressable")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("no storage boundaries")),
        "{notes:?}"
    );
    // No CVT at all.
    let empty = MemStorage::new(0x1000);
    let space = real(&empty);
    let (recs, notes) = walk(&space);
    assert!(recs.is_empty());
    assert!(notes[0].contains("no CVT"));
}

#[test]
fn s370_translation_4k_pages_64k_segments() {
    let s = MemStorage::new(0x40000);
    // Segment table at 0x10000 (length code 0: 16 entries), segment 1 -> page table at
    // 0x11000 whose entry 2 maps to frame 0x23000.
    put32(&s, 0x10000 + 4, 0xF001_1000);
    put32(&s, 0x10000, 1); // segment 0 invalid
    put16(&s, 0x11000 + 2 * 2, (0x23u16) << 4);
    let space = Space {
        storage: &s,
        prefix: 0,
        dat: Dat::S370 {
            cr0: 0x0080_0000, // 4K pages (bits 8-9 = 10), 64K segments
            cr1: 0x0001_0000,
        },
    };
    assert_eq!(space.translate(0x12345), Some(0x23345));
    assert_eq!(space.translate(0x02345), None);
}

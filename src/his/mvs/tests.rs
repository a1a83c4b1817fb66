//! MVS awareness against control blocks laid out as MVS 3.8J lays them out (offsets from
//! `blocks`), in in-memory storage: real (DAT off), and S/370 DAT with every address space's
//! private area at the same virtual addresses in its own frames.

use super::blocks::*;
use super::walk::MapFilter;
use super::*;
use hcpumf_arch::cpu::Arch;
use hcpumf_arch::storage::{AbsAddr, MemStorage};

fn put32(s: &MemStorage, a: u64, v: u32) {
    s.write(AbsAddr(a), &v.to_be_bytes()).unwrap();
}
fn put16(s: &MemStorage, a: u64, v: u16) {
    s.write(AbsAddr(a), &v.to_be_bytes()).unwrap();
}
fn put8(s: &MemStorage, a: u64, v: u8) {
    s.write(AbsAddr(a), &[v]).unwrap();
}
fn ebcdic(name: &str) -> Vec<u8> {
    let mut v: Vec<u8> = name
        .bytes()
        .map(|c| match c {
            b'A'..=b'I' => 0xC1 + (c - b'A'),
            b'J'..=b'R' => 0xD1 + (c - b'J'),
            b'S'..=b'Z' => 0xE2 + (c - b'S'),
            b'0'..=b'9' => 0xF0 + (c - b'0'),
            b'*' => 0x5C,
            _ => 0x40,
        })
        .collect();
    v.resize(8, 0x40);
    v
}
fn put_name(s: &MemStorage, a: u64, name: &str) {
    s.write(AbsAddr(a), &ebcdic(name)).unwrap();
}

/// S/370 CR0: 4-KB pages, 64-KB segments.
const CR0_4K_64K: u32 = 0x0080_0000;
/// The three address spaces: ASVT entry, ASID, ASCB, job, program, alias, CDE being loaded.
const SPACES: [(u64, u16, u64, &str, &str, &str, &str); 3] = [
    (0, 1, 0x3000, "JOBA", "APROG", "AALIAS", "ALOAD"),
    (2, 3, 0x3100, "JOBB", "BPROG", "BALIAS", "BLOAD"),
    (3, 4, 0x3200, "JOBC", "CPROG", "CALIAS", "CLOAD"),
];
/// Where address space `i`'s private area (its program, then its LSQA: ASXB, TCBs, CDEs) is
/// in real storage.
fn private_real(i: usize) -> u64 {
    0x40000 + 0x10000 * i as u64
}
/// Segment table (its CR1 / ASCBSTOR) of address space `i`.
fn stor(i: usize) -> u32 {
    0x7000 + 0x40 * i as u32
}
/// The private area's virtual address: with DAT the same in every address space.
fn private_virtual(i: usize, dat: bool) -> u64 {
    if dat {
        0x20000
    } else {
        private_real(i)
    }
}

/// An MVS 3.8J image in 1 MB: PSA, CVT at 0x1000 (nucleus to 64K, private to 512K, CSA to
/// 576K, the LPA directory at 0x90000), ASVT at 0x2000 with four entries (ASIDs 1, 3, 4;
/// ASID 2 available), ASCBs at 0x3000.., job names at 0x4000..; the active LPA queue with a
/// NIP-loaded module (NIPMOD) and an in-use PLPA module (PLPAONE, also in the directory); the
/// LPA directory with PLPAONE, PLPATWO (majors), PLPAALI (a minor) and the X'FF' end. Each
/// address space: ASXB -> job step TCB -> subtask TCB (TCBTCB, up to ASXBLTCB); the job step's
/// job pack queue: its program (major, CDXLE, 0x200 bytes at the private area's start), an
/// alias (minor, CDRLC) and a CDE being loaded (CDNIC); the subtask's TCBJPQ points to a
/// CDE (WRONG) that must not be read. Flag bits are set in the flag bytes of CVTLPDIA,
/// TCBJPQ and TCBJSTCB. With `dat`, the S/370 segment tables at 0x7000.. map everything
/// but segment 2 (0x20000-0x2FFFF) V=R, and segment 2 of address space i to its own frames.
fn mvs(dat: bool) -> MemStorage {
    let s = MemStorage::new(0x10_0000);
    put32(&s, FLCCVT, 0x1000);
    let cvt = 0x1000;
    put32(&s, cvt + CVTASVT, 0x2000);
    put32(&s, cvt + CVTNUCB, 0x1_0000);
    put32(&s, cvt + CVTSHRVM, 0x8_0000);
    put32(&s, cvt + CVTLPDIA, 0x8009_0000); // flag byte set
    put32(&s, cvt + CVTMZ00, 0xFF_FFFF);
    put32(&s, 0x2000 + ASVTMAXU, 4);
    put32(&s, 0x2000 + ASVTENTY + 4, 0x8000_0000);
    for (i, &(entry, asid, ascb, job, prog, alias, load)) in SPACES.iter().enumerate() {
        put32(&s, 0x2000 + ASVTENTY + 4 * entry, ascb as u32);
        put16(&s, ascb + ASCBASID, asid);
        put32(&s, ascb + ASCBSTOR, stor(i));
        put32(&s, ascb + ASCBJBNI, 0x4000 + 8 * i as u32);
        put_name(&s, 0x4000 + 8 * i as u64, job);
        let (r, v) = (private_real(i), private_virtual(i, dat));
        put32(&s, ascb + ASCBASXB, (v + 0x1000) as u32);
        // ASXB: first TCB (the job step) and last (its subtask).
        put32(&s, r + 0x1000 + ASXBFTCB, (v + 0x1100) as u32);
        put32(&s, r + 0x1000 + ASXBLTCB, (v + 0x1200) as u32);
        // Job step TCB: TCBJSTCB zero with flag bits (its own job step), TCBJPQ with TCBPURGE.
        put32(&s, r + 0x1100 + TCBJSTCB, 0x4000_0000);
        put32(&s, r + 0x1100 + TCBJPQ, 0x8000_0000 | (v + 0x1300) as u32);
        put32(&s, r + 0x1100 + TCBTCB, (v + 0x1200) as u32);
        // Subtask: its job step in TCBJSTCB (flag bits set); a TCBJPQ not to be read.
        put32(&s, r + 0x1200 + TCBJSTCB, 0xFF00_0000 | (v + 0x1100) as u32);
        put32(&s, r + 0x1200 + TCBJPQ, (v + 0x1500) as u32);
        put_name(&s, r + 0x1500 + CDNAME, "WRONG");
        put32(&s, r + 0x1500 + CDENTPT, v as u32);
        // The program: major CDE, extent list built (0x200 bytes at the private area).
        put32(&s, r + 0x1300, (v + 0x1340) as u32);
        put_name(&s, r + 0x1300 + CDNAME, prog);
        put32(&s, r + 0x1300 + CDENTPT, v as u32);
        put32(&s, r + 0x1300 + CDXLMJP, (v + 0x1400) as u32);
        put8(&s, r + 0x1300 + CDATTR, 0x20);
        put8(&s, r + 0x1300 + CDATTR2, CDXLE);
        put32(&s, r + 0x1400 + XTLMSBLA, 0x8000_0200);
        put32(&s, r + 0x1400 + XTLMSBAA, v as u32);
        // Its alias: minor CDE, entry point relocated.
        put32(&s, r + 0x1340, (v + 0x1380) as u32);
        put_name(&s, r + 0x1340 + CDNAME, alias);
        put32(&s, r + 0x1340 + CDENTPT, (v + 0x10) as u32);
        put32(&s, r + 0x1340 + CDXLMJP, (v + 0x1300) as u32);
        put8(&s, r + 0x1340 + CDATTR, CDMIN);
        put8(&s, r + 0x1340 + CDATTR2, CDRLC);
        // A module being loaded: nothing to map.
        put_name(&s, r + 0x1380 + CDNAME, load);
        put32(&s, r + 0x1380 + CDENTPT, (v + 0x800) as u32);
        put32(&s, r + 0x1380 + CDXLMJP, (v + 0x1400) as u32);
        put8(&s, r + 0x1380 + CDATTR, CDNIC);
        put8(&s, r + 0x1380 + CDATTR2, CDXLE);
        // The program's first bytes: its name, to see which frame a read reached.
        put_name(&s, r, prog);
    }
    // Active LPA queue: CVTQLPAQ -> 0x4F00 -> NIPMOD (CDNIP) -> PLPAONE (in use).
    put32(&s, cvt + CVTQLPAQ, 0x4F00);
    put32(&s, 0x4F00, 0x5000);
    put32(&s, 0x5000, 0x5200);
    put_name(&s, 0x5000 + CDNAME, "NIPMOD");
    put32(&s, 0x5000 + CDENTPT, 0x9_8000);
    put32(&s, 0x5000 + CDXLMJP, 0x5100);
    put8(&s, 0x5000 + CDATTR, CDNIP | 0x20);
    put8(&s, 0x5000 + CDATTR2, CDXLE);
    put32(&s, 0x5100 + XTLMSBLA, 0x8000_0200);
    put32(&s, 0x5100 + XTLMSBAA, 0x9_8000);
    put_name(&s, 0x5200 + CDNAME, "PLPAONE");
    put32(&s, 0x5200 + CDENTPT, 0x9_1000);
    put32(&s, 0x5200 + CDXLMJP, 0x5300);
    put8(&s, 0x5200 + CDATTR, 0x20);
    put8(&s, 0x5200 + CDATTR2, CDXLE);
    put32(&s, 0x5300 + XTLMSBLA, 0x8000_0300);
    put32(&s, 0x5300 + XTLMSBAA, 0x9_1000);
    // LPA directory at 0x90000.
    let lpde = |n: u64| 0x9_0000 + n * LPDE_LEN;
    put_name(&s, lpde(0) + LPDENAME, "PLPAONE");
    put32(&s, lpde(0) + LPDENTP, 0x9_1000);
    put32(&s, lpde(0) + LPDEXTLN, 0x300);
    put32(&s, lpde(0) + LPDEXTAD, 0x9_1000);
    put_name(&s, lpde(1) + LPDENAME, "PLPATWO");
    put32(&s, lpde(1) + LPDENTP, 0x9_1300);
    put32(&s, lpde(1) + LPDEXTLN, 0x100);
    put32(&s, lpde(1) + LPDEXTAD, 0x9_1300);
    put_name(&s, lpde(2) + LPDENAME, "PLPAALI");
    put32(&s, lpde(2) + LPDENTP, 0x9_1010);
    put8(&s, lpde(2) + LPDEATTR, LPDEMIN);
    s.write(AbsAddr(lpde(3) + LPDENAME), &[0xFF; 8]).unwrap();
    // Running: JOBA's job step.
    put32(&s, PSATOLD, 0x2_1100);
    put32(&s, PSAAOLD, 0x3000);
    if dat {
        // Segment tables (16 entries: 1 MB) at 0x7000..; shared V=R page tables at 0x6000
        // (16 x 32 bytes); segment 2 of address space i: page table at 0x6400 + 0x40 i,
        // pages 0 and 1 in its own frames.
        for seg in 0..16u64 {
            for p in 0..16u64 {
                put16(&s, 0x6000 + seg * 32 + p * 2, ((seg * 16 + p) << 4) as u16);
            }
        }
        for i in 0..3 {
            let st = u64::from(stor(i));
            for seg in 0..16u64 {
                put32(&s, st + seg * 4, 0xF000_0000 | (0x6000 + seg * 32) as u32);
            }
            let pt = 0x6400 + 0x40 * i as u64;
            put32(&s, st + 2 * 4, 0x1000_0000 | pt as u32); // 2 entries
            put16(&s, pt, ((private_real(i) >> 12) << 4) as u16);
            put16(&s, pt + 2, (((private_real(i) + 0x1000) >> 12) << 4) as u16);
        }
    }
    s
}

/// Real storage without DAT, prefix 0 (an MVS image laid out at its real addresses).
fn real(storage: &dyn GuestStorage) -> Space<'_> {
    Space {
        storage,
        prefix: 0,
        dat: Dat::Real,
    }
}

/// S/370 DAT through address space `i`'s segment table (CPU 0 last ran it).
fn s370(storage: &dyn GuestStorage, i: usize) -> Space<'_> {
    Space {
        storage,
        prefix: 0,
        dat: Dat::S370 {
            cr0: CR0_4K_64K,
            cr1: stor(i),
        },
    }
}

fn lines(space: &Space, filter: &MapFilter) -> (Vec<String>, Vec<String>) {
    let (recs, notes) = walk(space, filter);
    let mut l: Vec<String> = recs.iter().map(|r| r.wide_line()).collect();
    l.sort();
    (l, notes)
}

/// Every record the fixture should give, private areas at `v(i)`.
fn expected(v: impl Fn(usize) -> u64) -> Vec<String> {
    let mut want: Vec<String> = [
        "B BDY RWNUC   0000000000000000000000000000FFFF",
        "B BDY PRIVATE 0000000000010000000000000007FFFF",
        "B BDY CSA     0000000000080000000000000008FFFF",
        // The directory at 0x90000, PLPATWO ends at 0x913FF: the SQA from the next page.
        "B BDY PLPA    00000000000900000000000000091FFF",
        "B BDY SQA     00000000000920000000000000FFFFFF",
        "MPPLPAPLPAONE 000000000009100000000000000912FF",
        "MPPLPAPLPATWO 000000000009130000000000000913FF",
        "EPPLPAPLPAALI 00000000000910100000000000091010",
        "MMMLPANIPMOD  000000000009800000000000000981FF",
        "AX0001JOBA    00000000000030000000000000003000",
        "AX0003JOBB    00000000000031000000000000003100",
        "AX0004JOBC    00000000000032000000000000003200",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (i, &(_, asid, _, job, prog, alias, _)) in SPACES.iter().enumerate() {
        let v = v(i);
        want.push(format!(
            "MX{asid:04X}{prog:<8}{v:016X}{:016X}{job:<8}",
            v + 0x1FF
        ));
        want.push(format!(
            "EX{asid:04X}{alias:<8}{:016X}{:016X}{job:<8}",
            v + 0x10,
            v + 0x10
        ));
    }
    want.sort();
    want
}

#[test]
fn walks_lpa_and_every_address_space() {
    let s = mvs(false);
    let (got, notes) = lines(&real(&s), &MapFilter::default());
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(got, expected(private_real), "{got:#?}");
    // The reader reads them back (in the wide layout of the .MAPX), job names included.
    let m = hcpumf_formats::map::parse(&format!("I MODE 64-BIT\n{}", got.join("\n")));
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.boundaries.len(), 5);
    assert_eq!(m.jobs.len(), 3);
    let bprog = m.module_at(3, private_real(1) + 0x20).expect("BPROG");
    assert_eq!(
        (bprog.name.as_str(), bprog.job.as_deref()),
        ("BPROG", Some("JOBB"))
    );
    let nip = m.module_at(3, 0x9_8010).expect("NIPMOD");
    assert_eq!((nip.area, nip.asid, nip.job.as_deref()), ('M', 0, None));
}

#[test]
fn s370_private_areas_are_read_through_their_own_segment_tables() {
    // The three programs, their ASXBs, TCBs and CDEs all at the same virtual addresses, each
    // address space's in its own frames: whichever address space CPU 0 last ran, each
    // module is found through its own ASCBSTOR.
    let s = mvs(true);
    for cpu_in in 0..3 {
        let (got, notes) = lines(&s370(&s, cpu_in), &MapFilter::default());
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(
            got,
            expected(|_| 0x20000),
            "CPU in space {cpu_in}: {got:#?}"
        );
    }
    // The frames differ: the same virtual address reads each program's own bytes.
    for (i, &(.., prog, _, _)) in SPACES.iter().enumerate() {
        let own = s370(&s, i);
        assert_eq!(own.translate(0x20000), Some(private_real(i)));
        assert_eq!(own.name(0x20000).unwrap().trim_end(), prog);
    }
    let walked = lines(&s370(&s, 0), &MapFilter::default()).0;
    let m = hcpumf_formats::map::parse(&format!("I MODE 64-BIT\n{}", walked.join("\n")));
    let at = |asid| m.module_at(asid, 0x20100).map(|e| e.name.clone());
    assert_eq!(
        (at(1), at(3), at(4), at(2)),
        (
            Some("APROG".into()),
            Some("BPROG".into()),
            Some("CPROG".into()),
            None
        )
    );
}

#[test]
fn mapasid_and_mapjob_select_address_spaces() {
    let s = mvs(true);
    let space = s370(&s, 0);
    let mapped = |f: &MapFilter| {
        let (recs, notes) = walk(&space, f);
        assert!(notes.is_empty(), "{notes:?}");
        let mut a: Vec<u16> = recs
            .iter()
            .filter(|r| r.area == 'X')
            .map(|r| r.asid)
            .collect();
        a.dedup();
        let common = recs.iter().filter(|r| r.area != 'X').count();
        (a, common)
    };
    // The common area: 5 boundaries and the 4 LPA records.
    assert_eq!(mapped(&MapFilter::default()), (vec![1, 3, 4], 9));
    let only_3 = MapFilter {
        asids: Some(vec![3]),
        jobs: vec![],
    };
    assert_eq!(mapped(&only_3), (vec![3], 9), "the common area stays");
    let jobc = MapFilter {
        asids: None,
        jobs: vec!["JOBC".into()],
    };
    assert_eq!(mapped(&jobc), (vec![4], 9));
    let both = MapFilter {
        asids: Some(vec![1]),
        jobs: vec!["JOBC".into()],
    };
    assert_eq!(mapped(&both), (vec![1, 4], 9));
}

#[test]
fn program_parameter_names_task_and_address_space() {
    let s = mvs(true);
    assert_eq!(
        program_parameter_in(&s370(&s, 0)),
        (0x2_1100u64 << 32) | (1 << 16)
    );
}

#[test]
fn the_psa_describes_the_space_only_when_its_ascb_has_the_cpus_segment_table() {
    // PSAAOLD is JOBA's ASCB (ASCBSTOR = stor(0)). A CPU seen in JOBA agrees with the PSA; a
    // CPU seen in JOBB (its registers read before its dispatcher switched to JOBA) does not,
    // and the provider says so with the parameter it read.
    let s = mvs(true);
    assert!(psa_describes_space(&s370(&s, 0), 0));
    assert!(!psa_describes_space(&s370(&s, 1), 0));
    let view = CpuView {
        arch: Arch::S370,
        dat: true,
        cr0: u64::from(CR0_4K_64K),
        ..CpuView::default()
    };
    let gpp = (0x2_1100u64 << 32) | (1 << 16);
    assert_eq!(
        program_parameter(&s, &view, 0, u64::from(stor(0)), true),
        (gpp, true)
    );
    assert_eq!(
        program_parameter(&s, &view, 0, u64::from(stor(1)), true),
        (gpp, false)
    );
    // Unasked (the CPU's own thread), the check is not made.
    assert_eq!(
        program_parameter(&s, &view, 0, u64::from(stor(1)), false),
        (gpp, true)
    );
    // No ASCB, nothing to disagree with; DAT off is never checked.
    put32(&s, PSAAOLD, 0);
    assert!(psa_describes_space(&s370(&s, 1), 0));
    let real = Space {
        storage: &s,
        prefix: 0,
        dat: Dat::Real,
    };
    assert!(psa_describes_space(&real, 0));
}

#[test]
fn under_esa390_dat_the_psa_describes_the_space_whose_asid_is_primary() {
    // ESA/390 loads CR1 from the ASN-second-table entry, not the ASCB: the check compares
    // CR4's primary ASN with the current ASCB's ASCBASID. The first megabyte V=R: one
    // segment-table entry (STD at 0xF0000, length 0: 16 entries) and a page table of 256
    // entries at 0xF1000.
    let s = mvs(false);
    put32(&s, 0xF0000, 0xF1000 | 0xF);
    for p in 1..16u32 {
        put32(&s, 0xF0000 + 4 * u64::from(p), 0x20);
    }
    for p in 0..256u32 {
        put32(&s, 0xF1000 + 4 * u64::from(p), p << 12);
    }
    let esa = Space {
        storage: &s,
        prefix: 0,
        dat: Dat::Esa { cr1: 0xF0000 },
    };
    put32(&s, PSAAOLD, SPACES[1].2 as u32);
    assert!(psa_describes_space(&esa, 3));
    assert!(!psa_describes_space(&esa, 1));
    // The provider reads the primary ASN from the view's CR4 (bits 48-63 of the register).
    let view = CpuView {
        arch: Arch::Esa390,
        dat: true,
        cr4: 0x0000_0000_0001_0001,
        ..CpuView::default()
    };
    assert!(!program_parameter(&s, &view, 0, 0xF0000, true).1);
    let view = CpuView { cr4: 3, ..view };
    assert!(program_parameter(&s, &view, 0, 0xF0000, true).1);
    // No ASCB: nothing to disagree with.
    put32(&s, PSAAOLD, 0);
    assert!(psa_describes_space(&esa, 1));
}

#[test]
fn address_spaces_without_storage_are_noted_and_skipped() {
    // JOBB's ASCBSTOR is zero; JOBC is swapped out (its private segment invalid): each gets
    // its A record and a note, the others are mapped as before.
    let s = mvs(true);
    put32(&s, 0x3100 + ASCBSTOR, 0);
    put32(&s, u64::from(stor(2)) + 2 * 4, 1);
    let (got, notes) = lines(&s370(&s, 0), &MapFilter::default());
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].contains("ASID 0003 (JOBB): ASCBSTOR is zero"),
        "{notes:?}"
    );
    assert!(
        notes[1].contains("ASID 0004 (JOBC): ASXB 00021000 not addressable (swapped out?)"),
        "{notes:?}"
    );
    let want: Vec<String> = expected(|_| 0x20000)
        .into_iter()
        .filter(|l| !l.starts_with("MX0003") && !l.starts_with("EX0003"))
        .filter(|l| !l.starts_with("MX0004") && !l.starts_with("EX0004"))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_loop_in_a_tcb_queue_ends_with_a_note() {
    // JOBA's subtask points back to the job step, and ASXBLTCB names a TCB not on the queue.
    let s = mvs(true);
    put32(&s, private_real(0) + 0x1200 + TCBTCB, 0x2_1100);
    put32(&s, private_real(0) + 0x1000 + ASXBLTCB, 0x2_1F00);
    let (got, notes) = lines(&s370(&s, 1), &MapFilter::default());
    assert_eq!(
        notes,
        vec!["ASID 0001 (JOBA): loop in the TCB queue at TCB 00021100".to_string()]
    );
    // What the walk found before the loop stays.
    assert_eq!(got, expected(|_| 0x20000));
}

#[test]
fn an_lpa_directory_without_end_is_bounded() {
    // The end entry overwritten: the walk reads on through zeros (no records) and stops after
    // MAX_LPDE entries; what it found is kept.
    let s = MemStorage::new(0x40_0000);
    let small = mvs(false);
    s.write(AbsAddr(0), &small.snapshot()).unwrap();
    put_name(&s, 0x9_0000 + 3 * LPDE_LEN + LPDENAME, "NOTEND");
    let (got, notes) = lines(&real(&s), &MapFilter::default());
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("LPA directory at 00090000: no end entry (name X'FF') in 65536 entries"),
        "{notes:?}"
    );
    assert_eq!(got, expected(private_real));
    // In storage that ends first, the directory ends where storage does.
    put_name(&small, 0x9_0000 + 3 * LPDE_LEN + LPDENAME, "NOTEND");
    let (_, notes) = lines(&real(&small), &MapFilter::default());
    assert!(
        notes.len() == 1 && notes[0].contains("not addressable"),
        "{notes:?}"
    );
}

#[test]
fn cde_flags_decide_what_is_mapped() {
    let s = mvs(false);
    let jpq = private_real(0) + 0x1300;
    // A minor CDE whose entry point is not relocated yet: left out. A major without an
    // extent list: its entry point.
    put8(&s, jpq + 0x40 + CDATTR2, 0);
    put8(&s, jpq + CDATTR2, 0);
    let (got, notes) = lines(&real(&s), &MapFilter::default());
    assert!(notes.is_empty(), "{notes:?}");
    assert!(!got.iter().any(|l| l.contains("AALIAS")), "{got:#?}");
    assert!(
        got.contains(&"EX0001APROG   00000000000400000000000000040000JOBA    ".to_string()),
        "{got:#?}"
    );
    // Without the directory, the in-use PLPA module of the LPA queue is mapped from its CDE.
    put8(&s, 0x9_0000 + LPDENAME, 0xFF);
    let (got, _) = lines(&real(&s), &MapFilter::default());
    assert!(
        got.contains(&"MPPLPAPLPAONE 000000000009100000000000000912FF".to_string()),
        "{got:#?}"
    );
    assert!(!got.iter().any(|l| l.contains("PLPATWO")));
}

#[test]
fn hostile_chains_end_with_a_note() {
    let s = mvs(false);
    // The CDE chains to itself; the ASVT claims millions of entries beyond storage; the
    // storage boundaries are out of order.
    put32(&s, 0x5000, 0x5000);
    put32(&s, 0x1000 + CVTSHRVM, 0x1000);
    put32(&s, 0x2000 + ASVTMAXU, 0x7FFF_FFFF);
    let (_recs, notes) = walk(&real(&s), &MapFilter::default());
    assert!(
        notes.iter().any(|n| n.contains("active LPA queue: loop")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("only the first 4096")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("no storage boundaries")),
        "{notes:?}"
    );
    // A job pack queue that loops; a TCB pointer into nowhere.
    let s = mvs(false);
    put32(
        &s,
        private_real(0) + 0x1380,
        (private_real(0) + 0x1300) as u32,
    );
    put32(&s, private_real(1) + 0x1000 + ASXBFTCB, 0x7F00_0000);
    let (_recs, notes) = walk(&real(&s), &MapFilter::default());
    assert_eq!(
        notes,
        vec![
            "ASID 0001 (JOBA): job pack queue: loop at CDE 00041300".to_string(),
            "ASID 0003 (JOBB): TCB 7F000000 not addressable (swapped out?)".to_string()
        ]
    );
    // No CVT at all.
    let empty = MemStorage::new(0x1000);
    let (recs, notes) = walk(&real(&empty), &MapFilter::default());
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
            cr0: CR0_4K_64K,
            cr1: 0x0001_0000,
        },
    };
    assert_eq!(space.translate(0x12345), Some(0x23345));
    assert_eq!(space.translate(0x02345), None);
    // Another address space's segment table, the same page sizes; DAT off ignores it.
    assert!(space.address_space(0).is_none());
    let other = space.address_space(0x0002_0000).expect("nonzero STOR");
    assert_eq!(
        other.dat,
        Dat::S370 {
            cr0: CR0_4K_64K,
            cr1: 0x0002_0000
        }
    );
    assert_eq!(real(&s).address_space(0).map(|r| r.dat), Some(Dat::Real));
}

/// I SYS and I SMFI: the SMF identifier through CVTSMCA (CVT+X'C4') and SMCASID (SMCA+X'10');
/// none when the CVT has no SMCA or its identifier is not a name.
#[test]
fn the_smf_identifier_names_the_system() {
    let s = mvs(false);
    assert_eq!(super::smf_id(&real(&s)), None, "no SMCA");
    put32(&s, 0x1000 + CVTSMCA, 0x5000);
    for (i, c) in [0xC8u8, 0xC5, 0xD9, 0xC3].iter().enumerate() {
        put8(&s, 0x5000 + SMCASID + i as u64, *c);
    }
    assert_eq!(super::smf_id(&real(&s)).as_deref(), Some("HERC"));
    put8(&s, 0x5000 + SMCASID, 0x00);
    assert_eq!(super::smf_id(&real(&s)), None, "not a name");
}

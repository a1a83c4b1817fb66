//! MVS awareness for host-driven collection: the guest program parameter z/OS's dispatcher
//! would load with LPP (task and home address space), and a HIS `.MAP` built from the
//! guest's own control blocks, for MVS 3.8J (S/370) and later MVS (ESA/390) guests.
//!
//! Control-block offsets are those of the MVS 3.8J macros (IHAPSA, CVT, IHAASVT, IHAASCB,
//! IHACDE, IHAXTLST), unchanged in later MVS for these fields:
//! PSA: FLCCVT X'10', PSATOLD X'21C', PSAAOLD X'224'; CVT: CVTNUCB X'80' (lowest address
//! not in the nucleus), CVTMZ00 X'A4' (highest virtual address), CVTQLPAQ X'BC', CVTLPDIA
//! X'168' (LPA directory: start of the PLPA), CVTSHRVM X'1A0' (start of the CSA), CVTASVT X'22C';
//! ASVT: ASVTMAXU X'204', ASVTENTY X'210' (entries with X'80000000' are available);
//! ASCB: ASCBASID X'24', ASCBJBNI X'AC', ASCBJBNS X'B0'; TCB: TCBJPQ X'2C' (kept in the job
//! step TCB), TCBJSTCB X'7C' (the job step TCB);
//! CDE: CDCHAIN X'0', CDNAME X'8', CDENTPT X'10', CDXLMJP X'14', CDATTR X'1C' (CDMIN X'04');
//! XTLST: length X'8' (high bit ends the list), address X'C'.
//!
//! Every pointer is translated and bounds-checked; bad pointers, loops and unmapped storage
//! end the walk with a note, never a crash.

use crate::cpu::{Arch, CpuView};
use crate::his::map::MapEntry;
use crate::storage::{AbsAddr, GuestStorage};
use std::collections::HashSet;

const FLCCVT: u64 = 0x10;
const PSATOLD: u64 = 0x21C;
const PSAAOLD: u64 = 0x224;
const CVTNUCB: u64 = 0x80;
const CVTMZ00: u64 = 0xA4;
const CVTQLPAQ: u64 = 0xBC;
const CVTLPDIA: u64 = 0x168;
const CVTSHRVM: u64 = 0x1A0;
const CVTASVT: u64 = 0x22C;
const ASVTMAXU: u64 = 0x204;
const ASVTENTY: u64 = 0x210;
const ASVTAVAI: u32 = 0x8000_0000;
const ASCBASID: u64 = 0x24;
const ASCBJBNI: u64 = 0xAC;
const ASCBJBNS: u64 = 0xB0;
const TCBJPQ: u64 = 0x2C;
const TCBJSTCB: u64 = 0x7C;
const CDNAME: u64 = 0x08;
const CDENTPT: u64 = 0x10;
const CDXLMJP: u64 = 0x14;
const CDATTR: u64 = 0x1C;
const CDMIN: u8 = 0x04;
/// Walks stop after this many steps: a loop in a chain ends here.
const MAX_WALK: usize = 4096;

/// Dynamic address translation of the guest, as far as MVS awareness needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dat {
    /// DAT off: virtual = real.
    Real,
    /// System/370 DAT with the CR0 page/segment size controls and CR1 segment-table
    /// designation (32-bit values).
    S370 { cr0: u32, cr1: u32 },
    /// ESA/390 DAT (primary space, CR1 = STD).
    Esa { cr1: u32 },
}

/// A view of the guest's virtual storage through its prefix and DAT.
pub struct Space<'a> {
    pub storage: &'a dyn GuestStorage,
    pub prefix: u64,
    pub dat: Dat,
}

impl<'a> Space<'a> {
    /// The space of the CPU a view was taken on.
    pub fn of(storage: &'a dyn GuestStorage, view: &CpuView, prefix: u64, cr1: u64) -> Space<'a> {
        let dat = if !view.dat {
            Dat::Real
        } else {
            match view.arch {
                Arch::S370 => Dat::S370 {
                    cr0: view.cr0 as u32,
                    cr1: cr1 as u32,
                },
                Arch::Esa390 => Dat::Esa { cr1: cr1 as u32 },
                // 64-bit DAT is not walked: z/OS guests load their own program parameter.
                Arch::Z => Dat::Real,
            }
        };
        Space {
            storage,
            prefix,
            dat,
        }
    }

    /// Real to absolute (prefixing).
    pub fn absolute(&self, real: u64) -> u64 {
        let page = real & !0xFFF;
        if page == 0 {
            real + self.prefix
        } else if page == self.prefix {
            real - self.prefix
        } else {
            real
        }
    }

    fn real_u32(&self, real: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.storage
            .read(AbsAddr(self.absolute(real)), &mut b)
            .ok()?;
        Some(u32::from_be_bytes(b))
    }

    fn real_u16(&self, real: u64) -> Option<u16> {
        let mut b = [0u8; 2];
        self.storage
            .read(AbsAddr(self.absolute(real)), &mut b)
            .ok()?;
        Some(u16::from_be_bytes(b))
    }

    /// Translate a virtual address to real, or None if it is not mapped.
    pub fn translate(&self, va: u64) -> Option<u64> {
        match self.dat {
            Dat::Real => Some(va & 0x7FFF_FFFF),
            Dat::S370 { cr0, cr1 } => {
                let va = va & 0x00FF_FFFF;
                // CR0 bits 8-9: page size (01 2K, 10 4K); bits 11-12: segment size (00 64K, 10 1M).
                let (page_shift, pte_invalid, pfra_shift) = match (cr0 >> 22) & 3 {
                    1 => (11u32, 0x0004u16, 3u32),
                    2 => (12u32, 0x0008u16, 4u32),
                    _ => return None,
                };
                let seg_shift = match (cr0 >> 19) & 3 {
                    0 => 16u32,
                    2 => 20u32,
                    _ => return None,
                };
                let sto = u64::from(cr1 & 0x00FF_FFC0);
                let stl = u64::from(cr1 >> 24);
                let sx = va >> seg_shift;
                // Segment-table length in units of 16 entries (64 bytes).
                if sx > (stl + 1) * 16 - 1 {
                    return None;
                }
                let ste = self.real_u32(sto + sx * 4)?;
                if ste & 1 != 0 {
                    return None;
                }
                let pto = u64::from(ste & 0x00FF_FFF8);
                let ptl = u64::from(ste >> 28);
                let px = (va & ((1 << seg_shift) - 1)) >> page_shift;
                let entries_per_unit = (1u64 << (seg_shift - page_shift)) / 16;
                if px >= (ptl + 1) * entries_per_unit.max(1) {
                    return None;
                }
                let pte = self.real_u16(pto + px * 2)?;
                if pte & pte_invalid != 0 {
                    return None;
                }
                let frame = u64::from(pte >> pfra_shift) << page_shift;
                Some(frame | (va & ((1 << page_shift) - 1)))
            }
            Dat::Esa { cr1 } => {
                let va = va & 0x7FFF_FFFF;
                let sto = u64::from(cr1 & 0x7FFF_F000);
                let stl = u64::from(cr1 & 0x7F);
                let sx = va >> 20;
                if sx > (stl + 1) * 16 - 1 {
                    return None;
                }
                let ste = self.real_u32(sto + sx * 4)?;
                if ste & 0x20 != 0 {
                    return None;
                }
                let pto = u64::from(ste & 0x7FFF_FFC0);
                let ptl = u64::from(ste & 0xF);
                let px = (va >> 12) & 0xFF;
                if px >= (ptl + 1) * 16 {
                    return None;
                }
                let pte = self.real_u32(pto + px * 4)?;
                if pte & 0x400 != 0 {
                    return None;
                }
                Some(u64::from(pte & 0x7FFF_F000) | (va & 0xFFF))
            }
        }
    }

    /// Fetch `buf.len()` bytes at a virtual address (page by page).
    pub fn read(&self, va: u64, buf: &mut [u8]) -> Option<()> {
        let mut done = 0usize;
        while done < buf.len() {
            let a = va + done as u64;
            let real = self.translate(a)?;
            let in_page = (0x800 - (a & 0x7FF)) as usize;
            let n = in_page.min(buf.len() - done);
            self.storage
                .read(AbsAddr(self.absolute(real)), &mut buf[done..done + n])
                .ok()?;
            done += n;
        }
        Some(())
    }

    /// A fullword at a virtual address.
    pub fn u32(&self, va: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.read(va, &mut b)?;
        Some(u32::from_be_bytes(b))
    }

    /// A 31-bit pointer at a virtual address (0 is no pointer).
    pub fn ptr(&self, va: u64) -> Option<u64> {
        self.u32(va)
            .map(|p| u64::from(p & 0x7FFF_FFFF))
            .filter(|&p| p != 0)
    }

    /// A halfword at a virtual address.
    pub fn u16(&self, va: u64) -> Option<u16> {
        let mut b = [0u8; 2];
        self.read(va, &mut b)?;
        Some(u16::from_be_bytes(b))
    }

    /// An 8-character EBCDIC name at a virtual address, as ASCII (unprintables as '.').
    pub fn name(&self, va: u64) -> Option<String> {
        let mut b = [0u8; 8];
        self.read(va, &mut b)?;
        Some(b.iter().map(|&c| ebcdic_char(c)).collect())
    }
}

/// EBCDIC (code page 037) letters, digits and the national characters used in MVS names.
pub fn ebcdic_char(c: u8) -> char {
    match c {
        0x40 => ' ',
        0x5C => '*',
        0x4B => '.',
        0x5B => '$',
        0x7B => '#',
        0x7C => '@',
        0x6D => '_',
        0x60 => '-',
        0xC1..=0xC9 => (b'A' + (c - 0xC1)) as char,
        0xD1..=0xD9 => (b'J' + (c - 0xD1)) as char,
        0xE2..=0xE9 => (b'S' + (c - 0xE2)) as char,
        0xF0..=0xF9 => (b'0' + (c - 0xF0)) as char,
        0x81..=0x89 => (b'a' + (c - 0x81)) as char,
        0x91..=0x99 => (b'j' + (c - 0x91)) as char,
        0xA2..=0xA9 => (b's' + (c - 0xA2)) as char,
        _ => '.',
    }
}

/// The guest program parameter the z/OS dispatcher would load for the running work unit
/// (z/OS "Sampling function output in a .SMP file"): bit 0 W = 0, bits 8-31 TCB address,
/// bit 32 S = 0 (task mode), bits 33-47 home ASID, bits 48-63 task token (zero: MVS 3.8J
/// has none). Zero when the PSA does not lead to a TCB and an ASCB.
pub fn program_parameter_in(space: &Space) -> u64 {
    let tcb = space.real_u32(PSATOLD).unwrap_or(0) & 0x00FF_FFFF;
    let ascb = space.real_u32(PSAAOLD).unwrap_or(0) & 0x7FFF_FFFF;
    if ascb == 0 {
        return 0;
    }
    let asid = space.u16(u64::from(ascb) + ASCBASID).unwrap_or(0) & 0x7FFF;
    (u64::from(tcb) << 32) | (u64::from(asid) << 16)
}

/// Program parameter for a host sample on the CPU of `view`.
pub fn program_parameter(view: &CpuView, prefix: u64, cr1: u64) -> u64 {
    let Some(host) = crate::runtime::host() else {
        return 0;
    };
    let Some(storage) = crate::hoststore::HostStorage::new(host) else {
        return 0;
    };
    program_parameter_in(&Space::of(&storage, view, prefix, cr1))
}

/// Walk the guest's control blocks: address spaces (A records) from the ASVT, modules of the
/// active LPA queue and of the current task's job pack queue (M records). Returns the records
/// and notes on anything that stopped a walk.
pub fn walk(space: &Space) -> (Vec<MapEntry>, Vec<String>) {
    let mut recs = Vec::new();
    let mut notes = Vec::new();
    let Some(cvt) = space.real_u32(FLCCVT).map(|v| u64::from(v & 0x7FFF_FFFF)) else {
        notes.push("PSA not addressable".into());
        return (recs, notes);
    };
    if cvt == 0 {
        notes.push("no CVT (FLCCVT is zero): not an MVS guest".into());
        return (recs, notes);
    }
    boundaries(space, cvt, &mut recs, &mut notes);
    // Address spaces.
    match space.ptr(cvt + CVTASVT) {
        None => notes.push(format!("CVTASVT at CVT {cvt:08X} not addressable or zero")),
        Some(asvt) => {
            let maxu = space.u32(asvt + ASVTMAXU).unwrap_or(0).min(MAX_WALK as u32);
            for i in 0..maxu {
                let Some(e) = space.u32(asvt + ASVTENTY + 4 * u64::from(i)) else {
                    notes.push(format!("ASVT entry {i} not addressable"));
                    break;
                };
                if e & ASVTAVAI != 0 || e == 0 {
                    continue;
                }
                let ascb = u64::from(e & 0x7FFF_FFFF);
                let Some(asid) = space.u16(ascb + ASCBASID) else {
                    notes.push(format!("ASCB {ascb:08X} not addressable"));
                    continue;
                };
                let job = space
                    .ptr(ascb + ASCBJBNI)
                    .or_else(|| space.ptr(ascb + ASCBJBNS))
                    .and_then(|p| space.name(p))
                    .unwrap_or_else(|| "*UNKNOWN".into());
                recs.push(MapEntry {
                    kind: 'A',
                    area: 'X',
                    asid,
                    name: job.trim_end().to_string(),
                    start: ascb,
                    end: ascb,
                });
            }
        }
    }
    // Active link pack area queue (common area).
    if let Some(head) = space.ptr(cvt + CVTQLPAQ).and_then(|p| space.ptr(p)) {
        walk_cdes(
            space,
            head,
            'C',
            0,
            &mut recs,
            &mut notes,
            "active LPA queue",
        );
    }
    // Job pack queue of the current task's job step (the job step TCB holds it), in the
    // current address space.
    let tcb = space.real_u32(PSATOLD).unwrap_or(0) & 0x00FF_FFFF;
    let ascb = space.real_u32(PSAAOLD).unwrap_or(0) & 0x7FFF_FFFF;
    if tcb != 0 {
        let asid = if ascb != 0 {
            space.u16(u64::from(ascb) + ASCBASID).unwrap_or(0)
        } else {
            0
        };
        let tcb = u64::from(tcb);
        let jstcb = space.ptr(tcb + TCBJSTCB).unwrap_or(tcb);
        if let Some(jpq) = space.ptr(jstcb + TCBJPQ) {
            walk_cdes(
                space,
                jpq,
                'X',
                asid,
                &mut recs,
                &mut notes,
                "job pack queue",
            );
        }
    }
    (recs, notes)
}

/// B records: the virtual-storage areas MVS 3.8J's CVT describes, in address order: the
/// nucleus (from 0 to CVTNUCB), the private area (up to CVTSHRVM), the CSA (up to the LPA
/// directory, CVTLPDIA) and the link pack and system queue areas above it (to CVTMZ00; the
/// boundary between them is in the GDA, which is not read). Values that are not in that
/// order give a note instead.
fn boundaries(space: &Space, cvt: u64, recs: &mut Vec<MapEntry>, notes: &mut Vec<String>) {
    let field = |off: u64| space.u32(cvt + off).map(|v| u64::from(v & 0x7FFF_FFFF));
    let (Some(nucb), Some(shrvm), Some(lpdia), Some(mz00)) = (
        field(CVTNUCB),
        field(CVTSHRVM),
        field(CVTLPDIA),
        field(CVTMZ00),
    ) else {
        notes.push(format!("CVT {cvt:08X}: storage boundaries not addressable"));
        return;
    };
    if !(0 < nucb && nucb <= shrvm && shrvm <= lpdia && lpdia <= mz00) {
        notes.push(format!(
            "CVT {cvt:08X}: no storage boundaries (CVTNUCB {nucb:X}, CVTSHRVM {shrvm:X}, \
             CVTLPDIA {lpdia:X}, CVTMZ00 {mz00:X} not in ascending order)"
        ));
        return;
    }
    for (name, start, end) in [
        ("NUC", 0, nucb),
        ("PRIVATE", nucb, shrvm),
        ("CSA", shrvm, lpdia),
        ("LPA+SQA", lpdia, mz00 + 1),
    ] {
        if end > start {
            recs.push(MapEntry {
                kind: 'B',
                area: ' ',
                asid: 0,
                name: name.into(),
                start,
                end: end - 1,
            });
        }
    }
}

fn walk_cdes(
    space: &Space,
    first: u64,
    area: char,
    asid: u16,
    recs: &mut Vec<MapEntry>,
    notes: &mut Vec<String>,
    what: &str,
) {
    let mut seen = HashSet::new();
    let mut cde = first;
    for _ in 0..MAX_WALK {
        if !seen.insert(cde) {
            notes.push(format!("{what}: loop at CDE {cde:08X}"));
            return;
        }
        let (Some(name), Some(attr)) = (space.name(cde + CDNAME), {
            let mut b = [0u8; 1];
            space.read(cde + CDATTR, &mut b).map(|_| b[0])
        }) else {
            notes.push(format!("{what}: CDE {cde:08X} not addressable"));
            return;
        };
        if attr & CDMIN != 0 {
            // Minor CDE: an alias, whose entry point lies in its major CDE's module.
            if let Some(ep) = space.ptr(cde + CDENTPT) {
                recs.push(MapEntry {
                    kind: 'E',
                    area,
                    asid,
                    name: name.trim_end().to_string(),
                    start: ep,
                    end: ep,
                });
            }
        } else {
            // Major CDE: its extent list gives the load address and length.
            if let Some(xl) = space.ptr(cde + CDXLMJP) {
                let len = space.u32(xl + 8).map(|l| u64::from(l & 0x00FF_FFFF));
                let at = space.ptr(xl + 12);
                if let (Some(len), Some(at)) = (len, at) {
                    if len > 0 {
                        recs.push(MapEntry {
                            kind: 'M',
                            area,
                            asid,
                            name: name.trim_end().to_string(),
                            start: at,
                            end: at + len - 1,
                        });
                    }
                } else {
                    notes.push(format!(
                        "{what}: extent list of {} unreadable",
                        name.trim_end()
                    ));
                }
            } else if let Some(ep) = space.ptr(cde + CDENTPT) {
                recs.push(MapEntry {
                    kind: 'E',
                    area,
                    asid,
                    name: name.trim_end().to_string(),
                    start: ep,
                    end: ep,
                });
            }
        }
        match space.ptr(cde) {
            Some(next) => cde = next,
            None => return,
        }
    }
    notes.push(format!("{what}: more than {MAX_WALK} entries, walk ended"));
}

/// Which address spaces a map covers (HIS MAPASID, MAPJOB): their A records and private-area
/// records; the common area is always mapped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapFilter {
    /// None: every address space (unless `jobs` names some).
    pub asids: Option<Vec<u16>>,
    pub jobs: Vec<String>,
}

impl MapFilter {
    /// Keep the records of the selected address spaces (and every common-area record).
    pub fn apply(&self, recs: Vec<MapEntry>) -> Vec<MapEntry> {
        if self.asids.is_none() && self.jobs.is_empty() {
            return recs;
        }
        let by_job: Vec<u16> = recs
            .iter()
            .filter(|r| r.kind == 'A' && self.jobs.contains(&r.name))
            .map(|r| r.asid)
            .collect();
        let selected = |asid: u16| {
            by_job.contains(&asid) || self.asids.as_ref().is_some_and(|a| a.contains(&asid))
        };
        recs.into_iter()
            .filter(|r| !(r.kind == 'A' || r.area == 'X') || selected(r.asid))
            .collect()
    }
}

/// The HIS-format .MAP text of the running guest (CPU 0's view), a short note, and the notes
/// on anything that stopped a walk.
pub fn map_text(filter: &MapFilter) -> (String, String, Vec<String>) {
    let (records, notes) = match guest_space_of_cpu0() {
        Some((recs, notes)) => (filter.apply(recs), notes),
        None => (Vec::new(), vec!["no CPU or storage to walk".to_string()]),
    };
    let m = crate::model::current();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, mo, d, h, mi, s) = crate::collect::civil(now);
    let doy = day_of_year(y, mo, d);
    let mut f = String::new();
    f.push_str("I SYS HERCULES\n");
    f.push_str("I OS MVS\n");
    f.push_str(&format!("I DATE{:02}{:03}\n", y % 100, doy));
    f.push_str(&format!("I TIME{h:02}{mi:02}{s:02}00\n"));
    f.push_str("I MAP V1R1\n");
    // The record layout's: 16 hexadecimal digits per address.
    f.push_str("I MODE 64-BIT\n");
    f.push_str(&format!("I MACH0000{:04X}\n", m.machine_type));
    for r in &records {
        f.push_str(&r.line());
        f.push('\n');
    }
    for n in &notes {
        f.push_str(&format!("I NOTE {n}\n"));
    }
    let note = format!("{} records, {} notes", records.len(), notes.len());
    (f, note, notes)
}

fn day_of_year(y: u64, m: u64, d: u64) -> u64 {
    const CUM: [u64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    CUM[(m.clamp(1, 12) - 1) as usize] + d + u64::from(leap && m > 2)
}

fn guest_space_of_cpu0() -> Option<(Vec<MapEntry>, Vec<String>)> {
    let host = crate::runtime::host()?;
    let storage = crate::hoststore::HostStorage::new(host)?;
    let snap = crate::runtime::last_view(0)?;
    let space = Space::of(&storage, &snap.0, snap.1, snap.2);
    Some(walk(&space))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real storage without DAT, prefix 0 (an MVS image laid out at its real addresses).
    fn real(storage: &dyn GuestStorage) -> Space<'_> {
        Space {
            storage,
            prefix: 0,
            dat: Dat::Real,
        }
    }
    use crate::storage::MemStorage;

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
}

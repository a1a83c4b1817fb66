//! The .MAP walk: address spaces (ASVT, ASCB), storage boundaries (CVT), and the modules of
//! the link pack area and the job pack queues (CDE chains, extent lists).

use super::blocks::*;
use super::space::Space;
use crate::his::map::MapEntry;
use std::collections::HashSet;

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
                    job: None,
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
                job: None,
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
                    job: None,
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
                            job: None,
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
                    job: None,
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

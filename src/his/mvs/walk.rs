//! The .MAP walk: storage boundaries (CVT), the link pack area (the LPA directory and the
//! active LPA queue), and every selected address space (ASVT, ASCB) with the modules of its
//! private area (ASXB, TCB queue, job pack queues), each read through its own segment table.
//!
//! What MVS 3.8J keeps in storage, and so what the map can show:
//! * pageable LPA: the LPA directory (CVTLPDIA), one LPDE per module (its extent inline) or
//!   alias; written with area P, place PLPA;
//! * the active LPA queue (CVTQLPAQ): CDEs of the modules NIP loaded (CDNIP: the fixed and
//!   modified LPA and NIP's own loads) and of the PLPA modules in use. MVS 3.8J keeps the
//!   FLPA/MLPA split only in NIP's work areas, so every CDNIP module is written with area M,
//!   place MLPA; the PLPA modules in use are already in the directory and are not repeated;
//! * the nucleus: no module map in storage (its CESD stays in SYS1.NUCLEUS), so only its
//!   boundary (B BDY RWNUC);
//! * private areas: each job step's job pack queue (the CDEs of what it loaded), area X with
//!   the ASID and the address-space name.

use super::blocks::*;
use super::space::Space;
use hcpumf_formats::map::MapEntry;
use std::collections::HashSet;

/// Walk the guest's control blocks from the PSA of `common` (the CPU's own view: the
/// common area is the same in every address space). Returns the records of the common area
/// and of the address spaces `filter` selects, and notes on anything that stopped a walk.
pub fn walk(common: &Space, filter: &MapFilter) -> (Vec<MapEntry>, Vec<String>) {
    let mut w = Walk {
        recs: Vec::new(),
        notes: Vec::new(),
        plpa_top: 0,
    };
    let Some(cvt) = common.real_u32(FLCCVT).map(|v| u64::from(v & 0x7FFF_FFFF)) else {
        w.notes.push("PSA not addressable".into());
        return (w.recs, w.notes);
    };
    if cvt == 0 {
        w.notes
            .push("no CVT (FLCCVT is zero): not an MVS guest".into());
        return (w.recs, w.notes);
    }
    let directory = w.lpa_directory(common, cvt);
    // The boundaries first, as HIS writes them; the PLPA's end is its highest module's.
    let modules = std::mem::take(&mut w.recs);
    w.boundaries(common, cvt);
    w.recs.extend(modules);
    // Active link pack area queue: CVTQLPAQ -> pointer -> newest CDE.
    if let Some(head) = common.ptr(cvt + CVTQLPAQ).and_then(|p| common.ptr(p)) {
        w.cdes(common, head, &Queue::Lpa(&directory));
    }
    w.address_spaces(common, cvt, filter);
    (w.recs, w.notes)
}

/// Which queue a CDE chain is: how its modules are written.
enum Queue<'d> {
    /// The active LPA queue; the names the LPA directory holds.
    Lpa(&'d HashSet<String>),
    /// A job pack queue of address space `asid`, job `job`.
    Jpq { asid: u16, job: &'d str },
}

struct Walk {
    recs: Vec<MapEntry>,
    notes: Vec<String>,
    /// The highest address the LPA directory and its modules occupy (the PLPA's end).
    plpa_top: u64,
}

impl Walk {
    fn push(&mut self, kind: char, area: char, asid: u16, name: &str, range: (u64, u64)) {
        self.recs.push(MapEntry {
            kind,
            area,
            asid,
            name: name.trim_end().to_string(),
            start: range.0,
            end: range.1,
            job: None,
        });
    }

    /// B records: the virtual-storage areas MVS 3.8J's CVT describes, in address order, with
    /// the names z/OS's HIS gives them (Redbook SG24-7857 Figure 4-8): RWNUC, the nucleus (0
    /// to CVTNUCB; MVS 3.8J's is one read-write area, so no RON); PRIVATE (to CVTSHRVM); CSA
    /// (to the LPA directory, CVTLPDIA); PLPA from the directory to its highest module's page;
    /// SQA from there to CVTMZ00 (PLPA and SQA are contiguous, the SQA on top: SHOWMVS; the
    /// exact split, and the CSA's end, are in the GDA, not read). Values that are not in that
    /// order give a note instead.
    fn boundaries(&mut self, space: &Space, cvt: u64) {
        let field = |off: u64| space.u32(cvt + off).map(|v| u64::from(v & 0x7FFF_FFFF));
        let (Some(nucb), Some(shrvm), Some(lpdia), Some(mz00)) = (
            field(CVTNUCB),
            field(CVTSHRVM),
            space.u32(cvt + CVTLPDIA).map(|v| u64::from(v & AL3)),
            field(CVTMZ00),
        ) else {
            self.notes
                .push(format!("CVT {cvt:08X}: storage boundaries not addressable"));
            return;
        };
        if !(0 < nucb && nucb <= shrvm && shrvm <= lpdia && lpdia <= mz00) {
            self.notes.push(format!(
                "CVT {cvt:08X}: no storage boundaries (CVTNUCB {nucb:X}, CVTSHRVM {shrvm:X}, \
                 CVTLPDIA {lpdia:X}, CVTMZ00 {mz00:X} not in ascending order)"
            ));
            return;
        }
        // The page after the PLPA's highest byte (the directory's, or a module's).
        let sqa = ((self.plpa_top.max(lpdia) | 0xFFF) + 1).min(mz00 + 1);
        for (name, start, end) in [
            ("RWNUC", 0, nucb),
            ("PRIVATE", nucb, shrvm),
            ("CSA", shrvm, lpdia),
            ("PLPA", lpdia, sqa),
            ("SQA", sqa, mz00 + 1),
        ] {
            if end > start {
                self.push('B', ' ', 0, name, (start, end - 1));
            }
        }
    }

    /// The pageable LPA from the LPA directory (CVTLPDIA): a major LPDE is a module with its
    /// extent inline, a minor LPDE an alias (an entry point). Returns the names it holds.
    fn lpa_directory(&mut self, space: &Space, cvt: u64) -> HashSet<String> {
        let mut names = HashSet::new();
        let Some(dir) = space.al3(cvt + CVTLPDIA) else {
            self.notes
                .push(format!("CVT {cvt:08X}: no LPA directory (CVTLPDIA)"));
            return names;
        };
        for i in 0..MAX_LPDE {
            let lpde = dir + i * LPDE_LEN;
            let (Some(first), Some(name), Some(attr)) = (
                space.byte(lpde + LPDENAME),
                space.name(lpde + LPDENAME),
                space.byte(lpde + LPDEATTR),
            ) else {
                self.notes.push(format!(
                    "LPA directory at {dir:08X}: entry {i} at {lpde:08X} not addressable"
                ));
                return names;
            };
            if first == 0xFF {
                self.plpa_top = self.plpa_top.max(lpde + LPDE_LEN - 1);
                return names;
            }
            let ep = space.ptr(lpde + LPDENTP);
            if attr & LPDEMIN != 0 {
                if let Some(ep) = ep {
                    self.push('E', 'P', 0, &name, (ep, ep));
                }
            } else {
                let len = space.u32(lpde + LPDEXTLN).map_or(0, |l| u64::from(l & AL3));
                match (len, space.al3(lpde + LPDEXTAD), ep) {
                    (1.., Some(at), _) => {
                        self.plpa_top = self.plpa_top.max(at + len - 1);
                        self.push('M', 'P', 0, &name, (at, at + len - 1));
                    }
                    (_, _, Some(ep)) => self.push('E', 'P', 0, &name, (ep, ep)),
                    _ => {}
                }
            }
            names.insert(name.trim_end().to_string());
        }
        self.notes.push(format!(
            "LPA directory at {dir:08X}: no end entry (name X'FF') in {MAX_LPDE} entries, walk ended"
        ));
        names
    }

    /// A CDE chain (the active LPA queue or a job pack queue) from `first`.
    fn cdes(&mut self, space: &Space, first: u64, queue: &Queue) {
        let what = match queue {
            Queue::Lpa(_) => "active LPA queue".to_string(),
            Queue::Jpq { asid, job } => format!("ASID {asid:04X} ({job}): job pack queue"),
        };
        let mut seen = HashSet::new();
        let mut cde = first;
        for _ in 0..MAX_WALK {
            if !seen.insert(cde) {
                self.notes.push(format!("{what}: loop at CDE {cde:08X}"));
                return;
            }
            let (Some(name), Some(attr), Some(attr2)) = (
                space.name(cde + CDNAME),
                space.byte(cde + CDATTR),
                space.byte(cde + CDATTR2),
            ) else {
                self.notes
                    .push(format!("{what}: CDE {cde:08X} not addressable"));
                return;
            };
            let place = match queue {
                // Being loaded: nothing to map yet.
                _ if attr & CDNIC != 0 => None,
                Queue::Lpa(_) if attr & CDNIP != 0 => Some(('M', 0, None)),
                // A PLPA module in use: the directory has it (written once, from there);
                // one the directory lacks (damaged, unreadable) is written from its CDE.
                Queue::Lpa(dir) if dir.contains(name.trim_end()) => None,
                Queue::Lpa(_) => Some(('P', 0, None)),
                Queue::Jpq { asid, job } => Some(('X', *asid, Some(*job))),
            };
            if let Some((area, asid, job)) = place {
                self.cde(space, cde, &name, attr, attr2, (area, asid, job), &what);
            }
            match space.ptr(cde) {
                Some(next) => cde = next,
                None => return,
            }
        }
        self.notes
            .push(format!("{what}: more than {MAX_WALK} entries, walk ended"));
    }

    /// The record of one CDE: a minor CDE is an alias (E at its entry point once relocated,
    /// CDRLC; before that its entry point means nothing and it is left out); a major CDE is a
    /// module (M over its extent when the extent list is built, CDXLE; else E at its entry
    /// point).
    #[allow(clippy::too_many_arguments)]
    fn cde(
        &mut self,
        space: &Space,
        cde: u64,
        name: &str,
        attr: u8,
        attr2: u8,
        (area, asid, job): (char, u16, Option<&str>),
        what: &str,
    ) {
        let ep = space.ptr(cde + CDENTPT);
        let range = if attr & CDMIN != 0 {
            match ep {
                Some(ep) if attr2 & CDRLC != 0 => Some(('E', ep, ep)),
                _ => None,
            }
        } else if attr2 & CDXLE != 0 {
            let xl = space.ptr(cde + CDXLMJP);
            let len = xl
                .and_then(|x| space.u32(x + XTLMSBLA))
                .map(|l| u64::from(l & AL3));
            match (len, xl.and_then(|x| space.ptr(x + XTLMSBAA))) {
                (Some(len), Some(at)) if len > 0 => Some(('M', at, at + len - 1)),
                (Some(_), Some(_)) => ep.map(|ep| ('E', ep, ep)),
                _ => {
                    self.notes.push(format!(
                        "{what}: extent list of {} unreadable",
                        name.trim_end()
                    ));
                    None
                }
            }
        } else {
            ep.map(|ep| ('E', ep, ep))
        };
        if let Some((kind, start, end)) = range {
            self.push(kind, area, asid, name, (start, end));
            if let Some(job) = job {
                if let Some(r) = self.recs.last_mut() {
                    r.job = Some(job.to_string());
                }
            }
        }
    }

    /// Address spaces from the ASVT: an A record each, and the private area of those
    /// `filter` selects.
    fn address_spaces(&mut self, common: &Space, cvt: u64, filter: &MapFilter) {
        let Some(asvt) = common.ptr(cvt + CVTASVT) else {
            self.notes
                .push(format!("CVTASVT at CVT {cvt:08X} not addressable or zero"));
            return;
        };
        let maxu = common.u32(asvt + ASVTMAXU).unwrap_or(0);
        if maxu as usize > MAX_WALK {
            self.notes.push(format!(
                "ASVT {asvt:08X}: ASVTMAXU {maxu}, only the first {MAX_WALK} entries walked"
            ));
        }
        for i in 0..maxu.min(MAX_WALK as u32) {
            let Some(e) = common.u32(asvt + ASVTENTY + 4 * u64::from(i)) else {
                self.notes.push(format!("ASVT entry {i} not addressable"));
                break;
            };
            if e & ASVTAVAI != 0 || e == 0 {
                continue;
            }
            let ascb = u64::from(e & 0x7FFF_FFFF);
            let Some(asid) = common.u16(ascb + ASCBASID) else {
                self.notes.push(format!("ASCB {ascb:08X} not addressable"));
                continue;
            };
            let stor = common.u32(ascb + ASCBSTOR).unwrap_or(0);
            let own = common.address_space(stor);
            // The job name may lie in the private area: read it there first.
            let name_at = |s: &Space| {
                s.ptr(ascb + ASCBJBNI)
                    .or_else(|| s.ptr(ascb + ASCBJBNS))
                    .and_then(|p| s.name(p))
            };
            let job = own
                .as_ref()
                .and_then(name_at)
                .or_else(|| name_at(common))
                .map(|n| n.trim_end().to_string())
                .unwrap_or_else(|| "*UNKNOWN".into());
            if !filter.selects(asid, &job) {
                continue;
            }
            self.push('A', 'X', asid, &job, (ascb, ascb));
            match own {
                Some(own) => self.private_area(common, &own, ascb, asid, &job),
                None => self.notes.push(format!(
                    "ASID {asid:04X} ({job}): ASCBSTOR is zero, private area not mapped"
                )),
            }
        }
    }

    /// The private area of one address space, read through its own segment table: the TCB
    /// queue (ASXBFTCB, chained by TCBTCB up to ASXBLTCB) and the job pack queue of each job
    /// step (TCBJSTCB) once.
    fn private_area(&mut self, common: &Space, own: &Space, ascb: u64, asid: u16, job: &str) {
        let what = format!("ASID {asid:04X} ({job})");
        let Some(asxb) = common.ptr(ascb + ASCBASXB) else {
            self.notes.push(format!(
                "{what}: no ASXB (ASCBASXB), private area not mapped"
            ));
            return;
        };
        let (Some(first), Some(last)) = (own.u32(asxb + ASXBFTCB), own.u32(asxb + ASXBLTCB)) else {
            self.notes.push(format!(
                "{what}: ASXB {asxb:08X} not addressable (swapped out?), private area not mapped"
            ));
            return;
        };
        let last = u64::from(last & 0x7FFF_FFFF);
        let mut tcb = u64::from(first & 0x7FFF_FFFF);
        let mut seen = HashSet::new();
        let mut steps = HashSet::new();
        let mut walked = 0;
        while tcb != 0 {
            if walked == MAX_WALK {
                self.notes.push(format!(
                    "{what}: more than {MAX_WALK} TCBs in the TCB queue, walk ended"
                ));
                return;
            }
            walked += 1;
            if !seen.insert(tcb) {
                self.notes
                    .push(format!("{what}: loop in the TCB queue at TCB {tcb:08X}"));
                return;
            }
            let Some(jstcb) = own.u32(tcb + TCBJSTCB) else {
                self.notes.push(format!(
                    "{what}: TCB {tcb:08X} not addressable (swapped out?)"
                ));
                return;
            };
            // Zero (or itself): the TCB is its own job step.
            let step = match u64::from(jstcb & AL3) {
                0 => tcb,
                s => s,
            };
            if steps.insert(step) {
                match own.u32(step + TCBJPQ) {
                    Some(jpq) if jpq & AL3 != 0 => {
                        self.cdes(own, u64::from(jpq & AL3), &Queue::Jpq { asid, job });
                    }
                    Some(_) => {}
                    None => self
                        .notes
                        .push(format!("{what}: job step TCB {step:08X} not addressable")),
                }
            }
            if tcb == last {
                return;
            }
            match own.u32(tcb + TCBTCB) {
                Some(next) => tcb = u64::from(next & 0x7FFF_FFFF),
                None => return,
            }
        }
    }
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
    /// Whether the address space `asid`, job `job`, is mapped.
    pub fn selects(&self, asid: u16, job: &str) -> bool {
        if self.asids.is_none() && self.jobs.is_empty() {
            return true;
        }
        self.jobs.iter().any(|j| j == job) || self.asids.as_ref().is_some_and(|a| a.contains(&asid))
    }
}

//! MVS awareness for host-driven collection: the guest program parameter z/OS's dispatcher
//! would load with LPP (task and home address space), and a HIS `.MAP` built from the
//! guest's own control blocks, for MVS 3.8J (S/370) and later MVS (ESA/390) guests.
//!
//! Control-block offsets ([`blocks`]) are those of the MVS 3.8J macros (IHAPSA, CVT, IHAASVT,
//! IHAASCB, IHAASXB, IKJTCB, IHACDE, IHALPDE, IHAXTLST), unchanged in later MVS for these
//! fields: PSA: FLCCVT X'10', PSATOLD X'21C', PSAAOLD X'224'; CVT: CVTNUCB X'80' (lowest
//! address not in the nucleus), CVTMZ00 X'A4' (highest virtual address), CVTQLPAQ X'BC',
//! CVTLPDIA X'168' (flag byte + AL3: the LPA directory, at the start of the PLPA), CVTSHRVM
//! X'1A0' (start of the CSA), CVTASVT X'22C'; ASVT: ASVTMAXU X'204', ASVTENTY X'210'
//! (entries with X'80000000' are available); ASCB: ASCBASID X'24', ASCBSTOR X'2C' (the
//! segment-table designation the dispatcher loads into CR1), ASCBASXB X'6C', ASCBJBNI X'AC',
//! ASCBJBNS X'B0'; ASXB: ASXBFTCB X'4', ASXBLTCB X'8'; TCB: TCBJPQ X'2C' (flag byte + AL3,
//! kept in the job step TCB), TCBTCB X'74' (next TCB of lower priority), TCBJSTCB X'7C'
//! (flag byte + AL3: the job step TCB); CDE: CDCHAIN X'0', CDNAME X'8', CDENTPT X'10',
//! CDXLMJP X'14', CDATTR X'1C' (CDNIP X'80', CDNIC X'40', CDMIN X'04'), CDATTR2 X'1D'
//! (CDXLE X'20', CDRLC X'10'); XTLST: length X'8', address X'C'; LPDE: 40 bytes, name X'8'
//! (X'FF' ends the directory), entry point X'10', LPDEATTR X'1C' (LPDEMIN X'04'), extent
//! length X'20' and address X'24'.
//!
//! The map's records and the chains they come from are described in [`walk`]. The common
//! area is read through the view of CPU 0 (prefix, CR0, CR1), each address space's private
//! area through its own segment table (ASCBSTOR). Every pointer is translated and
//! bounds-checked; bad pointers, loops and unmapped storage end the walk with a note, never
//! a crash.

pub mod blocks;
pub mod space;
pub mod walk;

pub use space::{ebcdic_char, Dat, Space};
pub use walk::{walk, MapFilter};

use crate::host::model;
use crate::host::run::last_view;
use crate::host::storage::HostStorage;
use blocks::{ASCBASID, ASCBSTOR, CVTSMCA, FLCCVT, PSAAOLD, PSATOLD, SMCASID};
use hcpumf_arch::cpu::CpuView;
use hcpumf_arch::storage::GuestStorage;
use hcpumf_formats::map::{info_record, MapEntry, WIDE_LAYOUT};

/// What the PSA says is running: PSATOLD's TCB, PSAAOLD's ASCB (0: none) and that ASCB's
/// ASCBASID (None when it cannot be read). Read once per sample, for the program parameter
/// and the address-space check alike.
struct Running {
    tcb: u32,
    ascb: u64,
    asid: Option<u16>,
}

fn running(space: &Space) -> Running {
    let tcb = space.real_u32(PSATOLD).unwrap_or(0) & 0x00FF_FFFF;
    let ascb = u64::from(space.real_u32(PSAAOLD).unwrap_or(0) & 0x7FFF_FFFF);
    let asid = if ascb == 0 {
        None
    } else {
        space.u16(ascb + ASCBASID)
    };
    Running { tcb, ascb, asid }
}

/// The guest program parameter the z/OS dispatcher would load for the running work unit
/// (z/OS "Sampling function output in a .SMP file"): bit 0 W = 0, bits 8-31 TCB address,
/// bit 32 S = 0 (task mode), bits 33-47 home ASID, bits 48-63 task token (zero: MVS 3.8J
/// has none). Zero when the PSA does not lead to a TCB and an ASCB.
pub fn program_parameter_in(space: &Space) -> u64 {
    parameter_of(&running(space))
}

fn parameter_of(r: &Running) -> u64 {
    if r.ascb == 0 {
        return 0;
    }
    let asid = r.asid.unwrap_or(0) & 0x7FFF;
    (u64::from(r.tcb) << 32) | (u64::from(asid) << 16)
}

/// Does the PSA describe the address space the CPU is in? A sample read from another thread
/// takes the CPU's registers first and the PSA after: when the CPU switched address spaces in
/// between, the PSA names the next one. Nothing to check without an ASCB (PSAAOLD) or DAT.
/// - S/370 DAT (MVS 3.8J): the current ASCB's ASCBSTOR is the CPU's CR1, which MVS 3.8J's
///   dispatcher loads from it (IEAVEDS0).
/// - ESA/390 DAT: CR1 comes from the ASN-second-table entry, not from the ASCB, so the
///   primary ASN is compared instead: CR4 bits 16-31 (`pasn`, read with the other
///   registers), against the current ASCB's ASCBASID. A unit of work is dispatched with its
///   home address space primary. In cross-memory mode (primary not home) they differ
///   without a switch: such a sample is declined too, and the tick, on the CPU's own thread,
///   takes it (slower, not wrong).
pub fn psa_describes_space(space: &Space, pasn: u16) -> bool {
    describes(space, &running(space), pasn)
}

fn describes(space: &Space, r: &Running, pasn: u16) -> bool {
    if r.ascb == 0 {
        return true;
    }
    match space.dat {
        Dat::S370 { cr1, .. } => space.u32(r.ascb + ASCBSTOR).is_none_or(|s| s == cr1),
        Dat::Esa { .. } => r.asid.is_none_or(|a| a == pasn),
        Dat::Real => true,
    }
}

/// Program parameter for a HIS run's sample of the CPU `view` describes (prefix, CR1, CR4),
/// and, with `check`, whether the PSA it comes from describes that CPU's address space
/// ([`psa_describes_space`]; true unchecked): the provider `host::run` calls (`mvs=yes`).
/// Only a sample taken from another thread asks for the check; it reads the PSA once for both.
pub fn program_parameter(
    storage: &dyn GuestStorage,
    view: &CpuView,
    prefix: u64,
    cr1: u64,
    check: bool,
) -> (u64, bool) {
    let space = Space::of(storage, view, prefix, cr1);
    let r = running(&space);
    // The primary ASN: CR4 bits 16-31 in ESA/390 (bits 48-63 of the 64-bit register).
    let pasn = (view.cr4 & 0xFFFF) as u16;
    (parameter_of(&r), !check || describes(&space, &r, pasn))
}

/// What the map of a run writes: IBM's `.MAP`, hcpumf's companion `.MAPX` (what IBM's layout
/// has no place for), a short note for the END message and the notes on anything that
/// stopped a walk.
pub struct MapTexts {
    pub map: String,
    pub extras: String,
    pub note: String,
    pub notes: Vec<String>,
}

/// The HIS-format .MAP text of the running guest (CPU 0's view) in IBM's layout (Redbook
/// SG24-7857 4.3.2): the `I` records the emulator can fill (SYS and SMFI: MVS 3.8J's SMF
/// identifier, its only system name; OS; DATE and TIME, local; MAP; MACH), then the B, M and
/// E records. The `.MAPX` has the rest: every address space's name (`A`), records with
/// addresses above 4 GB, and the notes (`I NOTE`). No `I FMID` (MVS 3.8J keeps none in
/// storage) and no `I LPID` (the plugin does not see Hercules' LPARNUM).
pub fn map_text(filter: &MapFilter) -> MapTexts {
    let (records, notes, smfid) = match guest_space_of_cpu0(filter) {
        Some(walked) => walked,
        None => (
            Vec::new(),
            vec!["no CPU or storage to walk".to_string()],
            None,
        ),
    };
    let m = model::current();
    let now = crate::his::localtime::local(std::time::SystemTime::now());
    let mut f = String::new();
    let mut info = |key: &str, value: &str| {
        f.push_str(&info_record(key, value));
        f.push('\n');
    };
    if let Some(id) = &smfid {
        info("SYS ", id);
        info("SMFI", id);
    }
    info("OS ", "MVS");
    info("DATE", &now.julian());
    info("TIME", &now.map_time());
    info("MAP ", "V1R1");
    info("MACH", &format!("0000{:04X}", m.machine_type));
    let mut x = format!("{WIDE_LAYOUT}\n");
    let mut extras = 0;
    for r in &records {
        match r.ibm_line() {
            Some(l) => {
                f.push_str(&l);
                f.push('\n');
            }
            None => {
                x.push_str(&r.wide_line());
                x.push('\n');
                extras += 1;
            }
        }
    }
    for n in &notes {
        x.push_str(&info_record("NOTE ", n));
        x.push('\n');
    }
    let note = format!(
        "{} records, {extras} in the .MAPX, {} notes",
        records.len(),
        notes.len()
    );
    MapTexts {
        map: f,
        extras: x,
        note,
        notes,
    }
}

/// The SMF system identifier (CVT -> CVTSMCA -> SMCASID, 4 EBCDIC characters), if it reads
/// as one.
fn smf_id(space: &Space) -> Option<String> {
    let cvt = u64::from(space.real_u32(FLCCVT)? & 0x7FFF_FFFF);
    let smca = space.ptr(cvt + CVTSMCA).filter(|&a| a != 0)?;
    let id: String = (0..4)
        .map(|i| space.byte(smca + SMCASID + i).map(ebcdic_char))
        .collect::<Option<String>>()?;
    let id = id.trim_end().to_string();
    (!id.is_empty() && id.chars().all(|c| c != '.')).then_some(id)
}

/// The walk from CPU 0's last view (its prefix, CR0 and CR1 give the common area), and the
/// SMF identifier.
type Walked = (Vec<MapEntry>, Vec<String>, Option<String>);
fn guest_space_of_cpu0(filter: &MapFilter) -> Option<Walked> {
    let storage = HostStorage::current()?;
    let snap = last_view(0)?;
    let space = Space::of(&storage, &snap.0, snap.1, snap.2);
    let (recs, notes) = walk(&space, filter);
    Some((recs, notes, smf_id(&space)))
}

#[cfg(test)]
mod tests;

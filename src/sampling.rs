//! The CPU-measurement sampling facility (SA23-2260, section 2, "CPU-Measurement Sampling
//! Facility" through "Sample-Data-Block Update Process"): the sampling control registers of
//! each CPU (state controls, maximum-buffer-size indicator S, host indicator H, sampling
//! interval, TEAR, DEAR), QUERY SAMPLING INFORMATION, LOAD SAMPLING CONTROLS, the sample
//! entries (BSDE format 0001, the emulator's DSDE format 8001, combined entries) and the
//! sample-data-block update process with its alerts.
//!
//! All guest storage is reached through [`GuestStorage`] (bounds-checked; an address the
//! configuration does not have is an *invalid entry address*), and the first 16 bytes of a
//! trailer are only ever changed with an interlocked update, so that a guest resetting them
//! with COMPARE DOUBLE AND SWAP on another CPU (as Linux does) never loses an update.

use crate::alerts::AlertBits;
use crate::counter::{program_transition_allowed, SetState};
use crate::cpu::CpuView;
use crate::model::MachineModel;
use crate::pgm::{Cc, ProgramException};
use crate::storage::{AbsAddr, GuestStorage, StorageError};
use bitflags::bitflags;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

bitflags! {
    /// The sampling-function-state control register plus S and H (plugin-internal packing).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct SamplingControls: u32 {
        /// A_s: basic-sampling authorization.
        const AS = 1 << 0;
        /// A_d: diagnostic-sampling authorization.
        const AD = 1 << 1;
        /// E_s: basic-sampling enable.
        const ES = 1 << 2;
        /// E_d: diagnostic-sampling enable.
        const ED = 1 << 3;
        /// C_s: basic-sampling activation.
        const CS = 1 << 4;
        /// C_d: diagnostic-sampling activation.
        const CD = 1 << 5;
        /// Maximum-buffer-size indicator (1 MB sample-data blocks).
        const S = 1 << 6;
        /// Host indicator.
        const H = 1 << 7;
    }
}

bitflags! {
    /// Byte 0 of a trailer entry (Figure 2-25).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct TrailerFlags: u8 {
        /// Block-full indicator.
        const F = 0x80;
        /// Alert-request control.
        const A = 0x40;
        /// Timestamp format: STORE CLOCK EXTENDED.
        const T = 0x20;
    }
}

/// Size of a trailer entry.
pub const TRAILER_SIZE: u64 = 64;
/// Data-entry format code of the basic-sampling data entry.
pub const BSDE_FORMAT: u16 = 0x0001;
/// Data-entry format code of the plugin's diagnostic-sampling data entry.
pub const DSDE_FORMAT: u16 = 0x8001;
/// Addresses 0-8191 are never valid entry addresses.
const LOW_INVALID: u64 = 8192;

/// Maximum buffer size: the size of every sample-data block and the most a table may span.
fn max_buffer(s: bool) -> u64 {
    if s {
        1 << 20
    } else {
        1 << 12
    }
}

/// The sample-data-block origin a block-link entry designates (Figures 2-14, 2-15).
pub fn block_origin(entry: u64, s: bool) -> u64 {
    entry & !(max_buffer(s) - 1)
}

/// The table origin a table-link entry designates (Figure 2-16).
pub fn table_origin(entry: u64) -> u64 {
    entry & !0xF
}

/// Is an SDBT entry a table-link entry (bit 63)?
pub fn is_table_link(entry: u64) -> bool {
    entry & 1 != 0
}

/// The basic-sampling data entry, format 0001 (Figure 2-17), of the CPU state in `view`.
/// `h` is the host indicator; the program parameter goes to the guest- or host-program-
/// parameter field per the host-indicator rules at the logical-partition level.
pub fn basic_entry_bytes(view: &CpuView, gpp: u64, hpp: u64, h: bool) -> [u8; 32] {
    let mut e = [0u8; 32];
    e[0..2].copy_from_slice(&BSDE_FORMAT.to_be_bytes());
    // U: an emulated CPU completes one instruction at the sampling point when busy.
    e[2] = if view.wait { 0 } else { 1 };
    let mut b3 = 0u8;
    if view.dat {
        b3 |= 0x20; // T, bit 26
    }
    if view.wait {
        b3 |= 0x10; // W, bit 27
    }
    if view.problem_state {
        b3 |= 0x08; // P, bit 28
    }
    b3 |= (view.asc & 3) << 1; // AS, bits 29-30
    e[3] = b3;
    // CL = 1 (logical-partition level), H, LS = 0.
    e[4] = 0x40 | if h { 0x20 } else { 0 };
    e[6..8].copy_from_slice(&view.primary_asn().to_be_bytes());
    e[8..16].copy_from_slice(&view.ia.to_be_bytes());
    e[16..24].copy_from_slice(&gpp.to_be_bytes());
    e[24..32].copy_from_slice(&hpp.to_be_bytes());
    e
}

/// The plugin's diagnostic-sampling data entry, format 8001, `m.dsdes` (64) bytes. The
/// architecture leaves the content after the 4-byte header model dependent; the emulator's:
///
/// | bytes | content |
/// |---|---|
/// | 0-1 | format code 8001 |
/// | 2-3 | reserved bits, I (bit 31) = 0 |
/// | 4-5 | length of the sampled instruction |
/// | 6-7 | CPU address |
/// | 8-13 | instruction text (zero-padded) |
/// | 16-23 | instructions the CPU executed so far (the meter) |
/// | 24-31 | CPU time in nanoseconds so far |
/// | 32-39 | TOD clock at the sample |
/// | 40-47 | control register 0 |
/// | 48-55 | problem-state instructions so far |
/// | 56-63 | zero |
pub fn diagnostic_entry_bytes(m: &MachineModel, view: &CpuView) -> Vec<u8> {
    let mut d = vec![0u8; usize::from(m.dsdes).max(64)];
    d[0..2].copy_from_slice(&DSDE_FORMAT.to_be_bytes());
    d[4..6].copy_from_slice(&u16::from(view.ilen).to_be_bytes());
    d[6..8].copy_from_slice(&view.cpu.to_be_bytes());
    let n = usize::from(view.ilen).min(6);
    d[8..8 + n].copy_from_slice(&view.inst[..n]);
    d[16..24].copy_from_slice(&view.meter.instructions.to_be_bytes());
    d[24..32].copy_from_slice(&view.meter.cpu_ns.to_be_bytes());
    d[32..40].copy_from_slice(&view.tod.to_be_bytes());
    d[40..48].copy_from_slice(&view.cr0.to_be_bytes());
    d[48..56].copy_from_slice(&view.meter.problem_instructions.to_be_bytes());
    d.truncate(usize::from(m.dsdes));
    d
}

/// What LOAD SAMPLING CONTROLS did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LsctlOutcome {
    /// Condition code: 0 controls set, 3 not set.
    pub cc: Cc,
    /// Pending alert requests to clear (no sampling function is enabled any more).
    pub clear_alerts: AlertBits,
}

/// What one sample-data-block update process did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SampleOutcome {
    /// Alert events recognized.
    pub alerts: AlertBits,
    /// A data entry was stored.
    pub stored: bool,
    /// The sample was discarded and counted in a trailer's overflow count.
    pub overflowed: bool,
}

/// The sampling control registers of one CPU.
#[derive(Debug, Default)]
pub struct CpuSampling {
    ctl: AtomicU32,
    interval: AtomicU64,
    tear: AtomicU64,
    dear: AtomicU64,
}

impl CpuSampling {
    /// Unauthorized and disabled.
    pub fn new() -> Self {
        Self::default()
    }

    /// The control bits.
    pub fn controls(&self) -> SamplingControls {
        SamplingControls::from_bits_retain(self.ctl.load(Ordering::Acquire))
    }
    /// Is a sampling function enabled (inactive or active)?
    pub fn any_enabled(&self) -> bool {
        self.controls()
            .intersects(SamplingControls::ES | SamplingControls::ED)
    }
    /// Is a sampling function active?
    pub fn any_active(&self) -> bool {
        self.controls()
            .intersects(SamplingControls::CS | SamplingControls::CD)
    }
    /// Sampling interval in CPU cycles.
    pub fn interval(&self) -> u64 {
        self.interval.load(Ordering::Relaxed)
    }
    /// Table-entry-address register.
    pub fn tear(&self) -> u64 {
        self.tear.load(Ordering::Relaxed)
    }
    /// Data-entry-address register.
    pub fn dear(&self) -> u64 {
        self.dear.load(Ordering::Relaxed)
    }

    /// QUERY SAMPLING INFORMATION: the 64-byte information block (Figure 2-28).
    pub fn qsi(&self, m: &MachineModel) -> [u8; 64] {
        let c = self.controls();
        let mut b = [0u8; 64];
        let bit = |f: SamplingControls, v: u8| if c.contains(f) { v } else { 0 };
        b[1] = bit(SamplingControls::AS, 0x02) | bit(SamplingControls::AD, 0x01);
        b[2] = bit(SamplingControls::ES, 0x02) | bit(SamplingControls::ED, 0x01);
        b[3] = bit(SamplingControls::CS, 0x02) | bit(SamplingControls::CD, 0x01);
        b[4..6].copy_from_slice(&m.bsdes.to_be_bytes());
        b[6..8].copy_from_slice(&m.dsdes.to_be_bytes());
        b[8..16].copy_from_slice(&m.min_sampling_interval.to_be_bytes());
        b[16..24].copy_from_slice(&m.max_sampling_interval.to_be_bytes());
        if self.any_enabled() {
            b[24..32].copy_from_slice(&self.tear().to_be_bytes());
            b[32..40].copy_from_slice(&self.dear().to_be_bytes());
        }
        b[44..48].copy_from_slice(&m.cpu_speed.to_be_bytes());
        b
    }

    /// LOAD SAMPLING CONTROLS with the 64-byte request block (Figure 2-26).
    ///
    /// Bits 2-53 and 56-61 must be zero (specification). A function to be set active from
    /// the disabled, inactive or active state needs an interval within QSI's range
    /// (specification, nothing changed). Both functions are set only if both can make a valid
    /// transition (Figure 2-12; same state succeeds), else cc 3. The additional controls (S,
    /// H, interval, TEAR, DEAR) are loaded only when a function is set active. Disabling both
    /// functions clears every control but the authorizations.
    pub fn lsctl(
        &self,
        m: &MachineModel,
        block: &[u8; 64],
    ) -> Result<LsctlOutcome, ProgramException> {
        let w0 = u64::from_be_bytes(block[0..8].try_into().unwrap_or([0; 8]));
        let reserved = !((1u64 << 63) | (1 << 62) | (3 << 8) | 3);
        if w0 & reserved != 0 {
            return Err(ProgramException::Specification);
        }
        let s = w0 & (1 << 63) != 0;
        let h = w0 & (1 << 62) != 0;
        let (es, ed) = (w0 & (1 << 9) != 0, w0 & (1 << 8) != 0);
        let (cs, cd) = (w0 & 2 != 0, w0 & 1 != 0);
        let field = |k: usize| u64::from_be_bytes(block[k..k + 8].try_into().unwrap_or([0; 8]));
        let (interval, tear, dear) = (field(8), field(16), field(24));
        loop {
            let cur_bits = self.ctl.load(Ordering::Acquire);
            let cur = SamplingControls::from_bits_retain(cur_bits);
            let (a_s, a_d) = (
                cur.contains(SamplingControls::AS),
                cur.contains(SamplingControls::AD),
            );
            let activating = (a_s && cs) || (a_d && cd);
            if activating
                && !(m.min_sampling_interval..=m.max_sampling_interval).contains(&interval)
            {
                return Err(ProgramException::Specification);
            }
            let valid = |a: bool, e0: bool, c0: bool, e1: bool, c1: bool| {
                match (SetState::of(a, e0, c0), SetState::of(a, e1, c1)) {
                    (Some(from), Some(to)) => program_transition_allowed(from, to),
                    // Zeros for an unauthorized function: the same (unauthorized) state.
                    (Some(SetState::Unauthorized), None) => false,
                    _ => false,
                }
            };
            let ok_b = valid(
                a_s,
                cur.contains(SamplingControls::ES),
                cur.contains(SamplingControls::CS),
                es,
                cs,
            );
            let ok_d = valid(
                a_d,
                cur.contains(SamplingControls::ED),
                cur.contains(SamplingControls::CD),
                ed,
                cd,
            );
            if !ok_b || !ok_d {
                return Ok(LsctlOutcome {
                    cc: Cc::Three,
                    clear_alerts: AlertBits::empty(),
                });
            }
            let auth = cur & (SamplingControls::AS | SamplingControls::AD);
            let mut new = auth;
            if es {
                new |= SamplingControls::ES;
            }
            if ed {
                new |= SamplingControls::ED;
            }
            if cs {
                new |= SamplingControls::CS;
            }
            if cd {
                new |= SamplingControls::CD;
            }
            let enabled = es || ed;
            if activating {
                if s {
                    new |= SamplingControls::S;
                }
                if h {
                    new |= SamplingControls::H;
                }
            } else if enabled {
                new |= cur & (SamplingControls::S | SamplingControls::H);
            }
            if self
                .ctl
                .compare_exchange(cur_bits, new.bits(), Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            if activating {
                self.interval.store(interval, Ordering::Relaxed);
                self.tear.store(tear, Ordering::Relaxed);
                self.dear.store(dear, Ordering::Relaxed);
            } else if !enabled {
                self.interval.store(0, Ordering::Relaxed);
                self.tear.store(0, Ordering::Relaxed);
                self.dear.store(0, Ordering::Relaxed);
            }
            return Ok(LsctlOutcome {
                cc: Cc::Zero,
                clear_alerts: if enabled {
                    AlertBits::empty()
                } else {
                    AlertBits::CLEARED_WHEN_SAMPLING_DISABLED
                },
            });
        }
    }

    /// External means: the authorizations. A function that loses its authorization becomes
    /// unauthorized; if it was enabled, the sampling-authorization-change alert is
    /// recognized (SA23-2260, Measurement Alert).
    pub fn set_authorization(&self, basic: bool, diagnostic: bool) -> AlertBits {
        loop {
            let cur_bits = self.ctl.load(Ordering::Acquire);
            let cur = SamplingControls::from_bits_retain(cur_bits);
            let mut new = cur;
            let mut alert = false;
            for (auth, a, e, c) in [
                (
                    basic,
                    SamplingControls::AS,
                    SamplingControls::ES,
                    SamplingControls::CS,
                ),
                (
                    diagnostic,
                    SamplingControls::AD,
                    SamplingControls::ED,
                    SamplingControls::CD,
                ),
            ] {
                if auth {
                    new |= a;
                } else {
                    if cur.contains(a) && cur.contains(e) {
                        alert = true;
                    }
                    new -= a | e | c;
                }
            }
            if !new.intersects(SamplingControls::ES | SamplingControls::ED) {
                new -= SamplingControls::S | SamplingControls::H;
            }
            if self
                .ctl
                .compare_exchange(cur_bits, new.bits(), Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            if !new.intersects(SamplingControls::ES | SamplingControls::ED) {
                self.interval.store(0, Ordering::Relaxed);
                self.tear.store(0, Ordering::Relaxed);
                self.dear.store(0, Ordering::Relaxed);
            }
            return if alert {
                AlertBits::SAMPLING_AUTH_CHANGE
            } else {
                AlertBits::empty()
            };
        }
    }

    fn deactivate(&self) {
        self.ctl.fetch_and(
            !(SamplingControls::CS | SamplingControls::CD).bits(),
            Ordering::AcqRel,
        );
    }

    /// Count `n` samples that could not be taken in the sample overflow count of the current
    /// sample-data block (the emulator's host delayed the CPU past several intervals).
    pub fn count_lost(&self, storage: &dyn GuestStorage, n: u64) {
        let s = self.controls().contains(SamplingControls::S);
        let bs = max_buffer(s);
        let dear = self.dear();
        let trailer = (dear & !(bs - 1)).wrapping_add(bs - TRAILER_SIZE);
        if dear < LOW_INVALID || dear > trailer {
            return;
        }
        let _ = storage.update16(AbsAddr(trailer), &mut |mut t| {
            let c = u64::from_be_bytes(t[8..16].try_into().unwrap_or([0; 8]));
            t[8..16].copy_from_slice(&c.wrapping_add(n).to_be_bytes());
            t
        });
    }

    /// Loss of sample data: every active function becomes inactive.
    pub fn loss_of_sample_data(&self) {
        self.deactivate();
    }
    /// CPU reset: activation controls cleared.
    pub fn cpu_reset(&self) {
        self.deactivate();
    }
    /// Initial CPU reset, clear reset: disabled, every control but the authorizations cleared.
    pub fn initial_cpu_reset(&self) {
        self.ctl.fetch_and(
            (SamplingControls::AS | SamplingControls::AD).bits(),
            Ordering::AcqRel,
        );
        self.interval.store(0, Ordering::Relaxed);
        self.tear.store(0, Ordering::Relaxed);
        self.dear.store(0, Ordering::Relaxed);
    }

    /// One sample-data-block update process (SA23-2260, Process Steps), run on the CPU's own
    /// thread for the interval that just ended. `pp` is the program-parameter register.
    pub fn take_sample(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        view: &CpuView,
        pp: u64,
    ) -> SampleOutcome {
        let c = self.controls();
        let basic = c.contains(SamplingControls::CS);
        let diag = c.contains(SamplingControls::CD);
        if !basic && !diag {
            return SampleOutcome::default();
        }
        let h = c.contains(SamplingControls::H);
        let s = c.contains(SamplingControls::S);
        let mut entry = Vec::with_capacity(usize::from(m.bsdes) + usize::from(m.dsdes));
        if basic {
            let (gpp, hpp) = if h { (0, pp) } else { (pp, 0) };
            entry.extend_from_slice(&basic_entry_bytes(view, gpp, hpp, h));
        }
        if diag {
            entry.extend_from_slice(&diagnostic_entry_bytes(m, view));
        }
        let mut out = SampleOutcome::default();
        match self.update(m, storage, &entry, s, view.tod, &mut out) {
            Ok(()) => {}
            Err(alert) => {
                out.alerts |= alert;
                self.deactivate();
            }
        }
        out
    }

    /// The process steps proper. `Err` is an alert that places the active functions in the
    /// inactive state (invalid entry address, incorrect SDBT entry).
    fn update(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        entry: &[u8],
        s: bool,
        tod: u64,
        out: &mut SampleOutcome,
    ) -> Result<(), AlertBits> {
        let bs = max_buffer(s);
        let size = entry.len() as u64;
        let iea = AlertBits::INVALID_ENTRY_ADDRESS;
        let ise = AlertBits::INCORRECT_SDBT_ENTRY;
        let invalid = |_: StorageError| iea;
        // A new block is entered at most once per update: its first entry always fits.
        for _ in 0..3 {
            let dear = self.dear();
            let origin = dear & !(bs - 1);
            let trailer = origin.wrapping_add(bs - TRAILER_SIZE);
            if dear < LOW_INVALID || dear > trailer {
                // In 0-8191, or inside the trailer entry. (DEAR at the trailer's first byte is
                // where a block that was filled exactly leaves it: that block is full.)
                return Err(iea);
            }
            let mut head = [0u8; 1];
            storage.read(AbsAddr(trailer), &mut head).map_err(invalid)?;
            if TrailerFlags::from_bits_retain(head[0]).contains(TrailerFlags::F) {
                // Step 1: the block is still full: count the sample as lost.
                storage
                    .update16(AbsAddr(trailer), &mut |mut t| {
                        let n = u64::from_be_bytes(t[8..16].try_into().unwrap_or([0; 8]));
                        t[8..16].copy_from_slice(&n.wrapping_add(1).to_be_bytes());
                        t
                    })
                    .map_err(invalid)?;
                out.overflowed = true;
                return Ok(());
            }
            if dear.wrapping_add(size) <= trailer {
                // Step 2: store the entry.
                storage.write(AbsAddr(dear), entry).map_err(invalid)?;
                self.dear.store(dear.wrapping_add(size), Ordering::Relaxed);
                out.stored = true;
                return Ok(());
            }
            // Step 3: the block is full.
            let stcke = m.stcke_timestamps;
            let mut alert_requested = false;
            storage
                .update16(AbsAddr(trailer), &mut |mut t| {
                    let mut f = t[0] | TrailerFlags::F.bits();
                    if stcke {
                        f |= TrailerFlags::T.bits();
                    } else {
                        f &= !TrailerFlags::T.bits();
                    }
                    alert_requested = t[0] & TrailerFlags::A.bits() != 0;
                    t[0] = f;
                    t[4..6].copy_from_slice(&m.bsdes.to_be_bytes());
                    t[6..8].copy_from_slice(&m.dsdes.to_be_bytes());
                    t
                })
                .map_err(invalid)?;
            let mut ts = [0u8; 16];
            if stcke {
                ts[1..9].copy_from_slice(&tod.to_be_bytes());
                storage.write(AbsAddr(trailer + 16), &ts).map_err(invalid)?;
            } else {
                storage
                    .write(AbsAddr(trailer + 16), &tod.to_be_bytes())
                    .map_err(invalid)?;
            }
            if alert_requested {
                out.alerts |= AlertBits::PROGRAM_REQUEST;
            }
            // Next SDBT entry.
            let mut tear = self.tear().wrapping_add(8);
            self.tear.store(tear, Ordering::Relaxed);
            let mut e = read_entry(storage, tear)?;
            let last_in_table = tear.wrapping_add(8) & (bs - 1) == 0;
            if is_table_link(e) {
                // Step 3.a.2 / 3.b.2: follow the link; a link to a link is incorrect.
                tear = table_origin(e);
                self.tear.store(tear, Ordering::Relaxed);
                e = read_entry(storage, tear)?;
                if is_table_link(e) {
                    return Err(ise);
                }
            } else if last_in_table {
                // Step 3.a.1: the last entry of a table must be a table link.
                return Err(ise);
            }
            self.dear.store(block_origin(e, s), Ordering::Relaxed);
        }
        Ok(())
    }
}

/// Fetch a sample-data-block-table entry; an address in 0-8191 or outside main storage is an
/// invalid entry address.
fn read_entry(storage: &dyn GuestStorage, addr: u64) -> Result<u64, AlertBits> {
    if addr < LOW_INVALID {
        return Err(AlertBits::INVALID_ENTRY_ADDRESS);
    }
    storage
        .read_u64(AbsAddr(addr))
        .map_err(|_| AlertBits::INVALID_ENTRY_ADDRESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemStorage;

    fn model() -> MachineModel {
        MachineModel::for_machine_type(0x2097)
    }
    fn authorized() -> CpuSampling {
        let s = CpuSampling::new();
        s.set_authorization(true, true);
        s
    }
    /// LSCTL request block.
    #[allow(clippy::too_many_arguments)]
    fn req(
        s: bool,
        h: bool,
        es: bool,
        ed: bool,
        cs: bool,
        cd: bool,
        i: u64,
        t: u64,
        d: u64,
    ) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0] = if s { 0x80 } else { 0 } | if h { 0x40 } else { 0 };
        b[6] = if es { 2 } else { 0 } | if ed { 1 } else { 0 };
        b[7] = if cs { 2 } else { 0 } | if cd { 1 } else { 0 };
        b[8..16].copy_from_slice(&i.to_be_bytes());
        b[16..24].copy_from_slice(&t.to_be_bytes());
        b[24..32].copy_from_slice(&d.to_be_bytes());
        b
    }
    fn view(ia: u64) -> CpuView {
        CpuView {
            ia,
            problem_state: true,
            dat: true,
            asc: 2,
            cr4: 0x0000_0000_0000_0042,
            tod: 0x1122_3344_5566_7788,
            ..Default::default()
        }
    }
    /// Storage with one SDBT at 0x10000 listing SDBs 0x20000, 0x21000, 0x22000 and a link
    /// back to itself; all trailers with A = 1.
    fn ring() -> MemStorage {
        let st = MemStorage::new(0x100000);
        st.write_u64(AbsAddr(0x10000), 0x20000).unwrap();
        st.write_u64(AbsAddr(0x10008), 0x21000).unwrap();
        st.write_u64(AbsAddr(0x10010), 0x22000).unwrap();
        st.write_u64(AbsAddr(0x10018), 0x10000 | 1).unwrap();
        for b in [0x20000u64, 0x21000, 0x22000] {
            st.write(AbsAddr(b + 4096 - 64), &[0x40]).unwrap();
        }
        st
    }
    fn start(s: &CpuSampling, m: &MachineModel, h: bool, dear: u64) {
        let r = req(
            false,
            h,
            true,
            false,
            true,
            false,
            m.min_sampling_interval,
            0x10000,
            dear,
        );
        assert_eq!(s.lsctl(m, &r).unwrap().cc, Cc::Zero);
    }

    #[test]
    fn qsi_reports_the_model_and_the_registers() {
        let m = model();
        let s = authorized();
        let q = s.qsi(&m);
        assert_eq!(&q[0..4], &[0, 3, 0, 0], "As, Ad");
        assert_eq!(u16::from_be_bytes([q[4], q[5]]), 32, "BSDES");
        assert_eq!(u16::from_be_bytes([q[6], q[7]]), 64, "DSDES");
        assert_eq!(
            u64::from_be_bytes(q[8..16].try_into().unwrap()),
            m.min_sampling_interval
        );
        assert_eq!(
            u64::from_be_bytes(q[16..24].try_into().unwrap()),
            m.max_sampling_interval
        );
        assert_eq!(&q[24..40], &[0; 16], "TEAR/DEAR zero while disabled");
        assert_eq!(q[43], 0, "RIBM: sampling available");
        assert_eq!(u32::from_be_bytes(q[44..48].try_into().unwrap()), 4404);
        start(&s, &m, true, 0x20100);
        let q = s.qsi(&m);
        assert_eq!(&q[0..4], &[0, 3, 2, 2]);
        assert_eq!(u64::from_be_bytes(q[24..32].try_into().unwrap()), 0x10000);
        assert_eq!(u64::from_be_bytes(q[32..40].try_into().unwrap()), 0x20100);
    }

    #[test]
    fn lsctl_state_machine_of_figure_2_12() {
        let m = model();
        let i = m.min_sampling_interval;
        let s = authorized();
        // disabled -> inactive: additional controls ignored (not loaded).
        let r = req(false, true, true, false, false, false, i, 0x10000, 0x20000);
        assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
        assert!(s.any_enabled() && !s.any_active());
        assert_eq!(s.tear(), 0);
        // inactive -> active loads them; active -> inactive keeps them.
        start(&s, &m, true, 0x20000);
        assert!(s.any_active());
        let r = req(false, true, true, false, false, false, 0, 0, 0);
        assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
        assert_eq!(
            (s.tear(), s.dear()),
            (0x10000, 0x20000),
            "preserved while inactive"
        );
        // -> disabled clears everything but the authorizations.
        let out = s.lsctl(&m, &[0; 64]).unwrap();
        assert_eq!(out.cc, Cc::Zero);
        assert_eq!(out.clear_alerts, AlertBits::CLEARED_WHEN_SAMPLING_DISABLED);
        assert_eq!((s.tear(), s.dear(), s.interval()), (0, 0, 0));
        assert_eq!(s.controls(), SamplingControls::AS | SamplingControls::AD);
        // Activation without enable is invalid: cc 3.
        let r = req(false, false, false, false, true, false, i, 0, 0);
        assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Three);
        // All or nothing: diagnostic unauthorized, basic would be fine.
        s.set_authorization(true, false);
        let r = req(false, false, true, true, true, true, i, 0x10000, 0x20000);
        assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Three);
        assert!(!s.any_enabled());
        // Unauthorized and zeros: same state, cc 0.
        let u = CpuSampling::new();
        assert_eq!(u.lsctl(&m, &[0; 64]).unwrap().cc, Cc::Zero);
        let r = req(false, false, true, false, false, false, i, 0, 0);
        assert_eq!(u.lsctl(&m, &r).unwrap().cc, Cc::Three);
    }

    #[test]
    fn lsctl_specification_exceptions() {
        let m = model();
        let s = authorized();
        for bit in (2..54).chain(56..62) {
            let mut r = req(
                false,
                false,
                true,
                false,
                true,
                false,
                m.min_sampling_interval,
                0x10000,
                0x20000,
            );
            r[bit / 8] |= 0x80 >> (bit % 8);
            assert_eq!(
                s.lsctl(&m, &r),
                Err(ProgramException::Specification),
                "bit {bit}"
            );
        }
        for i in [0, m.min_sampling_interval - 1, m.max_sampling_interval + 1] {
            let r = req(false, false, true, false, true, false, i, 0x10000, 0x20000);
            assert_eq!(
                s.lsctl(&m, &r),
                Err(ProgramException::Specification),
                "interval {i}"
            );
            assert!(!s.any_enabled(), "nothing changed");
        }
        // The interval is not checked when nothing becomes active; bytes 32-63 are ignored.
        let mut r = req(false, false, true, false, false, false, 0, 0, 0);
        r[40] = 0xFF;
        assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
    }

    #[test]
    fn basic_entries_are_stored_with_the_cpu_state() {
        let m = model();
        let st = ring();
        let s = authorized();
        start(&s, &m, true, 0x20000);
        let out = s.take_sample(&m, &st, &view(0x1234_5678), 0xABCD);
        assert!(out.stored && out.alerts.is_empty());
        let mut e = [0u8; 32];
        st.read(AbsAddr(0x20000), &mut e).unwrap();
        assert_eq!(&e[0..2], &[0x00, 0x01], "format 0001");
        assert_eq!(e[2] & 0x0F, 1, "U");
        assert_eq!(e[3], 0x20 | 0x08 | (2 << 1), "T, P, AS=2, W=0, I=0");
        assert_eq!(e[4], 0x40 | 0x20, "CL=1, H=1, LS=0");
        assert_eq!(&e[6..8], &[0, 0x42], "primary ASN");
        assert_eq!(
            u64::from_be_bytes(e[8..16].try_into().unwrap()),
            0x1234_5678
        );
        assert_eq!(
            u64::from_be_bytes(e[16..24].try_into().unwrap()),
            0,
            "GPP with H=1"
        );
        assert_eq!(
            u64::from_be_bytes(e[24..32].try_into().unwrap()),
            0xABCD,
            "HPP with H=1"
        );
        assert_eq!(s.dear(), 0x20020);
        // H = 0: the program parameter goes to the guest field.
        let s0 = authorized();
        start(&s0, &m, false, 0x21000);
        s0.take_sample(&m, &st, &view(1), 0x77);
        st.read(AbsAddr(0x21000), &mut e).unwrap();
        assert_eq!(e[4], 0x40, "H=0");
        assert_eq!(u64::from_be_bytes(e[16..24].try_into().unwrap()), 0x77);
        assert_eq!(u64::from_be_bytes(e[24..32].try_into().unwrap()), 0);
    }

    #[test]
    fn full_block_sets_f_timestamp_sizes_and_raises_pra_then_follows_the_table() {
        let m = model();
        let st = ring();
        // Programming bytes 48-63 of the trailer must stay untouched.
        st.write(AbsAddr(0x20000 + 4096 - 16), &[0x5A; 16]).unwrap();
        let s = authorized();
        // One entry short of the trailer.
        start(&s, &m, true, 0x20000 + 4096 - 64 - 32);
        assert!(s.take_sample(&m, &st, &view(1), 0).stored);
        let out = s.take_sample(&m, &st, &view(2), 0);
        assert_eq!(out.alerts, AlertBits::PROGRAM_REQUEST);
        assert!(out.stored, "stored in the next block");
        let mut t = [0u8; 64];
        st.read(AbsAddr(0x20000 + 4096 - 64), &mut t).unwrap();
        assert_eq!(t[0], 0x80 | 0x40 | 0x20, "F, A kept, T (STCKE)");
        assert_eq!(&t[4..8], &[0, 32, 0, 64], "BSDES, DSDES");
        assert_eq!(&t[8..16], &[0; 8], "no overflow");
        assert_eq!(
            &t[16..25],
            &[0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
        );
        assert_eq!(&t[48..64], &[0x5A; 16]);
        assert_eq!((s.tear(), s.dear()), (0x10008, 0x21020));
        // STCK format.
        let mut stck = model();
        stck.stcke_timestamps = false;
        let s2 = authorized();
        start(&s2, &stck, true, 0x21000 + 4096 - 64 - 32);
        s2.take_sample(&stck, &st, &view(1), 0);
        s2.take_sample(&stck, &st, &view(1), 0);
        st.read(AbsAddr(0x21000 + 4096 - 64), &mut t).unwrap();
        assert_eq!(t[0] & 0x20, 0, "T=0");
        assert_eq!(&t[16..24], &0x1122_3344_5566_7788u64.to_be_bytes());
    }

    #[test]
    fn next_block_still_full_counts_overflow() {
        let m = model();
        let st = ring();
        st.write(AbsAddr(0x21000 + 4096 - 64), &[0x80 | 0x40])
            .unwrap();
        let s = authorized();
        start(&s, &m, true, 0x20000 + 4096 - 64 - 16); // no room for 32 bytes
        let out = s.take_sample(&m, &st, &view(1), 0);
        assert!(out.overflowed && !out.stored);
        assert_eq!(st.read_u64(AbsAddr(0x21000 + 4096 - 56)).unwrap(), 1);
        s.take_sample(&m, &st, &view(1), 0);
        assert_eq!(st.read_u64(AbsAddr(0x21000 + 4096 - 56)).unwrap(), 2);
    }

    #[test]
    fn table_links_and_incorrect_entries() {
        let m = model();
        // The last entry (0x22000) is followed by a link back to the table origin.
        let st = ring();
        let s = authorized();
        let r = req(
            false,
            true,
            true,
            false,
            true,
            false,
            m.min_sampling_interval,
            0x10010,
            0x22000 + 4096 - 64 - 16,
        );
        s.lsctl(&m, &r).unwrap();
        assert!(s.take_sample(&m, &st, &view(1), 0).stored);
        assert_eq!(
            (s.tear(), s.dear()),
            (0x10000, 0x20020),
            "followed the table link"
        );
        // Link to a table whose first entry is a link: ISE, functions inactive.
        let st = ring();
        st.write_u64(AbsAddr(0x30000), 0x40000 | 1).unwrap();
        st.write_u64(AbsAddr(0x10018), 0x30000 | 1).unwrap();
        let s = authorized();
        let r = req(
            false,
            true,
            true,
            false,
            true,
            false,
            m.min_sampling_interval,
            0x10010,
            0x22000 + 4096 - 64 - 16,
        );
        s.lsctl(&m, &r).unwrap();
        let out = s.take_sample(&m, &st, &view(1), 0);
        assert_eq!(
            out.alerts,
            AlertBits::INCORRECT_SDBT_ENTRY | AlertBits::PROGRAM_REQUEST
        );
        assert!(!s.any_active() && s.any_enabled());
        // Last entry of a 4-KB table is a block link: ISE.
        let st = MemStorage::new(0x100000);
        st.write_u64(AbsAddr(0x10FF8), 0x20000).unwrap();
        let s = authorized();
        let r = req(
            false,
            true,
            true,
            false,
            true,
            false,
            m.min_sampling_interval,
            0x10FF0,
            0x21000 + 4096 - 64 - 16,
        );
        s.lsctl(&m, &r).unwrap();
        assert_eq!(
            s.take_sample(&m, &st, &view(1), 0).alerts,
            AlertBits::INCORRECT_SDBT_ENTRY
        );
    }

    #[test]
    fn invalid_entry_addresses_of_every_kind() {
        let m = model();
        let cases: [(u64, u64, &str); 4] = [
            (0x10000, 0x1000, "SDB in 0-8191"),
            (0x10000, 0x20000 + 4096 - 48, "DEAR inside the trailer"),
            (0x10000, 0x200000, "SDB beyond main storage"),
            (0x1000, 0x20000 + 4096 - 64 - 16, "SDBT entry in 0-8191"),
        ];
        for (tear, dear, what) in cases {
            let st = ring();
            let s = authorized();
            let r = req(
                false,
                true,
                true,
                false,
                true,
                false,
                m.min_sampling_interval,
                tear,
                dear,
            );
            s.lsctl(&m, &r).unwrap();
            let out = s.take_sample(&m, &st, &view(1), 0);
            assert!(
                out.alerts.contains(AlertBits::INVALID_ENTRY_ADDRESS),
                "{what}"
            );
            assert!(!s.any_active(), "{what}: functions inactive");
            assert_eq!(
                s.take_sample(&m, &st, &view(1), 0),
                SampleOutcome::default()
            );
        }
        // A table entry beyond main storage.
        let st = ring();
        st.write_u64(AbsAddr(0x10008), 0x7FF0_0000).unwrap();
        let s = authorized();
        start(&s, &m, true, 0x20000 + 4096 - 64 - 16);
        assert!(s
            .take_sample(&m, &st, &view(1), 0)
            .alerts
            .contains(AlertBits::INVALID_ENTRY_ADDRESS));
    }

    #[test]
    fn combined_entries_are_never_split_and_1mb_blocks_work() {
        let m = model();
        let st = ring();
        let s = authorized();
        // Both functions: 96-byte entries; 64 bytes left before the trailer.
        let r = req(
            false,
            true,
            true,
            true,
            true,
            true,
            m.min_sampling_interval,
            0x10000,
            0x20000 + 4096 - 64 - 64,
        );
        s.lsctl(&m, &r).unwrap();
        let out = s.take_sample(&m, &st, &view(0x99), 0);
        assert!(out.stored);
        assert_eq!(s.dear(), 0x21000 + 96, "whole entry in the next block");
        let mut d = [0u8; 4];
        st.read(AbsAddr(0x21000 + 32), &mut d).unwrap();
        assert_eq!(&d[0..2], &[0x80, 0x01], "DSDE follows the BSDE");
        // 1-MB blocks: S = 1.
        let big = MemStorage::new(0x400000);
        big.write_u64(AbsAddr(0x10000), 0x100000).unwrap();
        big.write_u64(AbsAddr(0x10008), 0x200000).unwrap();
        big.write_u64(AbsAddr(0x10010), 0x10000 | 1).unwrap();
        let s = authorized();
        let r = req(
            true,
            true,
            true,
            false,
            true,
            false,
            m.min_sampling_interval,
            0x10000,
            0x100000 + (1 << 20) - 64 - 16,
        );
        s.lsctl(&m, &r).unwrap();
        assert!(s.take_sample(&m, &big, &view(1), 0).stored);
        assert_eq!(s.dear(), 0x200000 + 32);
        assert_eq!(
            big.read_u64(AbsAddr(0x100000 + (1 << 20) - 64)).unwrap() >> 56,
            0xA0
        );
    }

    #[test]
    fn hostile_storage_never_panics_nor_writes_outside_the_designated_blocks() {
        // A seeded xorshift fills storage with random tables and blocks; every update either
        // stores, overflows or ends in an alert, and bytes change only inside SDBs reachable
        // from the tables (all of which live in the random area, so we only check that the
        // low 8 KB and bytes beyond storage are never touched and that nothing panics).
        let m = model();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..300 {
            let st = MemStorage::new(0x40000);
            let mut fill = vec![0u8; 0x40000 - 0x2000];
            for b in fill.chunks_mut(8) {
                // Mostly plausible addresses with random link bits.
                let v = (rnd() % 0x50000) & !0x7 | (rnd() & 1);
                b.copy_from_slice(&v.to_be_bytes());
            }
            st.write(AbsAddr(0x2000), &fill).unwrap();
            let before = st.snapshot();
            let s = authorized();
            let tear = rnd() % 0x48000;
            let dear = rnd() % 0x48000;
            let r = req(
                false,
                true,
                true,
                rnd() & 1 == 1,
                true,
                rnd() & 1 == 1,
                m.min_sampling_interval,
                tear,
                dear,
            );
            let _ = s.lsctl(&m, &r);
            for _ in 0..50 {
                let _ = s.take_sample(&m, &st, &view(rnd()), rnd());
            }
            let after = st.snapshot();
            assert_eq!(&before[..0x2000], &after[..0x2000], "low 8 KB untouched");
        }
    }
}

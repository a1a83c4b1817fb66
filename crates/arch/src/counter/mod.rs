//! The CPU-measurement counter facility (SA23-2260, section 2, "CPU-Measurement Counter
//! Facility"): the local counter-set-state control register of each CPU, the counter sets,
//! the global counter-set-state control register of the coprocessor groups, and the
//! instructions QCTRI, LCCTL, ECCTR, SCCTR, STCCTM, LPCTL, EPCTR, SPCTR and ECPGA.
//!
//! Counters are measurements, not stored numbers: a set's counter value is a base (set by
//! SCCTR, or folded in at deactivation) plus, while the set is active, what the CPU's meter
//! measured since the set was activated. All state is atomic so that the console thread
//! (authorization by external means) and the CPU thread (instructions) never lock.

use crate::alerts::AlertBits;
use crate::cpu::{Arch, CpuView, MeterReading};
pub use crate::crypto::CryptoFunction;
use crate::model::{CounterSet, CounterSets, MachineModel};
use crate::pgm::{Cc, ProgramException};
use state::{pack, unpack};
pub use state::{program_transition_allowed, SetState};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Number of counter slots kept per set (the largest set: 160 extended counters).
const SLOTS: usize = 160;

/// Counter values of one set: base values, and the meter reading at activation.
#[derive(Debug)]
struct SetCounters {
    base: Vec<AtomicU64>,
    /// Meter values (instructions, cpu_ns, problem instructions, problem ns) at activation.
    snap: [AtomicU64; 4],
}

impl SetCounters {
    fn new(n: usize) -> Self {
        SetCounters {
            base: (0..n).map(|_| AtomicU64::new(0)).collect(),
            snap: Default::default(),
        }
    }
    fn clear(&self) {
        for b in &self.base {
            b.store(0, Ordering::Relaxed);
        }
    }
    fn set_snap(&self, now: &MeterReading) {
        self.snap[0].store(now.instructions, Ordering::Relaxed);
        self.snap[1].store(now.cpu_ns, Ordering::Relaxed);
        self.snap[2].store(now.problem_instructions, Ordering::Relaxed);
        self.snap[3].store(now.problem_cpu_ns, Ordering::Relaxed);
    }
}

fn cycles(ns: u64, speed: u32) -> u64 {
    ((u128::from(ns) * u128::from(speed)) / 1000) as u64
}

/// The counter facility of one CPU.
#[derive(Debug)]
pub struct CpuCounters {
    /// Local counter-set-state control register: authorization (bits 0-15), enable
    /// (16-31), activation (32-47) halfwords in the QCTRI layout, packed for atomic update.
    controls: AtomicU64,
    basic: SetCounters,
    problem: SetCounters,
    crypto: SetCounters,
    extended: SetCounters,
    /// Problem-state extraction authorized by the operator, for S/370 and ESA/390 (see
    /// [`CpuCounters::extraction_authorized`]).
    operator_extraction: AtomicBool,
}

impl Default for CpuCounters {
    fn default() -> Self {
        Self::new()
    }
}

/// Result of STCCTM: the condition code and the doublewords to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StcctmResult {
    pub cc: Cc,
    pub values: Vec<u64>,
}

impl CpuCounters {
    /// A CPU whose sets are unauthorized (authorization comes by external means).
    pub fn new() -> Self {
        CpuCounters {
            controls: AtomicU64::new(0),
            operator_extraction: AtomicBool::new(false),
            basic: SetCounters::new(32),
            problem: SetCounters::new(32),
            crypto: SetCounters::new(64),
            extended: SetCounters::new(SLOTS),
        }
    }

    fn set(&self, set: CounterSet) -> Option<&SetCounters> {
        match set {
            CounterSet::Basic => Some(&self.basic),
            CounterSet::ProblemState => Some(&self.problem),
            CounterSet::CryptoActivity => Some(&self.crypto),
            CounterSet::Extended => Some(&self.extended),
            CounterSet::MtDiagnostic => None,
        }
    }

    /// Authorization controls.
    pub fn authorization(&self) -> CounterSets {
        unpack(self.controls.load(Ordering::Acquire)).0
    }
    /// Enable controls.
    pub fn enabled(&self) -> CounterSets {
        unpack(self.controls.load(Ordering::Acquire)).1
    }
    /// Activation controls.
    pub fn active(&self) -> CounterSets {
        unpack(self.controls.load(Ordering::Acquire)).2
    }
    /// Is any non-MT CPU counter set enabled? (A pending loss-of-CPU-counter-data request is
    /// cleared when none is.)
    pub fn any_enabled(&self) -> bool {
        self.enabled().intersects(CounterSets::CPU_SETS)
    }

    /// The live value of counter `i` of `set` (base plus what was measured while active).
    fn value(&self, m: &MachineModel, set: CounterSet, i: usize, now: &MeterReading) -> u64 {
        let Some(sc) = self.set(set) else { return 0 };
        let base = sc
            .base
            .get(i)
            .map(|b| b.load(Ordering::Relaxed))
            .unwrap_or(0);
        if !self.active().contains(set.bit()) {
            return base;
        }
        base.wrapping_add(self.measured(m, set, i, sc, now))
    }

    /// What the meter measured for counter `i` since the set's activation.
    fn measured(
        &self,
        m: &MachineModel,
        set: CounterSet,
        i: usize,
        sc: &SetCounters,
        now: &MeterReading,
    ) -> u64 {
        let snap = |k: usize| sc.snap[k].load(Ordering::Relaxed);
        match (set, i) {
            (CounterSet::Basic, 0) => cycles(now.cpu_ns.wrapping_sub(snap(1)), m.cpu_speed),
            (CounterSet::Basic, 1) => now.instructions.wrapping_sub(snap(0)),
            (CounterSet::ProblemState, 0) => {
                cycles(now.problem_cpu_ns.wrapping_sub(snap(3)), m.cpu_speed)
            }
            (CounterSet::ProblemState, 1) => now.problem_instructions.wrapping_sub(snap(2)),
            _ => 0,
        }
    }

    /// Fold the measured part into the bases (the set stops counting).
    fn fold(&self, m: &MachineModel, set: CounterSet, now: &MeterReading) {
        let Some(sc) = self.set(set) else { return };
        for i in 0..2 {
            let d = self.measured(m, set, i, sc, now);
            if let Some(b) = sc.base.get(i) {
                b.store(b.load(Ordering::Relaxed).wrapping_add(d), Ordering::Relaxed);
            }
        }
    }

    /// QUERY COUNTER INFORMATION: the 64-byte information block (Figure 2-27).
    pub fn qctri(&self, m: &MachineModel, cg: &CoprocessorGroups) -> [u8; 64] {
        let (a, e, c) = unpack(self.controls.load(Ordering::Acquire));
        let mut b = [0u8; 64];
        let mut en = e.bits() & !CounterSets::COPROCESSOR_GROUP.bits();
        let mut ac = c.bits() & !CounterSets::COPROCESSOR_GROUP.bits();
        let authorized_cg = a.contains(CounterSets::COPROCESSOR_GROUP) && m.coprocessor_groups > 0;
        let (ge, gc, gchg) = cg.controls();
        if authorized_cg {
            if ge {
                en |= CounterSets::COPROCESSOR_GROUP.bits();
            }
            if gc {
                ac |= CounterSets::COPROCESSOR_GROUP.bits();
            }
        }
        let auth = a.bits()
            & if m.coprocessor_groups > 0 {
                0xFFFF
            } else {
                !CounterSets::COPROCESSOR_GROUP.bits()
            };
        b[0..2].copy_from_slice(&m.cfvn.to_be_bytes());
        b[2..4].copy_from_slice(&auth.to_be_bytes());
        b[4..6].copy_from_slice(&en.to_be_bytes());
        b[6..8].copy_from_slice(&ac.to_be_bytes());
        b[8..10].copy_from_slice(&m.max_cpu_address.to_be_bytes());
        b[10..12].copy_from_slice(&m.csvn.to_be_bytes());
        let max_cg = m.coprocessor_groups.saturating_sub(1);
        b[12..14].copy_from_slice(&max_cg.to_be_bytes());
        if authorized_cg && gchg {
            b[14] = 0x80;
        }
        b
    }

    /// LOAD CPU-COUNTER-SET CONTROLS (privilege already checked; operand fetched).
    ///
    /// Bits 42-47 are the enable controls (E_m, E_r, E_c, E_p, E_b, E_e), bits 58-63 the
    /// activation controls; every other bit, and the bits of sets not installed, must be
    /// zero (specification exception), except that the MT bits (42, 58) are ignored when
    /// CSVN > 3 and the IBM-reserved bits (43, 59) are ignored when CSVN is 4 (programming
    /// note 2). All-or-nothing: cc 3 and nothing changes when any set cannot make a valid
    /// transition.
    pub fn lcctl(
        &self,
        m: &MachineModel,
        operand: u64,
        now: &MeterReading,
    ) -> Result<Cc, ProgramException> {
        let mut ignore: u64 = 0;
        if m.csvn > 3 {
            ignore |= (1 << (63 - 42)) | (1 << (63 - 58));
        }
        if m.csvn == 4 {
            ignore |= (1 << (63 - 43)) | (1 << (63 - 59));
        }
        let op = operand & !ignore;
        let installed = u64::from((m.installed_sets() & CounterSets::CPU_SETS).bits());
        let allowed = (installed << 16) | installed;
        if op & !allowed != 0 {
            return Err(ProgramException::Specification);
        }
        let want_e = CounterSets::from_bits_retain((op >> 16) as u16);
        let want_c = CounterSets::from_bits_retain(op as u16);
        loop {
            let cur = self.controls.load(Ordering::Acquire);
            let (a, e, c) = unpack(cur);
            // Every CPU counter set must be able to make its transition.
            for set in [
                CounterSet::Basic,
                CounterSet::ProblemState,
                CounterSet::CryptoActivity,
                CounterSet::Extended,
            ] {
                let bit = set.bit();
                let from = SetState::of(a.contains(bit), e.contains(bit), c.contains(bit));
                let to = SetState::of(a.contains(bit), want_e.contains(bit), want_c.contains(bit));
                let ok = match (from, to) {
                    (Some(f), Some(t)) => program_transition_allowed(f, t),
                    _ => false,
                };
                if !ok {
                    return Ok(Cc::Three);
                }
            }
            let keep = CounterSets::MT_DIAG | CounterSets::COPROCESSOR_GROUP;
            let ne = (e & keep) | (want_e & CounterSets::CPU_SETS);
            let nc = (c & keep) | (want_c & CounterSets::CPU_SETS);
            let new = pack(a, ne, nc);
            if self
                .controls
                .compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            // Counter contents follow the state change.
            for set in [
                CounterSet::Basic,
                CounterSet::ProblemState,
                CounterSet::CryptoActivity,
                CounterSet::Extended,
            ] {
                let bit = set.bit();
                let Some(sc) = self.set(set) else { continue };
                let was_e = e.contains(bit);
                let was_c = c.contains(bit);
                let is_e = ne.contains(bit);
                let is_c = nc.contains(bit);
                if was_c && !is_c {
                    // Deactivated (or disabled): stop counting.
                    self.fold(m, set, now);
                }
                if !was_e && is_e {
                    // Cleared while disabled: a newly enabled set starts from zero.
                    sc.clear();
                }
                if was_e && !is_e {
                    sc.clear();
                }
                if is_c && !was_c {
                    sc.set_snap(now);
                }
            }
            return Ok(Cc::Zero);
        }
    }

    /// Is the counter number installed and is its set enabled (and authorized)?
    fn available(&self, m: &MachineModel, n: u16) -> Option<(CounterSet, usize)> {
        let set = CounterSet::of_counter(n)?;
        let i = usize::from(n - set.first_counter());
        if i >= usize::from(m.set_size(set)) {
            return None;
        }
        let (a, e, _) = unpack(self.controls.load(Ordering::Acquire));
        if !a.contains(set.bit()) || !e.contains(set.bit()) {
            return None;
        }
        Some((set, i))
    }

    /// May a program in the problem state extract counters (ECCTR, STCCTM)? In
    /// z/Architecture when CR0 bit 15, the measurement-counter-extraction authorization, is
    /// one (SA23-2260). The facility is z/Architecture's; the plugin also offers it to S/370
    /// and ESA/390 guests (`archs=all`), whose 32-bit CR0 has no bit 15 (their CR0 is bits
    /// 32-63 of z/Architecture's): there the operator authorizes it
    /// ([`CpuCounters::set_operator_extraction`]), as the authorizations of the counter sets
    /// come "by external means".
    pub fn extraction_authorized(&self, view: &CpuView) -> bool {
        match view.arch {
            Arch::Z => view.counter_extraction_authorized(),
            Arch::S370 | Arch::Esa390 => self.operator_extraction.load(Ordering::Relaxed),
        }
    }

    /// The operator's problem-state extraction authorization for S/370 and ESA/390 (not
    /// changed by resets, like the authorization controls).
    pub fn set_operator_extraction(&self, on: bool) {
        self.operator_extraction.store(on, Ordering::Relaxed);
    }

    /// The operator's problem-state extraction authorization.
    pub fn operator_extraction(&self) -> bool {
        self.operator_extraction.load(Ordering::Relaxed)
    }

    /// EXTRACT CPU COUNTER. In the problem state extraction must be authorized
    /// ([`CpuCounters::extraction_authorized`]; privileged-operation exception otherwise);
    /// bits 0-47 of R2 must be zero (specification). `Ok(None)` is condition code 3 (counter
    /// not available).
    pub fn ecctr(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        if view.problem_state && !self.extraction_authorized(view) {
            return Err(ProgramException::PrivilegedOperation);
        }
        if r2 >> 16 != 0 {
            return Err(ProgramException::Specification);
        }
        let Some((set, i)) = self.available(m, r2 as u16) else {
            return Ok(None);
        };
        Ok(Some(self.value(m, set, i, &view.meter)))
    }

    /// SET CPU COUNTER (privilege checked by the caller). Bits 0-47 of R2 must be zero.
    pub fn scctr(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r1: u64,
        r2: u64,
    ) -> Result<Cc, ProgramException> {
        if r2 >> 16 != 0 {
            return Err(ProgramException::Specification);
        }
        let Some((set, i)) = self.available(m, r2 as u16) else {
            return Ok(Cc::Three);
        };
        let Some(sc) = self.set(set) else {
            return Ok(Cc::Three);
        };
        // While active the measured part keeps growing from the new value.
        let measured = if self.active().contains(set.bit()) {
            self.measured(m, set, i, sc, &view.meter)
        } else {
            0
        };
        if let Some(b) = sc.base.get(i) {
            b.store(r1.wrapping_sub(measured), Ordering::Relaxed);
        }
        Ok(Cc::Zero)
    }

    /// STORE CPU COUNTER MULTIPLE. Checks in this order: extraction authorization in the
    /// problem state (privileged operation); R1 bits 0-47, a reserved M3 code, operand alignment
    /// (specification); M3 = 9 in the problem state (special operation). Then cc 0/1/2/3.
    pub fn stcctm(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r1: u64,
        m3: u8,
        addr: u64,
    ) -> Result<StcctmResult, ProgramException> {
        if view.problem_state && !self.extraction_authorized(view) {
            return Err(ProgramException::PrivilegedOperation);
        }
        let set = match m3 {
            0 => CounterSet::Extended,
            1 => CounterSet::Basic,
            2 => CounterSet::ProblemState,
            3 => CounterSet::CryptoActivity,
            5 | 9 => CounterSet::MtDiagnostic,
            _ => return Err(ProgramException::Specification),
        };
        if r1 >> 16 != 0 || addr & 7 != 0 {
            return Err(ProgramException::Specification);
        }
        if view.problem_state && m3 == 9 {
            return Err(ProgramException::SpecialOperation);
        }
        let requested = r1 as u16 as usize;
        let size = usize::from(m.set_size(set));
        let (a, e, _) = unpack(self.controls.load(Ordering::Acquire));
        if requested == 0 || size == 0 || !a.contains(set.bit()) || !e.contains(set.bit()) {
            return Ok(StcctmResult {
                cc: Cc::Three,
                values: Vec::new(),
            });
        }
        let n = requested.min(size);
        let values = (0..n).map(|i| self.value(m, set, i, &view.meter)).collect();
        let cc = match requested.cmp(&size) {
            std::cmp::Ordering::Equal => Cc::Zero,
            std::cmp::Ordering::Less => Cc::One,
            std::cmp::Ordering::Greater => Cc::Two,
        };
        Ok(StcctmResult { cc, values })
    }

    /// External means: new authorization controls. A set that loses authorization becomes
    /// unauthorized (A = E = C = 0, counters cleared); if it was enabled, the
    /// counter-authorization-change alert is recognized.
    pub fn set_authorization(
        &self,
        m: &MachineModel,
        auth: CounterSets,
        now: &MeterReading,
    ) -> AlertBits {
        let auth = auth & (m.installed_sets() | CounterSets::COPROCESSOR_GROUP);
        loop {
            let cur = self.controls.load(Ordering::Acquire);
            let (a, e, c) = unpack(cur);
            let lost = a & !auth;
            let ne = e & !lost;
            let nc = c & !lost;
            let new = pack(auth, ne, nc);
            if self
                .controls
                .compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            for set in CounterSet::ALL {
                if lost.contains(set.bit()) {
                    if c.contains(set.bit()) {
                        self.fold(m, set, now);
                    }
                    if let Some(sc) = self.set(set) {
                        sc.clear();
                    }
                }
            }
            return if (lost & e & CounterSets::CPU_SETS).is_empty() {
                AlertBits::empty()
            } else {
                AlertBits::COUNTER_AUTH_CHANGE
            };
        }
    }

    /// A loss-of-CPU-counter-data alert was recognized: every active non-MT set becomes
    /// inactive.
    pub fn loss_of_counter_data(&self, m: &MachineModel, now: &MeterReading) {
        self.deactivate(m, now);
    }

    fn deactivate(&self, m: &MachineModel, now: &MeterReading) {
        let clear = u64::from(CounterSets::CPU_SETS.bits()) << 32;
        let cur = self.controls.fetch_and(!clear, Ordering::AcqRel);
        let (_, _, c) = unpack(cur);
        for set in CounterSet::ALL {
            if c.contains(set.bit()) && set != CounterSet::MtDiagnostic {
                self.fold(m, set, now);
            }
        }
    }

    /// CPU reset: activation controls are cleared (the sets stop counting, values kept).
    pub fn cpu_reset(&self, m: &MachineModel, now: &MeterReading) {
        self.deactivate(m, now);
    }

    /// Initial CPU reset, clear reset: every set disabled, counters zero; authorizations kept.
    pub fn initial_cpu_reset(&self) {
        let cur = self.controls.load(Ordering::Acquire);
        let (a, _, _) = unpack(cur);
        self.controls.store(
            pack(a, CounterSets::empty(), CounterSets::empty()),
            Ordering::Release,
        );
        for set in CounterSet::ALL {
            if let Some(sc) = self.set(set) {
                sc.clear();
            }
        }
    }

    /// A CPACF function of this CPU (counted while the crypto-activity set is active).
    pub fn crypto_event(
        &self,
        kind: CryptoFunction,
        cycles: u64,
        blocked: bool,
        blocked_cycles: u64,
    ) {
        if !self.active().contains(CounterSets::CRYPTO) {
            return;
        }
        let i = 4 * kind.index();
        let b = &self.crypto.base;
        if let (Some(f), Some(c)) = (b.get(i), b.get(i + 1)) {
            f.fetch_add(1, Ordering::Relaxed);
            c.fetch_add(cycles, Ordering::Relaxed);
        }
        if blocked {
            if let (Some(f), Some(c)) = (b.get(i + 2), b.get(i + 3)) {
                f.fetch_add(1, Ordering::Relaxed);
                c.fetch_add(blocked_cycles, Ordering::Relaxed);
            }
        }
    }

    /// Every installed counter of an enabled set (host-side collection).
    pub fn read_set(
        &self,
        m: &MachineModel,
        set: CounterSet,
        now: &MeterReading,
    ) -> Option<Vec<u64>> {
        if !self.enabled().contains(set.bit()) || self.set(set).is_none() {
            return None;
        }
        Some(
            (0..usize::from(m.set_size(set)))
                .map(|i| self.value(m, set, i, now))
                .collect(),
        )
    }
}

mod groups;
mod state;
pub use groups::CoprocessorGroups;

#[cfg(test)]
mod tests;

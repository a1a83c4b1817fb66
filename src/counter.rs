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
use crate::cpu::{CpuView, MeterReading};
use crate::model::{CounterSet, CounterSets, MachineModel};
use crate::pgm::{Cc, ProgramException};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A CPACF function family (SA23-2260, Crypto-Activity Counter Set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CryptoFunction {
    Prng,
    Sha,
    Dea,
    Aes,
    Ecc,
}

impl CryptoFunction {
    /// Index of the function's four counters (function, cycles, blocked, blocked cycles)
    /// within the crypto-activity set (counter 64 + 4 × index).
    pub fn index(self) -> usize {
        match self {
            CryptoFunction::Prng => 0,
            CryptoFunction::Sha => 1,
            CryptoFunction::Dea => 2,
            CryptoFunction::Aes => 3,
            CryptoFunction::Ecc => 4,
        }
    }
}

/// State of a counter set (Figure 2-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetState {
    Unauthorized,
    Disabled,
    Inactive,
    Active,
}

impl SetState {
    /// The state the controls A, E, C describe, or None for an invalid combination.
    pub fn of(a: bool, e: bool, c: bool) -> Option<SetState> {
        match (a, e, c) {
            (false, false, false) => Some(SetState::Unauthorized),
            (true, false, false) => Some(SetState::Disabled),
            (true, true, false) => Some(SetState::Inactive),
            (true, true, true) => Some(SetState::Active),
            _ => None,
        }
    }
}

/// Is `from -> to` a transition LCCTL/LPCTL may make (Figure 2-2)? Same-state requests
/// succeed (programming note 1); transitions to or from unauthorized need external means.
pub fn program_transition_allowed(from: SetState, to: SetState) -> bool {
    use SetState::*;
    match (from, to) {
        (a, b) if a == b => true,
        (Unauthorized, _) | (_, Unauthorized) => false,
        _ => true,
    }
}

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
}

impl Default for CpuCounters {
    fn default() -> Self {
        Self::new()
    }
}

fn pack(a: CounterSets, e: CounterSets, c: CounterSets) -> u64 {
    u64::from(a.bits()) | u64::from(e.bits()) << 16 | u64::from(c.bits()) << 32
}

fn unpack(v: u64) -> (CounterSets, CounterSets, CounterSets) {
    (
        CounterSets::from_bits_retain(v as u16),
        CounterSets::from_bits_retain((v >> 16) as u16),
        CounterSets::from_bits_retain((v >> 32) as u16),
    )
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

    /// EXTRACT CPU COUNTER. In the problem state CR0 bit 15 must be one (privileged-operation
    /// exception otherwise); bits 0-47 of R2 must be zero (specification). `Ok(None)` is
    /// condition code 3 (counter not available).
    pub fn ecctr(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        if view.problem_state && !view.counter_extraction_authorized() {
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

    /// STORE CPU COUNTER MULTIPLE. Checks in this order: CR0 bit 15 in the problem state
    /// (privileged operation); R1 bits 0-47, a reserved M3 code, operand alignment
    /// (specification); M3 = 9 in the problem state (special operation). Then cc 0/1/2/3.
    pub fn stcctm(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r1: u64,
        m3: u8,
        addr: u64,
    ) -> Result<StcctmResult, ProgramException> {
        if view.problem_state && !view.counter_extraction_authorized() {
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

/// The global counter-set-state control register and the counters of the coprocessor
/// groups (SA23-2260, Peripheral Counter Sets). The plugin installs one group (address 0)
/// attached to all CPUs when `MachineModel::coprocessor_groups` is 1.
#[derive(Debug)]
pub struct CoprocessorGroups {
    enable: AtomicBool,
    active: AtomicBool,
    address_change: AtomicBool,
    counters: [AtomicU64; 8],
}

impl Default for CoprocessorGroups {
    fn default() -> Self {
        Self::new()
    }
}

impl CoprocessorGroups {
    /// Disabled, counters zero.
    pub fn new() -> Self {
        CoprocessorGroups {
            enable: AtomicBool::new(false),
            active: AtomicBool::new(false),
            address_change: AtomicBool::new(false),
            counters: Default::default(),
        }
    }

    /// (enable, activation, coprocessor-group-address-change indicator).
    pub fn controls(&self) -> (bool, bool, bool) {
        (
            self.enable.load(Ordering::Acquire),
            self.active.load(Ordering::Acquire),
            self.address_change.load(Ordering::Acquire),
        )
    }

    /// LOAD PERIPHERAL-COUNTER-SET CONTROLS: bits 62 (enable) and 63 (activation); every other
    /// bit must be zero. cc 3 when the groups are not installed (programming note 1) or the
    /// CPU is not authorized for them (the unauthorized state can only be left by external
    /// means), or for an invalid state (activation without enable).
    pub fn lpctl(
        &self,
        m: &MachineModel,
        operand: u64,
        authorized: bool,
    ) -> Result<Cc, ProgramException> {
        if operand & !3 != 0 {
            return Err(ProgramException::Specification);
        }
        if m.coprocessor_groups == 0 {
            return Ok(Cc::Three);
        }
        let (e, c) = (operand & 2 != 0, operand & 1 != 0);
        if !authorized {
            // Setting the same (unauthorized, all zero) state succeeds.
            return Ok(if e || c { Cc::Three } else { Cc::Zero });
        }
        if c && !e {
            return Ok(Cc::Three);
        }
        let was_e = self.enable.swap(e, Ordering::AcqRel);
        self.active.store(c, Ordering::Release);
        if was_e && !e {
            for k in &self.counters {
                k.store(0, Ordering::Relaxed);
            }
            self.address_change.store(false, Ordering::Release);
        }
        if !was_e && e {
            for k in &self.counters {
                k.store(0, Ordering::Relaxed);
            }
        }
        Ok(Cc::Zero)
    }

    fn decode(
        m: &MachineModel,
        authorized: bool,
        r2: u64,
    ) -> Result<Option<usize>, ProgramException> {
        if r2 >> 24 != 0 {
            return Err(ProgramException::Specification);
        }
        let group = (r2 >> 8) as u16;
        let n = (r2 & 0xFF) as usize;
        if m.coprocessor_groups == 0 || group >= m.coprocessor_groups || n >= 8 || !authorized {
            return Ok(None);
        }
        Ok(Some(n))
    }

    /// EXTRACT PERIPHERAL COUNTER: R2 bits 40-55 group address, 56-63 counter number;
    /// bits 0-39 must be zero. `Ok(None)` is cc 3.
    pub fn epctr(
        &self,
        m: &MachineModel,
        authorized: bool,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        let Some(n) = Self::decode(m, authorized, r2)? else {
            return Ok(None);
        };
        if !self.enable.load(Ordering::Acquire) {
            return Ok(None);
        }
        Ok(Some(self.counters[n].load(Ordering::Relaxed)))
    }

    /// SET PERIPHERAL COUNTER.
    pub fn spctr(
        &self,
        m: &MachineModel,
        authorized: bool,
        r1: u64,
        r2: u64,
    ) -> Result<Cc, ProgramException> {
        let Some(n) = Self::decode(m, authorized, r2)? else {
            return Ok(Cc::Three);
        };
        if !self.enable.load(Ordering::Acquire) {
            return Ok(Cc::Three);
        }
        self.counters[n].store(r1, Ordering::Relaxed);
        Ok(Cc::Zero)
    }

    /// EXTRACT COPROCESSOR-GROUP ADDRESS: R2 bits 48-63 CPU address (bits 0-47 zero);
    /// result: R1 bits 0-31 kept, 40-55 group address, 32-39 and 56-63 zero. None is cc 3
    /// (CPU not installed).
    pub fn ecpga(
        &self,
        m: &MachineModel,
        r1: u64,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        if r2 >> 16 != 0 {
            return Err(ProgramException::Specification);
        }
        if r2 as u16 > m.max_cpu_address {
            return Ok(None);
        }
        let group: u64 = 0;
        Ok(Some((r1 & 0xFFFF_FFFF_0000_0000) | (group << 8)))
    }

    /// A function performed by a coprocessor of `group` (counted while the sets are active).
    pub fn crypto_event(
        &self,
        group: u16,
        kind: CryptoFunction,
        cycles: u64,
        blocked: bool,
        blocked_cycles: u64,
    ) {
        if group != 0 || !self.active.load(Ordering::Acquire) {
            return;
        }
        let base = match kind {
            CryptoFunction::Sha => 0,
            CryptoFunction::Dea | CryptoFunction::Aes => 4,
            CryptoFunction::Prng | CryptoFunction::Ecc => return,
        };
        self.counters[base].fetch_add(1, Ordering::Relaxed);
        self.counters[base + 1].fetch_add(cycles, Ordering::Relaxed);
        if blocked {
            self.counters[base + 2].fetch_add(1, Ordering::Relaxed);
            self.counters[base + 3].fetch_add(blocked_cycles, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn z10() -> MachineModel {
        MachineModel::for_machine_type(0x2097)
    }
    fn meter(i: u64, ns: u64, pi: u64, pns: u64) -> MeterReading {
        MeterReading {
            instructions: i,
            cpu_ns: ns,
            problem_instructions: pi,
            problem_cpu_ns: pns,
        }
    }
    fn sup(m: MeterReading) -> CpuView {
        CpuView {
            meter: m,
            ..Default::default()
        }
    }
    fn authorized(m: &MachineModel) -> CpuCounters {
        let c = CpuCounters::new();
        c.set_authorization(m, CounterSets::CPU_SETS, &MeterReading::default());
        c
    }
    /// LCCTL operand: enable halfword in bits 32-47, activation in 48-63.
    fn op(e: CounterSets, c: CounterSets) -> u64 {
        (u64::from(e.bits()) << 16) | u64::from(c.bits())
    }
    const SETS: [CounterSet; 4] = [
        CounterSet::Basic,
        CounterSet::ProblemState,
        CounterSet::CryptoActivity,
        CounterSet::Extended,
    ];

    fn put_in(c: &CpuCounters, m: &MachineModel, set: CounterSet, st: SetState) {
        let b = set.bit();
        let now = MeterReading::default();
        match st {
            SetState::Unauthorized => {
                c.set_authorization(m, c.authorization() - b, &now);
            }
            _ => {
                c.set_authorization(m, c.authorization() | b, &now);
                let (e, a) = (c.enabled(), c.active());
                let (e, a) = match st {
                    SetState::Disabled => (e - b, a - b),
                    SetState::Inactive => (e | b, a - b),
                    _ => (e | b, a | b),
                };
                assert_eq!(c.lcctl(m, op(e, a), &now), Ok(Cc::Zero));
            }
        }
    }
    fn state(c: &CpuCounters, set: CounterSet) -> Option<SetState> {
        let b = set.bit();
        SetState::of(
            c.authorization().contains(b),
            c.enabled().contains(b),
            c.active().contains(b),
        )
    }

    #[test]
    fn every_lcctl_transition_of_figure_2_2() {
        use SetState::*;
        let m = z10();
        let all = [Unauthorized, Disabled, Inactive, Active];
        for set in SETS {
            for from in all {
                for to in all {
                    // An unauthorized set only leaves (or is requested into) that state by
                    // external means; LCCTL cannot express "unauthorized" except as zeros.
                    let c = authorized(&m);
                    put_in(&c, &m, set, from);
                    let b = set.bit();
                    let (e, a) = match to {
                        Unauthorized | Disabled => (c.enabled() - b, c.active() - b),
                        Inactive => (c.enabled() | b, c.active() - b),
                        Active => (c.enabled() | b, c.active() | b),
                    };
                    let cc = c.lcctl(&m, op(e, a), &MeterReading::default()).unwrap();
                    let expect_ok = match (from, to) {
                        (Unauthorized, Unauthorized | Disabled) => true, // zeros: same state
                        (Unauthorized, _) => false,
                        _ => true,
                    };
                    assert_eq!(cc == Cc::Zero, expect_ok, "{set:?} {from:?} -> {to:?}");
                    let want = if !expect_ok {
                        from
                    } else if from == Unauthorized {
                        Unauthorized
                    } else if to == Unauthorized {
                        Disabled
                    } else {
                        to
                    };
                    assert_eq!(state(&c, set), Some(want), "{set:?} {from:?} -> {to:?}");
                }
            }
        }
    }

    #[test]
    fn lcctl_is_all_or_nothing() {
        let m = z10();
        let c = CpuCounters::new();
        c.set_authorization(&m, CounterSets::BASIC, &MeterReading::default());
        // Enabling B (allowed) and P (unauthorized): nothing changes, cc 3.
        let both = CounterSets::BASIC | CounterSets::PROBLEM_STATE;
        assert_eq!(
            c.lcctl(&m, op(both, both), &MeterReading::default()),
            Ok(Cc::Three)
        );
        assert_eq!(c.enabled(), CounterSets::empty());
        // Activation without enable is not a valid state.
        assert_eq!(
            c.lcctl(
                &m,
                op(CounterSets::empty(), CounterSets::BASIC),
                &MeterReading::default()
            ),
            Ok(Cc::Three)
        );
    }

    #[test]
    fn lcctl_reserved_bits_are_specification_exceptions() {
        let m = z10(); // CSVN 1: bits 42, 43, 58, 59 must be zero too
        let c = authorized(&m);
        for bit in (0..64).filter(|b| !(44..=47).contains(b) && !(60..=63).contains(b)) {
            assert_eq!(
                c.lcctl(&m, 1u64 << (63 - bit), &MeterReading::default()),
                Err(ProgramException::Specification),
                "bit {bit}"
            );
        }
        // CSVN 4: MT bits 42/58 and reserved 43/59 are ignored.
        let z14 = MachineModel::for_machine_type(0x3906);
        let c = authorized(&z14);
        let ignored = (1u64 << (63 - 42)) | (1 << (63 - 43)) | (1 << (63 - 58)) | (1 << (63 - 59));
        assert_eq!(
            c.lcctl(&z14, ignored, &MeterReading::default()),
            Ok(Cc::Zero)
        );
        // CSVN >= 5 (z15: 6): 43/59 must be zero, 42/58 ignored.
        let z15 = MachineModel::for_machine_type(0x8561);
        let c = authorized(&z15);
        assert_eq!(
            c.lcctl(&z15, 1 << (63 - 43), &MeterReading::default()),
            Err(ProgramException::Specification)
        );
        assert_eq!(
            c.lcctl(&z15, 1 << (63 - 42), &MeterReading::default()),
            Ok(Cc::Zero)
        );
    }

    #[test]
    fn counters_count_only_while_active_and_clear_when_disabled() {
        let m = z10();
        let c = authorized(&m);
        let b = CounterSets::BASIC | CounterSets::PROBLEM_STATE;
        let t0 = meter(1000, 1_000_000, 100, 100_000);
        assert_eq!(c.lcctl(&m, op(b, b), &t0), Ok(Cc::Zero));
        let t1 = meter(5000, 3_000_000, 2100, 600_000);
        assert_eq!(c.ecctr(&m, &sup(t1), 1), Ok(Some(4000)));
        assert_eq!(c.ecctr(&m, &sup(t1), 0), Ok(Some(2_000_000 * 4404 / 1000)));
        assert_eq!(c.ecctr(&m, &sup(t1), 33), Ok(Some(2000)));
        assert_eq!(c.ecctr(&m, &sup(t1), 32), Ok(Some(500_000 * 4404 / 1000)));
        assert_eq!(
            c.ecctr(&m, &sup(t1), 2),
            Ok(Some(0)),
            "L1 counters not modelled"
        );
        // Inactive: frozen.
        assert_eq!(c.lcctl(&m, op(b, CounterSets::empty()), &t1), Ok(Cc::Zero));
        let t2 = meter(9000, 9_000_000, 9000, 9_000_000);
        assert_eq!(c.ecctr(&m, &sup(t2), 1), Ok(Some(4000)));
        // Active again: continues from the frozen value.
        assert_eq!(c.lcctl(&m, op(b, b), &t2), Ok(Cc::Zero));
        assert_eq!(
            c.ecctr(&m, &sup(meter(9500, 9_000_000, 9000, 9_000_000)), 1),
            Ok(Some(4500))
        );
        // Disabled: not available; enabled again: zero.
        assert_eq!(c.lcctl(&m, 0, &t2), Ok(Cc::Zero));
        assert_eq!(c.ecctr(&m, &sup(t2), 1), Ok(None));
        assert_eq!(c.lcctl(&m, op(b, CounterSets::empty()), &t2), Ok(Cc::Zero));
        assert_eq!(c.ecctr(&m, &sup(t2), 1), Ok(Some(0)));
    }

    #[test]
    fn ecctr_availability_and_exceptions() {
        let m = z10();
        let c = authorized(&m);
        let all = CounterSets::CPU_SETS;
        c.lcctl(&m, op(all, CounterSets::empty()), &MeterReading::default())
            .unwrap();
        let v = sup(MeterReading::default());
        for n in [0u64, 5, 32, 37, 64, 79, 128, 159] {
            assert_eq!(c.ecctr(&m, &v, n), Ok(Some(0)), "counter {n}");
        }
        for n in [
            6u64, 31, 38, 63, 80, 127, 160, 287, 300, 448, 495, 496, 0xFFFF,
        ] {
            assert_eq!(c.ecctr(&m, &v, n), Ok(None), "counter {n}");
        }
        assert_eq!(
            c.ecctr(&m, &v, 1 << 16),
            Err(ProgramException::Specification)
        );
        let problem = CpuView {
            problem_state: true,
            ..v
        };
        assert_eq!(
            c.ecctr(&m, &problem, 1),
            Err(ProgramException::PrivilegedOperation)
        );
        let authorized_problem = CpuView {
            cr0: 1 << (63 - 15),
            ..problem
        };
        assert_eq!(c.ecctr(&m, &authorized_problem, 1), Ok(Some(0)));
        // Privileged operation takes priority over specification.
        assert_eq!(
            c.ecctr(&m, &problem, 1 << 16),
            Err(ProgramException::PrivilegedOperation)
        );
    }

    #[test]
    fn scctr_sets_inactive_and_active_counters() {
        let m = z10();
        let c = authorized(&m);
        let b = CounterSets::BASIC;
        let t0 = meter(100, 0, 0, 0);
        c.lcctl(&m, op(b, CounterSets::empty()), &t0).unwrap();
        assert_eq!(c.scctr(&m, &sup(t0), 77, 1), Ok(Cc::Zero));
        assert_eq!(c.ecctr(&m, &sup(t0), 1), Ok(Some(77)));
        c.lcctl(&m, op(b, b), &t0).unwrap();
        let t1 = meter(150, 0, 0, 0);
        assert_eq!(c.ecctr(&m, &sup(t1), 1), Ok(Some(127)));
        assert_eq!(c.scctr(&m, &sup(t1), 1000, 1), Ok(Cc::Zero));
        assert_eq!(c.ecctr(&m, &sup(meter(160, 0, 0, 0)), 1), Ok(Some(1010)));
        assert_eq!(
            c.scctr(&m, &sup(t1), 1, 33),
            Ok(Cc::Three),
            "problem set disabled"
        );
        assert_eq!(c.scctr(&m, &sup(t1), 1, 6), Ok(Cc::Three), "unassigned");
        assert_eq!(
            c.scctr(&m, &sup(t1), 1, 1 << 20),
            Err(ProgramException::Specification)
        );
    }

    #[test]
    fn stcctm_every_m3_code_and_condition_code() {
        let m = z10();
        let c = authorized(&m);
        let all = CounterSets::CPU_SETS;
        c.lcctl(&m, op(all, CounterSets::empty()), &MeterReading::default())
            .unwrap();
        let v = sup(MeterReading::default());
        let sizes = [(0u8, 32usize), (1, 6), (2, 6), (3, 16)];
        for (m3, size) in sizes {
            let r = c.stcctm(&m, &v, size as u64, m3, 0x1000).unwrap();
            assert_eq!((r.cc, r.values.len()), (Cc::Zero, size), "m3 {m3}");
            let r = c.stcctm(&m, &v, (size - 1) as u64, m3, 0x1000).unwrap();
            assert_eq!((r.cc, r.values.len()), (Cc::One, size - 1), "m3 {m3}");
            let r = c.stcctm(&m, &v, 0xFFFF, m3, 0x1000).unwrap();
            assert_eq!((r.cc, r.values.len()), (Cc::Two, size), "m3 {m3}");
            let r = c.stcctm(&m, &v, 0, m3, 0x1000).unwrap();
            assert_eq!((r.cc, r.values.len()), (Cc::Three, 0), "m3 {m3}");
        }
        for m3 in [5u8, 9] {
            let r = c.stcctm(&m, &v, 10, m3, 0x1000).unwrap();
            assert_eq!(r.cc, Cc::Three, "MT-diagnostic set not installed");
        }
        for m3 in [4u8, 6, 7, 8, 10, 11, 12, 13, 14, 15] {
            assert_eq!(
                c.stcctm(&m, &v, 1, m3, 0x1000),
                Err(ProgramException::Specification),
                "reserved m3 {m3}"
            );
        }
        assert_eq!(
            c.stcctm(&m, &v, 1, 1, 0x1004),
            Err(ProgramException::Specification)
        );
        assert_eq!(
            c.stcctm(&m, &v, 1 << 16, 1, 0x1000),
            Err(ProgramException::Specification)
        );
        let p = CpuView {
            problem_state: true,
            ..v
        };
        assert_eq!(
            c.stcctm(&m, &p, 1, 1, 0x1000),
            Err(ProgramException::PrivilegedOperation)
        );
        let pa = CpuView {
            cr0: 1 << (63 - 15),
            ..p
        };
        assert_eq!(
            c.stcctm(&m, &pa, 1, 9, 0x1000),
            Err(ProgramException::SpecialOperation)
        );
        assert_eq!(c.stcctm(&m, &pa, 1, 1, 0x1000).map(|r| r.cc), Ok(Cc::One));
        // A disabled set stores nothing.
        c.lcctl(&m, 0, &MeterReading::default()).unwrap();
        assert_eq!(c.stcctm(&m, &v, 6, 1, 0x1000).map(|r| r.cc), Ok(Cc::Three));
    }

    #[test]
    fn qctri_block_layout() {
        let m = z10();
        let c = authorized(&m);
        let cg = CoprocessorGroups::new();
        let b = CounterSets::BASIC;
        c.lcctl(
            &m,
            op(b | CounterSets::EXTENDED, b),
            &MeterReading::default(),
        )
        .unwrap();
        let q = c.qctri(&m, &cg);
        assert_eq!(&q[0..2], &[0, 1], "CFVN");
        assert_eq!(&q[2..4], &[0, 0x0F], "B, P, C, E authorized");
        assert_eq!(&q[4..6], &[0, 0x03], "E_b, E_e");
        assert_eq!(&q[6..8], &[0, 0x02], "C_b");
        assert_eq!(&q[8..10], &[0, 7], "max CPU address");
        assert_eq!(&q[10..12], &[0, 1], "CSVN");
        assert!(q[12..].iter().all(|&x| x == 0));
        // With the coprocessor group authorized and enabled.
        c.set_authorization(
            &m,
            CounterSets::CPU_SETS | CounterSets::COPROCESSOR_GROUP,
            &MeterReading::default(),
        );
        cg.lpctl(&m, 2, true).unwrap();
        let q = c.qctri(&m, &cg);
        assert_eq!(&q[2..4], &[0x80, 0x0F]);
        assert_eq!(&q[4..6], &[0x80, 0x03]);
    }

    #[test]
    fn authorization_change_alert_only_for_enabled_sets() {
        let m = z10();
        let c = authorized(&m);
        let now = MeterReading::default();
        assert!(c.set_authorization(&m, CounterSets::BASIC, &now).is_empty());
        c.lcctl(&m, op(CounterSets::BASIC, CounterSets::BASIC), &now)
            .unwrap();
        assert_eq!(
            c.set_authorization(&m, CounterSets::empty(), &now),
            AlertBits::COUNTER_AUTH_CHANGE
        );
        assert_eq!(state(&c, CounterSet::Basic), Some(SetState::Unauthorized));
    }

    #[test]
    fn resets() {
        let m = z10();
        let c = authorized(&m);
        let b = CounterSets::BASIC;
        c.lcctl(&m, op(b, b), &meter(0, 0, 0, 0)).unwrap();
        c.cpu_reset(&m, &meter(500, 0, 0, 0));
        assert_eq!(state(&c, CounterSet::Basic), Some(SetState::Inactive));
        assert_eq!(c.ecctr(&m, &sup(meter(900, 0, 0, 0)), 1), Ok(Some(500)));
        c.loss_of_counter_data(&m, &meter(900, 0, 0, 0));
        c.initial_cpu_reset();
        assert_eq!(state(&c, CounterSet::Basic), Some(SetState::Disabled));
        c.lcctl(&m, op(b, CounterSets::empty()), &meter(900, 0, 0, 0))
            .unwrap();
        assert_eq!(c.ecctr(&m, &sup(meter(900, 0, 0, 0)), 1), Ok(Some(0)));
    }

    #[test]
    fn crypto_counters_count_while_active() {
        let m = z10();
        let c = authorized(&m);
        let cs = CounterSets::CRYPTO;
        c.crypto_event(CryptoFunction::Sha, 10, false, 0);
        c.lcctl(&m, op(cs, cs), &MeterReading::default()).unwrap();
        c.crypto_event(CryptoFunction::Sha, 100, false, 0);
        c.crypto_event(CryptoFunction::Aes, 7, false, 0);
        let v = sup(MeterReading::default());
        assert_eq!(c.ecctr(&m, &v, 68), Ok(Some(1)));
        assert_eq!(c.ecctr(&m, &v, 69), Ok(Some(100)));
        assert_eq!(c.ecctr(&m, &v, 76), Ok(Some(1)));
        assert_eq!(c.ecctr(&m, &v, 77), Ok(Some(7)));
        assert_eq!(c.ecctr(&m, &v, 70), Ok(Some(0)), "never blocked");
    }

    #[test]
    fn coprocessor_group_controls_and_counters() {
        let m = z10();
        let cg = CoprocessorGroups::new();
        assert_eq!(cg.lpctl(&m, 4, true), Err(ProgramException::Specification));
        assert_eq!(
            cg.lpctl(&m, 1, true),
            Ok(Cc::Three),
            "active without enable"
        );
        assert_eq!(cg.lpctl(&m, 3, false), Ok(Cc::Three), "unauthorized");
        assert_eq!(cg.lpctl(&m, 0, false), Ok(Cc::Zero), "same state");
        assert_eq!(cg.lpctl(&m, 3, true), Ok(Cc::Zero));
        cg.crypto_event(0, CryptoFunction::Sha, 40, false, 0);
        assert_eq!(cg.epctr(&m, true, 0x00), Ok(Some(1)));
        assert_eq!(cg.epctr(&m, true, 0x01), Ok(Some(40)));
        assert_eq!(
            cg.epctr(&m, true, 0x08),
            Ok(None),
            "counter 8 not installed"
        );
        assert_eq!(cg.epctr(&m, true, 0x100), Ok(None), "group 1 not installed");
        assert_eq!(
            cg.epctr(&m, true, 1 << 24),
            Err(ProgramException::Specification)
        );
        assert_eq!(cg.spctr(&m, true, 99, 0x05), Ok(Cc::Zero));
        assert_eq!(cg.epctr(&m, true, 0x05), Ok(Some(99)));
        // Disabling clears.
        assert_eq!(cg.lpctl(&m, 0, true), Ok(Cc::Zero));
        assert_eq!(cg.epctr(&m, true, 0x05), Ok(None));
        assert_eq!(cg.lpctl(&m, 2, true), Ok(Cc::Zero));
        assert_eq!(cg.epctr(&m, true, 0x05), Ok(Some(0)));
        // ECPGA.
        assert_eq!(
            cg.ecpga(&m, 0x1234_5678_9ABC_DEF0, 3),
            Ok(Some(0x1234_5678_0000_0000))
        );
        assert_eq!(cg.ecpga(&m, 0, 8), Ok(None));
        assert_eq!(
            cg.ecpga(&m, 0, 1 << 16),
            Err(ProgramException::Specification)
        );
        // Not installed.
        let mut none = z10();
        none.coprocessor_groups = 0;
        assert_eq!(cg.lpctl(&none, 2, true), Ok(Cc::Three));
    }
}

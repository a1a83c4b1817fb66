//! The machine model the plugin presents: version numbers, counter-set sizes, CPU speed,
//! sampling limits and the authorizations set by "external means" (SA23-2260, section 2).
//!
//! The model is chosen from the CPU-ID machine type Hercules reports through STIDP so that
//! Linux's counter tables (selected by machine type and CFVN/CSVN) line up, and can be changed
//! by module parameters or the `hcpumf set` console command. It is read lock-free on the
//! instruction path through [`current`].

use bitflags::bitflags;
use std::sync::atomic::{AtomicPtr, Ordering};

bitflags! {
    /// Counter-set bits as they appear in the QCTRI authorization/enable/activation halfwords
    /// (SA23-2260, QUERY COUNTER INFORMATION: bits 0 and 10-15 of each halfword).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct CounterSets: u16 {
        /// A_e / E_e / C_e: extended counter set.
        const EXTENDED = 0x0001;
        /// A_b: basic counter set.
        const BASIC = 0x0002;
        /// A_p: problem-state counter set.
        const PROBLEM_STATE = 0x0004;
        /// A_c: crypto-activity counter set.
        const CRYPTO = 0x0008;
        /// A_r: reserved for IBM use.
        const RESERVED_IBM = 0x0010;
        /// A_m: MT-diagnostic counter set.
        const MT_DIAG = 0x0020;
        /// A_g: coprocessor-group counter sets.
        const COPROCESSOR_GROUP = 0x8000;
    }
}

impl CounterSets {
    /// The CPU counter sets LCCTL may control (not the MT-diagnostic set, whose controls only
    /// follow multithreading, nor the coprocessor groups).
    pub const CPU_SETS: CounterSets = CounterSets::EXTENDED
        .union(CounterSets::BASIC)
        .union(CounterSets::PROBLEM_STATE)
        .union(CounterSets::CRYPTO);
}

/// One CPU counter set, named as in SA23-2260.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CounterSet {
    Basic,
    ProblemState,
    CryptoActivity,
    Extended,
    MtDiagnostic,
}

impl CounterSet {
    /// All CPU counter sets in counter-number order.
    pub const ALL: [CounterSet; 5] = [
        CounterSet::Basic,
        CounterSet::ProblemState,
        CounterSet::CryptoActivity,
        CounterSet::Extended,
        CounterSet::MtDiagnostic,
    ];
    /// The control bit of the set.
    pub fn bit(self) -> CounterSets {
        match self {
            CounterSet::Basic => CounterSets::BASIC,
            CounterSet::ProblemState => CounterSets::PROBLEM_STATE,
            CounterSet::CryptoActivity => CounterSets::CRYPTO,
            CounterSet::Extended => CounterSets::EXTENDED,
            CounterSet::MtDiagnostic => CounterSets::MT_DIAG,
        }
    }
    /// First counter number of the set (Figures 2-3 to 2-9).
    pub fn first_counter(self) -> u16 {
        match self {
            CounterSet::Basic => 0,
            CounterSet::ProblemState => 32,
            CounterSet::CryptoActivity => 64,
            CounterSet::Extended => 128,
            CounterSet::MtDiagnostic => 448,
        }
    }
    /// The set a counter number belongs to, if any.
    pub fn of_counter(n: u16) -> Option<CounterSet> {
        match n {
            0..=31 => Some(CounterSet::Basic),
            32..=63 => Some(CounterSet::ProblemState),
            64..=127 => Some(CounterSet::CryptoActivity),
            128..=447 => Some(CounterSet::Extended),
            448..=495 => Some(CounterSet::MtDiagnostic),
            _ => None,
        }
    }
    /// Name used in HIS output and console messages.
    pub fn name(self) -> &'static str {
        match self {
            CounterSet::Basic => "BASIC",
            CounterSet::ProblemState => "PROBLEM-STATE",
            CounterSet::CryptoActivity => "CRYPTO-ACTIVITY",
            CounterSet::Extended => "EXTENDED",
            CounterSet::MtDiagnostic => "MT-DIAGNOSTIC",
        }
    }
}

/// The model-dependent values of the CPU-measurement facilities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineModel {
    /// CPU-ID machine type (STIDP) the model was derived from.
    pub machine_type: u16,
    /// Counter first version number (basic and problem-state sets).
    pub cfvn: u16,
    /// Counter second version number (crypto, extended, MT-diagnostic, coprocessor sets).
    pub csvn: u16,
    /// Number of extended counters installed (numbers 128 .. 128+n-1); at most the CSVN maximum.
    pub extended_counters: u16,
    /// CPU speed in cycles per microsecond (QSI bytes 44-47).
    pub cpu_speed: u32,
    /// Maximum CPU address at the basic machine level (QCTRI bytes 8-9).
    pub max_cpu_address: u16,
    /// Number of coprocessor groups installed (0: peripheral counter sets not installed).
    pub coprocessor_groups: u16,
    /// Counter sets authorized by external means on every CPU (including `COPROCESSOR_GROUP`).
    pub counter_authorization: CounterSets,
    /// Basic-sampling authorization (A_s).
    pub basic_sampling_authorized: bool,
    /// Diagnostic-sampling authorization (A_d).
    pub diagnostic_sampling_authorized: bool,
    /// Minimum sampling interval in CPU cycles (QSI bytes 8-15).
    pub min_sampling_interval: u64,
    /// Maximum sampling interval in CPU cycles (QSI bytes 16-23).
    pub max_sampling_interval: u64,
    /// Basic-sampling data-entry size (always 32 for format 0001).
    pub bsdes: u16,
    /// Diagnostic-sampling data-entry size of the emulator's format-8001 entry.
    pub dsdes: u16,
    /// Let S/370 and ESA/390 guests use the instructions too (off by default).
    pub all_architectures: bool,
    /// Store trailer timestamps in STORE CLOCK EXTENDED format (T = 1) rather than STCK.
    pub stcke_timestamps: bool,
}

/// Highest sampling rate per CPU the plugin sustains (samples per second of CPU time);
/// QSI's minimum interval is derived from it. Measured with scripts/bench.sh and the demo
/// workload: at 20,000/s the effective rate is within 1-2% of the requested one; above
/// ~30,000/s the scheduler's wake-ups can no longer keep every interval on a 2-core host.
pub const MAX_SAMPLING_RATE: u64 = 20_000;
/// Lowest sampling rate offered (samples per second); QSI's maximum interval.
pub const MIN_SAMPLING_RATE: u64 = 1;

impl MachineModel {
    /// The model for a CPU-ID machine type: version numbers and speed of that IBM machine,
    /// or a z10-compatible (1.1) model for types Linux has no tables for (Hercules' default
    /// 0586 among them).
    pub fn for_machine_type(machine_type: u16) -> MachineModel {
        // (CFVN, CSVN, cycles per microsecond)
        let (cfvn, csvn, speed) = match machine_type {
            0x2097 | 0x2098 => (1, 1, 4404), // z10
            0x2817 | 0x2818 => (1, 2, 5208), // z196 / z114
            0x2827 | 0x2828 => (1, 2, 5504), // zEC12 / zBC12
            0x2964 | 0x2965 => (1, 3, 5000), // z13 / z13s
            0x3906 | 0x3907 => (1, 4, 5208), // z14
            0x8561 | 0x8562 => (3, 6, 5200), // z15
            0x3931 | 0x3932 => (3, 7, 5200), // z16
            0x9175 | 0x9176 => (3, 8, 5500), // z17
            _ => (1, 1, 4404),
        };
        let mut m = MachineModel {
            machine_type,
            cfvn,
            csvn,
            extended_counters: 0,
            cpu_speed: speed,
            max_cpu_address: 7,
            coprocessor_groups: 1,
            counter_authorization: CounterSets::CPU_SETS | CounterSets::COPROCESSOR_GROUP,
            basic_sampling_authorized: true,
            diagnostic_sampling_authorized: true,
            min_sampling_interval: 0,
            max_sampling_interval: 0,
            bsdes: 32,
            dsdes: 64,
            all_architectures: false,
            stcke_timestamps: true,
        };
        m.extended_counters = m.max_extended_counters();
        m.set_cpu_speed(speed);
        m
    }

    /// Change the CPU speed; the sampling-interval limits follow it.
    pub fn set_cpu_speed(&mut self, speed: u32) {
        let speed = speed.max(1);
        self.cpu_speed = speed;
        self.min_sampling_interval = (u64::from(speed) * 1_000_000 / MAX_SAMPLING_RATE).max(1);
        self.max_sampling_interval = u64::from(speed) * 1_000_000 / MIN_SAMPLING_RATE;
    }

    /// Maximum number of extended counters for the CSVN (SA23-2260, Extended Counter Set).
    pub fn max_extended_counters(&self) -> u16 {
        match self.csvn {
            0 => 0,
            1 => 32,
            2 => 48,
            3..=5 => 128,
            _ => 160,
        }
    }

    /// Number of counters installed in a CPU counter set.
    pub fn set_size(&self, set: CounterSet) -> u16 {
        match set {
            CounterSet::Basic => {
                if self.cfvn >= 1 {
                    6
                } else {
                    0
                }
            }
            CounterSet::ProblemState => match self.cfvn {
                1 => 6,
                3.. => 2,
                _ => 0,
            },
            CounterSet::CryptoActivity => match self.csvn {
                1..=5 => 16,
                6.. => 20,
                _ => 0,
            },
            CounterSet::Extended => self.extended_counters.min(self.max_extended_counters()),
            // No multithreading in Hercules: the MT-diagnostic set is not installed.
            CounterSet::MtDiagnostic => 0,
        }
    }

    /// The CPU counter sets installed in this model.
    pub fn installed_sets(&self) -> CounterSets {
        let mut s = CounterSets::empty();
        for set in CounterSet::ALL {
            if self.set_size(set) > 0 {
                s |= set.bit();
            }
        }
        if self.coprocessor_groups > 0 {
            s |= CounterSets::COPROCESSOR_GROUP;
        }
        s
    }

    /// Sampling rate in samples per second for an interval (QSI programming note 2).
    pub fn rate_for_interval(&self, interval: u64) -> u64 {
        u64::from(self.cpu_speed) * 1_000_000 / interval.max(1)
    }
}

impl Default for MachineModel {
    fn default() -> Self {
        MachineModel::for_machine_type(0x2097)
    }
}

static CURRENT: AtomicPtr<MachineModel> = AtomicPtr::new(std::ptr::null_mut());

/// The model in force. Lock-free; replaced models are intentionally leaked (they change only
/// on operator command, a handful of times per run) so that readers never see a freed model.
pub fn current() -> &'static MachineModel {
    let p = CURRENT.load(Ordering::Acquire);
    if p.is_null() {
        install(MachineModel::default())
    } else {
        // SAFETY: non-null pointers stored in CURRENT come from Box::leak and are never freed.
        unsafe { &*p }
    }
}

/// Put a new model in force and return it.
pub fn install(model: MachineModel) -> &'static MachineModel {
    let leaked: &'static mut MachineModel = Box::leak(Box::new(model));
    CURRENT.store(leaked, Ordering::Release);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_sizes_follow_version_numbers() {
        let z10 = MachineModel::for_machine_type(0x2097);
        assert_eq!((z10.cfvn, z10.csvn), (1, 1));
        assert_eq!(z10.set_size(CounterSet::Basic), 6);
        assert_eq!(z10.set_size(CounterSet::ProblemState), 6);
        assert_eq!(z10.set_size(CounterSet::CryptoActivity), 16);
        assert_eq!(z10.set_size(CounterSet::Extended), 32);
        let z16 = MachineModel::for_machine_type(0x3931);
        assert_eq!((z16.cfvn, z16.csvn), (3, 7));
        assert_eq!(z16.set_size(CounterSet::ProblemState), 2);
        assert_eq!(z16.set_size(CounterSet::CryptoActivity), 20);
        assert_eq!(z16.set_size(CounterSet::Extended), 160);
    }

    #[test]
    fn sampling_limits_follow_speed() {
        let mut m = MachineModel::default();
        m.set_cpu_speed(1000);
        assert_eq!(m.min_sampling_interval, 50_000);
        assert_eq!(
            m.rate_for_interval(m.min_sampling_interval),
            MAX_SAMPLING_RATE
        );
        assert!(m.max_sampling_interval >= m.min_sampling_interval);
    }

    #[test]
    fn counter_numbers_map_to_sets() {
        assert_eq!(CounterSet::of_counter(1), Some(CounterSet::Basic));
        assert_eq!(CounterSet::of_counter(33), Some(CounterSet::ProblemState));
        assert_eq!(CounterSet::of_counter(83), Some(CounterSet::CryptoActivity));
        assert_eq!(CounterSet::of_counter(287), Some(CounterSet::Extended));
        assert_eq!(CounterSet::of_counter(448), Some(CounterSet::MtDiagnostic));
        assert_eq!(CounterSet::of_counter(496), None);
    }
}

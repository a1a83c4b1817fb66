//! The CPU counter sets as SA23-2260 numbers them ("CPU-Measurement Counter Facility",
//! Figures 2-3 to 2-9) and their bits in the QCTRI authorization, enable and activation
//! halfwords: shared by the architecture (`hcpumf-arch`) and the .CNT format, which names
//! each counter by its set.

use bitflags::bitflags;

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

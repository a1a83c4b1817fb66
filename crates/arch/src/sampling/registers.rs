//! The sampling control registers of a CPU (SA23-2260, "Sampling Control Registers", "State
//! of Sampling Function", Figures 2-11 and 2-12): the state controls of the two sampling
//! functions, the maximum-buffer-size and host indicators, the sampling interval, TEAR and
//! DEAR, held in atomics: the CPU's own thread runs the instructions and the update process,
//! the console changes authorizations.

use bitflags::bitflags;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

bitflags! {
    /// The sampling-function-state control register plus S and H, packed into one atomic word
    /// (the packing is the emulator's own; the instructions' blocks have their layouts below).
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

impl SamplingControls {
    /// Both authorization controls: the only controls resets and a disabling LSCTL keep.
    pub const AUTHORIZATIONS: SamplingControls = SamplingControls::AS.union(SamplingControls::AD);
    /// Both enable controls.
    pub const ENABLES: SamplingControls = SamplingControls::ES.union(SamplingControls::ED);
    /// Both activation controls.
    pub const ACTIVATIONS: SamplingControls = SamplingControls::CS.union(SamplingControls::CD);

    /// The state of one sampling function (Figure 2-11), None for an invalid combination.
    pub fn state(self, f: SamplingFunction) -> Option<FunctionState> {
        let [a, e, c] = f.controls();
        FunctionState::of(self.contains(a), self.contains(e), self.contains(c))
    }
}

/// The two sampling functions ("CPU-Measurement Sampling Facility").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplingFunction {
    /// Basic sampling.
    Basic,
    /// Diagnostic sampling.
    Diagnostic,
}

impl SamplingFunction {
    /// Both functions.
    pub const ALL: [SamplingFunction; 2] = [SamplingFunction::Basic, SamplingFunction::Diagnostic];
    /// The function's authorization, enable and activation controls.
    pub fn controls(self) -> [SamplingControls; 3] {
        match self {
            SamplingFunction::Basic => [
                SamplingControls::AS,
                SamplingControls::ES,
                SamplingControls::CS,
            ],
            SamplingFunction::Diagnostic => [
                SamplingControls::AD,
                SamplingControls::ED,
                SamplingControls::CD,
            ],
        }
    }
}

/// The state of a sampling function (SA23-2260, "State of Sampling Function", Figure 2-11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionState {
    /// A E C = 0 0 0.
    Unauthorized,
    /// A E C = 1 0 0.
    Disabled,
    /// A E C = 1 1 0.
    Inactive,
    /// A E C = 1 1 1.
    Active,
}

impl FunctionState {
    /// Figure 2-11: the state of controls A, E, C; "all other combinations of A, E, and C are
    /// invalid".
    pub fn of(a: bool, e: bool, c: bool) -> Option<FunctionState> {
        match (a, e, c) {
            (false, false, false) => Some(FunctionState::Unauthorized),
            (true, false, false) => Some(FunctionState::Disabled),
            (true, true, false) => Some(FunctionState::Inactive),
            (true, true, true) => Some(FunctionState::Active),
            _ => None,
        }
    }
    /// Figure 2-12: may LOAD SAMPLING CONTROLS take a function from `self` to `to`? Setting the
    /// same state succeeds (note *; LSCTL programming note 1); the unauthorized state is left
    /// and entered only by external control; every other change among disabled, inactive and
    /// active is an LSCTL action.
    pub fn lsctl_may_set(self, to: FunctionState) -> bool {
        use FunctionState::*;
        match (self, to) {
            (a, b) if a == b => true,
            (Unauthorized, _) | (_, Unauthorized) => false,
            _ => true,
        }
    }
}

/// The sampling control registers of one CPU.
#[derive(Debug, Default)]
pub struct CpuSampling {
    pub(super) ctl: AtomicU32,
    pub(super) interval: AtomicU64,
    pub(super) tear: AtomicU64,
    pub(super) dear: AtomicU64,
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

    /// Interval, TEAR and DEAR to zeros (with S and H cleared by the caller): "cleared to zeros
    /// by ... LOAD SAMPLING CONTROLS that disables all sampling functions".
    pub(super) fn clear_registers(&self) {
        self.interval.store(0, Ordering::Relaxed);
        self.tear.store(0, Ordering::Relaxed);
        self.dear.store(0, Ordering::Relaxed);
    }

    /// Every active function becomes inactive.
    pub(super) fn deactivate(&self) {
        self.ctl
            .fetch_and(!SamplingControls::ACTIVATIONS.bits(), Ordering::AcqRel);
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
        self.ctl
            .fetch_and(SamplingControls::AUTHORIZATIONS.bits(), Ordering::AcqRel);
        self.clear_registers();
    }
}

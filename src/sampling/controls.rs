//! Sampling functions and their state controls; QUERY SAMPLING INFORMATION and LOAD SAMPLING
//! CONTROLS.

use super::CpuSampling;
use crate::alerts::AlertBits;
use crate::counter::{program_transition_allowed, SetState};
use crate::model::MachineModel;
use crate::pgm::{Cc, ProgramException};
use bitflags::bitflags;
use std::sync::atomic::Ordering;

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

/// What LOAD SAMPLING CONTROLS did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LsctlOutcome {
    /// Condition code: 0 controls set, 3 not set.
    pub cc: Cc,
    /// Pending alert requests to clear (no sampling function is enabled any more).
    pub clear_alerts: AlertBits,
}

impl CpuSampling {
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
}

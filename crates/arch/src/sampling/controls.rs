//! The instructions that set and read the sampling controls (SA23-2260): LOAD SAMPLING
//! CONTROLS with its request block (Figure 2-26) and QUERY SAMPLING INFORMATION with its
//! information block (Figure 2-28).

use super::buffer::{Dear, Tear};
use super::registers::{CpuSampling, FunctionState, SamplingControls, SamplingFunction};
use crate::alerts::AlertBits;
use crate::model::MachineModel;
use crate::pgm::{Cc, ProgramException};
use bitflags::bitflags;
use std::sync::atomic::Ordering;

/// What LOAD SAMPLING CONTROLS did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LsctlOutcome {
    /// Condition code: 0 controls set, 3 not set.
    pub cc: Cc,
    /// Pending alert requests to clear (no sampling function is enabled any more).
    pub clear_alerts: AlertBits,
}

/// The LOAD SAMPLING CONTROLS request block (Figure 2-26; layout in cpumf-clients.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LsctlRequest {
    /// Bit 0, S: maximum-buffer-size indicator.
    pub s: bool,
    /// Bit 1, H: host indicator.
    pub h: bool,
    /// Bit 54, E_s.
    pub es: bool,
    /// Bit 55, E_d.
    pub ed: bool,
    /// Bit 62, C_s.
    pub cs: bool,
    /// Bit 63, C_d.
    pub cd: bool,
    /// Bytes 8-15: sampling interval in CPU cycles.
    pub interval: u64,
    /// Bytes 16-23: TEAR contents.
    pub tear: Tear,
    /// Bytes 24-31: DEAR contents.
    pub dear: Dear,
}

bitflags! {
    /// Doubleword 0 of the LSCTL request block (Figure 2-26), bit n (MSB-0) = 1 << (63 - n).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct LsctlBits: u64 {
        /// Bit 0, S: maximum-buffer-size indicator.
        const S = 1 << 63;
        /// Bit 1, H: host indicator.
        const H = 1 << 62;
        /// Bit 54, E_s.
        const ES = 1 << (63 - 54);
        /// Bit 55, E_d.
        const ED = 1 << (63 - 55);
        /// Bit 62, C_s.
        const CS = 1 << (63 - 62);
        /// Bit 63, C_d.
        const CD = 1;
    }
}

impl LsctlRequest {
    /// Bits 2-53 and 56-61 "must be zeros; otherwise, a specification exception is recognized".
    pub const RESERVED: u64 = !LsctlBits::all().bits();

    /// Decode the request block; bytes 32-63 are ignored.
    pub fn decode(b: &[u8; 64]) -> Result<LsctlRequest, ProgramException> {
        let d = |k: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[k..k + 8]);
            u64::from_be_bytes(x)
        };
        let w0 = LsctlBits::from_bits(d(0)).ok_or(ProgramException::Specification)?;
        Ok(LsctlRequest {
            s: w0.contains(LsctlBits::S),
            h: w0.contains(LsctlBits::H),
            es: w0.contains(LsctlBits::ES),
            ed: w0.contains(LsctlBits::ED),
            cs: w0.contains(LsctlBits::CS),
            cd: w0.contains(LsctlBits::CD),
            interval: d(8),
            tear: Tear(d(16)),
            dear: Dear(d(24)),
        })
    }

    /// Encode the request block (bytes 32-63 zero, as programming note 2 asks).
    pub fn encode(&self) -> [u8; 64] {
        let mut w0 = LsctlBits::empty();
        w0.set(LsctlBits::S, self.s);
        w0.set(LsctlBits::H, self.h);
        w0.set(LsctlBits::ES, self.es);
        w0.set(LsctlBits::ED, self.ed);
        w0.set(LsctlBits::CS, self.cs);
        w0.set(LsctlBits::CD, self.cd);
        let mut b = [0u8; 64];
        b[0..8].copy_from_slice(&w0.bits().to_be_bytes());
        b[8..16].copy_from_slice(&self.interval.to_be_bytes());
        b[16..24].copy_from_slice(&self.tear.0.to_be_bytes());
        b[24..32].copy_from_slice(&self.dear.0.to_be_bytes());
        b
    }

    /// The requested enable and activation controls.
    pub fn state_controls(&self) -> SamplingControls {
        let mut c = SamplingControls::empty();
        c.set(SamplingControls::ES, self.es);
        c.set(SamplingControls::ED, self.ed);
        c.set(SamplingControls::CS, self.cs);
        c.set(SamplingControls::CD, self.cd);
        c
    }
}

bitflags! {
    /// Bytes 0-3 of the QSI information block (Figure 2-28): the sampling state controls, bit n
    /// (MSB-0) = 1 << (31 - n).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct QsiStateBits: u32 {
        /// Bit 14, A_s.
        const AS = 1 << (31 - 14);
        /// Bit 15, A_d.
        const AD = 1 << (31 - 15);
        /// Bit 22, E_s.
        const ES = 1 << (31 - 22);
        /// Bit 23, E_d.
        const ED = 1 << (31 - 23);
        /// Bit 30, C_s.
        const CS = 1 << (31 - 30);
        /// Bit 31, C_d.
        const CD = 1;
    }
}

/// The pairs of state-control bits: the emulator's register, the QSI word.
const QSI_STATE: [(SamplingControls, QsiStateBits); 6] = [
    (SamplingControls::AS, QsiStateBits::AS),
    (SamplingControls::AD, QsiStateBits::AD),
    (SamplingControls::ES, QsiStateBits::ES),
    (SamplingControls::ED, QsiStateBits::ED),
    (SamplingControls::CS, QsiStateBits::CS),
    (SamplingControls::CD, QsiStateBits::CD),
];

/// The QUERY SAMPLING INFORMATION information block (Figure 2-28; layout in
/// cpumf-clients.md §1). Reserved fields are stored as zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct QsiBlock {
    /// Bytes 0-3: the state controls (A_s bit 14, A_d 15, E_s 22, E_d 23, C_s 30, C_d 31).
    pub controls: SamplingControls,
    /// Bytes 4-5: basic-sampling data-entry size.
    pub bsdes: u16,
    /// Bytes 6-7: diagnostic-sampling data-entry size.
    pub dsdes: u16,
    /// Bytes 8-15: minimum sampling interval in CPU cycles.
    pub min_interval: u64,
    /// Bytes 16-23: maximum sampling interval in CPU cycles.
    pub max_interval: u64,
    /// Bytes 24-31: TEAR contents (zeros when no function is enabled).
    pub tear: Tear,
    /// Bytes 32-39: DEAR contents (zeros when no function is enabled).
    pub dear: Dear,
    /// Byte 43: reserved for IBM use (bit 0x01: sampling temporarily not available).
    pub ribm: u8,
    /// Bytes 44-47: CPU speed in cycles per microsecond.
    pub cpu_speed: u32,
}

impl QsiBlock {
    /// Encode the 64-byte information block.
    pub fn encode(&self) -> [u8; 64] {
        let mut w = QsiStateBits::empty();
        for (c, q) in QSI_STATE {
            w.set(q, self.controls.contains(c));
        }
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&w.bits().to_be_bytes());
        b[4..6].copy_from_slice(&self.bsdes.to_be_bytes());
        b[6..8].copy_from_slice(&self.dsdes.to_be_bytes());
        b[8..16].copy_from_slice(&self.min_interval.to_be_bytes());
        b[16..24].copy_from_slice(&self.max_interval.to_be_bytes());
        b[24..32].copy_from_slice(&self.tear.0.to_be_bytes());
        b[32..40].copy_from_slice(&self.dear.0.to_be_bytes());
        b[43] = self.ribm;
        b[44..48].copy_from_slice(&self.cpu_speed.to_be_bytes());
        b
    }

    /// Decode an information block (what a program sees).
    pub fn decode(b: &[u8; 64]) -> QsiBlock {
        let d = |k: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[k..k + 8]);
            u64::from_be_bytes(x)
        };
        let w = QsiStateBits::from_bits_retain(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        let mut c = SamplingControls::empty();
        for (sc, q) in QSI_STATE {
            c.set(sc, w.contains(q));
        }
        QsiBlock {
            controls: c,
            bsdes: u16::from_be_bytes([b[4], b[5]]),
            dsdes: u16::from_be_bytes([b[6], b[7]]),
            min_interval: d(8),
            max_interval: d(16),
            tear: Tear(d(24)),
            dear: Dear(d(32)),
            ribm: b[43],
            cpu_speed: u32::from_be_bytes([b[44], b[45], b[46], b[47]]),
        }
    }
}

impl CpuSampling {
    /// QUERY SAMPLING INFORMATION: the 64-byte information block (Figure 2-28). TEAR and DEAR
    /// are reported only while a function is enabled; RIBM is zero (sampling available).
    pub fn qsi(&self, m: &MachineModel) -> [u8; 64] {
        let c = self.controls();
        let enabled = c.intersects(SamplingControls::ENABLES);
        QsiBlock {
            controls: c
                & (SamplingControls::AUTHORIZATIONS
                    | SamplingControls::ENABLES
                    | SamplingControls::ACTIVATIONS),
            bsdes: m.bsdes,
            dsdes: m.dsdes,
            min_interval: m.min_sampling_interval,
            max_interval: m.max_sampling_interval,
            tear: if enabled { Tear(self.tear()) } else { Tear(0) },
            dear: if enabled { Dear(self.dear()) } else { Dear(0) },
            ribm: 0,
            cpu_speed: m.cpu_speed,
        }
        .encode()
    }

    /// LOAD SAMPLING CONTROLS with the 64-byte request block (Figure 2-26).
    ///
    /// Bits 2-53 and 56-61 must be zero (specification). A function to be set active from
    /// the disabled, inactive or active state needs an interval within QSI's range
    /// (specification, nothing changed). Both functions are set only if both can make a valid
    /// transition (Figure 2-12; same state succeeds), else cc 3. The additional controls (S,
    /// H, interval, TEAR, DEAR) are loaded only when a function is set active. Disabling both
    /// functions clears every control but the authorizations ("Sampling Control Registers").
    pub fn lsctl(
        &self,
        m: &MachineModel,
        block: &[u8; 64],
    ) -> Result<LsctlOutcome, ProgramException> {
        let req = LsctlRequest::decode(block)?;
        let want = req.state_controls();
        loop {
            let cur_bits = self.ctl.load(Ordering::Acquire);
            let cur = SamplingControls::from_bits_retain(cur_bits);
            let auth = cur & SamplingControls::AUTHORIZATIONS;
            // "To be set to the active state": authorized with E = C = 1 requested. E = 0 with
            // C = 1 is no state at all (Figure 2-11), a cc-3 request, not an activation.
            let target = auth | want;
            let activating = SamplingFunction::ALL
                .iter()
                .any(|&f| target.state(f) == Some(FunctionState::Active));
            if activating
                && !(m.min_sampling_interval..=m.max_sampling_interval).contains(&req.interval)
            {
                return Err(ProgramException::Specification);
            }
            let valid =
                SamplingFunction::ALL
                    .iter()
                    .all(|&f| match (cur.state(f), target.state(f)) {
                        (Some(from), Some(to)) => from.lsctl_may_set(to),
                        _ => false,
                    });
            if !valid {
                return Ok(LsctlOutcome {
                    cc: Cc::Three,
                    clear_alerts: AlertBits::empty(),
                });
            }
            let enabled = want.intersects(SamplingControls::ENABLES);
            let mut new = target;
            if activating {
                new.set(SamplingControls::S, req.s);
                new.set(SamplingControls::H, req.h);
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
                self.interval.store(req.interval, Ordering::Relaxed);
                self.tear.store(req.tear.0, Ordering::Relaxed);
                self.dear.store(req.dear.0, Ordering::Relaxed);
            } else if !enabled {
                self.clear_registers();
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
    /// unauthorized (Figure 2-12, "External control"); if it was enabled, the
    /// sampling-authorization-change alert is recognized (SA23-2260, Measurement Alert).
    pub fn set_authorization(&self, basic: bool, diagnostic: bool) -> AlertBits {
        loop {
            let cur_bits = self.ctl.load(Ordering::Acquire);
            let cur = SamplingControls::from_bits_retain(cur_bits);
            let mut new = cur;
            let mut alert = false;
            for (auth, f) in [
                (basic, SamplingFunction::Basic),
                (diagnostic, SamplingFunction::Diagnostic),
            ] {
                let [a, e, c] = f.controls();
                if auth {
                    new |= a;
                } else {
                    if cur.contains(a) && cur.contains(e) {
                        alert = true;
                    }
                    new -= a | e | c;
                }
            }
            if !new.intersects(SamplingControls::ENABLES) {
                new -= SamplingControls::S | SamplingControls::H;
            }
            if self
                .ctl
                .compare_exchange(cur_bits, new.bits(), Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            if !new.intersects(SamplingControls::ENABLES) {
                self.clear_registers();
            }
            return if alert {
                AlertBits::SAMPLING_AUTH_CHANGE
            } else {
                AlertBits::empty()
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_2_11_states() {
        use FunctionState::*;
        let mut seen = vec![];
        for a in [false, true] {
            for e in [false, true] {
                for c in [false, true] {
                    seen.push(((a, e, c), FunctionState::of(a, e, c)));
                }
            }
        }
        let valid: Vec<_> = seen.iter().filter(|(_, s)| s.is_some()).collect();
        assert_eq!(
            valid,
            vec![
                &((false, false, false), Some(Unauthorized)),
                &((true, false, false), Some(Disabled)),
                &((true, true, false), Some(Inactive)),
                &((true, true, true), Some(Active)),
            ]
        );
    }

    #[test]
    fn figure_2_12_lsctl_transitions() {
        use FunctionState::*;
        let all = [Unauthorized, Disabled, Inactive, Active];
        for from in all {
            for to in all {
                // LSCTL rows of Figure 2-12: everything among disabled/inactive/active, the
                // same state always ("-*"), never into or out of unauthorized.
                let expect = from == to || (from != Unauthorized && to != Unauthorized);
                assert_eq!(from.lsctl_may_set(to), expect, "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn request_block_layout() {
        let r = LsctlRequest {
            s: true,
            h: true,
            es: true,
            ed: true,
            cs: true,
            cd: true,
            interval: 0x0102_0304_0506_0708,
            tear: Tear(0x1112_1314_1516_1718),
            dear: Dear(0x2122_2324_2526_2728),
        };
        let b = r.encode();
        assert_eq!(&b[0..8], &[0xC0, 0, 0, 0, 0, 0, 0x03, 0x03]);
        assert_eq!(&b[8..16], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(b[16], 0x11);
        assert_eq!(b[24], 0x21);
        assert_eq!(LsctlRequest::decode(&b), Ok(r));
        // Bytes 32-63 are ignored.
        let mut b2 = b;
        b2[32..].fill(0xFF);
        assert_eq!(LsctlRequest::decode(&b2), Ok(r));
        // Every reserved bit of the first doubleword is a specification exception.
        for bit in (2..54).chain(56..62) {
            let mut b3 = b;
            b3[bit / 8] |= 0x80 >> (bit % 8);
            assert_eq!(
                LsctlRequest::decode(&b3),
                Err(ProgramException::Specification),
                "bit {bit}"
            );
        }
    }

    #[test]
    fn information_block_layout() {
        let q = QsiBlock {
            controls: SamplingControls::AS | SamplingControls::ED | SamplingControls::CS,
            bsdes: 32,
            dsdes: 85,
            min_interval: 4,
            max_interval: 5,
            tear: Tear(6),
            dear: Dear(7),
            ribm: 0,
            cpu_speed: 4404,
        };
        let b = q.encode();
        assert_eq!(&b[0..4], &[0, 0x02, 0x01, 0x02]);
        assert_eq!(&b[4..8], &[0, 32, 0, 85]);
        assert_eq!(b[15], 4);
        assert_eq!(b[23], 5);
        assert_eq!(b[31], 6);
        assert_eq!(b[39], 7);
        assert_eq!(&b[40..44], &[0; 4]);
        assert_eq!(&b[44..48], &4404u32.to_be_bytes());
        assert_eq!(&b[48..], &[0; 16]);
        assert_eq!(QsiBlock::decode(&b), q);
    }
}

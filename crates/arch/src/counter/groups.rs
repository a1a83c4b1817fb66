//! The coprocessor-group counter sets (SA23-2260, "Peripheral Counter Sets"): the global
//! counter-set-state control register and the instructions LPCTL, EPCTR, SPCTR and ECPGA.

use crate::crypto::CryptoFunction;
use crate::model::MachineModel;
use crate::pgm::{Cc, ProgramException};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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

    /// Back to the state of a machine just powered on: disabled, counters zero.
    pub fn reset(&self) {
        self.enable.store(false, Ordering::Release);
        self.active.store(false, Ordering::Release);
        self.address_change.store(false, Ordering::Release);
        for c in &self.counters {
            c.store(0, Ordering::Relaxed);
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

//! TEMPORARY integration shim (replaced by the sampling facility module).
#![allow(missing_docs, unused)]
use crate::alerts::AlertBits;
use crate::cpu::CpuView;
use crate::model::MachineModel;
use crate::pgm::{Cc, ProgramException};
use crate::storage::GuestStorage;
#[derive(Default)]
pub struct CpuSampling;
pub struct LsctlOutcome {
    pub cc: Cc,
    pub clear_alerts: AlertBits,
}
pub struct SampleOutcome {
    pub alerts: AlertBits,
    pub stored: bool,
    pub overflowed: bool,
}
impl CpuSampling {
    pub fn new() -> Self {
        CpuSampling
    }
    pub fn qsi(&self, m: &MachineModel) -> [u8; 64] {
        [0; 64]
    }
    pub fn lsctl(
        &self,
        m: &MachineModel,
        block: &[u8; 64],
    ) -> Result<LsctlOutcome, ProgramException> {
        Ok(LsctlOutcome {
            cc: Cc::Three,
            clear_alerts: AlertBits::empty(),
        })
    }
    pub fn set_authorization(&self, basic: bool, diagnostic: bool) -> AlertBits {
        AlertBits::empty()
    }
    pub fn any_enabled(&self) -> bool {
        false
    }
    pub fn any_active(&self) -> bool {
        false
    }
    pub fn interval(&self) -> u64 {
        0
    }
    pub fn take_sample(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        view: &CpuView,
        pp: u64,
    ) -> SampleOutcome {
        SampleOutcome {
            alerts: AlertBits::empty(),
            stored: false,
            overflowed: false,
        }
    }
    pub fn loss_of_sample_data(&self) {}
    pub fn cpu_reset(&self) {}
    pub fn initial_cpu_reset(&self) {}
    pub fn tear(&self) -> u64 {
        0
    }
    pub fn dear(&self) -> u64 {
        0
    }
}
pub fn basic_entry_bytes(view: &CpuView, gpp: u64, hpp: u64, h: bool) -> [u8; 32] {
    [0; 32]
}
pub fn diagnostic_entry_bytes(m: &MachineModel, view: &CpuView) -> Vec<u8> {
    vec![]
}

//! TEMPORARY integration shim (replaced by the counter facility module).
#![allow(missing_docs, unused)]
use crate::alerts::AlertBits;
use crate::cpu::{CpuView, MeterReading};
use crate::model::{CounterSet, CounterSets, MachineModel};
use crate::pgm::{Cc, ProgramException};
#[derive(Default)]
pub struct CpuCounters;
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CryptoFunction {
    Prng,
    Sha,
    Dea,
    Aes,
    Ecc,
}
pub struct StcctmResult {
    pub cc: Cc,
    pub values: Vec<u64>,
}
#[derive(Default)]
pub struct CoprocessorGroups;
impl CoprocessorGroups {
    pub fn new() -> Self {
        CoprocessorGroups
    }
    pub fn lpctl(
        &self,
        m: &MachineModel,
        operand: u64,
        authorized: bool,
    ) -> Result<Cc, ProgramException> {
        Ok(Cc::Three)
    }
    pub fn epctr(
        &self,
        m: &MachineModel,
        authorized: bool,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        Ok(None)
    }
    pub fn spctr(
        &self,
        m: &MachineModel,
        authorized: bool,
        r1: u64,
        r2: u64,
    ) -> Result<Cc, ProgramException> {
        Ok(Cc::Three)
    }
    pub fn ecpga(
        &self,
        m: &MachineModel,
        r1: u64,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        Ok(None)
    }
    pub fn crypto_event(
        &self,
        group: u16,
        kind: CryptoFunction,
        cycles: u64,
        blocked: bool,
        blocked_cycles: u64,
    ) {
    }
}
impl CpuCounters {
    pub fn new() -> Self {
        CpuCounters
    }
    pub fn qctri(&self, m: &MachineModel, cg: &CoprocessorGroups) -> [u8; 64] {
        [0; 64]
    }
    pub fn lcctl(
        &self,
        m: &MachineModel,
        operand: u64,
        now: &MeterReading,
    ) -> Result<Cc, ProgramException> {
        Ok(Cc::Three)
    }
    pub fn ecctr(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r2: u64,
    ) -> Result<Option<u64>, ProgramException> {
        Ok(None)
    }
    pub fn scctr(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r1: u64,
        r2: u64,
    ) -> Result<Cc, ProgramException> {
        Ok(Cc::Three)
    }
    pub fn stcctm(
        &self,
        m: &MachineModel,
        view: &CpuView,
        r1: u64,
        m3: u8,
        addr: u64,
    ) -> Result<StcctmResult, ProgramException> {
        Ok(StcctmResult {
            cc: Cc::Three,
            values: vec![],
        })
    }
    pub fn set_authorization(
        &self,
        m: &MachineModel,
        auth: CounterSets,
        now: &MeterReading,
    ) -> AlertBits {
        AlertBits::empty()
    }
    pub fn authorization(&self) -> CounterSets {
        CounterSets::empty()
    }
    pub fn enabled(&self) -> CounterSets {
        CounterSets::empty()
    }
    pub fn active(&self) -> CounterSets {
        CounterSets::empty()
    }
    pub fn loss_of_counter_data(&self, now: &MeterReading) {}
    pub fn cpu_reset(&self, now: &MeterReading) {}
    pub fn initial_cpu_reset(&self) {}
    pub fn crypto_event(
        &self,
        kind: CryptoFunction,
        cycles: u64,
        blocked: bool,
        blocked_cycles: u64,
    ) {
    }
    pub fn read_set(
        &self,
        m: &MachineModel,
        set: CounterSet,
        now: &MeterReading,
    ) -> Option<Vec<u64>> {
        None
    }
    pub fn any_enabled(&self) -> bool {
        false
    }
}

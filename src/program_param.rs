//! TEMPORARY integration shim.
#![allow(missing_docs, unused)]
#[derive(Default)]
pub struct ProgramParameter(std::sync::atomic::AtomicU64);
impl ProgramParameter {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn lpp(&self, value: u64, sampling_enabled: bool) {}
    pub fn get(&self) -> u64 {
        0
    }
    pub fn clear(&self) {}
}

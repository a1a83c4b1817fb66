//! The load-program-parameter facility (SA23-2260, section 1): one 64-bit program-parameter
//! register per CPU, loaded by LOAD PROGRAM PARAMETER only while a sampling function is
//! enabled, cleared by initial CPU reset and clear reset.

use std::sync::atomic::{AtomicU64, Ordering};

/// The program-parameter register of one CPU, and how many times it was loaded or cleared
/// (a reader on another thread compares that count before and after it reads the CPU, to
/// tell whether the register it pairs with the CPU's state is the one the CPU had then).
#[derive(Debug, Default)]
pub struct ProgramParameter(AtomicU64, AtomicU64);

impl ProgramParameter {
    /// A cleared register.
    pub fn new() -> Self {
        Self::default()
    }
    /// LOAD PROGRAM PARAMETER: "placed in the program-parameter register only when at least
    /// one sampling function is enabled"; otherwise a no-operation.
    pub fn lpp(&self, value: u64, sampling_enabled: bool) {
        if sampling_enabled {
            self.0.store(value, Ordering::Relaxed);
            self.1.fetch_add(1, Ordering::Release);
        }
    }
    /// How many times the register was loaded or cleared.
    pub fn changes(&self) -> u64 {
        self.1.load(Ordering::Acquire)
    }
    /// The register's contents.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
    /// Initial CPU reset, clear reset.
    pub fn clear(&self) {
        self.0.store(0, Ordering::Relaxed);
        self.1.fetch_add(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaded_only_while_sampling_is_enabled() {
        let p = ProgramParameter::new();
        p.lpp(0x1234, false);
        assert_eq!(p.get(), 0, "no-op while no sampling function is enabled");
        p.lpp(0x8000_0000_0000_00FF, true);
        assert_eq!(p.get(), 0x8000_0000_0000_00FF);
        p.lpp(7, false);
        assert_eq!(p.get(), 0x8000_0000_0000_00FF);
        p.clear();
        assert_eq!(p.get(), 0);
        // The one load and the clear; the no-operations count nothing.
        assert_eq!(p.changes(), 2);
    }
}

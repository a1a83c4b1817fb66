//! The CPU-measurement sampling facility (SA23-2260, section 2, "CPU-Measurement Sampling
//! Facility" through "Sample-Data-Block Update Process"): the sampling control registers of
//! each CPU (state controls, maximum-buffer-size indicator S, host indicator H, sampling
//! interval, TEAR, DEAR), QUERY SAMPLING INFORMATION, LOAD SAMPLING CONTROLS, the sample
//! entries (BSDE format 0001, the emulator's DSDE format 8001, combined entries) and the
//! sample-data-block update process with its alerts.
//!
//! All guest storage is reached through [`GuestStorage`] (bounds-checked; an address the
//! configuration does not have is an *invalid entry address*), and the first 16 bytes of a
//! trailer are only ever changed with an interlocked update, so that a guest resetting them
//! with COMPARE DOUBLE AND SWAP on another CPU (as Linux does) never loses an update.

mod buffer;
mod controls;
mod entry;
mod update;

pub use buffer::{block_origin, is_table_link, table_origin, TrailerFlags, TRAILER_SIZE};
pub use controls::{LsctlOutcome, SamplingControls};
pub use entry::{basic_entry_bytes, diagnostic_entry_bytes, BSDE_FORMAT, DSDE_FORMAT};
pub use update::SampleOutcome;

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The sampling control registers of one CPU.
#[derive(Debug, Default)]
pub struct CpuSampling {
    ctl: AtomicU32,
    interval: AtomicU64,
    tear: AtomicU64,
    dear: AtomicU64,
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

    fn deactivate(&self) {
        self.ctl.fetch_and(
            !(SamplingControls::CS | SamplingControls::CD).bits(),
            Ordering::AcqRel,
        );
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
        self.ctl.fetch_and(
            (SamplingControls::AS | SamplingControls::AD).bits(),
            Ordering::AcqRel,
        );
        self.interval.store(0, Ordering::Relaxed);
        self.tear.store(0, Ordering::Relaxed);
        self.dear.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests;

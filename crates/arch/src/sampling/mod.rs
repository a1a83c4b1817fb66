//! The CPU-measurement sampling facility (SA23-2260, section 2, "CPU-Measurement Sampling
//! Facility" through "Sample-Data-Block Update Process").
//!
//! | module | SA23-2260 |
//! |---|---|
//! | [`controls`] | Sampling Control Registers, State of Sampling Function (Figures 2-11, 2-12), LOAD SAMPLING CONTROLS (Figure 2-26), QUERY SAMPLING INFORMATION (Figure 2-28) |
//! | [`buffer`] | Sampling Buffer Structure, TEAR, DEAR, Sample-Data-Block Table (Figures 2-14 to 2-16), Trailer Entries (Figure 2-25) |
//! | [`entry`] | Basic-Sampling Data Entry (Figure 2-17), Diagnostic-Sampling Data Entry, Combined-Sampling Data Entry |
//! | [`update`] | Sample-Data-Block Update Process, Process Steps |
//!
//! [`CpuSampling`] holds one CPU's sampling control registers in atomics: the CPU's own thread
//! runs the instructions and the update process, the console changes authorizations.
//!
//! All guest storage is reached through [`GuestStorage`](crate::storage::GuestStorage)
//! (bounds-checked; an address the configuration does not have is an *invalid entry
//! address*), and the first 16 bytes of a trailer are only ever changed with an interlocked
//! update, so that a guest resetting them with COMPARE DOUBLE AND SWAP on another CPU (as Linux
//! does) never loses an update.

pub mod buffer;
pub mod controls;
pub mod entry;
pub mod update;

pub use buffer::{
    block_origin, is_table_link, table_origin, BufferSize, Dear, SdbtEntry, Tear, Timestamp,
    TrailerFlags, TrailerHeader, TRAILER_SIZE,
};
pub use controls::{
    FunctionState, LsctlBits, LsctlOutcome, LsctlRequest, QsiBlock, QsiStateBits, SamplingControls,
    SamplingFunction,
};
pub use entry::{
    basic_entry, basic_entry_bytes, data_entry, diagnostic_entry, diagnostic_entry_bytes, Bsde,
    DataEntry, Dsde, BSDE_FORMAT, DSDE_FORMAT,
};
pub use update::{SampleOutcome, UpdateError};

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

    /// Interval, TEAR and DEAR to zeros (with S and H cleared by the caller): "cleared to zeros
    /// by ... LOAD SAMPLING CONTROLS that disables all sampling functions".
    fn clear_registers(&self) {
        self.interval.store(0, Ordering::Relaxed);
        self.tear.store(0, Ordering::Relaxed);
        self.dear.store(0, Ordering::Relaxed);
    }

    /// Every active function becomes inactive.
    fn deactivate(&self) {
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

#[cfg(test)]
mod tests;

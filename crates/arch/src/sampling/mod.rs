//! The CPU-measurement sampling facility (SA23-2260, section 2, "CPU-Measurement Sampling
//! Facility" through "Sample-Data-Block Update Process").
//!
//! | module | SA23-2260 |
//! |---|---|
//! | [`registers`] | Sampling Control Registers, State of Sampling Function (Figures 2-11, 2-12) |
//! | [`controls`] | LOAD SAMPLING CONTROLS (Figure 2-26), QUERY SAMPLING INFORMATION (Figure 2-28) |
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
pub mod registers;
pub mod update;

pub use buffer::{
    block_origin, is_table_link, table_origin, BufferSize, Dear, SdbtEntry, Tear, Timestamp,
    TrailerFlags, TrailerHeader, TRAILER_SIZE,
};
pub use controls::{LsctlBits, LsctlOutcome, LsctlRequest, QsiBlock, QsiStateBits};
pub use entry::{
    basic_entry, basic_entry_bytes, data_entry, diagnostic_entry, diagnostic_entry_bytes, Bsde,
    DataEntry, Dsde, BSDE_FORMAT, DSDE_FORMAT,
};
pub use registers::{CpuSampling, FunctionState, SamplingControls, SamplingFunction};
pub use update::{SampleOutcome, UpdateError};

#[cfg(test)]
mod tests;

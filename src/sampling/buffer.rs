//! The sampling buffer structure: sample-data-block tables and sample-data blocks.

use crate::alerts::AlertBits;
use crate::storage::{AbsAddr, GuestStorage};
use bitflags::bitflags;

bitflags! {
    /// Byte 0 of a trailer entry (Figure 2-25).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct TrailerFlags: u8 {
        /// Block-full indicator.
        const F = 0x80;
        /// Alert-request control.
        const A = 0x40;
        /// Timestamp format: STORE CLOCK EXTENDED.
        const T = 0x20;
    }
}

/// Size of a trailer entry.
pub const TRAILER_SIZE: u64 = 64;
/// Addresses 0-8191 are never valid entry addresses.
pub(super) const LOW_INVALID: u64 = 8192;

/// Maximum buffer size: the size of every sample-data block and the most a table may span.
pub(super) fn max_buffer(s: bool) -> u64 {
    if s {
        1 << 20
    } else {
        1 << 12
    }
}

/// The sample-data-block origin a block-link entry designates (Figures 2-14, 2-15).
pub fn block_origin(entry: u64, s: bool) -> u64 {
    entry & !(max_buffer(s) - 1)
}

/// The table origin a table-link entry designates (Figure 2-16).
pub fn table_origin(entry: u64) -> u64 {
    entry & !0xF
}

/// Is an SDBT entry a table-link entry (bit 63)?
pub fn is_table_link(entry: u64) -> bool {
    entry & 1 != 0
}

/// Fetch a sample-data-block-table entry; an address in 0-8191 or outside main storage is an
/// invalid entry address.
pub(super) fn read_entry(storage: &dyn GuestStorage, addr: u64) -> Result<u64, AlertBits> {
    if addr < LOW_INVALID {
        return Err(AlertBits::INVALID_ENTRY_ADDRESS);
    }
    storage
        .read_u64(AbsAddr(addr))
        .map_err(|_| AlertBits::INVALID_ENTRY_ADDRESS)
}

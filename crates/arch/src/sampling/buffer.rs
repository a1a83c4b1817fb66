//! The sampling buffer structure (SA23-2260, "Sampling Buffer Structure", "Sample-Data-Block
//! Table", "Sample-Data Block", "Trailer Entries"): the maximum buffer size, the
//! table-entry-address and data-entry-address registers and the two kinds of
//! sample-data-block-table (SDBT) entry; the trailer entry of a sample-data block (SDB) is
//! `hcpumf_formats::sdb`'s.
//!
//! Every layout here is encoded and decoded explicitly, big-endian, as the architecture stores
//! it; the update process ([`super::update`]) only works with these types.

use crate::storage::AbsAddr;
use thiserror::Error;

/// The codec of the sample-data block's trailer entry and the maximum buffer size
/// (`hcpumf_formats::sdb`), which the update process works with.
pub use hcpumf_formats::sdb::{
    BufferSize, Timestamp, Trailer, TrailerFlags, TrailerHeader, TIMESTAMP_OFFSET, TRAILER_SIZE,
};

/// Size of a sample-data-block-table entry ("Sample-Data-Block Table": "Each entry is 8 bytes").
pub const SDBT_ENTRY_SIZE: u64 = 8;
/// Entry addresses 0-8191 are invalid ("Sample-Data-Block Update Process").
pub const LOW_INVALID: u64 = 8192;

/// Why an entry address is invalid (SA23-2260, "Sample-Data-Block Update Process": "An entry
/// address is invalid if the address is in the range 0-8191, if the designated
/// sample-data-block entry is inside the trailer entry, or if the designated storage location is
/// not available in the configuration").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum InvalidAddress {
    /// In the range 0-8191.
    #[error("in the range 0-8191")]
    LowStorage,
    /// The designated data entry is inside the trailer entry.
    #[error("inside the trailer entry")]
    InsideTrailer,
    /// Not available in the configuration.
    #[error("not available in the configuration")]
    NotAvailable,
}

/// Why a sample-data-block-table entry is incorrect (SA23-2260, "Sample-Data-Block Update
/// Process", and Measurement Alert: "Incorrect Sample-Data-Block-Table Entry").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum IncorrectEntry {
    /// A table-link entry designates another table-link entry (step 3.a.2.x).
    #[error("a table-link entry designates another table-link entry")]
    LinkToLink,
    /// The last entry before the maximum-buffer-size boundary is a block-link entry (3.a.1).
    #[error("the last table entry is a block-link entry")]
    LastIsBlockLink,
}

/// Contents of the table-entry-address register (SA23-2260, "Table-Entry-Address Register
/// (TEAR)"): the address of the current SDBT entry. The emulator treats it as absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tear(pub u64);

impl Tear {
    /// The entry's address in guest storage.
    pub fn addr(self) -> AbsAddr {
        AbsAddr(self.0)
    }
    /// "Incremented by the SDB table entry size so that the next entry in the SDB table becomes
    /// the current SDB table entry" (step 3); a carry out of bit 0 is ignored.
    pub fn next(self) -> Tear {
        Tear(self.0.wrapping_add(SDBT_ENTRY_SIZE))
    }
    /// Is this "the last entry in the SDB table before the table crosses an integral boundary
    /// of the maximum buffer size" (step 3.a)?
    pub fn is_last_before_boundary(self, bs: BufferSize) -> bool {
        bs.offset_of(self.0) == bs.bytes() - SDBT_ENTRY_SIZE
    }
    /// Check the entry address: 0-8191 is invalid; availability is checked by the access.
    pub fn check(self) -> Result<AbsAddr, InvalidAddress> {
        if self.0 < LOW_INVALID {
            Err(InvalidAddress::LowStorage)
        } else {
            Ok(self.addr())
        }
    }
}

/// Contents of the data-entry-address register (SA23-2260, "Data-Entry-Address Register
/// (DEAR)"): the address of the next data entry. The emulator treats it as absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dear(pub u64);

/// Where a data-entry address lies in its sample-data block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataEntrySlot {
    /// Address of the next data entry.
    pub entry: AbsAddr,
    /// Address of the block's trailer entry.
    pub trailer: AbsAddr,
    /// Bytes left for data entries before the trailer (0 when DEAR is at the trailer's first
    /// byte: the block was filled exactly and is full, not an invalid address).
    pub room: u64,
}

impl Dear {
    /// The sample-data-block origin of this address.
    pub fn block_origin(self, bs: BufferSize) -> AbsAddr {
        AbsAddr(bs.floor(self.0))
    }
    /// The trailer entry of this address's block.
    pub fn trailer(self, bs: BufferSize) -> AbsAddr {
        self.block_origin(bs).offset(bs.trailer_offset())
    }
    /// "Incremented by the data-entry size"; a carry out of bit 0 is ignored.
    pub fn advance(self, by: u64) -> Dear {
        Dear(self.0.wrapping_add(by))
    }
    /// Check the address of the next data entry (SA23-2260, Process Steps, preamble): 0-8191
    /// and the inside of the trailer are invalid. DEAR exactly at the trailer's first byte
    /// designates no data entry of the trailer: it is where an exactly filled block leaves it,
    /// and the inner loop finds that block full (step 3). Availability is checked by the access.
    pub fn check(self, bs: BufferSize) -> Result<DataEntrySlot, InvalidAddress> {
        if self.0 < LOW_INVALID {
            return Err(InvalidAddress::LowStorage);
        }
        let off = bs.offset_of(self.0);
        if off > bs.trailer_offset() {
            return Err(InvalidAddress::InsideTrailer);
        }
        Ok(DataEntrySlot {
            entry: AbsAddr(self.0),
            trailer: self.trailer(bs),
            room: bs.trailer_offset() - off,
        })
    }
}

/// One sample-data-block-table entry (SA23-2260, "Sample-Data-Block Table", Figures 2-14 to
/// 2-16). Bit 63 tells the kinds apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SdbtEntry {
    /// Block-link entry: a sample-data-block origin (bits 0-51 with S = 0, bits 0-43 with
    /// S = 1; the other bits up to 62 are ignored).
    BlockLink {
        /// The block origin, appended with 12 or 20 zeros.
        sdb: AbsAddr,
    },
    /// Table-link entry: a sample-data-block-table origin (bits 0-59; bits 60-62 ignored).
    TableLink {
        /// The table origin, appended with four zeros.
        sdbt: AbsAddr,
    },
}

impl SdbtEntry {
    /// Bit 63: one for a table-link entry.
    pub const TABLE_LINK_BIT: u64 = 1;

    /// Decode an entry as fetched (big-endian doubleword already converted).
    pub fn decode(raw: u64, bs: BufferSize) -> SdbtEntry {
        if raw & Self::TABLE_LINK_BIT != 0 {
            SdbtEntry::TableLink {
                sdbt: AbsAddr(raw & !0xF),
            }
        } else {
            SdbtEntry::BlockLink {
                sdb: AbsAddr(bs.floor(raw)),
            }
        }
    }
    /// Encode the entry (ignored bits zero).
    pub fn encode(self) -> u64 {
        match self {
            SdbtEntry::BlockLink { sdb } => sdb.0,
            SdbtEntry::TableLink { sdbt } => sdbt.0 | Self::TABLE_LINK_BIT,
        }
    }
    /// Decode eight big-endian bytes.
    pub fn from_be_bytes(b: [u8; 8], bs: BufferSize) -> SdbtEntry {
        Self::decode(u64::from_be_bytes(b), bs)
    }
}

/// The sample-data-block origin a block-link entry designates (Figures 2-14, 2-15).
pub fn block_origin(entry: u64, s: bool) -> u64 {
    BufferSize::from_s(s).floor(entry)
}

/// The table origin a table-link entry designates (Figure 2-16).
pub fn table_origin(entry: u64) -> u64 {
    entry & !0xF
}

/// Is an SDBT entry a table-link entry (bit 63)?
pub fn is_table_link(entry: u64) -> bool {
    entry & SdbtEntry::TABLE_LINK_BIT != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdbt_entries_decode_with_the_ignored_bits() {
        // Figure 2-14: bits 52-62 ignored with S = 0.
        assert_eq!(
            SdbtEntry::decode(0x0012_3FFE, BufferSize::K4),
            SdbtEntry::BlockLink {
                sdb: AbsAddr(0x0012_3000)
            }
        );
        // Figure 2-15: bits 44-62 ignored with S = 1.
        assert_eq!(
            SdbtEntry::decode(0x0012_3FFE, BufferSize::M1),
            SdbtEntry::BlockLink {
                sdb: AbsAddr(0x0010_0000)
            }
        );
        // Figure 2-16: bits 60-62 ignored, bit 63 one.
        assert_eq!(
            SdbtEntry::decode(0x0004_567F, BufferSize::K4),
            SdbtEntry::TableLink {
                sdbt: AbsAddr(0x0004_5670)
            }
        );
        let e = SdbtEntry::TableLink {
            sdbt: AbsAddr(0x9000),
        };
        assert_eq!(
            SdbtEntry::from_be_bytes(e.encode().to_be_bytes(), BufferSize::K4),
            e
        );
        assert_eq!(block_origin(0x0012_3FFE, false), 0x0012_3000);
        assert_eq!(table_origin(0x0004_567F), 0x0004_5670);
        assert!(is_table_link(1) && !is_table_link(0x2000));
    }

    #[test]
    fn tear_increments_and_knows_the_last_entry_before_the_boundary() {
        assert_eq!(Tear(0x10FF0).next(), Tear(0x10FF8));
        assert_eq!(
            Tear(u64::MAX - 3).next(),
            Tear(4),
            "carry out of bit 0 ignored"
        );
        assert!(Tear(0x10FF8).is_last_before_boundary(BufferSize::K4));
        assert!(!Tear(0x10FF0).is_last_before_boundary(BufferSize::K4));
        assert!(!Tear(0x10FF8).is_last_before_boundary(BufferSize::M1));
        assert!(Tear(0x1FFFF8).is_last_before_boundary(BufferSize::M1));
        assert_eq!(Tear(0x1FF8).check(), Err(InvalidAddress::LowStorage));
        assert_eq!(Tear(0x2000).check(), Ok(AbsAddr(0x2000)));
    }

    #[test]
    fn dear_positions_in_a_block() {
        let bs = BufferSize::K4;
        assert_eq!(Dear(0x1FE0).check(bs), Err(InvalidAddress::LowStorage));
        let s = Dear(0x20000).check(bs).unwrap();
        assert_eq!((s.trailer, s.room), (AbsAddr(0x20FC0), 4032));
        // At the trailer's first byte: the block is full, not an invalid address.
        assert_eq!(Dear(0x20FC0).check(bs).unwrap().room, 0);
        for off in [0xFC1u64, 0xFC8, 0xFFF] {
            assert_eq!(
                Dear(0x20000 + off).check(bs),
                Err(InvalidAddress::InsideTrailer),
                "{off:#x}"
            );
        }
        // 1 MB blocks: a block at 0 is usable above 8191; 0x20FC8 is a data entry there.
        let m = BufferSize::M1;
        assert_eq!(Dear(0x20FC8).check(m).unwrap().trailer, AbsAddr(0xFFFC0));
        assert_eq!(Dear(0x2000).check(m).unwrap().room, 0xFFFC0 - 0x2000);
        assert_eq!(Dear(0xFFFC8).check(m), Err(InvalidAddress::InsideTrailer));
        assert_eq!(Dear(8).advance(u64::MAX), Dear(7));
    }
}

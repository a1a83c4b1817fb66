//! The sample-data block of SA23-2260 ("Sampling Buffer Structure", "Sample-Data Block",
//! "Data Entry", "Trailer Entries", Figures 2-17 and 2-25): the one codec of its data entries
//! and its trailer entry. The architecture stores them into guest storage with it, a HIS run
//! builds its 4-KB blocks with it ([`BlockWriter`]) and the .SMP reader decodes them with it.
//!
//! Everything is encoded and decoded explicitly, big-endian, at the offsets the architecture
//! gives; nothing else in the workspace knows an offset of these layouts.
//!
//! | module | SA23-2260 |
//! |---|---|
//! | [`entry`] | Data Entry: BSDE (Figure 2-17), DSDE, combined entry |
//! | [`trailer`] | Trailer Entries (Figure 2-25) |
//! | [`block`] | Maximum-Buffer-Size Indicator, Sample-Data Block |

pub mod block;
pub mod entry;
pub mod trailer;

pub use block::{BlockWriter, BufferSize, BLOCK_4K, TRAILER_4K};
pub use entry::{
    Bsde, BsdeLevelBits, BsdeStateBits, DataEntry, Dsde, EntryError, BSDE_FORMAT, BSDE_SIZE,
    CL_LOGICAL_PARTITION, DSDE_CONTENT_SIZE, DSDE_FORMAT, MAX_ENTRY,
};
pub use trailer::{
    Timestamp, Trailer, TrailerFlags, TrailerHeader, TIMESTAMP_OFFSET, TRAILER_SIZE,
};

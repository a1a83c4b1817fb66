//! The trailer entry of a sample-data block (SA23-2260, "Trailer Entries", Figure 2-25): the
//! block-full, alert-request and timestamp-format bits, the entry sizes, the sample overflow
//! count and the timestamp.

use bitflags::bitflags;

/// Size of a trailer entry, the last 64 bytes of every sample-data block ("Trailer Entries").
pub const TRAILER_SIZE: usize = 64;
/// Offset of the timestamp field (bytes 16-31) in a trailer entry.
pub const TIMESTAMP_OFFSET: usize = 16;

bitflags! {
    /// Byte 0 of a trailer entry (Figure 2-25). Bits 3-7 are reserved and "remain unchanged":
    /// decode with `from_bits_retain` so that they survive.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct TrailerFlags: u8 {
        /// Bit 0, F: block-full indicator.
        const F = 0x80;
        /// Bit 1, A: alert-request control.
        const A = 0x40;
        /// Bit 2, T: timestamp format (one: STORE CLOCK EXTENDED).
        const T = 0x20;
    }
}

/// Bytes 0-15 of a trailer entry (Figure 2-25): flags, BSDES, DSDES and the sample overflow
/// count. A program resets F, A and the count with COMPARE DOUBLE AND SWAP while sampling
/// continues ("Trailer Entries", programming note), so the update process changes these 16
/// bytes only with an interlocked update of the whole doubleword pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TrailerHeader {
    /// Byte 0 (reserved bits 3-7 retained).
    pub flags: TrailerFlags,
    /// Bytes 1-3, reserved ("remain unchanged").
    pub reserved: [u8; 3],
    /// Bytes 4-5: basic-sampling data-entry size.
    pub bsdes: u16,
    /// Bytes 6-7: diagnostic-sampling data-entry size.
    pub dsdes: u16,
    /// Bytes 8-15: sample overflow count, "the number of sample data that has been lost
    /// because the sample-data block is full".
    pub overflow: u64,
}

impl TrailerHeader {
    /// Decode bytes 0-15 of a trailer entry.
    pub fn decode(b: &[u8; 16]) -> TrailerHeader {
        let [f, r1, r2, r3, b4, b5, b6, b7, o @ ..] = *b;
        TrailerHeader {
            flags: TrailerFlags::from_bits_retain(f),
            reserved: [r1, r2, r3],
            bsdes: u16::from_be_bytes([b4, b5]),
            dsdes: u16::from_be_bytes([b6, b7]),
            overflow: u64::from_be_bytes(o),
        }
    }
    /// Encode bytes 0-15 of a trailer entry.
    pub fn encode(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0] = self.flags.bits();
        b[1..4].copy_from_slice(&self.reserved);
        b[4..6].copy_from_slice(&self.bsdes.to_be_bytes());
        b[6..8].copy_from_slice(&self.dsdes.to_be_bytes());
        b[8..16].copy_from_slice(&self.overflow.to_be_bytes());
        b
    }
}

/// The trailer's timestamp: "the TOD clock value at the time when the sample-data block
/// becomes full", in the format the T bit names ("Trailer Entries", Timestamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timestamp {
    /// T = 0: STORE CLOCK format in bytes 16-23; bytes 24-31 are reserved (left unchanged).
    Stck(u64),
    /// T = 1: STORE CLOCK EXTENDED format in bytes 16-31.
    Stcke([u8; 16]),
}

impl Default for Timestamp {
    fn default() -> Self {
        Timestamp::Stck(0)
    }
}

impl Timestamp {
    /// The timestamp of TOD clock bits 0-63 in the chosen format. In the STCKE format, byte 0
    /// is the epoch index (zero), bytes 1-8 hold TOD bits 0-63 and the rest is zero (the
    /// emulated clock has no more bits; the programmable field is zero).
    pub fn of_tod(tod: u64, stcke: bool) -> Timestamp {
        if stcke {
            let mut b = [0u8; 16];
            b[1..9].copy_from_slice(&tod.to_be_bytes());
            Timestamp::Stcke(b)
        } else {
            Timestamp::Stck(tod)
        }
    }
    /// Decode bytes 16-31 of a trailer entry in the format its T bit names.
    pub fn decode(b: &[u8; 16], extended: bool) -> Timestamp {
        if extended {
            Timestamp::Stcke(*b)
        } else {
            Timestamp::Stck(be64(b, 0))
        }
    }
    /// The T bit this format sets.
    pub fn is_extended(&self) -> bool {
        matches!(self, Timestamp::Stcke(_))
    }
    /// The bytes stored at trailer offset 16, in `out`; returns how many (8 or 16).
    pub fn encode_into(&self, out: &mut [u8; 16]) -> usize {
        match self {
            Timestamp::Stck(t) => {
                out[..8].copy_from_slice(&t.to_be_bytes());
                8
            }
            Timestamp::Stcke(b) => {
                *out = *b;
                16
            }
        }
    }
    /// TOD clock bits 0-63 of the timestamp.
    pub fn tod(&self) -> u64 {
        match self {
            Timestamp::Stck(t) => *t,
            Timestamp::Stcke(b) => be64(b, 1),
        }
    }
}

/// Bytes 0-31 of a trailer entry: the header and the timestamp (bytes 32-63 are reserved;
/// Linux keeps its own bookkeeping there, so no writer here touches them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Trailer {
    /// Bytes 0-15.
    pub header: TrailerHeader,
    /// Bytes 16-31, in the format of the T bit.
    pub timestamp: Timestamp,
}

impl Trailer {
    /// Decode a trailer entry (at least its first 32 bytes; fewer decode as zeros).
    pub fn decode(t: &[u8]) -> Trailer {
        let mut b = [0u8; 32];
        let n = t.len().min(32);
        b[..n].copy_from_slice(&t[..n]);
        let mut head = [0u8; 16];
        head.copy_from_slice(&b[..16]);
        let mut ts = [0u8; 16];
        ts.copy_from_slice(&b[16..]);
        let header = TrailerHeader::decode(&head);
        Trailer {
            header,
            timestamp: Timestamp::decode(&ts, header.flags.contains(TrailerFlags::T)),
        }
    }
    /// Encode bytes 0-31 into a trailer entry (T set from the timestamp's format).
    pub fn encode_into(&self, t: &mut [u8]) {
        let mut h = self.header;
        h.flags.set(TrailerFlags::T, self.timestamp.is_extended());
        t[..16].copy_from_slice(&h.encode());
        let mut ts = [0u8; 16];
        let n = self.timestamp.encode_into(&mut ts);
        t[16..16 + n].copy_from_slice(&ts[..n]);
    }
    /// F: the block is full.
    pub fn full(&self) -> bool {
        self.header.flags.contains(TrailerFlags::F)
    }
    /// A: the program asked for an alert when the block becomes full.
    pub fn alert(&self) -> bool {
        self.header.flags.contains(TrailerFlags::A)
    }
    /// T: the timestamp is in the STORE CLOCK EXTENDED format.
    pub fn extended(&self) -> bool {
        self.header.flags.contains(TrailerFlags::T)
    }
    /// TOD clock bits 0-63 of the timestamp.
    pub fn tod(&self) -> u64 {
        self.timestamp.tod()
    }
}

#[inline(always)]
fn be64(b: &[u8], k: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[k..k + 8]);
    u64::from_be_bytes(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailer_header_round_trip_keeps_reserved_bits() {
        let raw = [0xE7, 1, 2, 3, 0, 32, 0, 64, 0, 0, 0, 0, 0, 0, 1, 2];
        let h = TrailerHeader::decode(&raw);
        assert!(h
            .flags
            .contains(TrailerFlags::F | TrailerFlags::A | TrailerFlags::T));
        assert_eq!(h.flags.bits() & 0x07, 0x07, "reserved bits 5-7 retained");
        assert_eq!((h.reserved, h.bsdes, h.dsdes), ([1, 2, 3], 32, 64));
        assert_eq!(h.overflow, 0x102);
        assert_eq!(h.encode(), raw);
    }

    #[test]
    fn timestamps_in_stck_and_stcke_format() {
        let t = Timestamp::of_tod(0x1122_3344_5566_7788, false);
        assert!(!t.is_extended());
        let mut b = [0xEE; 16];
        assert_eq!(t.encode_into(&mut b), 8);
        assert_eq!(&b[..8], &0x1122_3344_5566_7788u64.to_be_bytes());
        assert_eq!(&b[8..], &[0xEE; 8], "bytes 24-31 are left as they were");
        let e = Timestamp::of_tod(0x1122_3344_5566_7788, true);
        assert!(e.is_extended());
        assert_eq!(e.encode_into(&mut b), 16);
        assert_eq!(
            b,
            [0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(e.tod(), t.tod());
    }

    /// A trailer as Figure 2-25 lays it out: F, A, T in byte 0, BSDES and DSDES in bytes 4-7,
    /// the overflow count in 8-15, the timestamp from byte 16 in the T bit's format.
    #[test]
    fn trailers_decode_in_the_format_of_their_t_bit() {
        let mut t = [0u8; 64];
        t[0] = 0xC0; // F, A; T = 0: STCK
        t[5] = 32;
        t[7] = 64;
        t[15] = 3;
        t[16..24].copy_from_slice(&0xAABB_CCDD_0000_0001u64.to_be_bytes());
        let d = Trailer::decode(&t);
        assert!(d.full() && d.alert() && !d.extended());
        assert_eq!(
            (d.header.bsdes, d.header.dsdes, d.header.overflow),
            (32, 64, 3)
        );
        assert_eq!(d.tod(), 0xAABB_CCDD_0000_0001);
        t[0] = 0x20; // T = 1: STCKE, epoch index in byte 16
        assert_eq!(
            Trailer::decode(&t).tod(),
            0xBBCC_DD00_0000_0100,
            "bytes 17-24"
        );
        let mut back = [0u8; 64];
        Trailer::decode(&t).encode_into(&mut back);
        assert_eq!(&back[..32], &t[..32]);
    }
}

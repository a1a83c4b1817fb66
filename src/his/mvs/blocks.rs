//! Offsets of the MVS 3.8J control-block fields the awareness reads (the MVS 3.8J macros
//! IHAPSA, CVT, IHAASVT, IHAASCB, IKJTCB, IHACDE and IHAXTLST; see
//! `shared/reference/mvs38j-blocks.md` for where each was verified).

pub const FLCCVT: u64 = 0x10;
pub const PSATOLD: u64 = 0x21C;
pub const PSAAOLD: u64 = 0x224;
pub const CVTNUCB: u64 = 0x80;
pub const CVTMZ00: u64 = 0xA4;
pub const CVTQLPAQ: u64 = 0xBC;
pub const CVTLPDIA: u64 = 0x168;
pub const CVTSHRVM: u64 = 0x1A0;
pub const CVTASVT: u64 = 0x22C;
pub const ASVTMAXU: u64 = 0x204;
pub const ASVTENTY: u64 = 0x210;
pub const ASVTAVAI: u32 = 0x8000_0000;
pub const ASCBASID: u64 = 0x24;
pub const ASCBJBNI: u64 = 0xAC;
pub const ASCBJBNS: u64 = 0xB0;
pub const TCBJPQ: u64 = 0x2C;
pub const TCBJSTCB: u64 = 0x7C;
pub const CDNAME: u64 = 0x08;
pub const CDENTPT: u64 = 0x10;
pub const CDXLMJP: u64 = 0x14;
pub const CDATTR: u64 = 0x1C;
pub const CDMIN: u8 = 0x04;
/// Walks stop after this many steps: a loop in a chain ends here.
pub const MAX_WALK: usize = 4096;

//! Offsets of the MVS 3.8J control-block fields the awareness reads (the MVS 3.8J macros
//! IHAPSA, CVT, IHAASVT, IHAASCB, IHAASXB, IKJTCB, IHACDE, IHALPDE and IHAXTLST; see
//! `shared/reference/mvs38j-blocks.md` for where each was verified).

pub const FLCCVT: u64 = 0x10;
pub const PSATOLD: u64 = 0x21C;
pub const PSAAOLD: u64 = 0x224;
pub const CVTNUCB: u64 = 0x80;
pub const CVTMZ00: u64 = 0xA4;
pub const CVTQLPAQ: u64 = 0xBC;
/// The SMF control area (IEESMCA), after CVTQLPAQ and CVTENFCT; its SMCASID at X'10' is the
/// 4-character SMF system identifier (programs read `CVTSMCA` then `SMCASID` alike).
pub const CVTSMCA: u64 = 0xC4;
pub const SMCASID: u64 = 0x10;
/// Flag byte + AL3 (CVTLPDIR): mask to 24 bits.
pub const CVTLPDIA: u64 = 0x168;
pub const CVTSHRVM: u64 = 0x1A0;
pub const CVTASVT: u64 = 0x22C;
pub const ASVTMAXU: u64 = 0x204;
pub const ASVTENTY: u64 = 0x210;
pub const ASVTAVAI: u32 = 0x8000_0000;
pub const ASCBASID: u64 = 0x24;
/// The address space's segment-table designation: what the dispatcher loads into CR1.
pub const ASCBSTOR: u64 = 0x2C;
pub const ASCBASXB: u64 = 0x6C;
pub const ASCBJBNI: u64 = 0xAC;
pub const ASCBJBNS: u64 = 0xB0;
/// First and last TCB of the address space's TCB queue.
pub const ASXBFTCB: u64 = 0x04;
pub const ASXBLTCB: u64 = 0x08;
/// Flag byte (TCBPURGE) + AL3 (TCBJPQB): the newest CDE of the job pack queue.
pub const TCBJPQ: u64 = 0x2C;
/// The next TCB of lower priority (after TCBGRS, 64 bytes at X'30', and TCBFSA at X'70').
pub const TCBTCB: u64 = 0x74;
/// Flag byte + AL3 (TCBJSTCA): the job step TCB.
pub const TCBJSTCB: u64 = 0x7C;
pub const CDNAME: u64 = 0x08;
pub const CDENTPT: u64 = 0x10;
pub const CDXLMJP: u64 = 0x14;
pub const CDATTR: u64 = 0x1C;
/// CDATTR: loaded by NIP, or a fixed/modified LPA module.
pub const CDNIP: u8 = 0x80;
/// CDATTR: being loaded (nothing to map yet).
pub const CDNIC: u8 = 0x40;
/// CDATTR: a minor CDE (an alias).
pub const CDMIN: u8 = 0x04;
pub const CDATTR2: u64 = 0x1D;
/// CDATTR2: the extent list (CDXLMJP) is built.
pub const CDXLE: u8 = 0x20;
/// CDATTR2: the minor CDE's entry point is relocated.
pub const CDRLC: u8 = 0x10;
/// Extent list: length of the main-storage block (flag + AL3) and its address.
pub const XTLMSBLA: u64 = 0x08;
pub const XTLMSBAA: u64 = 0x0C;
/// LPA directory entries: 40 bytes each, ended by one whose name begins with X'FF'.
pub const LPDE_LEN: u64 = 0x28;
pub const LPDENAME: u64 = 0x08;
pub const LPDENTP: u64 = 0x10;
pub const LPDEATTR: u64 = 0x1C;
pub const LPDEMIN: u8 = 0x04;
/// A major LPDE's extent, inline: length and address of the module's storage.
pub const LPDEXTLN: u64 = 0x20;
pub const LPDEXTAD: u64 = 0x24;
/// 24-bit addresses (a flag byte + AL3 field).
pub const AL3: u32 = 0x00FF_FFFF;
/// Walks stop after this many steps: a loop in a chain ends here.
pub const MAX_WALK: usize = 4096;
/// The LPA directory walk stops after this many entries (no X'FF' end entry).
pub const MAX_LPDE: u64 = 65_536;

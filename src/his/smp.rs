//! `.SMP.cpu#` files: raw 4-KB sample-data blocks (z/OS "Sampling function output in a .SMP
//! file"; SA23-2260 Figures 2-17 and 2-25): data entries from offset 0, a 64-byte trailer at
//! offset 4032. The reader streams the file with a fixed buffer (memory use does not grow
//! with the file) and never panics: damaged blocks and entries are counted and reported with
//! their file offsets.

use std::io::Read;

/// Size of a sample-data block in a .SMP file.
pub const BLOCK: usize = 4096;
/// Offset of the trailer in a block.
pub const TRAILER: usize = BLOCK - 64;

/// The fields of a basic-sampling data entry a report needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// U: unique instructions at the sampling point (bits 20-23).
    pub unique: u8,
    pub ia: u64,
    pub asn: u16,
    pub problem: bool,
    pub wait: bool,
    pub invalid: bool,
    pub gpp: u64,
    pub hpp: u64,
}

/// The trailer of a block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trailer {
    pub full: bool,
    pub alert: bool,
    pub stcke: bool,
    pub bsdes: u16,
    pub dsdes: u16,
    pub overflow: u64,
    /// TOD clock bits 0-63 when the block became full.
    pub tod: u64,
}

impl Trailer {
    /// Decode the 64-byte trailer.
    pub fn decode(t: &[u8]) -> Trailer {
        let be64 = |k: usize| u64::from_be_bytes(t[k..k + 8].try_into().unwrap_or([0; 8]));
        let stcke = t[0] & 0x20 != 0;
        Trailer {
            full: t[0] & 0x80 != 0,
            alert: t[0] & 0x40 != 0,
            stcke,
            bsdes: u16::from_be_bytes([t[4], t[5]]),
            dsdes: u16::from_be_bytes([t[6], t[7]]),
            overflow: be64(8),
            tod: if stcke { be64(17) } else { be64(16) },
        }
    }
}

/// A damaged part of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub offset: u64,
    pub what: String,
}

/// Totals of a scan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanSummary {
    pub blocks: u64,
    pub samples: u64,
    pub invalid: u64,
    pub diagnostic: u64,
    pub overflow: u64,
    pub problems: Vec<Problem>,
    /// Problems beyond the first 100 are only counted.
    pub more_problems: u64,
}

impl ScanSummary {
    fn problem(&mut self, offset: u64, what: String) {
        if self.problems.len() < 100 {
            self.problems.push(Problem { offset, what });
        } else {
            self.more_problems += 1;
        }
    }
}

/// Scan one block (at file offset `base`), calling `f` for every valid basic entry.
pub fn scan_block(block: &[u8], base: u64, sum: &mut ScanSummary, f: &mut dyn FnMut(&Sample)) {
    sum.blocks += 1;
    let t = Trailer::decode(&block[TRAILER..]);
    sum.overflow = sum.overflow.wrapping_add(t.overflow);
    // Files written before BSDES/DSDES were stored in trailers have zeros there.
    let bsdes = if t.bsdes == 0 {
        32
    } else {
        usize::from(t.bsdes)
    };
    let dsdes = usize::from(t.dsdes);
    if bsdes != 32 {
        sum.problem(
            base + TRAILER as u64 + 4,
            format!("trailer says BSDES {bsdes}, not 32"),
        );
        return;
    }
    let mut off = 0usize;
    while off + 2 <= TRAILER {
        let def = u16::from_be_bytes([block[off], block[off + 1]]);
        match def {
            0 => break,
            0x0001 => {
                if off + 32 > TRAILER {
                    sum.problem(base + off as u64, "basic entry overlaps the trailer".into());
                    break;
                }
                let e = &block[off..off + 32];
                let be64 = |k: usize| u64::from_be_bytes(e[k..k + 8].try_into().unwrap_or([0; 8]));
                let s = Sample {
                    unique: e[2] & 0x0F,
                    ia: be64(8),
                    asn: u16::from_be_bytes([e[6], e[7]]),
                    problem: e[3] & 0x08 != 0,
                    wait: e[3] & 0x10 != 0,
                    invalid: e[3] & 0x01 != 0,
                    gpp: be64(16),
                    hpp: be64(24),
                };
                if s.invalid {
                    sum.invalid += 1;
                } else {
                    sum.samples += 1;
                }
                f(&s);
                off += 32;
                // A diagnostic entry may follow (combined entry).
                if off + 2 <= TRAILER && block[off] & 0x80 != 0 && dsdes > 0 {
                    sum.diagnostic += 1;
                    off += dsdes;
                }
            }
            d if d >= 0x8001 && dsdes > 0 => {
                sum.diagnostic += 1;
                off += dsdes;
            }
            d => {
                sum.problem(
                    base + off as u64,
                    format!("unknown data-entry format code {d:04X}"),
                );
                break;
            }
        }
    }
}

/// Stream a .SMP file, calling `f` for every basic entry.
pub fn scan<R: Read>(mut r: R, f: &mut dyn FnMut(&Sample)) -> std::io::Result<ScanSummary> {
    let mut sum = ScanSummary::default();
    let mut buf = vec![0u8; 256 * BLOCK];
    let mut base = 0u64;
    let mut have = 0usize;
    loop {
        let n = r.read(&mut buf[have..])?;
        if n == 0 {
            break;
        }
        have += n;
        let whole = have / BLOCK * BLOCK;
        for (i, block) in buf[..whole].chunks_exact(BLOCK).enumerate() {
            scan_block(block, base + (i * BLOCK) as u64, &mut sum, f);
        }
        base += whole as u64;
        buf.copy_within(whole..have, 0);
        have -= whole;
    }
    if have != 0 {
        sum.problem(
            base,
            format!("file ends with a partial block of {have} bytes (truncated file?)"),
        );
    }
    Ok(sum)
}

/// Build one block from basic entries (for tests and the benchmark generator).
pub fn make_block(entries: &[Sample], full: bool, overflow: u64, tod: u64) -> Vec<u8> {
    let mut b = vec![0u8; BLOCK];
    for (i, s) in entries.iter().take(TRAILER / 32).enumerate() {
        let e = &mut b[i * 32..i * 32 + 32];
        e[1] = 1;
        e[2] = s.unique & 0x0F;
        e[3] = if s.problem { 0x08 } else { 0 }
            | if s.wait { 0x10 } else { 0 }
            | if s.invalid { 0x01 } else { 0 };
        e[4] = 0x40;
        e[6..8].copy_from_slice(&s.asn.to_be_bytes());
        e[8..16].copy_from_slice(&s.ia.to_be_bytes());
        e[16..24].copy_from_slice(&s.gpp.to_be_bytes());
        e[24..32].copy_from_slice(&s.hpp.to_be_bytes());
    }
    let t = &mut b[TRAILER..];
    t[0] = if full { 0xA0 } else { 0x20 };
    t[4..6].copy_from_slice(&32u16.to_be_bytes());
    t[6..8].copy_from_slice(&64u16.to_be_bytes());
    t[8..16].copy_from_slice(&overflow.to_be_bytes());
    t[17..25].copy_from_slice(&tod.to_be_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ia: u64) -> Sample {
        Sample {
            ia,
            asn: 0x21,
            problem: true,
            ..Default::default()
        }
    }

    #[test]
    fn round_trip_and_damage_with_offsets() {
        let mut file = Vec::new();
        let s: Vec<Sample> = (0..126).map(|i| sample(0x1000 + i)).collect();
        file.extend(make_block(&s, true, 3, 7));
        let mut bad = make_block(&s[..2], false, 0, 0);
        bad[64] = 0x12; // unknown format code at block offset 64
        bad[65] = 0x34;
        file.extend(bad);
        file.extend([0u8; 100]); // truncated
        let mut n = 0;
        let sum = scan(&file[..], &mut |_| n += 1).unwrap();
        assert_eq!(sum.blocks, 2);
        assert_eq!(sum.samples, 128);
        assert_eq!(n, 128);
        assert_eq!(sum.overflow, 3);
        assert_eq!(sum.problems.len(), 2);
        assert_eq!(sum.problems[0].offset, 4096 + 64);
        assert!(sum.problems[0].what.contains("1234"));
        assert_eq!(sum.problems[1].offset, 8192);
        assert_eq!(Trailer::decode(&file[TRAILER..BLOCK]).tod, 7);
    }
}

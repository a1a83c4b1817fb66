//! `.SMP.xx` files: raw 4-KB sample-data blocks (z/OS "Sampling function output in a .SMP
//! file"; SA23-2260 Figures 2-17 and 2-25): data entries from offset 0, a 64-byte trailer at
//! offset 4032, decoded with the sample-data-block codec ([`crate::sdb`]). The reader streams the file with a fixed buffer (memory use does not grow
//! with the file) and never panics: damaged blocks and entries are counted and reported with
//! their file offsets.

use crate::sdb::{BlockWriter, Dsde, Timestamp, BLOCK_4K, BSDE_SIZE, TRAILER_4K};
use std::io::Read;

pub use crate::sdb::{Bsde, Trailer};

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

/// What a scan calls, in file order: each block's trailer before its entries, every basic
/// entry (valid or not), and the end of the block. Generic, so that a report's per-sample
/// work is inlined into the scan loop.
pub trait Visitor {
    /// A block begins: its trailer and its file offset.
    #[inline]
    fn block(&mut self, _trailer: &Trailer, _offset: u64) {}
    /// A basic entry of the block.
    fn sample(&mut self, s: &Bsde);
    /// The block's entries are done.
    #[inline]
    fn block_end(&mut self) {}
}

/// A closure as a visitor of samples only.
struct Each<'a>(&'a mut dyn FnMut(&Bsde));

impl Visitor for Each<'_> {
    #[inline]
    fn sample(&mut self, s: &Bsde) {
        (self.0)(s)
    }
}

/// Scan one block (at file offset `base`), calling `f` for every valid basic entry.
pub fn scan_block(block: &[u8], base: u64, sum: &mut ScanSummary, f: &mut dyn FnMut(&Bsde)) {
    scan_block_with(block, base, sum, &mut Each(f))
}

/// Scan one block (at file offset `base`) with a visitor.
#[inline]
pub fn scan_block_with<V: Visitor>(block: &[u8], base: u64, sum: &mut ScanSummary, v: &mut V) {
    sum.blocks += 1;
    let t = Trailer::decode(&block[TRAILER_4K..]);
    sum.overflow = sum.overflow.wrapping_add(t.header.overflow);
    // Files written before BSDES/DSDES were stored in trailers have zeros there.
    let bsdes = if t.header.bsdes == 0 {
        BSDE_SIZE
    } else {
        usize::from(t.header.bsdes)
    };
    let dsdes = usize::from(t.header.dsdes);
    if bsdes != BSDE_SIZE {
        sum.problem(
            base + TRAILER_4K as u64 + 4,
            format!("trailer says BSDES {bsdes}, not {BSDE_SIZE}"),
        );
        return;
    }
    v.block(&t, base);
    let data = &block[..TRAILER_4K];
    let mut off = 0usize;
    // Did a basic entry just end at `off` (a diagnostic entry there makes a combined one)?
    let mut after_basic = false;
    loop {
        // Runs of basic entries (and combined ones): one bounds check per entry, the fields
        // at fixed offsets.
        while let Some(e) = data
            .get(off..off + BSDE_SIZE)
            .and_then(|e| <&[u8; BSDE_SIZE]>::try_from(e).ok())
        {
            if Bsde::is_bsde(e) {
                let s = Bsde::decode_bsde(e);
                sum.invalid += u64::from(s.invalid);
                sum.samples += u64::from(!s.invalid);
                v.sample(&s);
                off += BSDE_SIZE;
                after_basic = true;
            } else if after_basic
                && dsdes > 0
                && Dsde::is_dsde_format(u16::from_be_bytes([e[0], e[1]]))
            {
                // The diagnostic entry of a combined entry.
                sum.diagnostic += 1;
                off += dsdes;
                after_basic = false;
            } else {
                break;
            }
        }
        if off + 2 > TRAILER_4K {
            break;
        }
        let def = u16::from_be_bytes([data[off], data[off + 1]]);
        match def {
            0 => break,
            _ if after_basic && dsdes > 0 && Dsde::is_dsde_format(def) => {
                sum.diagnostic += 1;
                off += dsdes;
            }
            crate::sdb::BSDE_FORMAT => {
                sum.problem(base + off as u64, "basic entry overlaps the trailer".into());
                break;
            }
            d if d > 0x8000 && dsdes > 0 => {
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
        after_basic = false;
    }
    v.block_end();
}

/// Stream a .SMP file, calling `f` for every basic entry.
pub fn scan<R: Read>(r: R, f: &mut dyn FnMut(&Bsde)) -> std::io::Result<ScanSummary> {
    scan_with(r, &mut Each(f))
}

/// Blocks read at a time: 64 KB, which the kernel copies into and the scan reads from the
/// core's L2 cache. A 1 MB buffer (256 blocks) made the copy out of the page cache take
/// three times as long as the scan on the AMD development VM (0.49 s of system time for 1 GB,
/// against 0.1 s now), and so did any buffer of 128 KB or more, which the C library
/// allocates with mmap (`scripts/bench-report.sh`, docs/benchmarks.md).
const READ_BLOCKS: usize = 16;

/// Stream a .SMP file through a visitor, with a fixed buffer of [`READ_BLOCKS`] blocks.
pub fn scan_with<R: Read, V: Visitor>(mut r: R, v: &mut V) -> std::io::Result<ScanSummary> {
    let mut sum = ScanSummary::default();
    let mut buf = vec![0u8; READ_BLOCKS * BLOCK_4K];
    let mut base = 0u64;
    let mut have = 0usize;
    loop {
        let n = match r.read(&mut buf[have..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        have += n;
        let whole = have / BLOCK_4K * BLOCK_4K;
        for (i, block) in buf[..whole].chunks_exact(BLOCK_4K).enumerate() {
            scan_block_with(block, base + (i * BLOCK_4K) as u64, &mut sum, v);
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

/// The trailers of the first and the last whole block of a .SMP file (None: no whole
/// block), read without scanning the file: a report learns the time a file covers first.
pub fn first_and_last<R: Read + std::io::Seek>(
    mut r: R,
) -> std::io::Result<Option<(Trailer, Trailer)>> {
    use std::io::SeekFrom;
    let len = r.seek(SeekFrom::End(0))?;
    let blocks = len / BLOCK_4K as u64;
    if blocks == 0 {
        return Ok(None);
    }
    let mut t = [0u8; BLOCK_4K - TRAILER_4K];
    let mut at = |r: &mut R, block: u64| -> std::io::Result<Trailer> {
        r.seek(SeekFrom::Start(block * BLOCK_4K as u64 + TRAILER_4K as u64))?;
        r.read_exact(&mut t)?;
        Ok(Trailer::decode(&t))
    };
    let first = at(&mut r, 0)?;
    let last = at(&mut r, blocks - 1)?;
    Ok(Some((first, last)))
}

/// Build one block from basic entries (for tests and the benchmark generator), as a HIS
/// run writes it: BSDES 32, DSDES 64, a STCKE timestamp of `tod`.
pub fn make_block(entries: &[Bsde], full: bool, overflow: u64, tod: u64) -> Vec<u8> {
    let mut w = BlockWriter::default();
    for s in entries {
        if !w.push(&s.encode()) {
            break;
        }
    }
    w.overflow = overflow;
    w.seal(full, BSDE_SIZE as u16, 64, Timestamp::of_tod(tod, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ia: u64) -> Bsde {
        Bsde {
            ia,
            primary_asn: 0x21,
            problem_state: true,
            ..Default::default()
        }
    }

    #[test]
    fn round_trip_and_damage_with_offsets() {
        let mut file = Vec::new();
        let s: Vec<Bsde> = (0..126).map(|i| sample(0x1000 + i)).collect();
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
        assert_eq!(Trailer::decode(&file[TRAILER_4K..BLOCK_4K]).tod(), 7);
    }

    /// A visitor sees each block's trailer before its entries and the end of each block;
    /// the first and last trailers come without a scan.
    #[test]
    fn visitor_sees_blocks_in_order() {
        struct V(Vec<String>);
        impl Visitor for V {
            fn block(&mut self, t: &Trailer, offset: u64) {
                self.0.push(format!("block {offset} tod {}", t.tod()));
            }
            fn sample(&mut self, s: &Bsde) {
                self.0.push(format!("{:X}", s.ia));
            }
            fn block_end(&mut self) {
                self.0.push("end".into());
            }
        }
        let mut file = make_block(&[sample(0x10), sample(0x12)], true, 0, 100);
        file.extend(make_block(&[sample(0x14)], false, 0, 250));
        let mut v = V(Vec::new());
        let sum = scan_with(&file[..], &mut v).unwrap();
        assert_eq!(sum.samples, 3);
        assert_eq!(
            v.0,
            [
                "block 0 tod 100",
                "10",
                "12",
                "end",
                "block 4096 tod 250",
                "14",
                "end"
            ]
        );
        let (first, last) = first_and_last(std::io::Cursor::new(&file))
            .unwrap()
            .unwrap();
        assert_eq!(
            (first.tod(), last.tod(), first.full(), last.full()),
            (100, 250, true, false)
        );
        assert!(first_and_last(std::io::Cursor::new(&file[..100]))
            .unwrap()
            .is_none());
    }

    /// A file longer than the read buffer, read in pieces of every size (a pipe, a network
    /// file system): every sample is seen once, in order, and damage is reported at its
    /// offset in the file, not in the buffer.
    #[test]
    fn pieces_of_any_size_across_the_read_buffer() {
        struct Pieces<'a> {
            data: &'a [u8],
            at: usize,
            n: usize,
        }
        impl Read for Pieces<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                // 1, 4097, 6001, 13, ... bytes: never a whole block at a block boundary.
                self.n = (self.n * 7 + 4093) % 9000 + 1;
                let k = self.n.min(out.len()).min(self.data.len() - self.at);
                out[..k].copy_from_slice(&self.data[self.at..self.at + k]);
                self.at += k;
                Ok(k)
            }
        }
        let blocks = 3 * READ_BLOCKS + 5;
        let mut file = Vec::new();
        for b in 0..blocks as u64 {
            let s: Vec<Bsde> = (0..126).map(|i| sample(b * 1000 + i)).collect();
            file.extend(make_block(&s, true, 0, b));
        }
        let bad = (2 * READ_BLOCKS + 1) * BLOCK_4K + 96;
        file[bad] = 0x12;
        let mut seen = Vec::new();
        let r = Pieces {
            data: &file,
            at: 0,
            n: 0,
        };
        let sum = scan(r, &mut |s| seen.push(s.ia)).unwrap();
        // The damaged block is read up to its entry 3: what follows an entry of an unknown
        // format cannot be found.
        let damaged = 2 * READ_BLOCKS as u64 + 1;
        let want: Vec<u64> = (0..blocks as u64)
            .flat_map(|b| (0..if b == damaged { 3 } else { 126 }).map(move |i| b * 1000 + i))
            .collect();
        assert_eq!(seen, want);
        assert_eq!(sum.blocks, blocks as u64);
        assert_eq!(sum.problems.len(), 1, "{:?}", sum.problems);
        assert_eq!(sum.problems[0].offset, bad as u64);
    }

    /// Combined entries (a basic entry and its diagnostic entry, DSDES bytes) and lone
    /// diagnostic entries are stepped over; the samples between them are all seen.
    #[test]
    fn combined_and_diagnostic_entries() {
        let mut b = make_block(&[], true, 0, 9);
        let basic = |b: &mut Vec<u8>, off: usize, ia: u8| {
            b[off + 1] = 1;
            b[off + 15] = ia;
        };
        // 0: basic + diagnostic (combined, 64 bytes), 96: basic, 128: a lone diagnostic
        // entry (8001), 192: basic + diagnostic 8000 (combined), 288: basic.
        basic(&mut b, 0, 1);
        b[32] = 0x80;
        b[33] = 0x05;
        basic(&mut b, 96, 2);
        b[128] = 0x80;
        b[129] = 0x01;
        basic(&mut b, 192, 3);
        b[224] = 0x80;
        basic(&mut b, 288, 4);
        let mut seen = Vec::new();
        let sum = scan(&b[..], &mut |s| seen.push(s.ia)).unwrap();
        assert_eq!(seen, [1, 2, 3, 4]);
        assert_eq!(sum.diagnostic, 3);
        assert!(sum.problems.is_empty(), "{:?}", sum.problems);
        // 8000 after a basic entry is its diagnostic entry; after a diagnostic entry it is
        // no entry at all.
        b[320] = 0x80;
        b[321] = 0x01;
        b[384] = 0x80;
        let sum = scan(&b[..], &mut |_| {}).unwrap();
        assert_eq!(sum.diagnostic, 4);
        assert_eq!(sum.problems[0].offset, 384);
        assert!(sum.problems[0].what.contains("8000"));
        // A basic entry cut by the trailer.
        let mut c = make_block(&[], true, 0, 9);
        c[TRAILER_4K - 16 + 1] = 1;
        let sum = scan(&c[..], &mut |_| {}).unwrap();
        assert!(
            sum.problems.is_empty(),
            "zeros before it end the block: {:?}",
            sum.problems
        );
        // With 48-byte diagnostic entries: basic + diagnostic, then 123 basic entries to
        // 4016, where one more would overlap the trailer.
        let mut c = make_block(&[], true, 0, 9);
        c[TRAILER_4K + 6..TRAILER_4K + 8].copy_from_slice(&48u16.to_be_bytes());
        basic(&mut c, 0, 1);
        c[32] = 0x80;
        c[33] = 0x01;
        for k in 0..124 {
            basic(&mut c, 80 + 32 * k, 2);
        }
        let sum = scan(&c[..], &mut |_| {}).unwrap();
        assert_eq!((sum.samples, sum.diagnostic), (124, 1));
        assert_eq!(sum.problems[0].offset, 4016);
        assert!(sum.problems[0].what.contains("overlaps the trailer"));
    }
}

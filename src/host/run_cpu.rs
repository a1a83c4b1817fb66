//! What a HIS run keeps for one CPU: the 4-KB sample-data block being filled (laid out as
//! SA23-2260's: basic or combined entries from offset 0, a 64-byte trailer) and the CPU as
//! its tick last saw it (for the .MAP walk).

use hcpumf_arch::cpu::CpuView;
use hcpumf_arch::model::MachineModel;
use hcpumf_arch::sampling::{basic_entry_bytes, diagnostic_entry_bytes, TrailerFlags};
use std::sync::Mutex;

/// Size of a sample-data block of a run (SA23-2260 maximum-buffer-size indicator 0).
pub const BLOCK: usize = 4096;
/// Size of the trailer at the end of a block.
const TRAILER: usize = 64;

/// What a run keeps per CPU. The locks are the CPU thread's own but for the moments the
/// run begins and ends.
#[derive(Default)]
pub struct RunCpu {
    buffer: Mutex<RunBuffer>,
    last_seen: Mutex<Option<(CpuView, u64, u64)>>,
}

/// The block a CPU is filling.
struct RunBuffer {
    block: Vec<u8>,
    used: usize,
    overflow: u64,
}

impl Default for RunBuffer {
    fn default() -> Self {
        RunBuffer {
            block: vec![0; BLOCK],
            used: 0,
            overflow: 0,
        }
    }
}

impl RunBuffer {
    /// Finish the block being filled: trailer with F, T (STCKE), sizes, overflow and
    /// timestamp; start a new one.
    fn seal(&mut self, m: &MachineModel, tod: u64) -> Vec<u8> {
        let mut block = std::mem::replace(&mut self.block, vec![0; BLOCK]);
        let t = BLOCK - TRAILER;
        block[t] = (TrailerFlags::F | TrailerFlags::T).bits();
        block[t + 4..t + 6].copy_from_slice(&m.bsdes.to_be_bytes());
        block[t + 6..t + 8].copy_from_slice(&m.dsdes.to_be_bytes());
        block[t + 8..t + 16].copy_from_slice(&self.overflow.to_be_bytes());
        // STCKE: epoch index 0, then TOD bits 0-63 in bytes 1-8.
        block[t + 16] = 0;
        block[t + 17..t + 25].copy_from_slice(&tod.to_be_bytes());
        self.used = 0;
        self.overflow = 0;
        block
    }
}

impl RunCpu {
    /// Start afresh: an empty block, nothing seen (the map is taken from what this run's
    /// ticks see, not from an earlier run's).
    pub fn reset(&self) {
        if let Ok(mut b) = self.buffer.lock() {
            *b = RunBuffer::default();
        }
        if let Ok(mut l) = self.last_seen.lock() {
            *l = None;
        }
    }

    /// Note what the CPU looks like now: view, prefix, CR1.
    pub fn seen(&self, view: &CpuView, prefix: u64, cr1: u64) {
        if let Ok(mut l) = self.last_seen.lock() {
            *l = Some((*view, prefix, cr1));
        }
    }

    /// The CPU as last seen: view, prefix and CR1.
    pub fn last_seen(&self) -> Option<(CpuView, u64, u64)> {
        *self.last_seen.lock().ok()?
    }

    /// Store the data entry of the CPU `view` describes (basic, or combined with the
    /// diagnostic entry) with `unique` instructions at the sampling point (U) and guest
    /// program parameter `gpp`. Returns the block that was full
    /// before it, sealed with the view's TOD clock (`tod`).
    pub fn store(
        &self,
        m: &MachineModel,
        view: &CpuView,
        unique: u8,
        gpp: u64,
        diagnostic: bool,
        tod: impl FnOnce() -> u64,
    ) -> Option<Vec<u8>> {
        let bsdes = usize::from(m.bsdes);
        let dsdes = usize::from(m.dsdes);
        let size = if diagnostic { bsdes + dsdes } else { bsdes };
        let mut b = self.buffer.lock().ok()?;
        let full = (b.used + size > BLOCK - TRAILER).then(|| b.seal(m, tod()));
        let at = b.used;
        let entry = basic_entry_bytes(view, unique, gpp, 0, false);
        b.block[at..at + bsdes].copy_from_slice(&entry[..bsdes]);
        if diagnostic {
            let d = diagnostic_entry_bytes(m, view);
            let n = d.len().min(dsdes);
            b.block[at + bsdes..at + bsdes + n].copy_from_slice(&d[..n]);
        }
        b.used += size;
        full
    }

    /// The partial block at the end of a run (F off), if it holds any entry.
    pub fn take_partial(&self, m: &MachineModel, tod: u64) -> Option<Vec<u8>> {
        let mut b = self.buffer.lock().ok()?;
        if b.used == 0 {
            return None;
        }
        let mut bytes = b.seal(m, tod);
        bytes[BLOCK - TRAILER] &= !TrailerFlags::F.bits();
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcpumf_formats::smp;

    /// The blocks read back as the .SMP reader (and z/OS's layout) expects: 126 basic
    /// entries fill a 4-KB block, whose trailer has F, T, BSDES 32, DSDES and the TOD clock;
    /// the last, partial block has F off.
    #[test]
    fn blocks_fill_with_126_basic_entries() {
        let m = MachineModel::default();
        let run = RunCpu::default();
        let mut full = Vec::new();
        for i in 0..130u64 {
            let v = CpuView {
                ia: 0x1000 + 2 * i,
                ..Default::default()
            };
            if let Some(b) = run.store(&m, &v, 1, 0x21 << 16, false, || 0x1234) {
                full.push(b);
            }
        }
        assert_eq!(full.len(), 1, "the 127th entry starts a second block");
        let t = smp::Trailer::decode(&full[0][smp::TRAILER..]);
        assert!(t.full && t.stcke);
        assert_eq!((t.bsdes, t.dsdes, t.tod), (32, m.dsdes, 0x1234));
        let last = run.take_partial(&m, 0x5678).expect("4 entries left");
        let t = smp::Trailer::decode(&last[smp::TRAILER..]);
        assert!(!t.full);
        let mut n = 0;
        let sum = smp::scan(&[full[0].clone(), last].concat()[..], &mut |_| n += 1).unwrap();
        assert!(sum.problems.is_empty(), "{:?}", sum.problems);
        assert_eq!(n, 130);
        assert_eq!(run.take_partial(&m, 0), None, "nothing left");
    }
}

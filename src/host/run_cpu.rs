//! What a HIS run keeps for one CPU: the 4-KB sample-data block being filled (laid out as
//! SA23-2260's: basic or combined entries from offset 0, a 64-byte trailer) and the CPU as
//! its tick last saw it (for the .MAP walk).

use hcpumf_arch::cpu::CpuView;
use hcpumf_arch::model::MachineModel;
use hcpumf_arch::sampling::data_entry;
use hcpumf_formats::sdb::{BlockWriter, Timestamp};
use std::sync::Mutex;

/// What a run keeps per CPU. The locks are the CPU thread's own but for the moments the
/// run begins and ends.
#[derive(Default)]
pub struct RunCpu {
    buffer: Mutex<BlockWriter>,
    last_seen: Mutex<Option<(CpuView, u64, u64)>>,
}

/// Finish the block being filled: its trailer with F, the model's BSDES and DSDES, the
/// overflow count and the timestamp in the model's format; a new block starts.
fn seal(b: &mut BlockWriter, m: &MachineModel, full: bool, tod: u64) -> Vec<u8> {
    b.seal(
        full,
        m.bsdes,
        m.dsdes,
        Timestamp::of_tod(tod, m.stcke_timestamps()),
    )
}

impl RunCpu {
    /// Start afresh: an empty block, nothing seen (the map is taken from what this run's
    /// ticks see, not from an earlier run's).
    pub fn reset(&self) {
        if let Ok(mut b) = self.buffer.lock() {
            *b = BlockWriter::default();
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
        // Basic with the guest program parameter (H = 0), or combined.
        let entry = data_entry(m, view, unique, true, diagnostic, gpp, false);
        let mut b = self.buffer.lock().ok()?;
        let full = (!b.fits(entry.len())).then(|| seal(&mut b, m, true, tod()));
        b.push(&entry);
        full
    }

    /// The partial block at the end of a run (F off), if it holds any entry.
    pub fn take_partial(&self, m: &MachineModel, tod: u64) -> Option<Vec<u8>> {
        let mut b = self.buffer.lock().ok()?;
        (b.used() > 0).then(|| seal(&mut b, m, false, tod))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcpumf_formats::sdb::TRAILER_4K;
    use hcpumf_formats::smp;

    /// The blocks read back as the .SMP reader (and z/OS's layout) expects: 126 basic
    /// entries fill a 4-KB block, whose trailer has F, BSDES 32, DSDES and the TOD clock in
    /// the model's format (the z10's STCK with T = 0, byte 0 x'80' as in the Redbook's
    /// files; the z196's STCKE with T = 1); the last, partial block has F off.
    #[test]
    fn blocks_fill_with_126_basic_entries() {
        for (machine, byte0) in [(0x2097u16, 0x80u8), (0x2817, 0xA0)] {
            blocks_of(&MachineModel::for_machine_type(machine), byte0);
        }
    }

    fn blocks_of(m: &MachineModel, byte0: u8) {
        let m = m.clone();
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
        assert_eq!(full[0][TRAILER_4K], byte0, "F, T");
        let t = smp::Trailer::decode(&full[0][TRAILER_4K..]);
        assert!(t.full());
        assert_eq!(t.extended(), byte0 & 0x20 != 0);
        assert_eq!(
            (t.header.bsdes, t.header.dsdes, t.tod()),
            (32, m.dsdes, 0x1234)
        );
        let last = run.take_partial(&m, 0x5678).expect("4 entries left");
        let t = smp::Trailer::decode(&last[TRAILER_4K..]);
        assert!(!t.full());
        let mut n = 0;
        let sum = smp::scan(&[full[0].clone(), last].concat()[..], &mut |_| n += 1).unwrap();
        assert!(sum.problems.is_empty(), "{:?}", sum.problems);
        assert_eq!(n, 130);
        assert_eq!(run.take_partial(&m, 0), None, "nothing left");
    }
}

//! The sample-data-block update process.

use super::buffer::{
    block_origin, is_table_link, max_buffer, read_entry, table_origin, TrailerFlags, LOW_INVALID,
    TRAILER_SIZE,
};
use super::entry::{basic_entry_bytes, diagnostic_entry_bytes};
use super::{CpuSampling, SamplingControls};
use crate::alerts::AlertBits;
use crate::cpu::CpuView;
use crate::model::MachineModel;
use crate::storage::{AbsAddr, GuestStorage, StorageError};
use std::sync::atomic::Ordering;

/// What one sample-data-block update process did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SampleOutcome {
    /// Alert events recognized.
    pub alerts: AlertBits,
    /// A data entry was stored.
    pub stored: bool,
    /// The sample was discarded and counted in a trailer's overflow count.
    pub overflowed: bool,
}

impl CpuSampling {
    /// Count `n` samples that could not be taken in the sample overflow count of the current
    /// sample-data block (the emulator's host delayed the CPU past several intervals).
    pub fn count_lost(&self, storage: &dyn GuestStorage, n: u64) {
        let s = self.controls().contains(SamplingControls::S);
        let bs = max_buffer(s);
        let dear = self.dear();
        let trailer = (dear & !(bs - 1)).wrapping_add(bs - TRAILER_SIZE);
        if dear < LOW_INVALID || dear > trailer {
            return;
        }
        let _ = storage.update16(AbsAddr(trailer), &mut |mut t| {
            let c = u64::from_be_bytes(t[8..16].try_into().unwrap_or([0; 8]));
            t[8..16].copy_from_slice(&c.wrapping_add(n).to_be_bytes());
            t
        });
    }

    /// One sample-data-block update process (SA23-2260, Process Steps), run on the CPU's own
    /// thread for the interval that just ended. `pp` is the program-parameter register.
    pub fn take_sample(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        view: &CpuView,
        pp: u64,
    ) -> SampleOutcome {
        let c = self.controls();
        let basic = c.contains(SamplingControls::CS);
        let diag = c.contains(SamplingControls::CD);
        if !basic && !diag {
            return SampleOutcome::default();
        }
        let h = c.contains(SamplingControls::H);
        let s = c.contains(SamplingControls::S);
        let mut entry = Vec::with_capacity(usize::from(m.bsdes) + usize::from(m.dsdes));
        if basic {
            let (gpp, hpp) = if h { (0, pp) } else { (pp, 0) };
            entry.extend_from_slice(&basic_entry_bytes(view, gpp, hpp, h));
        }
        if diag {
            entry.extend_from_slice(&diagnostic_entry_bytes(m, view));
        }
        let mut out = SampleOutcome::default();
        match self.update(m, storage, &entry, s, view.tod, &mut out) {
            Ok(()) => {}
            Err(alert) => {
                out.alerts |= alert;
                self.deactivate();
            }
        }
        out
    }

    /// The process steps proper. `Err` is an alert that places the active functions in the
    /// inactive state (invalid entry address, incorrect SDBT entry).
    fn update(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        entry: &[u8],
        s: bool,
        tod: u64,
        out: &mut SampleOutcome,
    ) -> Result<(), AlertBits> {
        let bs = max_buffer(s);
        let size = entry.len() as u64;
        let iea = AlertBits::INVALID_ENTRY_ADDRESS;
        let ise = AlertBits::INCORRECT_SDBT_ENTRY;
        let invalid = |_: StorageError| iea;
        // A new block is entered at most once per update: its first entry always fits.
        for _ in 0..3 {
            let dear = self.dear();
            let origin = dear & !(bs - 1);
            let trailer = origin.wrapping_add(bs - TRAILER_SIZE);
            if dear < LOW_INVALID || dear > trailer {
                // In 0-8191, or inside the trailer entry. (DEAR at the trailer's first byte is
                // where a block that was filled exactly leaves it: that block is full.)
                return Err(iea);
            }
            let mut head = [0u8; 1];
            storage.read(AbsAddr(trailer), &mut head).map_err(invalid)?;
            if TrailerFlags::from_bits_retain(head[0]).contains(TrailerFlags::F) {
                // Step 1: the block is still full: count the sample as lost.
                storage
                    .update16(AbsAddr(trailer), &mut |mut t| {
                        let n = u64::from_be_bytes(t[8..16].try_into().unwrap_or([0; 8]));
                        t[8..16].copy_from_slice(&n.wrapping_add(1).to_be_bytes());
                        t
                    })
                    .map_err(invalid)?;
                out.overflowed = true;
                return Ok(());
            }
            if dear.wrapping_add(size) <= trailer {
                // Step 2: store the entry.
                storage.write(AbsAddr(dear), entry).map_err(invalid)?;
                self.dear.store(dear.wrapping_add(size), Ordering::Relaxed);
                out.stored = true;
                return Ok(());
            }
            // Step 3: the block is full.
            let stcke = m.stcke_timestamps;
            let mut alert_requested = false;
            storage
                .update16(AbsAddr(trailer), &mut |mut t| {
                    let mut f = t[0] | TrailerFlags::F.bits();
                    if stcke {
                        f |= TrailerFlags::T.bits();
                    } else {
                        f &= !TrailerFlags::T.bits();
                    }
                    alert_requested = t[0] & TrailerFlags::A.bits() != 0;
                    t[0] = f;
                    t[4..6].copy_from_slice(&m.bsdes.to_be_bytes());
                    t[6..8].copy_from_slice(&m.dsdes.to_be_bytes());
                    t
                })
                .map_err(invalid)?;
            let mut ts = [0u8; 16];
            if stcke {
                ts[1..9].copy_from_slice(&tod.to_be_bytes());
                storage.write(AbsAddr(trailer + 16), &ts).map_err(invalid)?;
            } else {
                storage
                    .write(AbsAddr(trailer + 16), &tod.to_be_bytes())
                    .map_err(invalid)?;
            }
            if alert_requested {
                out.alerts |= AlertBits::PROGRAM_REQUEST;
            }
            // Next SDBT entry.
            let mut tear = self.tear().wrapping_add(8);
            self.tear.store(tear, Ordering::Relaxed);
            let mut e = read_entry(storage, tear)?;
            let last_in_table = tear.wrapping_add(8) & (bs - 1) == 0;
            if is_table_link(e) {
                // Step 3.a.2 / 3.b.2: follow the link; a link to a link is incorrect.
                tear = table_origin(e);
                self.tear.store(tear, Ordering::Relaxed);
                e = read_entry(storage, tear)?;
                if is_table_link(e) {
                    return Err(ise);
                }
            } else if last_in_table {
                // Step 3.a.1: the last entry of a table must be a table link.
                return Err(ise);
            }
            self.dear.store(block_origin(e, s), Ordering::Relaxed);
        }
        Ok(())
    }
}

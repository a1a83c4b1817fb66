//! The sample-data-block update process (SA23-2260, "Sample-Data-Block Update Process" and its
//! "Process Steps"), run once per sampling interval while a sampling function is active.
//!
//! Each step is labelled as SA23-2260 numbers it: the preamble check of the data-entry address,
//! the Inner Loop choosing step 1 (block still full: count the sample as lost), step 2 (store
//! the entry) or step 3 (the block becomes full: F, timestamp, program-request alert, next SDBT
//! entry, with the branches 3.a.1, 3.a.2 (x, y) and 3.b (1, 2)).

use super::buffer::{
    BufferSize, DataEntrySlot, Dear, IncorrectEntry, InvalidAddress, SdbtEntry, Tear, Timestamp,
    TrailerFlags, TrailerHeader, TIMESTAMP_OFFSET,
};
use super::entry::data_entry;
use super::registers::{CpuSampling, SamplingControls};
use crate::alerts::AlertBits;
use crate::cpu::CpuView;
use crate::model::MachineModel;
use crate::storage::{AbsAddr, GuestStorage};
use std::sync::atomic::Ordering;
use thiserror::Error;

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

/// An alert that ends the update process and places the active functions in the inactive
/// state ("Sample-Data-Block Update Process").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum UpdateError {
    /// Invalid entry address.
    #[error("invalid entry address {addr:#x}: {why}")]
    InvalidEntryAddress {
        /// The address.
        addr: u64,
        /// Why it is invalid.
        why: InvalidAddress,
    },
    /// Incorrect sample-data-block-table entry.
    #[error("incorrect sample-data-block-table entry at {addr:#x}: {why}")]
    IncorrectSdbtEntry {
        /// The entry's address.
        addr: u64,
        /// Why it is incorrect.
        why: IncorrectEntry,
    },
}

impl UpdateError {
    /// The measurement-alert event.
    pub fn alert(self) -> AlertBits {
        match self {
            UpdateError::InvalidEntryAddress { .. } => AlertBits::INVALID_ENTRY_ADDRESS,
            UpdateError::IncorrectSdbtEntry { .. } => AlertBits::INCORRECT_SDBT_ENTRY,
        }
    }
    fn invalid(addr: u64, why: InvalidAddress) -> UpdateError {
        UpdateError::InvalidEntryAddress { addr, why }
    }
    fn unavailable(addr: AbsAddr) -> UpdateError {
        Self::invalid(addr.0, InvalidAddress::NotAvailable)
    }
}

/// Fetch the SDBT entry TEAR designates; 0-8191 or outside main storage is an invalid entry
/// address.
fn fetch_entry(
    storage: &dyn GuestStorage,
    tear: Tear,
    bs: BufferSize,
) -> Result<SdbtEntry, UpdateError> {
    let addr = tear
        .check()
        .map_err(|why| UpdateError::invalid(tear.0, why))?;
    let mut b = [0u8; 8];
    storage
        .read(addr, &mut b)
        .map_err(|_| UpdateError::unavailable(addr))?;
    Ok(SdbtEntry::from_be_bytes(b, bs))
}

impl CpuSampling {
    /// One sample-data-block update process (SA23-2260, Process Steps), run on the CPU's own
    /// thread for the interval that just ended, with one unique instruction at the sampling
    /// point. `pp` is the program-parameter register.
    pub fn take_sample(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        view: &CpuView,
        pp: u64,
    ) -> SampleOutcome {
        self.take_sample_timed(m, storage, view, 1, pp, &|| view.tod)
    }

    /// [`CpuSampling::take_sample`] with `unique` instructions at the sampling point (the
    /// BSDE's U) and the TOD clock read through `tod`, only when a block gets full (its
    /// trailer's timestamp): the emulator's TOD clock is behind a lock the CPU thread should
    /// not take at every sample.
    pub fn take_sample_timed(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        view: &CpuView,
        unique: u8,
        pp: u64,
        tod: &dyn Fn() -> u64,
    ) -> SampleOutcome {
        let c = self.controls();
        let basic = c.contains(SamplingControls::CS);
        let diag = c.contains(SamplingControls::CD);
        if !basic && !diag {
            return SampleOutcome::default();
        }
        let h = c.contains(SamplingControls::H);
        let bs = BufferSize::from_s(c.contains(SamplingControls::S));
        let entry = data_entry(m, view, unique, basic, diag, pp, h);
        let mut out = SampleOutcome::default();
        if let Err(e) = self.update(m, storage, &entry, bs, tod, &mut out) {
            out.alerts |= e.alert();
            self.deactivate();
        }
        out
    }

    /// Intervals that passed while a sampling function was active but whose sample the host
    /// did not take in time (the emulator's sampling timer is a host thread, which the host
    /// may hold up; see the plugin's `SampleClock`). The sampling timer of a real CPU runs
    /// regardless, and while the block DEAR designates is still full each of those samples
    /// is discarded and counted in its sample overflow count (Process Steps, step 1), so
    /// `lost` is added to that count (interlocked with a program's CDSG of trailer bytes
    /// 0-15, as step 1 is). In any other case they are left uncounted, as the emulator's
    /// longer interval (BSDE programming note 5): their entries would have had to be stored,
    /// and an invalid DEAR is found by the next sample. Returns whether they were counted.
    pub fn count_lost(&self, storage: &dyn GuestStorage, lost: u64) -> bool {
        let c = self.controls();
        if lost == 0 || !c.intersects(SamplingControls::CS | SamplingControls::CD) {
            return false;
        }
        let bs = BufferSize::from_s(c.contains(SamplingControls::S));
        let Ok(slot) = Dear(self.dear()).check(bs) else {
            return false;
        };
        // F = 0 read here means a block with room (or one a program just emptied): nothing
        // to count, and no interlocked update for it.
        let mut head = [0u8; 1];
        if storage.read(slot.trailer, &mut head).is_err()
            || !TrailerFlags::from_bits_retain(head[0]).contains(TrailerFlags::F)
        {
            return false;
        }
        let mut counted = false;
        let res = storage.update16(slot.trailer, &mut |t| {
            let mut h = TrailerHeader::decode(&t);
            counted = h.flags.contains(TrailerFlags::F);
            if counted {
                h.overflow = h.overflow.wrapping_add(lost);
            }
            h.encode()
        });
        res.is_ok() && counted
    }

    /// The process steps proper. `Err` is an alert that places the active functions in the
    /// inactive state (invalid entry address, incorrect SDBT entry).
    fn update(
        &self,
        m: &MachineModel,
        storage: &dyn GuestStorage,
        entry: &[u8],
        bs: BufferSize,
        tod: &dyn Fn() -> u64,
        out: &mut SampleOutcome,
    ) -> Result<(), UpdateError> {
        let size = entry.len() as u64;
        // An entry that cannot fit even an empty block (no model has one) is discarded like one
        // that finds no space, so that a second block entered always ends the loop.
        let never_fits = size > bs.trailer_offset();
        // A new block is entered at most once per update: its first entry fits.
        for _ in 0..2 {
            // Preamble: the next data entry must not be in 0-8191 nor inside the trailer.
            let dear = Dear(self.dear());
            let slot: DataEntrySlot = dear
                .check(bs)
                .map_err(|why| UpdateError::invalid(dear.0, why))?;
            // Inner Loop. Fast path: F = 0 and room for the entry is step 2; a program only
            // ever resets F while sampling runs, so a zero read here stays valid.
            let mut head = [0u8; 1];
            storage
                .read(slot.trailer, &mut head)
                .map_err(|_| UpdateError::unavailable(slot.trailer))?;
            let full = TrailerFlags::from_bits_retain(head[0]).contains(TrailerFlags::F);
            let step = if !full && size <= slot.room {
                Step::Two
            } else {
                // Steps 1 and 3 are decided again inside the interlocked update of bytes 0-15:
                // a program on another CPU may have just reset F and the count with CDSG,
                // which makes a block that looked full usable again (step 2, not step 1).
                let ts_ext = m.stcke_timestamps();
                let mut step = Step::Two;
                storage
                    .update16(slot.trailer, &mut |t| {
                        let mut h = TrailerHeader::decode(&t);
                        step = if h.flags.contains(TrailerFlags::F) || never_fits {
                            h.overflow = h.overflow.wrapping_add(1);
                            Step::One
                        } else if size > slot.room {
                            let alert = h.flags.contains(TrailerFlags::A);
                            h.flags |= TrailerFlags::F;
                            h.flags.set(TrailerFlags::T, ts_ext);
                            h.bsdes = m.bsdes;
                            h.dsdes = m.dsdes;
                            Step::Three { alert }
                        } else {
                            Step::Two
                        };
                        h.encode()
                    })
                    .map_err(|_| UpdateError::unavailable(slot.trailer))?;
                step
            };
            let alert_requested = match step {
                Step::One => {
                    // Step 1: the block is still full: the sample was counted as lost.
                    out.overflowed = true;
                    return Ok(());
                }
                Step::Two => {
                    // Step 2: store the entry, advance DEAR. The entry's format field goes
                    // last: the sampler thread stores entries while the CPU runs on, and a
                    // program reading the block meanwhile finds either no entry or all of it.
                    let (format, rest) = entry.split_at(entry.len().min(2));
                    storage
                        .write(slot.entry.offset(2), rest)
                        .and_then(|()| {
                            std::sync::atomic::fence(Ordering::Release);
                            storage.write(slot.entry, format)
                        })
                        .map_err(|_| UpdateError::unavailable(slot.entry))?;
                    self.dear.store(dear.advance(size).0, Ordering::Relaxed);
                    out.stored = true;
                    return Ok(());
                }
                Step::Three { alert } => alert,
            };
            // Step 3: F, T and the sizes are set; now the timestamp (bytes 16-31, which no
            // program resets, so a plain store).
            let mut ts = [0u8; 16];
            let n = Timestamp::of_tod(tod(), m.stcke_timestamps()).encode_into(&mut ts);
            let ts_addr = slot.trailer.offset(TIMESTAMP_OFFSET as u64);
            storage
                .write(ts_addr, &ts[..n])
                .map_err(|_| UpdateError::unavailable(ts_addr))?;
            if alert_requested {
                // Recognized at the end of the update process, whatever ends it.
                out.alerts |= AlertBits::PROGRAM_REQUEST;
            }
            // The next SDBT entry becomes the current one.
            let mut tear = Tear(self.tear()).next();
            self.tear.store(tear.0, Ordering::Relaxed);
            let mut e = fetch_entry(storage, tear, bs)?;
            let last = tear.is_last_before_boundary(bs);
            let sdb = match e {
                // 3.a.1: the last entry before the boundary is a block-link entry.
                SdbtEntry::BlockLink { .. } if last => {
                    return Err(UpdateError::IncorrectSdbtEntry {
                        addr: tear.0,
                        why: IncorrectEntry::LastIsBlockLink,
                    })
                }
                // 3.b.1 -> 3.a.2.y.
                SdbtEntry::BlockLink { sdb } => sdb,
                // 3.a.2 (and 3.b.2 -> 3.a.2): the linked table becomes current.
                SdbtEntry::TableLink { sdbt } => {
                    let link = tear;
                    tear = Tear(sdbt.0);
                    self.tear.store(tear.0, Ordering::Relaxed);
                    e = fetch_entry(storage, tear, bs)?;
                    match e {
                        // 3.a.2.x: a link to a link.
                        SdbtEntry::TableLink { .. } => {
                            return Err(UpdateError::IncorrectSdbtEntry {
                                addr: link.0,
                                why: IncorrectEntry::LinkToLink,
                            })
                        }
                        SdbtEntry::BlockLink { sdb } => sdb,
                    }
                }
            };
            // 3.a.2.y: the block becomes current; back to the beginning of the Inner Loop.
            self.dear.store(sdb.0, Ordering::Relaxed);
        }
        // Not reached: the second pass starts at a block origin, where step 3 needs
        // `never_fits`, which step 1 has taken.
        Ok(())
    }
}

/// Which process step the Inner Loop chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Step 1: the block is still full; the overflow count was incremented.
    One,
    /// Step 2: there is room for the entry.
    Two,
    /// Step 3: the block became full (F set); `alert` is its alert-request control.
    Three { alert: bool },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemStorage;

    fn setup(tear: u64, dear: u64, entries: &[(u64, u64)]) -> (CpuSampling, MemStorage) {
        let m = MachineModel::for_machine_type(0x2097);
        let st = MemStorage::new(0x100000);
        for &(at, v) in entries {
            st.write_u64(AbsAddr(at), v).unwrap();
        }
        let s = CpuSampling::new();
        s.set_authorization(true, false);
        let r = super::super::LsctlRequest {
            es: true,
            cs: true,
            interval: m.min_sampling_interval,
            tear: Tear(tear),
            dear: Dear(dear),
            ..Default::default()
        };
        s.lsctl(&m, &r.encode()).unwrap();
        (s, st)
    }

    fn run(tear: u64, dear: u64, entries: &[(u64, u64)]) -> Result<(), UpdateError> {
        let m = MachineModel::for_machine_type(0x2097);
        let (s, st) = setup(tear, dear, entries);
        let mut out = SampleOutcome::default();
        s.update(&m, &st, &[0x00, 0x01], BufferSize::K4, &|| 0, &mut out)
    }

    /// Step 1 for samples the host did not take: counted in a still-full block's overflow
    /// count, nowhere else.
    #[test]
    fn lost_samples_count_only_in_a_still_full_block() {
        let full = 0x8000_0000_0000_0000u64 | 0x1f00_0000_0000_0000;
        let (s, st) = setup(0x10000, 0x21000, &[(0x21FC0, full), (0x21FC8, 5)]);
        assert!(s.count_lost(&st, 7));
        assert_eq!(st.read_u64(AbsAddr(0x21FC8)).unwrap(), 12);
        assert_eq!(
            st.read_u64(AbsAddr(0x21FC0)).unwrap(),
            full,
            "word 0 unchanged"
        );
        assert!(!s.count_lost(&st, 0));
        // A block with room: those samples would have been stored; nothing is counted.
        let (s, st) = setup(0x10000, 0x21000, &[(0x21FC8, 5)]);
        assert!(!s.count_lost(&st, 7));
        assert_eq!(st.read_u64(AbsAddr(0x21FC8)).unwrap(), 5);
        // An invalid DEAR is the next sample's alert, not this count's.
        let (s, st) = setup(0x10000, 0x1000, &[]);
        assert!(!s.count_lost(&st, 7));
        // Inactive sampling counts nothing.
        let (s, st) = setup(0x10000, 0x21000, &[(0x21FC0, full), (0x21FC8, 5)]);
        s.deactivate();
        assert!(!s.count_lost(&st, 7));
        assert_eq!(st.read_u64(AbsAddr(0x21FC8)).unwrap(), 5);
    }

    #[test]
    fn each_alert_names_its_rule() {
        use IncorrectEntry::*;
        use InvalidAddress::*;
        let iea = |addr, why| Err(UpdateError::InvalidEntryAddress { addr, why });
        let ise = |addr, why| Err(UpdateError::IncorrectSdbtEntry { addr, why });
        let link = |t: u64| t | 1;
        assert_eq!(run(0x10000, 0x1FF8, &[]), iea(0x1FF8, LowStorage));
        assert_eq!(run(0x10000, 0x20FC1, &[]), iea(0x20FC1, InsideTrailer));
        assert_eq!(run(0x10000, 0x100000, &[]), iea(0x100FC0, NotAvailable));
        // Block full (DEAR at the trailer), then the next SDBT entry or what it designates.
        assert_eq!(run(0x1FF0, 0x20FC0, &[]), iea(0x1FF8, LowStorage));
        assert_eq!(run(0xFFFF8, 0x20FC0, &[]), iea(0x100000, NotAvailable));
        assert_eq!(
            run(0x10000, 0x20FC0, &[(0x10008, 0x1000)]),
            iea(0x1000, LowStorage)
        );
        assert_eq!(
            run(
                0x10000,
                0x20FC0,
                &[(0x10008, link(0x12000)), (0x12000, link(0x10000))]
            ),
            ise(0x10008, LinkToLink)
        );
        assert_eq!(
            run(0x10FF0, 0x20FC0, &[(0x10FF8, 0x21000)]),
            ise(0x10FF8, LastIsBlockLink)
        );
        assert_eq!(
            UpdateError::InvalidEntryAddress {
                addr: 0x1FF8,
                why: LowStorage
            }
            .to_string(),
            "invalid entry address 0x1ff8: in the range 0-8191"
        );
        assert_eq!(
            UpdateError::IncorrectSdbtEntry {
                addr: 8,
                why: LinkToLink
            }
            .alert(),
            AlertBits::INCORRECT_SDBT_ENTRY
        );
    }
}

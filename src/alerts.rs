//! Measurement-alert external interruption (SA23-2260, "External Interruption" and
//! "Measurement Alert"): code 1407 hex, a 32-bit parameter at real locations 128-131, one
//! pending request per CPU that merges events until it is presented or cleared.

use bitflags::bitflags;
use std::sync::atomic::{AtomicU32, Ordering};

/// External-interruption code of the measurement alert.
pub const MEASUREMENT_ALERT_CODE: u16 = 0x1407;

bitflags! {
    /// The measurement-alert interruption parameter (bit 0 is the leftmost bit).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct AlertBits: u32 {
        /// Bit 0: invalid entry address.
        const INVALID_ENTRY_ADDRESS = 0x8000_0000;
        /// Bit 1: incorrect sample-data-block-table entry.
        const INCORRECT_SDBT_ENTRY = 0x4000_0000;
        /// Bit 2: program request alert.
        const PROGRAM_REQUEST = 0x2000_0000;
        /// Bit 8: sampling authorization change alert.
        const SAMPLING_AUTH_CHANGE = 0x0080_0000;
        /// Bit 9: loss of sample data alert.
        const LOSS_OF_SAMPLE_DATA = 0x0040_0000;
        /// Bit 16: loss of MT counter data alert.
        const LOSS_OF_MT_COUNTER_DATA = 0x0000_8000;
        /// Bit 24: counter authorization change alert.
        const COUNTER_AUTH_CHANGE = 0x0000_0080;
        /// Bit 25: loss of CPU counter data alert.
        const LOSS_OF_CPU_COUNTER_DATA = 0x0000_0040;
    }
}

impl AlertBits {
    /// Requests cleared "when no sampling functions are enabled".
    pub const CLEARED_WHEN_SAMPLING_DISABLED: AlertBits = AlertBits::INVALID_ENTRY_ADDRESS
        .union(AlertBits::INCORRECT_SDBT_ENTRY)
        .union(AlertBits::PROGRAM_REQUEST)
        .union(AlertBits::LOSS_OF_SAMPLE_DATA);
    /// Requests cleared "when no non-MT CPU counter sets are enabled".
    pub const CLEARED_WHEN_COUNTERS_DISABLED: AlertBits = AlertBits::LOSS_OF_CPU_COUNTER_DATA;
}

/// The pending measurement-alert request of one CPU. Lock-free: events are OR-ed in from any
/// thread; the CPU takes the whole parameter when it presents the interruption.
#[derive(Debug, Default)]
pub struct PendingAlerts(AtomicU32);

impl PendingAlerts {
    /// Recognize events; "if the same event is recognized more than once before the
    /// interruption occurs, the request is generated only once".
    pub fn raise(&self, bits: AlertBits) {
        self.0.fetch_or(bits.bits(), Ordering::AcqRel);
    }
    /// The events pending now.
    pub fn pending(&self) -> AlertBits {
        AlertBits::from_bits_retain(self.0.load(Ordering::Acquire))
    }
    /// Take every pending event for presentation (the request is cleared by the interruption).
    pub fn take(&self) -> AlertBits {
        AlertBits::from_bits_retain(self.0.swap(0, Ordering::AcqRel))
    }
    /// Clear some events (e.g. when no sampling function is enabled).
    pub fn clear(&self, bits: AlertBits) {
        self.0.fetch_and(!bits.bits(), Ordering::AcqRel);
    }
    /// CPU reset clears every pending request.
    pub fn clear_all(&self) {
        self.0.store(0, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_bits_match_sa23_2260() {
        // Bit n (MSB-0) of the 32-bit parameter is 1 << (31 - n).
        let bit = |n: u32| 1u32 << (31 - n);
        assert_eq!(AlertBits::INVALID_ENTRY_ADDRESS.bits(), bit(0));
        assert_eq!(AlertBits::INCORRECT_SDBT_ENTRY.bits(), bit(1));
        assert_eq!(AlertBits::PROGRAM_REQUEST.bits(), bit(2));
        assert_eq!(AlertBits::SAMPLING_AUTH_CHANGE.bits(), bit(8));
        assert_eq!(AlertBits::LOSS_OF_SAMPLE_DATA.bits(), bit(9));
        assert_eq!(AlertBits::LOSS_OF_MT_COUNTER_DATA.bits(), bit(16));
        assert_eq!(AlertBits::COUNTER_AUTH_CHANGE.bits(), bit(24));
        assert_eq!(AlertBits::LOSS_OF_CPU_COUNTER_DATA.bits(), bit(25));
    }

    #[test]
    fn events_merge_until_taken() {
        let p = PendingAlerts::default();
        p.raise(AlertBits::PROGRAM_REQUEST);
        p.raise(AlertBits::PROGRAM_REQUEST | AlertBits::COUNTER_AUTH_CHANGE);
        p.clear(AlertBits::CLEARED_WHEN_SAMPLING_DISABLED);
        assert_eq!(p.take(), AlertBits::COUNTER_AUTH_CHANGE);
        assert!(p.take().is_empty());
    }
}

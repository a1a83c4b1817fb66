//! Measurement-alert external interruption (SA23-2260, "External Interruption" and
//! "Measurement Alert"): code 1407 hex, a 32-bit parameter at real locations 128-131, one
//! pending request per CPU that merges events until it is presented or cleared.

use crate::cpu::CpuView;
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

    /// Apply SA23-2260's clearing rules: the sampling events are cleared when no sampling
    /// function is enabled, the loss of CPU counter data when no non-MT counter set is
    /// enabled (authorization changes stay pending).
    pub fn settle(&self, sampling_enabled: bool, counters_enabled: bool) {
        if !sampling_enabled {
            self.clear(AlertBits::CLEARED_WHEN_SAMPLING_DISABLED);
        }
        if !counters_enabled {
            self.clear(AlertBits::CLEARED_WHEN_COUNTERS_DISABLED);
        }
    }

    /// Take the pending request if the CPU `view` describes is enabled for it: PSW external
    /// mask and CR0 bit 58 (SA23-2260, Measurement Alert), and no external interruption of
    /// higher priority is pending and enabled (SA23-2260, External Interruption: the
    /// measurement alert comes last). Returns the interruption parameter; a deferred request
    /// stays pending.
    pub fn take_deliverable(&self, view: &CpuView) -> Option<u32> {
        if self.pending().is_empty()
            || !view.ext_mask
            || !view.measurement_alert_enabled()
            || view.higher_external_pending
        {
            return None;
        }
        let bits = self.take();
        (!bits.is_empty()).then(|| bits.bits())
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

    fn enabled() -> CpuView {
        CpuView {
            ext_mask: true,
            cr0: 0x20, // CR0 bit 58: measurement-alert subclass mask
            ..Default::default()
        }
    }

    /// SA23-2260, External Interruption: the measurement alert has the lowest priority, so
    /// a pending alert waits while a higher-priority external interruption is pending and
    /// enabled, and is taken (all events merged) once it is not.
    #[test]
    fn the_alert_waits_for_higher_priority_external_interruptions() {
        let p = PendingAlerts::default();
        p.raise(AlertBits::PROGRAM_REQUEST);
        p.raise(AlertBits::LOSS_OF_SAMPLE_DATA);
        let busy = CpuView {
            higher_external_pending: true,
            ..enabled()
        };
        assert_eq!(p.take_deliverable(&busy), None);
        assert_eq!(
            p.pending(),
            AlertBits::PROGRAM_REQUEST | AlertBits::LOSS_OF_SAMPLE_DATA
        );
        let param = p.take_deliverable(&enabled()).expect("presented");
        assert_eq!(
            param,
            (AlertBits::PROGRAM_REQUEST | AlertBits::LOSS_OF_SAMPLE_DATA).bits()
        );
        assert!(p.pending().is_empty());
    }

    /// SA23-2260, Measurement Alert: held pending while the PSW external mask or CR0 bit 58
    /// is off.
    #[test]
    fn the_alert_needs_the_external_mask_and_the_subclass_mask() {
        let p = PendingAlerts::default();
        p.raise(AlertBits::PROGRAM_REQUEST);
        let no_mask = CpuView {
            ext_mask: false,
            ..enabled()
        };
        let no_subclass = CpuView {
            cr0: 0,
            ..enabled()
        };
        assert_eq!(p.take_deliverable(&no_mask), None);
        assert_eq!(p.take_deliverable(&no_subclass), None);
        assert_eq!(p.pending(), AlertBits::PROGRAM_REQUEST);
    }
}

//! The state of a counter set (SA23-2260 Figure 2-1), the transitions the program may make
//! (Figure 2-2), and the local counter-set-state control register as one atomic word.

use crate::model::CounterSets;

/// State of a counter set (Figure 2-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetState {
    Unauthorized,
    Disabled,
    Inactive,
    Active,
}

impl SetState {
    /// The state the controls A, E, C describe, or None for an invalid combination.
    pub fn of(a: bool, e: bool, c: bool) -> Option<SetState> {
        match (a, e, c) {
            (false, false, false) => Some(SetState::Unauthorized),
            (true, false, false) => Some(SetState::Disabled),
            (true, true, false) => Some(SetState::Inactive),
            (true, true, true) => Some(SetState::Active),
            _ => None,
        }
    }
}

/// Is `from -> to` a transition LCCTL/LPCTL may make (Figure 2-2)? Same-state requests
/// succeed (programming note 1); transitions to or from unauthorized need external means.
pub fn program_transition_allowed(from: SetState, to: SetState) -> bool {
    use SetState::*;
    match (from, to) {
        (a, b) if a == b => true,
        (Unauthorized, _) | (_, Unauthorized) => false,
        _ => true,
    }
}

/// The local counter-set-state control register packed into one word for atomic updates:
/// authorization, enable and activation halfwords in the QCTRI layout.
pub(super) fn pack(a: CounterSets, e: CounterSets, c: CounterSets) -> u64 {
    u64::from(a.bits()) | (u64::from(e.bits()) << 16) | (u64::from(c.bits()) << 32)
}

/// The three halfwords of a packed control register.
pub(super) fn unpack(v: u64) -> (CounterSets, CounterSets, CounterSets) {
    (
        CounterSets::from_bits_retain(v as u16),
        CounterSets::from_bits_retain((v >> 16) as u16),
        CounterSets::from_bits_retain((v >> 32) as u16),
    )
}

//! Unit tests of the sampler thread's loop.

use super::*;

/// Late against its own target, or against the earlier deadline of a CPU that woke it,
/// but never for the time before it slept.
#[test]
fn a_wake_up_is_late_against_the_first_deadline_asked_for() {
    // Slept at 1,000 until 11,000: woken at 11,500 is 500 late.
    assert_eq!(lateness(11_500, 11_000, u64::MAX, 1_000), 500);
    assert_eq!(lateness(10_000, 11_000, u64::MAX, 1_000), 0, "on time");
    // A CPU woke it for 3,000 and it ran at 9,000: 6,000 late, though before its target.
    assert_eq!(lateness(9_000, 11_000, 3_000, 1_000), 6_000);
    // A later deadline (past its target) changes nothing.
    assert_eq!(lateness(11_500, 11_000, 20_000, 1_000), 500);
    // A deadline already past when it went to sleep (posted during the pass): late only
    // from the sleep on.
    assert_eq!(lateness(1_200, 11_000, 500, 1_000), 200);
}

/// The supervisor runs the loop again after a panic while the handler says so, tells it
/// each panic with its place and message, and returns when the loop returns.
#[test]
fn a_panicking_loop_is_run_again_once_and_each_panic_is_told() {
    panics::install();
    let mut told = Vec::new();
    let mut runs = 0;
    let returned = run_supervised(
        &mut runs,
        |runs| {
            *runs += 1;
            panic!("pass {runs}");
        },
        |_, n, what| {
            told.push((n, what));
            n <= RESTARTS
        },
    );
    assert!(!returned);
    assert_eq!(runs, 2, "run, then run again once");
    assert_eq!(told.len(), 2);
    for (i, (n, what)) in told.iter().enumerate() {
        assert_eq!(*n, i as u32 + 1);
        assert!(what.starts_with("at src/host/sampler/tests.rs:"), "{what}");
        assert!(what.ends_with(&format!(": pass {}", i + 1)), "{what}");
    }
    let mut runs = 0;
    assert!(run_supervised(&mut runs, |runs| *runs += 1, |_, _, _| true));
    assert_eq!(runs, 1, "a loop that returns is not run again");
}

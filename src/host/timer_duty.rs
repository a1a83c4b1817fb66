//! Hercules' TOD-clock updates, made by the sampler thread while it has no host core of its
//! own (`host::placement`) and wakes more often than Hercules' timer thread.
//!
//! Hercules' timer thread sleeps TIMERINT (50 us by default) and then updates the TOD clock
//! and every CPU's clock comparator, CPU timer and interval timer (`update_tod_clock`). Where
//! the CPU threads fill the host's cores, each of its wake-ups preempts a CPU thread (about
//! 8,700 a second on Debian's 3.13), and so does each of the sampler's (about 12,400 a second
//! with 4 CPUs sampling at 13,333/s on 2 cores): two threads wake for the same clock, and the
//! CPU threads' time in the kernel (interrupt, switch) comes from those wake-ups. So then the
//! sampler makes the update after its pass, at most once every TIMERINT (as the timer thread
//! would), and Hercules' timer thread sleeps [`DUTY_TIMERINT_US`] instead; its once-a-second
//! MIPS and busy accounting goes on. The sampler wakes at least every TIMERINT the operator
//! set plus the timer thread's slack (its sleep is cut to that), so the guest's timers are
//! checked at least as often as before.
//!
//! Taken while the sampler's own wake-ups (those its CPUs asked for) come at least every
//! TIMERINT plus Hercules' 50-us timer slack, over a [`REVIEW_NS`] window; given back when
//! they come a quarter less often, or the sampler gets a core of its own. Given back, the
//! operator's TIMERINT is put back and the sampler goes on updating for one more long sleep of
//! the timer thread ([`HANDOVER_NS`]). A TIMERINT the operator sets meanwhile is the one the
//! sampler keeps to (and puts back). Only with `HCPUMF_TOD_DUTY=1` in Hercules' environment
//! (see [`enabled`]).

use crate::host::glue::hcpumf_host;
use crate::host::meter::bump;
use crate::host::state::SamplerState;
use std::sync::atomic::Ordering;

/// Hercules' timer-thread interval (us) while the sampler makes the updates: its thread then
/// wakes 1,000 times a second, and would go on updating the clock that often if the sampler
/// were held up.
pub const DUTY_TIMERINT_US: i32 = 1_000;

/// How often the sampler's wake-ups are weighed.
pub const REVIEW_NS: u64 = 20_000_000;

/// The timer slack of Hercules' own `usleep` (the kernel's default): its timer thread wakes
/// TIMERINT plus up to this after its last update.
pub const USLEEP_SLACK_NS: u64 = 50_000;

/// After the duty is given back the timer thread may still be in a sleep of
/// DUTY_TIMERINT_US: the sampler updates until that has surely ended.
pub const HANDOVER_NS: u64 = DUTY_TIMERINT_US as u64 * 1_000 + 200_000;

/// The duty's state on the sampler thread. What must outlive a panic of the sampler's loop
/// (whether the duty is the sampler's, and the operator's TIMERINT) is in [`SamplerState`].
#[derive(Debug, Default)]
pub struct TimerDuty {
    /// Start of the review window (wall ns), and the sampler's own wake-ups in it.
    window_start: u64,
    own_wakes: u64,
    /// Wall time until which the sampler still updates after giving the duty back.
    handover_until: u64,
    /// Wall time of its last update.
    last_update: u64,
}

/// What the review decides, from the sampler's own wake-ups in a window of `window_ns`,
/// whether it has a host core of its own, the operator's TIMERINT (us) and whether the duty
/// is the sampler's now: take it or keep it (true), or not (false).
pub fn wanted(own_wakes: u64, window_ns: u64, spare: bool, timerint_us: i32, held: bool) -> bool {
    if spare || timerint_us <= 0 || timerint_us >= DUTY_TIMERINT_US || own_wakes == 0 {
        return false;
    }
    // Hercules' period, and the sampler's: a quarter less often before it is given back.
    let period = timerint_us as u64 * 1_000 + USLEEP_SLACK_NS;
    let own = window_ns / own_wakes;
    if held {
        own * 4 <= period * 5
    } else {
        own <= period
    }
}

impl TimerDuty {
    pub fn new() -> Self {
        Self::default()
    }

    /// Is the sampler making the updates (or handing them back) at wall time `now`?
    pub fn active(&self, st: &SamplerState, now: u64) -> bool {
        st.tod_duty_us.load(Ordering::Relaxed) != 0 || now < self.handover_until
    }

    /// The longest the sampler may sleep from `now`: the longest Hercules' timer thread
    /// sleeps, the operator's TIMERINT and its usleep's slack, while the sampler makes the
    /// updates (None: as long as its CPUs allow).
    pub fn longest_sleep(&self, st: &SamplerState, now: u64) -> Option<u64> {
        let us = st.tod_duty_us.load(Ordering::Relaxed);
        if us != 0 {
            Some(u64::from(us) * 1_000 + USLEEP_SLACK_NS)
        } else if now < self.handover_until {
            Some(self.handover_until - now)
        } else {
            None
        }
    }

    /// A wake-up the sampler's CPUs asked for (not one the duty's longest sleep made).
    pub fn own_wake(&mut self) {
        self.own_wakes += 1;
    }

    /// After the sampler's pass at `now`: make the update if the duty is the sampler's, and
    /// every REVIEW_NS weigh its wake-ups (`spare`: it has a host core of its own).
    pub fn pass(&mut self, h: &hcpumf_host, st: &SamplerState, now: u64, spare: bool) {
        if !enabled() {
            return;
        }
        if self.window_start == 0 {
            self.window_start = now;
        }
        if now.saturating_sub(self.window_start) >= REVIEW_NS {
            self.review(h, st, now, spare);
        }
        // As often as Hercules' timer thread would update, not at every pass: an update takes
        // Hercules' interrupt lock and reads every CPU's timers, and at 20,000 samples/s on 4
        // CPUs the sampler passes up to 40,000 times a second, where 3.13's timer thread
        // updated about 8,700 times.
        let every = u64::from(st.tod_duty_us.load(Ordering::Relaxed)) * 1_000;
        if self.active(st, now) && now.saturating_sub(self.last_update) >= every {
            self.last_update = now;
            if let Some(update) = h.tod_update {
                // SAFETY: the glue calls Hercules' update_tod_clock; the sampler holds no CPU
                // (no `host::exclusive` hold) between passes.
                unsafe { update() };
                bump(&st.tod_updates, 1);
            }
        }
    }

    fn review(&mut self, h: &hcpumf_host, st: &SamplerState, now: u64, spare: bool) {
        let window = now - self.window_start;
        let wakes = self.own_wakes;
        self.window_start = now;
        self.own_wakes = 0;
        let (Some(timerint), Some(_)) = (h.timerint, h.tod_update) else {
            return;
        };
        let held = st.tod_duty_us.load(Ordering::Relaxed);
        // SAFETY: the glue reads Hercules' sysblk.timerint (0: only read).
        let now_us = unsafe { timerint(0) };
        // The operator's TIMERINT: the one kept while the duty is held, unless the operator
        // set another at the console since.
        let operator = if held != 0 && now_us == DUTY_TIMERINT_US {
            i32::try_from(held).unwrap_or(i32::MAX)
        } else {
            now_us
        };
        let want = wanted(wakes, window, spare, operator, held != 0);
        if want && (held == 0 || now_us != DUTY_TIMERINT_US) {
            // Taken, or the operator set TIMERINT meanwhile: keep to theirs, put it back later.
            // SAFETY: as above; sets sysblk.timerint.
            unsafe { timerint(DUTY_TIMERINT_US) };
            store_operator(st, operator);
        } else if !want && held != 0 {
            self.give_back(h, st, now);
        }
    }

    /// Put the operator's TIMERINT back (unless the operator has set one since) and go on
    /// updating for HANDOVER_NS.
    pub fn give_back(&mut self, h: &hcpumf_host, st: &SamplerState, now: u64) {
        give_back_timerint(h, st);
        self.handover_until = now + HANDOVER_NS;
    }

    /// The sampler's loop ends with the duty (or its handover) its own: give it back and make
    /// the updates until the timer thread has surely woken, sleeping the operator's TIMERINT
    /// between them.
    pub fn end(&mut self, h: &hcpumf_host, st: &SamplerState, wall: impl Fn() -> u64) {
        let now = wall();
        let operator = st.tod_duty_us.load(Ordering::Relaxed);
        if operator != 0 {
            self.give_back(h, st, now);
        }
        let us = if operator == 0 {
            50
        } else {
            operator.min(1_000)
        };
        let step = std::time::Duration::from_micros(u64::from(us));
        while wall() < self.handover_until {
            if let Some(update) = h.tod_update {
                // SAFETY: as in `pass`.
                unsafe { update() };
            }
            std::thread::sleep(step);
        }
    }
}

fn store_operator(st: &SamplerState, us: i32) {
    st.tod_duty_us
        .store(u32::try_from(us.max(1)).unwrap_or(1), Ordering::Relaxed);
}

/// Put the operator's TIMERINT back now if the duty is the sampler's (after a panic of its
/// loop that ends the thread, too: the timer thread must not be left at DUTY_TIMERINT_US).
pub fn give_back_timerint(h: &hcpumf_host, st: &SamplerState) {
    let operator = st.tod_duty_us.swap(0, Ordering::Relaxed);
    if operator == 0 {
        return;
    }
    if let Some(timerint) = h.timerint {
        // SAFETY: the glue reads sysblk.timerint.
        if unsafe { timerint(0) } == DUTY_TIMERINT_US {
            // SAFETY: as above; sets it.
            unsafe { timerint(i32::try_from(operator).unwrap_or(DUTY_TIMERINT_US)) };
        }
    }
}

/// `HCPUMF_TOD_DUTY=1` in Hercules' environment: the sampler may take the updates. Off by
/// default: with 4 CPUs at the maximum rate on 2 cores it lost more intervals than without
/// (`sampling_rate`, 2026-11-28: 3,666-5,001 entries of 5,001 against 4,338-5,002), for a
/// reason not found yet.
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("HCPUMF_TOD_DUTY").is_ok_and(|v| v.trim() == "1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS20: u64 = 20_000_000;

    #[test]
    fn taken_when_the_sampler_wakes_at_least_as_often_as_the_timer_thread() {
        // TIMERINT 50: the timer thread wakes every 100 us at most, 200 times in 20 ms.
        assert!(wanted(200, MS20, false, 50, false));
        assert!(wanted(250, MS20, false, 50, false));
        assert!(!wanted(199, MS20, false, 50, false));
    }

    #[test]
    fn kept_until_the_sampler_wakes_a_quarter_less_often() {
        assert!(wanted(160, MS20, false, 50, true));
        assert!(!wanted(159, MS20, false, 50, true));
    }

    #[test]
    fn never_with_a_core_of_its_own_or_a_long_timerint() {
        assert!(!wanted(1_000, MS20, true, 50, false));
        assert!(!wanted(1_000, MS20, true, 50, true));
        // The timer thread already sleeps as long as the duty would have it.
        assert!(!wanted(100_000, MS20, false, DUTY_TIMERINT_US, false));
        assert!(!wanted(0, MS20, false, 50, false));
        assert!(!wanted(1_000, MS20, false, 0, false));
    }

    #[test]
    fn the_sleep_is_cut_to_the_operators_timerint_while_held_and_handing_back() {
        let st = SamplerState::default();
        let mut d = TimerDuty::new();
        assert_eq!(d.longest_sleep(&st, 5), None);
        assert!(!d.active(&st, 5));
        st.tod_duty_us.store(50, Ordering::Relaxed);
        assert_eq!(d.longest_sleep(&st, 5), Some(100_000));
        assert!(d.active(&st, 5));
        st.tod_duty_us.store(0, Ordering::Relaxed);
        d.handover_until = 1_000_000;
        assert_eq!(d.longest_sleep(&st, 400_000), Some(600_000));
        assert!(d.active(&st, 400_000));
        assert!(!d.active(&st, 1_000_000));
    }
}

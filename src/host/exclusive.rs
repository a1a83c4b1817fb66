//! Who may change a CPU's sampling state right now: the CPU's own thread (its instructions,
//! its tick, resets and console changes of it), or the sampler thread taking a basic sample
//! from outside (`host::remote`). Without it, a sample the sampler is storing could meet a
//! LOAD SAMPLING CONTROLS or a reset half-way (an entry stored at a DEAR just cleared).
//!
//! The sampler only ever *tries* to take a CPU (and arms the CPU instead when it cannot): it
//! runs at real-time priority and must never wait for a CPU thread the host has preempted.
//! The other side waits, with a spin and then yields; the sampler holds a CPU for the few
//! microseconds one sample takes. Taking it again on a thread that holds it is allowed (a
//! hook that resets its own CPU), so it never deadlocks a thread with itself.

use std::sync::atomic::{AtomicUsize, Ordering};

/// One CPU's token: 0 free, else the taking thread's id.
#[derive(Debug, Default)]
pub struct Exclusive {
    owner: AtomicUsize,
}

/// Holds a CPU until dropped (also when a panic unwinds through the holder).
pub struct Held<'a> {
    token: Option<&'a Exclusive>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.token {
            t.owner.store(0, Ordering::Release);
        }
    }
}

thread_local! {
    static ME: u8 = const { 0 };
}

/// A nonzero id of the calling thread (the address of one of its thread-locals).
fn me() -> usize {
    ME.with(|m| m as *const u8 as usize) | 1
}

impl Exclusive {
    /// Take the CPU, waiting while another thread holds it.
    pub fn take(&self) -> Held<'_> {
        let id = me();
        if self.owner.load(Ordering::Relaxed) == id {
            return Held { token: None };
        }
        let mut spins = 0u32;
        while self
            .owner
            .compare_exchange_weak(0, id, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins += 1;
            if spins < 256 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        Held { token: Some(self) }
    }

    /// Take the CPU if no thread holds it.
    pub fn try_take(&self) -> Option<Held<'_>> {
        let id = me();
        if self.owner.load(Ordering::Relaxed) == id {
            return Some(Held { token: None });
        }
        self.owner
            .compare_exchange(0, id, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| Held { token: Some(self) })
    }

    /// Does some thread hold the CPU?
    pub fn is_held(&self) -> bool {
        self.owner.load(Ordering::Relaxed) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn a_holder_may_take_again_and_others_wait() {
        let x = Arc::new(Exclusive::default());
        {
            let _a = x.take();
            let _b = x.take();
            assert!(x.is_held());
            let y = Arc::clone(&x);
            let other = std::thread::spawn(move || y.try_take().is_none());
            assert!(other.join().unwrap_or(false));
        }
        assert!(!x.is_held());
        assert!(x.try_take().is_some());
        assert!(!x.is_held());
    }

    #[test]
    fn holders_exclude_each_other() {
        let x = Arc::new(Exclusive::default());
        let inside = Arc::new(AtomicU64::new(0));
        let bad = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (x, inside, bad) = (Arc::clone(&x), Arc::clone(&inside), Arc::clone(&bad));
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        let _h = x.take();
                        if inside.fetch_add(1, Ordering::SeqCst) != 0 {
                            bad.fetch_add(1, Ordering::SeqCst);
                        }
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            assert!(t.join().is_ok());
        }
        assert_eq!(bad.load(Ordering::SeqCst), 0);
    }
}

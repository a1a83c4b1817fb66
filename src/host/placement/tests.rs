use super::*;

/// The end of an activation misses a few intervals; a clock that gave up catching up,
/// with a quarter of the intervals missed, is starvation.
#[test]
fn only_a_clock_that_gave_up_says_starved() {
    assert!(!starved_below(0, 0));
    assert!(
        !starved_below(10, 2),
        "an activation's end in a look that saw little"
    );
    assert!(!starved_below(MAX_CATCH_UP, 0));
    assert!(starved_below(MAX_CATCH_UP + 1, 0));
    assert!(starved_below(200, 400), "a third missed");
    assert!(
        !starved_below(100, 400),
        "a fifth missed: the sampler keeps up"
    );
}

/// Below the real-time CPU threads only where other processes leave most of a core free.
#[test]
fn the_sampler_goes_below_only_with_a_core_left_free() {
    // Two cores, one CPU thread of ours, nothing else: a core free.
    assert!(room_below(0, 2, 1));
    assert!(room_below(300, 2, 1), "a few percent of others' work");
    // Another Hercules' CPU thread on the other core.
    assert!(!room_below(1000, 2, 1));
    assert!(!room_below(301, 2, 1));
    // Our CPU threads on every core: no room whatever the others do.
    assert!(!room_below(0, 2, 2));
    assert!(!room_below(0, 2, 3), "more CPU threads than cores");
    // Four cores, one CPU thread, another process filling two: one core free.
    assert!(room_below(2000, 4, 1));
    assert!(!room_below(2400, 4, 1));
}

#[test]
fn a_thread_core_is_read_from_proc() {
    let tid = crate::host::deadline::thread_id();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let core = ThreadStat::of(tid).and_then(|t| t.core);
    assert!(core.is_some_and(|c| c < cores.max(1024)), "{core:?}");
    assert_eq!(ThreadStat::of(0), None);
    assert_eq!(ThreadStat::of(u32::MAX), None);
}

/// Field 40 of a real-time thread is its priority; an ordinary thread's is 0.
#[test]
fn a_thread_real_time_priority_is_read_from_proc() {
    let tid = crate::host::deadline::thread_id();
    assert_eq!(ThreadStat::of(tid).map(|t| t.rt_priority), Some(0));
    let param = libc::sched_param { sched_priority: 3 };
    // SAFETY: changes only this test thread's policy; refused without the privilege.
    let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_RR, &param) };
    // SAFETY: geteuid only returns the caller's id.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(rc == 0 || !root, "root may make a thread real-time: {rc}");
    if rc == 0 {
        assert_eq!(ThreadStat::of(tid).map(|t| t.rt_priority), Some(3));
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: as above, back to an ordinary thread.
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_OTHER, &param) };
    }
}

/// The guard tells a starved sampler (runnable, waiting for a core) from one the host woke
/// late (asleep): a thread that runs is R, one parked is not.
#[test]
fn a_running_thread_is_runnable_and_a_parked_one_is_not() {
    // SAFETY: gettid has no preconditions.
    let me = unsafe { libc::gettid() } as u32;
    assert_eq!(runnable(me), Some(true));
    let (tx, rx) = std::sync::mpsc::channel();
    let t = std::thread::spawn(move || {
        // SAFETY: as above.
        let _ = tx.send(unsafe { libc::gettid() } as u32);
        std::thread::park();
    });
    let tid = rx.recv().expect("tid");
    // Parked within moments of sending; allow a loaded host a few looks.
    let mut asleep = false;
    for _ in 0..200 {
        if runnable(tid) == Some(false) {
            asleep = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    t.thread().unpark();
    t.join().expect("join");
    assert!(asleep, "a parked thread reads as asleep");
    assert_eq!(runnable(u32::MAX), None, "no such thread");
}

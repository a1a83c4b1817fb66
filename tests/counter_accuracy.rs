//! Counter values are real measurements (SA23-2260, Basic and Problem-State Counter Sets):
//! instruction counts of a 100-million-instruction loop within 24 of the exact number, cycles
//! within 5% of the CPU thread's host CPU time times the CPU speed (and never more than the
//! elapsed time), no cycles in an enabled wait, and the problem-state share of a
//! guest that switches states ~300 times a second within 2 percentage points.
mod common;
use common::*;
use std::sync::Mutex;

// Timing-sensitive runs do not share the machine with each other.
static SERIAL: Mutex<()> = Mutex::new(());

const SPEED: f64 = 4404.0; // cycles per microsecond of the 2097 model

/// Instructions between the two reads of the instruction count in `count_loop.s`, counted
/// from the guest source: after the first ECCTR (of counter 1) come ECCTR (counter 0),
/// LLILF, 100,000,000 BRCTGs, ECCTR (counter 0) and the second ECCTR (counter 1). Whether a
/// read counts its own ECCTR or not, both reads do the same, so the difference is these
/// 100,000,004 instructions.
const COUNT_LOOP_EXACT: i64 = 100_000_004;

/// docs/fidelity.md: the instruction count is "within a few instructions (Hercules counts
/// 12 at a time)": Hercules 3.13 adds 12 to its count in the middle of each block of 12
/// instructions, so a read is off by at most 12, and a difference of two reads by at most
/// 24. (Hyperion adds up to 256 at a time, but the plugin makes the count current at the
/// counter instructions: within one instruction.)
const COUNT_TOLERANCE: i64 = 24;

fn tod_us(t: u64) -> f64 {
    (t >> 12) as f64
}

#[test]
fn basic_instruction_and_cycle_counts() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The harness reads the threads' CPU times when it sees CPU 0's disabled wait; on a
    // loaded host it can see it late, after the check script's `quit` ended the CPU thread
    // (seen in CI: a "busiest thread" of 5 ms for a 280 ms loop). Hold Hercules meanwhile.
    let cfg = Config {
        after: vec!["pause 2".into()],
        ..Config::default()
    };
    let out = run("count_loop", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!((out.u32(0x3030) >> 28) & 3, 0, "LCCTL cc 0");
    let instr = out.u64(0x3008).wrapping_sub(out.u64(0x3000)) as i64;
    eprintln!("count_loop: {instr} instructions between the two reads");
    assert!(
        (instr - COUNT_LOOP_EXACT).abs() <= COUNT_TOLERANCE,
        "instructions {instr} vs {COUNT_LOOP_EXACT} (tolerance {COUNT_TOLERANCE})"
    );

    // Cycles are the CPU thread's host CPU time times the speed (README, fidelity): the
    // oracle is that thread's own CPU time, which a loaded host gives it less of than the
    // elapsed time. The loop is nearly all of the thread's life (it ran the few
    // instructions before and after it and its start-up), and never more than the time that
    // passed.
    let cycles = out.u64(0x3018).wrapping_sub(out.u64(0x3010)) as f64;
    let wall_us = tod_us(out.u64(0x3028)) - tod_us(out.u64(0x3020));
    let thread_us = out.busiest_thread_ns.expect("the CPU thread's CPU time") as f64 / 1000.0;
    assert!(
        cycles <= wall_us * SPEED * 1.01,
        "cycles {cycles} exceed the elapsed {wall_us} us x {SPEED}"
    );
    let expect = thread_us * SPEED;
    let err = (cycles - expect) / expect;
    assert!(
        (-0.05..0.01).contains(&err),
        "cycles {cycles} vs the CPU thread's {thread_us} us x {SPEED}: {:.2}%",
        err * 100.0
    );
}

#[test]
fn no_cycles_in_an_enabled_wait() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = run("wait_cycles", &Config::default());
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // Three waits of 0.3 s. The fewest cycles any of them counted is the wait's own cost:
    // one wait can also carry a host hiccup after the wake-up (the CPU thread preempted or
    // migrated: seen 160 us of its CPU time once in eight runs, against 23-38 us).
    let waits: Vec<(f64, f64)> = (0..3u64)
        .map(|i| {
            let b = 0x3000 + 0x20 * i;
            let cycles = out.u64(b + 8).wrapping_sub(out.u64(b)) as f64;
            let wall_us = tod_us(out.u64(b + 0x18)) - tod_us(out.u64(b + 0x10));
            assert!(wall_us > 250_000.0, "wait {i} lasted {wall_us} us");
            (cycles, wall_us)
        })
        .collect();
    eprintln!("wait_cycles: (cycles, us) of the three waits: {waits:?}");
    let (cycles, wall_us) = waits
        .iter()
        .copied()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("three waits");
    // The few instructions around the wait and the interruption cost well under a
    // thousandth of the waited time.
    assert!(
        cycles < wall_us * SPEED * 0.001,
        "{cycles} cycles counted over a {wall_us} us wait (all three: {waits:?})"
    );
    // Every wait, the one with a hiccup too: docs/fidelity.md puts leaving a wait at 20-40 us
    // of the CPU thread's time and the hiccup seen at 160 us; a preempted thread is not
    // charged for the time it does not run. 0.2% of the 0.3 s wait (600 us) is more than
    // both together, and well under what counting the wait would give (0.3 s).
    for (i, &(c, w)) in waits.iter().enumerate() {
        assert!(
            c < w * SPEED * 0.002,
            "wait {i}: {c} cycles counted over a {w} us wait (all three: {waits:?})"
        );
    }
}

#[test]
fn problem_state_share() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = run("pstate_split", &Config::default());
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let total = out.u64(0x3008).wrapping_sub(out.u64(0x3000)) as f64;
    let prob = out.u64(0x3018).wrapping_sub(out.u64(0x3010)) as f64;
    // Per round: supervisor LLILF + 300,000 BRCTG + LLILF + LPSWE + BRCTG(back) = 300,004;
    // problem 700,000 BRCTG + SVC = 700,001 (the SVC completes in the problem state).
    let source_prob = 300.0 * 700_001.0;
    let source_total = 300.0 * (700_001.0 + 300_004.0);
    eprintln!(
        "problem_state_share: problem {prob} of {total} (source: {source_prob} of {source_total} + ECCTRs)"
    );
    // Every switch is by SVC or LPSWE, which the plugin accounts exactly (docs/fidelity.md),
    // so the problem-state count is the source's, less what Hercules itself leaves
    // uncounted at an instruction that ends in an interruption or a PSW load: 3.13 counts
    // its instructions in runs of 12 and drops the run such an instruction ends (up to 12
    // per switch, 600 switches), Hyperion does not count the SVC (one per round). Plus 24
    // for reading a count that moves 12 at a time, twice. Accounting only every ~100 us
    // instead would miss by tens of thousands of instructions per switch.
    let lost_max = 300.0 * 12.0;
    assert!(
        prob <= source_prob + 24.0 && prob >= source_prob - lost_max - 24.0,
        "problem-state instructions {prob}: the source executes {source_prob} \
         (Hercules may leave up to {lost_max} uncounted)"
    );
    let sup = total - prob;
    let source_sup = source_total - source_prob;
    // The supervisor side also holds the ECCTRs, STGs and LGHI between the reads (9).
    assert!(
        sup <= source_sup + 9.0 + 24.0 && sup >= source_sup - lost_max - 24.0,
        "supervisor-state instructions {sup}: the source executes {source_sup} + 9"
    );
    let cyc = out.u64(0x3028).wrapping_sub(out.u64(0x3020)) as f64;
    let pcyc = out.u64(0x3038).wrapping_sub(out.u64(0x3030)) as f64;
    let truth = source_prob / source_total;
    eprintln!(
        "problem_state_share: cycle share {:.5} vs {truth:.5}",
        pcyc / cyc
    );
    // Cycles are CPU time, attributed at the same exact points: the share of time is the
    // share of (equally long) BRCTGs, seen within 0.001; 0.01 allows for a loaded host.
    assert!(
        (pcyc / cyc - truth).abs() < 0.01,
        "problem-state cycle share {:.4} vs {truth:.4}",
        pcyc / cyc
    );
}

#[test]
fn problem_state_share_with_interruption_driven_switches() {
    // The regression the Linux guest found: switches into the supervisor state by
    // interruptions are not seen when they happen; the attribution must still be unbiased.
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = run(
        "pstate_irq",
        &Config {
            after: vec!["hcpumf status".into()],
            ..Config::default()
        },
    );
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let total = out.u64(0x3008).wrapping_sub(out.u64(0x3000)) as f64;
    let prob = out.u64(0x3018).wrapping_sub(out.u64(0x3010)) as f64;
    let ticks = out.u64(0x3020) as f64;
    assert!(ticks > 100.0, "{ticks} interruptions");
    // Supervisor: per interruption 100,000 BRCTGs and 8 more instructions; problem: the
    // 300,000,000-BRCTG loop.
    let truth = 300_000_001.0 / (300_000_001.0 + ticks * 100_008.0);
    let share = prob / total;
    eprintln!(
        "interruption-driven: problem-state share {share:.4} vs {truth:.4} ({ticks} interruptions)"
    );
    for l in out.log.lines().filter(|l| l.contains("HHCMF02")) {
        eprintln!("{l}");
    }
    // The plugin cannot see when an interruption switches the state; it bounds the error
    // by accounting every ~100 us while such switches happen (README "fidelity": within 5
    // points; exact for switches by SVC, LPSW and LPSWE).
    assert!(
        (share - truth).abs() < 0.05,
        "problem-state share {share:.4} vs {truth:.4} ({ticks} interruptions)"
    );
}

//! Hundreds of sampling activations in one run (issue 21): every activation by LOAD SAMPLING
//! CONTROLS samples from its first interval to its last. SA23-2260, "State of Sampling
//! Function": in the active state "new sampling data is stored during each sampling
//! interval"; "Data Entry": "a data entry is stored during each sampling interval";
//! "Sampling Interval Register": the interval is "the average number of CPU cycles within
//! each sampling interval". So an activation whose spin ran C cycles at interval I stores
//! about C / I entries, whatever the kind of activation: basic, diagnostic or combined, from
//! the disabled, inactive or active state, into a block in the last page of main storage.
//! And "Trailer Entries": the sample overflow count is "the number of sample data that has
//! been lost because the sample-data block is full", so no trailer of a block that is not
//! full carries one.
//!
//! `tests/guest/samp_activations.s` runs 200 rounds of seven activations on every CPU,
//! each at the QSI minimum interval for a spin of 2 million BRCTG (about 100-170 intervals
//! on the development VM; kind 6 spins twice as long), and records every activation's
//! entries, cycles and instructions (the basic counter set's, around the spin).
//!
//! The bound, per activation: at least 98% of C / I entries (the README's tolerance at
//! 20,000 samples/s) less two, and at most C / I + 2 + 4. Below, the two: the last interval
//! before the deactivating LSCTL is cut short and never due, and the one before may still
//! be on its way (a sample is taken at the first look after its due time, a wake-up
//! latency, tens of microseconds, against an interval of 50 us). Above, the two: a sample
//! may be taken up to a quarter interval before its due time (`host::clock::EARLY_NS`) plus
//! the wake-up margin the clock learned (at most half an interval); the four: a tick that
//! extrapolated the CPU time with the wall clock (at most 200 us, README "fidelity") can
//! leave the cycle count ahead of the thread's time at the activation's first ECCTR, which
//! then shortens C by up to 4 intervals. Per activation of 100-170 intervals, two are
//! 1.2-2%.
//!
//! What the host costs comes on top, measured, not assumed: the sampler's worst wake-up
//! lateness of the run (`hcpumf status`), and CPU time the host charged to the CPU's thread
//! without the guest progressing (the activation's cycles per instruction above what the
//! same spin usually takes). Both cost samples the plugin can only count as missed; neither
//! covers a CPU left unsampled while the sampler was on time and the CPU ran at its usual
//! speed, which is what issue 21 found (80-230 intervals of an activation).
mod common;
use common::stored::{sampler_stalls, unexplained, ABOVE, SLACK};
use common::*;

const KINDS: [&str; 7] = [
    "basic, first activation",
    "basic, again while active (new TEAR, DEAR)",
    "basic, from inactive",
    "diagnostic alone",
    "combined (basic from disabled, diagnostic from inactive)",
    "invalid entry address at the first sample",
    "basic, first block in the last page of main storage",
];

const ROUNDS: u64 = 200;

/// What the guest recorded for one kind of activation on one CPU.
#[derive(Debug)]
struct Kind {
    activations: u64,
    /// The activation furthest below the bound: its entries, cycles and overflow counts.
    low_stored: u64,
    low_cycles: u64,
    low_overflow: u64,
    stored: u64,
    cycles: u64,
    bad_entries: u64,
    /// The activation furthest above the bound.
    high_stored: u64,
    high_cycles: u64,
    empty: u64,
    nonfull_overflow_trailers: u64,
    nonfull_overflow_sum: u64,
    lsctl_failed: u64,
    unexpected_interruptions: u64,
    /// Kind 5 only.
    alerts_presented: u64,
    never_attempted: u64,
    alerts_wrong: u64,
    last_wrong: u64,
    registers_changed: u64,
    trailer_touched: u64,
    fewest: u64,
    most: u64,
}

fn kinds(out: &Outcome, cpu: u64, interval: u64) -> Vec<Kind> {
    (0..7u64)
        .map(|k| {
            let r = 0x10000 + cpu * 0x800 + k * 0x100;
            let g = |o: u64| out.u64(r + o);
            let kind = Kind {
                activations: g(0),
                low_stored: g(0x10),
                low_cycles: g(0x18),
                low_overflow: g(0x20),
                stored: g(0x28),
                cycles: g(0x30),
                bad_entries: g(0x38),
                high_stored: g(0x48),
                high_cycles: g(0x50),
                empty: g(0x58),
                nonfull_overflow_trailers: g(0x60),
                nonfull_overflow_sum: g(0x68),
                lsctl_failed: g(0x70),
                unexpected_interruptions: g(0x78),
                alerts_presented: g(0x80),
                never_attempted: g(0x88),
                alerts_wrong: g(0x90),
                last_wrong: g(0x98),
                registers_changed: g(0xa0),
                trailer_touched: g(0xa8),
                fewest: g(0xb0),
                most: g(0xb8),
            };
            eprintln!(
                "CPU {cpu} kind {k} ({}): {} activations, {} entries for {:.0} intervals; \
                 {}-{} per activation, {} with none; lowest {} for {:.1} (overflow counts {}), \
                 highest {} for {:.1}",
                KINDS[k as usize],
                kind.activations,
                kind.stored,
                kind.cycles as f64 / interval as f64,
                kind.fewest,
                kind.most,
                kind.empty,
                kind.low_stored,
                kind.low_cycles as f64 / interval as f64,
                kind.low_overflow,
                kind.high_stored,
                kind.high_cycles as f64 / interval as f64,
            );
            kind
        })
        .collect()
}

/// One activation's spin, as the guest recorded it.
#[derive(Clone, Copy, Debug)]
struct Activation {
    stored: u64,
    cycles: u64,
    instructions: u64,
}

/// Where the per-activation records of CPU `cpu` are, and how long.
fn rows_at(cpu: u64) -> (u64, u64) {
    (0x20_0000 + cpu * 0x1_0000, ROUNDS * 7 * 24)
}

fn activations(out: &Outcome, cpu: u64, kind: u64) -> Vec<Activation> {
    let (at, _) = rows_at(cpu);
    (0..ROUNDS)
        .map(|r| {
            let a = at + (r * 7 + kind) * 24;
            Activation {
                stored: out.u64(a),
                cycles: out.u64(a + 8),
                instructions: out.u64(a + 16),
            }
        })
        .collect()
}

/// The Hercules runs of this file one at a time (the suite runs tests two at a time): each
/// is itself the load it measures the sampler under.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run_activations(numcpu: u32) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut show = vec![(0x10000, 0x800 * u64::from(numcpu)), (0x37f0, 0x10)];
    // Hercules' `r` shows at most 999 lines (16 bytes each) at a time.
    for cpu in 0..u64::from(numcpu) {
        let (at, len) = rows_at(cpu);
        show.extend(
            (0..len)
                .step_by(0x3000)
                .map(|o| (at + o, (len - o).min(0x3000))),
        );
    }
    let cfg = Config {
        numcpu,
        start_all: numcpu > 1,
        timeout: 600,
        show,
        after: vec!["hcpumf status".into()],
        ..Config::default()
    };
    let out = run("samp_activations", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), Vec::<u16>::new(), "{}", out.log);
    let status: Vec<&str> = out.log.lines().filter(|l| l.contains("HHCMF02")).collect();
    let status = status.join("\n");
    eprintln!("{status}");
    // QSI's minimum interval of the z10 model: 4,404 cycles/us, 20,000 samples/s (50 us).
    let interval = 220_200u64;
    let interval_ns = interval * 1000 / 4404;
    // The sampler takes every sample (from outside the CPU, or by arming it for a tick):
    // woken L ns late, or held up L in one pass of its loop (the host stopping its thread
    // while it runs), it finds the L / interval samples due meanwhile not taken. In the
    // middle of an activation the clock catches them up (one more sample every quarter
    // interval), but a spin that ends within the stall or before the catch-up leaves them
    // owed to the deactivating LSCTL, and they are missed: at most L / interval + 1 of one
    // activation of each CPU per late wake-up. (A virtual machine descheduling the sampler's
    // vCPU, or a kernel without preemption running other work on its core, delays real-time
    // wake-ups by a millisecond or more a few times a run on the development VM, once 11 ms
    // with two CPUs.) So every activation that falls short of the bound by more than what
    // the host charged it must have a late wake-up or long pass of its own to explain the rest.
    let stalls = sampler_stalls(&out);
    eprintln!("sampler's late wake-ups (at most ns, how many): {stalls:?}");
    let mut failures = Vec::new();
    for cpu in 0..u64::from(numcpu) {
        let ks = kinds(&out, cpu, interval);
        let mut deficits = Vec::new();
        for (k, kind) in ks.iter().enumerate() {
            let what = format!("CPU {cpu} kind {k} ({})", KINDS[k]);
            let mut fail = |s: String| failures.push(format!("{what}: {s}"));
            if kind.activations != ROUNDS {
                fail(format!("{} activations", kind.activations));
            }
            if kind.lsctl_failed != 0 {
                fail(format!("{} LSCTL with cc != 0", kind.lsctl_failed));
            }
            if kind.unexpected_interruptions != 0 {
                fail(format!(
                    "{} external interruptions during spins",
                    kind.unexpected_interruptions
                ));
            }
            if k == 5 {
                // No update process in a whole spin: only if the sampler was that late.
                let spin = (kind.low_cycles / interval) as f64;
                for _ in 0..kind.never_attempted {
                    deficits.push((
                        spin,
                        interval_ns,
                        format!(
                            "{what}: no sample in a spin of {spin} intervals (no \
                             invalid-entry-address alert, basic sampling still active)"
                        ),
                    ));
                }
                if kind.alerts_presented != ROUNDS || kind.alerts_wrong != 0 {
                    fail(format!(
                        "{} alerts as expected, {} missing or wrong (last {:#x})",
                        kind.alerts_presented, kind.alerts_wrong, kind.last_wrong
                    ));
                }
                if kind.registers_changed != 0 || kind.trailer_touched != 0 {
                    fail(format!(
                        "TEAR/DEAR changed {} times, the trailer {} times",
                        kind.registers_changed, kind.trailer_touched
                    ));
                }
                continue;
            }
            if kind.bad_entries != 0 {
                fail(format!("{} entries of a wrong format", kind.bad_entries));
            }
            if kind.nonfull_overflow_trailers != 0 {
                fail(format!(
                    "{} trailers of blocks that are not full carry overflow counts ({} in all)",
                    kind.nonfull_overflow_trailers, kind.nonfull_overflow_sum
                ));
            }
            // The rings hold 1,008 entries (1,134 for kind 6). A ring fills only in an
            // activation with more intervals than that: a spin the host stretched three times
            // and more (seen with a compiler running beside the suite), whose lost samples the
            // trailers count as overflow ("Trailer Entries") and the host's charge below
            // explains. A ring full in fewer intervals is judged by the per-activation bound
            // below, as every activation is (at most ABOVE entries over its intervals: samples
            // taken early within the clock's window, a cycle count read ahead). A check of its
            // own, without ABOVE, once failed a ring of 1,134 filled in 1,133.2 intervals on
            // SDL Hyperion, 0.8 above, where 6 are allowed.
            let ring = if k == 6 { 1134 } else { 1008 };
            // Every activation. The spin's usual cycles per instruction: a quarter of the
            // activations take no more (the sampling it pays for included).
            let acts = activations(&out, cpu, k as u64);
            let mut cpis: Vec<f64> = acts
                .iter()
                .map(|a| a.cycles as f64 / a.instructions.max(1) as f64)
                .collect();
            cpis.sort_by(f64::total_cmp);
            let cpi = cpis[cpis.len() / 4];
            let (mut strict, mut worst) = (0, (0, 0.0));
            let mut charged_all = 0.0;
            for (r, a) in acts.iter().enumerate() {
                let e = a.cycles as f64 / interval as f64;
                // Intervals of CPU time the host charged without the guest progressing.
                let charged =
                    (a.cycles as f64 - a.instructions as f64 * cpi).max(0.0) / interval as f64;
                charged_all += charged;
                let short = 0.98 * e - (a.stored + SLACK) as f64;
                if short > 0.0 {
                    strict += 1;
                }
                let rest = short - charged;
                if rest > worst.1 {
                    worst = (r, rest);
                }
                if rest > 0.0 {
                    deficits.push((
                        rest,
                        interval_ns,
                        format!(
                            "{what} round {r}: {} entries for {e:.1} intervals, {short:.1} below \
                         98% - {SLACK}, {charged:.1} of them charged (at {:.1} cycles per \
                         instruction, usually {cpi:.1})",
                            a.stored,
                            a.cycles as f64 / a.instructions.max(1) as f64
                        ),
                    ));
                }
                if a.stored as f64 > e + ABOVE {
                    fail(format!(
                        "round {r}: {} entries for {e:.1} intervals: more than {ABOVE} above{}",
                        a.stored,
                        if a.stored >= ring {
                            format!(" (the ring of {ring} entries full)")
                        } else {
                            String::new()
                        }
                    ));
                }
            }
            // The README's tolerance over all activations of the kind, of the intervals the
            // guest ran (less those the host charged, as for each activation above), less
            // what the sampler's stalls over 0.1 ms could take in all (tests/common/stored.rs:
            // a stall of L takes at most L / interval + 1 samples of each CPU).
            let e = kind.cycles as f64 / interval as f64;
            let stalled = stalls.total_ns.unwrap_or(0) as f64 / interval_ns as f64
                + stalls
                    .steps
                    .iter()
                    .map(|&(_, n)| n)
                    .filter(|&n| n != u64::MAX)
                    .sum::<u64>() as f64;
            if (kind.stored as f64) < 0.98 * (e - charged_all) - stalled {
                fail(format!(
                    "{} entries for {e:.0} intervals in all ({charged_all:.0} of them \
                     charged): more than 2% short, and more than the sampler's stalls \
                     ({stalled:.0} intervals) explain",
                    kind.stored
                ));
            }
            eprintln!(
                "{what}: {strict} of {ROUNDS} activations below 98% - {SLACK}; the furthest, \
                 round {}, {:.1} below beyond what the host charged; {charged_all:.0} \
                 intervals charged in all",
                worst.0, worst.1
            );
        }
        // Match the shortfalls to the late wake-ups, largest first, each to the least late
        // wake-up that explains it.
        failures.extend(unexplained(deficits, &mut stalls.clone()));
    }
    assert!(failures.is_empty(), "{}\n{status}", failures.join("\n"));
}

/// One CPU: 1,400 activations, 200 of each kind.
#[test]
fn every_activation_samples_every_interval_on_one_cpu() {
    run_activations(1);
}

/// Two CPUs, each its own 1,400 activations at once: the sampler serves both.
#[test]
fn every_activation_samples_every_interval_on_two_cpus() {
    run_activations(2);
}

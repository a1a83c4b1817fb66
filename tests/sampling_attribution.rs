//! Instruction-address attribution (SA23-2260, Basic-Sampling Data Entry, Instruction
//! Address): a guest spends a measured share of its CPU cycles in one loop and the rest in
//! another; the share of basic entries whose instruction address falls in each loop matches.
//! And the U field (SA23-2260, "Number of Unique Instructions") estimates each region's CPI.
mod common;
use common::stored::{self, Stored};
use common::*;

/// This file's Hercules runs one at a time. Two SDL Hyperion runs as root that start together
/// on a 2-core host each measure the other's start as a core left free, send their samplers
/// below the real-time CPU threads, and starve them there until the guard raises them
/// (up to its 20-ms period): a burst of a few hundred missed intervals in one loop, which
/// skews the shares this file measures (seen on a fresh 2-core VM, 2026-11-27: 3 runs in 4
/// with the tests two at a time, none one at a time; docs/hyperion.md).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The sampler thread takes these samples from the running CPU (`host::remote`); the status
/// line says how many.
#[test]
fn samples_fall_in_each_loop_in_proportion_to_its_cycles() {
    let taken_outside = attribution(true);
    assert!(
        taken_outside > 1000,
        "{taken_outside} samples taken from outside"
    );
}

/// The same with every sample taken by the tick on the CPU's own thread.
#[test]
fn samples_taken_by_the_tick_fall_in_each_loop_in_proportion_to_its_cycles() {
    assert_eq!(attribution(false), 0);
}

/// Run `samp_attr`, check the attribution and the CPI its U fields estimate, and return how
/// many samples `hcpumf status` says were taken without a tick.
fn attribution(remote: bool) -> u64 {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = Config {
        show: vec![(0x3000, 0x58), (0x37f0, 0x10)],
        after: vec!["hcpumf status".into()],
        env: if remote {
            Vec::new()
        } else {
            vec![("HCPUMF_SAMPLE_REMOTE".into(), "0".into())]
        },
        ..Config::default()
    };
    let out = run("samp_attr", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), Vec::<u16>::new());
    let (hot, cold, other, overflow) = (
        out.u64(0x3000),
        out.u64(0x3008),
        out.u64(0x3010),
        out.u64(0x3018),
    );
    let (cyc_hot, cyc_cold, cycles, interval) = (
        out.u64(0x3020),
        out.u64(0x3028),
        out.u64(0x3030),
        out.u64(0x3038),
    );
    let samples = hot + cold + other;
    let share_cycles = cyc_hot as f64 / (cyc_hot + cyc_cold) as f64;
    let share_samples = hot as f64 / (hot + cold) as f64;
    eprintln!(
        "hot {hot} cold {cold} other {other} overflow {overflow}; cycles hot {cyc_hot} cold \
         {cyc_cold} total {cycles} ({:.1} intervals); hot share: cycles {share_cycles:.4}, \
         samples {share_samples:.4}",
        cycles as f64 / interval as f64
    );
    assert!(samples >= 6000, "{samples} samples");
    assert!(
        (other as f64) < 0.01 * samples as f64,
        "{other} samples outside both loops"
    );
    // 8,000 samples: one standard deviation of the share is about 0.5 points.
    assert!(
        (share_samples - share_cycles).abs() < 0.03,
        "hot loop: {:.1}% of the cycles, {:.1}% of the samples",
        100.0 * share_cycles,
        100.0 * share_samples
    );
    // The blocks never fill (128 of them, ~8,000 samples): no trailer may carry a sample
    // overflow count (SA23-2260, Trailer Entries), and the entries stored account for the
    // intervals of the CPU time, within the bound of tests/common/stored.rs (intervals the
    // host could not sample are not stored).
    assert_eq!(overflow, 0, "overflow counts in blocks that are not full");
    stored::check(
        &out,
        &[Stored {
            what: "the two loops".into(),
            cpu: 0,
            stored: samples,
            cycles,
            interval,
        }],
        4404,
    );
    // The instructions while sampling, counted from samp_attr.s rather than taken from the
    // instruction counter the U fields are derived from: between the two reads of counter 1,
    // 10 instructions around the loop (STG, ECCTR, LSCTL before it; NI, LSCTL, ECCTR, SGR,
    // STG, LGHI and one of the two reading ECCTRs after) and per round 1,200,017 (300,000
    // and 100,000 iterations of AHI, AHI, BRCTG, and 17 more). The counter agrees within the
    // 24 of docs/fidelity.md ("within a few instructions (Hercules counts 12 at a time)":
    // each read within 12).
    let (sum_u, instructions, rounds) = (out.u64(0x3040), out.u64(0x3048), out.u64(0x3050));
    let exact = rounds * 1_200_017 + 10;
    eprintln!("instructions: {instructions} counted, {exact} executed ({rounds} rounds)");
    assert!(
        rounds > 0 && instructions.abs_diff(exact) <= 24,
        "{instructions} instructions counted, {exact} executed ({rounds} rounds)"
    );
    // SA23-2260, "Number of Unique Instructions": busy samples over the sum of U estimate
    // the CPI over the same stretch: its cycles over the instructions the guest executed.
    // Less the cycles of the intervals the host held the CPU's thread without it executing
    // (`hcpumf status`, tests/common/stored.rs): a real CPU's samples there would have had
    // U = 0, and they are missed, not stored, so the samples speak for the cycles in which
    // the CPU ran (a fresh Debian 12 chroot on Hyperion under load: 7,142 entries for 8,025
    // intervals, and a sample CPI of 29.4 against 32.7 with every cycle, 10% off, as much
    // as the intervals missing). Intervals the sampler was late for leave the estimate
    // right: the sample after them has U for the whole stretch.
    let held = stored::held_by_host(&out.log).get(&0).copied().unwrap_or(0);
    let sample_cpi = samples as f64 / sum_u.max(1) as f64;
    let cpi = cycles.saturating_sub(held * interval) as f64 / exact as f64;
    eprintln!(
        "CPI: samples {sample_cpi:.3}, cycles / executed instructions {cpi:.3} ({held} \
         intervals held by the host left out)"
    );
    assert!(
        (sample_cpi - cpi).abs() / cpi < 0.10,
        "sample CPI {sample_cpi:.3} (sum of U {sum_u}) vs {cpi:.3} ({cycles} cycles, \
         {exact} instructions)"
    );
    // The sampler's cost as status reports it: the kernel's accounting of its thread over
    // the samples all CPUs stored, which HHCMF021I counts CPU by CPU (no HIS run here, so
    // all of them are the guest's).
    let (cpu_ms, per_sample_of) = out
        .sampler_cost()
        .expect("HHCMF022I with the sampler's cost");
    assert_eq!(per_sample_of, out.samples_stored(), "{}", out.log);
    if remote {
        assert!(cpu_ms > 0, "the sampler took samples but used no CPU time");
    }
    out.samples_taken_outside()
}

/// SA23-2260, "Number of Unique Instructions": busy samples divided by the sum of U estimates
/// the CPI of a measurement. A region of costly instructions (256-byte MVCs) shows a clearly
/// higher sample CPI than one of cheap ones (AHI/BRCTG), each within 10% of the CPI the basic
/// counter set measured over it, and the whole run's sample CPI agrees with the .CNT's.
#[test]
fn sample_cpi_follows_the_counters_cpi_per_region() {
    use hcpumf_formats::{cnt, smp};
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = scratch("cpi-regions");
    let cfg = Config {
        before: vec![format!(
            "hcpumf his begin ctrset=b sampfreq=800000 path={}",
            out_dir.display()
        )],
        after: vec!["hcpumf his end".into()],
        timeout: 120,
        ..Config::default()
    };
    let out = run("cpi_regions", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let counter_cpi = |at: u64| out.u64(at) as f64 / out.u64(at + 8).max(1) as f64;
    let (costly, cheap) = (counter_cpi(0x3000), counter_cpi(0x3010));
    // (busy samples, sum of U) per region and in all.
    let mut r = [(0u64, 0u64); 3];
    for f in files(&out_dir, ".SMP.") {
        let bytes = std::fs::read(&f).expect("smp");
        smp::scan(&bytes[..], &mut |s| {
            let k = match s.ia {
                0x10000..=0x100FF => 0,
                0x20000..=0x200FF => 1,
                _ => 2,
            };
            let regions: &[usize] = if k == 2 { &[2] } else { &[k, 2] };
            for &i in regions {
                r[i].0 += u64::from(!s.wait);
                r[i].1 += u64::from(s.unique);
            }
        })
        .expect("scan");
    }
    let sample_cpi = |(busy, u): (u64, u64)| busy as f64 / u.max(1) as f64;
    let near = |a: f64, b: f64| (a - b).abs() / b < 0.10;
    eprintln!(
        "costly: counters {costly:.2} samples {:.2} ({} samples); cheap: counters {cheap:.2} \
         samples {:.2} ({} samples)",
        sample_cpi(r[0]),
        r[0].0,
        sample_cpi(r[1]),
        r[1].0
    );
    // Enough samples for a CPI within 10% (the costly region runs ~0.3 s of CPU time on the
    // development VM, ~3,900 samples, the cheap one ~0.55 s; samples the host could not take
    // are lost, not stored: with 10,000,000 MVCs the costly region once kept 1,816 of ~2,600
    // on Hyperion, its sampler starved below another run's real-time CPU thread).
    assert!(r[0].0 > 2_000 && r[1].0 > 2_000, "{r:?}");
    assert!(
        near(sample_cpi(r[0]), costly),
        "COSTLY {:?} vs {costly}",
        r[0]
    );
    assert!(near(sample_cpi(r[1]), cheap), "CHEAP {:?} vs {cheap}", r[1]);
    assert!(
        sample_cpi(r[0]) > 1.5 * sample_cpi(r[1]),
        "the costly region's CPI is clearly higher: {r:?}"
    );
    let c = cnt::parse(&std::fs::read_to_string(&files(&out_dir, ".CNT")[0]).expect("cnt"));
    let (_, v) = &c.cpus[&0];
    let run_cpi = v[&0] as f64 / v[&1] as f64;
    assert!(
        near(sample_cpi(r[2]), run_cpi),
        "whole run: samples {:?} vs counters {run_cpi:.2}",
        r[2]
    );
}

/// SA23-2260, "Basic-Sampling Data Entry": the P bit is the PSW's problem-state bit while the
/// instruction at the entry's address was executing. `samp_states` switches between a
/// problem-state page and a supervisor-state page about a million times a second (SVC 0 one
/// way, LPSWE the other): no entry may carry one page's address with the other's state. Most
/// entries are taken from outside the running CPU, reading its PSW while it changes
/// (`host::remote`, the glue's peek), which must never pair the bits of one PSW with the
/// address of another.
#[test]
fn each_sample_carries_the_state_its_instruction_ran_in() {
    use hcpumf_formats::smp;
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out_dir = scratch("states");
    let cfg = Config {
        before: vec![format!(
            "hcpumf his begin ctrset=b sampfreq=800000 path={}",
            out_dir.display()
        )],
        after: vec!["hcpumf status".into(), "hcpumf his end".into()],
        timeout: 120,
        ..Config::default()
    };
    let out = run("samp_states", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let (mut problem, mut supervisor, mut wrong) = (0u64, 0u64, Vec::new());
    for f in files(&out_dir, ".SMP.") {
        let bytes = std::fs::read(&f).expect("smp");
        smp::scan(&bytes[..], &mut |s| {
            let expect = match s.ia {
                0x10000..=0x10FFF => true,
                0x20000..=0x20FFF => false,
                _ => return,
            };
            if expect {
                problem += 1;
            } else {
                supervisor += 1;
            }
            if s.problem_state != expect {
                wrong.push((s.ia, s.problem_state));
            }
        })
        .expect("scan");
    }
    eprintln!(
        "{problem} entries in the problem-state page, {supervisor} in the supervisor-state \
         page, {} taken from outside the CPU; {} with the other page's state",
        out.samples_taken_outside(),
        wrong.len()
    );
    assert!(
        problem > 1000 && supervisor > 1000,
        "{problem} {supervisor}"
    );
    assert!(
        out.samples_taken_outside() > 1000,
        "the peek is what this checks"
    );
    assert!(
        wrong.is_empty(),
        "{} entries (address, P) with the other page's state, first {:x?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
}

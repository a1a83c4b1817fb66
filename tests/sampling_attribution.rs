//! Instruction-address attribution (SA23-2260, Basic-Sampling Data Entry, Instruction
//! Address): a guest spends a measured share of its CPU cycles in one loop and the rest in
//! another; the share of basic entries whose instruction address falls in each loop matches.
mod common;
use common::*;

#[test]
fn samples_fall_in_each_loop_in_proportion_to_its_cycles() {
    let cfg = Config {
        show: vec![(0x3000, 0x40), (0x37f0, 0x10)],
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
    let expected = cycles as f64 / interval as f64;
    assert!(
        ((samples + overflow) as f64 - expected).abs() / expected < 0.05,
        "{samples} stored + {overflow} counted vs {expected:.0} intervals"
    );
}

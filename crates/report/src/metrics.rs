//! The counter metrics of IBM's "CPU MF Formulas" an emulator's counters support, per CPU
//! from a .CNT and per interval from a .INT: CPI, PRBSTATE, problem-state CPI, LPARCPU,
//! effective GHz and the crypto functions.

use hcpumf_formats::{cnt::CntFile, int::IntFile};

/// Crypto-activity function counters (counter numbers) and their names.
pub const CRYPTO: [(u16, &str); 4] = [(64, "PRNG"), (68, "SHA"), (72, "DEA"), (76, "AES")];

/// TOD clock units per microsecond.
const TOD_US: f64 = 4096.0;

/// One CPU's (or one interval's) counter metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    pub cpu: u16,
    /// Cycles per microsecond.
    pub speed: u32,
    pub cycles: u64,
    pub instructions: u64,
    pub problem_cycles: u64,
    pub problem_instructions: u64,
    /// Function counts of [`CRYPTO`], in order (None: the crypto set was not collected).
    pub crypto: Option<[u64; 4]>,
    /// Microseconds the values cover (None: unknown).
    pub micros: Option<f64>,
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

impl Metrics {
    /// Cycles per instruction.
    pub fn cpi(&self) -> Option<f64> {
        ratio(self.cycles, self.instructions)
    }
    /// PRBSTATE: the share of instructions in the problem state, percent.
    pub fn prbstate(&self) -> Option<f64> {
        ratio(self.problem_instructions, self.instructions).map(|r| r * 100.0)
    }
    /// Cycles per problem-state instruction.
    pub fn problem_cpi(&self) -> Option<f64> {
        ratio(self.problem_cycles, self.problem_instructions)
    }
    /// LPARCPU: the CPU's busy share of the time, percent (cycles over the cycles the
    /// elapsed time has at the CPU's speed).
    pub fn lparcpu(&self) -> Option<f64> {
        let us = self.micros?;
        (us > 0.0 && self.speed > 0)
            .then(|| self.cycles as f64 * 100.0 / (us * f64::from(self.speed)))
    }
    /// Effective GHz: cycles per busy second, which for counters derived from the CPU's
    /// speed is that speed.
    pub fn eff_ghz(&self) -> f64 {
        f64::from(self.speed) / 1000.0
    }
}

/// Every CPU of a .CNT, in CPU order.
pub fn of_cnt(f: &CntFile) -> Vec<Metrics> {
    let micros = match (f.start_tod, f.end_tod) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / TOD_US),
        _ => None,
    };
    f.cpus
        .iter()
        .map(|(cpu, (speed, v))| {
            let g = |n: u16| v.get(&n).copied().unwrap_or(0);
            let has_crypto = CRYPTO.iter().any(|(n, _)| v.contains_key(n));
            Metrics {
                cpu: *cpu,
                speed: *speed,
                cycles: g(0),
                instructions: g(1),
                problem_cycles: g(32),
                problem_instructions: g(33),
                crypto: has_crypto.then(|| CRYPTO.map(|(n, _)| g(n))),
                micros,
            }
        })
        .collect()
}

/// One interval of one CPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point {
    /// Seconds from the run's start to the interval's end.
    pub seconds: f64,
    pub end_tod: u64,
    pub m: Metrics,
}

/// Every interval of a .INT, in file order; each interval's length is the time since the
/// same CPU's previous interval (the run's start for the first).
pub fn of_int(f: &IntFile) -> Vec<Point> {
    let speed = f.cpu_speed.unwrap_or(0);
    let has_crypto = CRYPTO.iter().any(|(n, _)| f.counters.contains(n));
    let mut prev: Vec<(u16, f64)> = Vec::new();
    f.rows
        .iter()
        .map(|r| {
            let g = |n: u16| f.value(r, n).unwrap_or(0);
            let before = match prev.iter_mut().find(|(c, _)| *c == r.cpu) {
                Some(p) => std::mem::replace(&mut p.1, r.seconds),
                None => {
                    prev.push((r.cpu, r.seconds));
                    0.0
                }
            };
            let len = r.seconds - before;
            Point {
                seconds: r.seconds,
                end_tod: r.end_tod,
                m: Metrics {
                    cpu: r.cpu,
                    speed,
                    cycles: g(0),
                    instructions: g(1),
                    problem_cycles: g(32),
                    problem_instructions: g(33),
                    crypto: has_crypto.then(|| CRYPTO.map(|(n, _)| g(n))),
                    micros: (len > 0.0).then_some(len * 1e6),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcpumf_formats::int::{IntFile, IntRow};

    #[test]
    fn interval_metrics() {
        let f = IntFile {
            cpu_speed: Some(1000),
            counters: vec![0, 1, 32, 33, 64, 68, 72, 76],
            rows: vec![
                IntRow {
                    seconds: 2.0,
                    cpu: 0,
                    values: vec![1_000_000_000, 250_000_000, 0, 50_000_000, 1, 2, 3, 4],
                    ..Default::default()
                },
                IntRow {
                    seconds: 2.0,
                    cpu: 1,
                    values: vec![2_000_000_000, 500_000_000, 0, 0, 0, 0, 0, 0],
                    ..Default::default()
                },
                IntRow {
                    seconds: 3.0,
                    cpu: 0,
                    values: vec![500_000_000, 100_000_000, 0, 100_000_000, 0, 0, 0, 0],
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let p = of_int(&f);
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].m.cpi(), Some(4.0));
        assert_eq!(p[0].m.prbstate(), Some(20.0));
        // 1e9 cycles in 2 s at 1000 cycles/us: 50% busy.
        assert_eq!(p[0].m.lparcpu(), Some(50.0));
        assert_eq!(p[0].m.crypto, Some([1, 2, 3, 4]));
        assert_eq!(p[1].m.lparcpu(), Some(100.0));
        // The third is CPU 0's second: 1 s long.
        assert_eq!(p[2].m.lparcpu(), Some(50.0));
        assert_eq!(p[2].m.prbstate(), Some(100.0));
    }
}

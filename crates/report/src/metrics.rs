//! The counter metrics per CPU and for the LPAR (all CPUs) from a .CNT, and per interval
//! from a .INT: CPI, PRBSTATE, problem-state CPI, LPARCPU, effective GHz and the crypto
//! functions, and every metric of IBM's "CPU MF Formulas" for the file's machine generation
//! ([`super::formulas`]).

use super::formulas::{compute, Counters, Formulas, Generation};
use hcpumf_formats::{cnt::CntFile, int::IntFile};

/// Crypto-activity function counters (counter numbers) and their names.
pub const CRYPTO: [(u16, &str); 4] = [(64, "PRNG"), (68, "SHA"), (72, "DEA"), (76, "AES")];

/// TOD clock units per microsecond.
const TOD_US: f64 = 4096.0;

/// One CPU's (or one interval's) counter metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// The CPU; [`LPAR`] for the sum of all CPUs.
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
    /// Every counter's value (the formulas take theirs from here).
    pub counters: Counters,
    /// The machine generation whose formulas apply.
    pub generation: Option<Generation>,
}

/// The `cpu` of the metrics of all CPUs together.
pub const LPAR: u16 = u16::MAX;

/// The metrics of all CPUs together (IBM's formulas take "the counters for all logical CPUs
/// in the LPAR", Redbook SG24-7857 3.3.1; LPARCPU is then a percentage of one CP): the
/// counters added, the first CPU's speed and time. None without CPUs.
pub fn lpar(cpus: &[Metrics]) -> Option<Metrics> {
    let first = cpus.first()?;
    let mut all = Metrics {
        cpu: LPAR,
        speed: first.speed,
        micros: first.micros,
        generation: first.generation,
        crypto: first.crypto.map(|_| [0; 4]),
        ..Metrics::default()
    };
    for m in cpus {
        all.cycles += m.cycles;
        all.instructions += m.instructions;
        all.problem_cycles += m.problem_cycles;
        all.problem_instructions += m.problem_instructions;
        if let (Some(a), Some(c)) = (all.crypto.as_mut(), m.crypto) {
            for (x, y) in a.iter_mut().zip(c) {
                *x += y;
            }
        }
        for (n, v) in &m.counters {
            *all.counters.entry(*n).or_insert(0) += v;
        }
    }
    Some(all)
}

/// The generation of a .CNT: its machine type where hcpumf's earlier files name it (their
/// CSVNs were not IBM's), else its counter second version number.
pub fn generation_of(f: &CntFile) -> Option<Generation> {
    f.machine_type
        .map(Generation::of_machine_type)
        .unwrap_or_else(|| Generation::of_csvn(f.csvn))
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
    /// IBM's formulas for the generation.
    pub fn formulas(&self) -> Formulas {
        compute(
            self.generation,
            &self.counters,
            self.speed,
            self.micros.map(|u| u / 1e6),
        )
    }
}

/// Every CPU of a .CNT, in CPU order.
pub fn of_cnt(f: &CntFile) -> Vec<Metrics> {
    let micros = match (f.start_tod, f.end_tod) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / TOD_US),
        _ => None,
    };
    let generation = generation_of(f);
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
                counters: v.clone(),
                generation,
            }
        })
        .collect()
}

/// The generation whose formulas a .INT's intervals take: its own counter version, else the
/// run's .CNT's.
pub fn int_generation(f: &IntFile, c: &super::collect::Collected) -> Option<Generation> {
    match f.csvn {
        Some(csvn) => Generation::of_csvn(csvn),
        None => c.counters.first().and_then(|(_, f)| generation_of(f)),
    }
}

/// The LPAR's intervals: per interval end, the CPUs' counters added ([`lpar`]).
pub fn lpar_points(points: &[Point]) -> Vec<Point> {
    let mut ends: Vec<u64> = points.iter().map(|p| p.end_tod).collect();
    ends.sort_unstable();
    ends.dedup();
    ends.iter()
        .filter_map(|&e| {
            let cpus: Vec<Metrics> = points
                .iter()
                .filter(|p| p.end_tod == e)
                .map(|p| p.m.clone())
                .collect();
            let first = points.iter().find(|p| p.end_tod == e)?;
            Some(Point {
                seconds: first.seconds,
                end_tod: e,
                m: lpar(&cpus)?,
            })
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
/// same CPU's previous interval (the run's start for the first). `generation`: the
/// formulas' (the .INT's own counter versions, else the run's .CNT's).
pub fn of_int(f: &IntFile, generation: Option<Generation>) -> Vec<Point> {
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
                    counters: f
                        .counters
                        .iter()
                        .zip(&r.values)
                        .map(|(n, v)| (*n, *v))
                        .collect(),
                    generation,
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
        let p = of_int(&f, None);
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

    /// The LPAR's metrics: the CPUs' counters added; LPARCPU of all CPUs (200% for two
    /// busy CPs).
    #[test]
    fn lpar_adds_the_cpus() {
        let cpu = |n: u16, cycles: u64| Metrics {
            cpu: n,
            speed: 1000,
            cycles,
            instructions: cycles / 4,
            micros: Some(1e6),
            counters: [(0, cycles), (1, cycles / 4)].into(),
            ..Default::default()
        };
        let all = lpar(&[cpu(0, 1_000_000_000), cpu(1, 1_000_000_000)]).unwrap();
        assert_eq!(
            (all.cpu, all.cycles, all.instructions),
            (LPAR, 2_000_000_000, 500_000_000)
        );
        assert_eq!(all.lparcpu(), Some(200.0));
        assert_eq!(all.formulas().lparcpu, Some(200.0));
        assert_eq!(all.formulas().cpi, Some(4.0));
        assert_eq!(lpar(&[]), None);
    }
}

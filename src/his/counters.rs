//! The counters of a run: per-CPU snapshots of what the counter sets would show, taken from
//! the plugin's meters at BEGIN, at each SMFINTVAL interval and at END (the guest's LCCTL,
//! SCCTR and resets do not change them), the `.CNT` text of their deltas and the `.INT` lines
//! of an interval's.

use crate::his::localtime::local;
use crate::host::model;
use crate::host::services::cpu_online;
use crate::host::state::{rt, CpuState};
use hcpumf_arch::model::{CounterSet, CounterSets, MachineModel};
use hcpumf_formats::cnt::{render, CntRun};
use hcpumf_formats::int::IntRow;
use hcpumf_formats::time::Civil;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

/// The CPU counter sets a .CNT can hold, in counter-number order.
const SETS: [CounterSet; 4] = [
    CounterSet::Basic,
    CounterSet::ProblemState,
    CounterSet::CryptoActivity,
    CounterSet::Extended,
];

/// What one CPU's counter sets would show, from the meters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snap {
    instructions: u64,
    cpu_ns: u64,
    problem_instructions: u64,
    problem_ns: u64,
    crypto: [u64; 20],
}

impl Snap {
    /// The CPU's meters now.
    pub fn of(st: &CpuState) -> Snap {
        let r = st.meter.reading();
        let mut s = Snap {
            instructions: r.instructions,
            cpu_ns: r.cpu_ns,
            problem_instructions: r.problem_instructions,
            problem_ns: r.problem_cpu_ns,
            crypto: [0; 20],
        };
        for (i, c) in st.crypto_totals.iter().enumerate() {
            s.crypto[i] = c.load(Ordering::Relaxed);
        }
        s
    }

    /// The values of `set` counted from `begin` to `self`.
    fn delta(&self, begin: &Snap, set: CounterSet, m: &MachineModel) -> Vec<u64> {
        let cyc = |ns: u64| -> u64 {
            ((u128::from(ns) * u128::from(m.cpu_speed)) / 1000).min(u128::from(u64::MAX)) as u64
        };
        let mut v = vec![0u64; usize::from(m.set_size(set))];
        match set {
            CounterSet::Basic => {
                v[0] = cyc(self.cpu_ns.wrapping_sub(begin.cpu_ns));
                v[1] = self.instructions.wrapping_sub(begin.instructions);
            }
            CounterSet::ProblemState => {
                v[0] = cyc(self.problem_ns.wrapping_sub(begin.problem_ns));
                v[1] = self
                    .problem_instructions
                    .wrapping_sub(begin.problem_instructions);
            }
            CounterSet::CryptoActivity => {
                for (k, x) in v.iter_mut().enumerate().take(20) {
                    *x = self.crypto[k].wrapping_sub(begin.crypto[k]);
                }
            }
            _ => {}
        }
        v
    }
}

/// A run's counters: the snapshots at BEGIN of the CPUs online then.
pub struct RunCounters {
    pub sets: CounterSets,
    /// By CPU address; None: the CPU was not online at BEGIN.
    pub begin: Vec<Option<Snap>>,
    pub start_time: SystemTime,
    pub start_tod: u64,
}

impl RunCounters {
    /// Snapshots of every online CPU now.
    pub fn begin(sets: CounterSets, start_time: SystemTime, start_tod: u64) -> RunCounters {
        let begin = rt()
            .cpus
            .iter()
            .enumerate()
            .map(|(i, st)| cpu_online(i as u16).then(|| Snap::of(st)))
            .collect();
        RunCounters {
            sets,
            begin,
            start_time,
            start_tod,
        }
    }

    /// The CPUs the run covers.
    pub fn online(&self) -> usize {
        self.begin.iter().filter(|b| b.is_some()).count()
    }

    /// Snapshots now of the CPUs the run covers (by CPU address, as `begin`).
    pub fn snaps_now(&self) -> Vec<Option<Snap>> {
        rt().cpus
            .iter()
            .enumerate()
            .map(|(i, st)| self.begin.get(i).copied().flatten().map(|_| Snap::of(st)))
            .collect()
    }

    /// The counter numbers of a .INT line's values: every counter of the run's sets, as the
    /// .CNT has them (so that IBM's formulas, which need the L1 and extended counters, can be
    /// taken per interval too).
    pub fn interval_counters(&self) -> Vec<u16> {
        let m = model::current();
        SETS.iter()
            .filter(|s| self.sets.contains(s.bit()))
            .flat_map(|&s| (0..m.set_size(s)).map(move |k| s.first_counter() + k))
            .collect()
    }

    /// The .INT rows of one interval, from the snapshots `from` to `to` taken at TOD `tod`.
    pub fn interval_rows(
        &self,
        from: &[Option<Snap>],
        to: &[Option<Snap>],
        tod: u64,
    ) -> Vec<IntRow> {
        let m = model::current();
        let seconds = tod.saturating_sub(self.start_tod) as f64 / 4096e6;
        let mut rows = Vec::new();
        for (i, (a, b)) in from.iter().zip(to).enumerate() {
            let (Some(a), Some(b)) = (a, b) else { continue };
            let values = SETS
                .iter()
                .filter(|s| self.sets.contains(s.bit()))
                .flat_map(|&s| b.delta(a, s, m))
                .collect();
            rows.push(IntRow {
                end_tod: tod,
                seconds,
                cpu: i as u16,
                values,
            });
        }
        rows
    }

    /// The `.CNT` text at the end of the run, from the snapshots `ends` (by CPU address);
    /// its times are local, as z/OS writes them.
    pub fn cnt_text(
        &self,
        file_name: &str,
        command: &str,
        end: (SystemTime, u64),
        lost_samples: u64,
        ends: &[Option<Snap>],
    ) -> String {
        let m = model::current();
        let mut cpus = Vec::new();
        for (i, e) in ends.iter().enumerate() {
            let Some(b) = self.begin.get(i).copied().flatten() else {
                continue;
            };
            let Some(e) = *e else { continue };
            let values = SETS
                .iter()
                .filter(|s| self.sets.contains(s.bit()))
                .map(|&s| (s, e.delta(&b, s, m)))
                .collect();
            cpus.push((i as u16, values));
        }
        render(&CntRun {
            file_name: file_name.to_string(),
            command: command.to_string(),
            cfvn: m.cfvn,
            csvn: m.csvn,
            cpu_speed: m.cpu_speed,
            start: local(self.start_time),
            end: local(end.0),
            start_tod: self.start_tod,
            end_tod: end.1,
            lost_samples,
            cpus,
        })
    }
}

/// Space to reserve for the .CNT of `cpus` CPUs: the text with zero counters is as long as
/// the real one (fixed-width values), plus room for the title and command.
pub fn cnt_reservation(sets: CounterSets, cpus: u64, command: &str) -> u64 {
    reservation(model::current(), sets, cpus, command)
}

/// `cnt_reservation` for the model `m`. Every set has its own section with the run's times,
/// so the text grows with the sets.
fn reservation(m: &MachineModel, sets: CounterSets, cpus: u64, command: &str) -> u64 {
    let values: Vec<(CounterSet, Vec<u64>)> = SETS
        .iter()
        .filter(|s| sets.contains(s.bit()))
        .map(|&s| (s, vec![0u64; usize::from(m.set_size(s))]))
        .collect();
    let text = render(&CntRun {
        file_name: "SYSHISyyyymmdd.hhmmss.xxx.CNT".into(),
        command: command.to_string(),
        cfvn: m.cfvn,
        csvn: m.csvn,
        cpu_speed: m.cpu_speed,
        start: Civil::default(),
        end: Civil::default(),
        start_tod: 0,
        end_tod: 0,
        // The longest LOST SAMPLES line.
        lost_samples: u64::MAX,
        cpus: (0..cpus.max(1) as u16)
            .map(|c| (c, values.clone()))
            .collect(),
    });
    text.len() as u64 + 4096
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The reservation holds the final text of a run with every set, 8 CPUs and a long
    /// title, on the smallest and the largest models (z16: 160 extended counters).
    #[test]
    fn reservation_holds_the_final_text() {
        let title = "T".repeat(200);
        let command = format!("hcpumf his begin ctr=all title='{title}' path=/tmp");
        let all = CounterSets::BASIC
            | CounterSets::PROBLEM_STATE
            | CounterSets::CRYPTO
            | CounterSets::EXTENDED;
        for machine_type in [0x2097, 0x3931] {
            let m = MachineModel::for_machine_type(machine_type);
            let reserved = reservation(&m, all, 8, &command);
            let values: Vec<(CounterSet, Vec<u64>)> = SETS
                .iter()
                .map(|&s| (s, vec![u64::MAX; usize::from(m.set_size(s))]))
                .collect();
            let text = render(&CntRun {
                file_name: "SYSHIS20261231.235959.999.CNT".into(),
                command: command.clone(),
                cfvn: m.cfvn,
                csvn: m.csvn,
                cpu_speed: m.cpu_speed,
                start: Civil::utc(std::time::UNIX_EPOCH + Duration::from_secs(1_798_761_599)),
                end: Civil::utc(std::time::UNIX_EPOCH + Duration::from_secs(1_798_761_599)),
                start_tod: u64::MAX,
                end_tod: u64::MAX,
                lost_samples: 12_345_678_901,
                cpus: (0..8).map(|c| (c, values.clone())).collect(),
            });
            assert_eq!(text.matches("COUNTER SET= ").count(), 4);
            assert_eq!(text.matches("FOR CPU 07").count(), 4);
            assert!(
                reserved >= text.len() as u64,
                "{machine_type:04X}: reserved {reserved} < {}",
                text.len()
            );
            // The slack is for the CPU numbers and the like, not most of the text.
            assert!(reserved - (text.len() as u64) < 8192, "{reserved}");
        }
    }
}

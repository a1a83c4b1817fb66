//! The metrics of IBM's "CPU MF Formulas and Updates" (John Burg, September 2019; the seed
//! 003 of this project) for each machine generation it covers (z10, z196/z114, zEC12/zBC12,
//! z13/z13s, z14, z15): L1MP, the sourcing percentages, Rel Nest Intensity, Est Finite CPI,
//! Est Instr Cmplx CPI, Est SCPL1M, the TLB metrics where defined, Eff GHz, LPARCPU and the
//! RNI-based LSPR workload decision table, from the counters' deltas (Bn basic, Pn
//! problem-state, En extended counter n). The generation comes from the counter second
//! version number (SMF113_2_CTRVN2: 1 z10, 2 z196/z114, 3 zEC12/zBC12, 4 z13/z13s, 5 z14,
//! 6 z15); later machines (CSVN 7, 8) have no formulas there, and get CPI, PRBSTATE, L1MP,
//! LPARCPU and Eff GHz only.

use std::collections::BTreeMap;

/// The machine generations of the formulas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    Z10,
    Z196,
    ZEc12,
    Z13,
    Z14,
    Z15,
}

impl Generation {
    /// The generation of a counter second version number (SMF113_2_CTRVN2).
    pub fn of_csvn(csvn: u16) -> Option<Generation> {
        Some(match csvn {
            1 => Generation::Z10,
            2 => Generation::Z196,
            3 => Generation::ZEc12,
            4 => Generation::Z13,
            5 => Generation::Z14,
            6 => Generation::Z15,
            _ => return None,
        })
    }

    /// The generation of a CPU-ID machine type (hcpumf's earlier .CNT files name the type
    /// and carried CSVNs of their own).
    pub fn of_machine_type(t: u16) -> Option<Generation> {
        Some(match t {
            0x2097 | 0x2098 => Generation::Z10,
            0x2817 | 0x2818 => Generation::Z196,
            0x2827 | 0x2828 => Generation::ZEc12,
            0x2964 | 0x2965 => Generation::Z13,
            0x3906 | 0x3907 => Generation::Z14,
            0x8561 | 0x8562 => Generation::Z15,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Generation::Z10 => "z10",
            Generation::Z196 => "z196/z114",
            Generation::ZEc12 => "zEC12/zBC12",
            Generation::Z13 => "z13/z13s",
            Generation::Z14 => "z14",
            Generation::Z15 => "z15",
        }
    }

    /// The names of the sourcing percentages, in the formulas' order.
    pub fn sourcing_names(self) -> &'static [&'static str] {
        match self {
            Generation::Z10 => &["L15P", "L2LP", "L2RP", "MEMP"],
            _ => &["L2P", "L3P", "L4LP", "L4RP", "MEMP"],
        }
    }
}

/// The metrics of one CPU, of the LPAR or of one interval; None where a counter they need
/// is missing (its set not collected) or a denominator is zero.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Formulas {
    pub generation: Option<Generation>,
    /// B0 / B1.
    pub cpi: Option<f64>,
    /// (P33 / B1) * 100.
    pub prbstate: Option<f64>,
    /// Level-1 misses per 100 instructions: ((B2 + B4) / B1) * 100.
    pub l1mp: Option<f64>,
    /// The sourcing percentages of [`Generation::sourcing_names`], in that order.
    pub sourcing: Vec<Option<f64>>,
    /// Rel Nest Intensity.
    pub rni: Option<f64>,
    pub est_finite_cpi: Option<f64>,
    /// CPI - Est Finite CPI.
    pub est_instr_cmplx_cpi: Option<f64>,
    pub est_scpl1m: Option<f64>,
    /// Est. TLB1 CPU Miss % of Total CPU.
    pub tlb_cpu_pct: Option<f64>,
    /// Estimated TLB1 Cycles per TLB Miss.
    pub tlb_cycles_per_miss: Option<f64>,
    /// PTE % of all TLB1 Misses (z10, z196, zEC12, z13; "N/A with processor design change"
    /// from z14 on).
    pub pte_pct: Option<f64>,
    /// TLB Miss Rate: (E129 + E134) per second of the interval (z13 and later).
    pub tlb_miss_rate: Option<f64>,
    /// CPSP / 1000.
    pub eff_ghz: Option<f64>,
    /// (((1 / CPSP / 1,000,000) * B0) / seconds) * 100: of all CPUs given, so for the LPAR
    /// a percentage of one CP (Redbook SG24-7857 3.3.1: five busy CPs are 500).
    pub lparcpu: Option<f64>,
    /// The LSPR workload the L1MP and RNI match: LOW, AVERAGE or HIGH.
    pub lspr: Option<&'static str>,
}

/// One metric of [`Formulas::columns`]: its heading in the text and the page, its JSON key,
/// its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    pub head: &'static str,
    pub key: &'static str,
    pub value: Option<f64>,
}

impl Formulas {
    /// The cache and TLB metrics in the formulas' order (CPI, PRBSTATE, LPARCPU and Eff GHz
    /// are the counter table's own columns): L1MP, the generation's sourcing percentages,
    /// RNI, Est Finite CPI, Est Instr Cmplx CPI, Est SCPL1M, and the TLB metrics it defines.
    pub fn columns(&self) -> Vec<Column> {
        let col = |head, key, value| Column { head, key, value };
        let mut v = vec![col("L1MP", "l1mp", self.l1mp)];
        if let Some(g) = self.generation {
            for (name, value) in g.sourcing_names().iter().zip(&self.sourcing) {
                let key = match *name {
                    "L15P" => "l15p",
                    "L2LP" => "l2lp",
                    "L2RP" => "l2rp",
                    "L2P" => "l2p",
                    "L3P" => "l3p",
                    "L4LP" => "l4lp",
                    "L4RP" => "l4rp",
                    _ => "memp",
                };
                v.push(col(name, key, *value));
            }
            v.extend([
                col("RNI", "rni", self.rni),
                col("FIN CPI", "est_finite_cpi", self.est_finite_cpi),
                col("CMPLX CPI", "est_instr_cmplx_cpi", self.est_instr_cmplx_cpi),
                col("SCPL1M", "est_scpl1m", self.est_scpl1m),
                col("TLB1 CPU%", "tlb1_cpu_miss_pct", self.tlb_cpu_pct),
                col("TLB1 CYC", "tlb1_cycles_per_miss", self.tlb_cycles_per_miss),
            ]);
            if matches!(
                g,
                Generation::Z10 | Generation::Z196 | Generation::ZEc12 | Generation::Z13
            ) {
                v.push(col("PTE%", "pte_pct", self.pte_pct));
            }
            if matches!(g, Generation::Z13 | Generation::Z14 | Generation::Z15) {
                v.push(col("TLB MISS/S", "tlb_miss_rate", self.tlb_miss_rate));
            }
        }
        v
    }
}

/// The LSPR workload decision table ("RNI-based LSPR Workload Decision Table"; it applies
/// to z10 EC/BC, z196, z114, zEC12, zBC12, z13, z13s, z14 and z15 data).
pub fn lspr(l1mp: f64, rni: f64) -> &'static str {
    if l1mp < 3.0 {
        if rni >= 0.75 {
            "AVERAGE"
        } else {
            "LOW"
        }
    } else if l1mp <= 6.0 {
        if rni > 1.0 {
            "HIGH"
        } else if rni >= 0.6 {
            "AVERAGE"
        } else {
            "LOW"
        }
    } else if rni >= 0.75 {
        "HIGH"
    } else {
        "AVERAGE"
    }
}

/// The deltas of one CPU or more: counter number -> value.
pub type Counters = BTreeMap<u16, u64>;

/// The formulas of generation `g` (None: a machine the formulas do not cover) over the
/// counter deltas `v`, at `speed` cycles per microsecond (CPSP), over `seconds`.
pub fn compute(g: Option<Generation>, v: &Counters, speed: u32, seconds: Option<f64>) -> Formulas {
    let c = |n: u16| v.get(&n).map(|&x| x as f64);
    let sum = |ns: &[u16]| ns.iter().map(|&n| c(n)).sum::<Option<f64>>();
    let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    };
    let pct = |a: Option<f64>, b: Option<f64>| div(a, b).map(|r| r * 100.0);
    let cpsp = (speed > 0).then(|| f64::from(speed));
    let mut f = Formulas {
        generation: g,
        cpi: div(c(0), c(1)),
        prbstate: pct(c(33), c(1)),
        l1mp: pct(sum(&[2, 4]), c(1)),
        eff_ghz: cpsp.map(|s| s / 1000.0),
        lparcpu: match (cpsp, c(0), seconds) {
            (Some(s), Some(b0), Some(t)) if t > 0.0 => Some(b0 / s / 1e6 / t * 100.0),
            _ => None,
        },
        ..Formulas::default()
    };
    let Some(g) = g else { return f };
    let l1 = sum(&[2, 4]);
    let share = |ns: &[u16]| pct(sum(ns), l1);
    // MEMP where the formulas take it as what the other sources leave: (on-book memory +
    // (L1 misses - every counted source)) / L1 misses.
    let rest = |memory: &[u16], counted: &[u16]| {
        let left = l1.zip(sum(counted)).map(|(l, s)| l - s);
        pct(sum(memory).zip(left).map(|(m, r)| m + r), l1)
    };
    let b35 = sum(&[3, 5]);
    match g {
        Generation::Z10 => {
            let (l15, l2l, l2r) = (share(&[128, 129]), share(&[130, 131]), share(&[132, 133]));
            let memp = rest(&[134, 135], &[128, 129, 130, 131, 132, 133, 134, 135]);
            f.sourcing = vec![l15, l2l, l2r, memp];
            f.rni = l2l
                .zip(l2r)
                .zip(memp)
                .map(|((a, b), m)| (1.0 * a + 2.4 * b + 7.5 * m) / 100.0);
            f.est_finite_cpi = div(b35, c(1)).map(|x| x * 0.84);
            f.est_scpl1m = div(b35, l1).map(|x| x * 0.84);
            let miss = sum(&[145, 146]);
            f.tlb_cpu_pct = pct(miss, c(0)).map(|x| x * 0.31);
            f.tlb_cycles_per_miss = div(miss, sum(&[138, 139])).map(|x| x * 0.31);
            f.pte_pct = pct(c(140), sum(&[138, 139]));
        }
        Generation::Z196 => {
            let counted = [
                128, 129, 150, 153, 135, 136, 152, 155, 138, 139, 134, 143, 141, 142,
            ];
            let s = [
                share(&[128, 129]),
                share(&[150, 153]),
                share(&[135, 136, 152, 155]),
                share(&[138, 139, 134, 143]),
                rest(&[141, 142], &counted),
            ];
            f.rni = rni(&s, 1.67, [0.4, 1.0, 2.4, 7.5]);
            f.est_finite_cpi = f.rni.zip(div(b35, c(1))).map(|(r, x)| x * (0.59 + 0.1 * r));
            f.est_scpl1m = f.rni.zip(div(b35, l1)).map(|(r, x)| x * (0.59 + 0.1 * r));
            let miss = sum(&[130, 131]);
            f.tlb_cpu_pct = pct(miss, c(0)).map(|x| x * 0.61);
            f.tlb_cycles_per_miss = div(miss, sum(&[144, 145])).map(|x| x * 0.61);
            f.pte_pct = pct(c(146), sum(&[144, 145]));
            f.sourcing = s.to_vec();
        }
        Generation::ZEc12 => {
            let (l2, l3, l4l, l4r) = (
                [130, 131, 132],
                [144, 150, 153, 159],
                [147, 145, 151, 156, 154, 160],
                [148, 146, 152, 157, 155, 161],
            );
            let counted: Vec<u16> = [&l2[..], &l3, &l4l, &l4r, &[135, 137]].concat();
            let s = [
                share(&l2),
                share(&l3),
                share(&l4l),
                share(&l4r),
                rest(&[135, 137], &counted),
            ];
            f.rni = rni(&s, 2.3, [0.4, 1.2, 2.7, 8.2]);
            f.est_finite_cpi = f
                .rni
                .zip(div(b35, c(1)))
                .map(|(r, x)| x * (0.54 + 0.04 * r));
            f.est_scpl1m = f.rni.zip(div(b35, l1)).map(|(r, x)| x * (0.54 + 0.04 * r));
            let miss = sum(&[128, 129]);
            f.tlb_cpu_pct = pct(miss, c(0)).map(|x| x * 0.65);
            f.tlb_cycles_per_miss = div(miss, sum(&[133, 140])).map(|x| x * 0.65);
            f.pte_pct = pct(c(141), sum(&[133, 140]));
            f.sourcing = s.to_vec();
        }
        Generation::Z13 | Generation::Z14 | Generation::Z15 => {
            let s = if g == Generation::Z13 {
                [
                    share(&[133, 136]),
                    share(&[144, 145, 162, 163]),
                    share(&[146, 147, 148, 164, 165, 166]),
                    share(&[
                        149, 150, 151, 152, 153, 154, 155, 156, 157, 167, 168, 169, 170, 171, 172,
                        173, 174, 175,
                    ]),
                    share(&[158, 159, 160, 161, 176, 177, 178, 179]),
                ]
            } else {
                [
                    share(&[133, 136]),
                    share(&[144, 146, 162, 164]),
                    share(&[147, 149, 156, 165, 167, 174, 150, 152, 158, 168, 170]),
                    share(&[153, 155, 157, 171, 173, 175]),
                    share(&[145, 148, 151, 154, 163, 166, 169, 172]),
                ]
            };
            f.rni = match g {
                Generation::Z13 => rni(&s, 2.3, [0.4, 1.6, 3.5, 7.5]),
                Generation::Z14 => rni(&s, 2.4, [0.4, 1.5, 3.2, 7.0]),
                _ => rni(&s, 2.9, [0.45, 1.5, 3.2, 6.5]),
            };
            f.est_finite_cpi = div(c(143), c(1));
            f.est_scpl1m = div(c(143), l1);
            // The share of the L1 penalty cycles that E143 (finite-cache cycles) has.
            let scale = div(c(143), b35);
            let miss = sum(&[130, 135]);
            let misses = sum(&[129, 134]);
            f.tlb_cpu_pct = pct(miss, c(0)).zip(scale).map(|(x, k)| x * k);
            f.tlb_cycles_per_miss = div(miss, misses).zip(scale).map(|(x, k)| x * k);
            if g == Generation::Z13 {
                f.pte_pct = pct(c(137), misses);
            }
            f.tlb_miss_rate = match (misses, seconds) {
                (Some(m), Some(t)) if t > 0.0 => Some(m / t),
                _ => None,
            };
            f.sourcing = s.to_vec();
        }
    }
    f.est_instr_cmplx_cpi = f.cpi.zip(f.est_finite_cpi).map(|(a, b)| a - b);
    f.lspr = f.l1mp.zip(f.rni).map(|(l, r)| lspr(l, r));
    f
}

/// Rel Nest Intensity `k * (w0*L3P + w1*L4LP + w2*L4RP + w3*MEMP) / 100` of sourcing
/// [L2P, L3P, L4LP, L4RP, MEMP].
fn rni(s: &[Option<f64>; 5], k: f64, w: [f64; 4]) -> Option<f64> {
    let (l3, l4l, l4r, mem) = (s[1]?, s[2]?, s[3]?, s[4]?);
    Some(k * (w[0] * l3 + w[1] * l4l + w[2] * l4r + w[3] * mem) / 100.0)
}

#[cfg(test)]
#[path = "formulas_tests.rs"]
pub(crate) mod tests;

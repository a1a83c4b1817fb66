//! The formulas against the seeds: the z10 .CNT of Redbook SG24-7857 Figures 3-3 to 3-7
//! worked through seed 003's z10 formulas by hand, the LSPR table's cells, and every later
//! generation's counter groups and weights on counters whose sums are plain.

use super::*;
use hcpumf_formats::cnt;

/// Figures 3-3 to 3-7 (a z10, one CPU, all four sets), as the Redbook prints them.
pub const FIGURES_3_3_TO_3_7: &str = "\
HIS019I EVENT COUNTERS INFORMATION VERSION 1
FILE NAME: SYSHIS20100302.220948.cnt
COMMAND: MODIFY HIS,B,CTRONLY,CTR=ALL
COUNTER VERSION NUMBER 1: 1   COUNTER VERSION NUMBER 2: 1

COUNTER SET= BASIC
COUNTER IDENTIFIERS:
  0: CYCLE COUNT
  1: INSTRUCTION COUNT
  2: L1 I-CACHE DIRECTORY-WRITE COUNT
  3: L1 I-CACHE PENALTY CYCLE COUNT
  4: L1 D-CACHE DIRECTORY-WRITE COUNT
  5: L1 D-CACHE PENALTY CYCLE COUNT

START TIME: 2010/03/02 22:09:48  START TOD: C59ED19632573984
END TIME:   2010/03/02 23:10:39  END TOD:   C59EDF3076465604
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
  0-  3 000003C962FC79FE 0000009520177728 000000027C2A7719 0000006A4D55A056
  4-  7 000000018AFC0EED 00000198EEFF3D82 -----

COUNTER SET= PROBLEM-STATE
COUNTER IDENTIFIERS:
  32: PROBLEM-STATE CYCLE COUNT
  33: PROBLEM-STATE INSTRUCTION COUNT
  34: PROBLEM-STATE L1 I-CACHE DIRECTORY-WRITE COUNT
  35: PROBLEM-STATE L1 I-CACHE PENALTY CYCLE COUNT
  36: PROBLEM-STATE L1 D-CACHE DIRECTORY-WRITE COUNT
  37: PROBLEM-STATE L1 D-CACHE PENALTY CYCLE COUNT

START TIME: 2010/03/02 22:09:48  START TOD: C59ED19632573984
END TIME:   2010/03/02 23:10:39  END TOD:   C59EDF3076465604
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
  32- 35 000001B0D9031290 000000389CFBFE46 00000000654EA890 000000198598D76E
  36- 39 000000009948AB65 0000011AA8E769C6 -----

COUNTER SET= CRYPTO-ACTIVITY
COUNTER IDENTIFIERS:
 64: PRNG FUNCTION COUNT
 65: PRNG CYCLE COUNT
 66: PRNG BLOCKED FUNCTION COUNT
 67: PRNG BLOCKED CYCLE COUNT
 68: SHA FUNCTION COUNT
 69: SHA CYCLE COUNT
 70: SHA BLOCKED FUNCTION COUNT
 71: SHA BLOCKED CYCLE COUNT
 72: DEA FUNCTION COUNT
 73: DEA CYCLE COUNT
 74: DEA BLOCKED FUNCTION COUNT
 75: DEA BLOCKED CYCLE COUNT
 76: AES FUNCTION COUNT
 77: AES CYCLE COUNT
 78: AES BLOCKED FUNCTION COUNT
 79: AES BLOCKED CYCLE COUNT

START TIME: 2010/03/02 22:09:48  START TOD: C59ED19632573984
END TIME:   2010/03/02 23:10:39  END TOD:   C59EDF3076465604
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
64- 67 0000000000000000 0000000000000000 0000000000000000 0000000000000000
68- 71 0000000000000000 0000000000000000 0000000000000000 0000000000000000
72- 75 0000000000000000 0000000000000000 0000000000000000 0000000000000000
76- 79 0000000000000000 0000000000000000 0000000000000000 0000000000000000

COUNTER SET= EXTENDED
COUNTER IDENTIFIERS:
  MODEL DEPENDENT INFORMATION NOT AVAILABLE

START TIME: 2010/03/02 22:09:48  START TOD: C59ED19632573984
END TIME:   2010/03/02 23:10:39  END TOD:   C59EDF3076465604
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
128-131 000000024D1BFBE1 00000000D3A2C2E7 00000000277460D1 000000003B82DE1F
132-135 000000000000C281 0000000000675707 00000000447F60D4 0000000002A34E61
136-139 00000000063DA28E 00000000054ABD5D 000000002F82F908 0000000058F2CEF7
140-143 0000000025387E32 00000000027C5F89 0000000000000000 0000000000000000
144-147 0000000000000000 000000138906B076 000000483B87F284 0000002B2392344B
148-151 0000000000000000 0000000000000000 0000000000000000 0000000000000000
";

fn close(got: Option<f64>, want: f64, what: &str) {
    let g = got.unwrap_or_else(|| panic!("{what}: none"));
    assert!(
        (g - want).abs() <= want.abs() * 1e-9,
        "{what}: {g} != {want}"
    );
}

/// Seed 003's z10 formulas on the Redbook's z10 file, by hand. The decimal values are the
/// Redbook's own (3.2.1: B1 640,488,535,848; B2 10,673,092,377; B3 456,563,990,614;
/// B4 6,626,741,997; B5 1,756,356,361,602) and the hexadecimal ones' (B0 X'3C962FC79FE' =
/// 4,163,484,023,294; P33 X'389CFBFE46' = 243,151,928,902; E128 X'24D1BFBE1' = 9,885,776,865,
/// E129 3,550,659,303, E130 661,938,385, E131 998,432,287, E132 49,793, E133 6,772,487,
/// E134 1,149,198,548, E135 44,256,865, E138 797,112,584, E139 1,492,307,703, E140
/// 624,459,314, E145 83,835,318,390, E146 310,571,184,772). L1 misses B2 + B4 =
/// 17,299,834,374.
#[test]
fn z10_formulas_of_figures_3_3_to_3_7() {
    let f = cnt::parse(FIGURES_3_3_TO_3_7);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(Generation::of_csvn(f.csvn), Some(Generation::Z10));
    // START TOD to END TOD: X'D99B0A43D1C80' units of 1/4096 us = 3651.41988978125 s (the
    // Redbook: "3651 seconds (22:09:48 to 23:10:39)").
    let secs = (f.end_tod.unwrap() - f.start_tod.unwrap()) as f64 / 4096e6;
    assert!((secs - 3_651.419_889_781_25).abs() < 1e-9);
    let (speed, v) = &f.cpus[&0];
    let m = compute(Some(Generation::Z10), v, *speed, Some(secs));
    // CPI = 4,163,484,023,294 / 640,488,535,848.
    close(m.cpi, 6.500_481_726_470_859, "CPI");
    // PRBSTATE = 243,151,928,902 / 640,488,535,848 * 100 (the Redbook: 37.9%).
    close(m.prbstate, 37.963_509_929_193_26, "PRBSTATE");
    // L1MP = 17,299,834,374 / 640,488,535,848 * 100.
    close(m.l1mp, 2.701_037_318_504_882, "L1MP");
    // L15P = (E128 + E129) / L1 = 13,436,436,168 / 17,299,834,374; L2LP = (E130 + E131),
    // L2RP = (E132 + E133); MEMP = (E134 + E135 + (L1 - E128..E135)) / L1.
    close(m.sourcing[0], 77.655_503_454_937_29, "L15P");
    close(m.sourcing[1], 9.597_610_220_450_31, "L2LP");
    close(m.sourcing[2], 0.039_435_522_054_784_73, "L2RP");
    close(m.sourcing[3], 12.707_450_802_557_608, "MEMP");
    // RNI = (1.0 * L2LP + 2.4 * L2RP + 7.5 * MEMP) / 100.
    close(m.rni, 1.049_981_364_925_625_6, "RNI");
    // Est Finite CPI = ((B3 + B5) / B1) * .84; Est SCPL1M = ((B3 + B5) / L1) * .84.
    close(m.est_finite_cpi, 2.902_242_572_383_186, "Est Finite CPI");
    close(
        m.est_instr_cmplx_cpi,
        3.598_239_154_087_673_3,
        "Est Instr Cmplx CPI",
    );
    close(m.est_scpl1m, 107.449_184_522_547_72, "Est SCPL1M");
    // TLB: ((E145 + E146) / B0) * 100 * .31; (E145 + E146) / (E138 + E139) * .31;
    // E140 / (E138 + E139) * 100.
    close(m.tlb_cpu_pct, 2.934_640_993_198_598_4, "TLB1 CPU %");
    close(
        m.tlb_cycles_per_miss,
        53.368_666_988_168_43,
        "TLB1 cycles per miss",
    );
    close(m.pte_pct, 27.275_870_557_532_105, "PTE %");
    assert_eq!(m.tlb_miss_rate, None, "not a z10 formula");
    // Eff GHz = 4404 / 1000; LPARCPU = B0 / 4404 / 1e6 / 3651.42 s * 100 (the Redbook:
    // "roughly 945 seconds, divided by 3651 seconds": 25.8%).
    close(m.eff_ghz, 4.404, "Eff GHz");
    close(m.lparcpu, 25.890_939_820_860_904, "LPARCPU");
    // L1MP below 3% with RNI at least 0.75.
    assert_eq!(m.lspr, Some("AVERAGE"));
}

/// Every cell of the RNI-based LSPR workload decision table.
#[test]
fn lspr_decision_table() {
    for (l1mp, rni, want) in [
        (2.9, 0.75, "AVERAGE"),
        (2.9, 0.74, "LOW"),
        (3.0, 1.01, "HIGH"),
        (6.0, 1.0, "AVERAGE"),
        (4.0, 0.6, "AVERAGE"),
        (4.0, 0.59, "LOW"),
        (6.1, 0.75, "HIGH"),
        (6.1, 0.74, "AVERAGE"),
    ] {
        assert_eq!(lspr(l1mp, rni), want, "L1MP {l1mp} RNI {rni}");
    }
}

/// 1 in every counter of the listed groups, B1 1000, B2 + B4 = 100, B3 + B5 = 500: each
/// sourcing percentage is then the number of counters its formula adds.
fn ones(groups: &[&[u16]]) -> Counters {
    let mut v: Counters = [(0, 4000), (1, 1000), (2, 60), (3, 200), (4, 40), (5, 300)].into();
    for g in groups {
        for &n in *g {
            v.insert(n, 1);
        }
    }
    v
}

/// Seed 003's groups and weights for z196, zEC12, z13, z14 and z15, by hand.
#[test]
fn later_generations_group_and_weigh_their_sources() {
    // z196: L2P (E128, E129) 2, L3P (E150, E153) 2, L4LP (E135, E136, E152, E155) 4, L4RP
    // (E138, E139, E134, E143) 4, MEMP = (E141 + E142 + 100 - 14) = 88. RNI = 1.67 * (0.4*2 +
    // 1.0*4 + 2.4*4 + 7.5*88) / 100 = 11.26248; Est Finite CPI = (500/1000) * (.59 +
    // 0.1 * RNI) = 0.858124.
    let z196 = ones(&[&[
        128, 129, 150, 153, 135, 136, 152, 155, 138, 139, 134, 143, 141, 142,
    ]]);
    let m = compute(Some(Generation::Z196), &z196, 5208, None);
    let s: Vec<f64> = m.sourcing.iter().map(|x| x.unwrap()).collect();
    assert_eq!(s, [2.0, 2.0, 4.0, 4.0, 88.0]);
    close(m.rni, 11.262_48, "z196 RNI");
    close(
        m.est_finite_cpi,
        0.5 * (0.59 + 0.1 * 11.262_48),
        "z196 Est Finite CPI",
    );
    close(
        m.est_scpl1m,
        5.0 * (0.59 + 0.1 * 11.262_48),
        "z196 Est SCPL1M",
    );
    // L1MP 10 (over 6) and RNI over 0.75.
    assert_eq!(m.lspr, Some("HIGH"));
    // zEC12: L2P 3, L3P 4, L4LP 6, L4RP 6, MEMP (E135 + E137 + 100 - 21) = 81. RNI = 2.3 *
    // (0.4*4 + 1.2*6 + 2.7*6 + 8.2*81) / 100 = 15.8516; Est Finite CPI = 0.5 * (.54 + 0.04*RNI).
    let zec12 = ones(&[&[
        130, 131, 132, 144, 150, 153, 159, 147, 145, 151, 156, 154, 160, 148, 146, 152, 157, 155,
        161, 135, 137,
    ]]);
    let m = compute(Some(Generation::ZEc12), &zec12, 5504, None);
    let s: Vec<f64> = m.sourcing.iter().map(|x| x.unwrap()).collect();
    assert_eq!(s, [3.0, 4.0, 6.0, 6.0, 81.0]);
    close(m.rni, 15.851_6, "zEC12 RNI");
    close(
        m.est_finite_cpi,
        0.5 * (0.54 + 0.04 * 15.851_6),
        "zEC12 Est Finite CPI",
    );
    // z13: L2P 2, L3P 4, L4LP 6, L4RP 18, MEMP 8 (counted, not the rest). RNI = 2.3 * (0.4*4 +
    // 1.6*6 + 3.5*18 + 7.5*8) / 100 = 3.0866. With E143 1: Est Finite CPI = E143 / B1 =
    // 1/1000, Est SCPL1M = E143 / L1 = 1/100.
    let l4r13: Vec<u16> = (149..=157).chain(167..=175).collect();
    let z13 = ones(&[
        &[133, 136, 144, 145, 162, 163, 146, 147, 148, 164, 165, 166],
        &l4r13,
        &[158, 159, 160, 161, 176, 177, 178, 179],
        &[143],
    ]);
    let m = compute(Some(Generation::Z13), &z13, 5000, None);
    let s: Vec<f64> = m.sourcing.iter().map(|x| x.unwrap()).collect();
    assert_eq!(s, [2.0, 4.0, 6.0, 18.0, 8.0]);
    close(m.rni, 3.086_6, "z13 RNI");
    close(m.est_finite_cpi, 0.001, "z13 Est Finite CPI (E143 / B1)");
    close(m.est_scpl1m, 0.01, "z13 Est SCPL1M (E143 / L1)");
    // z14 and z15 share the groups: L2P 2, L3P 4, L4LP 11, L4RP 6, MEMP 8. RNI z14 = 2.4 *
    // (0.4*4 + 1.5*11 + 3.2*6 + 7.0*8) / 100 = 2.2392; z15 = 2.9 * (0.45*4 + 1.5*11 + 3.2*6 +
    // 6.5*8) / 100 = 2.5955.
    let z14 = ones(&[
        &[133, 136, 144, 146, 162, 164],
        &[147, 149, 156, 165, 167, 174, 150, 152, 158, 168, 170],
        &[
            153, 155, 157, 171, 173, 175, 145, 148, 151, 154, 163, 166, 169, 172,
        ],
    ]);
    for (g, want) in [(Generation::Z14, 2.239_2), (Generation::Z15, 2.595_5)] {
        let m = compute(Some(g), &z14, 5200, None);
        let s: Vec<f64> = m.sourcing.iter().map(|x| x.unwrap()).collect();
        assert_eq!(s, [2.0, 4.0, 11.0, 6.0, 8.0], "{g:?}");
        close(m.rni, want, "z14/z15 RNI");
    }
}

/// The TLB formulas of z196, zEC12 and z13-z15 on plain counters, by hand.
#[test]
fn tlb_formulas() {
    let base: Counters = [(0, 10_000), (1, 1000), (2, 60), (3, 300), (4, 40), (5, 300)].into();
    let with = |extra: &[(u16, u64)]| {
        let mut v = base.clone();
        v.extend(extra.iter().copied());
        v
    };
    // z196: misses in progress E130 + E131 = 200, TLB1 writes E144 + E145 = 20, PTE E146 5:
    // 200/10000 * 100 * .61 = 1.22; 200/20 * .61 = 6.1; 5/20 * 100 = 25.
    let m = compute(
        Some(Generation::Z196),
        &with(&[(130, 100), (131, 100), (144, 10), (145, 10), (146, 5)]),
        5208,
        None,
    );
    close(m.tlb_cpu_pct, 1.22, "z196 TLB1 CPU %");
    close(m.tlb_cycles_per_miss, 6.1, "z196 cycles per miss");
    close(m.pte_pct, 25.0, "z196 PTE %");
    // zEC12: E128 + E129 = 200 over B0, .65; writes E133 + E140 = 20; PTE E141 5.
    let m = compute(
        Some(Generation::ZEc12),
        &with(&[(128, 100), (129, 100), (133, 10), (140, 10), (141, 5)]),
        5504,
        None,
    );
    close(m.tlb_cpu_pct, 1.3, "zEC12 TLB1 CPU %");
    close(m.tlb_cycles_per_miss, 6.5, "zEC12 cycles per miss");
    close(m.pte_pct, 25.0, "zEC12 PTE %");
    // z13: (E130 + E135 = 200) / B0 * (E143 300 / (B3 + B5) 600) * 100 = 1.0; / (E129 + E134
    // = 20) * 0.5 = 5; PTE E137 5 / 20 = 25%; 20 misses in 10 s: 2 per second.
    let z13 = with(&[
        (130, 100),
        (135, 100),
        (143, 300),
        (129, 10),
        (134, 10),
        (137, 5),
    ]);
    let m = compute(Some(Generation::Z13), &z13, 5000, Some(10.0));
    close(m.tlb_cpu_pct, 1.0, "z13 TLB1 CPU %");
    close(m.tlb_cycles_per_miss, 5.0, "z13 cycles per miss");
    close(m.pte_pct, 25.0, "z13 PTE %");
    close(m.tlb_miss_rate, 2.0, "z13 TLB miss rate");
    // z14: the same but no PTE % ("N/A with processor design change").
    let m = compute(Some(Generation::Z14), &z13, 5208, Some(10.0));
    close(m.tlb_cpu_pct, 1.0, "z14 TLB1 CPU %");
    assert_eq!(m.pte_pct, None);
}

/// What an emulator's counters give (L1 and extended counters zero) and machines the
/// formulas do not cover.
#[test]
fn zero_cache_counters_and_later_machines() {
    let v: Counters = [
        (0, 4000),
        (1, 1000),
        (2, 0),
        (3, 0),
        (4, 0),
        (5, 0),
        (33, 250),
    ]
    .into();
    let m = compute(Some(Generation::Z14), &v, 5208, Some(1.0));
    assert_eq!(
        (m.cpi, m.prbstate, m.l1mp),
        (Some(4.0), Some(25.0), Some(0.0))
    );
    assert_eq!((m.rni, m.lspr, m.est_finite_cpi), (None, None, None));
    assert_eq!(Generation::of_csvn(7), None, "z16: no formulas in seed 003");
    let m = compute(None, &v, 5200, Some(1.0));
    assert_eq!((m.cpi, m.sourcing.len(), m.rni), (Some(4.0), 0, None));
    // LPARCPU over 1 s at 5200 cycles/us: 4000 cycles.
    close(m.lparcpu, 4000.0 / 5200.0 / 1e6 * 100.0, "LPARCPU");
}

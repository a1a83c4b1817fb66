//! The .CNT against the seed's own examples (Redbook SG24-7857 Example 2-2, 2-6, Figures
//! 3-3 to 3-7), old-layout files, and damage located by offset.

use super::*;

/// Redbook SG24-7857 Example 2-2, as printed.
const EXAMPLE_2_2: &str = "\
HIS019I EVENT COUNTERS INFORMATION VERSION 1
FILE NAME: SYSHIS20100304.223617.CNT
COMMAND: MODIFY HIS,B,CTR=ALL,ST=D,DUR=18
LOST SAMPLES: 13126090
COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1
";

/// Example 2-6, as printed: the first value of CPU 00 has 17 digits (a transcription
/// error; HIS prints 16). `EXAMPLE_2_6` is the same text with that value as 16 digits.
const EXAMPLE_2_6_PRINTED: &str = "\
HIS019I EVENT COUNTERS INFORMATION VERSION 1
FILE NAME: SYSHIS20100221.121354.CNT
COMMAND: MODIFY HIS,B,CTRONLY
COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1

COUNTER SET= BASIC
COUNTER IDENTIFIERS:
  0: CYCLE COUNT
  1: INSTRUCTION COUNT
  2: L1 I-CACHE DIRECTORY-WRITE COUNT
  3: L1 I-CACHE PENALTY CYCLE COUNT
  4: L1 D-CACHE DIRECTORY-WRITE COUNT
  5: L1 D-CACHE PENALTY CYCLE COUNT

START TIME: 2010/02/21 12:13:54  START TOD: C592FB9B1DB68F92
END TIME:   2010/02/21 12:20:49  END TOD:   C592FD26A2CA7092
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
  0-  3 000000006663C2773 000000013562F9B1 00000000020BFA21 00000000769FBCC0
  4-  7 0000000003D2CA56 000000026DA59633 -----
";

fn example_2_6() -> String {
    EXAMPLE_2_6_PRINTED.replace("000000006663C2773", "00000006663C2773")
}

/// Figures 3-3 to 3-7 (one z10 CPU, all four sets), as printed, one blank line between
/// the figures as between HIS's sections.
const FIGURES_3_3_TO_3_7: &str = "\
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

/// Figures 3-3 to 3-7 as HIS writes them: the Redbook's transcription differs from the
/// other examples, and from HIS's fixed columns, in three places, adjusted here:
/// - Figure 3-3: three spaces before COUNTER VERSION NUMBER 2 (Examples 2-2 and 2-6
///   have four);
/// - Figure 3-5: one space too many before the identifiers (`  32:`) and the row labels
///   (`  32- 35`): a 3-column number is ` 32`, as ` 64:` in Figure 3-6 and `  0-  3` in
///   Figure 3-4;
/// - Figure 3-6: the row labels lost their leading space (`64- 67`).
fn figures_3_3_to_3_7() -> String {
    let mut t = FIGURES_3_3_TO_3_7.replace(": 1   COUNTER", ": 1    COUNTER");
    for n in 32..=39 {
        t = t.replace(&format!("\n  {n}"), &format!("\n {n}"));
    }
    t = t.replace("\n  32- 35", "\n 32- 35");
    for lo in [64, 68, 72, 76] {
        t = t.replace(&format!("\n{lo}- "), &format!("\n {lo}- "));
    }
    t
}

/// A local date and time, as the run's clock gave it.
fn at(year: u32, month: u8, day: u8, hour: u8, minute: u8, second: u8) -> Civil {
    Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        centis: 0,
    }
}

/// A z10 run (CFVN 1, CSVN 1, 4404 cycles/us) with no CPUs; tests add theirs.
fn run() -> CntRun {
    CntRun {
        file_name: "SYSHIS20261122.120000.000.CNT".into(),
        command: "hcpumf his begin".into(),
        cfvn: 1,
        csvn: 1,
        cpu_speed: 4404,
        start: Civil::default(),
        end: Civil::default(),
        start_tod: 1,
        end_tod: 2,
        lost_samples: 0,
        cpus: Vec::new(),
    }
}

/// The run of Figures 3-3 to 3-7: one z10 CPU, all four sets.
fn figures_run() -> CntRun {
    let extended = vec![
        0x24D1BFBE1,
        0xD3A2C2E7,
        0x277460D1,
        0x3B82DE1F,
        0xC281,
        0x675707,
        0x447F60D4,
        0x2A34E61,
        0x63DA28E,
        0x54ABD5D,
        0x2F82F908,
        0x58F2CEF7,
        0x25387E32,
        0x27C5F89,
        0,
        0,
        0,
        0x138906B076,
        0x483B87F284,
        0x2B2392344B,
        0,
        0,
        0,
        0,
    ];
    CntRun {
        file_name: "SYSHIS20100302.220948.cnt".into(),
        command: "MODIFY HIS,B,CTRONLY,CTR=ALL".into(),
        start: at(2010, 3, 2, 22, 9, 48),
        end: at(2010, 3, 2, 23, 10, 39),
        start_tod: 0xC59E_D196_3257_3984,
        end_tod: 0xC59E_DF30_7646_5604,
        cpus: vec![(
            0,
            vec![
                (
                    CounterSet::Basic,
                    vec![
                        0x3C962FC79FE,
                        0x9520177728,
                        0x27C2A7719,
                        0x6A4D55A056,
                        0x18AFC0EED,
                        0x198EEFF3D82,
                    ],
                ),
                (
                    CounterSet::ProblemState,
                    vec![
                        0x1B0D9031290,
                        0x389CFBFE46,
                        0x654EA890,
                        0x198598D76E,
                        0x9948AB65,
                        0x11AA8E769C6,
                    ],
                ),
                (CounterSet::CryptoActivity, vec![0; 16]),
                (CounterSet::Extended, extended),
            ],
        )],
        ..run()
    }
}

fn same_lines(got: &[&str], want: &str) {
    let want: Vec<&str> = want.lines().collect();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {}", k + 1);
    }
    assert_eq!(got.len(), want.len(), "{got:#?}");
}

/// The header is IBM's, line for line (Example 2-2): no title line (the title stays in the
/// COMMAND line, where the reader finds it) and no machine line.
#[test]
fn header_is_example_2_2() {
    let r = CntRun {
        file_name: "SYSHIS20100304.223617.CNT".into(),
        command: "MODIFY HIS,B,CTR=ALL,ST=D,DUR=18".into(),
        lost_samples: 13_126_090,
        ..figures_run()
    };
    let text = render(&r);
    let got: Vec<&str> = text.lines().collect();
    same_lines(&got[..5], EXAMPLE_2_2);
    assert_eq!(got[5], "");
    // No LOST SAMPLES line without lost samples; the title in the command.
    let command = "hcpumf his begin ctr=all title='NIGHTLY BATCH' dur=5";
    let text = render(&CntRun {
        command: command.into(),
        lost_samples: 0,
        ..r.clone()
    });
    let head: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        head,
        [
            "HIS019I EVENT COUNTERS INFORMATION VERSION 1",
            "FILE NAME: SYSHIS20100304.223617.CNT",
            &format!("COMMAND: {command}"),
            "COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1",
        ]
    );
    for gone in ["LOST SAMPLES", "TITLE:", "MODEL:", "HERCULES", "LOSS OF"] {
        assert!(!text.contains(gone), "{gone}: {text}");
    }
    let f = parse(&text);
    assert_eq!((f.title.as_str(), f.machine_type), ("NIGHTLY BATCH", None));
}

/// HIS's TITLE keyword (TT), quoted or not, in any case; none.
#[test]
fn title_of_the_command() {
    for (c, t) in [
        (
            "MODIFY HIS,B,TT='A TITLE: WITH COLON',CTR=ALL",
            Some("A TITLE: WITH COLON"),
        ),
        ("hcpumf his begin title=run1 dur=1", Some("run1")),
        ("hcpumf his b Title='x y'", Some("x y")),
        ("hcpumf his begin path=/tmp/title=x", None),
        ("MODIFY HIS,B,CTRONLY", None),
    ] {
        assert_eq!(title_of_command(c).as_deref(), t, "{c}");
    }
}

#[test]
fn basic_section_is_example_2_6() {
    let mut r = figures_run();
    r.file_name = "SYSHIS20100221.121354.CNT".into();
    r.command = "MODIFY HIS,B,CTRONLY".into();
    r.start = at(2010, 2, 21, 12, 13, 54);
    r.end = at(2010, 2, 21, 12, 20, 49);
    r.start_tod = 0xC592_FB9B_1DB6_8F92;
    r.end_tod = 0xC592_FD26_A2CA_7092;
    r.cpus = vec![(
        0,
        vec![(
            CounterSet::Basic,
            vec![
                0x6663C2773,
                0x13562F9B1,
                0x20BFA21,
                0x769FBCC0,
                0x3D2CA56,
                0x26DA59633,
            ],
        )],
    )];
    same_lines(&render(&r).lines().collect::<Vec<_>>(), &example_2_6());
}

#[test]
fn all_sets_are_figures_3_3_to_3_7() {
    let text = render(&figures_run());
    let got: Vec<&str> = text.lines().collect();
    let want = figures_3_3_to_3_7();
    same_lines(&got, &want);
    // The parts the brief names, found by their first line, for a clearer failure.
    for first in [
        "COUNTER SET= PROBLEM-STATE",
        " 32- 35 000001B0D9031290 000000389CFBFE46 00000000654EA890 000000198598D76E",
        " 36- 39 000000009948AB65 0000011AA8E769C6 -----",
        " 64: PRNG FUNCTION COUNT",
        " 79: AES BLOCKED CYCLE COUNT",
        " 76- 79 0000000000000000 0000000000000000 0000000000000000 0000000000000000",
        "COUNTER SET= EXTENDED\nCOUNTER IDENTIFIERS:\n  MODEL DEPENDENT INFORMATION NOT \
         AVAILABLE\n\nSTART TIME: 2010/03/02 22:09:48",
        "128-131 000000024D1BFBE1 00000000D3A2C2E7 00000000277460D1 000000003B82DE1F",
    ] {
        assert!(text.contains(first), "{first}");
    }
}

#[test]
fn parses_the_seed_examples_as_z_os_wrote_them() {
    // Example 2-2 is a header only: its lost samples and versions; no CPU.
    let f = parse(EXAMPLE_2_2);
    assert_eq!((f.lost_samples, f.cfvn, f.csvn), (13_126_090, 1, 1));
    assert!(f.cpus.is_empty());
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert!(f.problems[0].what.contains("no COUNTER VALUES"));

    // Example 2-6 with HIS's 16 digits.
    let f = parse(&example_2_6());
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.start_tod, Some(0xC592_FB9B_1DB6_8F92));
    assert_eq!(f.end_tod, Some(0xC592_FD26_A2CA_7092));
    assert_eq!(f.lost_samples, 0);
    let (speed, v) = &f.cpus[&0];
    assert_eq!(*speed, 4404);
    let want = [
        0x6663C2773,
        0x13562F9B1,
        0x20BFA21,
        0x769FBCC0,
        0x3D2CA56,
        0x26DA59633,
    ];
    assert_eq!(v.values().copied().collect::<Vec<_>>(), want);
    // As printed, the 17-digit value is damage, located at its line.
    let f = parse(EXAMPLE_2_6_PRINTED);
    let row = EXAMPLE_2_6_PRINTED.find("  0-  3").unwrap() as u64;
    assert_eq!(f.problems[0].offset, row);
    assert_eq!(f.problems[0].line, 18);
    assert!(f.problems[0].what.contains("counter 0"), "{:?}", f.problems);

    // Figures 3-3 to 3-7 as printed (the reader does not mind their spacing).
    let f = parse(FIGURES_3_3_TO_3_7);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!((f.cfvn, f.csvn), (1, 1));
    assert_eq!(f.start_tod, Some(0xC59E_D196_3257_3984));
    assert_eq!(f.end_tod, Some(0xC59E_DF30_7646_5604));
    let want = figures_run();
    let mut merged = BTreeMap::new();
    for (set, values) in &want.cpus[0].1 {
        for (i, v) in values.iter().enumerate() {
            merged.insert(set.first_counter() + i as u16, *v);
        }
    }
    assert_eq!(f.cpus.len(), 1);
    assert_eq!(f.cpus[&0], (4404, merged.clone()));
    assert_eq!(f.cpus[&0].1[&0], 0x3C962FC79FE);
    assert_eq!(f.cpus[&0].1[&37], 0x11AA8E769C6);
    assert_eq!(f.cpus[&0].1[&79], 0);
    assert_eq!(f.cpus[&0].1[&146], 0x483B87F284);
    // And as HIS writes them: the same.
    let g = parse(&figures_3_3_to_3_7());
    assert_eq!(g, f);
}

#[test]
fn round_trip() {
    let r = CntRun {
        command: "MODIFY HIS,B,TT='A TITLE: WITH COLON'".into(),
        lost_samples: 1260,
        cpus: vec![
            (
                0,
                vec![
                    (CounterSet::Basic, vec![10, 20, 0, 0, 0, 0]),
                    (CounterSet::ProblemState, vec![1, 2, 0, 0, 0, 0]),
                    (CounterSet::CryptoActivity, (0..16).collect()),
                    (CounterSet::Extended, vec![u64::MAX; 24]),
                ],
            ),
            (
                0x1A,
                vec![
                    (
                        CounterSet::Basic,
                        vec![0x6663_C277, 0x1356_2F9B1, 1, 2, 3, 4],
                    ),
                    (CounterSet::ProblemState, vec![5, 6, 0, 0, 0, 0]),
                    (CounterSet::CryptoActivity, (100..116).collect()),
                    (CounterSet::Extended, (0..24).collect()),
                ],
            ),
        ],
        ..run()
    };
    let text = render(&r);
    assert!(text.starts_with("HIS019I EVENT COUNTERS INFORMATION VERSION 1"));
    assert!(text.contains("COUNTER VALUES (HEXADECIMAL) FOR CPU 1A (CPU SPEED = 4404 CYCLES/MIC):"));
    // One section per set, each with its times and both CPUs.
    assert_eq!(text.matches("COUNTER SET= ").count(), 4);
    assert_eq!(text.matches("START TIME: ").count(), 4);
    assert_eq!(text.matches("FOR CPU 1A").count(), 4);
    let f = parse(&text);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!((f.cfvn, f.csvn), (1, 1));
    assert_eq!((f.start_tod, f.end_tod), (Some(1), Some(2)));
    assert_eq!(f.lost_samples, 1260);
    assert_eq!(f.title, "A TITLE: WITH COLON");
    assert_eq!(f.command, r.command);
    for (cpu, sets) in &r.cpus {
        let (speed, v) = &f.cpus[cpu];
        assert_eq!(*speed, 4404);
        let mut n = 0;
        for (set, values) in sets {
            for (i, x) in values.iter().enumerate() {
                assert_eq!(v[&(set.first_counter() + i as u16)], *x);
                n += 1;
            }
        }
        assert_eq!(v.len(), n);
    }
    assert_eq!(
        parse(&render(&CntRun {
            lost_samples: 0,
            ..r
        }))
        .lost_samples,
        0
    );
}

/// A file hcpumf wrote before the per-set sections (its old renderer's exact text).
const OLD_LAYOUT: &str = "\
HIS019I EVENT COUNTERS INFORMATION VERSION 1
FILE NAME: SYSHIS20261122.120000.000.CNT
COMMAND: hcpumf his begin
LOSS OF SAMPLE DATA ALERT: YES
SAMPLE BUFFER OVERFLOW COUNT: 1260
LOSS OF COUNTER DATA ALERT: NO
MODEL: 2097-HERCULES
COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1

COUNTER SET= BASIC
COUNTER IDENTIFIERS:
  0: CYCLE COUNT
  1: INSTRUCTION COUNT
  2: L1 I-CACHE DIRECTORY-WRITE COUNT
  3: L1 I-CACHE PENALTY CYCLE COUNT
  4: L1 D-CACHE DIRECTORY-WRITE COUNT
  5: L1 D-CACHE PENALTY CYCLE COUNT

COUNTER SET= PROBLEM-STATE
COUNTER IDENTIFIERS:
  32: PROBLEM-STATE CYCLE COUNT
  33: PROBLEM-STATE INSTRUCTION COUNT
  34: PROBLEM-STATE L1 I-CACHE DIRECTORY-WRITE COUNT
  35: PROBLEM-STATE L1 I-CACHE PENALTY CYCLE COUNT
  36: PROBLEM-STATE L1 D-CACHE DIRECTORY-WRITE COUNT
  37: PROBLEM-STATE L1 D-CACHE PENALTY CYCLE COUNT

START TIME: 1970/01/01 00:00:00  START TOD: 0000000000000001
END TIME:   1970/01/01 00:00:00  END TOD:   0000000000000002
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
   0-   3 000000000000000A 0000000000000014 0000000000000000 0000000000000000
   4-   7 0000000000000000 0000000000000000
  32-  35 0000000000000001 0000000000000002 0000000000000000 0000000000000000
  36-  39 0000000000000000 0000000000000000
COUNTER VALUES (HEXADECIMAL) FOR CPU 01 (CPU SPEED = 4404 CYCLES/MIC):
   0-   3 000000006663C277 000000013562F9B1 0000000000000001 0000000000000002
   4-   7 0000000000000003 0000000000000004
  32-  35 0000000000000005 0000000000000006 0000000000000000 0000000000000000
  36-  39 0000000000000000 0000000000000000
";

#[test]
fn old_layout_still_parses() {
    let f = parse(OLD_LAYOUT);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.machine_type, Some(0x2097), "its MODEL line");
    assert_eq!((f.cfvn, f.csvn), (1, 1));
    assert_eq!((f.start_tod, f.end_tod), (Some(1), Some(2)));
    assert_eq!(f.lost_samples, 1260);
    assert_eq!(f.cpus[&0].1[&1], 20);
    assert_eq!(f.cpus[&0].1[&33], 2);
    assert_eq!(f.cpus[&1].1[&1], 0x1356_2F9B1);
    assert_eq!(f.cpus[&1].1[&33], 6);
    assert_eq!(f.cpus[&1].1.len(), 12);
    // Cut at a line end: CPU 01 lacks its problem-state counters, checked against the
    // identifiers of both sets listed before the values.
    let cut = OLD_LAYOUT.rfind("  32-  35").unwrap();
    let f = parse_bytes(&OLD_LAYOUT.as_bytes()[..cut]);
    let cpu1 = OLD_LAYOUT
        .find("COUNTER VALUES (HEXADECIMAL) FOR CPU 01")
        .unwrap() as u64;
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, cpu1);
    assert!(f.problems[0]
        .what
        .contains("CPU 01: 6 of the listed counters have no value (32..37"));
}

#[test]
fn reads_z_os_text_and_reports_bad_lines() {
    let text = "HIS019I EVENT COUNTERS INFORMATION VERSION 1\n\
        COUNTER VERSION NUMBER 1: 1    COUNTER VERSION NUMBER 2: 1\n\
        COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):\n\
        \x20 0-  3 00000006663C2773 000000013562F9B1 00000000020BFA21 00000000769FBCC0\n\
        \x20 4-  7 0000000003D2CA56 000000026DA59633 -----\n\
        \x20 8- 11 ZZZZZZZZZZZZZZZZ\n";
    let f = parse(text);
    assert_eq!(f.cpus[&0].1[&0], 0x6663C2773);
    assert_eq!(f.cpus[&0].1[&5], 0x26DA59633);
    assert_eq!(f.problems.len(), 1);
    assert_eq!(f.problems[0].line, 6);
    let line6 = text.lines().take(5).map(|l| l.len() + 1).sum::<usize>();
    assert_eq!(f.problems[0].offset, line6 as u64);
    assert!(f.problems[0].what.contains("counter 8"), "{:?}", f.problems);
}

#[test]
fn truncation_and_foreign_files_are_located() {
    let r = CntRun {
        file_name: "X.CNT".into(),
        command: "c".into(),
        cpus: (0..2)
            .map(|c| (c, vec![(CounterSet::Basic, vec![1, 2, 3, 4, 5, 6])]))
            .collect(),
        ..run()
    };
    let text = render(&r);
    assert!(parse(&text).problems.is_empty());
    // Cut inside the last line.
    let cut = text.len() - 10;
    let f = parse_bytes(&text.as_bytes()[..cut]);
    let last_line = text[..cut].rfind('\n').unwrap() as u64 + 1;
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, last_line);
    assert!(f.problems[0].what.contains("truncated"));
    // Cut at a line end: CPU 01 lacks counters 4 and 5.
    let cut = text.trim_end().rfind('\n').unwrap() + 1;
    let f = parse_bytes(&text.as_bytes()[..cut]);
    let cpu1 = text
        .find("COUNTER VALUES (HEXADECIMAL) FOR CPU 01")
        .unwrap() as u64;
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, cpu1);
    assert!(f.problems[0]
        .what
        .contains("CPU 01: 2 of the listed counters"));
    // Cut before any CPU.
    let cut = text.find("COUNTER VALUES").unwrap();
    let f = parse_bytes(&text.as_bytes()[..cut]);
    assert_eq!(f.problems[0].offset, cut as u64);
    assert!(f.problems[0].what.contains("no COUNTER VALUES"));
    // Not a .CNT at all.
    let f = parse_bytes(b"\x7fELF\x02\x01\x01\n");
    assert_eq!(f.problems[0].offset, 0);
    assert!(
        f.problems[0].what.contains("not a HIS019I"),
        "{:?}",
        f.problems
    );
}

#[test]
fn truncation_in_a_later_set_is_located() {
    let r = CntRun {
        cpus: (0..2)
            .map(|c| {
                (
                    c,
                    vec![
                        (CounterSet::Basic, vec![1, 2, 3, 4, 5, 6]),
                        (CounterSet::ProblemState, vec![7, 8, 9, 10, 11, 12]),
                        (CounterSet::Extended, vec![13, 14, 15, 16, 17, 18]),
                    ],
                )
            })
            .collect(),
        ..run()
    };
    let text = render(&r);
    assert!(parse(&text).problems.is_empty());
    let headers: Vec<u64> = text
        .match_indices("COUNTER VALUES (HEXADECIMAL) FOR CPU 01")
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(headers.len(), 3);
    // EXTENDED lists no identifiers: CPU 01 is checked against CPU 00's counters.
    let cut = text.trim_end().rfind('\n').unwrap() + 1;
    let f = parse_bytes(&text.as_bytes()[..cut]);
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, headers[2]);
    assert!(
        f.problems[0]
            .what
            .contains("CPU 01: 2 of the counters CPU 00 has in this set have no value (132..133"),
        "{:?}",
        f.problems
    );
    // PROBLEM-STATE: CPU 01 header without its rows.
    let cut = text.find("COUNTER SET= EXTENDED").unwrap();
    let cut = text[..cut - 1].rfind(" 32- 35").unwrap();
    let f = parse_bytes(&text.as_bytes()[..cut]);
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, headers[1]);
    assert!(f.problems[0]
        .what
        .contains("CPU 01: 6 of the listed counters have no value (32..37"));
    // Cut after a set's identifiers, before its values.
    let set = text.find("COUNTER SET= PROBLEM-STATE").unwrap();
    let cut = set + text[set..].find("\n\n").unwrap() + 2;
    let f = parse_bytes(&text.as_bytes()[..cut]);
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, set as u64);
    assert_eq!(f.problems[0].line, text[..set].lines().count() + 1);
    assert!(f.problems[0].what.contains("no CPU's counter values"));
    assert_eq!(f.cpus[&1].1.len(), 6);
    // Cut inside a set's header line, after values began.
    let f = parse_bytes(&text.as_bytes()[..set + 15]);
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    assert_eq!(f.problems[0].offset, set as u64);
    assert!(f.problems[0].what.contains("ends inside this line"));
}

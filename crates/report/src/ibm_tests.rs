//! The report on IBM's own files, built from the Redbook's figures and examples (SG24-7857):
//! the sample entries of Example 4-1 and the map of Figure 4-7. Every expected value is read
//! off the seed by hand, as the comments show.

use super::*;
use hcpumf_formats::smp;
use samples::{attribution, By};
use std::path::PathBuf;

/// Example 4-1's four entries. The Redbook shows them in ISPF's HEX ON display, each 32-byte
/// entry over two lines: the first line the high digit of every byte, the second the low
/// digit (columns DEFC, R/U, TW/PASI, two reserved bytes, PRIMARY ASN, INSTRUCTION ADDRESS,
/// GUEST PGM PARAMETER, HOST PGM PARAMETER). Put together byte by byte:
///
/// ```text
/// 00 0 2 00 02 000008B8 07650300 00000000    0001 00 22 0000 0024 00000000018FB88A 007E695001330005 0
/// 01 0 2 00 04 00001F8A 0E901305 00000000
/// 00 0 2 00 00 00000F16 07690300 00000000    0001 00 20 0000 0007 0000000000FF1964 007E6D9001330003 0
/// 01 0 0 00 07 00000F94 0ED01303 00000000
/// 00 0 2 00 03 00000135 071A0301 00000000    0001 00 28 0000 013C 0000000008143650 007B10A8013C0011 0
/// 01 0 8 00 1C 00008460 0B081C01 00000000
/// 00 0 3 00 00 00000000 8FBB0000 00000000    0001 00 30 0000 0001 0000000000000000 80FDB3B800000000 0
/// 01 0 0 00 01 00000000 0D380000 00000000
/// ```
pub const EXAMPLE_4_1: [&str; 4] = [
    "0001002200000024 00000000018FB88A 007E695001330005 0000000000000000",
    "0001002000000007 0000000000FF1964 007E6D9001330003 0000000000000000",
    "000100280000013C 0000000008143650 007B10A8013C0011 0000000000000000",
    "0001003000000001 0000000000000000 80FDB3B800000000 0000000000000000",
];

/// The entries of [`EXAMPLE_4_1`], decoded by the .SMP reader's codec.
fn entries() -> Vec<smp::Bsde> {
    EXAMPLE_4_1
        .iter()
        .map(|h| {
            let h: String = h.split_whitespace().collect();
            let b: Vec<u8> = (0..32)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            smp::Bsde::decode(&b).expect("a basic-sampling entry")
        })
        .collect()
}

/// Figure 4-7's records (corrected as `hcpumf_formats::map`'s tests say), the boundaries and
/// the nucleus's CSECTs, with a private-area module of ASID 013C as 4.3.2 lays one out for
/// Example 4-1's problem-state sample.
const MAP: &str = "\
I SYS #@$2
I SMFI#@$2
I OS z/OS
I DATE10053
I TIME23392786
I MAP V1R1
I MACH00002097
B BDY PRIVATE 00000000007FFFFF
B BDY CSA     0080000000C63FFF
B BDY PLPA    00C6500000E35FFF
B BDY SQA     00E3600000FD5FFF
B BDY RWNUC   00FD600000FE386F
B BDY RON     00FE400000FFFFFF
B BDY ERON    010000000199945F
B BDY EPLPA   04FC700009351FFF
B BDY ECSA    0935600018DFFFFF
B BDY EPRV    18E000007FFFFFFF
CNNUC IGC203  00FD600000FD6BF8
MX013CMYPROG  0814300008143FFFMYJOB   VOLSER=WORK01DSN=MY.LOAD
";

/// The fields of Example 4-1 as its notes describe them: DAT on in all four, the second
/// state bit of the first (secondary-space mode), problem state in the third, the wait
/// state in the fourth; primary ASNs 0024, 0007, 013C, 0001; home ASN 0133 in the program
/// parameter of the first two, 013C in the third.
#[test]
fn example_4_1_decodes_as_the_redbook_reads_it() {
    let e = entries();
    let f = |s: &smp::Bsde| (s.dat, s.wait, s.problem_state, s.asc, s.primary_asn, s.ia);
    assert_eq!(f(&e[0]), (true, false, false, 1, 0x24, 0x018F_B88A));
    assert_eq!(f(&e[1]), (true, false, false, 0, 0x07, 0x00FF_1964));
    assert_eq!(f(&e[2]), (true, false, true, 0, 0x13C, 0x0814_3650));
    assert_eq!(f(&e[3]), (true, true, false, 0, 0x01, 0));
    let home = |s: &smp::Bsde| (s.gpp >> 16) & 0x7FFF;
    assert_eq!(
        (home(&e[0]), home(&e[1]), home(&e[2])),
        (0x133, 0x133, 0x13C)
    );
    // PASN is the primary ASN where the entry carries one (DAT on), not the home ASID.
    assert_eq!(attribution(&e[0]), (0x24, By::Primary));
    assert_eq!(attribution(&e[1]), (0x07, By::Primary));
    assert_eq!(attribution(&e[2]), (0x13C, By::Primary));
    assert!(e.iter().all(|s| s.unique == 0 && !s.invalid));
}

fn run_dir(name: &str) -> (PathBuf, input::RunFiles) {
    let d = std::env::temp_dir().join(format!("hcpumf-report-ibm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let block = smp::make_block(&entries(), false, 0, 0xC592_FD26_A2CA_7092);
    std::fs::write(d.join("SYSHIS20100222.233735.SMP.00"), block).unwrap();
    std::fs::write(d.join("SYSHIS20100222.233735.MAP"), MAP).unwrap();
    let files = find_files(std::slice::from_ref(&d)).unwrap();
    (d, files)
}

/// The report on those entries and that map: the problem-state sample in ASID 013C's
/// MYPROG with IBM's JOBNAME (the address-space name of its M record), the two supervisor
/// samples in the nucleus (ERON 01000000-0199945F holds 018FB88A, RON 00FE4000-00FFFFFF
/// holds 00FF1964) under <COMMON> with PASN 0000, the wait sample counted apart and in no
/// row; ISAMPLES 0 everywhere (U = 0), so no CPI.
#[test]
fn example_4_1_with_figure_4_7() {
    let (d, files) = run_dir("4-1");
    let out = d.join("summary.json");
    let r = report(
        &files,
        &Options {
            json: Some(out.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(r.damaged.is_empty(), "{:?}", r.damaged);
    let text = &r.text;
    assert!(
        text.contains("SAMPLES: 4 valid: 3 busy, 1 in the wait state (not attributed)"),
        "{text}"
    );
    let row = |module: &str| {
        text.lines()
            .find(|l| l.contains(module))
            .unwrap_or_else(|| panic!("{module}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // SAMPLES ISAMPLES CPU % CPI PASN BY JOBNAME MODULE CSECT RANGE
    assert_eq!(
        row("MYPROG")[..9],
        [
            "1",
            "0",
            "33.333",
            "-",
            "013C",
            "PASN",
            "MYJOB",
            "MYPROG",
            "<NoCSECT>"
        ]
    );
    let nucleus: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.contains("Nucleus"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(nucleus.len(), 2, "{text}");
    for n in &nucleus {
        assert_eq!(
            n[..8],
            ["1", "0", "33.333", "-", "0000", "-", "<COMMON>", "Nucleus"]
        );
    }
    let ranges: Vec<&str> = nucleus.iter().map(|n| n[9]).collect();
    assert_eq!(ranges, ["00FF1000-00FF1FFF", "018FB000-018FBFFF"]);
    let _ = std::fs::remove_dir_all(d);
}

/// The z10 counters of Figures 3-3 to 3-7 in the text, the JSON and the page: per CPU, for
/// the LPAR, and over time from a .INT whose one interval has two CPUs with those counters
/// each (the ratios stay, LPARCPU doubles: five busy CPs would be 500%, Redbook 3.3.1).
/// Expected values: `formulas`' tests work them out by hand from the figures.
#[test]
fn figures_3_3_to_3_7_per_cpu_lpar_and_interval() {
    use hcpumf_formats::{cnt, int};
    let text = crate::formulas::tests::FIGURES_3_3_TO_3_7;
    let d = std::env::temp_dir().join(format!("hcpumf-report-ibm-cnt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("SYSHIS20100302.220948.cnt"), text).unwrap();
    let f = cnt::parse(text);
    let v = &f.cpus[&0].1;
    let counters: Vec<u16> = (0..6).chain(32..38).chain(128..152).collect();
    let mut t = int::render_header(&int::IntHeader {
        file_name: "SYSHIS20100302.220948.INT".into(),
        interval_secs: 3600,
        start_tod: f.start_tod.unwrap(),
        cpu_speed: 4404,
        cfvn: 1,
        csvn: 1,
        counters: counters.clone(),
    });
    for cpu in 0..2 {
        t.push_str(&int::render_row(&int::IntRow {
            end_tod: f.end_tod.unwrap(),
            seconds: 3651.42,
            cpu,
            values: counters.iter().map(|n| v[n]).collect(),
        }));
    }
    std::fs::write(d.join("SYSHIS20100302.220948.INT"), t).unwrap();
    let files = find_files(std::slice::from_ref(&d)).unwrap();
    let (json, page) = (d.join("s.json"), d.join("p.html"));
    let r = report(
        &files,
        &Options {
            json: Some(json.clone()),
            html: Some(page.clone()),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(r.damaged.is_empty(), "{:?}", r.damaged);
    let out = &r.text;
    assert!(out.contains("COUNTERS (CFVN 1, CSVN 1: z10)"), "{out}");
    assert!(out.contains("CPU MF FORMULAS (z10"), "{out}");
    let row = |cpu: &str, after: &str| -> Vec<String> {
        out[out.find(after).unwrap()..]
            .lines()
            .find(|l| l.split_whitespace().next() == Some(cpu))
            .unwrap_or_else(|| panic!("{cpu}: {out}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    // CPU L1MP L15P L2LP L2RP MEMP RNI FIN CPI CMPLX CPI SCPL1M TLB1 CPU% TLB1 CYC PTE% LSPR
    let want = [
        "2.70", "77.66", "9.60", "0.04", "12.71", "1.05", "2.90", "3.60", "107.45", "2.93",
        "53.37", "27.28", "AVERAGE",
    ];
    for cpu in ["00", "LPAR"] {
        assert_eq!(row(cpu, "CPU MF FORMULAS")[1..], want, "{cpu}");
    }
    // CPI 6.50, PRBSTATE 38.0%, LPARCPU 25.9%, Eff GHz 4.40; one CPU: the LPAR's the same.
    for cpu in ["00", "LPAR"] {
        let r = row(cpu, "COUNTERS (");
        assert_eq!(
            [&r[3], &r[4], &r[6], &r[7]],
            ["6.50", "38.0%", "25.9%", "4.40"]
        );
    }
    // The interval: the LPAR of two such CPUs over 3651.42 s.
    let iv = row("3651.420", "INTERVALS:");
    assert_eq!(
        iv[1..],
        ["6.50", "38.0%", "51.8%", "2.70", "1.05", "AVERAGE"]
    );

    let j = std::fs::read_to_string(&json).unwrap();
    let one = |key: &str, from: &str| -> f64 {
        let at = j.find(from).unwrap();
        let k = format!("\"{key}\":");
        let s = &j[at + j[at..].find(&k).unwrap() + k.len()..];
        s[..s.find([',', '}']).unwrap()].parse().unwrap()
    };
    assert!(j.contains("\"generation\":\"z10\""), "{j}");
    assert!((one("l1mp", "\"lpar\":{") - 2.701_037).abs() < 1e-6);
    assert!((one("rni", "\"lpar\":{") - 1.049_981).abs() < 1e-6);
    assert!(j.contains("\"lspr\":\"AVERAGE\""));
    // The interval's LPAR point: two CPUs, 3651.42 s.
    assert!(
        (one("lparcpu", "\"intervals\"") - 25.890_939).abs() < 1e-6,
        "CPU 00"
    );
    let lpar = j.rfind("\"lpar\":[").unwrap();
    assert!((one("lparcpu", &j[lpar..lpar + 9]) - 51.781_878).abs() < 1e-6);
    let html = std::fs::read_to_string(&page).unwrap();
    for want in [
        "table class='formulas'",
        "<th class='n'>L15P</th>",
        "AVERAGE",
        "L1MP (L1 misses",
    ] {
        assert!(html.contains(want), "{want}");
    }
    let _ = std::fs::remove_dir_all(d);
}

//! hcpumf-report, the built binary, on good, truncated and corrupt .SMP, .CNT and .MAP files:
//! a good run is reported with exit status 0; damaged input is still reported as far as it
//! can be read, listed with the file and the byte offset of the damage, on stdout and stderr,
//! with exit status 1; the tool never panics on any bytes.
use hcpumf_formats::counter_sets::CounterSet;
use hcpumf_formats::{cnt, sdb, smp};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

const RUN: &str = "SYSHIS20261123.120000.000";

static SEQ: AtomicU32 = AtomicU32::new(0);

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "hcpumf-report-{name}-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn report(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hcpumf-report"))
        .args(args)
        .output()
        .expect("run hcpumf-report")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Two full blocks of samples in HOTLOOP (ASID 21) and one partial block.
fn smp_bytes() -> Vec<u8> {
    let s: Vec<smp::Bsde> = (0..126)
        .map(|i| smp::Bsde {
            ia: 0x10000 + i * 2,
            primary_asn: 0x21,
            problem_state: true,
            ..Default::default()
        })
        .collect();
    let mut v = smp::make_block(&s, true, 0, 1);
    v.extend(smp::make_block(&s, true, 0, 2));
    v.extend(smp::make_block(&s[..10], false, 0, 3));
    v
}

fn cnt_text() -> String {
    cnt::render(&cnt::CntRun {
        file_name: format!("{RUN}.CNT"),
        command: "hcpumf his begin".into(),
        cfvn: 1,
        csvn: 1,
        cpu_speed: 4404,
        start: hcpumf_formats::time::Civil::default(),
        end: hcpumf_formats::time::Civil::default(),
        start_tod: 0x1000_0000,
        end_tod: 0x2000_0000,
        lost_samples: 0,
        cpus: (0..2)
            .map(|c| {
                (
                    c,
                    vec![
                        (CounterSet::Basic, vec![2_000_000, 1_000_000, 0, 0, 0, 0]),
                        (
                            CounterSet::ProblemState,
                            vec![1_400_000, 700_000, 0, 0, 0, 0],
                        ),
                    ],
                )
            })
            .collect(),
    })
}

const MAP: &str = "I SYS HERCULES\n\
I MODE 64-BIT\n\
AX0021DEMOJOB 00000000000089000000000000008900\n\
MX0021HOTLOOP 000000000001000000000000000100FF\n\
MX0021WARMLOOP000000000002000000000000000200FF\n";

/// A run directory with the three kinds of file; returns (dir, smp, cnt, map).
fn run_dir(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let d = scratch(name);
    let smp = d.join(format!("{RUN}.SMP.0"));
    let cnt = d.join(format!("{RUN}.CNT"));
    let map = d.join(format!("{RUN}.MAP"));
    std::fs::write(&smp, smp_bytes()).expect("smp");
    std::fs::write(&cnt, cnt_text()).expect("cnt");
    std::fs::write(&map, MAP).expect("map");
    (d, smp, cnt, map)
}

/// The report of a damaged run: exit status 1, the damage named with file and offset on
/// stderr and in the report, which still has what could be read.
fn damaged(o: &Output, file: &Path, offset: u64, what: &str) -> String {
    let (out, err) = text(o);
    assert_eq!(o.status.code(), Some(1), "stdout:\n{out}\nstderr:\n{err}");
    let want = format!("{}: offset {offset}", file.display());
    let line = err
        .lines()
        .find(|l| l.contains(&want))
        .unwrap_or_else(|| panic!("'{want}' not on stderr:\n{err}"));
    assert!(line.contains(what), "'{what}' not in '{line}'");
    assert!(
        out.contains("DAMAGED INPUT") && out.contains(&want),
        "{out}"
    );
    out
}

#[test]
fn a_good_run_is_reported() {
    let (d, ..) = run_dir("good");
    let o = report(&[&d]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(err.is_empty(), "{err}");
    assert!(out.contains("SAMPLES: 262 valid"), "{out}");
    let row = out.lines().find(|l| l.contains("HOTLOOP")).expect("row");
    assert!(row.contains("DEMOJOB") && row.contains("100.00"), "{row}");
    assert!(out.contains("PRBSTATE") && out.contains("70.0%"), "{out}");
    assert!(!out.contains("DAMAGED"), "{out}");
}

/// The counters of `cnt_text` as hcpumf wrote them before each counter set had its own
/// section: every set's identifiers, one time section, then per CPU all sets' values.
const OLD_LAYOUT_CNT: &str = "\
HIS019I EVENT COUNTERS INFORMATION VERSION 1
FILE NAME: SYSHIS20261123.120000.000.CNT
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

START TIME: 1970/01/01 00:00:00  START TOD: 0000000010000000
END TIME:   1970/01/01 00:00:00  END TOD:   0000000020000000
COUNTER VALUES (HEXADECIMAL) FOR CPU 00 (CPU SPEED = 4404 CYCLES/MIC):
   0-   3 00000000001E8480 00000000000F4240 0000000000000000 0000000000000000
   4-   7 0000000000000000 0000000000000000
  32-  35 0000000000155CC0 00000000000AAE60 0000000000000000 0000000000000000
  36-  39 0000000000000000 0000000000000000
COUNTER VALUES (HEXADECIMAL) FOR CPU 01 (CPU SPEED = 4404 CYCLES/MIC):
   0-   3 00000000001E8480 00000000000F4240 0000000000000000 0000000000000000
   4-   7 0000000000000000 0000000000000000
  32-  35 0000000000155CC0 00000000000AAE60 0000000000000000 0000000000000000
  36-  39 0000000000000000 0000000000000000
";

#[test]
fn an_old_layout_cnt_reads_as_the_new_one() {
    let (d, _, cnt_path, _) = run_dir("cnt-old");
    let new = text(&report(&[&d])).0;
    std::fs::write(&cnt_path, OLD_LAYOUT_CNT).expect("old cnt");
    let o = report(&[&d]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    // The same counters; the old overflow count is the lost samples.
    let lost = "samples lost by the collector (LOST SAMPLES): 1260\n";
    assert!(out.contains(lost), "{out}");
    assert_eq!(out.replace(lost, ""), new);
}

#[test]
fn truncated_smp_names_the_offset_of_the_partial_block() {
    let (d, smp, ..) = run_dir("smp-cut");
    let b = smp_bytes();
    std::fs::write(&smp, &b[..2 * sdb::BLOCK_4K + 1000]).expect("cut");
    let out = damaged(&report(&[&d]), &smp, 8192, "partial block of 1000 bytes");
    // The whole blocks before it are reported.
    assert!(out.contains("SAMPLES: 252 valid"), "{out}");
}

#[test]
fn corrupt_smp_entry_and_trailer_name_their_offsets() {
    let (d, smp, ..) = run_dir("smp-bad");
    let mut b = smp_bytes();
    // Block 1, entry 2: an unknown format code.
    b[sdb::BLOCK_4K + 64] = 0x12;
    b[sdb::BLOCK_4K + 65] = 0x34;
    // Block 2: a trailer claiming 48-byte basic entries.
    b[2 * sdb::BLOCK_4K + sdb::TRAILER_4K + 5] = 48;
    std::fs::write(&smp, &b).expect("corrupt");
    let o = report(&[&d]);
    damaged(
        &o,
        &smp,
        (sdb::BLOCK_4K + 64) as u64,
        "unknown data-entry format code 1234",
    );
    damaged(
        &o,
        &smp,
        (2 * sdb::BLOCK_4K + sdb::TRAILER_4K + 4) as u64,
        "BSDES 48",
    );
}

#[test]
fn truncated_and_corrupt_cnt_name_their_offsets() {
    let (d, _, cnt_path, _) = run_dir("cnt");
    let t = cnt_text();
    // Cut inside the last counter line.
    let cut = t.len() - 7;
    std::fs::write(&cnt_path, &t.as_bytes()[..cut]).expect("cut");
    let line = t[..cut].rfind('\n').expect("lines") as u64 + 1;
    damaged(&report(&[&d]), &cnt_path, line, "truncated");
    // Cut at a line end: CPU 01's problem-state counters are missing. Each set has its own
    // section, the problem-state one last: CPU 01's last header is the one without rows.
    let cut = t.rfind(" 32- 35").expect("CPU 01 problem-state row");
    std::fs::write(&cnt_path, &t.as_bytes()[..cut]).expect("cut");
    let cpu1 = t
        .rfind("COUNTER VALUES (HEXADECIMAL) FOR CPU 01")
        .expect("CPU 01") as u64;
    damaged(
        &report(&[&d]),
        &cnt_path,
        cpu1,
        "CPU 01: 6 of the listed counters",
    );
    // A bad value in a counter row.
    let bad = t.replacen("00000000001E8480", "00000000001E84G0", 1);
    let at = t.find("00000000001E8480").expect("value");
    let line_start = t[..at].rfind('\n').expect("line") as u64 + 1;
    std::fs::write(&cnt_path, bad).expect("bad value");
    damaged(&report(&[&d]), &cnt_path, line_start, "'00000000001E84G0'");
    // A run that never ended: only the blanks reserved at BEGIN.
    std::fs::write(&cnt_path, " ".repeat(63) + "\n").expect("blanks");
    damaged(&report(&[&d]), &cnt_path, 0, "never ended");
    // Not a counter file at all.
    std::fs::write(&cnt_path, b"\x00\x01binary\xff\n").expect("binary");
    damaged(&report(&[&d]), &cnt_path, 0, "not text");
}

#[test]
fn truncated_and_corrupt_map_name_their_offsets() {
    let (d, _, _, map_path) = run_dir("map");
    // Cut inside the last record.
    std::fs::write(&map_path, &MAP.as_bytes()[..MAP.len() - 20]).expect("cut");
    let last = MAP.trim_end().rfind('\n').expect("lines") as u64 + 1;
    damaged(&report(&[&d]), &map_path, last, "truncated");
    // A record with a bad address.
    let bad = MAP.replace(
        "000000000001000000000000000100FF",
        "00000000000100000000000000010XFF",
    );
    std::fs::write(&map_path, bad).expect("bad");
    let hot = MAP.find("MX0021HOTLOOP").expect("HOTLOOP") as u64;
    let out = damaged(&report(&[&d]), &map_path, hot, "not hexadecimal");
    assert!(out.contains("line 4"), "{out}");
    // An unknown record type.
    std::fs::write(&map_path, format!("{MAP}Q garbage\n")).expect("bad type");
    damaged(
        &report(&[&d]),
        &map_path,
        MAP.len() as u64,
        "unknown record type 'Q'",
    );
}

#[test]
fn no_report_without_readable_input() {
    let d = scratch("none");
    let o = report(&[&d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("no HIS files"), "{:?}", text(&o));
    let o = report(&[&d.join(format!("{RUN}.CNT"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("cannot read"), "{:?}", text(&o));
    let odd = d.join("notes.txt");
    std::fs::write(&odd, "x").expect("write");
    let o = report(&[&odd]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("is not a HIS file"), "{:?}", text(&o));
}

#[test]
fn any_bytes_give_a_report_or_a_located_error_never_a_panic() {
    let d = scratch("fuzz");
    let (smp_p, cnt_p, map_p) = (
        d.join(format!("{RUN}.SMP.0")),
        d.join(format!("{RUN}.CNT")),
        d.join(format!("{RUN}.MAP")),
    );
    let good_smp = smp_bytes();
    let good_cnt = cnt_text().into_bytes();
    let good_map = MAP.as_bytes().to_vec();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..24 {
        // Good files with random bytes overwritten, cut at random lengths.
        let mut files = [good_smp.clone(), good_cnt.clone(), good_map.clone()];
        for f in files.iter_mut() {
            for _ in 0..(rnd() % 16) {
                let i = (rnd() as usize) % f.len();
                f[i] = rnd() as u8;
            }
            if round % 3 == 0 {
                let n = (rnd() as usize) % (f.len() + 1);
                f.truncate(n);
            }
        }
        std::fs::write(&smp_p, &files[0]).expect("smp");
        std::fs::write(&cnt_p, &files[1]).expect("cnt");
        std::fs::write(&map_p, &files[2]).expect("map");
        let o = report(&[&d]);
        let (out, err) = text(&o);
        match o.status.code() {
            Some(0) => assert!(err.is_empty(), "round {round}: {err}"),
            Some(1) => {
                for l in err.lines() {
                    assert!(
                        l.starts_with("hcpumf-report: damaged input: ") && l.contains(": offset "),
                        "round {round}: {l}"
                    );
                }
            }
            c => panic!("round {round}: exit {c:?}\n{out}\n{err}"),
        }
    }
}

#[test]
fn a_z_os_map_with_csects_fills_the_csect_column() {
    // A map as z/OS HIS writes it (Redbook SG24-7857 Figure 4-7: places instead of ASIDs,
    // 8-digit addresses, B, C and E records): samples in HOTLOOP's two CSECTs get a row each.
    let (d, smp_path, _, map_path) = run_dir("zos-map");
    std::fs::write(
        &map_path,
        "I SYS #@$2\n\
         I MAP V1R1\n\
         B BDY PRIVATE 00000000007FFFFF\n\
         AX0021DEMOJOB 0000890000008900\n\
         MC0000HOTLOOP 00010000000100FF\n\
         CC0000HOTA    000100000001007F\n\
         CC0000HOTB    00010080000100FF\n\
         EC0000HOTENTRY00010000\n",
    )
    .expect("map");
    let s: Vec<smp::Bsde> = (0..126)
        .map(|i| smp::Bsde {
            ia: 0x10000 + (i % 2) * 0x80,
            primary_asn: 0x21,
            ..Default::default()
        })
        .collect();
    std::fs::write(&smp_path, smp::make_block(&s, true, 0, 1)).expect("smp");
    let o = report(&[&d]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("HOTLOOP")).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        rows.iter()
            .any(|r| r.contains("HOTA") && r.contains("50.00")),
        "{out}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("HOTB") && r.contains("00010080-000100FF")),
        "{out}"
    );
}

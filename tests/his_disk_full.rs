//! A HIS run whose disk fills: the .SMP file is complete up to its last full block, the .CNT
//! and .MAP (whose space is reserved at BEGIN) are whole, and the console says what happened
//! when it happened. The small disk is a tmpfs the test mounts, so it needs root (and a
//! system that lets it mount); without one each test records a skip (`common::skip`, not a
//! pass). A per-file size limit (RLIMIT_FSIZE) is no substitute: every file would get its
//! own limit, and the claim that the reserved .CNT and .MAP stay whole when the disk is full
//! could not fail.
mod common;
use common::*;
use hcpumf_formats::{cnt, map, sdb, smp};
use std::path::PathBuf;
use std::process::Command;

/// A directory where writing fails after about `kib` KiB: a tmpfs of that size.
struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    /// The small disk, or None (a skip recorded) when it cannot be mounted here.
    fn new(kib: u64) -> Option<SmallDisk> {
        let dir = scratch("his-small-disk");
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            skip("root", "mounting the small disk (a tmpfs) needs root");
            return None;
        }
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "hcpumf-test"])
            .arg(&dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(SmallDisk { dir }),
            Ok(o) => {
                skip(
                    "root",
                    &format!(
                        "mount -t tmpfs failed: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    ),
                );
                None
            }
            Err(e) => {
                skip("root", &format!("mount: {e}"));
                None
            }
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

#[test]
fn a_full_disk_leaves_whole_files_and_says_so() {
    // 512 KiB: the .CNT, the .MAP and the .MAPX (192 KiB reserved) fit, the samples of
    // ~13,000/s (about
    // 430 KB/s) fill the rest within the first second of the workload.
    let Some(disk) = SmallDisk::new(512) else {
        return;
    };
    let cfg = Config {
        before: vec![format!(
            "hcpumf his begin sampfreq=800000 map=yes mvs=yes path={}",
            disk.dir.display()
        )],
        after: vec!["hcpumf his status".into(), "hcpumf his end".into()],
        ..Config::default()
    };
    let out = run("demo_workload", &cfg);
    let log = &out.log;

    // The console said it when it happened (before END), and again in the END message.
    let full = log
        .lines()
        .position(|l| l.contains("HHCMF045W") && l.contains("sampling stopped"))
        .unwrap_or_else(|| panic!("no disk-full message:\n{log}"));
    let ended = log
        .lines()
        .position(|l| l.contains("HHCMF044I"))
        .unwrap_or_else(|| panic!("no end message:\n{log}"));
    assert!(full < ended, "{log}");
    let line = log.lines().nth(full).unwrap_or_default();
    assert!(
        line.contains("No space left on device") || line.contains("File too large"),
        "{line}"
    );
    assert!(
        line.contains("complete up to its last full block"),
        "{line}"
    );
    // STATUS says so too.
    assert!(
        log.lines()
            .any(|l| l.contains("HHCMF047I") && l.contains("sampling stopped")),
        "{log}"
    );

    // .SMP: whole blocks only, each one full, every entry readable.
    let smp_files = files(&disk.dir, ".SMP.");
    assert_eq!(smp_files.len(), 1, "{log}");
    let bytes = std::fs::read(&smp_files[0]).expect("read .SMP");
    assert!(
        !bytes.is_empty(),
        "some blocks were written before the disk filled"
    );
    assert_eq!(
        bytes.len() % sdb::BLOCK_4K,
        0,
        "whole blocks: {}",
        bytes.len()
    );
    for (i, b) in bytes.chunks(sdb::BLOCK_4K).enumerate() {
        let t = smp::Trailer::decode(&b[sdb::TRAILER_4K..]);
        assert!(t.full(), "block {i} is a full block");
        assert_eq!((t.header.bsdes, t.header.dsdes), (32, 64), "block {i}");
    }
    let (mut n, mut demojob) = (0u64, 0u64);
    let sum = smp::scan(&bytes[..], &mut |s| {
        n += 1;
        // Samples of the workload (not of the setup before its control blocks exist) carry
        // DEMOJOB's home ASID.
        if (0x10000..0x40000).contains(&s.ia) {
            assert_eq!((s.gpp >> 16) & 0x7FFF, 0x21, "MVS awareness");
            demojob += 1;
        }
    })
    .expect("scan");
    assert!(demojob > n / 2, "{demojob} of {n} samples in the workload");
    assert!(sum.problems.is_empty(), "{:?}", sum.problems);
    assert_eq!(n, (bytes.len() / sdb::BLOCK_4K) as u64 * 126);

    // .CNT: whole, with the counters of the whole run (sampling stopped, counting did not).
    let cnt_files = files(&disk.dir, ".CNT");
    assert_eq!(cnt_files.len(), 1, "{log}");
    let c = cnt::parse(&std::fs::read_to_string(&cnt_files[0]).expect("cnt"));
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    let instr = c.cpus[&0].1[&1] as f64;
    assert!((instr - 1.2e9).abs() / 1.2e9 < 0.01, "instructions {instr}");
    // The samples of the block that could not be written (and any after it) are counted.
    assert!(c.lost_samples >= 126, "lost {}", c.lost_samples);

    // .MAP: whole (and its .MAPX).
    let map_files = files(&disk.dir, ".MAP");
    assert_eq!(map_files.len(), 2, "{log}");
    let m = map::parse(&std::fs::read_to_string(&map_files[0]).expect("map"));
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    assert_eq!(m.jobs.get(&0x21).map(String::as_str), Some("DEMOJOB"));
    assert_eq!(
        m.modules.len(),
        5,
        "DEMOJOB's three programs, the LPA's two"
    );

    // The report tool reads what is there.
    let rep = Command::new(report_tool())
        .arg(&disk.dir)
        .output()
        .expect("hcpumf-report");
    assert!(rep.status.success(), "{rep:?}");
    let text = String::from_utf8_lossy(&rep.stdout);
    assert!(
        text.contains("HOTLOOP") && !text.contains("DAMAGED"),
        "{text}"
    );
}

#[test]
fn dataloss_stop_ends_the_run_when_the_disk_fills() {
    let Some(disk) = SmallDisk::new(512) else {
        return;
    };
    let cfg = Config {
        before: vec![format!(
            "hcpumf his begin dataloss=stop sampfreq=800000 path={}",
            disk.dir.display()
        )],
        after: vec!["hcpumf his end".into()],
        ..Config::default()
    };
    let out = run("demo_workload", &cfg);
    let log = &out.log;
    assert!(
        log.lines()
            .any(|l| l.contains("HHCMF044I") && l.contains("(DATALOSS=STOP: sample data lost)")),
        "{log}"
    );
    assert!(
        log.contains("HHCMF043E hcpumf his end: no run is active"),
        "{log}"
    );
    let bytes = std::fs::read(&files(&disk.dir, ".SMP.")[0]).expect("smp");
    assert!(!bytes.is_empty() && bytes.len() % sdb::BLOCK_4K == 0);
    let c = cnt::parse(&std::fs::read_to_string(&files(&disk.dir, ".CNT")[0]).expect("cnt"));
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    // Counting ended with the run: well before the workload's 1.2 G instructions.
    let instr = c.cpus[&0].1[&1] as f64;
    assert!(instr > 0.0 && instr < 1.0e9, "instructions {instr}");
}

#[test]
fn a_begin_that_cannot_reserve_its_files_starts_nothing() {
    // 64 KiB: room for the .CNT, not for the 128-KiB .MAP reservation.
    let Some(disk) = SmallDisk::new(64) else {
        return;
    };
    let cfg = Config {
        before: vec![
            format!("hcpumf his begin map=yes path={}", disk.dir.display()),
            "hcpumf his status".into(),
        ],
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    let line = out
        .log
        .lines()
        .find(|l| l.contains("HHCMF041E"))
        .unwrap_or_else(|| panic!("no refusal:\n{}", out.log));
    assert!(
        line.contains("cannot reserve 131072 bytes for SYSHIS") && line.contains(".MAP"),
        "{line}"
    );
    assert!(line.ends_with("; nothing started"), "{line}");
    assert!(
        out.said("HHCMF046I hcpumf his: no run is active"),
        "{}",
        out.log
    );
    // The .CNT reserved before it was removed again.
    assert!(
        files(&disk.dir, "SYSHIS").is_empty(),
        "{:?}",
        files(&disk.dir, "")
    );
}

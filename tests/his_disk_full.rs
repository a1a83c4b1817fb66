//! A HIS run whose disk fills: the .SMP file is complete up to its last full block, the .CNT
//! and .MAP (whose space is reserved at BEGIN) are whole, and the console says what happened
//! when it happened. The small disk is a tmpfs the test mounts when it runs as root, otherwise
//! a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) that Hercules inherits.
mod common;
use common::*;
use hcpumf_formats::{cnt, map, sdb, smp};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

// The file-size limit (when there is no tmpfs) is the process's: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// A directory where writing fails after about `kib` KiB.
struct SmallDisk {
    dir: PathBuf,
    mounted: bool,
}

impl SmallDisk {
    fn new(kib: u64) -> SmallDisk {
        let dir = scratch("his-small-disk");
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        // HCPUMF_TEST_NO_TMPFS=1 tries the file-size limit as root, too.
        if root && std::env::var_os("HCPUMF_TEST_NO_TMPFS").is_none() {
            let ok = Command::new("mount")
                .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "hcpumf-test"])
                .arg(&dir)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if ok {
                return SmallDisk { dir, mounted: true };
            }
        }
        // Not root, or no mount in this container: limit the size of every file this process
        // and its children (Hercules) write, and have writes beyond it fail with EFBIG.
        let lim = libc::rlimit {
            rlim_cur: kib * 1024,
            rlim_max: libc::RLIM_INFINITY,
        };
        // SAFETY: plain system calls on this process; this test binary runs one test.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
        }
        eprintln!("small disk: RLIMIT_FSIZE {kib} KiB (no tmpfs)");
        SmallDisk {
            dir,
            mounted: false,
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(&self.dir).status();
        } else {
            let lim = libc::rlimit {
                rlim_cur: libc::RLIM_INFINITY,
                rlim_max: libc::RLIM_INFINITY,
            };
            // SAFETY: a plain system call on this process.
            unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, &lim) };
        }
    }
}

#[test]
fn a_full_disk_leaves_whole_files_and_says_so() {
    // 512 KiB: the .CNT, the .MAP and the .MAPX (192 KiB reserved) fit, the samples of
    // ~13,000/s (about
    // 430 KB/s) fill the rest within the first second of the workload.
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let disk = SmallDisk::new(512);
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
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let disk = SmallDisk::new(512);
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
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 64 KiB: room for the .CNT, not for the 128-KiB .MAP reservation.
    let disk = SmallDisk::new(64);
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

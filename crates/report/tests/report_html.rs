//! The HTML page of `hcpumf-report --html`, looked at as a person would: rendered by headless
//! Chromium, which runs the page's script and its self-test (`#selftest`: sort a column,
//! filter by state, show the timeline by job, click a frame of the flame graph and see it
//! zoom). The DOM after the scripts ran must show the page ready, no script error, the flame
//! graph's frames, the timeline and the counter charts.
//!
//! Debian's `chromium` is needed (`scripts/setup-browser.sh` installs it; `scripts/test.sh`
//! runs that first). Without it the test records a skip (`tests/common/skip.rs`: counted as
//! skipped, not passed; CI fails on it unless `HCPUMF_BROWSER_TESTS=0` said so): set
//! HCPUMF_CHROMIUM to a browser binary to use another. HCPUMF_SCREENSHOT=FILE also writes a
//! PNG of the page.

#[path = "../../../tests/common/skip.rs"]
mod skip;

use hcpumf_formats::counter_sets::CounterSet;
use hcpumf_formats::{cnt, int, smp};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUN: &str = "SYSHIS20261123.120000.000";
const SEC: u64 = 4096 * 1_000_000;
const T0: u64 = 0xDA00_0000_0000_0000;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HCPUMF_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A run of two CPUs over 4 seconds: HOTLOOP, then WARMLOOP (a phase change at 2 s) in the
/// job DEMOJOB, some nucleus code, a .CNT with the crypto set and a .INT of 1-second
/// intervals.
fn run_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("hcpumf-report-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    std::fs::write(
        d.join(format!("{RUN}.MAP")),
        "I SYS HERCULES\nI MODE 64-BIT\n\
         B BDY NUC     0000000000000000000000000000FFFF\n\
         B BDY PRIVATE 000000000001000000000000007FFFFF\n\
         AX0021DEMOJOB 00000000000089000000000000008900\n\
         AX0022BATCHJOB00000000000089000000000000008900\n\
         MX0021HOTLOOP 000000000002000000000000000203FF\n\
         MX0022WARMLOOP000000000003000000000000000300FF\n",
    )
    .expect("map");
    for cpu in 0..2u16 {
        let mut bytes = Vec::new();
        for b in 0..40u64 {
            let samples: Vec<smp::Bsde> = (0..126u64)
                .map(|i| {
                    let (asid, ia) = match (b < 20, i % 9) {
                        (_, 0) => (0x21, 0x1000 + i * 2),
                        (true, _) => (0x21, 0x20000 + (i * 6) % 0x400),
                        (false, _) => (0x22, 0x30000 + (i * 2) % 0x100),
                    };
                    smp::Bsde {
                        ia,
                        primary_asn: asid,
                        gpp: u64::from(asid) << 16,
                        problem_state: i % 9 != 0,
                        unique: u8::from(i % 5 == 0),
                        ..Default::default()
                    }
                })
                .collect();
            bytes.extend(smp::make_block(
                &samples,
                true,
                0,
                T0 + (b + 1) * SEC / 10 + u64::from(cpu) * 1000,
            ));
        }
        std::fs::write(d.join(format!("{RUN}.SMP.{cpu:X}")), bytes).expect("smp");
    }
    let cnt = cnt::render(&cnt::CntRun {
        file_name: format!("{RUN}.CNT"),
        command: "hcpumf his begin ctrset=(b,p,c) smfintval=1 title='browser test'".into(),
        cfvn: 1,
        csvn: 1,
        cpu_speed: 4404,
        start: hcpumf_formats::time::Civil::default(),
        end: hcpumf_formats::time::Civil::default(),
        start_tod: T0,
        end_tod: T0 + 4 * SEC,
        lost_samples: 0,
        cpus: (0..2)
            .map(|c| {
                (
                    c,
                    vec![
                        (
                            CounterSet::Basic,
                            vec![14_000_000_000, 400_000_000, 0, 0, 0, 0],
                        ),
                        (
                            CounterSet::ProblemState,
                            vec![9_000_000_000, 300_000_000, 0, 0, 0, 0],
                        ),
                        (
                            CounterSet::CryptoActivity,
                            (0..16).map(|k| k * 10).collect(),
                        ),
                    ],
                )
            })
            .collect(),
    });
    std::fs::write(d.join(format!("{RUN}.CNT")), cnt).expect("cnt");
    let mut text = int::render_header(&int::IntHeader {
        file_name: format!("{RUN}.INT"),
        interval_secs: 1,
        start_tod: T0,
        cpu_speed: 4404,
        cfvn: 1,
        csvn: 1,
        counters: vec![0, 1, 32, 33, 64, 68, 72, 76],
    });
    for k in 1..=4u64 {
        for cpu in 0..2u16 {
            text.push_str(&int::render_row(&int::IntRow {
                end_tod: T0 + k * SEC,
                seconds: k as f64,
                cpu,
                values: vec![
                    3_500_000_000,
                    100_000_000 * (k + u64::from(cpu)),
                    2_000_000_000,
                    60_000_000 * k,
                    k,
                    2 * k,
                    0,
                    5,
                ],
            }));
        }
    }
    std::fs::write(d.join(format!("{RUN}.INT")), text).expect("int");
    d
}

/// Run the browser with a time limit; its stdout.
fn browse(browser: &Path, args: &[String]) -> String {
    let profile = std::env::temp_dir().join(format!("hcpumf-chromium-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the browser");
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the browser did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = std::fs::remove_dir_all(&profile);
    reader.join().expect("reader")
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

#[test]
fn the_page_renders_in_chromium_with_flame_graph_and_timeline() {
    let Some(browser) = chromium() else {
        skip::skip(
            "browser",
            "no chromium found (scripts/setup-browser.sh installs Debian's; or set \
             HCPUMF_CHROMIUM)",
        );
        return;
    };
    let d = run_dir();
    let page = d.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_hcpumf-report"))
        .arg("--html")
        .arg(&page)
        .arg(&d)
        .output()
        .expect("hcpumf-report");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = format!("file://{}#selftest", page.display());
    let dom = browse(&browser, &["--dump-dom".into(), url]);
    let body = dom
        .split("<body")
        .nth(1)
        .and_then(|b| b.split('>').next())
        .unwrap_or_else(|| panic!("no body in the DOM:\n{dom}"));
    let errors = dom
        .split("<div id=\"errors\"")
        .nth(1)
        .and_then(|e| e.split("</div>").next())
        .unwrap_or("");
    assert!(
        attribute(body, "data-errors").is_none(),
        "script errors: {errors}"
    );
    assert!(
        errors.contains("hidden") && errors.ends_with('>'),
        "the error box shows: {errors}"
    );
    assert_eq!(
        attribute(body, "data-ready"),
        Some("1"),
        "the script did not finish: {body}"
    );
    // The flame graph: state, job, module, CSECT and bucket frames of both states.
    let frames: usize = attribute(body, "data-flame-frames")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(frames >= 12, "flame graph frames: {frames}");
    let selftest = attribute(body, "data-selftest").unwrap_or("");
    for step in [
        "sort ascending",
        "state filter splits the samples",
        "timeline by job",
        "flame graph zooms on a click",
    ] {
        assert!(selftest.contains(step), "self-test: {selftest}");
    }
    // The timeline: one chart per CPU and kind, with bars.
    let timelines: Vec<&str> = dom.split("<svg class=\"timeline\"").skip(1).collect();
    assert_eq!(timelines.len(), 4, "2 CPUs x (module, job)");
    for t in &timelines {
        let t = t.split("</svg>").next().unwrap_or("");
        assert!(t.matches("<path d=\"M").count() >= 2, "{t}");
    }
    assert!(dom.contains("HOTLOOP") && dom.contains("WARMLOOP"));
    // The table, re-drawn by the script, and the counter charts over time.
    let rows = dom
        .split("<tbody>")
        .nth(1)
        .and_then(|t| t.split("</tbody>").next())
        .unwrap_or("");
    assert!(rows.matches("<tr>").count() >= 3, "{rows}");
    assert!(
        dom.matches("<svg class=\"chart\"").count() >= 4,
        "CPI, PRBSTATE, LPARCPU, crypto"
    );
    assert!(dom.contains("<polyline"));
    if let Some(shot) = std::env::var_os("HCPUMF_SCREENSHOT") {
        browse(
            &browser,
            &[
                format!("--screenshot={}", PathBuf::from(shot).display()),
                "--window-size=1280,2000".into(),
                format!("file://{}", page.display()),
            ],
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

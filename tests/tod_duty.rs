//! Hercules' TOD-clock updates made by the plugin's sampler thread (`host::timer_duty`, with
//! `HCPUMF_TOD_DUTY=1` in Hercules' environment).
//! With every host core running a CPU thread, each wake-up of Hercules' timer thread
//! preempts one, and so does each of the sampler's; while the sampler wakes at least as
//! often as the timer thread would, it makes the update itself and the timer thread sleeps
//! 1 ms. What a guest and an operator must still find, on both Hercules:
//!
//! * the clock comparator's interruptions stay prompt: the median lateness of 1,000 rounds
//!   is below 500 us, half the 1-ms sleep the timer thread takes while the sampler holds the
//!   duty, which is what the timer thread alone would give if the sampler stopped making
//!   the updates (measured on a quiet host: 77-98 us on 3.13 at TIMERINT 70, about 250 us on
//!   SDL Hyperion at 400; a compile beside the suite took 3.13 to 199 us);
//! * `hcpumf status` says who makes the updates (HHCMF026I);
//! * once sampling ends, TIMERINT is what it was before (set here in the configuration to
//!   70 us, not 3.13's default, so that a default put back instead shows; SDL Hyperion
//!   raises a TIMERINT below 400 us to 400 when the transactional-execution facility is
//!   enabled, as it is for z/Architecture).
//!
//! The run is kept to two host cores with two CPUs (`taskset`), so that every core the
//! sampler may use runs a CPU thread on any machine; a HIS run samples both CPUs at the
//! QSI maximum rate (20,000/s each).
mod common;
use common::*;

const TIMERINT_US: u32 = 70;

/// The first two host cores this process may use, as `taskset -c` takes them.
fn two_cores() -> String {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list")
        .trim()
        .to_string();
    let mut cores = Vec::new();
    for part in list.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.parse().expect("core"), b.parse().expect("core"));
        cores.extend(a..=b);
    }
    assert!(cores.len() >= 2, "needs two host cores: {list}");
    format!("{},{}", cores[0], cores[1])
}

/// The TIMERINTs Hercules displays, in order (3.13: "HHCPN037I Timer update interval = 70
/// microsecond(s)"; Hyperion: "HHC02203I TIMERINT      : 400").
fn timerint_shown(log: &str) -> Vec<u64> {
    log.lines()
        .filter_map(|l| {
            let rest = if let Some(i) = l.find("HHCPN037I Timer update interval = ") {
                &l[i + 34..]
            } else if let Some(i) = l.find("HHC02203I ") {
                let (name, value) = l[i + 10..].split_once(':')?;
                if !name.trim().eq_ignore_ascii_case("timerint") {
                    return None;
                }
                value
            } else {
                return None;
            };
            rest.split_whitespace().next()?.parse().ok()
        })
        .collect()
}

#[test]
fn clock_comparator_interruptions_stay_prompt_and_timerint_is_put_back() {
    let out_dir = scratch("tod-duty-his");
    let cfg = Config {
        numcpu: 2,
        start_all: true,
        config: vec![format!("TIMERINT {TIMERINT_US}")],
        wrap: vec!["taskset".into(), "-c".into(), two_cores()],
        env: vec![("HCPUMF_TOD_DUTY".into(), "1".into())],
        before: vec!["timerint".into()],
        during: vec![format!(
            "hcpumf his begin ctrset=(b) sampfreq=1200000 path={}",
            out_dir.display()
        )],
        after: vec![
            "hcpumf status".into(),
            "hcpumf his end".into(),
            "pause 1".into(),
            "hcpumf status".into(),
            "timerint".into(),
        ],
        show: vec![(0x3000, 0x10), (0x37f0, 0x110), (0x10000, 1000 * 8)],
        ..Config::default()
    };
    let out = run("tod_duty", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), Vec::<u16>::new(), "{}", out.log);
    assert_eq!(out.u64(0x3000), 1000, "rounds");
    assert_eq!(out.u64(0x3008), 0, "other external interruptions");
    let mut late: Vec<u64> = (0..1000).map(|i| out.u64(0x10000 + 8 * i) / 4096).collect();
    late.sort_unstable();
    let median = late[late.len() / 2];
    eprintln!(
        "clock-comparator lateness (us): median {median}, 90% {}, most {}",
        late[900], late[999]
    );
    let duty: Vec<&str> = out
        .log
        .lines()
        .filter(|l| l.contains("HHCMF026I"))
        .collect();
    eprintln!("{}", duty.join("\n"));
    // The first status, while the HIS run samples: the sampler made updates.
    let made = duty
        .first()
        .and_then(|l| l.split("updates: ").nth(1))
        .map(|s| s.trim_start_matches("made by the sampler thread ("))
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(
        made > 0,
        "the sampler made no TOD-clock update\n{}",
        out.log
    );
    // The last, a second after the run ended: the timer thread makes them again, at the
    // operator's TIMERINT.
    assert!(
        duty.last().is_some_and(|l| l.contains("makes them again")),
        "{}",
        out.log
    );
    let shown = timerint_shown(&out.log);
    assert!(
        shown.len() == 2 && shown[0] == shown[1],
        "TIMERINT before and after: {shown:?}\n{}",
        out.log
    );
    // Sooner than the timer thread at the duty's 1-ms sleep would make them without the
    // sampler's updates (a median of 500 us or more); a bound near TIMERINT failed beside a
    // compile on the 2-core host (199 us on 3.13).
    assert!(
        median < 500,
        "median lateness {median} us, not below 500 us (TIMERINT {} us): {:?}",
        shown[0],
        &late[..20]
    );
}

//! The harness itself (tests/common): it reads both Hercules' consoles, and a run fails on a
//! caught panic, a panic message, the sampler thread's end, a crash, an unexpected exit
//! status, a timeout, and on an automatic-operator miss that did not end cleanly. The
//! failures are provoked with a wrapper script around a real Hercules run (`Config::wrap`).
mod common;
use common::*;
use std::path::PathBuf;

/// A wrapper script: `body` runs with Hercules' command line in "$@".
fn wrapper(name: &str, body: &str) -> Vec<String> {
    let dir = scratch(&format!("wrap-{name}"));
    let path: PathBuf = dir.join("wrap.sh");
    std::fs::write(&path, format!("#!/bin/bash\n{body}\n")).expect("write wrapper");
    vec!["bash".into(), path.display().to_string()]
}

/// A run without the plugin (what fails it does not depend on the plugin) under a wrapper.
fn wrapped(name: &str, body: &str) -> Config {
    Config {
        wrap: wrapper(name, body),
        plugin: false,
        timeout: 60,
        ..Config::default()
    }
}

#[test]
fn a_plain_run_reads_storage_and_the_wait_code_on_this_hercules() {
    let cfg = Config {
        plugin: false,
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert!(out.reached_disabled_wait());
    // STFLE stored at least the z/Architecture bits (1 and 2: installed and active).
    assert_eq!(out.bytes(0x3000, 1)[0] & 0x60, 0x60, "{}", out.log);
    let cfg = Config {
        plugin: false,
        archmode: "S/370",
        show: vec![(0x3000, 0x50), (0x7f0, 0x20)],
        ..Config::default()
    };
    let out = run("s370_qctri", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // Without the plugin QCTRI, LCCTL and ECCTR are operation exceptions.
    assert_eq!(out.u32(0x7fc), 3, "{}", out.log);
}

#[test]
#[should_panic(expected = "run failed: the log says: HHCMF999E")]
fn a_caught_panic_fails_the_run() {
    let body = "\"$@\"; rc=$?\n\
                echo 'HHCMF999E hcpumf internal error in ECCTR; the request was ignored'\n\
                exit $rc";
    run("stfle", &wrapped("999", body));
}

#[test]
#[should_panic(expected = "run failed: the log says: thread 'hcpumf-sampler' panicked")]
fn a_panic_message_fails_the_run() {
    let body = "\"$@\"; rc=$?\n\
                echo \"thread 'hcpumf-sampler' panicked at src/host/sampler.rs:1:1:\" >&2\n\
                exit $rc";
    run("stfle", &wrapped("panicked", body));
}

#[test]
#[should_panic(expected = "run failed: the log says: HHCMF091E")]
fn the_sampler_threads_end_fails_the_run() {
    let body = "\"$@\"; rc=$?\n\
                echo 'HHCMF091E hcpumf the sampler thread ended: sampling stopped'\n\
                exit $rc";
    run("stfle", &wrapped("sampler", body));
}

#[test]
#[should_panic(expected = "run failed: Hercules died by signal 11")]
fn a_crash_fails_the_run() {
    run("stfle", &wrapped("segv", "\"$@\"\nkill -SEGV $$"));
}

#[test]
#[should_panic(expected = "run failed: Hercules ended with exit status 3")]
fn an_unexpected_exit_status_fails_the_run() {
    run("stfle", &wrapped("exit3", "\"$@\"\nexit 3"));
}

#[test]
#[should_panic(expected = "run failed: Hercules timed out after 8 s")]
fn a_timeout_fails_the_run() {
    let cfg = Config {
        timeout: 8,
        ..wrapped("hang", "\"$@\"\nsleep 60")
    };
    run("stfle", &cfg);
}

/// The automatic operator's message hidden from the harness: a miss. With the plugin loaded
/// and an exit status of 1 the run did not end cleanly, and it is not run again.
#[test]
#[should_panic(
    expected = "not run again, the run did not end cleanly: Hercules ended with exit status 1"
)]
fn a_missed_operator_is_not_retried_when_the_run_did_not_end_cleanly() {
    let body = format!(
        "\"$@\" | grep --line-buffered -v {}\nexit 1",
        hercules().hao_fired
    );
    let cfg = Config {
        plugin: true,
        ..wrapped("miss", &body)
    };
    run("stfle", &cfg);
}

/// What each Hercules prints, as the harness reads it.
#[test]
fn both_dialects_are_read() {
    let z313 = "HHCCP011I CPU0000: Disabled wait state\n          \
                PSW=00020001 80000000 0000000000000BAD\nHHCAO003I Firing command";
    assert_eq!(V313.wait_code(z313), Some(0xbad));
    let s313 = "HHCCP011I CPU0000: Disabled wait state\n          PSW=000A0000 000000E1\n";
    assert_eq!(V313.wait_code(s313), Some(0xe1));
    let zhyp = "HHC00809I Processor CP00: disabled wait state 0002000180000000 \
                0000000000000BAD\nHHC00826W Processor CP00: processor auto-stopped";
    assert_eq!(HYPERION.wait_code(zhyp), Some(0xbad));
    assert_eq!(HYPERION.wait_code(z313), None);

    let d313 = "R:0000000000003000:K:06=F1F0FFFB FCFC8000 381C0000 00000000  10......\n\
                R:00003010:K:04=00000001 00000002 00000003 00000004  ........";
    let m = V313.parse_displays(d313);
    assert_eq!(m[&0x3000], 0xf1);
    assert_eq!(m[&0x3013], 0x01);
    assert_eq!(m[&0x301f], 0x04);
    let dhyp = "HHC02290I A:0000000000003000  K:06\n\
                HHC02290I R:0000000000003000  F3F6FFFB FCFDFC64 205CC000 00000000  36......\n\
                HHC02290I R:0000000000003F00  01";
    let m = HYPERION.parse_displays(dhyp);
    assert_eq!((m[&0x3000], m[&0x3008], m.len()), (0xf3, 0x20, 16));

    assert!(V313.said_sigp_stop("HHCCP043I CPU0000: SIGP Stop (05) CPU0001, PARM 0"));
    assert!(HYPERION.said_sigp_stop(
        "HHC00814I Processor CP00: SIGP Stop                             (05) CP01, PARM"
    ));
    assert!(!HYPERION.said_sigp_stop("SIGP Stop and store status (09)"));
    let end = "/HCPUMF-END\nHHC00101I Thread id 1, prio -1, name 'Processor CP00' ended\n";
    assert!(HYPERION.said_every_cpu_stopped(&format!("{end}run.sh: Hercules exit status 0\n")));
    assert!(!HYPERION.said_every_cpu_stopped(&format!(
        "{end}HHC00081I Match at index 01, executing command quit\n\
         run.sh: Hercules exit status 0"
    )));
    assert!(!HYPERION.said_every_cpu_stopped(&format!(
        "{end}run.sh: Hercules exit status 0 (stopped by run.sh: no console output for 180 s)"
    )));

    let log = "HHCMF021I status\nHHCMF090E cannot start the sampler thread\n\
               HHCMF091E x\nHHCMF999E y\nthread 'a' panicked at\nHHCMF045W z";
    assert_eq!(fatal_lines(log).len(), 4, "{:?}", fatal_lines(log));
    assert!(fatal_lines("HHCMF090I fine\nHHCMF009E not the sampler's").is_empty());
}

/// The bound on entries stored (`common/stored.rs`): a count more than 2% short passes only
/// with stalls of the sampler, counted by `hcpumf status`, that explain the rest: a stall of
/// L explains L / interval + 1 entries of each CPU, within the time HHCMF022I says the stalls
/// took in all. A count above C / I + 6 fails.
#[test]
fn a_shortfall_needs_stalls_of_the_sampler_to_explain_it() {
    use common::stored::{failures, held_by_host, stalls_of, Stalls, Stored};
    let line = |late: &str, max_us: u64, total_us: u64| {
        format!(
            "HHCMF022I sampler thread: 63249 sleeps, woken up to {max_us} us late, a pass held \
             up to 173 us; late or held more than 0.1/0.2/0.5/1/2/5/10 ms: {late} times, \
             {total_us} us in all; 9740 ms real-time, 0 ms ordinary, 0 holds, 0 rescues by its guard; CPU 2 ms"
        )
    };
    let none = stalls_of(&line("0/0/0/0/0/0/0", 90, 0));
    assert_eq!(none.total_ns, Some(0));
    // One wake-up 2-4.1 ms late: 82 intervals of 50 us at most.
    let one = stalls_of(&line("1/1/1/1/1/0/0", 4100, 4100));
    assert!(one.steps.contains(&(4_100_000, 1)), "{one:?}");
    let count = |cpu, stored| Stored {
        what: format!("CPU {cpu}"),
        cpu,
        stored,
        cycles: 5000 * 220_200,
        interval: 220_200,
    };
    // 98% of 5,000 less 2: 4,898; and 3 more than that for the wake-ups up to 0.1 ms late,
    // which no step counts (each explains 0.1 ms / 50 us + 1 entries).
    assert!(failures(&[count(0, 4895), count(1, 5006)], &none, 4404).is_empty());
    let f = failures(&[count(0, 4894)], &none, 4404);
    assert!(f[0].contains("no late wake-up or long pass"), "{f:?}");
    assert!(failures(&[count(0, 4820)], &one, 4404).is_empty());
    let f = failures(&[count(0, 4810)], &one, 4404);
    assert_eq!(
        f.len(),
        1,
        "88 intervals short: more than a 4.1 ms stall explains"
    );
    // The stall delays every CPU once: one count of each, not two of one.
    assert!(failures(&[count(0, 4850), count(1, 4850)], &one, 4404).is_empty());
    assert_eq!(
        failures(&[count(0, 4850), count(0, 4850)], &one, 4404).len(),
        1
    );
    let f = failures(&[count(0, 5007)], &none, 4404);
    assert!(f[0].contains("more than 6 above"), "{f:?}");
    // Three wake-ups 10-40 ms late, 90 ms in all: together they explain up to 90 ms / 50 us
    // + 3 = 1,803 entries, and no more than the 90 ms they took.
    let long = stalls_of(&line("3/3/3/3/3/3/3", 40_000, 90_000));
    assert!(failures(&[count(0, 4898 - 1803)], &long, 4404).is_empty());
    let f = failures(&[count(0, 4898 - 1810)], &long, 4404);
    assert_eq!(f.len(), 1, "{f:?}");
    // 20 wake-ups 0.5-1 ms late, 12 ms in all: 12 ms / 50 us + 20 = 260 entries.
    let short = stalls_of(&line("20/20/20/0/0/0/0", 1000, 12_000));
    assert!(failures(&[count(0, 4898 - 260)], &short, 4404).is_empty());
    assert_eq!(failures(&[count(0, 4898 - 270)], &short, 4404).len(), 1);
    // 100 intervals missed while the host held CPU 0's thread: they come off CPU 0's
    // shortfall (4,895 passes with none held), not CPU 1's.
    let log = "HHCMF021I CPU0000 counters BASIC=active; sampling active interval 220200 \
               samples 4795 missed 105 (late 9000 us at most, put off 3, held by the host 100); \
               ticks 9\nHHCMF021I CPU0001 counters BASIC=active; sampling active interval \
               220200 samples 4795 missed 0 (late 40 us at most, put off 0, held by the host \
               0); ticks 9";
    let held = Stalls {
        held: held_by_host(log),
        ..none.clone()
    };
    assert_eq!(held.held.get(&0), Some(&100));
    assert!(failures(&[count(0, 4795)], &held, 4404).is_empty());
    assert_eq!(failures(&[count(0, 4794)], &held, 4404).len(), 1);
    assert_eq!(failures(&[count(1, 4795)], &held, 4404).len(), 1);
    // A HIS run's, CPU by CPU, add to the guest's.
    let his = format!(
        "{log}\nHHCMF048I hcpumf his: sample ticks late by 1.0 us on average, 9000.0 us at \
         most; 300 intervals missed, held by the host CPU by CPU 200/7"
    );
    let held = held_by_host(&his);
    assert_eq!((held.get(&0), held.get(&1)), (Some(&300), Some(&7)));
}

//! Measurement-alert external interruptions (SA23-2260, Measurement Alert): authorization
//! changes by external means and injected losses are held pending while the PSW external
//! mask is off, merged into one interruption 1407 with the parameter at 128-131, and the
//! loss of sample data is cleared again when no sampling function remains enabled.
mod common;
use common::*;

#[test]
fn authorization_changes_are_presented_once_enabled() {
    let dir = scratch("alerts-rc");
    let script = dir.join("alert.rc");
    std::fs::write(
        &script,
        // The flag tells the guest the alerts are pending (its wait, not a guess at how long
        // a loaded host takes to run these).
        "hcpumf inject lsda cpu=0\nhcpumf auth counters=b sampling=none\nr 30a0=01\n",
    )
    .expect("script");
    let cfg = Config {
        before: vec![
            "hao tgt Operation exception".into(),
            format!("hao cmd script {}", script.display()),
        ],
        ..Config::default()
    };
    let out = run("alerts", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), vec![1]);
    let ext = out.external_interruptions();
    // CACA (bit 24) and SACA (bit 8); the injected LSDA was cleared when the sampling
    // function lost its authorization (no sampling function enabled any more).
    assert_eq!(ext, vec![(0x1407, 0x0080_0080)], "{}", out.log);
    // Held pending while the external mask was off, and presented right after the STOSM
    // that turns it on, before the loop's first AGHI: that AGHI, executed once on return
    // from the interruption, leaves 1 (SA23-2260, Measurement Alert).
    assert_eq!(
        out.u64(0x3080),
        1,
        "presented at the first instruction boundary after STOSM\n{}",
        out.log
    );
    // QCTRI: only the basic set authorized now; QSI: sampling unauthorized.
    assert_eq!(out.u16(0x3002) & 0x000F, 0x0002);
    assert_eq!(out.u32(0x3040), 0);
}

#[test]
fn an_alert_wakes_a_cpu_in_an_enabled_wait() {
    let cfg = Config {
        before: vec![
            "hao tgt Operation exception".into(),
            "hao cmd hcpumf inject lcda cpu=0".into(),
        ],
        ..Config::default()
    };
    let out = run("alerts_wait", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.u16(0x3084), 0x1407);
    assert_eq!(out.u32(0x3080), 0x0000_0040, "loss of CPU counter data");
    // The loss placed the active basic set in the inactive state.
    assert_eq!(out.u16(0x3004) & 0x0002, 0x0002, "enabled");
    assert_eq!(out.u16(0x3006) & 0x0002, 0, "not active");
}

#[test]
fn the_measurement_alert_comes_after_an_emergency_signal() {
    let cfg = Config {
        before: vec![
            "hao tgt Operation exception".into(),
            "hao cmd hcpumf inject lcda cpu=0".into(),
        ],
        ..Config::default()
    };
    let out = run("alerts_priority", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), vec![1]);
    // SA23-2260, External Interruption: emergency signal before measurement alert.
    assert_eq!(
        out.external_interruptions(),
        vec![(0x1201, 0), (0x1407, 0x0000_0040)],
        "{}",
        out.log
    );
}

//! Facility indication (SA23-2260: bits 40, 67, 68 and 142 of STFLE).
mod common;
use common::*;

fn bit(list: &[u8], n: usize) -> bool {
    list[n / 8] & (0x80 >> (n % 8)) != 0
}

#[test]
fn stfle_shows_cpu_measurement_facilities() {
    let out = run("stfle", &Config::default());
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let list = out.bytes(0x3000, 24);
    for f in [40, 67, 68, 142] {
        assert!(bit(&list, f), "facility {f} not installed: {list:02x?}");
    }
    // R0: the doublewords of Hercules' facility list, less one (3.13 has three, Hyperion
    // four); the condition code is 0 when they fit the three the guest gave room for, else 3
    // (z/Architecture, STORE FACILITY LIST EXTENDED).
    let dw = hercules().stfle_doublewords;
    assert_eq!(
        out.u64(0x3020) & 0xff,
        dw - 1,
        "{dw} doublewords of facilities"
    );
    let cc = if dw <= 3 { 0 } else { 3 };
    assert_eq!((out.u32(0x3028) >> 28) & 3, cc, "cc {cc}");
    assert!(out.said("HHCMF000I"), "banner");
}

#[test]
fn without_the_plugin_the_facilities_are_absent() {
    let cfg = Config {
        plugin: false,
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    let list = out.bytes(0x3000, 24);
    // Hercules 3.13 has its own (system-wide) LPP, facility 40; the measurement facilities
    // 67, 68 and 142 come only with the plugin.
    assert!(bit(&list, 40));
    for f in [67, 68, 142] {
        assert!(!bit(&list, f), "facility {f} present without the plugin");
    }
}

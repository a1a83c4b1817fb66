//! rmmod restores what the plugin changed; ldmod again brings the facilities back.
mod common;
use common::*;

fn bit(list: &[u8], n: usize) -> bool {
    list[n / 8] & (0x80 >> (n % 8)) != 0
}

#[test]
fn rmmod_restores_hercules_and_ldmod_restores_the_facilities() {
    let so = plugin();
    let cfg = Config {
        before: vec![format!("rmmod {}", so.display())],
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    assert!(out.said("HHCMF001I"), "unloaded: {}", out.log);
    let list = out.bytes(0x3000, 24);
    for f in [67, 68, 142] {
        assert!(!bit(&list, f), "facility {f} after rmmod");
    }
    let cfg = Config {
        before: vec![
            format!("rmmod {}", so.display()),
            format!("ldmod {}", so.display()),
        ],
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    assert_eq!(out.log.matches("HHCMF000I").count(), 2, "{}", out.log);
    let list = out.bytes(0x3000, 24);
    for f in [40, 67, 68, 142] {
        assert!(bit(&list, f), "facility {f} after ldmod");
    }
}

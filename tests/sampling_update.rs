//! The sample-data-block update process and its measurement alerts as a guest sees them
//! (SA23-2260, "Sample-Data-Block Update Process", "Process Steps", "Trailer Entries",
//! "Measurement Alert"). One Hercules run executes the fifteen scenarios of
//! `tests/guest/samp_update.s`; each test below checks the scenarios of one rule.
mod common;
use common::*;
use std::sync::OnceLock;

/// QSI minimum interval of the z10 model (4404 cycles/us, 20,000 samples/s).
const MIN_INTERVAL: u64 = 220_200;
const PAT: u64 = 0x5a5a_5a5a_5a5a_5a5a;
/// Invalid entry address, incorrect SDBT entry, program request (interruption parameter).
const IEA: u32 = 0x8000_0000;
const ISE: u32 = 0x4000_0000;
const PRA: u32 = 0x2000_0000;
/// QSI state words (bytes 0-3): authorized, then enabled and active.
const ACTIVE_BASIC: u32 = 0x0003_0202;
const INACTIVE_BASIC: u32 = 0x0003_0200;

fn outcome() -> &'static Outcome {
    static OUT: OnceLock<Outcome> = OnceLock::new();
    OUT.get_or_init(|| {
        let cfg = Config {
            show: vec![
                (0x3000, 0x780),
                (0x37f0, 0x10),
                (0x1000, 0x1000),
                (0x4000, 0x40),
                (0x110f80, 0xc0),
                (0x210f80, 0xa0),
                (0x211fc0, 0x40),
                (0x311000, 0x20),
                (0x410f60, 0xa0),
                (0x510f80, 0x80),
                (0x710fc0, 0x40),
                (0x910f80, 0x80),
                (0xa10f80, 0x80),
                (0xb10f80, 0x80),
                (0x2000f80, 0xa0),
                (0x22fff80, 0x80),
                (0x2300000, 0x20),
                (0x2410000, 0x100),
                (0x2410fc0, 0x40),
                (0x2411fc0, 0x40),
                (0x2510f20, 0x140),
            ],
            ..Config::default()
        };
        let out = run("samp_update", &cfg);
        assert_eq!(out.wait_code(), Some(0), "{}", out.log);
        assert_eq!(out.program_checks(), Vec::<u16>::new(), "{}", out.log);
        out
    })
}

/// What the guest recorded for scenario `k`.
#[derive(Debug)]
struct Rec {
    cc: u32,
    /// (code, parameter) of the external interruptions taken while sampling.
    ext: Vec<(u16, u32)>,
    /// QSI state controls (bytes 0-3) when the spin ended.
    state: u32,
    tear: u64,
    dear: u64,
    cycles: u64,
    /// STCKE before activation and when the spin ended: the first 9 bytes (epoch, TOD).
    before: u128,
    after: u128,
    /// QSI state after the all-zero LSCTL.
    disabled: u32,
}

fn tod9(out: &Outcome, a: u64) -> u128 {
    out.bytes(a, 9)
        .iter()
        .fold(0u128, |v, &b| (v << 8) | u128::from(b))
}

fn rec(k: u64) -> Rec {
    let out = outcome();
    let r = 0x3000 + k * 0x80;
    let n = out.u64(r + 8);
    let ext = (0..n.min(4))
        .map(|i| {
            let v = out.u64(r + 0x40 + 8 * i);
            ((v >> 32) as u16, v as u32)
        })
        .collect();
    let rec = Rec {
        cc: (out.u32(r) >> 28) & 3,
        ext,
        state: out.u32(r + 0x10),
        tear: out.u64(r + 0x18),
        dear: out.u64(r + 0x20),
        cycles: out.u64(r + 0x28),
        before: tod9(out, r + 0x30),
        after: tod9(out, r + 0x60),
        disabled: out.u32(r + 0x70),
    };
    assert_eq!(rec.cc, 0, "scenario {k}: LSCTL cc\n{rec:?}");
    assert_eq!(
        rec.disabled, 0x0003_0000,
        "scenario {k}: disabled at the end"
    );
    rec
}

/// One interruption 1407 with exactly this parameter.
fn assert_alert(k: u64, r: &Rec, param: u32) {
    assert_eq!(r.ext, vec![(0x1407, param)], "scenario {k}: {r:?}");
}

/// A valid basic-sampling data entry (format 0001, I = 0) of the guest's spin loop.
fn assert_basic_entry(a: u64) {
    let out = outcome();
    assert_eq!(out.u16(a), 0x0001, "format code at {a:#x}");
    assert_eq!(out.bytes(a + 3, 1)[0] & 1, 0, "I at {a:#x}");
    let ia = out.u64(a + 8);
    assert!(
        (0x2000..0x2200).contains(&ia),
        "instruction address {ia:#x} at {a:#x}"
    );
}

/// A diagnostic-sampling data entry: format 8001 (SA23-2260, Diagnostic-Sampling Data
/// Entry), I = 0.
fn assert_diag_entry(a: u64) {
    let out = outcome();
    assert_eq!(out.u16(a), 0x8001, "format code at {a:#x}");
    assert_eq!(out.bytes(a + 3, 1)[0] & 1, 0, "I at {a:#x}");
}

/// Trailer of a block that became full: F = 1, T = 0 (the z10 this run configures stores a
/// STCK timestamp: `MachineModel::stcke_timestamps`, docs/decisions.md "Trailer
/// timestamps"), the A and reserved bits as the program set them, BSDES 32, DSDES 64; the
/// timestamp taken while sampling in bytes 16-23, bytes 24-31 (reserved with T = 0) as the
/// program left them (zeros).
fn assert_full_trailer(t: u64, byte0_before: u8, r: &Rec) {
    let out = outcome();
    assert_eq!(
        out.bytes(t, 1)[0],
        byte0_before | 0x80,
        "F, T = 0 at {t:#x}"
    );
    assert_eq!(out.u16(t + 4), 32, "BSDES at {t:#x}");
    assert_eq!(out.u16(t + 6), 64, "DSDES at {t:#x}");
    // The STCK value against the STCKE values (epoch index 0) the guest took around it.
    let ts = u128::from(out.u64(t + 16));
    assert!(
        r.before < ts && ts < r.after,
        "timestamp {ts:#x} at {t:#x} not between {:#x} and {:#x}",
        r.before,
        r.after
    );
    assert_eq!(out.u64(t + 24), 0, "bytes 24-31 at {t:#x}");
}

#[test]
fn qsi_reports_the_interval_range_and_entry_sizes() {
    let out = outcome();
    assert_eq!(out.u32(0x4000), 0x0003_0000, "As, Ad; disabled");
    assert_eq!((out.u16(0x4004), out.u16(0x4006)), (32, 64));
    assert_eq!(out.u64(0x4008), MIN_INTERVAL);
}

/// Step 3: the block-full indicator and the timestamp are set, the reserved bits (3-7 of byte
/// 0, bytes 1-3), bytes 32-39 and the programming bytes 48-63 stay unchanged, A = 1 makes a
/// program-request alert, the next SDBT entry becomes current and its block receives the
/// next entries (step 3.b.1 -> 3.a.2.y).
#[test]
fn a_full_block_with_a_set_raises_a_program_request_alert() {
    let out = outcome();
    let r = rec(0);
    assert_alert(0, &r, PRA);
    assert_eq!(
        r.state, ACTIVE_BASIC,
        "a program-request alert leaves sampling active"
    );
    assert_basic_entry(0x110fa0);
    assert_full_trailer(0x110fc0, 0x5f, &r);
    assert_eq!(
        out.bytes(0x110fc1, 3),
        vec![0x12, 0x34, 0x56],
        "reserved bytes 1-3"
    );
    assert_eq!(out.u64(0x110fc8), 0, "no overflow");
    assert_eq!(out.u64(0x110fe0), PAT, "bytes 32-39");
    assert_eq!(
        (out.u64(0x110ff0), out.u64(0x110ff8)),
        (PAT, PAT),
        "bytes 48-63"
    );
    assert_eq!(r.tear, 0x100008, "the next SDBT entry");
    assert!(
        r.dear > 0x111000 && r.dear < 0x111fc0 && r.dear % 32 == 0,
        "DEAR {:#x} in the next block",
        r.dear
    );
    assert_basic_entry(0x111000);
}

/// Step 1: when the next block is still full, every further sample is discarded and counted
/// in that block's sample overflow count; stored + counted = the intervals that passed, also
/// those the host did not sample in time (a real CPU's timer would have taken them; CI once
/// saw 23 of 183 uncounted on a loaded host before they were). With A = 0 no alert is made.
#[test]
fn a_still_full_next_block_counts_overflow() {
    let out = outcome();
    let r = rec(1);
    assert_eq!(r.ext, vec![], "A = 0: no alert");
    assert_eq!(r.state, ACTIVE_BASIC);
    assert_basic_entry(0x210fa0);
    assert_full_trailer(0x210fc0, 0x1f, &r);
    assert_eq!(out.u64(0x210fc8), 0, "the block that filled lost nothing");
    assert_eq!(
        out.bytes(0x211fc0, 1)[0],
        0x80,
        "the full block's trailer unchanged"
    );
    assert_eq!(out.u64(0x211000), 0, "nothing stored in the full block");
    assert_eq!(r.dear, 0x211000, "DEAR stays at the full block");
    let lost = out.u64(0x211fc8) - 5;
    let intervals = r.cycles as f64 / MIN_INTERVAL as f64;
    eprintln!("1 stored + {lost} counted in {intervals:.1} intervals");
    assert!(lost >= 20, "{lost} samples counted");
    assert!(
        ((lost + 1) as f64 - intervals).abs() <= intervals * 0.01 + 2.0,
        "1 stored + {lost} counted vs {intervals:.1} intervals"
    );
}

/// Steps 3.b.2 and 3.a.2.y: a table-link entry makes its table current (bits 60-62 ignored),
/// a block-link entry's bits 52-62 are ignored (S = 0).
#[test]
fn table_links_are_followed() {
    let r = rec(2);
    assert_alert(2, &r, PRA);
    assert_eq!(r.tear, 0x300a50, "TEAR: the linked table's origin");
    assert!(
        r.dear >= 0x311020 && r.dear < 0x311fc0,
        "DEAR {:#x}",
        r.dear
    );
    assert_basic_entry(0x311000);
}

/// Step 3.a.2.x: a table link that designates a table link is an incorrect SDBT entry;
/// every active function (here basic and diagnostic) is placed in the inactive state.
#[test]
fn a_link_to_a_link_is_an_incorrect_sdbt_entry() {
    let r = rec(3);
    assert_alert(3, &r, ISE);
    assert_eq!(r.state, 0x0003_0300, "Es = Ed = 1, Cs = Cd = 0");
    assert_eq!(r.tear, 0x400100, "TEAR: the table the link designated");
    assert_eq!(r.dear, 0x410fc0, "DEAR unchanged: nothing more was stored");
    assert_basic_entry(0x410f60);
    assert_diag_entry(0x410f80);
    assert_full_trailer(0x410fc0, 0x1f, &r);
}

/// Step 3.a.1: the last entry before the table crosses a 4-KB boundary must be a table link.
#[test]
fn a_block_link_as_the_last_table_entry_is_an_incorrect_sdbt_entry() {
    let r = rec(4);
    assert_alert(4, &r, ISE);
    assert_eq!(r.state, INACTIVE_BASIC);
    assert_eq!(r.tear, 0x500ff8);
    assert_eq!(r.dear, 0x510fc0);
}

/// Invalid entry addresses (SA23-2260, Measurement Alert): in 0-8191, inside the trailer,
/// not available in the configuration; for a data entry, a block link and a table entry.
/// The active function becomes inactive and nothing is stored there.
#[test]
fn invalid_entry_addresses_make_sampling_inactive() {
    let out = outcome();
    for (k, tear, dear, what) in [
        (5, 0x600000, 0x1fa0, "DEAR in 0-8191"),
        (6, 0x700000, 0x710fd0, "DEAR inside the trailer"),
        (7, 0x800000, 0x8000100, "DEAR beyond main storage"),
        (8, 0x900008, 0x8000000, "block link beyond main storage"),
        (9, 0x1ff8, 0xa10fc0, "SDBT entry in 0-8191"),
        (10, 0x8000000, 0xb10fc0, "table link beyond main storage"),
    ] {
        let r = rec(k);
        assert_eq!(r.ext, vec![(0x1407, IEA)], "{what}: {r:?}");
        assert_eq!(r.state, INACTIVE_BASIC, "{what}");
        assert_eq!((r.tear, r.dear), (tear, dear), "{what}: TEAR, DEAR");
    }
    // Nothing was stored in 0x1000-0x1FFF (the guest left it zero after its branch).
    assert!(
        out.bytes(0x1004, 0xffc).iter().all(|&b| b == 0),
        "0x1000-0x1FFF"
    );
    // The trailer DEAR pointed into is untouched.
    assert_eq!(out.u64(0x710fc0), 0x5f00_0000_0000_0000);
    assert_eq!(out.u64(0x710fd0), PAT);
    // The blocks filled before the bad link was met are marked full.
    let r = rec(8);
    assert_basic_entry(0x910fa0);
    assert_full_trailer(0x910fc0, 0x1f, &r);
    let r = rec(10);
    assert_full_trailer(0xb10fc0, 0x1f, &r);
}

/// Maximum-buffer-size indicator S = 1: blocks are 1 MB, so entries run across 4-KB
/// boundaries (there is no trailer at +0xFC0), the trailer is the last 64 bytes of the 1-MB
/// block, and bits 44-62 of a block link are ignored.
#[test]
fn one_megabyte_blocks_with_s_set() {
    let r = rec(11);
    assert_eq!(r.ext, vec![]);
    assert_eq!(r.state, ACTIVE_BASIC);
    for a in [0x2000f80, 0x2000fa0, 0x2000fc0, 0x2000fe0, 0x2001000] {
        assert_basic_entry(a);
    }
    assert!(
        r.dear > 0x2001000 && r.dear < 0x20fffc0,
        "DEAR {:#x}",
        r.dear
    );
    let r = rec(12);
    assert_alert(12, &r, PRA);
    assert_basic_entry(0x22fffa0);
    assert_full_trailer(0x22fffc0, 0x5f, &r);
    assert_eq!(r.tear, 0x2700008);
    assert!(
        r.dear >= 0x2300020 && r.dear % 32 == 0,
        "DEAR {:#x}",
        r.dear
    );
    assert_basic_entry(0x2300000);
}

/// Diagnostic sampling alone stores DSDES-byte diagnostic entries; the full blocks and the
/// overflow count behave as for basic entries.
#[test]
fn diagnostic_sampling_alone() {
    let out = outcome();
    let r = rec(13);
    assert_eq!(r.ext, vec![]);
    assert_eq!(r.state, 0x0003_0101, "Ed, Cd");
    for i in 0..4 {
        assert_diag_entry(0x2410000 + 64 * i);
    }
    assert_full_trailer(0x2410fc0, 0, &r);
    assert_full_trailer(0x2411fc0, 0, &r);
    // Both blocks full (63 entries each), then the ring came back to the first block,
    // which was still full: the rest counted there.
    assert_eq!((r.tear, r.dear), (0x2400000, 0x2410000));
    let stored = 2 * 63;
    let lost = out.u64(0x2410fc8);
    let intervals = r.cycles as f64 / MIN_INTERVAL as f64;
    assert!(
        ((stored + lost) as f64 - intervals).abs() <= intervals * 0.02 + 2.0,
        "{stored} stored + {lost} counted vs {intervals:.1} intervals"
    );
}

/// Combined entries (SA23-2260, Combined-Sampling Data Entry): a basic entry followed by a
/// diagnostic entry, stored only where the whole entry fits; 64 bytes left before the
/// trailer stay untouched and the next entry goes whole into the next block.
#[test]
fn combined_entries_never_split_across_blocks() {
    let out = outcome();
    let r = rec(14);
    assert_alert(14, &r, PRA);
    assert_eq!(r.state, 0x0003_0303);
    assert_basic_entry(0x2510f20);
    assert_diag_entry(0x2510f40);
    for a in (0x2510f80..0x2510fc0).step_by(8) {
        assert_eq!(out.u64(a), PAT, "{a:#x} untouched");
    }
    assert_full_trailer(0x2510fc0, 0x5f, &r);
    assert_basic_entry(0x2511000);
    assert_diag_entry(0x2511020);
    assert!(
        r.dear >= 0x2511060 && (r.dear - 0x2511000) % 96 == 0,
        "DEAR {:#x}",
        r.dear
    );
}

//! Unit tests of the sampling facility.

use super::*;
use crate::alerts::AlertBits;
use crate::cpu::CpuView;
use crate::model::{MachineModel, TrailerTimestamp};
use crate::pgm::{Cc, ProgramException};
use crate::storage::{AbsAddr, GuestStorage, MemStorage};

fn model() -> MachineModel {
    MachineModel::for_machine_type(0x2097)
}
fn authorized() -> CpuSampling {
    let s = CpuSampling::new();
    s.set_authorization(true, true);
    s
}
/// LSCTL request block.
#[allow(clippy::too_many_arguments)]
fn req(
    s: bool,
    h: bool,
    es: bool,
    ed: bool,
    cs: bool,
    cd: bool,
    i: u64,
    t: u64,
    d: u64,
) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[0] = if s { 0x80 } else { 0 } | if h { 0x40 } else { 0 };
    b[6] = if es { 2 } else { 0 } | if ed { 1 } else { 0 };
    b[7] = if cs { 2 } else { 0 } | if cd { 1 } else { 0 };
    b[8..16].copy_from_slice(&i.to_be_bytes());
    b[16..24].copy_from_slice(&t.to_be_bytes());
    b[24..32].copy_from_slice(&d.to_be_bytes());
    b
}
/// The request Linux issues: basic sampling enabled and active, H = 1, 4-KB blocks, at the
/// minimum interval.
fn linux_basic(m: &MachineModel, tear: u64, dear: u64) -> [u8; 64] {
    req(
        false,
        true,
        true,
        false,
        true,
        false,
        m.min_sampling_interval,
        tear,
        dear,
    )
}
fn view(ia: u64) -> CpuView {
    CpuView {
        ia,
        problem_state: true,
        dat: true,
        asc: 2,
        cr4: 0x0000_0000_0000_0042,
        tod: 0x1122_3344_5566_7788,
        ..Default::default()
    }
}
/// Storage with one SDBT at 0x10000 listing SDBs 0x20000, 0x21000, 0x22000 and a link
/// back to itself; all trailers with A = 1.
fn ring() -> MemStorage {
    let st = MemStorage::new(0x100000);
    st.write_u64(AbsAddr(0x10000), 0x20000).unwrap();
    st.write_u64(AbsAddr(0x10008), 0x21000).unwrap();
    st.write_u64(AbsAddr(0x10010), 0x22000).unwrap();
    st.write_u64(AbsAddr(0x10018), 0x10000 | 1).unwrap();
    for b in [0x20000u64, 0x21000, 0x22000] {
        st.write(AbsAddr(b + 4096 - 64), &[0x40]).unwrap();
    }
    st
}
fn start(s: &CpuSampling, m: &MachineModel, h: bool, dear: u64) {
    let r = req(
        false,
        h,
        true,
        false,
        true,
        false,
        m.min_sampling_interval,
        0x10000,
        dear,
    );
    assert_eq!(s.lsctl(m, &r).unwrap().cc, Cc::Zero);
}

#[test]
fn qsi_reports_the_model_and_the_registers() {
    let m = model();
    let s = authorized();
    let q = s.qsi(&m);
    assert_eq!(&q[0..4], &[0, 3, 0, 0], "As, Ad");
    assert_eq!(u16::from_be_bytes([q[4], q[5]]), 32, "BSDES");
    assert_eq!(u16::from_be_bytes([q[6], q[7]]), 64, "DSDES");
    assert_eq!(
        u64::from_be_bytes(q[8..16].try_into().unwrap()),
        m.min_sampling_interval
    );
    assert_eq!(
        u64::from_be_bytes(q[16..24].try_into().unwrap()),
        m.max_sampling_interval
    );
    assert_eq!(&q[24..40], &[0; 16], "TEAR/DEAR zero while disabled");
    assert_eq!(q[43], 0, "RIBM: sampling available");
    assert_eq!(u32::from_be_bytes(q[44..48].try_into().unwrap()), 4404);
    start(&s, &m, true, 0x20100);
    let q = s.qsi(&m);
    assert_eq!(&q[0..4], &[0, 3, 2, 2]);
    assert_eq!(u64::from_be_bytes(q[24..32].try_into().unwrap()), 0x10000);
    assert_eq!(u64::from_be_bytes(q[32..40].try_into().unwrap()), 0x20100);
}

#[test]
fn lsctl_state_machine_of_figure_2_12() {
    let m = model();
    let i = m.min_sampling_interval;
    let s = authorized();
    // disabled -> inactive: additional controls ignored (not loaded).
    let r = req(false, true, true, false, false, false, i, 0x10000, 0x20000);
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
    assert!(s.any_enabled() && !s.any_active());
    assert_eq!(s.tear(), 0);
    // inactive -> active loads them; active -> inactive keeps them.
    start(&s, &m, true, 0x20000);
    assert!(s.any_active());
    let r = req(false, true, true, false, false, false, 0, 0, 0);
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
    assert_eq!(
        (s.tear(), s.dear()),
        (0x10000, 0x20000),
        "preserved while inactive"
    );
    // -> disabled clears everything but the authorizations.
    let out = s.lsctl(&m, &[0; 64]).unwrap();
    assert_eq!(out.cc, Cc::Zero);
    assert_eq!(out.clear_alerts, AlertBits::CLEARED_WHEN_SAMPLING_DISABLED);
    assert_eq!((s.tear(), s.dear(), s.interval()), (0, 0, 0));
    assert_eq!(s.controls(), SamplingControls::AS | SamplingControls::AD);
    // Activation without enable is invalid: cc 3.
    let r = req(false, false, false, false, true, false, i, 0, 0);
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Three);
    // All or nothing: diagnostic unauthorized, basic would be fine.
    s.set_authorization(true, false);
    let r = req(false, false, true, true, true, true, i, 0x10000, 0x20000);
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Three);
    assert!(!s.any_enabled());
    // Unauthorized and zeros: same state, cc 0.
    let u = CpuSampling::new();
    assert_eq!(u.lsctl(&m, &[0; 64]).unwrap().cc, Cc::Zero);
    let r = req(false, false, true, false, false, false, i, 0, 0);
    assert_eq!(u.lsctl(&m, &r).unwrap().cc, Cc::Three);
}

#[test]
fn lsctl_specification_exceptions() {
    let m = model();
    let s = authorized();
    for bit in (2..54).chain(56..62) {
        let mut r = req(
            false,
            false,
            true,
            false,
            true,
            false,
            m.min_sampling_interval,
            0x10000,
            0x20000,
        );
        r[bit / 8] |= 0x80 >> (bit % 8);
        assert_eq!(
            s.lsctl(&m, &r),
            Err(ProgramException::Specification),
            "bit {bit}"
        );
    }
    for i in [0, m.min_sampling_interval - 1, m.max_sampling_interval + 1] {
        let r = req(false, false, true, false, true, false, i, 0x10000, 0x20000);
        assert_eq!(
            s.lsctl(&m, &r),
            Err(ProgramException::Specification),
            "interval {i}"
        );
        assert!(!s.any_enabled(), "nothing changed");
    }
    // The interval is not checked when nothing becomes active; bytes 32-63 are ignored.
    let mut r = req(false, false, true, false, false, false, 0, 0, 0);
    r[40] = 0xFF;
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
}

#[test]
fn basic_entries_are_stored_with_the_cpu_state() {
    let m = model();
    let st = ring();
    let s = authorized();
    start(&s, &m, true, 0x20000);
    let out = s.take_sample(&m, &st, &view(0x1234_5678), 0xABCD);
    assert!(out.stored && out.alerts.is_empty());
    let mut e = [0u8; 32];
    st.read(AbsAddr(0x20000), &mut e).unwrap();
    assert_eq!(&e[0..2], &[0x00, 0x01], "format 0001");
    assert_eq!(e[2] & 0x0F, 1, "U");
    assert_eq!(e[3], 0x20 | 0x08 | (2 << 1), "T, P, AS=2, W=0, I=0");
    // A z10: CL and H zero (the fields came with the z15's CFVN 3; SA23-2260 BSDE
    // programming note 6), whatever LSCTL's H says; LS 0.
    assert_eq!(e[4], 0, "CL=0, H=0, LS=0");
    assert_eq!(&e[6..8], &[0, 0x42], "primary ASN");
    assert_eq!(
        u64::from_be_bytes(e[8..16].try_into().unwrap()),
        0x1234_5678
    );
    assert_eq!(
        u64::from_be_bytes(e[16..24].try_into().unwrap()),
        0,
        "GPP with H=1"
    );
    assert_eq!(
        u64::from_be_bytes(e[24..32].try_into().unwrap()),
        0xABCD,
        "HPP with H=1"
    );
    assert_eq!(s.dear(), 0x20020);
    // H = 0: the program parameter goes to the guest field.
    let s0 = authorized();
    start(&s0, &m, false, 0x21000);
    s0.take_sample(&m, &st, &view(1), 0x77);
    st.read(AbsAddr(0x21000), &mut e).unwrap();
    assert_eq!(e[4], 0, "H=0");
    assert_eq!(u64::from_be_bytes(e[16..24].try_into().unwrap()), 0x77);
    assert_eq!(u64::from_be_bytes(e[24..32].try_into().unwrap()), 0);
}

#[test]
fn full_block_sets_f_timestamp_sizes_and_raises_pra_then_follows_the_table() {
    // A z196: its trailers carry STCKE timestamps (T = 1).
    let m = MachineModel::for_machine_type(0x2817);
    let st = ring();
    // Programming bytes 48-63 of the trailer must stay untouched.
    st.write(AbsAddr(0x20000 + 4096 - 16), &[0x5A; 16]).unwrap();
    let s = authorized();
    // One entry short of the trailer.
    start(&s, &m, true, 0x20000 + 4096 - 64 - 32);
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    let out = s.take_sample(&m, &st, &view(2), 0);
    assert_eq!(out.alerts, AlertBits::PROGRAM_REQUEST);
    assert!(out.stored, "stored in the next block");
    let mut t = [0u8; 64];
    st.read(AbsAddr(0x20000 + 4096 - 64), &mut t).unwrap();
    assert_eq!(t[0], 0x80 | 0x40 | 0x20, "F, A kept, T (STCKE)");
    assert_eq!(&t[4..8], &[0, 32, 0, 64], "BSDES, DSDES");
    assert_eq!(&t[8..16], &[0; 8], "no overflow");
    assert_eq!(
        &t[16..25],
        &[0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
    );
    assert_eq!(&t[48..64], &[0x5A; 16]);
    assert_eq!((s.tear(), s.dear()), (0x10008, 0x21020));
    // STCK format: the z10's (T = 0).
    let stck = model();
    let s2 = authorized();
    start(&s2, &stck, true, 0x21000 + 4096 - 64 - 32);
    s2.take_sample(&stck, &st, &view(1), 0);
    s2.take_sample(&stck, &st, &view(1), 0);
    st.read(AbsAddr(0x21000 + 4096 - 64), &mut t).unwrap();
    assert_eq!(t[0] & 0x20, 0, "T=0");
    assert_eq!(&t[16..24], &0x1122_3344_5566_7788u64.to_be_bytes());
}

#[test]
fn next_block_still_full_counts_overflow() {
    let m = model();
    let st = ring();
    st.write(AbsAddr(0x21000 + 4096 - 64), &[0x80 | 0x40])
        .unwrap();
    let s = authorized();
    start(&s, &m, true, 0x20000 + 4096 - 64 - 16); // no room for 32 bytes
    let out = s.take_sample(&m, &st, &view(1), 0);
    assert!(out.overflowed && !out.stored);
    assert_eq!(st.read_u64(AbsAddr(0x21000 + 4096 - 56)).unwrap(), 1);
    s.take_sample(&m, &st, &view(1), 0);
    assert_eq!(st.read_u64(AbsAddr(0x21000 + 4096 - 56)).unwrap(), 2);
}

#[test]
fn table_links_and_incorrect_entries() {
    let m = model();
    // The last entry (0x22000) is followed by a link back to the table origin.
    let st = ring();
    let s = authorized();
    let r = linux_basic(&m, 0x10010, 0x22000 + 4096 - 64 - 16);
    s.lsctl(&m, &r).unwrap();
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    assert_eq!(
        (s.tear(), s.dear()),
        (0x10000, 0x20020),
        "followed the table link"
    );
    // Link to a table whose first entry is a link: ISE, functions inactive.
    let st = ring();
    st.write_u64(AbsAddr(0x30000), 0x40000 | 1).unwrap();
    st.write_u64(AbsAddr(0x10018), 0x30000 | 1).unwrap();
    let s = authorized();
    let r = linux_basic(&m, 0x10010, 0x22000 + 4096 - 64 - 16);
    s.lsctl(&m, &r).unwrap();
    let out = s.take_sample(&m, &st, &view(1), 0);
    assert_eq!(
        out.alerts,
        AlertBits::INCORRECT_SDBT_ENTRY | AlertBits::PROGRAM_REQUEST
    );
    assert!(!s.any_active() && s.any_enabled());
    // Last entry of a 4-KB table is a block link: ISE.
    let st = MemStorage::new(0x100000);
    st.write_u64(AbsAddr(0x10FF8), 0x20000).unwrap();
    let s = authorized();
    let r = linux_basic(&m, 0x10FF0, 0x21000 + 4096 - 64 - 16);
    s.lsctl(&m, &r).unwrap();
    assert_eq!(
        s.take_sample(&m, &st, &view(1), 0).alerts,
        AlertBits::INCORRECT_SDBT_ENTRY
    );
}

#[test]
fn invalid_entry_addresses_of_every_kind() {
    let m = model();
    let cases: [(u64, u64, &str); 4] = [
        (0x10000, 0x1000, "SDB in 0-8191"),
        (0x10000, 0x20000 + 4096 - 48, "DEAR inside the trailer"),
        (0x10000, 0x200000, "SDB beyond main storage"),
        (0x1000, 0x20000 + 4096 - 64 - 16, "SDBT entry in 0-8191"),
    ];
    for (tear, dear, what) in cases {
        let st = ring();
        let s = authorized();
        let r = linux_basic(&m, tear, dear);
        s.lsctl(&m, &r).unwrap();
        let out = s.take_sample(&m, &st, &view(1), 0);
        assert!(
            out.alerts.contains(AlertBits::INVALID_ENTRY_ADDRESS),
            "{what}"
        );
        assert!(!s.any_active(), "{what}: functions inactive");
        assert_eq!(
            s.take_sample(&m, &st, &view(1), 0),
            SampleOutcome::default()
        );
    }
    // A table entry beyond main storage.
    let st = ring();
    st.write_u64(AbsAddr(0x10008), 0x7FF0_0000).unwrap();
    let s = authorized();
    start(&s, &m, true, 0x20000 + 4096 - 64 - 16);
    assert!(s
        .take_sample(&m, &st, &view(1), 0)
        .alerts
        .contains(AlertBits::INVALID_ENTRY_ADDRESS));
}

#[test]
fn combined_entries_are_never_split_and_1mb_blocks_work() {
    let m = model();
    let st = ring();
    let s = authorized();
    // Both functions: 96-byte entries; 64 bytes left before the trailer.
    let r = req(
        false,
        true,
        true,
        true,
        true,
        true,
        m.min_sampling_interval,
        0x10000,
        0x20000 + 4096 - 64 - 64,
    );
    s.lsctl(&m, &r).unwrap();
    let out = s.take_sample(&m, &st, &view(0x99), 0);
    assert!(out.stored);
    assert_eq!(s.dear(), 0x21000 + 96, "whole entry in the next block");
    let mut d = [0u8; 4];
    st.read(AbsAddr(0x21000 + 32), &mut d).unwrap();
    assert_eq!(&d[0..2], &[0x80, 0x01], "DSDE follows the BSDE");
    // 1-MB blocks: S = 1.
    let big = MemStorage::new(0x400000);
    big.write_u64(AbsAddr(0x10000), 0x100000).unwrap();
    big.write_u64(AbsAddr(0x10008), 0x200000).unwrap();
    big.write_u64(AbsAddr(0x10010), 0x10000 | 1).unwrap();
    let s = authorized();
    let r = req(
        true,
        true,
        true,
        false,
        true,
        false,
        m.min_sampling_interval,
        0x10000,
        0x100000 + (1 << 20) - 64 - 16,
    );
    s.lsctl(&m, &r).unwrap();
    assert!(s.take_sample(&m, &big, &view(1), 0).stored);
    assert_eq!(s.dear(), 0x200000 + 32);
    assert_eq!(
        big.read_u64(AbsAddr(0x100000 + (1 << 20) - 64)).unwrap() >> 56,
        0x80,
        "F; T = 0: the z10 stores STCK timestamps"
    );
}

/// Guest storage where another CPU's COMPARE DOUBLE AND SWAP lands on a trailer just before
/// the emulator's interlocked update of it (after the update process has read byte 0).
struct RacingStorage {
    mem: MemStorage,
    /// (trailer address, the program's CDSG: new bytes 0-15 from the old ones).
    cdsg: parking_lot::Mutex<Option<(u64, Cdsg)>>,
}

/// A program's COMPARE DOUBLE AND SWAP of trailer bytes 0-15: the new value from the old.
type Cdsg = fn([u8; 16]) -> [u8; 16];

impl GuestStorage for RacingStorage {
    fn size(&self) -> u64 {
        self.mem.size()
    }
    fn read(&self, addr: AbsAddr, buf: &mut [u8]) -> Result<(), crate::storage::StorageError> {
        self.mem.read(addr, buf)
    }
    fn write(&self, addr: AbsAddr, data: &[u8]) -> Result<(), crate::storage::StorageError> {
        self.mem.write(addr, data)
    }
    fn update16(
        &self,
        addr: AbsAddr,
        f: &mut dyn FnMut([u8; 16]) -> [u8; 16],
    ) -> Result<(), crate::storage::StorageError> {
        let pending = self.cdsg.lock().take();
        if let Some((at, cdsg)) = pending {
            if at == addr.0 {
                self.mem.update16(addr, &mut |t| cdsg(t))?;
            }
        }
        self.mem.update16(addr, f)
    }
}

/// Linux's reset of a trailer it has read out: F = 0, A = 1, overflow = 0, other bits kept.
fn linux_cdsg_reset(t: [u8; 16]) -> [u8; 16] {
    let mut h = TrailerHeader::decode(&t);
    h.flags -= TrailerFlags::F;
    h.flags |= TrailerFlags::A;
    h.overflow = 0;
    h.encode()
}

#[test]
fn a_block_freed_by_cdsg_during_the_update_is_used_not_counted_as_overflow() {
    // The current block 0x21000 is full (F = 1, 5 samples lost so far); DEAR is its origin,
    // where step 3 of the previous update left it. The program frees it with CDSG on another
    // CPU after this update read F = 1 but before the interlocked update: the sample belongs
    // in the freed block (step 2), and the count the program just reset stays zero.
    let m = model();
    let st = RacingStorage {
        mem: ring(),
        cdsg: parking_lot::Mutex::new(Some((0x21FC0, linux_cdsg_reset))),
    };
    st.write(
        AbsAddr(0x21FC0),
        &[0x80 | 0x40, 0, 0, 0, 0, 32, 0, 64, 0, 0, 0, 0, 0, 0, 0, 5],
    )
    .unwrap();
    let s = authorized();
    let r = linux_basic(&m, 0x10008, 0x21000);
    s.lsctl(&m, &r).unwrap();
    let out = s.take_sample(&m, &st, &view(0x4242), 0);
    assert!(out.stored && !out.overflowed, "{out:?}");
    let h = read_header(&st, 0x21FC0);
    assert_eq!(h.overflow, 0, "the program's reset is not undone");
    assert_eq!(h.flags, TrailerFlags::A);
    assert_eq!(Bsde::decode(&read(&st, 0x21000, 32)).unwrap().ia, 0x4242);
    assert_eq!(s.dear(), 0x21020);
}

#[test]
fn overflow_counts_survive_a_concurrent_cdsg() {
    // The program's CDSG of the alert bit (A = 0) lands right before step 1's increment; both
    // changes survive because bytes 0-15 are only changed interlocked.
    fn clear_a(t: [u8; 16]) -> [u8; 16] {
        let mut h = TrailerHeader::decode(&t);
        h.flags -= TrailerFlags::A;
        h.encode()
    }
    let m = model();
    let st = RacingStorage {
        mem: ring(),
        cdsg: parking_lot::Mutex::new(Some((0x21FC0, clear_a))),
    };
    st.write(
        AbsAddr(0x21FC0),
        &[0xC0, 0, 0, 0, 0, 32, 0, 64, 0, 0, 0, 0, 0, 0, 0, 7],
    )
    .unwrap();
    let s = authorized();
    let r = linux_basic(&m, 0x10008, 0x21000);
    s.lsctl(&m, &r).unwrap();
    let out = s.take_sample(&m, &st, &view(1), 0);
    assert!(out.overflowed && !out.stored);
    let h = read_header(&st, 0x21FC0);
    assert_eq!((h.flags, h.overflow), (TrailerFlags::F, 8));
}

fn read(st: &dyn GuestStorage, addr: u64, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    st.read(AbsAddr(addr), &mut b).unwrap();
    b
}

fn read_header(st: &dyn GuestStorage, trailer: u64) -> TrailerHeader {
    let mut b = [0u8; 16];
    st.read(AbsAddr(trailer), &mut b).unwrap();
    TrailerHeader::decode(&b)
}

#[test]
fn activation_without_enable_is_cc3_not_an_interval_check() {
    // E = 0, C = 1 is no valid state (Figure 2-11): the function is not "to be set to the
    // active state", so the interval is not examined and the request fails with cc 3.
    let m = model();
    let s = authorized();
    for (es, ed, cs, cd) in [
        (false, false, true, false),
        (false, false, false, true),
        (false, true, true, false),
    ] {
        let r = req(false, true, es, ed, cs, cd, 0, 0x10000, 0x20000);
        assert_eq!(
            s.lsctl(&m, &r).map(|o| o.cc),
            Ok(Cc::Three),
            "{es} {ed} {cs} {cd}"
        );
        assert_eq!(s.controls(), SamplingControls::AUTHORIZATIONS);
    }
    // With a valid activation of the other function the interval is examined first.
    let r = req(false, true, true, false, true, true, 0, 0x10000, 0x20000);
    assert_eq!(s.lsctl(&m, &r), Err(ProgramException::Specification));
}

// ---------------------------------------------------------------------------------------------
// LOAD SAMPLING CONTROLS against Figures 2-11 and 2-12, from every start state.
// ---------------------------------------------------------------------------------------------

/// Figure 2-12, written out row by row: the transitions LSCTL makes ("-*" included).
fn figure_2_12_by_lsctl(from: FunctionState, to: FunctionState) -> bool {
    use FunctionState::*;
    const ROWS: [(FunctionState, &[FunctionState]); 4] = [
        (Unauthorized, &[Unauthorized]),
        (Disabled, &[Disabled, Inactive, Active]),
        (Inactive, &[Disabled, Inactive, Active]),
        (Active, &[Disabled, Inactive, Active]),
    ];
    ROWS.iter().any(|(f, tos)| *f == from && tos.contains(&to))
}

/// Figure 2-11, written out: the state of A, E, C.
fn figure_2_11(a: bool, e: bool, c: bool) -> Option<FunctionState> {
    match (a, e, c) {
        (false, false, false) => Some(FunctionState::Unauthorized),
        (true, false, false) => Some(FunctionState::Disabled),
        (true, true, false) => Some(FunctionState::Inactive),
        (true, true, true) => Some(FunctionState::Active),
        _ => None,
    }
}

const STATES: [FunctionState; 4] = [
    FunctionState::Unauthorized,
    FunctionState::Disabled,
    FunctionState::Inactive,
    FunctionState::Active,
];

/// The (E, C) bits of a state.
fn ec(s: FunctionState) -> (bool, bool) {
    match s {
        FunctionState::Unauthorized | FunctionState::Disabled => (false, false),
        FunctionState::Inactive => (true, false),
        FunctionState::Active => (true, true),
    }
}

/// An interval inside the model's limits, different from the ones the tests request.
fn i0() -> u64 {
    model().min_sampling_interval + 3
}
const T0: u64 = 0x10000;
const D0: u64 = 0x20000;

/// A CPU with the basic function in `b` and the diagnostic function in `d`; whenever a function
/// is enabled the registers hold S = 1, H = 1, i0(), T0, D0 (loaded by an earlier activation).
fn in_states(m: &MachineModel, b: FunctionState, d: FunctionState) -> CpuSampling {
    let s = authorized();
    let all = req(true, true, true, true, true, true, i0(), T0, D0);
    assert_eq!(s.lsctl(m, &all).unwrap().cc, Cc::Zero);
    let ((es, cs), (ed, cd)) = (ec(b), ec(d));
    let r = req(false, false, es, ed, cs, cd, i0() + 1, T0 + 8, D0 + 8);
    // Only an active function loads the registers: make it load the same ones.
    let r = if cs || cd {
        req(true, true, es, ed, cs, cd, i0(), T0, D0)
    } else {
        r
    };
    assert_eq!(s.lsctl(m, &r).unwrap().cc, Cc::Zero);
    s.set_authorization(
        b != FunctionState::Unauthorized,
        d != FunctionState::Unauthorized,
    );
    assert_eq!(s.controls().state(SamplingFunction::Basic), Some(b));
    assert_eq!(s.controls().state(SamplingFunction::Diagnostic), Some(d));
    s
}

#[test]
fn every_start_state_times_every_lsctl_request_follows_the_figures() {
    let m = model();
    let i1 = m.min_sampling_interval + 7;
    let mut cases = 0;
    for b in STATES {
        for d in STATES {
            for bits in 0u8..16 {
                let (es, cs, ed, cd) = (bits & 8 != 0, bits & 4 != 0, bits & 2 != 0, bits & 1 != 0);
                let s = in_states(&m, b, d);
                let before = (s.controls(), s.interval(), s.tear(), s.dear());
                let r = req(false, false, es, ed, cs, cd, i1, 0x30000, 0x40000);
                let out = s.lsctl(&m, &r).unwrap();
                let what = format!("{b:?}/{d:?} <- Es{es} Cs{cs} Ed{ed} Cd{cd}");

                let a_s = b != FunctionState::Unauthorized;
                let a_d = d != FunctionState::Unauthorized;
                let to_b = figure_2_11(a_s, es, cs);
                let to_d = figure_2_11(a_d, ed, cd);
                let ok = to_b.is_some_and(|t| figure_2_12_by_lsctl(b, t))
                    && to_d.is_some_and(|t| figure_2_12_by_lsctl(d, t));
                if !ok {
                    assert_eq!(out.cc, Cc::Three, "{what}");
                    assert_eq!(
                        (s.controls(), s.interval(), s.tear(), s.dear()),
                        before,
                        "{what}: nothing set"
                    );
                    cases += 1;
                    continue;
                }
                assert_eq!(out.cc, Cc::Zero, "{what}");
                let c = s.controls();
                assert_eq!(c.state(SamplingFunction::Basic), to_b, "{what}");
                assert_eq!(c.state(SamplingFunction::Diagnostic), to_d, "{what}");
                let active =
                    to_b == Some(FunctionState::Active) || to_d == Some(FunctionState::Active);
                let enabled = es || ed;
                let q = QsiBlock::decode(&s.qsi(&m));
                if active {
                    // The additional controls of the request (S = 0, H = 0) are loaded.
                    assert_eq!(
                        (s.interval(), s.tear(), s.dear()),
                        (i1, 0x30000, 0x40000),
                        "{what}"
                    );
                    assert!(
                        !c.intersects(SamplingControls::S | SamplingControls::H),
                        "{what}"
                    );
                } else if enabled {
                    // Ignored; the controls are preserved (zeros if nothing was enabled).
                    assert_eq!(
                        (s.interval(), s.tear(), s.dear()),
                        (before.1, before.2, before.3),
                        "{what}"
                    );
                    let sh = SamplingControls::S | SamplingControls::H;
                    assert_eq!(c & sh, before.0 & sh, "{what}");
                } else {
                    // No function enabled: every control but the authorizations is zero.
                    assert_eq!((s.interval(), s.tear(), s.dear()), (0, 0, 0), "{what}");
                    assert_eq!(
                        c - SamplingControls::AUTHORIZATIONS,
                        SamplingControls::empty()
                    );
                }
                assert_eq!(
                    out.clear_alerts,
                    if enabled {
                        AlertBits::empty()
                    } else {
                        AlertBits::CLEARED_WHEN_SAMPLING_DISABLED
                    },
                    "{what}"
                );
                assert_eq!(q.controls, c - SamplingControls::S - SamplingControls::H);
                assert_eq!(
                    (q.tear.0, q.dear.0),
                    if enabled {
                        (s.tear(), s.dear())
                    } else {
                        (0, 0)
                    },
                    "{what}: QSI shows TEAR/DEAR only while enabled"
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 4 * 4 * 16);
}

#[test]
fn disabling_clears_only_the_sampling_alerts_that_the_document_names() {
    // IEA, ISE, PRA and LSDA are cleared when no function is enabled; SACA is not.
    assert_eq!(
        AlertBits::CLEARED_WHEN_SAMPLING_DISABLED,
        AlertBits::INVALID_ENTRY_ADDRESS
            | AlertBits::INCORRECT_SDBT_ENTRY
            | AlertBits::PROGRAM_REQUEST
            | AlertBits::LOSS_OF_SAMPLE_DATA
    );
    let m = model();
    let s = in_states(&m, FunctionState::Active, FunctionState::Inactive);
    // Disabling one function leaves the other enabled: nothing to clear yet.
    let r = req(false, false, false, true, false, false, 0, 0, 0);
    assert_eq!(s.lsctl(&m, &r).unwrap().clear_alerts, AlertBits::empty());
    let out = s.lsctl(&m, &[0; 64]).unwrap();
    assert_eq!(out.clear_alerts, AlertBits::CLEARED_WHEN_SAMPLING_DISABLED);
    assert!(!out.clear_alerts.contains(AlertBits::SAMPLING_AUTH_CHANGE));
}

#[test]
fn reserved_bits_are_specification_exceptions_from_every_state_and_change_nothing() {
    let m = model();
    for b in STATES {
        for d in STATES {
            for bit in (2..54).chain(56..62) {
                let s = in_states(&m, b, d);
                let before = (s.controls(), s.interval(), s.tear(), s.dear());
                // Otherwise a valid request (zeros for unauthorized functions).
                let (es, cs) = if b == FunctionState::Unauthorized {
                    (false, false)
                } else {
                    (true, true)
                };
                let mut r = req(
                    false,
                    false,
                    es,
                    false,
                    cs,
                    false,
                    m.min_sampling_interval,
                    0x30000,
                    0x40000,
                );
                r[bit / 8] |= 0x80 >> (bit % 8);
                assert_eq!(
                    s.lsctl(&m, &r),
                    Err(ProgramException::Specification),
                    "{b:?}/{d:?} bit {bit}"
                );
                assert_eq!((s.controls(), s.interval(), s.tear(), s.dear()), before);
            }
        }
    }
    // Bits 0, 1, 54, 55, 62, 63 and bytes 8-63 are not reserved.
    let s = authorized();
    let mut r = req(
        true,
        true,
        true,
        true,
        true,
        true,
        m.min_sampling_interval,
        0x30000,
        0x40000,
    );
    r[32..].fill(0xFF);
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero);
}

#[test]
fn interval_limits_are_inclusive_and_checked_only_for_activation() {
    let m = model();
    let (lo, hi) = (m.min_sampling_interval, m.max_sampling_interval);
    for (basic, diag) in [(true, false), (false, true), (true, true)] {
        for b in [
            FunctionState::Disabled,
            FunctionState::Inactive,
            FunctionState::Active,
        ] {
            for (i, ok) in [
                (0, false),
                (lo - 1, false),
                (lo, true),
                (hi, true),
                (hi + 1, false),
                (u64::MAX, false),
            ] {
                let s = in_states(&m, b, b);
                let before = (s.controls(), s.interval(), s.tear(), s.dear());
                let r = req(false, true, basic, diag, basic, diag, i, 0x30000, 0x40000);
                let res = s.lsctl(&m, &r);
                if ok {
                    assert_eq!(res.unwrap().cc, Cc::Zero);
                    assert_eq!(s.interval(), i);
                } else {
                    assert_eq!(res, Err(ProgramException::Specification), "{b:?} {i}");
                    assert_eq!(
                        (s.controls(), s.interval(), s.tear(), s.dear()),
                        before,
                        "no control changed"
                    );
                }
            }
        }
    }
    // Not examined when no function becomes active (enable only, disable, deactivate).
    for b in STATES {
        let s = in_states(&m, b, FunctionState::Disabled);
        let e = b != FunctionState::Unauthorized;
        let r = req(false, false, e, false, false, false, 0, 0, 0);
        assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Zero, "{b:?}");
    }
    // Nor for an unauthorized function asked to become active: that is cc 3.
    let s = in_states(&m, FunctionState::Unauthorized, FunctionState::Unauthorized);
    let r = req(false, false, true, true, true, true, 0, 0, 0);
    assert_eq!(s.lsctl(&m, &r).unwrap().cc, Cc::Three);
}

#[test]
fn authorization_changes_by_external_means() {
    let m = model();
    for b in STATES {
        for d in STATES {
            let s = in_states(&m, b, d);
            let enabled_b = matches!(b, FunctionState::Inactive | FunctionState::Active);
            let enabled_d = matches!(d, FunctionState::Inactive | FunctionState::Active);
            // Unauthorize basic only: SACA if it was enabled.
            let alert = s.set_authorization(false, d != FunctionState::Unauthorized);
            assert_eq!(
                alert.contains(AlertBits::SAMPLING_AUTH_CHANGE),
                enabled_b,
                "{b:?}/{d:?}"
            );
            assert_eq!(
                s.controls().state(SamplingFunction::Basic),
                Some(FunctionState::Unauthorized)
            );
            assert_eq!(s.controls().state(SamplingFunction::Diagnostic), Some(d));
            if enabled_d {
                assert_eq!(
                    (s.interval(), s.tear(), s.dear()),
                    (i0(), T0, D0),
                    "kept for diagnostic"
                );
            } else {
                assert_eq!((s.interval(), s.tear(), s.dear()), (0, 0, 0));
                assert!(!s
                    .controls()
                    .intersects(SamplingControls::S | SamplingControls::H));
            }
            // Authorizing again: unauthorized -> disabled.
            assert_eq!(s.set_authorization(true, true), AlertBits::empty());
            assert_eq!(
                s.controls().state(SamplingFunction::Basic),
                Some(FunctionState::Disabled)
            );
        }
    }
}

#[test]
fn resets_and_loss_of_sample_data() {
    let m = model();
    for b in STATES {
        for d in STATES {
            // CPU reset and loss of sample data: active -> inactive, registers kept.
            for how in 0..3 {
                let s = in_states(&m, b, d);
                let regs = (s.interval(), s.tear(), s.dear());
                let deact = |x: FunctionState| {
                    if x == FunctionState::Active {
                        FunctionState::Inactive
                    } else {
                        x
                    }
                };
                match how {
                    0 => s.cpu_reset(),
                    1 => s.loss_of_sample_data(),
                    _ => {
                        // Initial CPU reset: enabled functions become disabled.
                        s.initial_cpu_reset();
                        let dis = |x: FunctionState| {
                            if x == FunctionState::Unauthorized {
                                x
                            } else {
                                FunctionState::Disabled
                            }
                        };
                        assert_eq!(s.controls().state(SamplingFunction::Basic), Some(dis(b)));
                        assert_eq!(
                            s.controls().state(SamplingFunction::Diagnostic),
                            Some(dis(d))
                        );
                        assert_eq!((s.interval(), s.tear(), s.dear()), (0, 0, 0));
                        assert_eq!(
                            s.controls() - SamplingControls::AUTHORIZATIONS,
                            SamplingControls::empty()
                        );
                        continue;
                    }
                }
                assert_eq!(s.controls().state(SamplingFunction::Basic), Some(deact(b)));
                assert_eq!(
                    s.controls().state(SamplingFunction::Diagnostic),
                    Some(deact(d))
                );
                assert_eq!((s.interval(), s.tear(), s.dear()), regs);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The update process, step by step (SA23-2260, Process Steps).
// ---------------------------------------------------------------------------------------------

/// Active functions with TEAR `tear` and DEAR `dear`.
fn active(
    m: &MachineModel,
    s_bit: bool,
    basic: bool,
    diag: bool,
    tear: u64,
    dear: u64,
) -> CpuSampling {
    let s = authorized();
    let r = req(
        s_bit,
        true,
        basic,
        diag,
        basic,
        diag,
        m.min_sampling_interval,
        tear,
        dear,
    );
    assert_eq!(s.lsctl(m, &r).unwrap().cc, Cc::Zero);
    s
}

fn block_link(sdb: u64) -> u64 {
    SdbtEntry::BlockLink { sdb: AbsAddr(sdb) }.encode()
}

fn table_link(sdbt: u64) -> u64 {
    SdbtEntry::TableLink {
        sdbt: AbsAddr(sdbt),
    }
    .encode()
}

fn put_table(st: &dyn GuestStorage, at: u64, entries: &[u64]) {
    for (i, e) in entries.iter().enumerate() {
        st.write_u64(AbsAddr(at + 8 * i as u64), *e).unwrap();
    }
}

/// Every byte that differs between two snapshots lies in one of the `[from, to)` ranges.
fn assert_changes_within(before: &[u8], after: &[u8], allowed: &[(u64, u64)]) {
    for (i, (x, y)) in before.iter().zip(after).enumerate() {
        let a = i as u64;
        if x != y && !allowed.iter().any(|&(f, t)| (f..t).contains(&a)) {
            panic!("byte {a:#x} changed ({x:#04x} -> {y:#04x}); allowed {allowed:x?}");
        }
    }
}

#[test]
fn step_2_fills_a_block_entry_by_entry_up_to_the_trailer() {
    let m = model();
    let st = ring();
    let s = active(&m, false, true, false, 0x10000, 0x20000);
    let before = st.snapshot();
    for k in 0..126u64 {
        let out = s.take_sample(&m, &st, &view(k), 0);
        assert!(
            out.stored && !out.overflowed && out.alerts.is_empty(),
            "entry {k}"
        );
        assert_eq!(s.dear(), 0x20000 + 32 * (k + 1));
    }
    // 126 entries of 32 bytes end exactly at the trailer; nothing else changed.
    assert_eq!(s.dear(), 0x20FC0);
    assert_changes_within(&before, &st.snapshot(), &[(0x20000, 0x20FC0)]);
    assert_eq!(s.tear(), 0x10000, "TEAR moves only in step 3");
    // DEAR at the trailer's first byte: the next sample finds the block full (step 3).
    let out = s.take_sample(&m, &st, &view(999), 0);
    assert!(out.stored && out.alerts == AlertBits::PROGRAM_REQUEST);
    assert_eq!((s.tear(), s.dear()), (0x10008, 0x21020));
    assert!(read_header(&st, 0x20FC0).flags.contains(TrailerFlags::F));
}

#[test]
fn step_1_counts_the_lost_sample_and_changes_nothing_else() {
    let m = model();
    let st = ring();
    st.write(AbsAddr(0x20FC0), &[0x80 | 0x40 | 0x20]).unwrap();
    st.write_u64(AbsAddr(0x20FC8), u64::MAX).unwrap();
    let s = active(&m, false, true, true, 0x10000, 0x20000);
    let before = st.snapshot();
    let out = s.take_sample(&m, &st, &view(1), 0);
    assert_eq!(
        out,
        SampleOutcome {
            alerts: AlertBits::empty(),
            stored: false,
            overflowed: true
        }
    );
    // The count wraps: "a carry out of bit position zero of the count, if any, is ignored".
    assert_eq!(read_header(&st, 0x20FC0).overflow, 0);
    assert_changes_within(&before, &st.snapshot(), &[(0x20FC8, 0x20FD0)]);
    assert_eq!(
        (s.tear(), s.dear()),
        (0x10000, 0x20000),
        "registers unchanged"
    );
    let out = s.take_sample(&m, &st, &view(1), 0);
    assert!(out.overflowed);
    assert_eq!(read_header(&st, 0x20FC0).overflow, 1);
}

#[test]
fn step_3_sets_f_t_sizes_timestamp_and_leaves_the_rest_of_the_trailer() {
    for stcke in [false, true] {
        for a in [false, true] {
            let mut m = model();
            m.trailer_timestamp = if stcke {
                TrailerTimestamp::Stcke
            } else {
                TrailerTimestamp::Stck
            };
            let st = ring();
            // Trailer of 0x20000: reserved bits and bytes set, T opposite to the model's.
            let mut t = [0x5Au8; 64];
            t[0] = if a { 0x40 } else { 0 } | if stcke { 0 } else { 0x20 } | 0x17;
            t[8..16].copy_from_slice(&41u64.to_be_bytes());
            st.write(AbsAddr(0x20FC0), &t).unwrap();
            let s = active(&m, false, true, false, 0x10000, 0x20FC0 - 16);
            let out = s.take_sample(&m, &st, &view(1), 0);
            assert!(out.stored);
            assert_eq!(
                out.alerts.contains(AlertBits::PROGRAM_REQUEST),
                a,
                "PRA iff A = 1"
            );
            let mut n = [0u8; 64];
            st.read(AbsAddr(0x20FC0), &mut n).unwrap();
            let h = TrailerHeader::decode(&n[..16].try_into().unwrap());
            assert!(h.flags.contains(TrailerFlags::F));
            assert_eq!(h.flags.contains(TrailerFlags::A), a, "A is the program's");
            assert_eq!(h.flags.contains(TrailerFlags::T), stcke);
            assert_eq!(h.flags.bits() & 0x1F, 0x17, "reserved bits 3-7 unchanged");
            assert_eq!(&n[1..4], &[0x5A; 3], "bytes 1-3 unchanged");
            assert_eq!((h.bsdes, h.dsdes), (m.bsdes, m.dsdes));
            assert_eq!(h.overflow, 41, "overflow count kept");
            if stcke {
                // STCKE: epoch index 0, TOD bits 0-63, then zeros.
                assert_eq!(n[16], 0);
                assert_eq!(&n[17..25], &view(1).tod.to_be_bytes());
                assert_eq!(&n[25..32], &[0; 7]);
            } else {
                assert_eq!(&n[16..24], &view(1).tod.to_be_bytes());
                assert_eq!(&n[24..32], &[0x5A; 8], "bytes 24-31 reserved with T = 0");
            }
            assert_eq!(&n[32..64], &[0x5A; 32], "bytes 32-63 unchanged");
        }
    }
}

#[test]
fn step_3b1_next_block_link() {
    let m = model();
    let st = ring();
    let s = active(&m, false, true, false, 0x10000, 0x20FC0);
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    assert_eq!((s.tear(), s.dear()), (0x10008, 0x21020));
}

#[test]
fn step_3b2_table_link_before_the_end_then_3a2y() {
    // A table link in mid table (not the last entry before the boundary) is followed.
    let m = model();
    let st = ring();
    put_table(&st, 0x10000, &[block_link(0x20000), table_link(0x12000)]);
    put_table(&st, 0x12000, &[block_link(0x22000), table_link(0x10000)]);
    let s = active(&m, false, true, false, 0x10000, 0x20FC0);
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    assert_eq!((s.tear(), s.dear()), (0x12000, 0x22020));
}

#[test]
fn step_3b2_then_3a2x_link_to_a_link() {
    let m = model();
    for target in [0x10000u64, 0x12000] {
        // To a table whose first entry links to another table, or to itself.
        let st = ring();
        put_table(&st, 0x10000, &[block_link(0x20000), table_link(0x12000)]);
        put_table(&st, 0x12000, &[table_link(target)]);
        let s = active(&m, false, true, false, 0x10000, 0x20FC0);
        let out = s.take_sample(&m, &st, &view(1), 0);
        assert_eq!(
            out.alerts,
            AlertBits::INCORRECT_SDBT_ENTRY | AlertBits::PROGRAM_REQUEST,
            "{target:#x}"
        );
        assert!(!out.stored && !out.overflowed);
        assert!(!s.any_active() && s.any_enabled(), "active -> inactive");
        assert_eq!(
            s.take_sample(&m, &st, &view(1), 0),
            SampleOutcome::default()
        );
    }
}

#[test]
fn step_3a_last_entry_before_the_4k_boundary() {
    let m = model();
    // 3.a.2 -> y: the last entry (0x10FF8) is a table link.
    let st = ring();
    put_table(&st, 0x10FF0, &[block_link(0x20000), table_link(0x12000)]);
    put_table(&st, 0x12000, &[block_link(0x22000), table_link(0x10FF0)]);
    let s = active(&m, false, true, false, 0x10FF0, 0x20FC0);
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    assert_eq!((s.tear(), s.dear()), (0x12000, 0x22020));
    // 3.a.1: the last entry is a block link.
    let st = ring();
    put_table(&st, 0x10FF0, &[block_link(0x20000), block_link(0x21000)]);
    let s = active(&m, false, true, false, 0x10FF0, 0x20FC0);
    let before = st.snapshot();
    let out = s.take_sample(&m, &st, &view(1), 0);
    assert_eq!(
        out.alerts,
        AlertBits::INCORRECT_SDBT_ENTRY | AlertBits::PROGRAM_REQUEST
    );
    assert!(!s.any_active());
    // Only the filled block's trailer bytes 0-31 changed.
    assert_changes_within(&before, &st.snapshot(), &[(0x20FC0, 0x20FE0)]);
    // 3.a.2.x: the last entry links to a link.
    let st = ring();
    put_table(&st, 0x10FF0, &[block_link(0x20000), table_link(0x12000)]);
    put_table(&st, 0x12000, &[table_link(0x10000)]);
    let s = active(&m, false, true, false, 0x10FF0, 0x20FC0);
    assert!(s
        .take_sample(&m, &st, &view(1), 0)
        .alerts
        .contains(AlertBits::INCORRECT_SDBT_ENTRY));
}

// ---------------------------------------------------------------------------------------------
// Invalid entry addresses, 1 MB blocks, combined entries.
// ---------------------------------------------------------------------------------------------

/// Run one update that must end in an invalid-entry-address alert: the active functions become
/// inactive (still enabled), nothing but `allowed` changes, and no later update does anything.
fn expect_iea(what: &str, st: &MemStorage, s: &CpuSampling, allowed: &[(u64, u64)]) {
    let m = model();
    let before = st.snapshot();
    let out = s.take_sample(&m, st, &view(1), 0);
    assert!(
        out.alerts.contains(AlertBits::INVALID_ENTRY_ADDRESS),
        "{what}: {out:?}"
    );
    assert!(
        !out.alerts.contains(AlertBits::INCORRECT_SDBT_ENTRY),
        "{what}"
    );
    assert!(!out.stored && !out.overflowed, "{what}");
    assert!(
        !s.any_active() && s.any_enabled(),
        "{what}: active -> inactive"
    );
    assert_changes_within(&before, &st.snapshot(), allowed);
    let after = st.snapshot();
    assert_eq!(
        s.take_sample(&m, st, &view(1), 0),
        SampleOutcome::default(),
        "{what}"
    );
    assert_eq!(st.snapshot(), after, "{what}");
}

#[test]
fn invalid_data_entry_addresses() {
    let m = model();
    // 0-8191, including an entry that would start at 8184 and a block at 4096.
    for dear in [0u64, 0x10, 0x1000, 0x1FC0, 0x1FE0, 0x1FF8] {
        let st = ring();
        let s = active(&m, false, true, false, 0x10000, dear);
        expect_iea(&format!("DEAR {dear:#x}"), &st, &s, &[]);
    }
    // 8192 itself is valid.
    let st = ring();
    let s = active(&m, false, true, false, 0x10000, 0x2000);
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    // Inside the trailer: every byte after its first.
    for off in 1..64u64 {
        let st = ring();
        let s = active(&m, false, true, false, 0x10000, 0x20FC0 + off);
        expect_iea(&format!("trailer + {off}"), &st, &s, &[]);
    }
    // Beyond main storage (1 MB): the block, and a block whose trailer is the first
    // unavailable byte.
    for dear in [0x100000u64, 0x7FFF_F000, u64::MAX - 0xFFF] {
        let st = ring();
        let s = active(&m, false, true, false, 0x10000, dear);
        expect_iea(&format!("DEAR {dear:#x}"), &st, &s, &[]);
    }
    let st = MemStorage::new(0x20FC0);
    let s = active(&m, false, true, false, 0x10000, 0x20000);
    expect_iea("trailer beyond storage", &st, &s, &[]);
}

#[test]
fn invalid_table_and_link_addresses() {
    let m = model();
    // Each case: after block 0x20000 fills (its trailer bytes 0-31 may change), the next entry
    // or what it designates is invalid.
    let filled = [(0x20FC0u64, 0x20FE0u64)];
    // (what, TEAR, doublewords to store before the update)
    type Patch<'a> = &'a [(u64, u64)];
    let cases: [(&str, u64, Patch); 8] = [
        // TEAR + 8 in 0-8191.
        ("SDBT entry in 0-8191", 0x1FF0, &[]),
        // TEAR + 8 beyond main storage.
        ("SDBT entry beyond storage", 0xFFFF8, &[]),
        ("block link to 0", 0x10000, &[(0x10008, block_link(0))]),
        (
            "block link to 4096",
            0x10000,
            &[(0x10008, block_link(0x1000))],
        ),
        (
            "block link beyond storage",
            0x10000,
            &[(0x10008, block_link(0x200000))],
        ),
        (
            "table link to 0-8191",
            0x10000,
            &[(0x10008, table_link(0x1000))],
        ),
        (
            "table link beyond storage",
            0x10000,
            &[(0x10008, table_link(0x7000_0000))],
        ),
        (
            "table link to a block link to 0-8191",
            0x10000,
            &[
                (0x10008, table_link(0x12000)),
                (0x12000, block_link(0x1000)),
            ],
        ),
    ];
    for (what, tear, patch) in cases {
        let st = ring();
        for &(at, v) in patch {
            st.write_u64(AbsAddr(at), v).unwrap();
        }
        let s = active(&m, false, true, false, tear, 0x20FC0);
        expect_iea(what, &st, &s, &filled);
    }
}

#[test]
fn one_megabyte_blocks() {
    let m = model();
    let st = MemStorage::new(0x500000);
    // A table ending at a 1 MB boundary, with a block link at 0x10FF8 (not last with S = 1).
    put_table(
        &st,
        0x1FFFE0,
        &[
            block_link(0x100000),
            block_link(0x200000),
            block_link(0x300000),
            table_link(0x10FF0),
        ],
    );
    put_table(
        &st,
        0x10FF0,
        &[block_link(0x400000), block_link(0x0), table_link(0x1FFFE0)],
    );
    let s = active(&m, true, true, false, 0x1FFFE0, 0x100000);
    // A 1 MB block holds (1M - 64) / 32 = 32766 entries.
    for _ in 0..32766 {
        assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    }
    assert_eq!(s.dear(), 0x1FFFC0);
    assert!(s.take_sample(&m, &st, &view(2), 0).stored);
    assert_eq!((s.tear(), s.dear()), (0x1FFFE8, 0x200020));
    let h = read_header(&st, 0x1FFFC0);
    assert!(h.flags.contains(TrailerFlags::F));
    // Block-link bits 44-62 are ignored: 0x2FFFFE designates 0x200000.
    st.write_u64(AbsAddr(0x1FFFF0), 0x3F_FFFE).unwrap();
    let s = active(&m, true, true, false, 0x1FFFE8, 0x2FFFC0);
    assert!(s.take_sample(&m, &st, &view(3), 0).stored);
    assert_eq!((s.tear(), s.dear()), (0x1FFFF0, 0x300020));
    // 0x1FFFF8 is the last entry before the boundary: the table link is followed to 0x10FF0,
    // whose entries are not last with S = 1 even at 0x10FF8.
    let s = active(&m, true, true, false, 0x1FFFF0, 0x3FFFC0);
    assert!(s.take_sample(&m, &st, &view(4), 0).stored);
    assert_eq!((s.tear(), s.dear()), (0x10FF0, 0x400020));
    // The next entry (0x10FF8) designates block 0: DEAR 0 is invalid, no byte in the low 8 KB
    // is touched.
    let s = active(&m, true, true, false, 0x10FF0, 0x4FFFC0);
    let before = st.snapshot();
    let out = s.take_sample(&m, &st, &view(5), 0);
    assert_eq!(out.alerts, AlertBits::INVALID_ENTRY_ADDRESS);
    assert_changes_within(&before, &st.snapshot(), &[(0x4FFFC0, 0x4FFFE0)]);
    // With S = 1 a block at origin 0 is usable above 8191; its trailer is at 1 MB - 64.
    let s = active(&m, true, true, false, 0x10FF0, 0x2000);
    let before = st.snapshot();
    assert!(s.take_sample(&m, &st, &view(6), 0).stored);
    assert_changes_within(&before, &st.snapshot(), &[(0x2000, 0x2020)]);
    // DEAR inside a 1 MB block's trailer.
    let s = active(&m, true, true, false, 0x10FF0, 0x1FFFC8);
    expect_iea("1 MB trailer", &st, &s, &[]);
    // The last entry before a 1 MB boundary as a block link: incorrect.
    put_table(&st, 0x2FFFF0, &[block_link(0x100000), block_link(0x200000)]);
    st.write(AbsAddr(0x4FFFC0), &[0]).unwrap();
    let s = active(&m, true, true, false, 0x2FFFF0, 0x4FFFC0);
    assert_eq!(
        s.take_sample(&m, &st, &view(7), 0).alerts,
        AlertBits::INCORRECT_SDBT_ENTRY
    );
}

#[test]
fn combined_entries_at_the_end_of_a_block() {
    let m = model();
    let size = u64::from(m.bsdes + m.dsdes);
    for (room, next_full) in [
        (size, false),
        (size - 1, false),
        (size - 8, true),
        (0, false),
        (0, true),
        (32, true),
    ] {
        let st = ring();
        if next_full {
            st.write(AbsAddr(0x21FC0), &[0x80]).unwrap();
        }
        let dear = 0x20FC0 - room;
        let s = active(&m, false, true, true, 0x10000, dear);
        let before = st.snapshot();
        let out = s.take_sample(&m, &st, &view(0x77), 0);
        let what = format!("room {room}, next full {next_full}");
        if room >= size {
            // Fits exactly: stored in the current block, which is not yet full.
            assert!(out.stored, "{what}");
            assert_eq!(s.dear(), 0x20FC0);
            assert_changes_within(&before, &st.snapshot(), &[(dear, dear + size)]);
            continue;
        }
        // Never split: the current block becomes full and the whole entry goes to the next.
        assert!(
            read_header(&st, 0x20FC0).flags.contains(TrailerFlags::F),
            "{what}"
        );
        assert_eq!(s.tear(), 0x10008);
        if next_full {
            // Discarded: the next block's overflow count goes up by one, once.
            assert!(out.overflowed && !out.stored, "{what}");
            assert_eq!(read_header(&st, 0x21FC0).overflow, 1, "{what}");
            assert_eq!(s.dear(), 0x21000);
            assert_changes_within(
                &before,
                &st.snapshot(),
                &[(0x20FC0, 0x20FE0), (0x21FC8, 0x21FD0)],
            );
        } else {
            assert!(out.stored, "{what}");
            assert_eq!(s.dear(), 0x21000 + size);
            let mut e = vec![0u8; size as usize];
            st.read(AbsAddr(0x21000), &mut e).unwrap();
            assert_eq!(Bsde::decode(&e).unwrap().ia, 0x77);
            assert_eq!(
                Dsde::decode(&e[32..]).unwrap(),
                diagnostic_entry(&view(0x77))
            );
            assert_changes_within(
                &before,
                &st.snapshot(),
                &[(0x20FC0, 0x20FE0), (0x21000, 0x21000 + size)],
            );
        }
    }
    // Diagnostic only: 64-byte entries.
    let st = ring();
    let s = active(&m, false, false, true, 0x10000, 0x20FC0 - 63);
    assert!(s.take_sample(&m, &st, &view(1), 0).stored);
    assert_eq!(s.dear(), 0x21000 + u64::from(m.dsdes));
}

// ---------------------------------------------------------------------------------------------
// Randomized layouts.
// ---------------------------------------------------------------------------------------------

/// Knuth's MMIX linear congruential generator; the high bits are the usable ones.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 16
    }
    /// 64 random bits.
    fn word(&mut self) -> u64 {
        (self.next() << 32) ^ self.next()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn percent(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
}

/// Outcomes seen over the whole randomized run.
#[derive(Debug, Default)]
struct Seen {
    stored: u32,
    overflowed: u32,
    iea: u32,
    ise: u32,
    pra: u32,
    new_block: u32,
}

/// A random layout: storage (sometimes not a whole number of blocks), garbage everywhere
/// (random trailer flags and counts), the low 8 KB marked, a few tables of random length at
/// random places (some ending at a boundary) whose entries designate random blocks (some in
/// 0-8191 or beyond storage) and tables (some at links), mostly ending in a table link.
fn random_layout(rng: &mut Lcg, bs: BufferSize) -> (MemStorage, Vec<u64>) {
    let blocks = if bs.s() { 3 } else { 48 };
    let mut size = blocks * bs.bytes();
    if rng.percent(20) {
        size -= 2048; // the last block's trailer is not available
    }
    let st = MemStorage::new(size as usize);
    let mut fill = vec![0u8; size as usize];
    for chunk in fill.chunks_mut(8) {
        let v = rng.word().to_be_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    fill[..8192].fill(0xA5);
    st.write(AbsAddr(0), &fill).unwrap();
    let block = |rng: &mut Lcg| -> u64 {
        match rng.below(20) {
            0 => 0,
            1 => 0x1000,
            2 => size + rng.below(4) * bs.bytes(),
            _ => rng.below(blocks) * bs.bytes() + rng.below(bs.bytes()) * rng.below(2),
        }
    };
    let ntables = 1 + rng.below(4);
    let mut origins = vec![];
    for _ in 0..ntables {
        let len = 1 + rng.below(8);
        let origin = if rng.percent(30) {
            // Ends at a boundary of the maximum buffer size.
            let b = 1 + rng.below(blocks - 1);
            b * bs.bytes() - 8 * len
        } else {
            (0x2000 + rng.below(size - 0x2000 - 8 * len)) & !0xF
        };
        origins.push(origin & !0xF);
    }
    let mut entries = vec![];
    for &o in &origins {
        let len = 1 + rng.below(8);
        for i in 0..len {
            let at = o + 8 * i;
            if at + 8 > size {
                break;
            }
            let last = i + 1 == len;
            let link = if last {
                rng.percent(90)
            } else {
                rng.percent(10)
            };
            let v = if link {
                let t = origins[rng.below(origins.len() as u64) as usize];
                if rng.percent(10) {
                    table_link(t + 8 * rng.below(3)) // maybe at a link, maybe mid table
                } else {
                    table_link(t)
                }
            } else {
                block_link(block(rng)) | (rng.below(2) << 3) // ignored bits set sometimes
            };
            st.write_u64(AbsAddr(at), v).unwrap();
            entries.push(at);
        }
    }
    (st, entries)
}

#[test]
fn randomized_layouts_each_sample_ends_one_way_and_writes_only_what_it_may() {
    let mut rng = Lcg(0x5EED_CAFE_F00D_0001);
    let mut seen = Seen::default();
    let mut m = model();
    for iteration in 0..160 {
        let bs = BufferSize::from_s(rng.percent(15));
        let (st, entries) = random_layout(&mut rng, bs);
        let size = st.size();
        m.trailer_timestamp = if rng.percent(50) {
            TrailerTimestamp::Stcke
        } else {
            TrailerTimestamp::Stck
        };
        let (basic, diag) = match rng.below(3) {
            0 => (true, false),
            1 => (false, true),
            _ => (true, true),
        };
        let esize = u64::from(if basic { m.bsdes } else { 0 } + if diag { m.dsdes } else { 0 });
        let tear = if rng.percent(90) {
            entries[rng.below(entries.len() as u64) as usize]
        } else {
            rng.below(size + 0x1000)
        };
        let origin = rng.below(size / bs.bytes() + 1) * bs.bytes();
        let off = if rng.percent(60) {
            bs.trailer_offset().saturating_sub(rng.below(4 * esize))
        } else {
            rng.below(bs.bytes())
        };
        let off = if rng.percent(80) { off & !7 } else { off };
        let s = active(&m, bs.s(), basic, diag, tear, origin + off);
        let samples = if bs.s() { 12 } else { 40 };
        for k in 0..samples {
            let what = format!("iteration {iteration} sample {k}");
            // The program frees the current block now and then (CDSG: F = 0, count 0).
            if rng.percent(15) {
                if let Ok(slot) = Dear(s.dear()).check(bs) {
                    let _ = st.update16(slot.trailer, &mut linux_cdsg_reset);
                }
            }
            let before = st.snapshot();
            let dear0 = Dear(s.dear());
            let was_active = s.any_active();
            let v = view(rng.word());
            let pp = rng.word();
            let out = s.take_sample(&m, &st, &v, pp);
            let after = st.snapshot();
            if !was_active {
                assert_eq!(out, SampleOutcome::default(), "{what}");
                assert!(before == after, "{what}: inactive functions store nothing");
                continue;
            }
            // Exactly one way: stored, counted as overflow, or ended by an alert.
            let fatal = out
                .alerts
                .intersects(AlertBits::INVALID_ENTRY_ADDRESS | AlertBits::INCORRECT_SDBT_ENTRY);
            let ways = u32::from(out.stored) + u32::from(out.overflowed) + u32::from(fatal);
            assert_eq!(ways, 1, "{what}: {out:?}");
            assert_eq!(
                s.any_active(),
                !fatal,
                "{what}: alerts make the functions inactive"
            );
            assert!(s.any_enabled(), "{what}");
            let dear1 = Dear(s.dear());
            // What may change: the stored entry and bytes 0-31 of the trailers of the block
            // DEAR was in and of the block it moved to.
            let mut allowed = vec![];
            for d in [dear0, dear1] {
                if let Ok(slot) = d.check(bs) {
                    allowed.push((slot.trailer.0, slot.trailer.0 + 32));
                }
            }
            if out.stored {
                let at = dear1.0 - esize;
                allowed.push((at, dear1.0));
                let expect = super::entry::data_entry(&m, &v, 1, basic, diag, pp, true);
                assert_eq!(&after[at as usize..dear1.0 as usize], &expect[..], "{what}");
                seen.stored += 1;
            }
            assert_changes_within(&before, &after, &allowed);
            assert!(before[..8192] == after[..8192], "{what}: low 8 KB changed");
            if dear1.block_origin(bs) != dear0.block_origin(bs) {
                // A new block is one the current SDBT entry designates.
                seen.new_block += 1;
                let e = SdbtEntry::decode(
                    u64::from_be_bytes(
                        after[s.tear() as usize..s.tear() as usize + 8]
                            .try_into()
                            .unwrap(),
                    ),
                    bs,
                );
                assert_eq!(
                    e,
                    SdbtEntry::BlockLink {
                        sdb: dear1.block_origin(bs)
                    },
                    "{what}"
                );
            }
            if out.overflowed {
                let slot = dear1.check(bs).unwrap();
                let t = slot.trailer.0 as usize;
                let old = TrailerHeader::decode(&before[t..t + 16].try_into().unwrap());
                let new = TrailerHeader::decode(&after[t..t + 16].try_into().unwrap());
                assert!(new.flags.contains(TrailerFlags::F), "{what}");
                assert_eq!(new.overflow, old.overflow.wrapping_add(1), "{what}");
                seen.overflowed += 1;
            }
            if out.alerts.contains(AlertBits::PROGRAM_REQUEST) {
                // The block DEAR was in became full with A = 1.
                let t = dear0.check(bs).unwrap().trailer.0 as usize;
                let h = TrailerHeader::decode(&after[t..t + 16].try_into().unwrap());
                assert!(
                    h.flags.contains(TrailerFlags::F | TrailerFlags::A),
                    "{what}"
                );
                assert_eq!(h.flags.contains(TrailerFlags::T), m.stcke_timestamps());
                seen.pra += 1;
            }
            seen.iea += u32::from(out.alerts.contains(AlertBits::INVALID_ENTRY_ADDRESS));
            seen.ise += u32::from(out.alerts.contains(AlertBits::INCORRECT_SDBT_ENTRY));
        }
    }
    // The layouts reach every outcome.
    assert!(
        seen.stored > 100
            && seen.overflowed > 10
            && seen.iea > 10
            && seen.ise > 3
            && seen.pra > 10
            && seen.new_block > 10,
        "{seen:?}"
    );
}

//! Data entries (SA23-2260, "Data Entry", "Basic-Sampling Data Entry", "Diagnostic-Sampling
//! Data Entry", "Combined-Sampling Data Entry"): what the CPU's state at the sampling point
//! puts into the basic-sampling data entry (BSDE) of format 0001 and the emulator's
//! diagnostic-sampling data entry (DSDE) of format 8001. Their byte layouts are the codec's,
//! `hcpumf_formats::sdb`.

use crate::cpu::CpuView;
use crate::model::MachineModel;

pub use hcpumf_formats::sdb::{
    Bsde, BsdeLevelBits, BsdeStateBits, DataEntry, Dsde, EntryError, BSDE_FORMAT, BSDE_SIZE,
    CL_LOGICAL_PARTITION, DSDE_FORMAT,
};

/// The basic-sampling data entry (Figure 2-17) for the CPU state in `view` at the
/// logical-partition level with `unique` instructions completed at the sampling point (U,
/// "Number of Unique Instructions": at most 15, the 4 bits of the field; zero in the wait
/// state, when the sampling point is not busy). `h` is the host indicator; `cl` the model's
/// configuration level code ([`MachineModel::configuration_level`]): 1, or 0 on models from
/// before the CL and H fields, which store zeros in both.
///
/// In the wait state (W = 1, which only a dedicated CPU's samples carry) the instruction
/// address is zero: SA23-2260 leaves it open ("When the wait state bit is one, the contents
/// of this field are unpredictable"), and IBM's machines store zeros there ("INSTRUCTION
/// ADDRESSES ARE ZERO WHEN THE LOGICAL CPU IS IN WAIT STATE", Redbook SG24-7857 Example
/// 4-1), which keeps a wait sample out of whatever module covers the wait PSW's address.
pub fn basic_entry(view: &CpuView, unique: u8, gpp: u64, hpp: u64, h: bool, cl: u8) -> Bsde {
    Bsde {
        unique: if view.wait { 0 } else { unique.min(15) },
        dat: view.dat,
        wait: view.wait,
        problem_state: view.problem_state,
        asc: view.asc & 3,
        invalid: false,
        configuration_level: cl,
        host: h && cl != 0,
        limited: false,
        primary_asn: view.primary_asn(),
        ia: if view.wait { 0 } else { view.ia },
        gpp,
        hpp,
    }
}

/// The encoded [`basic_entry`] at the logical-partition level (CL = 1).
pub fn basic_entry_bytes(view: &CpuView, unique: u8, gpp: u64, hpp: u64, h: bool) -> [u8; 32] {
    basic_entry(view, unique, gpp, hpp, h, CL_LOGICAL_PARTITION).encode()
}

/// The emulator's diagnostic-sampling data entry (see [`Dsde`]) of the CPU state in `view`.
pub fn diagnostic_entry(view: &CpuView) -> Dsde {
    let n = usize::from(view.ilen).min(6);
    let mut inst = [0u8; 6];
    inst[..n].copy_from_slice(&view.inst[..n]);
    Dsde {
        ilen: u16::from(view.ilen),
        cpu: view.cpu,
        inst,
        instructions: view.meter.instructions,
        cpu_ns: view.meter.cpu_ns,
        tod: view.tod,
        cr0: view.cr0,
        problem_instructions: view.meter.problem_instructions,
    }
}

/// The emulator's diagnostic-sampling data entry in `m.dsdes` bytes.
pub fn diagnostic_entry_bytes(m: &MachineModel, view: &CpuView) -> Vec<u8> {
    diagnostic_entry(view).encode(usize::from(m.dsdes))
}

/// The data entry the active functions store ("Data Entry"): a BSDE, a DSDE, or the
/// combined-sampling data entry, a BSDE followed by a DSDE. The program parameter goes to the
/// guest-program-parameter field with H = 0 and to the host-program-parameter field with
/// H = 1, the other field zero (logical-partition level).
pub fn data_entry(
    m: &MachineModel,
    view: &CpuView,
    unique: u8,
    basic: bool,
    diagnostic: bool,
    pp: u64,
    h: bool,
) -> DataEntry {
    let (gpp, hpp) = if h { (0, pp) } else { (pp, 0) };
    let cl = m.configuration_level();
    let b = basic.then(|| basic_entry(view, unique, gpp, hpp, h, cl));
    let d = diagnostic.then(|| diagnostic_entry(view));
    DataEntry::new(b.as_ref(), d.as_ref().map(|d| (d, usize::from(m.dsdes))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> CpuView {
        CpuView {
            cpu: 3,
            ia: 0x0000_7FFF_1234_5678,
            problem_state: true,
            dat: true,
            asc: 3,
            cr0: 0xE0,
            cr4: 0x1_0042,
            tod: 0xAABB_CCDD_EEFF_0011,
            inst: [0xB2, 0x87, 0x10, 0x00, 0xEE, 0xEE],
            ilen: 4,
            meter: crate::cpu::MeterReading {
                instructions: 1000,
                cpu_ns: 2000,
                problem_instructions: 300,
                problem_cpu_ns: 400,
            },
            ..Default::default()
        }
    }

    #[test]
    fn bsde_bits_sit_where_figure_2_17_puts_them() {
        let e = basic_entry_bytes(&view(), 1, 0x11, 0x22, true);
        assert_eq!(&e[0..2], &[0, 1], "format 0001");
        assert_eq!(e[2], 0x01, "R (bits 16-19) zero, U (20-23) = 1");
        // bits 24-25 zero, T=1 (26), W=0 (27), P=1 (28), AS=3 (29-30), I=0 (31).
        assert_eq!(e[3], 0b0010_1110);
        // CL = 01 (32-33), H = 1 (34), LS = 0 (35), reserved 36-39.
        assert_eq!(e[4], 0b0110_0000);
        assert_eq!(e[5], 0, "reserved bits 40-47");
        assert_eq!(&e[6..8], &[0, 0x42], "primary ASN = CR4 bits 48-63");
        assert_eq!(&e[8..16], &0x0000_7FFF_1234_5678u64.to_be_bytes());
        assert_eq!(&e[16..24], &0x11u64.to_be_bytes());
        assert_eq!(&e[24..32], &0x22u64.to_be_bytes());
        let d = Bsde::decode(&e).unwrap();
        assert_eq!(d, basic_entry(&view(), 1, 0x11, 0x22, true, 1));
        assert_eq!(d.encode(), e);
        // Wait state: W = 1 and U = 0.
        let w = CpuView {
            wait: true,
            ..view()
        };
        let e = basic_entry_bytes(&w, 1, 0, 0, false);
        assert_eq!((e[2], e[3] & 0x10, e[4]), (0, 0x10, 0x40));
    }

    /// A sample of a CPU in the wait state (a dedicated CPU's), byte by byte as Figure 2-17
    /// lays it out: format 0001; R 0 and U 0 ("if the sampling point is not busy because
    /// ... the CPU is in the wait state, the contents of this field are set to zero"); bits
    /// 24-25 zero, T, W = 1, P, AS of the wait PSW, I = 0; CL, H, LS and the reserved bits
    /// (zeros on a z10); the primary ASN of CR4; the instruction address zero; the program
    /// parameters. The z10 entry is the wait sample of the Redbook's Example 4-1 (its fourth
    /// record: `0001 0 3 0 0000 0001 00000000 00000000 80FDB3B8 00000000 0...`, the hex
    /// display's two lines read as one): DAT on, supervisor state, primary ASN 0001.
    #[test]
    fn a_wait_sample_has_w_set_u_and_the_address_zero() {
        let w = CpuView {
            wait: true,
            dat: true,
            problem_state: false,
            asc: 0,
            ia: 0x0000_0000_00FF_1964,
            cr4: 0x0000_0000_0001_0001,
            ..view()
        };
        let z10 = MachineModel::for_machine_type(0x2097);
        let e = data_entry(&z10, &w, 3, true, false, 0x80FD_B3B8_0000_0000, false);
        let mut want = [0u8; 32];
        want[..8].copy_from_slice(&[0x00, 0x01, 0x00, 0x30, 0x00, 0x00, 0x00, 0x01]);
        want[16..20].copy_from_slice(&[0x80, 0xFD, 0xB3, 0xB8]);
        assert_eq!(&e[..], &want[..]);
        // Problem state with AS 2 (secondary), on a z15 (CL 1) with H = 1 (the program
        // parameter in the host field): byte 3 = T W P AS(10) I = 0011 1100.
        let z15 = MachineModel::for_machine_type(0x8561);
        let p = CpuView {
            problem_state: true,
            asc: 2,
            ..w
        };
        let e = data_entry(&z15, &p, 9, true, false, 0x1234, true);
        let mut want = [0u8; 32];
        want[..8].copy_from_slice(&[0x00, 0x01, 0x00, 0x3C, 0x60, 0x00, 0x00, 0x01]);
        want[24..32].copy_from_slice(&0x1234u64.to_be_bytes());
        assert_eq!(&e[..], &want[..]);
        let d = Bsde::decode(&e).unwrap();
        assert!(d.wait && d.problem_state && d.dat);
        assert_eq!((d.unique, d.ia, d.asc), (0, 0, 2));
        // Combined sampling: the same BSDE, then the DSDE (format 8001).
        let c = data_entry(&z15, &p, 9, true, true, 0x1234, true);
        assert_eq!(&c[..32], &want[..]);
        assert_eq!(&c[32..34], &[0x80, 0x01]);
    }

    /// CL and H as each model stores them: zeros before the z15 (CFVN 1: z10 to z14), CL 1
    /// and H from the z15 on (CFVN 3); the program parameter goes to the field H names
    /// either way.
    #[test]
    fn configuration_level_per_model() {
        for (t, byte4) in [
            (0x2097u16, 0x00),
            (0x3906, 0x00),
            (0x8561, 0x60),
            (0x3931, 0x60),
        ] {
            let m = MachineModel::for_machine_type(t);
            let e = data_entry(&m, &view(), 1, true, false, 7, true);
            assert_eq!(e[4], byte4, "{t:04X}: CL, H");
            let d = Bsde::decode(&e).unwrap();
            assert_eq!((d.gpp, d.hpp), (0, 7), "{t:04X}");
        }
    }

    #[test]
    fn bsde_decode_rejects_other_formats_and_short_input() {
        let mut e = basic_entry_bytes(&view(), 1, 0, 0, false);
        assert_eq!(Bsde::decode(&e[..31]), Err(EntryError::Short(31)));
        e[1] = 2;
        assert_eq!(Bsde::decode(&e), Err(EntryError::Format(2)));
    }

    #[test]
    fn dsde_header_and_content() {
        let mut m = MachineModel::for_machine_type(0x2097);
        let d = diagnostic_entry_bytes(&m, &view());
        assert_eq!(d.len(), usize::from(m.dsdes));
        assert_eq!(&d[0..4], &[0x80, 0x01, 0, 0], "format 8001, R and I zero");
        assert_eq!(
            &d[8..14],
            &[0xB2, 0x87, 0x10, 0x00, 0, 0],
            "ilen bytes only"
        );
        assert_eq!(Dsde::decode(&d).unwrap(), diagnostic_entry(&view()));
        // A larger DSDES pads with zeros (z196: 74, zEC12: 85).
        m.dsdes = 85;
        let d = diagnostic_entry_bytes(&m, &view());
        assert_eq!(d.len(), 85);
        assert!(d[64..].iter().all(|&b| b == 0));
        assert_eq!(Dsde::decode(&[0x80, 1]), Err(EntryError::Short(2)));
    }

    #[test]
    fn data_entries_per_active_function() {
        let m = MachineModel::for_machine_type(0x2097);
        let v = view();
        let b = data_entry(&m, &v, 1, true, false, 7, false);
        assert_eq!(b.len(), 32);
        assert_eq!(
            Bsde::decode(&b).unwrap().gpp,
            7,
            "H = 0: guest program parameter"
        );
        let b = data_entry(&m, &v, 1, true, false, 7, true);
        let d = Bsde::decode(&b).unwrap();
        assert_eq!(
            (d.gpp, d.hpp, d.host),
            (0, 7, false),
            "H = 1: host program parameter (a z10 stores no H bit)"
        );
        let d = data_entry(&m, &v, 1, false, true, 7, true);
        assert_eq!(&d[0..2], &[0x80, 0x01]);
        assert_eq!(d.len(), usize::from(m.dsdes));
        let c = data_entry(&m, &v, 1, true, true, 7, false);
        assert_eq!(
            c.len(),
            32 + usize::from(m.dsdes),
            "combined: BSDE then DSDE"
        );
        assert_eq!((&c[0..2], &c[32..34]), (&[0u8, 1][..], &[0x80u8, 1][..]));
    }
}

//! The guest's storage as MVS sees it: prefixing and dynamic address translation (System/370
//! with 2-KB or 4-KB pages and 64-KB or 1-MB segments; ESA/390), and EBCDIC names. Every
//! access is translated and bounds-checked; an unmapped address is None, never a fault.

use hcpumf_arch::cpu::{Arch, CpuView};
use hcpumf_arch::storage::{AbsAddr, GuestStorage};

/// Dynamic address translation of the guest, as far as MVS awareness needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dat {
    /// DAT off: virtual = real.
    Real,
    /// System/370 DAT with the CR0 page/segment size controls and CR1 segment-table
    /// designation (32-bit values).
    S370 { cr0: u32, cr1: u32 },
    /// ESA/390 DAT (primary space, CR1 = STD).
    Esa { cr1: u32 },
}

/// A view of the guest's virtual storage through its prefix and DAT.
pub struct Space<'a> {
    pub storage: &'a dyn GuestStorage,
    pub prefix: u64,
    pub dat: Dat,
}

impl<'a> Space<'a> {
    /// The space of the CPU a view was taken on.
    pub fn of(storage: &'a dyn GuestStorage, view: &CpuView, prefix: u64, cr1: u64) -> Space<'a> {
        let dat = if !view.dat {
            Dat::Real
        } else {
            match view.arch {
                Arch::S370 => Dat::S370 {
                    cr0: view.cr0 as u32,
                    cr1: cr1 as u32,
                },
                Arch::Esa390 => Dat::Esa { cr1: cr1 as u32 },
                // 64-bit DAT is not walked: z/OS guests load their own program parameter.
                Arch::Z => Dat::Real,
            }
        };
        Space {
            storage,
            prefix,
            dat,
        }
    }

    /// Real to absolute (prefixing).
    pub fn absolute(&self, real: u64) -> u64 {
        let page = real & !0xFFF;
        if page == 0 {
            real + self.prefix
        } else if page == self.prefix {
            real - self.prefix
        } else {
            real
        }
    }

    pub fn real_u32(&self, real: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.storage
            .read(AbsAddr(self.absolute(real)), &mut b)
            .ok()?;
        Some(u32::from_be_bytes(b))
    }

    pub fn real_u16(&self, real: u64) -> Option<u16> {
        let mut b = [0u8; 2];
        self.storage
            .read(AbsAddr(self.absolute(real)), &mut b)
            .ok()?;
        Some(u16::from_be_bytes(b))
    }

    /// The same storage seen through another address space's segment table, `stor` (ASCBSTOR:
    /// what MVS's dispatcher loads into CR1 when it dispatches that address space), with this
    /// space's CR0 page and segment sizes. With DAT off everything is real and `stor` is not
    /// used; with DAT on a zero `stor` is no address space (None).
    pub fn address_space(&self, stor: u32) -> Option<Space<'a>> {
        let dat = match self.dat {
            Dat::Real => Dat::Real,
            _ if stor == 0 => return None,
            Dat::S370 { cr0, .. } => Dat::S370 { cr0, cr1: stor },
            Dat::Esa { .. } => Dat::Esa { cr1: stor },
        };
        Some(Space {
            storage: self.storage,
            prefix: self.prefix,
            dat,
        })
    }

    /// Translate a virtual address to real, or None if it is not mapped.
    pub fn translate(&self, va: u64) -> Option<u64> {
        match self.dat {
            Dat::Real => Some(va & 0x7FFF_FFFF),
            Dat::S370 { cr0, cr1 } => {
                let va = va & 0x00FF_FFFF;
                // CR0 bits 8-9: page size (01 2K, 10 4K); bits 11-12: segment size (00 64K, 10 1M).
                let (page_shift, pte_invalid, pfra_shift) = match (cr0 >> 22) & 3 {
                    1 => (11u32, 0x0004u16, 3u32),
                    2 => (12u32, 0x0008u16, 4u32),
                    _ => return None,
                };
                let seg_shift = match (cr0 >> 19) & 3 {
                    0 => 16u32,
                    2 => 20u32,
                    _ => return None,
                };
                let sto = u64::from(cr1 & 0x00FF_FFC0);
                let stl = u64::from(cr1 >> 24);
                let sx = va >> seg_shift;
                // Segment-table length in units of 16 entries (64 bytes).
                if sx > (stl + 1) * 16 - 1 {
                    return None;
                }
                let ste = self.real_u32(sto + sx * 4)?;
                if ste & 1 != 0 {
                    return None;
                }
                let pto = u64::from(ste & 0x00FF_FFF8);
                let ptl = u64::from(ste >> 28);
                let px = (va & ((1 << seg_shift) - 1)) >> page_shift;
                let entries_per_unit = (1u64 << (seg_shift - page_shift)) / 16;
                if px >= (ptl + 1) * entries_per_unit.max(1) {
                    return None;
                }
                let pte = self.real_u16(pto + px * 2)?;
                if pte & pte_invalid != 0 {
                    return None;
                }
                let frame = u64::from(pte >> pfra_shift) << page_shift;
                Some(frame | (va & ((1 << page_shift) - 1)))
            }
            Dat::Esa { cr1 } => {
                let va = va & 0x7FFF_FFFF;
                let sto = u64::from(cr1 & 0x7FFF_F000);
                let stl = u64::from(cr1 & 0x7F);
                let sx = va >> 20;
                if sx > (stl + 1) * 16 - 1 {
                    return None;
                }
                let ste = self.real_u32(sto + sx * 4)?;
                if ste & 0x20 != 0 {
                    return None;
                }
                let pto = u64::from(ste & 0x7FFF_FFC0);
                let ptl = u64::from(ste & 0xF);
                let px = (va >> 12) & 0xFF;
                if px >= (ptl + 1) * 16 {
                    return None;
                }
                let pte = self.real_u32(pto + px * 4)?;
                if pte & 0x400 != 0 {
                    return None;
                }
                Some(u64::from(pte & 0x7FFF_F000) | (va & 0xFFF))
            }
        }
    }

    /// Fetch `buf.len()` bytes at a virtual address (page by page).
    pub fn read(&self, va: u64, buf: &mut [u8]) -> Option<()> {
        let mut done = 0usize;
        while done < buf.len() {
            let a = va + done as u64;
            let real = self.translate(a)?;
            let in_page = (0x800 - (a & 0x7FF)) as usize;
            let n = in_page.min(buf.len() - done);
            self.storage
                .read(AbsAddr(self.absolute(real)), &mut buf[done..done + n])
                .ok()?;
            done += n;
        }
        Some(())
    }

    /// A fullword at a virtual address.
    pub fn u32(&self, va: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.read(va, &mut b)?;
        Some(u32::from_be_bytes(b))
    }

    /// A 31-bit pointer at a virtual address (0 is no pointer).
    pub fn ptr(&self, va: u64) -> Option<u64> {
        self.u32(va)
            .map(|p| u64::from(p & 0x7FFF_FFFF))
            .filter(|&p| p != 0)
    }

    /// A 24-bit address in a flag byte + AL3 field (0 is no address).
    pub fn al3(&self, va: u64) -> Option<u64> {
        self.u32(va)
            .map(|p| u64::from(p & 0x00FF_FFFF))
            .filter(|&p| p != 0)
    }

    /// A byte at a virtual address.
    pub fn byte(&self, va: u64) -> Option<u8> {
        let mut b = [0u8; 1];
        self.read(va, &mut b)?;
        Some(b[0])
    }

    /// A halfword at a virtual address.
    pub fn u16(&self, va: u64) -> Option<u16> {
        let mut b = [0u8; 2];
        self.read(va, &mut b)?;
        Some(u16::from_be_bytes(b))
    }

    /// An 8-character EBCDIC name at a virtual address, as ASCII (unprintables as '.').
    pub fn name(&self, va: u64) -> Option<String> {
        let mut b = [0u8; 8];
        self.read(va, &mut b)?;
        Some(b.iter().map(|&c| ebcdic_char(c)).collect())
    }
}

/// EBCDIC (code page 037) letters, digits and the national characters used in MVS names.
pub fn ebcdic_char(c: u8) -> char {
    match c {
        0x40 => ' ',
        0x5C => '*',
        0x4B => '.',
        0x5B => '$',
        0x7B => '#',
        0x7C => '@',
        0x6D => '_',
        0x60 => '-',
        0xC1..=0xC9 => (b'A' + (c - 0xC1)) as char,
        0xD1..=0xD9 => (b'J' + (c - 0xD1)) as char,
        0xE2..=0xE9 => (b'S' + (c - 0xE2)) as char,
        0xF0..=0xF9 => (b'0' + (c - 0xF0)) as char,
        0x81..=0x89 => (b'a' + (c - 0x81)) as char,
        0x91..=0x99 => (b'j' + (c - 0x91)) as char,
        0xA2..=0xA9 => (b's' + (c - 0xA2)) as char,
        _ => '.',
    }
}

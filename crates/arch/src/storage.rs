//! Guest main storage as the facilities see it.
//!
//! SA23-2260 "Sample-Data-Block Update Process": accesses to sample-data blocks and tables use
//! real or absolute addresses, are not subject to key-controlled or low-address protection, and
//! an address outside the configuration is an *invalid entry address*. Every access therefore
//! goes through [`GuestStorage`], which bounds-checks a typed [`AbsAddr`] before touching memory.

use thiserror::Error;

/// An absolute address in guest main storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct AbsAddr(pub u64);

impl AbsAddr {
    /// Address arithmetic wraps: "a carry out of bit position zero of the address, if any, is
    /// ignored" (SA23-2260, Sample-Data-Block Update Process).
    pub fn offset(self, by: u64) -> AbsAddr {
        AbsAddr(self.0.wrapping_add(by))
    }
}

/// A guest storage access that cannot be made.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum StorageError {
    /// Some byte of the range is not available in the configuration.
    #[error("guest address {addr:#x} (length {len}) is outside main storage")]
    OutOfRange { addr: u64, len: u64 },
}

/// Guest main storage. Multi-byte values are big-endian, as the architecture stores them.
pub trait GuestStorage {
    /// Size of main storage in bytes.
    fn size(&self) -> u64;
    /// Copy `buf.len()` bytes from guest storage.
    fn read(&self, addr: AbsAddr, buf: &mut [u8]) -> Result<(), StorageError>;
    /// Copy `data` into guest storage (and mark the pages referenced and changed).
    fn write(&self, addr: AbsAddr, data: &[u8]) -> Result<(), StorageError>;
    /// Read-modify-write of 16 bytes, interlocked with respect to a guest COMPARE DOUBLE AND
    /// SWAP on any CPU (SA23-2260, Trailer Entries, programming note).
    fn update16(
        &self,
        addr: AbsAddr,
        f: &mut dyn FnMut([u8; 16]) -> [u8; 16],
    ) -> Result<(), StorageError>;

    /// Check that `[addr, addr+len)` lies inside main storage.
    fn check(&self, addr: AbsAddr, len: u64) -> Result<(), StorageError> {
        match addr.0.checked_add(len) {
            Some(end) if end <= self.size() => Ok(()),
            _ => Err(StorageError::OutOfRange { addr: addr.0, len }),
        }
    }
    /// Fetch a big-endian doubleword.
    fn read_u64(&self, addr: AbsAddr) -> Result<u64, StorageError> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_be_bytes(b))
    }
    /// Store a big-endian doubleword.
    fn write_u64(&self, addr: AbsAddr, v: u64) -> Result<(), StorageError> {
        self.write(addr, &v.to_be_bytes())
    }
}

/// In-memory guest storage for unit tests and for host-owned buffers.
#[derive(Debug)]
pub struct MemStorage {
    bytes: parking_lot::Mutex<Vec<u8>>,
}

impl MemStorage {
    /// Zero-filled storage of `size` bytes.
    pub fn new(size: usize) -> Self {
        MemStorage {
            bytes: parking_lot::Mutex::new(vec![0; size]),
        }
    }
    /// A copy of the whole storage.
    pub fn snapshot(&self) -> Vec<u8> {
        self.bytes.lock().clone()
    }
}

impl GuestStorage for MemStorage {
    fn size(&self) -> u64 {
        self.bytes.lock().len() as u64
    }
    fn read(&self, addr: AbsAddr, buf: &mut [u8]) -> Result<(), StorageError> {
        self.check(addr, buf.len() as u64)?;
        let mem = self.bytes.lock();
        let a = addr.0 as usize;
        buf.copy_from_slice(&mem[a..a + buf.len()]);
        Ok(())
    }
    fn write(&self, addr: AbsAddr, data: &[u8]) -> Result<(), StorageError> {
        self.check(addr, data.len() as u64)?;
        let mut mem = self.bytes.lock();
        let a = addr.0 as usize;
        mem[a..a + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn update16(
        &self,
        addr: AbsAddr,
        f: &mut dyn FnMut([u8; 16]) -> [u8; 16],
    ) -> Result<(), StorageError> {
        self.check(addr, 16)?;
        let mut mem = self.bytes.lock();
        let a = addr.0 as usize;
        let mut cur = [0u8; 16];
        cur.copy_from_slice(&mem[a..a + 16]);
        let new = f(cur);
        mem[a..a + 16].copy_from_slice(&new);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_checked_before_access() {
        let s = MemStorage::new(4096);
        assert!(s.write_u64(AbsAddr(4088), 1).is_ok());
        assert_eq!(
            s.write_u64(AbsAddr(4089), 1),
            Err(StorageError::OutOfRange { addr: 4089, len: 8 })
        );
        assert!(s.read_u64(AbsAddr(u64::MAX - 3)).is_err());
        assert_eq!(s.read_u64(AbsAddr(4088)), Ok(1));
    }

    #[test]
    fn big_endian_doublewords() {
        let s = MemStorage::new(64);
        s.write_u64(AbsAddr(8), 0x0102_0304_0506_0708).unwrap();
        let mut b = [0u8; 8];
        s.read(AbsAddr(8), &mut b).unwrap();
        assert_eq!(b, [1, 2, 3, 4, 5, 6, 7, 8]);
    }
}

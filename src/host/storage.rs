//! Guest main storage of the running Hercules, reached through the glue's host services.

use crate::host::glue::hcpumf_host;
use crate::host::services::host;
use hcpumf_arch::storage::{AbsAddr, GuestStorage, StorageError};

/// Hercules' main storage: origin and size as reported by the glue.
pub struct HostStorage<'a> {
    host: &'a hcpumf_host,
    base: *mut u8,
    size: u64,
}

impl<'a> HostStorage<'a> {
    /// Main storage as it is now (re-read on every use: `mainsize` can change between runs).
    pub fn new(host: &'a hcpumf_host) -> Option<HostStorage<'a>> {
        let f = host.mainstor?;
        let mut size = 0u64;
        // SAFETY: the glue's mainstor callback only reads sysblk and writes `size`.
        let base = unsafe { f(&mut size) };
        if base.is_null() {
            return None;
        }
        Some(HostStorage { host, base, size })
    }
}

impl HostStorage<'static> {
    /// The running Hercules' main storage (None outside Hercules).
    pub fn current() -> Option<HostStorage<'static>> {
        host().and_then(HostStorage::new)
    }
}

impl GuestStorage for HostStorage<'_> {
    fn size(&self) -> u64 {
        self.size
    }
    fn read(&self, addr: AbsAddr, buf: &mut [u8]) -> Result<(), StorageError> {
        self.check(addr, buf.len() as u64)?;
        // SAFETY: [addr, addr+len) was checked to lie inside main storage of `size` bytes at
        // `base`; guest storage is plain bytes that other CPUs may change concurrently, which
        // a byte copy tolerates.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.base.add(addr.0 as usize),
                buf.as_mut_ptr(),
                buf.len(),
            )
        };
        Ok(())
    }
    fn write(&self, addr: AbsAddr, data: &[u8]) -> Result<(), StorageError> {
        self.check(addr, data.len() as u64)?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: bounds checked as in `read`; the destination is guest storage designated by
        // the guest for this purpose (an SDB or an instruction operand).
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.add(addr.0 as usize), data.len())
        };
        if let Some(mark) = self.host.mark_changed {
            // SAFETY: the callback bounds-checks the address itself.
            unsafe { mark(addr.0) };
            let last = addr.0 + data.len() as u64 - 1;
            if last >> 12 != addr.0 >> 12 {
                // SAFETY: as above.
                unsafe { mark(last) };
            }
        }
        Ok(())
    }
    fn update16(
        &self,
        addr: AbsAddr,
        f: &mut dyn FnMut([u8; 16]) -> [u8; 16],
    ) -> Result<(), StorageError> {
        self.check(addr, 16)?;
        let lock = self.host.mainlock;
        if let Some(l) = lock {
            // SAFETY: obtains sysblk.mainlock, the lock Hercules' CDSG holds while it compares
            // and swaps; released below on every path.
            unsafe { l(1) };
        }
        let mut cur = [0u8; 16];
        let r = self
            .read(addr, &mut cur)
            .and_then(|_| self.write(addr, &f(cur)));
        if let Some(l) = lock {
            // SAFETY: releases the lock obtained above.
            unsafe { l(0) };
        }
        r
    }
}

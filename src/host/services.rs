//! The glue's services as Rust sees them: the host-services table Hercules' side of the
//! plugin registers at load (console log, TOD clock, CPU states, guest storage).

use crate::host::cacheline::Padded;
use crate::host::glue::hcpumf_host;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

// On a line of its own: every tick reads it.
static HOST: Padded<AtomicPtr<hcpumf_host>> = Padded(AtomicPtr::new(std::ptr::null_mut()));

/// Install the glue's services (called once at load).
pub fn set_host(host: *const hcpumf_host) {
    HOST.store(host as *mut hcpumf_host, Ordering::Release);
}

/// The glue's services, when running inside Hercules.
pub fn host() -> Option<&'static hcpumf_host> {
    let p = HOST.load(Ordering::Acquire);
    // SAFETY: the pointer is the glue's static hcpumf_host_services, valid while the module
    // is loaded; it is cleared before unload.
    unsafe { p.as_ref() }
}

/// Forget the host (module unload).
pub fn clear_host() {
    HOST.store(std::ptr::null_mut(), Ordering::Release);
}

// The facilities are installed: every instruction is in Hercules' tables. Hercules installs
// a module's instructions one at a time (ldmod's HDL_DEFINST calls) and takes them out one
// at a time after the final section, while the CPUs run; without this, a guest could find
// QSI working and LSCTL still an operation exception (seen on a loaded host: a CPU that saw
// the reload with QSI, then never sampled). Until every instruction is in, and from the
// start of the unload, each of them is an operation exception and STFLE shows none of the
// facilities, so that the whole set comes and goes at once.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Every instruction of the plugin is in Hercules' tables (true), or from now on is about
/// to be taken out (false).
pub fn set_installed(installed: bool) {
    INSTALLED.store(installed, Ordering::SeqCst);
}

/// Are the facilities installed (see [`set_installed`])?
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Acquire)
}

// CPU threads inside an instruction or a tick of the plugin, one counter per CPU (on lines
// of their own, so that CPUs do not take each other's lines). On 3.13 `rmmod` runs while
// the CPUs run: a CPU that passed the operation check just before it could otherwise go on
// computing its result while the unload takes the host away, and store what a plugin
// without a host computes. (The QSI operand of zeros and ones once blamed on this was the
// test guest's own program-check log running into its data: tests/guest/lowcore.inc.)
const IN_FLIGHT_SLOTS: usize = 64;
#[allow(clippy::declare_interior_mutable_const)] // only the array's initializer
const NOBODY: Padded<AtomicU32> = Padded(AtomicU32::new(0));
static IN_FLIGHT: [Padded<AtomicU32>; IN_FLIGHT_SLOTS] = [NOBODY; IN_FLIGHT_SLOTS];

/// A CPU thread inside the plugin (see [`enter`]); leaving is dropping it.
pub struct InFlight(usize);

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT[self.0].fetch_sub(1, Ordering::Release);
    }
}

/// CPU `cpu` enters an instruction or tick of the plugin: None when the facilities are not
/// installed (the instruction is then an operation exception, the tick does nothing).
pub fn enter(cpu: u16) -> Option<InFlight> {
    let slot = cpu as usize % IN_FLIGHT_SLOTS;
    IN_FLIGHT[slot].fetch_add(1, Ordering::SeqCst);
    let guard = InFlight(slot);
    installed().then_some(guard)
}

/// Wait (at most `limit`) until no CPU thread is inside the plugin; called once the
/// facilities are no longer installed, so none can enter again. Returns whether it got there.
pub fn quiesce(limit: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    loop {
        if IN_FLIGHT.iter().all(|c| c.load(Ordering::Acquire) == 0) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
}

/// Is CPU `cpu` configured in Hercules?
pub fn cpu_online(cpu: u16) -> bool {
    host()
        .and_then(|h| h.cpu_online)
        // SAFETY: the callback only reads sysblk.
        .map(|f| unsafe { f(cpu) } != 0)
        .unwrap_or(false)
}

/// Write a console line through Hercules' logger.
pub fn log(line: &str) {
    if let Some(f) = host().and_then(|h| h.log) {
        let mut bytes: Vec<u8> = line.bytes().filter(|&b| b != 0).collect();
        bytes.push(0);
        // SAFETY: `bytes` is NUL-terminated and outlives the call.
        unsafe { f(bytes.as_ptr() as *const libc::c_char) };
    } else {
        eprintln!("{line}");
    }
}

/// A view's TOD clock, or, when the glue left it unread (0), the TOD clock now.
pub fn tod_or_now(tod: u64) -> u64 {
    if tod != 0 {
        tod
    } else {
        tod_now()
    }
}

/// The TOD clock (bits 0-63) from the emulator, 0 without one.
pub fn tod_now() -> u64 {
    host()
        .and_then(|h| h.tod)
        // SAFETY: the callback reads the TOD clock.
        .map(|f| unsafe { f() })
        .unwrap_or(0)
}

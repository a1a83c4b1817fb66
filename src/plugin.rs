//! The Hercules dynamic module (HDL) itself: what happens at `ldmod` and `rmmod`, the
//! `hcpumf` console command's entry, and the HDL sections Hercules looks up by name, which
//! forward to the glue's (`hercules-glue/host.c`; like Hercules' `crypto/dyncrypt.c`
//! the sections come last). This is the top of the crate: it calls the console, the HIS
//! collector and the host; nothing calls back into it.

use crate::host::ffi::guarded;
use crate::host::glue::{hcpumf_hdl, hcpumf_host};
use crate::host::{model, resets, sampler, services};
use std::ffi::{c_char, c_void, CStr};

/// Called by the glue's `hdl_init`: remember the host services, choose the machine model,
/// start the sampler and print the banner. Returns 0.
///
/// # Safety
/// `host` must point to the glue's host-services table, valid until [`hcpumf_unload`].
#[no_mangle]
pub unsafe extern "C" fn hcpumf_load(host: *const hcpumf_host) -> i32 {
    guarded("load", 1, || {
        services::set_host(host);
        resets::reset_for_load();
        model::load();
        sampler::start();
        crate::console::banner();
        0
    })
}

/// Called by the glue's `hdl_fini`: stop the sampler thread, end a HIS run (its files are
/// written) and forget the host.
#[no_mangle]
pub extern "C" fn hcpumf_unload() {
    guarded("unload", (), || {
        services::set_installed(false);
        // Let a CPU that is inside an instruction or tick finish it with the host still
        // there; none can enter any more.
        if !services::quiesce(std::time::Duration::from_secs(1)) {
            services::log(
                "HHCMF086W hcpumf: a CPU is still inside the plugin after 1 s; unloading anyway",
            );
        }
        sampler::stop();
        crate::his::run::stop_on_unload();
        services::log("HHCMF001I hcpumf unloaded");
        services::clear_host();
    })
}

/// A console command whose first word is `hcpumf`.
///
/// # Safety
/// `argv` must hold `argc` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_command(
    argc: i32,
    argv: *const *const c_char,
    cmdline: *const c_char,
) {
    guarded("command", (), || {
        let mut args = Vec::new();
        for i in 0..argc.max(0) as usize {
            // SAFETY: the glue passes Hercules' parsed argument vector of `argc` strings.
            let p = unsafe { *argv.add(i) };
            if p.is_null() {
                break;
            }
            // SAFETY: each argument is NUL-terminated.
            args.push(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned());
        }
        let line = if cmdline.is_null() {
            args.join(" ")
        } else {
            // SAFETY: Hercules passes the NUL-terminated command line as typed.
            unsafe { CStr::from_ptr(cmdline) }
                .to_string_lossy()
                .into_owned()
        };
        crate::console::command(&args, line.trim());
    })
}

static HDL: std::sync::atomic::AtomicPtr<hcpumf_hdl> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

fn hdl() -> Option<&'static hcpumf_hdl> {
    // SAFETY: the pointer is the glue's static section table, registered by its constructor
    // and valid for the life of the loaded module.
    unsafe { HDL.load(std::sync::atomic::Ordering::Acquire).as_ref() }
}

/// Called by the glue's constructor: its HDL sections.
///
/// # Safety
/// `sections` must point to a static table.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_register_hdl(sections: *const hcpumf_hdl) {
    HDL.store(
        sections as *mut hcpumf_hdl,
        std::sync::atomic::Ordering::Release,
    );
}

// The HDL entry points Hercules looks up by name. Hercules 3.13 calls them hdl_depc,
// hdl_reso, hdl_init, hdl_dins and hdl_fini; SDL Hyperion 4.x hdl_check_depends_ep,
// hdl_resolve_symbols_ep, hdl_register_symbols_ep, hdl_define_instructs_ep and
// hdl_on_module_unload_ep (build.rs sets `hercules_hyperion` for a Hyperion tree). Both
// forward to the glue's sections; only the cdylib's Rust exports are visible to Hercules.

fn section_depc(vers: *mut c_void) -> i32 {
    match hdl().and_then(|h| h.depc) {
        // SAFETY: forwards Hercules' argument to the glue's section.
        Some(f) => unsafe { f(vers) },
        None => 1,
    }
}

fn section_reso(fent: *mut c_void) {
    if let Some(f) = hdl().and_then(|h| h.reso) {
        // SAFETY: forwards Hercules' argument to the glue's section.
        unsafe { f(fent) }
    }
}

fn section_init(regi: *mut c_void) {
    if let Some(f) = hdl().and_then(|h| h.init) {
        // SAFETY: forwards Hercules' argument to the glue's section.
        unsafe { f(regi) }
    }
}

fn section_dins(dins: *mut c_void) {
    if let Some(f) = hdl().and_then(|h| h.dins) {
        // SAFETY: forwards Hercules' argument to the glue's section.
        unsafe { f(dins) }
    }
}

fn section_fini() -> i32 {
    match hdl().and_then(|h| h.fini) {
        // SAFETY: calls the glue's final section.
        Some(f) => unsafe { f() },
        None => 0,
    }
}

/// HDL dependency section (structure sizes and versions must match Hercules').
///
/// # Safety
/// Called by Hercules' HDL loader with its version-check callback.
#[cfg(not(hercules_hyperion))]
#[no_mangle]
pub unsafe extern "C" fn hdl_depc(vers: *mut c_void) -> i32 {
    section_depc(vers)
}

/// HDL resolver section.
///
/// # Safety
/// Called by Hercules' HDL loader.
#[cfg(not(hercules_hyperion))]
#[no_mangle]
pub unsafe extern "C" fn hdl_reso(fent: *mut c_void) {
    section_reso(fent)
}

/// HDL registration section (hooks, console command, start of the plugin).
///
/// # Safety
/// Called by Hercules' HDL loader.
#[cfg(not(hercules_hyperion))]
#[no_mangle]
pub unsafe extern "C" fn hdl_init(regi: *mut c_void) {
    section_init(regi)
}

/// HDL instruction section (the CPU-measurement opcodes).
///
/// # Safety
/// Called by Hercules' HDL loader.
#[cfg(not(hercules_hyperion))]
#[no_mangle]
pub unsafe extern "C" fn hdl_dins(dins: *mut c_void) {
    section_dins(dins);
    // Every instruction is in Hercules' tables now: they work from here on, all at once.
    services::set_installed(true);
}

/// HDL final section (rmmod and shutdown).
///
/// # Safety
/// Called by Hercules' HDL loader.
#[cfg(not(hercules_hyperion))]
#[no_mangle]
pub unsafe extern "C" fn hdl_fini() -> i32 {
    section_fini()
}

/// Hyperion's dependency section: versions and sizes of HERCULES, REGS, DEVBLK and SYSBLK
/// must be those of the Hercules loading the plugin (the glue explains a mismatch).
///
/// # Safety
/// Called by Hyperion's HDL loader with its version-check callback.
#[cfg(hercules_hyperion)]
#[no_mangle]
pub unsafe extern "C" fn hdl_check_depends_ep(depchk: *mut c_void) -> i32 {
    section_depc(depchk)
}

/// Hyperion's registration section (hooks, console command, start of the plugin).
///
/// # Safety
/// Called by Hyperion's HDL loader.
#[cfg(hercules_hyperion)]
#[no_mangle]
pub unsafe extern "C" fn hdl_register_symbols_ep(regsym: *mut c_void) {
    section_init(regsym)
}

/// Hyperion's resolver section (run again for every module at each ldmod and rmmod).
///
/// # Safety
/// Called by Hyperion's HDL loader.
#[cfg(hercules_hyperion)]
#[no_mangle]
pub unsafe extern "C" fn hdl_resolve_symbols_ep(getsym: *mut c_void) {
    section_reso(getsym)
}

/// Hyperion's instruction section. Hyperion runs it with every CPU stopped and the interrupt
/// lock held, so no guest can see part of the set: the facilities are installed first,
/// because the glue's section puts their bits into Hyperion's facility list, which follows
/// [`services::installed`].
///
/// # Safety
/// Called by Hyperion's HDL loader.
#[cfg(hercules_hyperion)]
#[no_mangle]
pub unsafe extern "C" fn hdl_define_instructs_ep(defins: *mut c_void) {
    services::set_installed(true);
    section_dins(defins);
}

/// Hyperion's final section (rmmod, with every CPU stopped, and shutdown).
///
/// # Safety
/// Called by Hyperion's HDL loader.
#[cfg(hercules_hyperion)]
#[no_mangle]
pub unsafe extern "C" fn hdl_on_module_unload_ep() -> i32 {
    section_fini()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_console_command_without_words_is_refused_quietly() {
        // SAFETY: the hook must tolerate null pointers from a broken caller.
        unsafe { hcpumf_command(0, std::ptr::null(), std::ptr::null()) };
    }
}

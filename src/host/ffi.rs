//! The C ABI hooks the glue calls on CPU threads (declared in the generated
//! `include/hcpumf.h`): the instructions, the tick, problem-state switches, alerts for
//! waiting CPUs, STFLE, SIGP, resets and the CPACF accounting. The module's life cycle and
//! the console command are `crate::plugin`'s.
//!
//! Every hook catches panics ([`guarded`]): a Rust panic must never unwind into Hercules. A
//! hook that panicked logs `HHCMF999E` and answers conservatively (no state change, cc 3).

use crate::host::glue::{hcpumf_result, hcpumf_view};
use crate::host::meter::RawCounts;
use crate::host::services::{self, log};
use crate::host::{crypto, instructions, model, panics, resets, state, tick};
use hcpumf_arch::cpu::{Arch, CpuView};
use hcpumf_arch::instructions::{precheck, Operands};
use hcpumf_arch::pgm::ProgramException;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub fn guarded<T>(what: &str, default: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            log(&format!(
                "HHCMF999E hcpumf internal error in {what}; the request was ignored (a panic {})",
                panics::describe(&*p)
            ));
            default
        }
    }
}

/// The Rust view of the glue's CPU snapshot.
pub fn to_view(v: &hcpumf_view) -> CpuView {
    CpuView {
        cpu: v.cpu,
        arch: Arch::from_u32(u32::from(v.arch)),
        problem_state: v.problem != 0,
        wait: v.wait != 0,
        dat: v.dat != 0,
        asc: v.asc & 3,
        ext_mask: v.ext_mask != 0,
        higher_external_pending: v.ext_higher != 0,
        ia: v.ia,
        cr0: v.cr0,
        cr4: v.cr4,
        inst: v.inst,
        ilen: v.ilen,
        meter: Default::default(),
        tod: v.tod,
    }
}

fn raw_counts(v: &hcpumf_view) -> RawCounts {
    RawCounts {
        instcount: v.instcount,
        prevcount: v.prevcount,
        waitsig: v.waitsig,
    }
}

fn operands(v: &hcpumf_view) -> Operands {
    Operands {
        r1: v.r1,
        r2: v.r2,
        m3: v.m3,
        addr: v.addr,
    }
}

/// Operation and privileged-operation checks before the operand is touched. Returns the
/// program-interruption code or 0.
///
/// # Safety
/// `v` must point to a valid view.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_precheck(opcode: u32, v: *const hcpumf_view) -> u16 {
    guarded("precheck", 0, || {
        // SAFETY: the glue passes its stack view.
        let Some(v) = (unsafe { v.as_ref() }) else {
            return 0;
        };
        let Some(_in) = services::enter(v.cpu) else {
            return ProgramException::Operation.code();
        };
        match precheck(model::current(), opcode, &to_view(v)) {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Execute an instruction whose operand (`len` bytes at `operand`, may be null when 0) has
/// been fetched; fill `res` with what the glue must do.
///
/// # Safety
/// `v` and `res` must be valid; `operand` must hold `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_execute(
    opcode: u32,
    v: *const hcpumf_view,
    operand: *const u8,
    len: u32,
    res: *mut hcpumf_result,
) {
    // SAFETY: the glue passes pointers to its stack objects.
    let Some(res) = (unsafe { res.as_mut() }) else {
        return;
    };
    res.pgm = 0;
    res.cc = 3;
    res.set_r1 = 0;
    res.store_len = 0;
    guarded("execute", (), || {
        // SAFETY: as above.
        let Some(v) = (unsafe { v.as_ref() }) else {
            return;
        };
        // Unloading since the operation check: the instruction is not installed any more.
        let Some(_in) = services::enter(v.cpu) else {
            res.pgm = ProgramException::Operation.code();
            res.cc = -1;
            return;
        };
        let bytes: &[u8] = if operand.is_null() || len == 0 {
            &[]
        } else {
            // SAFETY: the glue fetched `len` bytes into the buffer `operand` points to.
            unsafe { std::slice::from_raw_parts(operand, len as usize) }
        };
        let view = to_view(v);
        match instructions::execute(opcode, &view, &operands(v), bytes, raw_counts(v)) {
            Ok(out) => {
                res.cc = out.cc.map(|c| c as i8).unwrap_or(-1);
                if let Some(r1) = out.r1 {
                    res.set_r1 = 1;
                    res.r1 = r1;
                }
                let n = out.store.len().min(res.store.len());
                res.store[..n].copy_from_slice(&out.store[..n]);
                res.store_len = n as u32;
            }
            Err(e) => {
                res.pgm = e.code();
                res.cc = -1;
            }
        }
    })
}

/// The CPU's tick (see `host::tick`). Returns 1 with `*param` set when the glue must
/// present the measurement alert now; 2 when an alert is pending but the CPU is not enabled
/// for it, so that the glue watches for the instruction that enables it (SA23-2260,
/// Measurement Alert: presented once the PSW external mask and CR0 bit 58 are on).
///
/// # Safety
/// `v` and `param` must be valid.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_tick(v: *const hcpumf_view, param: *mut u32) -> i32 {
    guarded("tick", 0, || {
        // SAFETY: the glue passes pointers to its stack objects.
        let (Some(v), Some(param)) = (unsafe { v.as_ref() }, unsafe { param.as_mut() }) else {
            return 0;
        };
        let Some(_in) = services::enter(v.cpu) else {
            return 0;
        };
        match tick::tick(
            &to_view(v),
            raw_counts(v),
            v.prefix,
            v.cr1,
            v.timer_due != 0,
        ) {
            Some(p) => {
                *param = p;
                1
            }
            None if state::cpu(v.cpu).is_some_and(|st| !st.alerts.pending().is_empty()) => 2,
            None => 0,
        }
    })
}

/// Does CPU `cpu` need accounting at problem-state changes (problem-state set active or a
/// HIS run collecting counters)?
#[no_mangle]
pub extern "C" fn hcpumf_watching(cpu: u16) -> i32 {
    guarded("watching", 0, || {
        state::cpu(cpu)
            .map(|st| {
                i32::from(
                    st.schedule
                        .next_account_ns
                        .load(std::sync::atomic::Ordering::Relaxed)
                        != 0,
                )
            })
            .unwrap_or(0)
    })
}

/// The CPU is about to execute an instruction that changes the problem-state bit to
/// `next` (1 problem, 0 supervisor, -1 not known).
///
/// # Safety
/// `v` must be valid.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_state_change(v: *const hcpumf_view, next: i32) {
    guarded("state change", (), || {
        // SAFETY: the glue passes its stack view.
        if let Some(v) = unsafe { v.as_ref() } {
            let next = match next {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            };
            if let Some(st) = state::cpu(v.cpu) {
                let _held = st.exclusive.take();
                st.meter
                    .account_now(raw_counts(v), v.problem != 0, false, next);
            }
        }
    })
}

/// For a CPU in a wait state (interrupt lock held by the glue): take the pending alert if
/// the CPU is enabled for it.
///
/// # Safety
/// `v` and `param` must be valid.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_alert_for_waiting(v: *const hcpumf_view, param: *mut u32) -> i32 {
    guarded("alert", 0, || {
        // SAFETY: the glue passes pointers to its stack objects.
        let (Some(v), Some(param)) = (unsafe { v.as_ref() }, unsafe { param.as_mut() }) else {
            return 0;
        };
        let view = to_view(v);
        let Some(st) = state::cpu(view.cpu) else {
            return 0;
        };
        match st.alerts.take_deliverable(&view) {
            Some(p) => {
                *param = p;
                1
            }
            None => 0,
        }
    })
}

/// Add the plugin's facility bits to the STFLE list of `len` bytes (buffer `cap` bytes);
/// returns the new length.
///
/// # Safety
/// `list` must hold `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_facility_list(
    list: *mut u8,
    cap: usize,
    len: i32,
    arch: u8,
) -> i32 {
    guarded("stfle", len, || {
        if list.is_null() || !services::installed() {
            return len;
        }
        // SAFETY: the glue's buffer holds `cap` bytes.
        let buf = unsafe { std::slice::from_raw_parts_mut(list, cap) };
        hcpumf_arch::facility_list(buf, len.max(0) as usize, Arch::from_u32(u32::from(arch))) as i32
    })
}

/// SIGNAL PROCESSOR with `order` to CPU `target` is about to be performed by the CPU `v`
/// describes (CPU reset and initial CPU reset orders reset the target's measurement state).
///
/// # Safety
/// `v` must be valid.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_sigp(v: *const hcpumf_view, order: u8, target: u16) {
    guarded("reset", (), || {
        // SAFETY: the glue passes its stack view.
        if let Some(v) = unsafe { v.as_ref() } {
            resets::sigp(&to_view(v), order, target);
        }
    })
}

/// SERVICE CALL with SCLP command word `command`, before Hercules performs it: a "configure
/// CPU" command resets that CPU's measurement state (initial CPU reset).
///
/// # Safety
/// `v` must be null or point to a valid view.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_servc(v: *const hcpumf_view, command: u32) {
    guarded("reset", (), || {
        // SAFETY: the glue passes its stack view.
        if let Some(v) = unsafe { v.as_ref() } {
            resets::sclp(&to_view(v), command);
        }
    })
}

/// Hercules' `debug_cpu_state` hook: a system reset or load goes through CPU `cpu`, which is
/// in the operating state (`started` = 1) when a load has just finished.
#[no_mangle]
pub extern "C" fn hcpumf_system_reset(cpu: u16, started: i32) {
    guarded("reset", (), || {
        resets::system_reset_hook(cpu, started != 0);
    })
}

/// The first word of every console command, before Hercules performs it.
///
/// # Safety
/// `word` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn hcpumf_command_seen(word: *const c_char) {
    guarded("command", (), || {
        let w = if word.is_null() {
            String::new()
        } else {
            // SAFETY: NUL-terminated (Hercules' parsed argument).
            unsafe { CStr::from_ptr(word) }
                .to_string_lossy()
                .into_owned()
        };
        resets::command_seen(&w);
    })
}

/// A CPACF instruction is about to run on `cpu` (`opcode`, function code `fc`).
#[no_mangle]
pub extern "C" fn hcpumf_crypto_begin(cpu: u16, opcode: u32, fc: u32) {
    guarded("crypto", (), || crypto::begin(cpu, opcode, fc))
}

/// The CPACF instruction finished after `ns` nanoseconds of CPU time.
#[no_mangle]
pub extern "C" fn hcpumf_crypto_end(cpu: u16, opcode: u32, fc: u32, ns: u64) {
    guarded("crypto", (), || crypto::end(cpu, opcode, fc, ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_never_crosses_the_boundary() {
        let v = guarded("test", 7, || -> i32 { panic!("boom") });
        assert_eq!(v, 7);
    }

    #[test]
    fn null_pointers_are_refused_quietly() {
        // SAFETY: the hooks must tolerate null pointers from a broken caller.
        unsafe {
            assert_eq!(hcpumf_precheck(0xB28E, std::ptr::null()), 0);
            hcpumf_execute(
                0xB28E,
                std::ptr::null(),
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
            );
            assert_eq!(hcpumf_tick(std::ptr::null(), std::ptr::null_mut()), 0);
            assert_eq!(hcpumf_facility_list(std::ptr::null_mut(), 0, 16, 2), 16);
        }
    }

    #[test]
    fn execute_reports_program_exceptions_and_condition_codes() {
        let mut v = hcpumf_view {
            arch: 2,
            problem: 1,
            ..Default::default()
        };
        // SAFETY: valid pointers to stack objects.
        unsafe {
            // Until ldmod has put every instruction into Hercules' tables (and from the
            // start of rmmod), each is an operation exception and STFLE shows none.
            services::set_installed(false);
            assert_eq!(hcpumf_precheck(0xB284, &v), 1, "not installed yet");
            let mut list = [0u8; 16];
            assert_eq!(hcpumf_facility_list(list.as_mut_ptr(), 16, 8, 2), 8);
            assert_eq!(list, [0u8; 16], "no facility bits before ldmod completes");
            services::set_installed(true);
            assert_eq!(hcpumf_precheck(0xB284, &v), 2, "LCCTL in the problem state");
            v.problem = 0;
            assert_eq!(hcpumf_precheck(0xB284, &v), 0);
            v.arch = 0;
            assert_eq!(hcpumf_precheck(0xB284, &v), 1, "S/370 without archs=all");
            v.arch = 2;
            let mut res = hcpumf_result {
                pgm: 0,
                cc: 0,
                set_r1: 0,
                r1: 0,
                store_len: 0,
                store: [0; 1280],
            };
            let op = 0x8000_0000_0000_0000u64.to_be_bytes();
            hcpumf_execute(0xB284, &v, op.as_ptr(), 8, &mut res);
            assert_eq!((res.pgm, res.cc), (6, -1), "reserved bit: specification");
            hcpumf_execute(0xB28E, &v, std::ptr::null(), 0, &mut res);
            assert_eq!((res.pgm, res.store_len), (0, 64), "QCTRI stores its block");
        }
    }
}

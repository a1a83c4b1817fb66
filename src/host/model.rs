//! The machine model in force (read lock-free on the instruction path) and how it is chosen:
//! the CPU-ID machine type Hercules reports with STIDP (the configuration's CPUMODEL), then
//! `HCPUMF_OPTIONS`.
//!
//! Hercules builds the CPU ID only when it has read the configuration's system statements,
//! and people put `ldmod hcpumf` among them: loaded there, the plugin sees machine type 0000.
//! The model then stays *pending* until the CPU ID is there (or a CPU is configured, which
//! Hercules does after building it) and is settled at the first moment anything asks for it
//! after that: the sampler thread looks every 100 ms, and every use of [`current`] checks,
//! so no guest instruction can see the provisional model. A model set explicitly
//! (`model=` in `HCPUMF_OPTIONS`) is in force at once and keeps precedence.

use crate::host::services::{cpu_online, host, log};
use crate::host::{alerts, state};
use hcpumf_arch::model::{MachineModel, SettingError};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

static CURRENT: AtomicPtr<MachineModel> = AtomicPtr::new(std::ptr::null_mut());
/// The model waits for the configuration's CPU ID.
static PENDING: AtomicBool = AtomicBool::new(false);
/// Serializes settling (taken only while the model is pending).
static SETTLING: Mutex<()> = Mutex::new(());

/// The model in force. Lock-free; replaced models are intentionally leaked (they change only
/// on operator command, a handful of times per run) so that readers never see a freed model.
#[inline]
pub fn current() -> &'static MachineModel {
    if PENDING.load(Ordering::Relaxed) {
        settle();
    }
    let p = CURRENT.load(Ordering::Acquire);
    if p.is_null() {
        install(MachineModel::default())
    } else {
        // SAFETY: non-null pointers stored in CURRENT come from Box::leak and are never freed.
        unsafe { &*p }
    }
}

/// Put a new model in force and return it.
pub fn install(model: MachineModel) -> &'static MachineModel {
    let leaked: &'static mut MachineModel = Box::leak(Box::new(model));
    CURRENT.store(leaked, Ordering::Release);
    leaked
}

/// Is the model still waiting for the configuration's CPU ID?
pub fn pending() -> bool {
    PENDING.load(Ordering::Acquire)
}

/// The CPU-ID machine type (0 while Hercules reads the system statements; 2097 outside
/// Hercules).
fn machine_type() -> u16 {
    host()
        .and_then(|h| h.machine_type)
        // SAFETY: the callback only reads sysblk.cpuid.
        .map(|f| unsafe { f() })
        .unwrap_or(0x2097)
}

/// The model of machine type `mtype` with the `HCPUMF_OPTIONS` settings applied (and their
/// error, when they do not apply: the defaults are used then).
fn model_for(mtype: u16) -> (MachineModel, Option<SettingError>) {
    let mut m = MachineModel::for_machine_type(mtype);
    if let Ok(opts) = std::env::var("HCPUMF_OPTIONS") {
        let words: Vec<String> = opts.split_whitespace().map(str::to_string).collect();
        if let Err(e) = m.apply_settings(&words) {
            return (MachineModel::for_machine_type(mtype), Some(e));
        }
    }
    (m, None)
}

/// Does `HCPUMF_OPTIONS` name the model explicitly?
fn explicit_model() -> bool {
    std::env::var("HCPUMF_OPTIONS").is_ok_and(|o| {
        o.split_whitespace().any(|w| {
            let k = w.split('=').next().unwrap_or("").to_ascii_lowercase();
            k == "model" || k == "type"
        })
    })
}

/// Choose the model at load: from the STIDP machine type, then `HCPUMF_OPTIONS`; pending
/// when Hercules has not built the CPU ID yet (see the module documentation).
pub fn load() {
    let mtype = machine_type();
    let (m, err) = model_for(mtype);
    if let Some(e) = err {
        log(&format!(
            "HHCMF011E HCPUMF_OPTIONS: {e}; using the defaults"
        ));
    }
    let wait = mtype == 0 && !explicit_model() && !any_cpu_online();
    install(m);
    PENDING.store(wait, Ordering::Release);
    apply_authorizations(None);
}

fn any_cpu_online() -> bool {
    (0..state::MAX_CPUS as u16).any(cpu_online)
}

/// Settle a pending model once the configuration is complete: the CPU ID is there (or a CPU
/// is configured). Returns whether it was settled now.
pub fn settle() -> bool {
    if !PENDING.load(Ordering::Acquire) {
        return false;
    }
    let guard = SETTLING.lock();
    if !PENDING.load(Ordering::Acquire) {
        return false;
    }
    let mtype = machine_type();
    if mtype == 0 && !any_cpu_online() {
        return false;
    }
    let (m, _) = model_for(mtype);
    install(m);
    PENDING.store(false, Ordering::Release);
    drop(guard);
    apply_authorizations(None);
    log(&format!(
        "HHCMF002I hcpumf model in force (CPUMODEL {mtype:04X}): {}",
        current().summary()
    ));
    true
}

/// Put a model in force by operator command: settled, whatever the CPU ID says.
pub fn install_explicit(model: MachineModel) -> &'static MachineModel {
    let _guard = SETTLING.lock();
    PENDING.store(false, Ordering::Release);
    if model.dedicated && !current_unsettled().is_some_and(|m| m.dedicated) {
        // CPUs made dedicated now: their waits count as sampling time from here on.
        for st in state::rt().cpus.iter() {
            let _held = st.exclusive.take();
            st.schedule.guest.forget_wait_mark();
            st.schedule.host.forget_wait_mark();
        }
    }
    install(model)
}

/// The model installed, without settling a pending one (None before the first).
fn current_unsettled() -> Option<&'static MachineModel> {
    let p = CURRENT.load(Ordering::Acquire);
    // SAFETY: non-null pointers stored in CURRENT come from Box::leak and are never freed.
    (!p.is_null()).then(|| unsafe { &*p })
}

/// Push the model's authorizations to the CPUs (all, or one), raising the authorization
/// change alerts the architecture requires.
pub fn apply_authorizations(only: Option<u16>) {
    let m = current();
    for (i, st) in state::rt().cpus.iter().enumerate() {
        let cpu = i as u16;
        if only.is_some_and(|c| c != cpu) {
            continue;
        }
        let _held = st.exclusive.take();
        let now = st.meter.reading();
        let mut bits = st
            .counters
            .set_authorization(m, m.counter_authorization, &now);
        bits |= st.sampling.set_authorization(
            m.basic_sampling_authorized,
            m.diagnostic_sampling_authorized,
        );
        if !bits.is_empty() {
            alerts::raise_alert(cpu, bits);
        }
        alerts::settle_alerts(st);
    }
}

/// Convert an interval in CPU cycles to CPU nanoseconds at the model's speed.
pub fn cycles_to_ns(cycles: u64) -> u64 {
    let speed = u128::from(current().cpu_speed.max(1));
    ((u128::from(cycles) * 1000) / speed).min(u128::from(u64::MAX)) as u64
}

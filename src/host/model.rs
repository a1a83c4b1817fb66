//! The machine model in force (read lock-free on the instruction path) and how it is chosen
//! at load: the STIDP machine type Hercules reports, then `HCPUMF_OPTIONS`.

use crate::arch::model::MachineModel;
use crate::host::services::{host, log};
use crate::host::{alerts, state};
use std::sync::atomic::{AtomicPtr, Ordering};

static CURRENT: AtomicPtr<MachineModel> = AtomicPtr::new(std::ptr::null_mut());

/// The model in force. Lock-free; replaced models are intentionally leaked (they change only
/// on operator command, a handful of times per run) so that readers never see a freed model.
pub fn current() -> &'static MachineModel {
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

/// Choose the model at load: from the STIDP machine type, then `HCPUMF_OPTIONS`.
pub fn load() {
    let mtype = host()
        .and_then(|h| h.machine_type)
        // SAFETY: the callback only reads sysblk.cpuid.
        .map(|f| unsafe { f() })
        .unwrap_or(0x2097);
    let mut m = MachineModel::for_machine_type(mtype);
    if let Ok(opts) = std::env::var("HCPUMF_OPTIONS") {
        let words: Vec<String> = opts.split_whitespace().map(str::to_string).collect();
        if let Err(e) = m.apply_settings(&words) {
            log(&format!(
                "HHCMF011E HCPUMF_OPTIONS: {e}; using the defaults"
            ));
            m = MachineModel::for_machine_type(mtype);
        }
    }
    install(m);
    apply_authorizations(None);
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

//! The host side of a HIS run: on each CPU's tick, a sampling clock of the run's own and a
//! 4-KB block the plugin owns (`run_cpu`); full blocks go to the run's writer (`his::run`)
//! through a channel. Nothing here touches guest storage or guest-visible facility state.
//!
//! The run attaches itself with [`attach`] and detaches with [`detach`]; the guest program
//! parameter of the entries comes from the provider it registers (MVS awareness), or else
//! from what the guest loaded with LPP.

use crate::host::deadline::{schedule, wall_ns};
use crate::host::model;
use crate::host::services::tod_or_now;
use crate::host::state::{self, CpuState};
use crate::host::storage::HostStorage;
use hcpumf_arch::cpu::CpuView;
use hcpumf_arch::storage::GuestStorage;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Mutex, OnceLock};

/// A full (or, at the end, partial) block of CPU `cpu`.
pub struct Block {
    pub cpu: u16,
    pub bytes: Vec<u8>,
}

/// The guest program parameter of a run's sample of the CPU `view` describes (prefix, CR1),
/// read from guest storage (0 when it cannot tell), and, when the last argument asks for the
/// check, whether the storage it was read from still describes the address space of those
/// registers (false when the CPU has switched since they were read; true unchecked).
pub type ProgramParameterSource = fn(&dyn GuestStorage, &CpuView, u64, u64, bool) -> (u64, bool);

/// Where full blocks go while a run is attached.
static SINK: Mutex<Option<mpsc::Sender<Block>>> = Mutex::new(None);
/// The program-parameter provider a run registered (set once; used when the run asks).
static PP_SOURCE: OnceLock<ProgramParameterSource> = OnceLock::new();

/// How a run samples a CPU.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunSampling {
    /// Sampling interval in CPU ns (0: counters only).
    pub interval_ns: u64,
    /// Combined (basic + diagnostic) entries.
    pub diagnostic: bool,
    /// Fill the guest program parameter from the registered provider.
    pub program_parameter_from_guest: bool,
}

/// Attach a run: full blocks go to `sink`; `source` (registered once) provides guest
/// program parameters.
pub fn attach(sink: Option<mpsc::Sender<Block>>, source: ProgramParameterSource) {
    let _ = PP_SOURCE.set(source);
    if let Ok(mut s) = SINK.lock() {
        *s = sink;
    }
}

/// Start a run on CPU `cpu`: accounting points for the problem-state split, and sampling.
pub fn start_cpu(cpu: u16, how: RunSampling) {
    let Some(st) = state::cpu(cpu) else { return };
    st.run.reset();
    let s = &st.schedule;
    s.host_accounting.store(true, Ordering::Release);
    if how.interval_ns != 0 {
        // The first sample is due one interval after the CPU's next tick.
        s.host.start_pending(how.interval_ns);
        s.host_mvs
            .store(how.program_parameter_from_guest, Ordering::Release);
        s.host_diagnostic.store(how.diagnostic, Ordering::Release);
    }
    schedule(cpu, wall_ns());
}

/// Stop sampling on every CPU (counting goes on).
pub fn stop_sampling() {
    for st in state::rt().cpus.iter() {
        st.schedule.host.stop();
    }
}

/// Stop the run on every CPU and return each CPU's partial block (F off), sealed with the
/// TOD clock `tod`. Blocks sent before are the sink's; the sink is dropped.
pub fn detach(tod: u64) -> Vec<Block> {
    let m = model::current();
    let mut partial = Vec::new();
    for (i, st) in state::rt().cpus.iter().enumerate() {
        st.schedule.host.stop();
        st.schedule.host_accounting.store(false, Ordering::Release);
        if let Some(bytes) = st.run.take_partial(m, tod) {
            partial.push(Block {
                cpu: i as u16,
                bytes,
            });
        }
    }
    if let Ok(mut s) = SINK.lock() {
        *s = None;
    }
    partial
}

/// The CPU as a run's tick last saw it: view, prefix and CR1.
pub fn last_view(cpu: u16) -> Option<(CpuView, u64, u64)> {
    state::cpu(cpu)?.run.last_seen()
}

/// On the CPU's tick: note what the CPU looks like (for the map) and, when the run's clock
/// says so, store one entry into the CPU's block.
/// `gpp`: the guest program parameter when the caller read it already (else read here).
pub fn sample(st: &CpuState, view: &CpuView, prefix: u64, cr1: u64, now_ns: u64, gpp: Option<u64>) {
    let s = &st.schedule;
    if s.host_accounting.load(Ordering::Relaxed) {
        st.run.seen(view, prefix, cr1);
    }
    let Some(stretch) = s.host.poll(now_ns, view.meter.instructions) else {
        return;
    };
    let unique = s.host.unique(stretch, model::current().cpu_speed);
    let gpp = gpp.unwrap_or_else(|| program_parameter(st, view, prefix, cr1));
    store(st, view, unique, gpp);
}

/// The guest program parameter of a sample of the CPU `view` describes (prefix, CR1): what
/// the provider (MVS awareness) reads from guest storage, or else what the guest itself
/// loaded with LPP (z/OS's dispatcher does, while the guest samples). For the CPU's own
/// thread (the tick) or a CPU that stands still, where registers and storage cannot move
/// apart.
pub fn program_parameter(st: &CpuState, view: &CpuView, prefix: u64, cr1: u64) -> u64 {
    parameter_from(st, view, prefix, cr1, false).0
}

/// [`program_parameter`] for a sample taken from another thread while the CPU runs: None when
/// guest storage no longer describes the address space of the registers read before it
/// (the CPU switched in between; only MVS awareness can tell).
pub fn program_parameter_checked(
    st: &CpuState,
    view: &CpuView,
    prefix: u64,
    cr1: u64,
) -> Option<u64> {
    match parameter_from(st, view, prefix, cr1, true) {
        (gpp, true) => Some(gpp),
        (_, false) => None,
    }
}

fn parameter_from(
    st: &CpuState,
    view: &CpuView,
    prefix: u64,
    cr1: u64,
    check: bool,
) -> (u64, bool) {
    let (from_guest, current) = if st.schedule.host_mvs.load(Ordering::Relaxed) {
        match (PP_SOURCE.get(), HostStorage::current()) {
            (Some(f), Some(storage)) => f(&storage, view, prefix, cr1, check),
            _ => (0, true),
        }
    } else {
        (0, true)
    };
    if from_guest != 0 {
        (from_guest, current)
    } else {
        (st.program_parameter.get(), current)
    }
}

/// Store one entry of the CPU `view` describes, with `unique` instructions at the sampling
/// point and the guest program parameter `gpp`, into the CPU's block; a block that became
/// full goes to the writer.
pub fn store(st: &CpuState, view: &CpuView, unique: u8, gpp: u64) {
    let s = &st.schedule;
    let m = model::current();
    let diagnostic = s.host_diagnostic.load(Ordering::Relaxed);
    let full = st
        .run
        .store(m, view, unique, gpp, diagnostic, || tod_or_now(view.tod));
    if let Some(bytes) = full {
        send(Block {
            cpu: view.cpu,
            bytes,
        });
    }
}

fn send(block: Block) {
    if let Ok(g) = SINK.lock() {
        if let Some(tx) = g.as_ref() {
            let _ = tx.send(block);
        }
    }
}

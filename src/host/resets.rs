//! Resets of the measurement state (SA23-2260: the controls each reset clears; the
//! Principles of Operation, "Resets"): which reset a Hercules console command, a load or a
//! SIGNAL PROCESSOR order performs on each CPU, and applying it.

use crate::host::model;
use crate::host::services::cpu_online;
use crate::host::state::{self, MAX_CPUS};
use hcpumf_arch::cpu::CpuView;
use std::sync::atomic::Ordering;

/// CPU reset / initial CPU reset of one CPU's measurement state (SA23-2260: activation
/// controls cleared by CPU reset; sets and functions disabled, program parameter and pending
/// requests cleared by initial CPU reset and clear reset).
pub fn reset_cpu(cpu: u16, initial: bool) {
    let Some(st) = state::cpu(cpu) else { return };
    let _held = st.exclusive.take();
    // Hercules zeroes the CPU's instruction counts with every reset it performs.
    st.meter.rebase();
    reset_measurements(st, initial);
}

/// The measurement state of [`reset_cpu`], without expecting Hercules to zero its counts.
fn reset_measurements(st: &state::CpuState, initial: bool) {
    let now = st.meter.reading();
    if initial {
        st.counters.initial_cpu_reset();
        st.sampling.initial_cpu_reset();
        st.program_parameter.clear();
    } else {
        st.counters.cpu_reset(model::current(), &now);
        st.sampling.cpu_reset();
    }
    st.alerts.clear_all();
    st.schedule.guest.stop();
    st.schedule.next_account_ns.store(0, Ordering::Relaxed);
}

/// `ldmod` of a plugin that was loaded before (`rmmod` leaves the shared object mapped, and
/// with it every CPU's state): start every CPU from the state of an initial CPU reset, as if
/// the facilities had just been installed, with no sampling clock, deadline or arming of the
/// earlier load left over (a CPU left "armed" would never be armed again). A guest that was
/// measuring finds its counter sets and sampling functions disabled and its TEAR and DEAR
/// cleared (QCTRI, QSI), and starts them again; the time the plugin was unloaded is nobody's.
pub fn reset_for_load() {
    let r = state::rt();
    for st in r.cpus.iter() {
        reset_cpu_for_load(st);
    }
    r.groups.reset();
}

/// One CPU's part of [`reset_for_load`].
fn reset_cpu_for_load(st: &state::CpuState) {
    let _held = st.exclusive.take();
    // Hercules keeps the instruction counts at ldmod: no rebase, which would take the
    // next momentary drop of the count (a read between the timer thread's two stores of
    // its fold) for a reset and count every instruction since IPL again.
    reset_measurements(st, true);
    let s = &st.schedule;
    s.host.stop();
    s.host_accounting.store(false, Ordering::Release);
    s.host_mvs.store(false, Ordering::Release);
    s.host_diagnostic.store(false, Ordering::Release);
    s.shared.armed.store(false, Ordering::Release);
    s.shared.wall_deadline.store(u64::MAX, Ordering::Release);
    s.shared.due_cpu_ns.store(0, Ordering::Relaxed);
    s.shared.follow_cpu_ns.store(0, Ordering::Relaxed);
    s.shared.accept_gap_ns.store(0, Ordering::Relaxed);
    s.shared.armed_cpu_ns.store(0, Ordering::Relaxed);
    s.private.stale_looks.store(0, Ordering::Relaxed);
    s.private.seen_cpu_ns.store(0, Ordering::Relaxed);
    s.private.looked_cpu_ns.store(0, Ordering::Relaxed);
    s.private.escalated.store(false, Ordering::Relaxed);
    st.run.reset();
}

/// The manual controls of Hercules' console that reset the configuration (z/Architecture
/// Principles of Operation, "Resets" and "Initial Program Loading"): which of them a reset
/// belongs to decides, per CPU, between CPU reset and initial CPU reset, and SA23-2260 ties
/// the measurement state to exactly that distinction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemReset {
    /// `sysreset`, system-reset-normal: a CPU reset of every CPU.
    Normal,
    /// `sysclear`, system-reset-clear (clear reset): an initial CPU reset of every CPU.
    Clear,
    /// `ipl`, load-normal: an initial CPU reset of the IPL CPU, a CPU reset of the others.
    LoadNormal,
    /// `iplc`, load-clear: a clear reset, so an initial CPU reset of every CPU.
    LoadClear,
}

impl SystemReset {
    /// The reset a Hercules console command performs (Hercules matches these command words
    /// exactly, ignoring case).
    pub fn of_command(word: &str) -> Option<SystemReset> {
        match word.to_ascii_lowercase().as_str() {
            "sysreset" => Some(SystemReset::Normal),
            "sysclear" => Some(SystemReset::Clear),
            "ipl" => Some(SystemReset::LoadNormal),
            "iplc" => Some(SystemReset::LoadClear),
            _ => None,
        }
    }

    /// Does `cpu` get an initial CPU reset (true) or a CPU reset (false), `ipl_cpu` being
    /// the CPU the reset is performed through (the IPL CPU of a load)?
    pub fn initial_for(self, cpu: u16, ipl_cpu: u16) -> bool {
        match self {
            SystemReset::Normal => false,
            SystemReset::Clear | SystemReset::LoadClear => true,
            SystemReset::LoadNormal => cpu == ipl_cpu,
        }
    }
}

/// The last console command of this thread: Hercules performs a reset command synchronously
/// on the thread that entered it, between its `system_command` hook and the
/// `debug_cpu_state` hook that its `system_reset` calls first.
#[derive(Clone, Copy, Debug, Default)]
struct LastCommand {
    reset: Option<SystemReset>,
    /// The reset was already applied (a load calls `debug_cpu_state` again on failure).
    applied: bool,
}

thread_local! {
    static LAST_COMMAND: std::cell::Cell<LastCommand> =
        const { std::cell::Cell::new(LastCommand { reset: None, applied: false }) };
}

/// Every console command Hercules processes passes here first (its first word).
pub fn command_seen(word: &str) {
    // Console commands come once Hercules has read the configuration: a model that waited
    // for its CPUMODEL is settled now, and says so.
    model::settle();
    LAST_COMMAND.with(|c| {
        c.set(LastCommand {
            reset: SystemReset::of_command(word),
            applied: false,
        })
    });
    if configures_cpus(word) {
        // A CPU placed in the configured state gets an initial CPU reset (Hercules'
        // configure_cpu performs it): the measurement state of a CPU configured by this
        // command must be that of an initial CPU reset, not what it had when it left the
        // configuration. No thread runs an offline CPU, so its state is reset here, before
        // the command configures it.
        for n in 0..MAX_CPUS as u16 {
            if !cpu_online(n) {
                reset_cpu(n, true);
            }
        }
    }
}

/// `cf` and `cfall` configure CPUs (`on`) or take them out of the configuration (`off`).
fn configures_cpus(word: &str) -> bool {
    matches!(word.to_ascii_lowercase().as_str(), "cf" | "cfall")
}

/// Hercules' `debug_cpu_state` hook: `cpu` is the CPU a system reset or load goes through,
/// `started` whether it is in the operating state (a load has just finished). Returns the
/// reset applied, if any.
///
/// Hercules calls the hook when `system_reset` begins (every CPU stopped), again when a
/// load finished (the IPL CPU started) or failed. The reset applied is the one of the
/// console command this thread is executing; a reset no console command asked for (the
/// HTTP server's IPL) is a load-normal.
pub fn system_reset_hook(cpu: u16, started: bool) -> Option<SystemReset> {
    if started {
        return None;
    }
    let kind = LAST_COMMAND.with(|c| {
        let last = c.get();
        match last.reset {
            Some(_) if last.applied => None,
            Some(k) => {
                c.set(LastCommand {
                    applied: true,
                    ..last
                });
                Some(k)
            }
            None => Some(SystemReset::LoadNormal),
        }
    })?;
    for n in 0..MAX_CPUS as u16 {
        reset_cpu(n, kind.initial_for(n, cpu));
    }
    Some(kind)
}

/// A SIGNAL PROCESSOR order issued by the CPU `view` describes to CPU `target`, about to
/// be performed by Hercules: the CPU-reset (0C) and initial-CPU-reset (0B) orders reset
/// the target's measurement state. SIGP is privileged: in the problem state the order is
/// not performed (privileged-operation exception). Returns the reset applied (true =
/// initial).
pub fn sigp(view: &CpuView, order: u8, target: u16) -> Option<bool> {
    if view.problem_state || usize::from(target) >= MAX_CPUS {
        return None;
    }
    let initial = match order {
        0x0B => true,
        // A CPU that is not in the configuration answers cc 3; Hercules configures the
        // target of an initial CPU reset.
        0x0C if cpu_online(target) => false,
        _ => return None,
    };
    reset_cpu(target, initial);
    Some(initial)
}

/// The SCLP command of SERVICE CALL that places a CPU in the configuration ("configure
/// CPU", 0x00nn0001 with n the CPU address in bits 16-23 of the command word; Hercules'
/// `SCLP_CONFIGURE_CPU` and `SCLP_RESOURCE_MASK`).
const SCLP_CONFIGURE_CPU: u32 = 0x0011_0001;
const SCLP_COMMAND_MASK: u32 = 0xFFFF_00FF;

/// SERVICE CALL with SCLP command word `command`, issued by the CPU `view` describes, about to
/// be performed by Hercules. "Configure CPU" places a CPU in the configured state with an
/// initial CPU reset (Hercules' configure_cpu performs it), as Linux's CPU hotplug (`chcpu
/// -e`) does: the measurement state of that CPU is reset here, before Hercules starts its
/// thread, as for the `cf` command. SERVC is privileged: in the problem state it is not
/// performed. Returns the CPU reset, if any.
pub fn sclp(view: &CpuView, command: u32) -> Option<u16> {
    if view.problem_state || command & SCLP_COMMAND_MASK != SCLP_CONFIGURE_CPU {
        return None;
    }
    let cpu = ((command >> 8) & 0xFF) as u16;
    // A CPU already in the configuration is left alone (Hercules' configure_cpu does
    // nothing to it), and one beyond the configurable ones is rejected by Hercules.
    if usize::from(cpu) >= MAX_CPUS || cpu_online(cpu) {
        return None;
    }
    reset_cpu(cpu, true);
    Some(cpu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcpumf_arch::model::CounterSets;

    #[test]
    fn reset_commands_and_which_cpus_get_an_initial_cpu_reset() {
        use SystemReset::*;
        assert_eq!(SystemReset::of_command("SYSRESET"), Some(Normal));
        assert_eq!(SystemReset::of_command("sysclear"), Some(Clear));
        assert_eq!(SystemReset::of_command("ipl"), Some(LoadNormal));
        assert_eq!(SystemReset::of_command("iplc"), Some(LoadClear));
        assert_eq!(
            SystemReset::of_command("sysr"),
            None,
            "Hercules needs the whole word"
        );
        // PoP "Resets": system-reset-normal is a CPU reset everywhere; clear reset and
        // load-clear an initial CPU reset everywhere; load-normal an initial CPU reset of
        // the IPL CPU only.
        for cpu in 0..4 {
            assert!(!Normal.initial_for(cpu, 1));
            assert!(Clear.initial_for(cpu, 1));
            assert!(LoadClear.initial_for(cpu, 1));
            assert_eq!(LoadNormal.initial_for(cpu, 1), cpu == 1);
        }
    }

    /// A reload keeps Hercules' instruction counts: after it, a read between the timer
    /// thread's two stores of its once-a-second fold (`instcount` zeroed, `prevcount` not
    /// yet grown) is no reset, and nothing is counted twice. (Seen: 2.23 G instructions
    /// counted for 1.2 G when `ldmod` left a reset expected.) CPU 7 is used by no other test.
    #[test]
    fn a_reload_keeps_the_instruction_count() {
        use crate::host::meter::RawCounts;
        let st = state::cpu(7).expect("cpu state");
        let raw = |instcount, prevcount| RawCounts {
            instcount,
            prevcount,
            waitsig: 0,
        };
        let m = &st.meter;
        let base = m
            .account(raw(1_000_000, 5_000_000), 1_000_000, true, false)
            .instructions;
        reset_cpu_for_load(st);
        // The fold of 1,005,000 instructions, read between its two stores, then after it.
        let r = m.account(raw(0, 5_000_000), 1_100_000, true, false);
        assert_eq!(r.instructions, base);
        let r = m.account(raw(10_000, 6_005_000), 1_200_000, true, false);
        assert_eq!(r.instructions, base + 15_000);
        // A CPU reset does zero the counts: the next drop starts them again from zero.
        reset_cpu(7, false);
        let r = m.account(raw(500, 0), 1_300_000, true, false);
        assert_eq!(r.instructions, base + 15_500);
    }

    /// The one test that drives the global per-CPU state through the reset hooks (the other
    /// unit tests use their own `CpuCounters`).
    #[test]
    fn system_reset_hook_applies_the_command_being_executed() {
        let m = model::current();
        let now = hcpumf_arch::cpu::MeterReading::default();
        let b = CounterSets::BASIC;
        let activate = |cpu: u16| {
            let st = state::cpu(cpu).expect("cpu state");
            st.counters
                .set_authorization(m, CounterSets::CPU_SETS, &now);
            let op = (u64::from(b.bits()) << 16) | u64::from(b.bits());
            assert_eq!(
                st.counters.lcctl(m, op, &now),
                Ok(hcpumf_arch::pgm::Cc::Zero)
            );
        };
        let state = |cpu: u16| {
            let st = state::cpu(cpu).expect("cpu state");
            (
                st.counters.enabled().contains(b),
                st.counters.active().contains(b),
            )
        };
        // sysreset: CPU reset of both CPUs, applied once although a load would call the
        // hook again.
        activate(0);
        activate(1);
        command_seen("sysreset");
        assert_eq!(system_reset_hook(0, false), Some(SystemReset::Normal));
        assert_eq!((state(0), state(1)), ((true, false), (true, false)));
        assert_eq!(system_reset_hook(0, false), None);
        // ipl: the IPL CPU (1) gets the initial CPU reset; the end of the load (CPU started)
        // changes nothing.
        activate(0);
        activate(1);
        command_seen("ipl");
        assert_eq!(system_reset_hook(1, false), Some(SystemReset::LoadNormal));
        assert_eq!((state(0), state(1)), ((true, false), (false, false)));
        activate(1);
        assert_eq!(system_reset_hook(1, true), None);
        assert_eq!(state(1), (true, true));
        // sysclear: initial CPU reset of every CPU.
        activate(0);
        command_seen("sysclear");
        assert_eq!(system_reset_hook(0, false), Some(SystemReset::Clear));
        assert_eq!((state(0), state(1)), ((false, false), (false, false)));
        // A reset no console command of this thread asked for: load-normal.
        activate(0);
        activate(1);
        command_seen("hcpumf");
        assert_eq!(system_reset_hook(0, false), Some(SystemReset::LoadNormal));
        assert_eq!((state(0), state(1)), ((false, false), (true, false)));
        // SIGP: privileged, and only the reset orders reset.
        activate(2);
        let sup = hcpumf_arch::cpu::CpuView::default();
        let prob = hcpumf_arch::cpu::CpuView {
            problem_state: true,
            ..Default::default()
        };
        assert_eq!(sigp(&prob, 0x0B, 2), None);
        assert_eq!(sigp(&sup, 0x06, 2), None, "restart");
        assert_eq!(state(2), (true, true));
        assert_eq!(
            sigp(&sup, 0x0C, 2),
            None,
            "CPU 2 is not in the configuration"
        );
        assert_eq!(sigp(&sup, 0x0B, 2), Some(true));
        assert_eq!(state(2), (false, false));
        assert_eq!(sigp(&sup, 0x0B, 0xFFFF), None);
        // cf / cfall: a CPU outside the configuration (here, without Hercules, every CPU)
        // enters it with the state of an initial CPU reset; other commands leave it.
        activate(3);
        command_seen("cfx");
        assert_eq!(state(3), (true, true));
        command_seen("CF");
        assert_eq!(state(3), (false, false));
        activate(3);
        command_seen("cfall");
        assert_eq!(state(3), (false, false));
        // SERVC: only "configure CPU" (0x00nn0001 with nn = 0x11 in the command byte, the
        // CPU in the resource byte), and only from the supervisor state.
        activate(4);
        assert_eq!(sclp(&prob, 0x0011_0401), None);
        assert_eq!(sclp(&sup, 0x0010_0401), None, "deconfigure CPU");
        assert_eq!(sclp(&sup, 0x0002_0001), None, "read SCP info");
        assert_eq!(sclp(&sup, 0x0011_0501), Some(5), "configure another CPU");
        assert_eq!(state(4), (true, true), "leaves CPU 4 alone");
        assert_eq!(sclp(&sup, 0x0011_0401), Some(4));
        assert_eq!(state(4), (false, false));
        assert_eq!(sclp(&sup, 0x0011_FF01), None, "no such CPU");
    }
}

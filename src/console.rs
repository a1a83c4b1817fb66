//! The operator's side: module parameters (`HCPUMF_OPTIONS`), the `hcpumf` console command
//! (machine model, authorization by "external means", fault injection, status) and resets.
//!
//! Messages carry Hercules-style identifiers `HHCMFnnns`.

use crate::alerts::AlertBits;
use crate::cpu::Arch;
use crate::model::{self, CounterSet, CounterSets, MachineModel};
use crate::runtime;
use std::sync::atomic::Ordering;

const HELP: &str = "\
HHCMF010I hcpumf commands:
  hcpumf [status]                      facility states of every CPU
  hcpumf set KEY=VALUE ...             machine model: model=TTTT speed=N cfvn=N csvn=N
                                       extended=N cgroups=N archs=z|all timestamp=stck|stcke
  hcpumf auth counters=LIST [cpu=N]    authorize counter sets (LIST: b,p,c,e,g | all | none)
  hcpumf auth sampling=LIST [cpu=N]    authorize sampling functions (basic,diag | all | none)
  hcpumf inject ALERTS [cpu=N|all]     recognize alerts (iea,ise,pra,saca,lsda,mtda,caca,lcda)
  hcpumf his ...                       host-driven HIS collection (hcpumf his help)
  hcpumf help                          this text";

/// Choose the model at load: from the STIDP machine type, then `HCPUMF_OPTIONS`.
pub fn load_model() {
    let mtype = runtime::host()
        .and_then(|h| h.machine_type)
        // SAFETY: the callback only reads sysblk.cpuid.
        .map(|f| unsafe { f() })
        .unwrap_or(0x2097);
    let mut m = MachineModel::for_machine_type(mtype);
    if let Ok(opts) = std::env::var("HCPUMF_OPTIONS") {
        let words: Vec<String> = opts.split_whitespace().map(str::to_string).collect();
        if let Err(e) = apply_settings(&mut m, &words) {
            runtime::log(&format!(
                "HHCMF011E HCPUMF_OPTIONS: {e}; using the defaults"
            ));
            m = MachineModel::for_machine_type(mtype);
        }
    }
    model::install(m);
    apply_authorizations(None);
}

/// Counter sets as the console shows them (B,P,C,E,MT,CG).
pub fn sets_text(s: CounterSets) -> String {
    let mut v = Vec::new();
    for (bit, name) in [
        (CounterSets::BASIC, "B"),
        (CounterSets::PROBLEM_STATE, "P"),
        (CounterSets::CRYPTO, "C"),
        (CounterSets::EXTENDED, "E"),
        (CounterSets::MT_DIAG, "MT"),
        (CounterSets::COPROCESSOR_GROUP, "CG"),
    ] {
        if s.contains(bit) {
            v.push(name);
        }
    }
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
    }
}

/// One line describing the model (banner and `set`).
pub fn model_line(m: &MachineModel) -> String {
    format!(
        "machine type {:04X}, CFVN {} CSVN {}, CPU speed {} cycles/us, facilities 40 67 68 142, \
         counter sets {} (authorized {}), sampling {}{} interval {}..{} cycles, {}",
        m.machine_type,
        m.cfvn,
        m.csvn,
        m.cpu_speed,
        sets_text(m.installed_sets()),
        sets_text(m.counter_authorization),
        if m.basic_sampling_authorized {
            "basic"
        } else {
            "-"
        },
        if m.diagnostic_sampling_authorized {
            "+diagnostic"
        } else {
            ""
        },
        m.min_sampling_interval,
        m.max_sampling_interval,
        if m.all_architectures {
            "all architectures"
        } else {
            "z/Architecture only"
        }
    )
}

/// The load banner.
pub fn banner() {
    runtime::log(&format!(
        "HHCMF000I hcpumf {} loaded: {}",
        env!("CARGO_PKG_VERSION"),
        model_line(model::current())
    ));
}

/// Module unload: nothing is left running.
pub fn shutdown() {
    crate::collect::stop_on_unload();
}

/// STFLE: facilities 40 (load program parameter), 67 (counter), 68 (sampling) and 142
/// (store CPU counter multiple), z/Architecture only.
pub fn facility_list(buf: &mut [u8], len: usize, arch: Arch) -> usize {
    if arch != Arch::Z {
        return len;
    }
    let mut len = len;
    for bit in [40usize, 67, 68, 142] {
        let byte = bit / 8;
        if byte < buf.len() {
            buf[byte] |= 0x80 >> (bit % 8);
            len = len.max(byte + 1);
        }
    }
    len
}

/// CPU reset / initial CPU reset of one CPU's measurement state (SA23-2260: activation
/// controls cleared by CPU reset; sets and functions disabled, program parameter and pending
/// requests cleared by initial CPU reset and clear reset).
pub fn reset_cpu(cpu: u16, initial: bool) {
    let Some(st) = runtime::cpu(cpu) else { return };
    let now = st.meter.reading();
    if initial {
        st.counters.initial_cpu_reset();
        st.sampling.initial_cpu_reset();
        st.program_parameter.clear();
    } else {
        st.counters.cpu_reset(crate::model::current(), &now);
        st.sampling.cpu_reset();
    }
    st.alerts.clear_all();
    st.schedule.guest.stop();
    st.meter.rebase();
    st.schedule.next_account_ns.store(0, Ordering::Relaxed);
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
        for n in 0..runtime::MAX_CPUS as u16 {
            if !runtime::cpu_online(n) {
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
    for n in 0..runtime::MAX_CPUS as u16 {
        reset_cpu(n, kind.initial_for(n, cpu));
    }
    Some(kind)
}

/// A SIGNAL PROCESSOR order issued by the CPU `view` describes to CPU `target`, about to
/// be performed by Hercules: the CPU-reset (0C) and initial-CPU-reset (0B) orders reset
/// the target's measurement state. SIGP is privileged: in the problem state the order is
/// not performed (privileged-operation exception). Returns the reset applied (true =
/// initial).
pub fn sigp(view: &crate::cpu::CpuView, order: u8, target: u16) -> Option<bool> {
    if view.problem_state || usize::from(target) >= runtime::MAX_CPUS {
        return None;
    }
    let initial = match order {
        0x0B => true,
        // A CPU that is not in the configuration answers cc 3; Hercules configures the
        // target of an initial CPU reset.
        0x0C if runtime::cpu_online(target) => false,
        _ => return None,
    };
    reset_cpu(target, initial);
    Some(initial)
}

fn parse_num(v: &str) -> Result<u64, String> {
    let r = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        v.parse::<u64>()
    };
    r.map_err(|_| format!("'{v}' is not a number"))
}

/// Apply `set` keywords to a model; nothing changes on error.
pub fn apply_settings(m: &mut MachineModel, words: &[String]) -> Result<(), String> {
    let mut n = m.clone();
    for w in words {
        let Some((k, v)) = w.split_once('=') else {
            return Err(format!("'{w}' is not KEY=VALUE"));
        };
        let k = k.to_ascii_lowercase();
        match k.as_str() {
            "model" | "type" => {
                let t = u16::from_str_radix(v.trim_start_matches("0x"), 16)
                    .map_err(|_| format!("model '{v}' is not a 4-digit hex machine type"))?;
                let keep = (n.cpu_speed, n.all_architectures);
                n = MachineModel::for_machine_type(t);
                n.all_architectures = keep.1;
            }
            "speed" => {
                let s = parse_num(v)?;
                if !(1..=1_000_000).contains(&s) {
                    return Err("speed must be 1..1000000 cycles per microsecond".into());
                }
                n.set_cpu_speed(s as u32);
            }
            "cfvn" => {
                let c = parse_num(v)?;
                if c != 1 && c != 3 {
                    return Err("cfvn must be 1 or 3 (the defined counter first versions)".into());
                }
                n.cfvn = c as u16;
            }
            "csvn" => {
                let c = parse_num(v)?;
                if !(1..=8).contains(&c) {
                    return Err("csvn must be 1..8".into());
                }
                n.csvn = c as u16;
                n.extended_counters = n.max_extended_counters();
            }
            "extended" => {
                let c = parse_num(v)?;
                if c > u64::from(n.max_extended_counters()) {
                    return Err(format!(
                        "extended must be 0..{} for CSVN {}",
                        n.max_extended_counters(),
                        n.csvn
                    ));
                }
                n.extended_counters = c as u16;
            }
            "cgroups" => {
                let c = parse_num(v)?;
                if c > 1 {
                    return Err("cgroups must be 0 (not installed) or 1".into());
                }
                n.coprocessor_groups = c as u16;
            }
            "archs" => match v.to_ascii_lowercase().as_str() {
                "z" => n.all_architectures = false,
                "all" => n.all_architectures = true,
                _ => return Err("archs must be z or all".into()),
            },
            "timestamp" => match v.to_ascii_lowercase().as_str() {
                "stck" => n.stcke_timestamps = false,
                "stcke" => n.stcke_timestamps = true,
                _ => return Err("timestamp must be stck or stcke".into()),
            },
            _ => return Err(format!("unknown keyword '{k}'")),
        }
    }
    *m = n;
    Ok(())
}

/// Push the model's authorizations to the CPUs (all, or one), raising the authorization
/// change alerts the architecture requires.
fn apply_authorizations(only: Option<u16>) {
    let m = model::current();
    for (i, st) in runtime::rt().cpus.iter().enumerate() {
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
            runtime::raise_alert(cpu, bits);
        }
        runtime::settle_alerts(st);
    }
}

fn parse_cpu(words: &[String]) -> Result<Option<u16>, String> {
    for w in words {
        if let Some(v) = w.strip_prefix("cpu=") {
            if v.eq_ignore_ascii_case("all") {
                return Ok(None);
            }
            let c = parse_num(v)?;
            if c as usize >= runtime::MAX_CPUS {
                return Err(format!("cpu {c} does not exist"));
            }
            return Ok(Some(c as u16));
        }
    }
    Ok(None)
}

fn parse_alerts(list: &str) -> Result<AlertBits, String> {
    let mut bits = AlertBits::empty();
    for name in list.split(',') {
        bits |= match name.to_ascii_lowercase().as_str() {
            "iea" => AlertBits::INVALID_ENTRY_ADDRESS,
            "ise" => AlertBits::INCORRECT_SDBT_ENTRY,
            "pra" => AlertBits::PROGRAM_REQUEST,
            "saca" => AlertBits::SAMPLING_AUTH_CHANGE,
            "lsda" => AlertBits::LOSS_OF_SAMPLE_DATA,
            "mtda" => AlertBits::LOSS_OF_MT_COUNTER_DATA,
            "caca" => AlertBits::COUNTER_AUTH_CHANGE,
            "lcda" => AlertBits::LOSS_OF_CPU_COUNTER_DATA,
            other => return Err(format!("unknown alert '{other}'")),
        };
    }
    Ok(bits)
}

/// The `hcpumf` console command.
pub fn command(args: &[String]) {
    let (sub, rest) = runtime::subcommand(args.get(1..).unwrap_or(&[]));
    match sub.as_deref() {
        None | Some("status") => status(),
        Some("help") => runtime::log(HELP),
        Some("set") => {
            let mut m = model::current().clone();
            match apply_settings(&mut m, rest) {
                Ok(()) => {
                    model::install(m);
                    apply_authorizations(None);
                    runtime::log(&format!(
                        "HHCMF012I model now {}",
                        model_line(model::current())
                    ));
                }
                Err(e) => runtime::log(&format!("HHCMF013E hcpumf set: {e}; nothing changed")),
            }
        }
        Some("auth") => match auth(rest) {
            Ok(msg) => runtime::log(&msg),
            Err(e) => runtime::log(&format!("HHCMF015E hcpumf auth: {e}; nothing changed")),
        },
        Some("inject") => match inject(rest) {
            Ok(msg) => runtime::log(&msg),
            Err(e) => runtime::log(&format!("HHCMF017E hcpumf inject: {e}; nothing injected")),
        },
        Some("his") => crate::collect::command(rest),
        Some(other) => runtime::log(&format!(
            "HHCMF019E unknown hcpumf subcommand '{other}'; enter 'hcpumf help'"
        )),
    }
}

fn auth(words: &[String]) -> Result<String, String> {
    let cpu = parse_cpu(words)?;
    let mut m = model::current().clone();
    let mut changed = false;
    for w in words {
        if w.starts_with("cpu=") {
            continue;
        }
        let Some((k, v)) = w.split_once('=') else {
            return Err(format!("'{w}' is not KEY=LIST"));
        };
        match k.to_ascii_lowercase().as_str() {
            "counters" => {
                let mut s = CounterSets::empty();
                for name in v.split(',') {
                    s |= match name.to_ascii_lowercase().as_str() {
                        "none" => CounterSets::empty(),
                        "all" => CounterSets::CPU_SETS | CounterSets::COPROCESSOR_GROUP,
                        "b" | "basic" => CounterSets::BASIC,
                        "p" | "problem" => CounterSets::PROBLEM_STATE,
                        "c" | "crypto" => CounterSets::CRYPTO,
                        "e" | "extended" => CounterSets::EXTENDED,
                        "g" | "cg" => CounterSets::COPROCESSOR_GROUP,
                        other => return Err(format!("unknown counter set '{other}'")),
                    };
                }
                m.counter_authorization = s;
                changed = true;
            }
            "sampling" => {
                let (mut b, mut d) = (false, false);
                for name in v.split(',') {
                    match name.to_ascii_lowercase().as_str() {
                        "none" => {}
                        "all" => (b, d) = (true, true),
                        "basic" | "b" => b = true,
                        "diag" | "diagnostic" | "d" => d = true,
                        other => return Err(format!("unknown sampling function '{other}'")),
                    }
                }
                m.basic_sampling_authorized = b;
                m.diagnostic_sampling_authorized = d;
                changed = true;
            }
            other => return Err(format!("unknown keyword '{other}'")),
        }
    }
    if !changed {
        return Err("say counters=LIST or sampling=LIST".into());
    }
    let line = format!(
        "HHCMF014I authorization: counter sets {}, sampling {}{} on {}",
        sets_text(m.counter_authorization),
        if m.basic_sampling_authorized {
            "basic"
        } else {
            "none"
        },
        if m.diagnostic_sampling_authorized {
            "+diagnostic"
        } else {
            ""
        },
        cpu.map(|c| format!("CPU {c}"))
            .unwrap_or_else(|| "all CPUs".into())
    );
    if cpu.is_some() {
        // Per-CPU authorization: only that CPU's controls change; the model keeps the default.
        let saved = model::current().clone();
        model::install(m);
        apply_authorizations(cpu);
        model::install(saved);
    } else {
        model::install(m);
        apply_authorizations(None);
    }
    Ok(line)
}

fn inject(words: &[String]) -> Result<String, String> {
    let list = words
        .iter()
        .find(|w| !w.starts_with("cpu="))
        .ok_or("name the alerts, e.g. 'hcpumf inject lsda cpu=0'")?;
    let bits = parse_alerts(list)?;
    let cpu = parse_cpu(words)?;
    let mut n = 0;
    for (i, st) in runtime::rt().cpus.iter().enumerate() {
        let c = i as u16;
        if cpu.is_some_and(|x| x != c) {
            continue;
        }
        if !runtime::cpu_online(c) {
            continue;
        }
        // The losses have their architected side effects too.
        if bits.contains(AlertBits::LOSS_OF_SAMPLE_DATA) {
            st.sampling.loss_of_sample_data();
        }
        if bits.contains(AlertBits::LOSS_OF_CPU_COUNTER_DATA) {
            st.counters
                .loss_of_counter_data(model::current(), &st.meter.reading());
        }
        runtime::raise_alert(c, bits);
        n += 1;
    }
    Ok(format!(
        "HHCMF016I injected alert parameter {:08X} on {n} CPU(s)",
        bits.bits()
    ))
}

fn status() {
    let m = model::current();
    runtime::log(&format!("HHCMF020I {}", model_line(m)));
    let r = runtime::rt();
    runtime::log(&format!(
        "HHCMF022I sampler thread: {} sleeps, woken up to {} us late, {} times more than 1 ms",
        r.sched.sleeps.load(Ordering::Relaxed),
        r.sched.oversleep_max.load(Ordering::Relaxed) / 1000,
        r.sched.oversleeps_1ms.load(Ordering::Relaxed)
    ));
    for (i, st) in runtime::rt().cpus.iter().enumerate() {
        if !runtime::cpu_online(i as u16) {
            continue;
        }
        let r = st.meter.reading();
        let mut sets = Vec::new();
        for set in CounterSet::ALL {
            let b = set.bit();
            let state = if st.counters.active().contains(b) {
                "active"
            } else if st.counters.enabled().contains(b) {
                "inactive"
            } else if st.counters.authorization().contains(b) {
                "disabled"
            } else {
                "unauthorized"
            };
            if m.set_size(set) > 0 {
                sets.push(format!("{}={state}", set.name()));
            }
        }
        runtime::log(&format!(
            "HHCMF021I CPU{i:04X} counters {}; sampling {} interval {} samples {} missed {} \
             (late {} us at most, put off {}); ticks {}; pending alerts {:08X}; metered {} instructions, \
             {} us",
            sets.join(" "),
            if st.sampling.any_active() {
                "active"
            } else if st.sampling.any_enabled() {
                "inactive"
            } else {
                "disabled"
            },
            st.sampling.interval(),
            st.schedule.guest.taken.load(Ordering::Relaxed),
            st.schedule.guest.missed.load(Ordering::Relaxed),
            st.schedule.guest.late_max.load(Ordering::Relaxed) / 1000,
            st.schedule.guest.stalls.load(Ordering::Relaxed),
            st.schedule.ticks.load(Ordering::Relaxed),
            st.alerts.pending().bits(),
            r.instructions,
            r.cpu_ns / 1000
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facility_bits_40_67_68_142() {
        let mut buf = [0u8; 32];
        let n = facility_list(&mut buf, 16, Arch::Z);
        assert_eq!(n, 18);
        assert_eq!(buf[5], 0x80); // bit 40
        assert_eq!(buf[8], 0x18); // bits 67, 68
        assert_eq!(buf[17], 0x02); // bit 142
        let mut other = [0u8; 32];
        assert_eq!(facility_list(&mut other, 16, Arch::Esa390), 16);
        assert_eq!(other, [0u8; 32]);
    }

    #[test]
    fn bad_settings_change_nothing() {
        let mut m = MachineModel::default();
        let before = m.clone();
        let words = vec!["speed=1000".to_string(), "bogus=1".to_string()];
        assert!(apply_settings(&mut m, &words).is_err());
        assert_eq!(m, before);
        assert!(apply_settings(&mut m, &["speed=0".to_string()]).is_err());
        assert!(apply_settings(&mut m, &["csvn=9".to_string()]).is_err());
        assert!(apply_settings(&mut m, &["speed=1000".to_string()]).is_ok());
        assert_eq!(m.cpu_speed, 1000);
    }

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

    /// The one test that drives the global per-CPU state through the reset hooks (the other
    /// unit tests use their own `CpuCounters`).
    #[test]
    fn system_reset_hook_applies_the_command_being_executed() {
        let m = model::current();
        let now = crate::cpu::MeterReading::default();
        let b = CounterSets::BASIC;
        let activate = |cpu: u16| {
            let st = runtime::cpu(cpu).expect("cpu state");
            st.counters
                .set_authorization(m, CounterSets::CPU_SETS, &now);
            let op = (u64::from(b.bits()) << 16) | u64::from(b.bits());
            assert_eq!(st.counters.lcctl(m, op, &now), Ok(crate::pgm::Cc::Zero));
        };
        let state = |cpu: u16| {
            let st = runtime::cpu(cpu).expect("cpu state");
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
        let sup = crate::cpu::CpuView::default();
        let prob = crate::cpu::CpuView {
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
    }

    #[test]
    fn alert_names() {
        assert_eq!(
            parse_alerts("lsda,caca").unwrap(),
            AlertBits::LOSS_OF_SAMPLE_DATA | AlertBits::COUNTER_AUTH_CHANGE
        );
        assert!(parse_alerts("nope").is_err());
    }
}

//! The operator's front door: the `hcpumf` console command (machine model, authorization by
//! "external means", the counter controls of a guest that loads none, fault injection,
//! status) and the load banner. It calls into `host` and
//! `his`; nothing calls back into it but `plugin`.
//!
//! Messages carry Hercules-style identifiers `HHCMFnnns`.

mod grammar;
mod lcctl;

use crate::host::meter::thread_run_ns;
use crate::host::model::{self, apply_authorizations};
use crate::host::services::{cpu_online, log};
use crate::host::{alerts, state};
use grammar::WordError;
use hcpumf_arch::alerts::AlertBits;
use hcpumf_arch::model::{sets_text, CounterSet, MachineModel, SettingError};
use std::sync::atomic::Ordering;
use thiserror::Error;

/// Why `hcpumf set`, `auth` or `inject` changes nothing: the text after the subcommand's
/// `HHCMFnnnE` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    #[error(transparent)]
    Words(#[from] WordError),
    /// The model's own check of a setting (shared with `HCPUMF_OPTIONS`).
    #[error(transparent)]
    Setting(#[from] SettingError),
    #[error(
        "say KEY=VALUE (model, speed, cfvn, csvn, extended, cgroups, archs, timestamp, dedicated)"
    )]
    NoSetting,
    #[error("say counters=LIST or sampling=LIST")]
    NoAuthorization,
    #[error("name the alerts, e.g. 'hcpumf inject lsda cpu=0'")]
    NoAlerts,
}

const HELP: &str = "\
HHCMF010I hcpumf commands:
  hcpumf [status]                      facility states of every CPU
  hcpumf set KEY=VALUE ...             machine model: model=TTTT speed=N cfvn=N csvn=N
                                       extended=N cgroups=N archs=z|all
                                       timestamp=stck|stcke|model dedicated=yes|no
  hcpumf auth counters=LIST [cpu=N]    authorize counter sets (LIST: b,p,c,e,g | all | none)
  hcpumf auth sampling=LIST [cpu=N]    authorize sampling functions (basic,diag | all | none)
  hcpumf lcctl counters=LIST [extract=yes|no] [cpu=N]
                                       enable and activate counter sets for a guest that
                                       issues no LCCTL (MVS 3.8J); extract: problem-state
                                       ECCTR in S/370 and ESA/390
  hcpumf inject ALERTS [cpu=N|all]     recognize alerts (iea,ise,pra,saca,lsda,mtda,caca,lcda)
  hcpumf his ...                       host-driven HIS collection (hcpumf his help)
  hcpumf help                          this text";

/// The load banner: the model in force, or that it waits for the configuration's CPUMODEL.
pub fn banner() {
    let v = env!("CARGO_PKG_VERSION");
    if model::pending() {
        log(&format!(
            "HHCMF000I hcpumf {v} loaded: the machine model follows CPUMODEL and is settled when \
             Hercules has read the configuration (HHCMF002I)"
        ));
    } else {
        log(&format!(
            "HHCMF000I hcpumf {v} loaded: {}",
            model::current().summary()
        ));
    }
}

/// The `hcpumf` console command: its words (`args[0]` is `hcpumf`) and the line as the
/// operator typed it.
pub fn command(args: &[String], line: &str) {
    let (sub, rest) = match args.get(1..).and_then(|a| a.split_first()) {
        Some((first, rest)) => (Some(first.to_ascii_lowercase()), rest),
        None => (None, &[][..]),
    };
    match sub.as_deref() {
        Some("status") | Some("help") if !rest.is_empty() => log(&format!(
            "HHCMF019E hcpumf {}: takes no operands, not '{}'",
            sub.as_deref().unwrap_or(""),
            rest.join(" ")
        )),
        None | Some("status") => status(),
        Some("help") => log(HELP),
        Some("set") => match set(rest) {
            Ok(m) => {
                model::install_explicit(m);
                apply_authorizations(None);
                log(&format!(
                    "HHCMF012I model now {}",
                    model::current().summary()
                ));
            }
            Err(e) => log(&format!("HHCMF013E hcpumf set: {e}; nothing changed")),
        },
        Some("auth") => match auth(rest) {
            Ok(msg) => log(&msg),
            Err(e) => log(&format!("HHCMF015E hcpumf auth: {e}; nothing changed")),
        },
        Some("lcctl") => match lcctl::lcctl(rest) {
            Ok(msg) => log(&msg),
            Err(e) => log(&format!("HHCMF024E hcpumf lcctl: {e}; nothing changed")),
        },
        Some("inject") => match inject(rest) {
            Ok(msg) => log(&msg),
            Err(e) => log(&format!("HHCMF017E hcpumf inject: {e}; nothing injected")),
        },
        Some("his") => crate::his::run::command(rest, line),
        Some(other) => log(&format!(
            "HHCMF019E unknown hcpumf subcommand '{other}'; enter 'hcpumf help'"
        )),
    }
}

/// Keywords of `hcpumf set` (the machine model; see `MachineModel::apply_settings`).
const SET_KEYS: [&str; 10] = [
    "model",
    "type",
    "speed",
    "cfvn",
    "csvn",
    "extended",
    "cgroups",
    "archs",
    "timestamp",
    "dedicated",
];

/// `hcpumf set KEY=VALUE ...`: the model with the settings applied, or why not.
fn set(words: &[String]) -> Result<MachineModel, CommandError> {
    let w = grammar::words(words, &SET_KEYS, 0)?;
    if w.keys.is_empty() {
        return Err(CommandError::NoSetting);
    }
    let mut m = model::current().clone();
    m.apply_settings(words)?;
    Ok(m)
}

/// What `hcpumf auth` changes: the model's authorizations, on one CPU or all.
struct Auth {
    model: MachineModel,
    cpu: Option<u16>,
}

/// `hcpumf auth counters=LIST sampling=LIST [cpu=N|all]`.
fn parse_auth(words: &[String], online: &dyn Fn(u16) -> bool) -> Result<Auth, CommandError> {
    let w = grammar::words(words, &["counters", "sampling", "cpu"], 0)?;
    let cpu = grammar::cpu(&w, online)?;
    let mut m = model::current().clone();
    let counters = w.get("counters").map(grammar::counter_sets).transpose()?;
    let sampling = w
        .get("sampling")
        .map(grammar::sampling_functions)
        .transpose()?;
    if counters.is_none() && sampling.is_none() {
        return Err(CommandError::NoAuthorization);
    }
    if let Some(s) = counters {
        m.counter_authorization = s;
    }
    if let Some((b, d)) = sampling {
        m.basic_sampling_authorized = b;
        m.diagnostic_sampling_authorized = d;
    }
    Ok(Auth { model: m, cpu })
}

fn auth(words: &[String]) -> Result<String, CommandError> {
    let Auth { model: m, cpu } = parse_auth(words, &cpu_online)?;
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

/// `hcpumf inject ALERTS [cpu=N|all]`: the alerts and the CPU.
fn parse_inject(
    words: &[String],
    online: &dyn Fn(u16) -> bool,
) -> Result<(AlertBits, Option<u16>), CommandError> {
    let w = grammar::words(words, &["cpu"], 1)?;
    let list = w.bare.first().ok_or(CommandError::NoAlerts)?;
    Ok((grammar::alerts(list)?, grammar::cpu(&w, online)?))
}

fn inject(words: &[String]) -> Result<String, CommandError> {
    let (bits, cpu) = parse_inject(words, &cpu_online)?;
    let mut n = 0;
    for (i, st) in state::rt().cpus.iter().enumerate() {
        let c = i as u16;
        if cpu.is_some_and(|x| x != c) {
            continue;
        }
        if !cpu_online(c) {
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
        alerts::raise_alert(c, bits);
        n += 1;
    }
    Ok(format!(
        "HHCMF016I injected alert parameter {:08X} on {n} CPU(s)",
        bits.bits()
    ))
}

/// The sampler thread's CPU time as the kernel accounted it (`run_ns`), per sample stored
/// (the guest's and a HIS run's, all CPUs) and per wake-up: issue 11's "sampler CPU time
/// per sample", live.
fn sampler_cost(run_ns: Option<u64>, samples: u64, wakeups: u64) -> String {
    let Some(ns) = run_ns else {
        return "CPU time unknown".to_string();
    };
    let per = |n: u64| format!("{:.1}", ns as f64 / n.max(1) as f64 / 1000.0);
    let samples = if samples == 0 {
        "no samples".to_string()
    } else {
        format!("{} us per sample ({samples} samples)", per(samples))
    };
    let wakeups = if wakeups == 0 {
        "no wake-ups".to_string()
    } else {
        format!("{} us per wake-up", per(wakeups))
    };
    format!("CPU {} ms, {samples}, {wakeups}", ns / 1_000_000)
}

/// What `hcpumf status` says of a sampler thread that does not run as it should (None: it
/// runs and nothing went wrong): `running` whether it runs, `trouble` what went wrong with it
/// last, in words (`host::sampler`: a panic, its end, its start).
fn sampler_health(running: bool, trouble: &str) -> Option<String> {
    let now = if running {
        "started again, running"
    } else {
        "not running: sampling has stopped on every CPU (rmmod and ldmod hcpumf start it afresh)"
    };
    match (running, trouble) {
        (true, "") => None,
        (false, "") => Some(format!("HHCMF094E sampler thread: {now}")),
        (_, t) => Some(format!("HHCMF094E sampler thread: {t}; {now}")),
    }
}

/// What `hcpumf status` says of Hercules' TOD-clock updates made by the sampler thread
/// (`host::timer_duty`): `operator_us` the operator's TIMERINT while it makes them (0: it
/// does not), `updates` those it made since the load (no line when it never did).
fn tod_duty_status(operator_us: u32, updates: u64) -> Option<String> {
    match (operator_us, updates) {
        (0, 0) => None,
        (0, n) => Some(format!(
            "HHCMF026I TOD-clock updates: {n} made by the sampler thread while it had no host \
             core of its own; Hercules' timer thread makes them again"
        )),
        (us, n) => Some(format!(
            "HHCMF026I TOD-clock updates: made by the sampler thread ({n} so far), at least \
             every {us} us (TIMERINT), as it has no host core of its own and wakes that often \
             anyway; Hercules' timer thread sleeps {} us meanwhile",
            crate::host::timer_duty::DUTY_TIMERINT_US
        )),
    }
}

fn status() {
    let m = model::current();
    log(&format!("HHCMF020I {}", m.summary()));
    let r = state::rt();
    let sleeps = r.sampler_state.sleeps.load(Ordering::Relaxed);
    let spins = r.sampler_state.spins.load(Ordering::Relaxed);
    log(&format!(
        "HHCMF022I sampler thread: {sleeps} sleeps and {spins} short waits spun, \
         woken up to {} us late, a pass held up to {} us; \
         late or held more than {} ms: {} times, {} us in all; \
         {} ms real-time, {} ms ordinary, {} holds, {} rescues by its guard ({} times late \
         but not starved); {}",
        r.sampler_state.oversleep_max.load(Ordering::Relaxed) / 1000,
        r.sampler_state.pass_max.load(Ordering::Relaxed) / 1000,
        state::LATE_STEPS_US
            .iter()
            .map(|us| format!("{}", *us as f64 / 1000.0))
            .collect::<Vec<_>>()
            .join("/"),
        r.sampler_state
            .stalls
            .iter()
            .map(|n| n.load(Ordering::Relaxed).to_string())
            .collect::<Vec<_>>()
            .join("/"),
        r.sampler_state.stalled_ns.load(Ordering::Relaxed) / 1000,
        r.sampler_state.realtime_ns.load(Ordering::Relaxed) / 1_000_000,
        r.sampler_state.ordinary_ns.load(Ordering::Relaxed) / 1_000_000,
        r.sampler_state.holds.load(Ordering::Relaxed),
        r.sampler_state.rescues.load(Ordering::Relaxed),
        r.sampler_state.guard_passes.load(Ordering::Relaxed),
        sampler_cost(
            thread_run_ns(r.sampler_state.tid.load(Ordering::Relaxed)),
            r.cpus.iter().map(|st| st.schedule.both(|c| &c.taken)).sum(),
            sleeps
        )
    ));
    if let Some(line) = tod_duty_status(
        r.sampler_state.tod_duty_us.load(Ordering::Relaxed),
        r.sampler_state.tod_updates.load(Ordering::Relaxed),
    ) {
        log(&line);
    }
    let trouble = r
        .sampler_state
        .trouble
        .lock()
        .map(|t| t.clone())
        .unwrap_or_default();
    if let Some(line) = sampler_health(r.sampler_state.running.load(Ordering::Acquire), &trouble) {
        log(&line);
    }
    for (i, st) in state::rt().cpus.iter().enumerate() {
        if !cpu_online(i as u16) {
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
        if st.counters.operator_extraction() {
            sets.push("(problem-state extraction by the operator)".into());
        }
        log(&format!(
            "HHCMF021I CPU{i:04X} counters {}; sampling {} interval {} samples {} missed {} \
             (late {} us at most, put off {}, held by the host {}); ticks {} (samples taken without one {}, left to it at an address-space switch {}, accounting points {} (put off {} after the sampler was held up), armings escalated {}, lost and made again {}); pending alerts \
             {:08X}; metered {} instructions, {} us{}",
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
            st.schedule.guest.held.load(Ordering::Relaxed),
            st.schedule.ticks.load(Ordering::Relaxed),
            st.schedule.private.remote_samples.load(Ordering::Relaxed),
            st.schedule.private.space_switches.load(Ordering::Relaxed),
            st.schedule.private.remote_accounting.load(Ordering::Relaxed),
            st.schedule.private.held_up_points.load(Ordering::Relaxed),
            st.schedule.private.escalations.load(Ordering::Relaxed),
            st.schedule.private.rearms.load(Ordering::Relaxed),
            st.alerts.pending().bits(),
            r.instructions,
            r.cpu_ns / 1000,
            if m.dedicated {
                format!(
                    "; wait samples {}",
                    st.schedule.guest.waits.load(Ordering::Relaxed)
                )
            } else {
                String::new()
            }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler's cost as status prints it, from the kernel's accounting of its thread.
    #[test]
    fn sampler_cost_is_per_sample_and_per_wakeup() {
        assert_eq!(
            sampler_cost(Some(819_000_000), 40_000, 41_000),
            "CPU 819 ms, 20.5 us per sample (40000 samples), 20.0 us per wake-up"
        );
        assert_eq!(
            sampler_cost(Some(3_000_000), 0, 1_000),
            "CPU 3 ms, no samples, 3.0 us per wake-up"
        );
        assert_eq!(
            sampler_cost(Some(0), 0, 0),
            "CPU 0 ms, no samples, no wake-ups"
        );
        assert_eq!(sampler_cost(None, 5, 5), "CPU time unknown");
    }

    /// A sampler thread that ended, or panicked and runs again, is named in `hcpumf status`
    /// with what went wrong; one that runs and to which nothing happened is not.
    #[test]
    fn status_names_what_happened_to_the_sampler() {
        let panic = "ended by a panic at src/host/sampler.rs:9:5: boom (1.5 s after the thread \
                     started)";
        assert_eq!(sampler_health(true, ""), None);
        assert_eq!(
            sampler_health(true, panic).as_deref(),
            Some(
                "HHCMF094E sampler thread: ended by a panic at src/host/sampler.rs:9:5: boom \
                 (1.5 s after the thread started); started again, running"
            )
        );
        let ended = "HHCMF094E sampler thread: could not start: no memory; not running: sampling \
                     has stopped on every CPU (rmmod and ldmod hcpumf start it afresh)";
        assert_eq!(
            sampler_health(false, "could not start: no memory").as_deref(),
            Some(ended)
        );
        assert!(sampler_health(false, "").is_some_and(|l| l.contains("not running")));
    }

    fn ws(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    /// Every bad operand of `set`, `auth` and `inject` is named and nothing is planned
    /// (table-driven over the grammar; the CPUs 0 and 1 are in the configuration).
    #[test]
    fn bad_operands_are_refused_by_name() {
        let online = |c: u16| c < 2;
        for (line, says) in [
            ("counters=b,p cpu=0 cpu=x", "cpu= is given more than once"),
            ("counters=b,p cpu=2", "CPU 2 is not in the configuration"),
            ("counters=b,p cpu=x", "cpu=x: 'x' is not a number"),
            ("counters=(b,p", "unbalanced parenthesis"),
            ("counters=b,q", "unknown counter set 'q'"),
            ("counters=b, sampling=basic", "empty element"),
            ("counters=b junk", "'junk' is not understood here"),
            (
                "sampling=basic sampling=diag",
                "sampling= is given more than once",
            ),
            ("cpu=0", "say counters=LIST or sampling=LIST"),
            ("", "say counters=LIST or sampling=LIST"),
        ] {
            match parse_auth(&ws(line), &online) {
                Ok(a) => panic!("auth '{line}' was accepted (cpu {:?})", a.cpu),
                Err(e) => assert!(e.to_string().contains(says), "auth '{line}': {e}"),
            }
        }
        let ok = parse_auth(&ws("counters=(b,p) sampling=basic cpu=1"), &online).unwrap();
        assert_eq!(ok.cpu, Some(1));
        for (line, says) in [
            ("iea cpu=0 junk", "'junk' is not understood here"),
            ("iea cpu=7", "CPU 7 is not in the configuration"),
            ("iea,,lsda", "empty element"),
            ("nope", "unknown alert 'nope'"),
            ("cpu=0", "name the alerts"),
            ("iea cpu=0 cpu=1", "cpu= is given more than once"),
            ("(iea", "unbalanced parenthesis"),
        ] {
            match parse_inject(&ws(line), &online) {
                Ok(x) => panic!("inject '{line}' was accepted: {x:?}"),
                Err(e) => assert!(e.to_string().contains(says), "inject '{line}': {e}"),
            }
        }
        assert_eq!(
            parse_inject(&ws("lsda,caca cpu=all"), &online).unwrap(),
            (
                AlertBits::LOSS_OF_SAMPLE_DATA | AlertBits::COUNTER_AUTH_CHANGE,
                None
            )
        );
        for (line, says) in [
            ("speed=1000 speed=2000", "speed= is given more than once"),
            ("speed=1000 junk", "'junk' is not understood here"),
            ("bogus=1", "unknown keyword 'bogus'"),
            ("speed=0", "speed must be"),
            ("", "say KEY=VALUE"),
        ] {
            match set(&ws(line)) {
                Ok(_) => panic!("set '{line}' was accepted"),
                Err(e) => assert!(e.to_string().contains(says), "set '{line}': {e}"),
            }
        }
        // The kinds, for a caller that acts on them rather than print them.
        assert!(matches!(
            parse_auth(&ws("counters=b cpu=2"), &online),
            Err(CommandError::Words(WordError::CpuNotConfigured(2)))
        ));
        assert!(matches!(
            parse_auth(&ws("cpu=0"), &online),
            Err(CommandError::NoAuthorization)
        ));
        assert!(matches!(
            parse_inject(&ws("cpu=0"), &online),
            Err(CommandError::NoAlerts)
        ));
        assert!(matches!(set(&ws("")), Err(CommandError::NoSetting)));
        assert!(matches!(
            set(&ws("speed=0")),
            Err(CommandError::Setting(SettingError::NotAllowed {
                key: "speed",
                ..
            }))
        ));
    }
}

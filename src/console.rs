//! The operator's front door: the `hcpumf` console command (machine model, authorization by
//! "external means", fault injection, status) and the load banner. It calls into `host` and
//! `his`; nothing calls back into it but `plugin`.
//!
//! Messages carry Hercules-style identifiers `HHCMFnnns`.

use crate::arch::alerts::AlertBits;
use crate::arch::model::{parse_num, sets_text, CounterSet, CounterSets};
use crate::host::model::{self, apply_authorizations};
use crate::host::services::{cpu_online, log};
use crate::host::{alerts, state};
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

fn parse_cpu(words: &[String]) -> Result<Option<u16>, String> {
    for w in words {
        if let Some(v) = w.strip_prefix("cpu=") {
            if v.eq_ignore_ascii_case("all") {
                return Ok(None);
            }
            let c = parse_num(v)?;
            if c as usize >= state::MAX_CPUS {
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

/// The `hcpumf` console command: its words (`args[0]` is `hcpumf`) and the line as the
/// operator typed it.
pub fn command(args: &[String], line: &str) {
    let (sub, rest) = match args.get(1..).and_then(|a| a.split_first()) {
        Some((first, rest)) => (Some(first.to_ascii_lowercase()), rest),
        None => (None, &[][..]),
    };
    match sub.as_deref() {
        None | Some("status") => status(),
        Some("help") => log(HELP),
        Some("set") => {
            let mut m = model::current().clone();
            match m.apply_settings(rest) {
                Ok(()) => {
                    model::install_explicit(m);
                    apply_authorizations(None);
                    log(&format!(
                        "HHCMF012I model now {}",
                        model::current().summary()
                    ));
                }
                Err(e) => log(&format!("HHCMF013E hcpumf set: {e}; nothing changed")),
            }
        }
        Some("auth") => match auth(rest) {
            Ok(msg) => log(&msg),
            Err(e) => log(&format!("HHCMF015E hcpumf auth: {e}; nothing changed")),
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

fn status() {
    let m = model::current();
    log(&format!("HHCMF020I {}", m.summary()));
    let r = state::rt();
    log(&format!(
        "HHCMF022I sampler thread: {} sleeps, woken up to {} us late, {} times more than 1 ms",
        r.sched.sleeps.load(Ordering::Relaxed),
        r.sched.oversleep_max.load(Ordering::Relaxed) / 1000,
        r.sched.oversleeps_1ms.load(Ordering::Relaxed)
    ));
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
        log(&format!(
            "HHCMF021I CPU{i:04X} counters {}; sampling {} interval {} samples {} missed {} \
             (late {} us at most, put off {}); ticks {} (armings escalated {}); pending alerts \
             {:08X}; metered {} instructions, {} us",
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
            st.schedule.private.escalations.load(Ordering::Relaxed),
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
    fn alert_names() {
        assert_eq!(
            parse_alerts("lsda,caca").unwrap(),
            AlertBits::LOSS_OF_SAMPLE_DATA | AlertBits::COUNTER_AUTH_CHANGE
        );
        assert!(parse_alerts("nope").is_err());
    }
}

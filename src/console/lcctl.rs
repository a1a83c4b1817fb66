//! `hcpumf lcctl counters=LIST [extract=yes|no] [cpu=N|all]`: the operator loads the counter
//! controls of a guest whose control program issues no LOAD CPU-COUNTER-SET CONTROLS, as on
//! MVS 3.8J, so that its problem-state programs can read their CPU's counters with ECCTR
//! (docs/mvs-timing.md).
//!
//! The sets of LIST end enabled and active and every other CPU counter set disabled, as LCCTL
//! with those enable and activation controls would leave them (SA23-2260 Figure 2-2); a set
//! must be authorized first (`hcpumf auth`). `extract=` is the problem-state extraction
//! authorization of S/370 and ESA/390 CPUs, whose 32-bit CR0 has no bit 15
//! (`CpuCounters::extraction_authorized`). All or nothing: when a set of LIST is not
//! authorized or not installed on a chosen CPU, no CPU changes.

use super::grammar::{self, WordError};
use crate::host::services::cpu_online;
use crate::host::{model, state};
use hcpumf_arch::model::{sets_text, CounterSet, CounterSets};
use hcpumf_arch::pgm::Cc;
use thiserror::Error;

/// Why `hcpumf lcctl` changes nothing.
#[derive(Debug, Error)]
pub enum LcctlError {
    #[error(transparent)]
    Words(#[from] WordError),
    #[error("say counters=LIST (b,p,c,e | none)")]
    NoSets,
    #[error("extract= must be yes or no, not '{0}'")]
    Extract(String),
    /// The coprocessor-group sets are loaded with LPCTL, not LCCTL.
    #[error("the coprocessor-group sets (g) are not CPU counter sets")]
    Group,
    #[error("counter set {set} is not installed in this model")]
    NotInstalled { set: &'static str },
    #[error("CPU {cpu}: counter set {set} is not authorized (hcpumf auth counters=... first)")]
    NotAuthorized { cpu: u16, set: &'static str },
}

/// What the command asks for.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    sets: CounterSets,
    extract: Option<bool>,
    cpu: Option<u16>,
}

fn parse(words: &[String], online: &dyn Fn(u16) -> bool) -> Result<Request, LcctlError> {
    let w = grammar::words(words, &["counters", "extract", "cpu"], 0)?;
    let cpu = grammar::cpu(&w, online)?;
    let sets = w
        .get("counters")
        .map(grammar::counter_sets)
        .transpose()?
        .ok_or(LcctlError::NoSets)?;
    // `all` names the coprocessor groups too; LCCTL loads the CPU sets of it.
    let all = w
        .get("counters")
        .is_some_and(|v| v.eq_ignore_ascii_case("all"));
    if sets.contains(CounterSets::COPROCESSOR_GROUP) && !all {
        return Err(LcctlError::Group);
    }
    let extract = match w.get("extract").map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("yes") => Some(true),
        Some("no") => Some(false),
        Some(_) => return Err(LcctlError::Extract(w.get("extract").unwrap_or("").into())),
    };
    Ok(Request {
        sets: sets & CounterSets::CPU_SETS,
        extract,
        cpu,
    })
}

/// Carry out `hcpumf lcctl`; the console line to print.
pub fn lcctl(words: &[String]) -> Result<String, LcctlError> {
    let req = parse(words, &cpu_online)?;
    let m = model::current();
    let installed = m.installed_sets();
    let chosen = |c: u16| cpu_online(c) && req.cpu.is_none_or(|x| x == c);
    let cpus = &state::rt().cpus;
    for set in CounterSet::ALL
        .into_iter()
        .filter(|s| req.sets.contains(s.bit()))
    {
        if !installed.contains(set.bit()) {
            return Err(LcctlError::NotInstalled { set: set.name() });
        }
        for (i, st) in cpus.iter().enumerate() {
            let cpu = i as u16;
            if chosen(cpu) && !st.counters.authorization().contains(set.bit()) {
                return Err(LcctlError::NotAuthorized {
                    cpu,
                    set: set.name(),
                });
            }
        }
    }
    let operand = (u64::from(req.sets.bits()) << 16) | u64::from(req.sets.bits());
    for (i, st) in cpus.iter().enumerate() {
        if !chosen(i as u16) {
            continue;
        }
        // As an authorization change by the operator: the CPU's last accounting point is
        // where the sets start counting (the CPU thread goes on meanwhile).
        let _held = st.exclusive.take();
        let now = st.meter.reading();
        // Authorized and installed (checked above), so every transition is allowed.
        if st.counters.lcctl(m, operand, &now) != Ok(Cc::Zero) {
            return Err(LcctlError::NotAuthorized {
                cpu: i as u16,
                set: "(changed meanwhile)",
            });
        }
        if let Some(on) = req.extract {
            st.counters.set_operator_extraction(on);
        }
    }
    let extract = match req.extract {
        Some(true) => "; problem-state extraction authorized (S/370, ESA/390)",
        Some(false) => "; problem-state extraction not authorized (S/370, ESA/390)",
        None => "",
    };
    Ok(format!(
        "HHCMF023I lcctl: counter sets {} enabled and active, the others disabled, on {}{extract}",
        sets_text(req.sets),
        req.cpu
            .map(|c| format!("CPU {c}"))
            .unwrap_or_else(|| "all CPUs".into())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_request_and_what_is_refused() {
        let online = |c: u16| c < 2;
        assert_eq!(
            parse(&words("counters=b,p extract=yes cpu=1"), &online).ok(),
            Some(Request {
                sets: CounterSets::BASIC | CounterSets::PROBLEM_STATE,
                extract: Some(true),
                cpu: Some(1),
            })
        );
        assert_eq!(
            parse(&words("counters=all"), &online).ok().map(|r| r.sets),
            Some(CounterSets::CPU_SETS)
        );
        assert_eq!(
            parse(&words("counters=none extract=no"), &online).ok(),
            Some(Request {
                sets: CounterSets::empty(),
                extract: Some(false),
                cpu: None,
            })
        );
        assert!(matches!(
            parse(&words("extract=yes"), &online),
            Err(LcctlError::NoSets)
        ));
        assert!(matches!(
            parse(&words("counters=b,g"), &online),
            Err(LcctlError::Group)
        ));
        let e = parse(&words("counters=b extract=maybe"), &online).unwrap_err();
        assert_eq!(e.to_string(), "extract= must be yes or no, not 'maybe'");
        assert!(matches!(
            parse(&words("counters=b cpu=5"), &online),
            Err(LcctlError::Words(WordError::CpuNotConfigured(5)))
        ));
        assert!(matches!(
            parse(&words("counters=x"), &online),
            Err(LcctlError::Words(WordError::UnknownCounterSet { .. }))
        ));
    }
}

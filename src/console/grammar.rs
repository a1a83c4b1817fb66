//! The grammar of the `hcpumf` console subcommands: KEY=VALUE words and bare words, checked
//! in full before anything changes. A keyword given twice, a keyword the subcommand does not
//! take, a bare word too many, an empty value or list element, an unbalanced parenthesis and
//! a CPU that is not in the configuration are all errors the operator sees by name.

use hcpumf_arch::alerts::AlertBits;
use hcpumf_arch::model::{parse_num, CounterSets, NotANumber};
use thiserror::Error;

/// What is wrong with the words of a subcommand. Each text is what the operator reads after
/// the subcommand's `HHCMFnnnE` prefix (and what the tests look for).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WordError {
    #[error("'{0}': unbalanced parenthesis")]
    UnbalancedParenthesis(String),
    /// A KEY= the subcommand does not take (`takes`: the ones it does).
    #[error("unknown keyword '{key}' (this subcommand takes {})", .takes.join(", "))]
    UnknownKeyword {
        key: String,
        takes: &'static [&'static str],
    },
    #[error("{0}= is given more than once")]
    Repeated(String),
    #[error("{0}= needs a value")]
    NeedsValue(String),
    /// A bare word beyond those the subcommand takes.
    #[error("'{0}' is not understood here")]
    NotUnderstood(String),
    /// `what` names the list (alert, counter set, sampling function); `list` as given.
    #[error("{what} list '{list}' has an empty element")]
    EmptyElement { what: &'static str, list: String },
    /// The text says the number's error too (the console prints only this one); `source`
    /// keeps it for a caller that walks the chain.
    #[error("cpu={}: {source}", .source.0)]
    CpuNotANumber {
        #[source]
        source: NotANumber,
    },
    #[error("CPU {0} is not in the configuration")]
    CpuNotConfigured(u64),
    #[error("unknown alert '{0}'")]
    UnknownAlert(String),
    #[error("unknown counter set '{name}' in '{list}'")]
    UnknownCounterSet { name: String, list: String },
    #[error("unknown sampling function '{name}' in '{list}'")]
    UnknownSamplingFunction { name: String, list: String },
}

/// The words of a subcommand: its KEY=VALUE words (keys in lower case, in order) and its
/// bare words.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Words {
    pub keys: Vec<(String, String)>,
    pub bare: Vec<String>,
}

impl Words {
    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Split `words` into keywords (each one of `keys`, at most once, with a value) and at most
/// `max_bare` bare words.
///
/// `keys` is the subcommand's table of keywords, static so that the error can name them.
pub fn words(
    words: &[String],
    keys: &'static [&'static str],
    max_bare: usize,
) -> Result<Words, WordError> {
    let mut w = Words::default();
    for word in words {
        let depth = word.chars().fold(0i32, |d, c| match c {
            '(' => d + 1,
            ')' if d > 0 => d - 1,
            ')' => i32::MIN / 2,
            _ => d,
        });
        if depth != 0 {
            return Err(WordError::UnbalancedParenthesis(word.clone()));
        }
        match word.split_once('=') {
            Some((k, v)) => {
                let k = k.to_ascii_lowercase();
                if !keys.contains(&k.as_str()) {
                    return Err(WordError::UnknownKeyword {
                        key: k,
                        takes: keys,
                    });
                }
                if w.get(&k).is_some() {
                    return Err(WordError::Repeated(k));
                }
                if v.is_empty() {
                    return Err(WordError::NeedsValue(k));
                }
                w.keys.push((k, v.to_string()));
            }
            None if w.bare.len() < max_bare => w.bare.push(word.clone()),
            None => return Err(WordError::NotUnderstood(word.clone())),
        }
    }
    Ok(w)
}

/// The elements of a comma-separated list, without surrounding parentheses; none may be
/// empty.
pub fn list(what: &'static str, v: &str) -> Result<Vec<String>, WordError> {
    let inner = v
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(v);
    let items: Vec<String> = inner.split(',').map(|s| s.trim().to_string()).collect();
    if items.iter().any(String::is_empty) {
        return Err(WordError::EmptyElement {
            what,
            list: v.to_string(),
        });
    }
    Ok(items)
}

/// Which CPUs `cpu=` names: all (None) or one that is in the configuration.
pub fn cpu(w: &Words, online: &dyn Fn(u16) -> bool) -> Result<Option<u16>, WordError> {
    let Some(v) = w.get("cpu") else {
        return Ok(None);
    };
    if v.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let c = parse_num(v).map_err(|source| WordError::CpuNotANumber { source })?;
    match u16::try_from(c) {
        Ok(c) if online(c) => Ok(Some(c)),
        _ => Err(WordError::CpuNotConfigured(c)),
    }
}

/// Alert names (iea, ise, pra, saca, lsda, mtda, caca, lcda).
pub fn alerts(v: &str) -> Result<AlertBits, WordError> {
    let mut bits = AlertBits::empty();
    for name in list("alert", v)? {
        bits |= match name.to_ascii_lowercase().as_str() {
            "iea" => AlertBits::INVALID_ENTRY_ADDRESS,
            "ise" => AlertBits::INCORRECT_SDBT_ENTRY,
            "pra" => AlertBits::PROGRAM_REQUEST,
            "saca" => AlertBits::SAMPLING_AUTH_CHANGE,
            "lsda" => AlertBits::LOSS_OF_SAMPLE_DATA,
            "mtda" => AlertBits::LOSS_OF_MT_COUNTER_DATA,
            "caca" => AlertBits::COUNTER_AUTH_CHANGE,
            "lcda" => AlertBits::LOSS_OF_CPU_COUNTER_DATA,
            other => return Err(WordError::UnknownAlert(other.to_string())),
        };
    }
    Ok(bits)
}

/// Counter sets by "external means" (b, p, c, e, g; all; none).
pub fn counter_sets(v: &str) -> Result<CounterSets, WordError> {
    let names = list("counter set", v)?;
    let mut s = CounterSets::empty();
    for name in &names {
        s |= match name.to_ascii_lowercase().as_str() {
            "none" if names.len() == 1 => CounterSets::empty(),
            "all" if names.len() == 1 => CounterSets::CPU_SETS | CounterSets::COPROCESSOR_GROUP,
            "b" | "basic" => CounterSets::BASIC,
            "p" | "problem" => CounterSets::PROBLEM_STATE,
            "c" | "crypto" => CounterSets::CRYPTO,
            "e" | "extended" => CounterSets::EXTENDED,
            "g" | "cg" => CounterSets::COPROCESSOR_GROUP,
            other => {
                return Err(WordError::UnknownCounterSet {
                    name: other.to_string(),
                    list: v.to_string(),
                })
            }
        };
    }
    Ok(s)
}

/// Sampling functions (basic, diag; all; none): (basic, diagnostic).
pub fn sampling_functions(v: &str) -> Result<(bool, bool), WordError> {
    let names = list("sampling function", v)?;
    let (mut b, mut d) = (false, false);
    for name in &names {
        match name.to_ascii_lowercase().as_str() {
            "none" if names.len() == 1 => {}
            "all" if names.len() == 1 => (b, d) = (true, true),
            "basic" | "b" => b = true,
            "diag" | "diagnostic" | "d" => d = true,
            other => {
                return Err(WordError::UnknownSamplingFunction {
                    name: other.to_string(),
                    list: v.to_string(),
                })
            }
        }
    }
    Ok((b, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn every_bad_word_is_named() {
        const KEYS: &[&str] = &["counters", "sampling", "cpu"];
        for (line, says) in [
            ("counters=b,p cpu=0 cpu=1", "cpu= is given more than once"),
            ("counters=b counters=p", "counters= is given more than once"),
            ("COUNTERS=b Counters=p", "counters= is given more than once"),
            ("counters=b junk", "'junk' is not understood here"),
            ("bogus=1", "unknown keyword 'bogus'"),
            ("counters=", "counters= needs a value"),
            ("counters=(b,p", "'counters=(b,p': unbalanced parenthesis"),
            ("counters=b,p)", "unbalanced parenthesis"),
            ("counters=)b,p(", "unbalanced parenthesis"),
        ] {
            match words(&ws(line), KEYS, 0) {
                Ok(w) => panic!("'{line}' was accepted: {w:?}"),
                Err(e) => assert!(e.to_string().contains(says), "'{line}': {e}"),
            }
        }
        assert_eq!(
            words(&ws("bogus=1"), KEYS, 0).unwrap_err().to_string(),
            "unknown keyword 'bogus' (this subcommand takes counters, sampling, cpu)"
        );
        assert!(matches!(
            words(&ws("Counters=b COUNTERS=p"), KEYS, 0),
            Err(WordError::Repeated(k)) if k == "counters"
        ));
        assert!(matches!(
            words(&ws("counters=(b"), KEYS, 0),
            Err(WordError::UnbalancedParenthesis(w)) if w == "counters=(b"
        ));
        let w = words(&ws("iea cpu=1"), &["cpu"], 1).unwrap();
        assert_eq!(w.bare, vec!["iea".to_string()]);
        assert!(words(&ws("iea lsda cpu=1"), &["cpu"], 1).is_err());
    }

    #[test]
    fn cpus_must_be_in_the_configuration() {
        let online = |c: u16| c < 2;
        let w = |l: &str| words(&ws(l), &["cpu"], 0).unwrap();
        assert_eq!(cpu(&w("cpu=1"), &online), Ok(Some(1)));
        assert_eq!(cpu(&w("cpu=all"), &online), Ok(None));
        assert_eq!(cpu(&w(""), &online), Ok(None));
        for bad in ["cpu=2", "cpu=x", "cpu=99999999", "cpu=-1"] {
            assert!(cpu(&w(bad), &online).is_err(), "{bad}");
        }
        assert_eq!(
            cpu(&w("cpu=2"), &online),
            Err(WordError::CpuNotConfigured(2))
        );
        let e = cpu(&w("cpu=x"), &online).unwrap_err();
        assert!(matches!(e, WordError::CpuNotANumber { .. }));
        assert_eq!(e.to_string(), "cpu=x: 'x' is not a number");
        // The number is kept for a program that walks the chain.
        assert_eq!(
            std::error::Error::source(&e).map(ToString::to_string),
            Some("'x' is not a number".to_string())
        );
    }

    #[test]
    fn lists() {
        assert_eq!(
            alerts("lsda,caca").unwrap(),
            AlertBits::LOSS_OF_SAMPLE_DATA | AlertBits::COUNTER_AUTH_CHANGE
        );
        assert_eq!(alerts("(iea)").unwrap(), AlertBits::INVALID_ENTRY_ADDRESS);
        for bad in ["nope", "lsda,", ",lsda", "lsda,,caca", ""] {
            assert!(alerts(bad).is_err(), "{bad}");
        }
        assert_eq!(
            counter_sets("(b,p)").unwrap(),
            CounterSets::BASIC | CounterSets::PROBLEM_STATE
        );
        assert_eq!(counter_sets("none").unwrap(), CounterSets::empty());
        for bad in ["b,x", "b,,p", "all,b", "none,p"] {
            assert!(counter_sets(bad).is_err(), "{bad}");
        }
        assert_eq!(sampling_functions("basic,diag").unwrap(), (true, true));
        for bad in ["basic,x", "none,basic", "basic,"] {
            assert!(sampling_functions(bad).is_err(), "{bad}");
        }
        assert!(matches!(alerts("nope"), Err(WordError::UnknownAlert(a)) if a == "nope"));
        assert_eq!(
            alerts("lsda,,caca").unwrap_err(),
            WordError::EmptyElement {
                what: "alert",
                list: "lsda,,caca".into()
            }
        );
        assert_eq!(
            counter_sets("all,b").unwrap_err().to_string(),
            "unknown counter set 'all' in 'all,b'"
        );
        assert_eq!(
            sampling_functions("basic,x").unwrap_err().to_string(),
            "unknown sampling function 'x' in 'basic,x'"
        );
    }
}

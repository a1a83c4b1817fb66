//! The grammar of the `hcpumf` console subcommands: KEY=VALUE words and bare words, checked
//! in full before anything changes. A keyword given twice, a keyword the subcommand does not
//! take, a bare word too many, an empty value or list element, an unbalanced parenthesis and
//! a CPU that is not in the configuration are all errors the operator sees by name.

use hcpumf_arch::alerts::AlertBits;
use hcpumf_arch::model::{parse_num, CounterSets};

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
pub fn words(words: &[String], keys: &[&str], max_bare: usize) -> Result<Words, String> {
    let mut w = Words::default();
    for word in words {
        let depth = word.chars().fold(0i32, |d, c| match c {
            '(' => d + 1,
            ')' if d > 0 => d - 1,
            ')' => i32::MIN / 2,
            _ => d,
        });
        if depth != 0 {
            return Err(format!("'{word}': unbalanced parenthesis"));
        }
        match word.split_once('=') {
            Some((k, v)) => {
                let k = k.to_ascii_lowercase();
                if !keys.contains(&k.as_str()) {
                    return Err(format!(
                        "unknown keyword '{k}' (this subcommand takes {})",
                        keys.join(", ")
                    ));
                }
                if w.get(&k).is_some() {
                    return Err(format!("{k}= is given more than once"));
                }
                if v.is_empty() {
                    return Err(format!("{k}= needs a value"));
                }
                w.keys.push((k, v.to_string()));
            }
            None if w.bare.len() < max_bare => w.bare.push(word.clone()),
            None => return Err(format!("'{word}' is not understood here")),
        }
    }
    Ok(w)
}

/// The elements of a comma-separated list, without surrounding parentheses; none may be
/// empty.
pub fn list(what: &str, v: &str) -> Result<Vec<String>, String> {
    let inner = v
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(v);
    let items: Vec<String> = inner.split(',').map(|s| s.trim().to_string()).collect();
    if items.iter().any(String::is_empty) {
        return Err(format!("{what} list '{v}' has an empty element"));
    }
    Ok(items)
}

/// Which CPUs `cpu=` names: all (None) or one that is in the configuration.
pub fn cpu(w: &Words, online: &dyn Fn(u16) -> bool) -> Result<Option<u16>, String> {
    let Some(v) = w.get("cpu") else {
        return Ok(None);
    };
    if v.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let c = parse_num(v).map_err(|e| format!("cpu={v}: {e}"))?;
    match u16::try_from(c) {
        Ok(c) if online(c) => Ok(Some(c)),
        _ => Err(format!("CPU {c} is not in the configuration")),
    }
}

/// Alert names (iea, ise, pra, saca, lsda, mtda, caca, lcda).
pub fn alerts(v: &str) -> Result<AlertBits, String> {
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
            other => return Err(format!("unknown alert '{other}'")),
        };
    }
    Ok(bits)
}

/// Counter sets by "external means" (b, p, c, e, g; all; none).
pub fn counter_sets(v: &str) -> Result<CounterSets, String> {
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
            other => return Err(format!("unknown counter set '{other}' in '{v}'")),
        };
    }
    Ok(s)
}

/// Sampling functions (basic, diag; all; none): (basic, diagnostic).
pub fn sampling_functions(v: &str) -> Result<(bool, bool), String> {
    let names = list("sampling function", v)?;
    let (mut b, mut d) = (false, false);
    for name in &names {
        match name.to_ascii_lowercase().as_str() {
            "none" if names.len() == 1 => {}
            "all" if names.len() == 1 => (b, d) = (true, true),
            "basic" | "b" => b = true,
            "diag" | "diagnostic" | "d" => d = true,
            other => return Err(format!("unknown sampling function '{other}' in '{v}'")),
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
        let keys = ["counters", "sampling", "cpu"];
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
            match words(&ws(line), &keys, 0) {
                Ok(w) => panic!("'{line}' was accepted: {w:?}"),
                Err(e) => assert!(e.contains(says), "'{line}': {e}"),
            }
        }
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
    }
}

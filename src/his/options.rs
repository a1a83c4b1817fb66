//! The keywords of `hcpumf his begin`: those of z/OS `F HIS,BEGIN` (Redbook SG24-7857
//! chapter 2; z/OS MVS System Commands), their abbreviations and defaults, checked in full
//! before anything starts: every bad keyword or value is named.

use hcpumf_arch::model::{CounterSets, MachineModel};
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// `hcpumf his help`.
pub const HELP: &str = "\
HHCMF040I hcpumf his: hardware event data collection from the host side
  hcpumf his begin [keywords]   start a run; keywords as z/OS F HIS,BEGIN:
      ctrset=(b,p,c,e) | ctrset=all | ctronly     counter sets (default b,p)
      sampfreq=N          samples per minute per CPU (default 800000, max by QSI)
      samptype=b|d        basic, or basic + diagnostic (default b)
      nosamp              counters only (same as ctronly)
      duration=M          minutes (default 10 with sampling, until END otherwise)
      path=DIR            output directory (default .)
      title=TEXT          title for the .CNT file
      bufcnt=N            4-KB buffers between the sampling and the disk (4..1024; 1024);
                          a block that finds them all waiting is lost (LOST SAMPLES)
      dataloss=ignore|stop  when samples are lost (disk full): go on counting, or end the run
      mapasid=all|(a,...) write a .MAP at the end; private areas of these ASIDs (hex, <= 32)
      mapjob=(job,...)    write a .MAP at the end; private areas of these jobs
      mapverbose          the map's notes (bad pointers, loops) on the console too
      maponly             write just the .MAP, now
      map=yes|no          write a .MAP of every address space (default no)
      mvs=yes|no          fill the guest program parameter from MVS PSA/ASCB (default no)
      smfintval=N         also record the counters every N seconds (1..3600) in a .INT file
      (DDNAME and STATECHANGE are z/OS-only and refused)
  hcpumf his end                end the run and write the files
  hcpumf his status             show the run";

/// Options of `his begin`, parsed and checked before anything starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeginOptions {
    pub sets: CounterSets,
    pub sampling: bool,
    pub diagnostic: bool,
    pub sampfreq: u64,
    pub duration_min: Option<u64>,
    pub path: PathBuf,
    pub title: String,
    pub map: bool,
    pub mvs: bool,
    /// MAPASID: the address spaces whose private areas the map covers (None: all).
    pub map_asids: Option<Vec<u16>>,
    /// MAPJOB: jobs whose address spaces the map covers (with MAPASID's, if both).
    pub map_jobs: Vec<String>,
    /// MAPVERBOSE: the map's notes on the console too.
    pub map_verbose: bool,
    /// MAPONLY: just the map, now.
    pub map_only: bool,
    /// DATALOSS=STOP: end the run when sample data is lost (the disk fills, or the buffers).
    pub dataloss_stop: bool,
    /// BUFCNT: the 4-KB buffers full blocks wait in for the disk (z/OS: "a maximum of 1024
    /// 4 KB buffers"; without BUFCNT "the system dynamically determines the number": here
    /// the most, 1024).
    pub bufcnt: u64,
    /// SMFINTVAL: the counters' deltas every this many seconds, into the .INT file (z/OS:
    /// the SMF interval, in minutes; hcpumf's runs last minutes, so seconds here).
    pub smfintval_secs: Option<u64>,
}

/// A keyword of `his begin` by its z/OS name (abbreviations and hcpumf synonyms folded):
/// an enum so that every keyword is handled and the messages spell each the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Ctronly,
    Ctrset,
    Sampfreq,
    Samptype,
    Duration,
    Path,
    Title,
    Map,
    Mvs,
    Bufcnt,
    Mapasid,
    Mapjob,
    Mapverbose,
    Maponly,
    Dataloss,
    Smfintval,
}

impl Keyword {
    /// The keyword `k` (lower case) names, by its z/OS name or an abbreviation.
    fn of(k: &str) -> Option<Keyword> {
        Some(match k {
            "ctronly" | "nosamp" => Keyword::Ctronly,
            "ctrset" | "ctr" => Keyword::Ctrset,
            "sampfreq" | "sf" => Keyword::Sampfreq,
            "samptype" | "st" => Keyword::Samptype,
            "duration" | "dur" => Keyword::Duration,
            "path" => Keyword::Path,
            "title" | "tt" => Keyword::Title,
            "map" => Keyword::Map,
            "mvs" => Keyword::Mvs,
            "bufcnt" | "buf" => Keyword::Bufcnt,
            "mapasid" | "mas" => Keyword::Mapasid,
            "mapjob" | "mjob" => Keyword::Mapjob,
            "mapverbose" | "mapv" => Keyword::Mapverbose,
            "maponly" => Keyword::Maponly,
            "dataloss" | "dl" => Keyword::Dataloss,
            "smfintval" | "si" => Keyword::Smfintval,
            _ => return None,
        })
    }

    /// The z/OS name, as the messages say it.
    pub fn name(self) -> &'static str {
        match self {
            Keyword::Ctronly => "CTRONLY",
            Keyword::Ctrset => "CTRSET",
            Keyword::Sampfreq => "SAMPFREQ",
            Keyword::Samptype => "SAMPTYPE",
            Keyword::Duration => "DURATION",
            Keyword::Path => "PATH",
            Keyword::Title => "TITLE",
            Keyword::Map => "MAP",
            Keyword::Mvs => "MVS",
            Keyword::Bufcnt => "BUFCNT",
            Keyword::Mapasid => "MAPASID",
            Keyword::Mapjob => "MAPJOB",
            Keyword::Mapverbose => "MAPVERBOSE",
            Keyword::Maponly => "MAPONLY",
            Keyword::Dataloss => "DATALOSS",
            Keyword::Smfintval => "SMFINTVAL",
        }
    }

    /// What the keyword's number counts, as "must be A..B" says it.
    fn range_unit(self) -> &'static str {
        match self {
            Keyword::Sampfreq => " samples per minute per CPU",
            Keyword::Duration => " minutes",
            Keyword::Smfintval => " seconds",
            _ => "",
        }
    }

    /// The same as "is not a number" says it (a SAMPFREQ is just a number there).
    fn number_unit(self) -> &'static str {
        match self {
            Keyword::Duration => " of minutes",
            Keyword::Smfintval => " of seconds",
            _ => "",
        }
    }
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why `his begin` starts nothing. The texts are what the operator reads after
/// `HHCMF041E hcpumf his begin:` (and what the tests and the README look for).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BeginError {
    #[error("'{0}': unbalanced parenthesis")]
    UnbalancedParenthesis(String),
    /// The word as given.
    #[error("unknown keyword '{0}' (enter 'hcpumf his help' for the keywords)")]
    UnknownKeyword(String),
    #[error(
        "'{0}': DDNAME (keywords from a data set) is a z/OS HIS keyword hcpumf does not \
         support; give the keywords on the command"
    )]
    DdnameNotSupported(String),
    #[error(
        "'{0}': STATECHANGE is a z/OS HIS keyword hcpumf does not support (one interval per \
         run, .000)"
    )]
    StatechangeNotSupported(String),
    #[error("{0} is given more than once")]
    Repeated(Keyword),
    /// `keyword` as the operator spelled it, in capitals (NOSAMP=1 says NOSAMP).
    #[error("{keyword} takes no value ('{word}')")]
    TakesNoValue { keyword: String, word: String },
    #[error("{0} needs a value ({0}=...)")]
    NeedsValue(Keyword),
    #[error("CTRSET: unknown counter set '{0}' (B, P, C, E, ALL or NONE)")]
    UnknownCounterSet(String),
    #[error("{keyword}: '{value}' is not a number{}", .keyword.number_unit())]
    NotANumber { keyword: Keyword, value: String },
    #[error(
        "{keyword} must be {min}..{max}{}, not {value}",
        .keyword.range_unit()
    )]
    OutOfRange {
        keyword: Keyword,
        min: u64,
        max: u64,
        value: u64,
    },
    /// A value that is not one of those the keyword allows (`allowed`: "B or D").
    #[error("{keyword} must be {allowed}, not '{value}'")]
    NotAmong {
        keyword: Keyword,
        allowed: &'static str,
        value: String,
    },
    #[error("PATH '{}' is not a directory", .0.display())]
    PathNotADirectory(PathBuf),
    #[error("PATH '{}' is not writable", .0.display())]
    PathNotWritable(PathBuf),
    #[error("MAPASID: '{0}' is not an ASID (hexadecimal 1..7FFF)")]
    NotAnAsid(String),
    #[error("MAPASID: {0} ASIDs, at most 32")]
    TooManyAsids(usize),
    #[error("MAPJOB: '{0}' is not a job name (1-8 characters)")]
    NotAJobName(String),
    #[error("{0} is a sampling keyword; CTRONLY collects no samples")]
    SamplingWithCtronly(Keyword),
    #[error("MAP=NO contradicts {0}")]
    ContradictsMapNo(Keyword),
    #[error("{0} does not go with MAPONLY, which writes just the map")]
    NotWithMaponly(Keyword),
    #[error("nothing to collect: no counter sets and no sampling")]
    NothingToCollect,
    #[error("SMFINTVAL records counters, and CTRSET=NONE collects none")]
    IntervalsWithoutCounters,
}

/// Parse `his begin` keywords (z/OS spellings and abbreviations accepted); `m` is the
/// model in force (its sampling limits bound SAMPFREQ).
pub fn parse_begin(words: &[String], m: &MachineModel) -> Result<BeginOptions, BeginError> {
    let mut o = BeginOptions {
        sets: CounterSets::BASIC | CounterSets::PROBLEM_STATE,
        sampling: true,
        diagnostic: false,
        sampfreq: 800_000,
        duration_min: None,
        path: PathBuf::from("."),
        title: String::new(),
        map: false,
        mvs: false,
        map_asids: None,
        map_jobs: Vec::new(),
        map_verbose: false,
        map_only: false,
        dataloss_stop: false,
        bufcnt: 1024,
        smfintval_secs: None,
    };
    let mut explicit_duration = false;
    let mut seen: Vec<Keyword> = Vec::new();
    let mut sampling_keyword: Option<Keyword> = None;
    let mut map_no = false;
    for w in words {
        let open = w.matches('(').count();
        if open != w.matches(')').count() || w.find(')') < w.find('(') {
            return Err(BeginError::UnbalancedParenthesis(w.clone()));
        }
        let (k, v, has_value) = match w.split_once('=') {
            Some((k, v)) => (k.to_ascii_lowercase(), v.to_string(), true),
            None => (w.to_ascii_lowercase(), String::new(), false),
        };
        // DDNAME and STATECHANGE are z/OS keywords: refused by name, not as unknown.
        let key = match (Keyword::of(&k), k.as_str()) {
            (Some(key), _) => key,
            (None, "ddname" | "dd") => return Err(BeginError::DdnameNotSupported(w.clone())),
            (None, "statechange" | "sc") => {
                return Err(BeginError::StatechangeNotSupported(w.clone()))
            }
            (None, _) => return Err(BeginError::UnknownKeyword(w.clone())),
        };
        if seen.contains(&key) {
            return Err(BeginError::Repeated(key));
        }
        seen.push(key);
        if matches!(
            key,
            Keyword::Ctronly | Keyword::Mapverbose | Keyword::Maponly
        ) {
            if has_value {
                return Err(BeginError::TakesNoValue {
                    keyword: k.to_ascii_uppercase(),
                    word: w.clone(),
                });
            }
        } else if v.trim_matches('\'').is_empty() && key != Keyword::Title {
            return Err(BeginError::NeedsValue(key));
        }
        if matches!(key, Keyword::Sampfreq | Keyword::Samptype | Keyword::Bufcnt) {
            sampling_keyword = Some(key);
        }
        // A number of `key`, within min..=max.
        let number = |min: u64, max: u64| -> Result<u64, BeginError> {
            let n: u64 = v.parse().map_err(|_| BeginError::NotANumber {
                keyword: key,
                value: v.clone(),
            })?;
            if n < min || n > max {
                return Err(BeginError::OutOfRange {
                    keyword: key,
                    min,
                    max,
                    value: n,
                });
            }
            Ok(n)
        };
        // A value that is none of those `allowed` names.
        let not_among = |allowed: &'static str| BeginError::NotAmong {
            keyword: key,
            allowed,
            value: v.clone(),
        };
        match key {
            Keyword::Ctronly => o.sampling = false,
            Keyword::Ctrset => {
                let list = v.trim_matches(|c| c == '(' || c == ')');
                if list.eq_ignore_ascii_case("all") {
                    o.sets = CounterSets::CPU_SETS;
                } else if list.eq_ignore_ascii_case("none") {
                    o.sets = CounterSets::empty();
                } else {
                    o.sets = CounterSets::empty();
                    for s in list.split(',') {
                        o.sets |= match s.to_ascii_lowercase().as_str() {
                            "b" => CounterSets::BASIC,
                            "p" => CounterSets::PROBLEM_STATE,
                            "c" => CounterSets::CRYPTO,
                            "e" => CounterSets::EXTENDED,
                            other => return Err(BeginError::UnknownCounterSet(other.to_string())),
                        };
                    }
                }
            }
            Keyword::Sampfreq => {
                let max = m.rate_for_interval(m.min_sampling_interval) * 60;
                let min = m.rate_for_interval(m.max_sampling_interval) * 60;
                o.sampfreq = number(min.max(1), max)?;
            }
            Keyword::Samptype => match v.to_ascii_lowercase().as_str() {
                "b" | "basic" => o.diagnostic = false,
                "d" | "diag" => o.diagnostic = true,
                _ => return Err(not_among("B or D")),
            },
            Keyword::Duration => {
                o.duration_min = Some(number(1, 24 * 60)?);
                explicit_duration = true;
            }
            Keyword::Path => {
                let p = PathBuf::from(v.trim_matches('\''));
                if !p.is_dir() {
                    return Err(BeginError::PathNotADirectory(p));
                }
                if !writable(&p) {
                    return Err(BeginError::PathNotWritable(p));
                }
                o.path = p;
            }
            Keyword::Title => o.title = v.trim_matches('\'').to_string(),
            Keyword::Map => {
                o.map = yes_no(&v).ok_or_else(|| not_among("YES or NO"))?;
                map_no = !o.map;
            }
            Keyword::Mvs => o.mvs = yes_no(&v).ok_or_else(|| not_among("YES or NO"))?,
            Keyword::Mapasid => {
                o.map = true;
                let list = v.trim_matches(|c| c == '(' || c == ')');
                if !list.eq_ignore_ascii_case("all") {
                    let mut asids = Vec::new();
                    for a in list.split(',') {
                        match u16::from_str_radix(a, 16) {
                            Ok(n) if n > 0 && n <= 0x7FFF => asids.push(n),
                            _ => return Err(BeginError::NotAnAsid(a.to_string())),
                        }
                    }
                    if asids.len() > 32 {
                        return Err(BeginError::TooManyAsids(asids.len()));
                    }
                    o.map_asids = Some(asids);
                }
            }
            Keyword::Mapjob => {
                o.map = true;
                let list = v.trim_matches(|c| c == '(' || c == ')');
                for j in list.split(',') {
                    if j.is_empty()
                        || j.len() > 8
                        || !j
                            .bytes()
                            .all(|c| c.is_ascii_alphanumeric() || b"$#@*".contains(&c))
                    {
                        return Err(BeginError::NotAJobName(j.to_string()));
                    }
                    o.map_jobs.push(j.to_ascii_uppercase());
                }
            }
            Keyword::Mapverbose => o.map_verbose = true,
            Keyword::Maponly => {
                o.map_only = true;
                o.map = true;
            }
            Keyword::Dataloss => match v.to_ascii_lowercase().as_str() {
                "ignore" => o.dataloss_stop = false,
                "stop" => o.dataloss_stop = true,
                _ => return Err(not_among("IGNORE or STOP")),
            },
            Keyword::Smfintval => o.smfintval_secs = Some(number(1, 3600)?),
            Keyword::Bufcnt => o.bufcnt = number(4, 1024)?,
        }
    }
    if let (false, Some(k)) = (o.sampling, sampling_keyword) {
        return Err(BeginError::SamplingWithCtronly(k));
    }
    if map_no {
        if let Some(&k) = seen.iter().find(|k| {
            matches!(
                k,
                Keyword::Mapasid | Keyword::Mapjob | Keyword::Mapverbose | Keyword::Maponly
            )
        }) {
            return Err(BeginError::ContradictsMapNo(k));
        }
    }
    if o.map_only {
        if let Some(&k) = seen.iter().find(|k| {
            matches!(
                k,
                Keyword::Ctronly
                    | Keyword::Ctrset
                    | Keyword::Sampfreq
                    | Keyword::Samptype
                    | Keyword::Bufcnt
                    | Keyword::Duration
                    | Keyword::Dataloss
                    | Keyword::Smfintval
            )
        }) {
            return Err(BeginError::NotWithMaponly(k));
        }
        o.sets = CounterSets::empty();
        o.sampling = false;
        return Ok(o);
    }

    if o.sets.is_empty() && !o.sampling {
        return Err(BeginError::NothingToCollect);
    }
    if o.sets.is_empty() && o.smfintval_secs.is_some() {
        return Err(BeginError::IntervalsWithoutCounters);
    }
    if o.sampling && !explicit_duration {
        o.duration_min = Some(10);
    }
    Ok(o)
}

/// YES or NO (Y, N), in any case; None for anything else.
fn yes_no(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "y" => Some(true),
        "no" | "n" => Some(false),
        _ => None,
    }
}

/// Can files be created in `dir` (access(2) with W_OK and X_OK)?
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

#[cfg(test)]
mod tests;

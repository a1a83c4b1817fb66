//! The keywords of `hcpumf his begin`: those of z/OS `F HIS,BEGIN` (Redbook SG24-7857
//! chapter 2; z/OS MVS System Commands), their abbreviations and defaults, checked in full
//! before anything starts: every bad keyword or value is named.

use hcpumf_arch::model::{CounterSets, MachineModel};
use std::path::{Path, PathBuf};

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
      bufcnt=N            accepted (4..1024); the plugin's buffers are its own
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
    /// DATALOSS=STOP: end the run when sample data is lost (the disk fills).
    pub dataloss_stop: bool,
    /// SMFINTVAL: the counters' deltas every this many seconds, into the .INT file (z/OS:
    /// the SMF interval, in minutes; hcpumf's runs last minutes, so seconds here).
    pub smfintval_secs: Option<u64>,
}

/// Parse `his begin` keywords (z/OS spellings and abbreviations accepted); `m` is the
/// model in force (its sampling limits bound SAMPFREQ).
pub fn parse_begin(words: &[String], m: &MachineModel) -> Result<BeginOptions, String> {
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
        smfintval_secs: None,
    };
    let mut explicit_duration = false;
    let mut seen: Vec<&'static str> = Vec::new();
    let mut sampling_keyword: Option<&'static str> = None;
    let mut map_no = false;
    for w in words {
        let open = w.matches('(').count();
        if open != w.matches(')').count() || w.find(')') < w.find('(') {
            return Err(format!("'{w}': unbalanced parenthesis"));
        }
        let (k, v, has_value) = match w.split_once('=') {
            Some((k, v)) => (k.to_ascii_lowercase(), v.to_string(), true),
            None => (w.to_ascii_lowercase(), String::new(), false),
        };
        // The keyword's z/OS name (abbreviations and hcpumf synonyms folded).
        let name: &'static str = match k.as_str() {
            "ctronly" | "nosamp" => "CTRONLY",
            "ctrset" | "ctr" => "CTRSET",
            "sampfreq" | "sf" => "SAMPFREQ",
            "samptype" | "st" => "SAMPTYPE",
            "duration" | "dur" => "DURATION",
            "path" => "PATH",
            "title" | "tt" => "TITLE",
            "map" => "MAP",
            "mvs" => "MVS",
            "bufcnt" | "buf" => "BUFCNT",
            "mapasid" | "mas" => "MAPASID",
            "mapjob" | "mjob" => "MAPJOB",
            "mapverbose" | "mapv" => "MAPVERBOSE",
            "maponly" => "MAPONLY",
            "dataloss" | "dl" => "DATALOSS",
            "ddname" | "dd" => {
                return Err(format!(
                    "'{w}': DDNAME (keywords from a data set) is a z/OS HIS keyword hcpumf does \
                     not support; give the keywords on the command"
                ))
            }
            "smfintval" | "si" => "SMFINTVAL",
            "statechange" | "sc" => {
                return Err(format!(
                    "'{w}': STATECHANGE is a z/OS HIS keyword hcpumf does not support (one \
                     interval per run, .000)"
                ))
            }
            _ => {
                return Err(format!(
                    "unknown keyword '{w}' (enter 'hcpumf his help' for the keywords)"
                ))
            }
        };
        if seen.contains(&name) {
            return Err(format!("{name} is given more than once"));
        }
        seen.push(name);
        if matches!(name, "CTRONLY" | "MAPVERBOSE" | "MAPONLY") {
            if has_value {
                return Err(format!("{} takes no value ('{w}')", k.to_ascii_uppercase()));
            }
        } else if v.trim_matches('\'').is_empty() && name != "TITLE" {
            return Err(format!("{name} needs a value ({name}=...)"));
        }
        if matches!(name, "SAMPFREQ" | "SAMPTYPE" | "BUFCNT") {
            sampling_keyword = Some(name);
        }
        match name {
            "CTRONLY" => o.sampling = false,
            "CTRSET" => {
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
                            other => {
                                return Err(format!(
                                "CTRSET: unknown counter set '{other}' (B, P, C, E, ALL or NONE)"
                            ))
                            }
                        };
                    }
                }
            }
            "SAMPFREQ" => {
                let f: u64 = v
                    .parse()
                    .map_err(|_| format!("SAMPFREQ: '{v}' is not a number"))?;
                let max = m.rate_for_interval(m.min_sampling_interval) * 60;
                let min = m.rate_for_interval(m.max_sampling_interval) * 60;
                if f < min.max(1) || f > max {
                    return Err(format!(
                        "SAMPFREQ must be {}..{max} samples per minute per CPU, not {f}",
                        min.max(1)
                    ));
                }
                o.sampfreq = f;
            }
            "SAMPTYPE" => match v.to_ascii_lowercase().as_str() {
                "b" | "basic" => o.diagnostic = false,
                "d" | "diag" => o.diagnostic = true,
                _ => return Err(format!("SAMPTYPE must be B or D, not '{v}'")),
            },
            "DURATION" => {
                let d: u64 = v
                    .parse()
                    .map_err(|_| format!("DURATION: '{v}' is not a number of minutes"))?;
                if d == 0 || d > 24 * 60 {
                    return Err(format!("DURATION must be 1..1440 minutes, not {d}"));
                }
                o.duration_min = Some(d);
                explicit_duration = true;
            }
            "PATH" => {
                let p = PathBuf::from(v.trim_matches('\''));
                if !p.is_dir() {
                    return Err(format!("PATH '{}' is not a directory", p.display()));
                }
                if !writable(&p) {
                    return Err(format!("PATH '{}' is not writable", p.display()));
                }
                o.path = p;
            }
            "TITLE" => o.title = v.trim_matches('\'').to_string(),
            "MAP" => {
                o.map = yes_no(name, &v)?;
                map_no = !o.map;
            }
            "MVS" => o.mvs = yes_no(name, &v)?,
            "MAPASID" => {
                o.map = true;
                let list = v.trim_matches(|c| c == '(' || c == ')');
                if !list.eq_ignore_ascii_case("all") {
                    let mut asids = Vec::new();
                    for a in list.split(',') {
                        match u16::from_str_radix(a, 16) {
                            Ok(n) if n > 0 && n <= 0x7FFF => asids.push(n),
                            _ => {
                                return Err(format!(
                                    "MAPASID: '{a}' is not an ASID (hexadecimal 1..7FFF)"
                                ))
                            }
                        }
                    }
                    if asids.len() > 32 {
                        return Err(format!("MAPASID: {} ASIDs, at most 32", asids.len()));
                    }
                    o.map_asids = Some(asids);
                }
            }
            "MAPJOB" => {
                o.map = true;
                let list = v.trim_matches(|c| c == '(' || c == ')');
                for j in list.split(',') {
                    if j.is_empty()
                        || j.len() > 8
                        || !j
                            .bytes()
                            .all(|c| c.is_ascii_alphanumeric() || b"$#@*".contains(&c))
                    {
                        return Err(format!("MAPJOB: '{j}' is not a job name (1-8 characters)"));
                    }
                    o.map_jobs.push(j.to_ascii_uppercase());
                }
            }
            "MAPVERBOSE" => o.map_verbose = true,
            "MAPONLY" => {
                o.map_only = true;
                o.map = true;
            }
            "DATALOSS" => match v.to_ascii_lowercase().as_str() {
                "ignore" => o.dataloss_stop = false,
                "stop" => o.dataloss_stop = true,
                _ => return Err(format!("DATALOSS must be IGNORE or STOP, not '{v}'")),
            },
            "SMFINTVAL" => {
                let n: u64 = v
                    .parse()
                    .map_err(|_| format!("SMFINTVAL: '{v}' is not a number of seconds"))?;
                if !(1..=3600).contains(&n) {
                    return Err(format!("SMFINTVAL must be 1..3600 seconds, not {n}"));
                }
                o.smfintval_secs = Some(n);
            }
            "BUFCNT" => {
                let b: u64 = v
                    .parse()
                    .map_err(|_| format!("BUFCNT: '{v}' is not a number"))?;
                if !(4..=1024).contains(&b) {
                    return Err(format!("BUFCNT must be 4..1024, not {b}"));
                }
            }
            other => return Err(format!("keyword {other} is not handled")),
        }
    }
    if let (false, Some(k)) = (o.sampling, sampling_keyword) {
        return Err(format!(
            "{k} is a sampling keyword; CTRONLY collects no samples"
        ));
    }
    if map_no {
        if let Some(k) = seen
            .iter()
            .find(|k| matches!(**k, "MAPASID" | "MAPJOB" | "MAPVERBOSE" | "MAPONLY"))
        {
            return Err(format!("MAP=NO contradicts {k}"));
        }
    }
    if o.map_only {
        if let Some(k) = seen.iter().find(|k| {
            matches!(
                **k,
                "CTRONLY"
                    | "CTRSET"
                    | "SAMPFREQ"
                    | "SAMPTYPE"
                    | "BUFCNT"
                    | "DURATION"
                    | "DATALOSS"
                    | "SMFINTVAL"
            )
        }) {
            return Err(format!(
                "{k} does not go with MAPONLY, which writes just the map"
            ));
        }
        o.sets = CounterSets::empty();
        o.sampling = false;
        return Ok(o);
    }

    if o.sets.is_empty() && !o.sampling {
        return Err("nothing to collect: no counter sets and no sampling".into());
    }
    if o.sets.is_empty() && o.smfintval_secs.is_some() {
        return Err("SMFINTVAL records counters, and CTRSET=NONE collects none".into());
    }
    if o.sampling && !explicit_duration {
        o.duration_min = Some(10);
    }
    Ok(o)
}

fn yes_no(k: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "y" => Ok(true),
        "no" | "n" => Ok(false),
        _ => Err(format!("{k} must be YES or NO, not '{v}'")),
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

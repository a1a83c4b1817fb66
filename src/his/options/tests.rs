//! The keywords of `his begin`: what each accepts, and every refusal by what it says and
//! by its kind.

use super::*;

fn parse(line: &str) -> Result<BeginOptions, BeginError> {
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    parse_begin(&words, &MachineModel::default())
}

#[test]
fn defaults_are_those_of_z_os_his() {
    let o = parse("").unwrap();
    assert_eq!(o.sets, CounterSets::BASIC | CounterSets::PROBLEM_STATE);
    assert!(o.sampling && !o.diagnostic && !o.map && !o.mvs);
    assert_eq!((o.sampfreq, o.duration_min), (800_000, Some(10)));
    // BUFCNT: "a maximum of 1024 4 KB buffers" (Redbook 2.2.5), the most when not given.
    assert_eq!(o.bufcnt, 1024);
    let o = parse("CTRONLY").unwrap();
    assert_eq!((o.sampling, o.duration_min), (false, None));
    let o = parse("ctr=(b,e) sf=600000 st=d dur=2 buf=16 tt='x' map=yes mvs=y").unwrap();
    assert_eq!(o.sets, CounterSets::BASIC | CounterSets::EXTENDED);
    assert_eq!(
        (o.sampfreq, o.diagnostic, o.duration_min),
        (600_000, true, Some(2))
    );
    assert_eq!(o.title, "x");
    assert_eq!(o.bufcnt, 16);
    assert!(o.map && o.mvs);
    let o = parse("mapasid=(1,21) mapjob=(demojob) mapv dl=stop").unwrap();
    assert_eq!(o.map_asids, Some(vec![1, 0x21]));
    assert_eq!(o.map_jobs, vec!["DEMOJOB".to_string()]);
    assert!(o.map && o.map_verbose && o.dataloss_stop && o.sampling);
    let o = parse("mas=all").unwrap();
    assert_eq!((o.map, o.map_asids), (true, None));
    let o = parse("smfintval=5").unwrap();
    assert_eq!(o.smfintval_secs, Some(5));
    let o = parse("si=3600 ctronly").unwrap();
    assert_eq!((o.smfintval_secs, o.sampling), (Some(3600), false));
    assert_eq!(parse("").unwrap().smfintval_secs, None);
    let o = parse("maponly path=/tmp").unwrap();
    assert!(o.map_only && o.map && !o.sampling && o.sets.is_empty());
}

#[test]
fn every_bad_keyword_or_value_is_named() {
    for (line, says) in [
        ("bogus=1", "unknown keyword 'bogus=1'"),
        ("ctrset=(b,x)", "unknown counter set 'x'"),
        ("ctrset=", "CTRSET needs a value"),
        ("ctrset=(b,p", "'ctrset=(b,p': unbalanced parenthesis"),
        ("mapasid=1,2)", "unbalanced parenthesis"),
        ("ctrset=(b,,p)", "unknown counter set ''"),
        ("ctronly=yes", "CTRONLY takes no value"),
        ("nosamp=1", "NOSAMP takes no value"),
        ("ctronly ctrset=none", "nothing to collect"),
        ("ctronly sampfreq=1000", "SAMPFREQ is a sampling keyword"),
        ("ctronly samptype=d", "SAMPTYPE is a sampling keyword"),
        ("ctronly bufcnt=8", "BUFCNT is a sampling keyword"),
        ("sampfreq=abc", "SAMPFREQ: 'abc' is not a number"),
        ("sampfreq=99999999", "SAMPFREQ must be"),
        ("sampfreq=0", "SAMPFREQ must be"),
        ("sampfreq", "SAMPFREQ needs a value"),
        ("samptype=x", "SAMPTYPE must be B or D"),
        ("duration=0", "DURATION must be 1..1440"),
        ("duration=1441", "DURATION must be 1..1440"),
        ("duration=ten", "is not a number of minutes"),
        ("path=/nonexistent/dir", "is not a directory"),
        ("path=/etc/passwd", "is not a directory"),
        ("map=maybe", "MAP must be YES or NO"),
        ("mvs=", "MVS needs a value"),
        ("bufcnt=3", "BUFCNT must be 4..1024"),
        ("bufcnt=1025", "BUFCNT must be 4..1024"),
        ("bufcnt=x", "BUFCNT: 'x' is not a number"),
        (
            "sf=600000 sampfreq=600000",
            "SAMPFREQ is given more than once",
        ),
        ("dur=1 duration=2", "DURATION is given more than once"),
        ("mapasid=(1,zz)", "MAPASID: 'zz' is not an ASID"),
        ("mapasid=8000", "MAPASID: '8000' is not an ASID"),
        (
            "mapjob=(toolongname)",
            "MAPJOB: 'toolongname' is not a job name",
        ),
        ("mapjob=", "MAPJOB needs a value"),
        ("mapverbose=yes", "MAPVERBOSE takes no value"),
        ("maponly ctrset=b", "CTRSET does not go with MAPONLY"),
        ("maponly duration=5", "DURATION does not go with MAPONLY"),
        ("map=no mapjob=(a)", "MAP=NO contradicts MAPJOB"),
        ("dataloss=maybe", "DATALOSS must be IGNORE or STOP"),
        (
            "ddname=HISCMDS",
            "DDNAME (keywords from a data set) is a z/OS HIS keyword",
        ),
        ("si=sync", "SMFINTVAL: 'sync' is not a number of seconds"),
        ("smfintval=0", "SMFINTVAL must be 1..3600 seconds, not 0"),
        ("smfintval=3601", "SMFINTVAL must be 1..3600 seconds"),
        ("smfintval", "SMFINTVAL needs a value"),
        ("si=5 smfintval=5", "SMFINTVAL is given more than once"),
        ("maponly si=5", "SMFINTVAL does not go with MAPONLY"),
        (
            "ctrset=none si=5",
            "SMFINTVAL records counters, and CTRSET=NONE collects none",
        ),
        ("statechange=save", "STATECHANGE is a z/OS HIS keyword"),
    ] {
        match parse(line) {
            Ok(o) => panic!("'{line}' was accepted: {o:?}"),
            Err(e) => assert!(e.to_string().contains(says), "'{line}': {e}"),
        }
    }
}

/// The whole texts of the kinds whose words are put together (the tests above and the
/// integration tests match parts), and the kinds themselves.
#[test]
fn errors_say_what_went_wrong() {
    let says = |line: &str| parse(line).unwrap_err().to_string();
    assert_eq!(
        says("bogus=1"),
        "unknown keyword 'bogus=1' (enter 'hcpumf his help' for the keywords)"
    );
    assert_eq!(says("mvs="), "MVS needs a value (MVS=...)");
    assert_eq!(says("nosamp=1"), "NOSAMP takes no value ('nosamp=1')");
    assert_eq!(
        says("duration=ten"),
        "DURATION: 'ten' is not a number of minutes"
    );
    assert_eq!(says("sampfreq=abc"), "SAMPFREQ: 'abc' is not a number");
    assert_eq!(says("bufcnt=1025"), "BUFCNT must be 4..1024, not 1025");
    assert_eq!(
        says("duration=0"),
        "DURATION must be 1..1440 minutes, not 0"
    );
    // The bounds are the default model's sampling limits, per minute.
    let m = MachineModel::default();
    let max = m.rate_for_interval(m.min_sampling_interval) * 60;
    let min = m.rate_for_interval(m.max_sampling_interval) * 60;
    assert_eq!(
        says("sampfreq=99999999"),
        format!("SAMPFREQ must be {min}..{max} samples per minute per CPU, not 99999999")
    );
    assert_eq!(says("samptype=x"), "SAMPTYPE must be B or D, not 'x'");
    assert_eq!(says("mvs=maybe"), "MVS must be YES or NO, not 'maybe'");
    assert_eq!(
        says("path=/nonexistent/dir"),
        "PATH '/nonexistent/dir' is not a directory"
    );
    assert_eq!(
        says("ddname=HISCMDS"),
        "'ddname=HISCMDS': DDNAME (keywords from a data set) is a z/OS HIS keyword hcpumf \
         does not support; give the keywords on the command"
    );
    assert_eq!(
        says("sc=save"),
        "'sc=save': STATECHANGE is a z/OS HIS keyword hcpumf does not support (one interval \
         per run, .000)"
    );
    assert_eq!(says("map=no mapv"), "MAP=NO contradicts MAPVERBOSE");
    assert!(matches!(
        parse("dur=1 duration=2"),
        Err(BeginError::Repeated(Keyword::Duration))
    ));
    assert!(matches!(
        parse("smfintval=0"),
        Err(BeginError::OutOfRange {
            keyword: Keyword::Smfintval,
            min: 1,
            max: 3600,
            value: 0
        })
    ));
    assert!(matches!(
        parse("dl=maybe"),
        Err(BeginError::NotAmong {
            keyword: Keyword::Dataloss,
            ..
        })
    ));
    assert!(matches!(
        parse("ctronly ctrset=none"),
        Err(BeginError::NothingToCollect)
    ));
    assert!(matches!(
        parse("maponly st=d"),
        Err(BeginError::NotWithMaponly(Keyword::Samptype))
    ));
    assert!(matches!(
        parse("path=/etc/passwd"),
        Err(BeginError::PathNotADirectory(p)) if p == Path::new("/etc/passwd")
    ));
}

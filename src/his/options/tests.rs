//! The keywords of `his begin`: what each accepts, and every refusal by what it says.

use super::*;

fn parse(line: &str) -> Result<BeginOptions, String> {
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    parse_begin(&words, &MachineModel::default())
}

#[test]
fn defaults_are_those_of_z_os_his() {
    let o = parse("").unwrap();
    assert_eq!(o.sets, CounterSets::BASIC | CounterSets::PROBLEM_STATE);
    assert!(o.sampling && !o.diagnostic && !o.map && !o.mvs);
    assert_eq!((o.sampfreq, o.duration_min), (800_000, Some(10)));
    let o = parse("CTRONLY").unwrap();
    assert_eq!((o.sampling, o.duration_min), (false, None));
    let o = parse("ctr=(b,e) sf=600000 st=d dur=2 buf=16 tt='x' map=yes mvs=y").unwrap();
    assert_eq!(o.sets, CounterSets::BASIC | CounterSets::EXTENDED);
    assert_eq!(
        (o.sampfreq, o.diagnostic, o.duration_min),
        (600_000, true, Some(2))
    );
    assert_eq!(o.title, "x");
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
            Err(e) => assert!(e.contains(says), "'{line}': {e}"),
        }
    }
}

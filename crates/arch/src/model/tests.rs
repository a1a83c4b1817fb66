//! Unit tests of the machine model.

use super::*;

#[test]
fn set_sizes_follow_version_numbers() {
    let z10 = MachineModel::for_machine_type(0x2097);
    assert_eq!((z10.cfvn, z10.csvn), (1, 1));
    assert_eq!(z10.set_size(CounterSet::Basic), 6);
    assert_eq!(z10.set_size(CounterSet::ProblemState), 6);
    assert_eq!(z10.set_size(CounterSet::CryptoActivity), 16);
    // 24 extended counters, as a z10's HIS files have them (Redbook Figure 3-7).
    assert_eq!(z10.set_size(CounterSet::Extended), 24);
    let z16 = MachineModel::for_machine_type(0x3931);
    assert_eq!((z16.cfvn, z16.csvn), (3, 7));
    assert_eq!(z16.set_size(CounterSet::ProblemState), 2);
    assert_eq!(z16.set_size(CounterSet::CryptoActivity), 20);
    assert_eq!(z16.set_size(CounterSet::Extended), 160);
}

/// CSVN of each generation as "CPU MF Formulas" (seed 003) lists SMF113_2_CTRVN2, z16
/// and z17 as Linux numbers them; extended counters per SA23-2260's maxima (CSVN 2: 48,
/// 3-5: 128, 6 and above: 160) and the z10's 24 (Redbook Figure 3-7).
#[test]
fn each_generation_has_its_counter_second_version() {
    for (types, cfvn, csvn, extended) in [
        (&[0x2097u16, 0x2098][..], 1, 1, 24),
        (&[0x2817, 0x2818], 1, 2, 48),
        (&[0x2827, 0x2828], 1, 3, 128),
        (&[0x2964, 0x2965], 1, 4, 128),
        (&[0x3906, 0x3907], 1, 5, 128),
        (&[0x8561, 0x8562], 3, 6, 160),
        (&[0x3931, 0x3932], 3, 7, 160),
        (&[0x9175, 0x9176], 3, 8, 160),
    ] {
        for &t in types {
            let m = MachineModel::for_machine_type(t);
            assert_eq!(
                (m.cfvn, m.csvn, m.set_size(CounterSet::Extended)),
                (cfvn, csvn, extended),
                "{t:04X}"
            );
        }
    }
    let mut m = MachineModel::default();
    assert!(m.apply_settings(&["csvn=2".to_string()]).is_ok());
    assert_eq!(m.set_size(CounterSet::Extended), 48);
    assert!(m
        .apply_settings(&["extended=32".to_string(), "csvn=1".to_string()])
        .is_ok());
    assert_eq!(
        m.set_size(CounterSet::Extended),
        24,
        "csvn= sets the installed number"
    );
    assert!(m.apply_settings(&["extended=32".to_string()]).is_ok());
    assert_eq!(
        m.set_size(CounterSet::Extended),
        32,
        "up to the CSVN's maximum"
    );
}

/// Trailer timestamps: STCK (T = 0) on the z10 and the z10-compatible default, as the
/// Redbook's z10 files show (trailers "with a DEFC of x'8000' or x'C000'"); STCKE from the
/// z196 (CSVN 2, the edition of SA23-2260 that defined the T bit) on; `timestamp=` says
/// otherwise until `timestamp=model` or another `model=`.
#[test]
fn trailer_timestamps_follow_the_model_unless_set() {
    for (t, stcke) in [
        (0x0586u16, false),
        (0x2097, false),
        (0x2098, false),
        (0x2817, true),
        (0x2827, true),
        (0x2964, true),
        (0x3906, true),
        (0x8561, true),
        (0x3931, true),
        (0x9175, true),
    ] {
        let m = MachineModel::for_machine_type(t);
        assert_eq!(m.trailer_timestamp, TrailerTimestamp::Model);
        assert_eq!(m.stcke_timestamps(), stcke, "{t:04X}");
    }
    let set = |m: &mut MachineModel, w: &str| m.apply_settings(&[w.to_string()]);
    let mut m = MachineModel::default();
    assert!(!m.stcke_timestamps());
    set(&mut m, "timestamp=stcke").unwrap();
    assert!(m.stcke_timestamps());
    set(&mut m, "timestamp=model").unwrap();
    assert!(!m.stcke_timestamps());
    set(&mut m, "csvn=2").unwrap();
    assert!(m.stcke_timestamps(), "the version numbers name a z196");
    set(&mut m, "timestamp=STCK").unwrap();
    assert!(!m.stcke_timestamps());
    set(&mut m, "model=3906").unwrap();
    assert!(m.stcke_timestamps(), "model= takes the machine's format");
    let e = set(&mut m, "timestamp=tod").unwrap_err();
    assert_eq!(e.to_string(), "timestamp must be stck, stcke or model");
}

/// Shared CPUs by default; `dedicated=yes` survives a change of model, as `archs=` does.
#[test]
fn dedicated_cpus_are_an_option_of_the_configuration() {
    let set = |m: &mut MachineModel, w: &str| m.apply_settings(&[w.to_string()]);
    let mut m = MachineModel::default();
    assert!(!m.dedicated);
    assert!(!m.summary().contains("dedicated"));
    set(&mut m, "dedicated=YES").unwrap();
    assert!(m.dedicated);
    assert!(m
        .summary()
        .ends_with(", dedicated CPUs (sampled in the wait state)"));
    set(&mut m, "model=2964").unwrap();
    assert!(m.dedicated, "kept across model=");
    set(&mut m, "dedicated=no").unwrap();
    assert!(!m.dedicated);
    let e = set(&mut m, "dedicated=1").unwrap_err();
    assert_eq!(e.to_string(), "dedicated must be yes or no");
}

#[test]
fn sampling_limits_follow_speed() {
    let mut m = MachineModel::default();
    m.set_cpu_speed(1000);
    assert_eq!(m.min_sampling_interval, 50_000);
    assert_eq!(
        m.rate_for_interval(m.min_sampling_interval),
        MAX_SAMPLING_RATE
    );
    assert!(m.max_sampling_interval >= m.min_sampling_interval);
}

#[test]
fn counter_numbers_map_to_sets() {
    assert_eq!(CounterSet::of_counter(1), Some(CounterSet::Basic));
    assert_eq!(CounterSet::of_counter(33), Some(CounterSet::ProblemState));
    assert_eq!(CounterSet::of_counter(83), Some(CounterSet::CryptoActivity));
    assert_eq!(CounterSet::of_counter(287), Some(CounterSet::Extended));
    assert_eq!(CounterSet::of_counter(448), Some(CounterSet::MtDiagnostic));
    assert_eq!(CounterSet::of_counter(496), None);
}

#[test]
fn bad_settings_change_nothing() {
    let mut m = MachineModel::default();
    let before = m.clone();
    let words = vec!["speed=1000".to_string(), "bogus=1".to_string()];
    let e = m.apply_settings(&words).unwrap_err();
    assert_eq!(e, SettingError::UnknownKeyword("bogus".into()));
    assert_eq!(e.to_string(), "unknown keyword 'bogus'");
    assert_eq!(m, before);
    let e = m.apply_settings(&["speed=0".to_string()]).unwrap_err();
    assert!(matches!(e, SettingError::NotAllowed { key: "speed", .. }));
    assert_eq!(
        e.to_string(),
        "speed must be 1..1000000 cycles per microsecond"
    );
    let e = m.apply_settings(&["csvn=9".to_string()]).unwrap_err();
    assert_eq!(e.to_string(), "csvn must be 1..8");
    let e = m.apply_settings(&["speed=x".to_string()]).unwrap_err();
    assert_eq!(e, SettingError::NotANumber(NotANumber("x".into())));
    assert_eq!(e.to_string(), "'x' is not a number");
    let e = m.apply_settings(&["csvn=1".into(), "extended=500".into()]);
    assert_eq!(
        e.unwrap_err(),
        SettingError::TooManyExtended { max: 32, csvn: 1 }
    );
    assert_eq!(m, before);
    assert!(m.apply_settings(&["speed=1000".to_string()]).is_ok());
    assert_eq!(m.cpu_speed, 1000);
}

//! hcpumf-report: reads HIS files (.SMP.xx, .CNT, .MAP from hcpumf or z/OS HIS, .INT from
//! hcpumf) and prints the hot-spot table, counter metrics and damaged-input summary; writes an
//! HTML page, the folded stacks and a JSON summary on request.

use hcpumf_formats::{sdb, smp};
use hcpumf_report::{find_files, report, Options};
use std::io::Write;
use std::path::PathBuf;

const USAGE: &str = "usage: hcpumf-report [options] FILE|DIR...
  FILE: SYSHIS*.SMP.xx, SYSHIS*.CNT, SYSHIS*.MAP, SYSHIS*.INT; DIR: every SYSHIS* file in it
  --top N            rows of the hot-spot table (default 20)
  --asid HHHH        only samples of this address space (hex)
  --state problem|supervisor
  --cpu N            only this CPU's samples (hex)
  --range LO-HI      only instruction addresses in this range (hex)
  --bucket N         address bucket size for code outside the map's modules (default 4096)
  --hot N            hottest instruction addresses listed under each row (default 3, 0: none)
  --svg FILE         also draw the picture as SVG
  --html FILE        also write one self-contained HTML page: hot spots (sortable, filterable),
                     flame graph, timeline per CPU, counter metrics and intervals
  --folded FILE      also write the samples as folded stacks (state;job;module;csect;bucket n)
  --json FILE        also write a JSON summary (rows, totals, counter metrics, intervals)
  --generate-bench FILE MB   write a synthetic .SMP file (benchmark input)
  --version          print the version
exit status: 0 report made, 1 report made but some input is damaged (listed on stderr with
its file offset), 2 no report (bad options, no files, unreadable file)";

fn hex(v: &str) -> Result<u64, String> {
    u64::from_str_radix(v.trim_start_matches("0x"), 16)
        .map_err(|_| format!("'{v}' is not hexadecimal"))
}

fn parse(args: &[String]) -> Result<(Options, Vec<PathBuf>), String> {
    let mut o = Options::default();
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--top" => {
                o.top = val()?
                    .parse()
                    .map_err(|_| "--top needs a number".to_string())?
            }
            "--asid" => o.asid = Some(hex(&val()?)? as u16),
            "--cpu" => o.cpu = Some(hex(&val()?)? as u16),
            "--state" => {
                o.problem = Some(match val()?.as_str() {
                    "problem" => true,
                    "supervisor" => false,
                    s => return Err(format!("--state: '{s}' is not problem or supervisor")),
                })
            }
            "--range" => {
                let v = val()?;
                let (lo, hi) = v.split_once('-').ok_or("--range needs LO-HI")?;
                o.range = Some((hex(lo)?, hex(hi)?));
            }
            "--bucket" => {
                o.bucket = val()?
                    .parse()
                    .map_err(|_| "--bucket needs a number".to_string())?;
                if o.bucket == 0 {
                    return Err("--bucket must be positive".into());
                }
            }
            "--hot" => {
                o.hot = val()?
                    .parse()
                    .map_err(|_| "--hot needs a number".to_string())?
            }
            "--svg" => o.svg = Some(PathBuf::from(val()?)),
            "--html" => o.html = Some(PathBuf::from(val()?)),
            "--folded" => o.folded = Some(PathBuf::from(val()?)),
            "--json" => o.json = Some(PathBuf::from(val()?)),
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            f => files.push(PathBuf::from(f)),
        }
    }
    if files.is_empty() {
        return Err("no input files".into());
    }
    Ok((o, files))
}

fn generate(path: &str, mb: &str) -> Result<(), String> {
    let mb: u64 = mb.parse().map_err(|_| "size in MB expected".to_string())?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| e.to_string())?);
    let samples: Vec<smp::Bsde> = (0..126u64)
        .map(|i| smp::Bsde {
            ia: 0x10000 + (i * 0x35) % 0x30000,
            primary_asn: 0x21,
            problem_state: i % 3 != 0,
            unique: u8::from(i % 7 == 0),
            ..Default::default()
        })
        .collect();
    // Timestamps as a run at 13,333 samples/s would have them: a block every 9.45 ms.
    let mut block = smp::make_block(&samples, true, 0, 0);
    let mut trailer = sdb::Trailer::decode(&block[sdb::TRAILER_4K..]);
    let (start, per_block) = (0xDA00_0000_0000_0000u64, 9450u64 * 4096);
    for i in 0..mb * 256 {
        trailer.timestamp = sdb::Timestamp::of_tod(start + (i + 1) * per_block, true);
        trailer.encode_into(&mut block[sdb::TRAILER_4K..]);
        f.write_all(&block).map_err(|e| e.to_string())?;
    }
    f.flush().map_err(|e| e.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--version") {
        println!("hcpumf-report {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    if args.first().map(String::as_str) == Some("--generate-bench") {
        let r = match (args.get(1), args.get(2)) {
            (Some(p), Some(mb)) => generate(p, mb),
            _ => Err("--generate-bench FILE MB".into()),
        };
        if let Err(e) = r {
            eprintln!("hcpumf-report: {e}");
            std::process::exit(2);
        }
        return;
    }
    let (opts, paths) = match parse(&args) {
        Ok(x) => x,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("hcpumf-report: {e}");
            }
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let started = std::time::Instant::now();
    match find_files(&paths).and_then(|f| report(&f, &opts)) {
        Ok(rep) => {
            print!("{}", rep.text);
            if std::env::var_os("HCPUMF_REPORT_TIMING").is_some() {
                eprintln!("hcpumf-report: {:.3} s", started.elapsed().as_secs_f64());
            }
            // The report covers what could be read; damaged input is an error all the same.
            if !rep.damaged.is_empty() {
                for d in &rep.damaged {
                    eprintln!("hcpumf-report: damaged input: {d}");
                }
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("hcpumf-report: {e}");
            std::process::exit(2);
        }
    }
}

//! The samples as stacks, for a flame graph: CPU state, address space (job), module, CSECT,
//! address bucket. [`folded`] gives them in the collapsed-stack ("folded") format of Brendan
//! Gregg's FlameGraph (`frame;frame;frame count` per line), [`svg`] draws them with the
//! `inferno` crate (its Rust port) as an icicle graph whose frames zoom when clicked.

use super::rows::{job_of, place, COMMON};
use super::samples::Addresses;
use hcpumf_formats::map::MapFile;
use std::collections::BTreeMap;

/// Bytes of the address buckets under a CSECT: small enough to tell a loop from its
/// neighbours, large enough that a module is a few frames, not hundreds.
pub const FLAME_BUCKET: u64 = 256;

/// A frame's name without the folded format's separators.
fn frame(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => ':',
            c if c.is_whitespace() => '_',
            c => c,
        })
        .collect()
}

/// The address-space frame: `<COMMON>`, `JOBNAME(0021)` or `ASID(0021)`.
pub fn space_frame(m: &MapFile, asid: u16, common: bool) -> String {
    match job_of(m, asid, common) {
        COMMON => COMMON.to_string(),
        "-" => format!("ASID({asid:04X})"),
        job => format!("{}({asid:04X})", frame(job)),
    }
}

/// The stacks of the samples and their counts, sorted by stack; `bucket` is the report's
/// bucket for code outside the map's modules.
pub fn stacks(a: &Addresses, m: &MapFile, bucket: u64) -> Vec<(String, u64)> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for &((tag, ia), c) in &a.entries {
        if c.samples == 0 {
            continue;
        }
        let asid = tag.asid();
        let p = place(m, asid, ia, bucket);
        let lo = (ia / FLAME_BUCKET * FLAME_BUCKET).max(p.start);
        let hi = (ia / FLAME_BUCKET * FLAME_BUCKET)
            .saturating_add(FLAME_BUCKET - 1)
            .min(p.end);
        let stack = format!(
            "{};{};{};{};{lo:08X}-{hi:08X}",
            if tag.problem() {
                "problem"
            } else {
                "supervisor"
            },
            space_frame(m, asid, p.common),
            frame(p.module),
            frame(p.csect),
        );
        *out.entry(stack).or_insert(0) += c.samples;
    }
    out.into_iter().collect()
}

/// The folded text of the stacks: one `stack count` line each.
pub fn folded(stacks: &[(String, u64)]) -> String {
    let mut s = String::new();
    for (stack, n) in stacks {
        s.push_str(stack);
        s.push(' ');
        s.push_str(&n.to_string());
        s.push('\n');
    }
    s
}

/// The icicle graph of the stacks as a standalone SVG with inferno's script (click to zoom,
/// search); None when there are no samples.
pub fn svg(stacks: &[(String, u64)]) -> Option<String> {
    use inferno::flamegraph::{self, color, Direction, Options};
    if stacks.iter().all(|(_, n)| *n == 0) {
        return None;
    }
    let text = folded(stacks);
    let mut o = Options::default();
    o.direction = Direction::Inverted;
    o.title = "Samples by state, address space, module, CSECT and address".into();
    o.subtitle = Some("click a frame to zoom in, Ctrl-F to search".into());
    o.count_name = "samples".into();
    o.name_type = String::new();
    o.colors = color::Palette::Basic(color::BasicPalette::Aqua);
    // The same name, the same colour, in every report.
    o.hash = true;
    o.deterministic = true;
    o.font_type = "DejaVu Sans".into();
    o.font_size = 12;
    o.frame_height = 18;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut o, text.lines(), &mut out).ok()?;
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::Tag;
    use hcpumf_formats::smp::Bsde;

    #[test]
    fn stacks_follow_state_space_module_csect_bucket() {
        let m = hcpumf_formats::map::parse(
            "I MODE 64-BIT\n\
             AX0021DEMOJOB 00000000000089000000000000008900\n\
             MX0021HOTLOOP 000000000002000000000000000201FF\n",
        );
        let mut a = Addresses::default();
        let s = |ia: u64, problem: bool| Bsde {
            ia,
            primary_asn: 0x21,
            problem_state: problem,
            ..Default::default()
        };
        for _ in 0..3 {
            a.add(&s(0x20010, true), Tag::of_cpu(0));
        }
        a.add(&s(0x20110, true), Tag::of_cpu(1));
        a.add(&s(0x20012, false), Tag::of_cpu(0));
        a.add(&s(0x5000, false), Tag::of_cpu(0));
        a.finish();
        let st = stacks(&a, &m, 4096);
        assert_eq!(
            folded(&st),
            "problem;DEMOJOB(0021);HOTLOOP;<NoCSECT>;00020000-000200FF 3\n\
             problem;DEMOJOB(0021);HOTLOOP;<NoCSECT>;00020100-000201FF 1\n\
             supervisor;DEMOJOB(0021);<NoModule>;<NoCSECT>;00005000-000050FF 1\n\
             supervisor;DEMOJOB(0021);HOTLOOP;<NoCSECT>;00020000-000200FF 1\n"
        );
        let pic = svg(&st).expect("svg");
        assert!(pic.contains("<svg") && pic.contains("HOTLOOP"), "{pic}");
        assert!(
            pic.contains("function zoom"),
            "inferno's script: click to zoom"
        );
        assert!(svg(&[]).is_none());
    }
}

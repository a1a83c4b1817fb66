//! The crate's layering, checked from its sources: dependencies point one way (plugin ->
//! console -> his -> host -> arch; report -> the HIS formats), no module imports another
//! that imports it back, and no source file but a test file grows past 600 lines.
//!
//! A module's dependencies are the `crate::...` and `super::...` paths in its code outside
//! comments and `#[cfg(test)]` items, and `tests.rs` files, the test modules of their
//! directory's module (tests may reach across layers, as dev-dependencies do).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src").flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `src/his/mvs/mod.rs` -> `his::mvs`; `src/lib.rs` -> ``.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without `#[cfg(test)]` items (a test module is
/// the rest of the file from its attribute: they stand last in this crate's files).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Paths like `crate::host::state::cpu` or `super::buffer::Tear` in `code`.
fn paths(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut v = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let path: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let base: Vec<String> = path
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        // `crate::his::{cnt, map}`: one path per item of the group.
        let after = &rest[path.len()..];
        match (after.starts_with('{'), after.find('}')) {
            (true, Some(end)) => {
                for item in after[1..end].split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let mut p = base.clone();
                    if !name.is_empty() && name != "self" {
                        p.push(name);
                    }
                    v.push(p);
                }
            }
            _ => v.push(base),
        }
    }
    v
}

struct Crate {
    /// module -> (file, lines)
    modules: BTreeMap<String, (PathBuf, usize)>,
    /// module -> modules it uses
    deps: BTreeMap<String, BTreeSet<String>>,
}

fn read_crate() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut modules = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("source");
        let m = module_of(&src, f);
        modules.insert(m.clone(), (f.clone(), text.lines().count()));
        texts.insert(m, (f.clone(), text));
    }
    // The longest prefix of `path` that names a module.
    let resolve = |path: &[String]| -> Option<String> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].join("::"))
            .find(|c| modules.contains_key(c))
    };
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, (file, text)) in &texts {
        let is_dir_module = file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let parent: Vec<String> = if is_dir_module {
            m.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        } else {
            let mut p: Vec<String> = m.split("::").map(str::to_string).collect();
            p.pop();
            p
        };
        // A `tests.rs` beside its module (`#[cfg(test)] mod tests;`) is test code whole.
        let code = if m.ends_with("::tests") {
            String::new()
        } else {
            code(text)
        };
        let mut used = BTreeSet::new();
        for p in paths(&code, "crate::") {
            if let Some(d) = resolve(&p) {
                used.insert(d);
            }
        }
        for p in paths(&code, "super::") {
            let mut up = parent.clone();
            up.pop();
            let full: Vec<String> = up.into_iter().chain(p).collect();
            if let Some(d) = resolve(&full) {
                used.insert(d);
            }
        }
        // A module's own children (declared with `mod`) are part of it, not dependencies.
        used.retain(|d| d != m && !d.starts_with(&format!("{m}::")) || m.is_empty());
        deps.insert(m.clone(), used);
    }
    Crate { modules, deps }
}

fn layer(m: &str) -> &str {
    m.split("::").next().unwrap_or("")
}

/// The HIS file formats the report tool reads: pure, below collection.
const FORMATS: [&str; 6] = [
    "his::cnt",
    "his::int",
    "his::map",
    "his::smp",
    "his::text",
    "his::time",
];

#[test]
fn dependencies_point_one_way() {
    let c = read_crate();
    // Which top-level layers each may use.
    let allowed: BTreeMap<&str, &[&str]> = [
        ("arch", &["arch"][..]),
        ("host", &["arch", "host"][..]),
        ("his", &["arch", "host", "his"][..]),
        ("report", &["his"][..]),
        ("console", &["arch", "host", "his"][..]),
        ("plugin", &["arch", "host", "his", "console"][..]),
        ("bin", &[][..]),
        (
            "",
            &["arch", "host", "his", "console", "plugin", "report"][..],
        ),
    ]
    .into_iter()
    .collect();
    let mut wrong = Vec::new();
    for (m, used) in &c.deps {
        let ok = allowed.get(layer(m)).copied().unwrap_or(&[]);
        for d in used {
            let fine = if m.is_empty() {
                true
            } else if FORMATS.contains(&m.as_str()) {
                FORMATS.contains(&d.as_str()) || layer(d) == "arch"
            } else if layer(m) == "report" {
                FORMATS.contains(&d.as_str()) || layer(d) == "report"
            } else {
                ok.contains(&layer(d))
            };
            if !fine {
                wrong.push(format!("{m} uses {d}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let c = read_crate();
    // Depth-first search for a cycle.
    fn visit(
        m: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for d in deps.get(m).into_iter().flatten() {
            match state.get(d.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|s| s == d).unwrap_or(0);
                    cycles.push(format!("{} -> {d}", stack[at..].join(" -> ")));
                }
                None => visit(d, deps, state, stack, cycles),
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
    }
    let mut state = BTreeMap::new();
    let mut cycles = Vec::new();
    for m in c.deps.keys() {
        if !state.contains_key(m.as_str()) {
            visit(m, &c.deps, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn no_source_file_but_tests_over_600_lines() {
    let c = read_crate();
    let long: Vec<String> = c
        .modules
        .iter()
        .filter(|(m, (_, n))| *n > 600 && !m.ends_with("tests"))
        .map(|(m, (f, n))| format!("{m} ({}): {n} lines", f.display()))
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

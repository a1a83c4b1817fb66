//! The layering, checked from the sources with a real Rust parser (syn).
//!
//! The workspace's crates are layers the compiler keeps apart (Cargo.toml). Inside the plugin
//! crate the layers are modules, and this test keeps them: `plugin` -> `console` -> `his` ->
//! `host`, each using only those after it, and a binary of the plugin crate (it runs outside
//! Hercules) using none of them. In every crate of the workspace no module uses another that
//! uses it back (a parent and its child included: a parent that only re-exports its
//! children with `pub use` does not use them), and no source file but a test module grows
//! past 600 lines, the C glue included.
//!
//! A module's dependencies are every path in its code that names a module of its crate: `use`
//! trees however nested, paths in types, expressions, patterns and the arguments of macro
//! calls, through `crate::`, `self::`, `super::`, a child module's name or, in a binary, the
//! library's name. Items under `#[cfg(test)]` wherever they stand, and the files of test
//! modules, are test code (tests may reach across layers, as dev-dependencies do).
//! `planted_violations_are_found` shows the check failing on a copy of the plugin's sources
//! with three violations planted where a text scan misses them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// A module of a crate: `host::state`; `` for lib.rs; `bin::NAME` for a binary's root.
type Module = String;

/// What the sources of one crate say.
#[derive(Default)]
struct Crate {
    /// Module -> its file and whether the file is a test module.
    files: BTreeMap<Module, PathBuf>,
    /// Module -> module it uses -> where (file:line path), the first few.
    deps: BTreeMap<Module, BTreeMap<Module, Vec<String>>>,
    /// Every source file, with its line count and whether it is test code whole.
    sizes: Vec<(PathBuf, usize, bool)>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Collects the paths of one module's non-test code.
struct Paths<'a> {
    /// The module's own path segments.
    here: &'a [String],
    /// The library's crate name, for `NAME::` paths in a binary (None in the library).
    lib_name: Option<&'a str>,
    /// Its child modules (a leading child name is a path into it).
    children: &'a BTreeSet<String>,
    /// (absolute module path segments, line, text of the path).
    found: Vec<(Vec<String>, usize, String)>,
    /// Inside a `pub use` (a re-export).
    facade: bool,
    /// Names the module's `use` items bring in -> the paths they stand for (a name used in
    /// the code is a use of where it comes from, re-exported names included).
    imports: BTreeMap<String, Vec<String>>,
    /// Collecting `imports` (first pass) rather than uses.
    collecting: bool,
}

impl Paths<'_> {
    /// The absolute path a path's segments name, if it is inside this crate.
    fn absolute(&self, segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.here.to_vec(),
            "super" => {
                let mut b = self.here.to_vec();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    b.pop()?;
                    rest = &rest[1..];
                }
                b.extend(rest.iter().cloned());
                return Some(b);
            }
            s if Some(s) == self.lib_name => Vec::new(),
            s if self.imports.contains_key(s) => {
                let mut b = self.imports[s].clone();
                b.extend(segs[1..].iter().cloned());
                return self.absolute(&b);
            }
            s if self.children.contains(s) => {
                let mut b = self.here.to_vec();
                b.push(s.to_string());
                b.extend(segs[1..].iter().cloned());
                return Some(b);
            }
            _ => return None,
        };
        base.extend(segs[1..].iter().cloned());
        Some(base)
    }

    fn add(&mut self, segs: Vec<String>, line: usize) {
        if self.collecting {
            return;
        }
        if let Some(abs) = self.absolute(&segs) {
            // A parent's `pub use child::...` presents its child's API: not a use of it.
            let below = abs.len() > self.here.len() && abs.starts_with(self.here);
            if self.facade && below {
                return;
            }
            self.found.push((abs, line, segs.join("::")));
        }
    }

    /// Note in the first pass that `name` stands for `path` (when it leads into the crate).
    fn import(&mut self, name: Option<String>, path: &[String]) {
        if !self.collecting {
            return;
        }
        if let (Some(name), Some(first)) = (name, path.first()) {
            let leads_in = matches!(first.as_str(), "crate" | "self" | "super")
                || Some(first.as_str()) == self.lib_name
                || self.children.contains(first);
            if leads_in && name != "_" {
                // Absolute now: a later import of the same name must not resolve through it.
                if let Some(abs) = self.absolute(path) {
                    let mut a = vec!["crate".to_string()];
                    a.extend(abs);
                    self.imports.insert(name, a);
                }
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, t: &syn::UseTree) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut s = prefix.clone();
                if n.ident != "self" {
                    s.push(n.ident.to_string());
                }
                self.import(s.last().cloned(), &s);
                self.add(s, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let mut s = prefix.clone();
                if r.ident != "self" {
                    s.push(r.ident.to_string());
                }
                self.import(Some(r.rename.to_string()), &s);
                self.add(s, r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => {
                self.add(prefix.clone(), g.star_token.span.start().line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Const(x) => &x.attrs,
            syn::Item::Enum(x) => &x.attrs,
            syn::Item::Fn(x) => &x.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Mod(x) => &x.attrs,
            syn::Item::Static(x) => &x.attrs,
            syn::Item::Struct(x) => &x.attrs,
            syn::Item::Trait(x) => &x.attrs,
            syn::Item::Type(x) => &x.attrs,
            syn::Item::Use(x) => &x.attrs,
            syn::Item::Macro(x) => &x.attrs,
            _ => return syn::visit::visit_item(self, i),
        };
        if is_cfg_test(attrs) {
            return;
        }
        match i {
            // Inline and file modules are modules of their own (read separately).
            syn::Item::Mod(_) => {}
            syn::Item::Use(u) => {
                self.facade = matches!(u.vis, syn::Visibility::Public(_));
                self.use_tree(&mut Vec::new(), &u.tree);
                self.facade = false;
            }
            _ => syn::visit::visit_item(self, i),
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        if let syn::Stmt::Item(i) = s {
            return self.visit_item(i);
        }
        syn::visit::visit_stmt(self, s);
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let imported =
            p.segments.len() == 1 && self.imports.contains_key(&p.segments[0].ident.to_string());
        if p.leading_colon.is_none() && (p.segments.len() > 1 || imported) {
            let segs = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let line = p.segments[0].ident.span().start().line;
            self.add(segs, line);
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // format!, assert!, vec!, ...: their arguments are expressions more often than not.
        use syn::punctuated::Punctuated;
        let args = m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
        if let Ok(args) = args {
            for e in &args {
                self.visit_expr(e);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// The child modules an item list declares (not under `#[cfg(test)]`): name -> inline items
/// (None: the module's own file).
fn child_mods(items: &[syn::Item]) -> Vec<(String, Option<Vec<syn::Item>>, bool)> {
    items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Mod(m) => Some((
                m.ident.to_string(),
                m.content.as_ref().map(|(_, v)| v.clone()),
                is_cfg_test(&m.attrs),
            )),
            _ => None,
        })
        .collect()
}

/// Read the module at `here` (items of `file`; its children's files under `dir`).
fn read_module(
    c: &mut Crate,
    lib_name: Option<&str>,
    here: Vec<String>,
    file: &Path,
    items: &[syn::Item],
    dir: &Path,
    errors: &mut Vec<String>,
) {
    let kids = child_mods(items);
    let children: BTreeSet<String> = kids.iter().map(|(n, _, _)| n.clone()).collect();
    let mut v = Paths {
        here: &here,
        lib_name,
        children: &children,
        found: Vec::new(),
        facade: false,
        imports: BTreeMap::new(),
        collecting: true,
    };
    // First the names the `use` items bring in, then the uses.
    for i in items {
        if let syn::Item::Use(u) = i {
            if !is_cfg_test(&u.attrs) {
                v.use_tree(&mut Vec::new(), &u.tree);
            }
        }
    }
    v.collecting = false;
    for i in items {
        v.visit_item(i);
    }
    let me = here.join("::");
    c.files.insert(me.clone(), file.to_path_buf());
    let found = std::mem::take(&mut v.found);
    let deps = c.deps.entry(me.clone()).or_default();
    for (abs, line, text) in found {
        let why = deps.entry(abs.join("::")).or_default();
        if why.len() < 3 {
            why.push(format!("{}:{line} {text}", file.display()));
        }
    }
    for (name, inline, test) in kids {
        if test {
            // A test module's file is test code whole.
            if inline.is_none() {
                for f in [
                    dir.join(format!("{name}.rs")),
                    dir.join(&name).join("mod.rs"),
                ] {
                    if let Ok(t) = std::fs::read_to_string(&f) {
                        c.sizes.push((f, t.lines().count(), true));
                    }
                }
            }
            continue;
        }
        let mut sub = here.clone();
        sub.push(name.clone());
        match inline {
            Some(items) => read_module(c, lib_name, sub, file, &items, &dir.join(&name), errors),
            None => {
                let (f, d) = match dir.join(format!("{name}.rs")) {
                    f if f.exists() => (f, dir.join(&name)),
                    _ => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                };
                read_file(c, lib_name, sub, &f, &d, errors);
            }
        }
    }
}

fn read_file(
    c: &mut Crate,
    lib_name: Option<&str>,
    here: Vec<String>,
    file: &Path,
    dir: &Path,
    errors: &mut Vec<String>,
) {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return errors.push(format!("{}: {e}", file.display())),
    };
    c.sizes
        .push((file.to_path_buf(), text.lines().count(), false));
    match syn::parse_file(&text) {
        Ok(f) => read_module(c, lib_name, here, file, &f.items, dir, errors),
        Err(e) => errors.push(format!("{}: {e}", file.display())),
    }
}

/// Read a crate from its `src` directory: the library (lib.rs) and its binaries (main.rs,
/// bin/*.rs), whose `LIB_NAME::` paths lead into the library.
fn read_crate(src: &Path, lib_name: &str) -> Crate {
    let mut c = Crate::default();
    let mut errors = Vec::new();
    read_file(
        &mut c,
        None,
        Vec::new(),
        &src.join("lib.rs"),
        src,
        &mut errors,
    );
    let mut bins: Vec<(String, PathBuf)> = Vec::new();
    if src.join("main.rs").exists() {
        bins.push(("main".into(), src.join("main.rs")));
    }
    for e in std::fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "rs") {
            let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
            bins.push((stem.unwrap_or_default(), p));
        }
    }
    for (name, f) in bins {
        let here = vec!["bin".to_string(), name];
        read_file(
            &mut c,
            Some(lib_name),
            here,
            &f,
            &src.join("bin"),
            &mut errors,
        );
    }
    assert!(
        errors.is_empty(),
        "unreadable sources:\n{}",
        errors.join("\n")
    );
    c
}

/// The module of `crate` that `path` names: its longest prefix that is a module.
fn resolve<'a>(c: &'a Crate, path: &str) -> Option<&'a str> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    (0..=segs.len()).rev().find_map(|k| {
        let m = segs[..k].join("::");
        c.files.get_key_value(&m).map(|(k, _)| k.as_str())
    })
}

/// Module -> modules it uses (resolved, itself excluded) -> evidence.
fn graph(c: &Crate) -> BTreeMap<&str, BTreeMap<&str, &[String]>> {
    let mut g: BTreeMap<&str, BTreeMap<&str, &[String]>> = BTreeMap::new();
    for (m, deps) in &c.deps {
        let e = g.entry(m.as_str()).or_default();
        for (d, why) in deps {
            match resolve(c, d) {
                Some(r) if r != m.as_str() => {
                    e.entry(r).or_insert(why.as_slice());
                }
                _ => {}
            }
        }
    }
    g
}

/// The plugin crate's layers, top first: which each may use besides itself.
fn layer_of(m: &str) -> &str {
    match m.split("::").next().unwrap_or("") {
        "" => "lib",
        "bin" => "bin",
        l => l,
    }
}

fn allowed(layer: &str) -> &'static [&'static str] {
    match layer {
        "lib" => &["plugin", "console", "his", "host"],
        "plugin" => &["console", "his", "host"],
        "console" => &["his", "host"],
        "his" => &["host"],
        // Binaries run outside Hercules; host and everything built on it need it.
        _ => &[],
    }
}

/// Uses against the plugin crate's layering.
fn layer_violations(c: &Crate) -> Vec<String> {
    let mut v = Vec::new();
    for (m, deps) in graph(c) {
        let (lm, ok) = (layer_of(m), allowed(layer_of(m)));
        for (d, why) in deps {
            let ld = layer_of(d);
            if ld != lm && !ok.contains(&ld) {
                v.push(format!("{m} ({lm}) uses {d} ({ld}): {}", why.join("; ")));
            }
        }
    }
    v
}

/// Groups of modules that use each other (strongly connected components of more than one).
fn cycles(c: &Crate) -> Vec<String> {
    let g = graph(c);
    let nodes: Vec<&str> = g.keys().copied().collect();
    // Kosaraju: finishing order on the graph, then components on the reversed graph.
    fn finish<'a>(
        n: &'a str,
        g: &BTreeMap<&'a str, BTreeMap<&'a str, &[String]>>,
        seen: &mut BTreeSet<&'a str>,
        out: &mut Vec<&'a str>,
    ) {
        if !seen.insert(n) {
            return;
        }
        for d in g.get(n).into_iter().flat_map(|d| d.keys()) {
            finish(d, g, seen, out);
        }
        out.push(n);
    }
    let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
    for n in &nodes {
        finish(n, &g, &mut seen, &mut order);
    }
    let mut rev: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (m, deps) in &g {
        for d in deps.keys() {
            rev.entry(d).or_default().push(m);
        }
    }
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for n in order.iter().rev() {
        if done.contains(n) {
            continue;
        }
        let (mut comp, mut stack) = (Vec::new(), vec![*n]);
        done.insert(n);
        while let Some(x) = stack.pop() {
            comp.push(x);
            for y in rev.get(x).into_iter().flatten() {
                if done.insert(y) {
                    stack.push(y);
                }
            }
        }
        if comp.len() > 1 {
            comp.sort();
            let set: BTreeSet<&str> = comp.iter().copied().collect();
            let edges: Vec<String> = comp
                .iter()
                .flat_map(|m| {
                    g[m].iter()
                        .filter(|(d, _)| set.contains(*d))
                        .map(move |(d, why)| format!("  {m} -> {d}: {}", why.join("; ")))
                })
                .collect();
            out.push(format!("{}\n{}", comp.join(" <-> "), edges.join("\n")));
        }
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate of the workspace: (src directory, library name).
fn workspace() -> Vec<(PathBuf, &'static str)> {
    vec![
        (root().join("src"), "hcpumf"),
        (root().join("crates/arch/src"), "hcpumf_arch"),
        (root().join("crates/formats/src"), "hcpumf_formats"),
        (root().join("crates/report/src"), "hcpumf_report"),
    ]
}

#[test]
fn the_plugin_crates_layers_point_one_way() {
    let c = read_crate(&root().join("src"), "hcpumf");
    for layer in ["plugin", "console", "his", "host"] {
        assert!(c.files.contains_key(layer), "no module {layer}");
    }
    let v = layer_violations(&c);
    assert!(v.is_empty(), "against the layering:\n{}", v.join("\n"));
}

#[test]
fn no_module_uses_one_that_uses_it_back() {
    let mut all = Vec::new();
    for (src, name) in workspace() {
        all.extend(cycles(&read_crate(&src, name)));
    }
    assert!(
        all.is_empty(),
        "modules that use each other:\n{}",
        all.join("\n")
    );
}

#[test]
fn no_source_file_but_tests_over_600_lines() {
    let mut long = Vec::new();
    for (src, name) in workspace() {
        for (f, n, test) in read_crate(&src, name).sizes {
            if n > 600 && !test {
                long.push(format!("{}: {n} lines", f.display()));
            }
        }
    }
    for e in std::fs::read_dir(root().join("hercules-glue"))
        .expect("glue")
        .flatten()
    {
        let f = e.path();
        let n = std::fs::read_to_string(&f)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n > 600 {
            long.push(format!("{}: {n} lines", f.display()));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// Copy a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let (p, q) = (e.path(), to.join(e.file_name()));
        if p.is_dir() {
            copy_tree(&p, &q);
        } else {
            std::fs::copy(&p, &q).expect("copy");
        }
    }
}

fn append(f: &Path, text: &str) {
    let mut t = std::fs::read_to_string(f).expect("read");
    t.push_str(text);
    std::fs::write(f, t).expect("write");
}

/// Three violations a text scan of the sources missed (a binary reaching the host through the
/// library's name; an upward import inside a nested `use` group; a real cycle in code after
/// a `#[cfg(test)]` module in the middle of a file) are each found, and the copy without
/// them is clean.
#[test]
fn planted_violations_are_found() {
    let dir = std::env::temp_dir().join(format!("hcpumf-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src");
    copy_tree(&root().join("src"), &src);
    let clean = read_crate(&src, "hcpumf");
    assert!(layer_violations(&clean).is_empty() && cycles(&clean).is_empty());

    std::fs::create_dir_all(src.join("bin")).expect("mkdir");
    std::fs::write(
        src.join("bin/peek.rs"),
        "fn main() {\n    println!(\"{}\", hcpumf::host::state::rt().online());\n}\n",
    )
    .expect("write");
    append(
        &src.join("his/writer.rs"),
        "\nuse crate::{host::{run::Block as B2}, console::grammar::words as w2};\n",
    );
    append(
        &src.join("host/state.rs"),
        "\n#[cfg(test)]\nmod more_tests {}\n\npub fn planted() {\n    crate::console::banner();\n}\n",
    );
    let c = read_crate(&src, "hcpumf");
    let v = layer_violations(&c).join("\n");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(v.contains("bin::peek (bin) uses host::state"), "{v}");
    assert!(v.contains("his::writer (his) uses console::grammar"), "{v}");
    assert!(v.contains("host::state (host) uses console"), "{v}");
    let cyc = cycles(&c).join("\n");
    assert!(
        cyc.contains("host::state -> console: ") && cyc.contains("console -> host::state: "),
        "host::state -> console closes a cycle through console's use of host::state:\n{cyc}"
    );
}

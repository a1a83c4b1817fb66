//! Build script: generates the C header of the Rust hooks (cbindgen), Rust bindings of the
//! glue interface (bindgen) and compiles the Hercules glue (cc) against a *configured*
//! Hercules source tree: Debian's Hercules 3.13 (scripts/setup.sh prepares one in
//! vendor/hercules, the default) or SDL Hyperion 4.x (a configured and built tree, e.g. the
//! one scripts/hyperion.sh makes), named by HERCULES_SRC. The flavour is read from the tree
//! or forced with HCPUMF_HERCULES=313|hyperion; a Hyperion build sets the Rust cfg
//! `hercules_hyperion` (the HDL entry points' names differ) and compiles the glue with
//! HCPUMF_HYPERION (hercules-glue/compat.h holds the differences).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flavour {
    Hercules313,
    Hyperion,
}

/// Which Hercules the tree at `herc` is: Hyperion's loader looks up `hdl_check_depends_ep`
/// (hdl.h) and its tree has the `_archdep_templ.c` template; 3.13's hdl.h names `HDL_DEPC`.
fn detect(herc: &Path) -> Result<Flavour, String> {
    let forced = env::var("HCPUMF_HERCULES").unwrap_or_default();
    match forced.to_ascii_lowercase().as_str() {
        "313" | "3.13" => return Ok(Flavour::Hercules313),
        "hyperion" | "4" | "sdl" => return Ok(Flavour::Hyperion),
        "" => {}
        other => {
            return Err(format!(
                "HCPUMF_HERCULES={other}: say 313 (Debian's Hercules 3.13) or hyperion (SDL Hyperion 4.x)"
            ))
        }
    }
    let hdl = fs::read_to_string(herc.join("hdl.h")).map_err(|e| {
        format!(
            "{}: no hdl.h ({e}): HERCULES_SRC must name a Hercules source tree",
            herc.display()
        )
    })?;
    if hdl.contains("hdl_check_depends_ep") || herc.join("_archdep_templ.c").exists() {
        Ok(Flavour::Hyperion)
    } else if hdl.contains("HDL_DEPC") {
        Ok(Flavour::Hercules313)
    } else {
        Err(format!(
            "{} is neither Hercules 3.13 nor SDL Hyperion 4.x (hdl.h has neither HDL_DEPC nor \
             hdl_check_depends_ep); set HCPUMF_HERCULES=313|hyperion to force one",
            herc.display()
        ))
    }
}

/// One value of Hyperion's `_dynamic_version` script, run in the tree as its Makefile does
/// (the -DVERS_* and DYNAMIC_VERSION macros are not in config.h, and version.h builds the
/// HERCULES dependency string HDL checks at ldmod from them).
fn hyperion_version(herc: &Path, what: &str) -> String {
    // A bash script (#!/usr/bin/env bash), as the Makefile runs it.
    let out = Command::new("bash")
        .arg(herc.join("_dynamic_version"))
        .arg(herc)
        .arg(what)
        .current_dir(herc)
        .output()
        .unwrap_or_else(|e| panic!("{}/_dynamic_version: {e}", herc.display()));
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || v.is_empty() {
        panic!(
            "{}/_dynamic_version {what} printed nothing (status {}): {}",
            herc.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    v
}

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let glue = root.join("hercules-glue");
    println!("cargo:rerun-if-changed=hercules-glue");
    println!("cargo:rerun-if-changed=src/host/ffi.rs");
    println!("cargo:rerun-if-changed=src/plugin.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    for var in [
        "HERCULES_SRC",
        "HERCULES_LIBDIR",
        "HCPUMF_HERCULES",
        "HYPERION_PREFIX",
        "HCPUMF_UPDATE_HEADER",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(hercules_hyperion)");

    // Rust view of the glue interface.
    bindgen::Builder::default()
        .header(glue.join("glue.h").to_string_lossy())
        .allowlist_type("hcpumf_.*")
        .allowlist_var("HCPUMF_.*")
        .rustified_enum("hcpumf_arm_mode")
        .derive_default(true)
        .layout_tests(false)
        .generate()
        .expect("bindgen: hercules-glue/glue.h")
        .write_to_file(out.join("glue_bindings.rs"))
        .expect("write glue bindings");

    // C view of the Rust hooks. The checked-in include/hcpumf.h is compared with this one by
    // tests/header.rs; HCPUMF_UPDATE_HEADER=1 refreshes it. It is the same for both
    // Hercules: the entry points of each are under #if HCPUMF_HYPERION (cbindgen.toml).
    let header = out.join("hcpumf.h");
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    cbindgen::Builder::new()
        .with_crate(&root)
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write_to_file(&header);
    if env::var("HCPUMF_UPDATE_HEADER").as_deref() == Ok("1") {
        fs::copy(&header, root.join("include/hcpumf.h")).expect("update include/hcpumf.h");
    }

    // The glue, compiled against the configured Hercules source.
    let herc = env::var("HERCULES_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("vendor/hercules"));
    if !herc.join("config.h").exists() {
        panic!(
            "no configured Hercules source at {} (no config.h): run scripts/setup.sh for \
             Debian's 3.13, or scripts/hyperion.sh (or ./configure && make in your own SDL \
             Hyperion tree) and set HERCULES_SRC to it",
            herc.display()
        );
    }
    let flavour = detect(&herc).unwrap_or_else(|e| panic!("{e}"));
    let mut build = cc::Build::new();
    let mut files = vec!["instructions.c", "arming.c", "host.c"];
    build.include(&glue).include(&out).include(&herc);
    let libdir = match flavour {
        Flavour::Hercules313 => {
            build
                .include(herc.join("decNumber"))
                .include(herc.join("softfloat"));
            env::var("HERCULES_LIBDIR").unwrap_or_else(|_| "/usr/lib/hercules".into())
        }
        Flavour::Hyperion => {
            println!("cargo::rustc-cfg=hercules_hyperion");
            files.extend(["hyperion.c", "arming_hyperion.c"]);
            for dir in ["crypto", "decNumber", "SoftFloat", "telnet"] {
                build.include(herc.join(dir).join("include"));
            }
            build.define("HCPUMF_HYPERION", None);
            // As Hyperion's own Makefile compiles its modules (CFLAGS).
            build.define("_GNU_SOURCE", None).flag("-pthread");
            for (name, what) in [
                ("VERS_MAJ", "VERS_MAJ"),
                ("VERS_INT", "VERS_INT"),
                ("VERS_MIN", "VERS_MIN"),
                ("VERS_BLD", "VERS_BLD"),
            ] {
                build.define(name, Some(hyperion_version(&herc, what).as_str()));
            }
            // The script prints the version with its quotes ("4.9.0.0-SDL").
            let mut v = hyperion_version(&herc, "VERSION");
            if !v.starts_with('"') {
                v = format!("\"{v}\"");
            }
            build.define("DYNAMIC_VERSION", Some(v.as_str()));
            // Hercules' libraries: HERCULES_LIBDIR, else the install prefix scripts/hyperion.sh
            // names, else the tree's own libtool output.
            let libdir = env::var("HERCULES_LIBDIR")
                .or_else(|_| env::var("HYPERION_PREFIX").map(|p| format!("{p}/lib")))
                .unwrap_or_else(|_| herc.join(".libs").to_string_lossy().into_owned());
            if !Path::new(&libdir).join("libherc.so").exists() {
                panic!(
                    "no libherc.so in {libdir}: build the Hyperion tree {} (make), or set \
                     HERCULES_LIBDIR (or HYPERION_PREFIX) to the Hercules whose module this is",
                    herc.display()
                );
            }
            libdir
        }
    };
    build
        .files(files.iter().map(|f| glue.join(f)))
        .define("HAVE_CONFIG_H", None)
        .flag("-fPIC")
        .flag("-fno-strict-aliasing")
        .flag_if_supported("-Wno-unused-function")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-sign-compare")
        .flag_if_supported("-Wno-missing-field-initializers")
        .flag_if_supported("-Wno-unused-but-set-variable")
        .flag_if_supported("-Wno-unused-variable")
        .flag_if_supported("-Wno-pointer-sign")
        .flag_if_supported("-Wno-implicit-fallthrough")
        .cargo_metadata(false)
        .compile("hcpumf_glue");

    // Only the plugin (cdylib) carries the glue and links Hercules' libraries; unit tests and
    // the report tool never need Hercules.
    let archive = out.join("libhcpumf_glue.a");
    for arg in [
        "-Wl,--whole-archive".to_string(),
        archive.to_string_lossy().into_owned(),
        "-Wl,--no-whole-archive".to_string(),
        format!("-L{libdir}"),
        format!("-Wl,-rpath,{libdir}"),
        "-lherc".to_string(),
        "-lhercs".to_string(),
        "-lhercu".to_string(),
        "-lpthread".to_string(),
    ] {
        println!("cargo:rustc-cdylib-link-arg={arg}");
    }
}

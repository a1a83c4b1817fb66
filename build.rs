//! Build script: generates the C header of the Rust hooks (cbindgen), Rust bindings of the
//! glue interface (bindgen) and compiles the Hercules glue (cc) against a *configured*
//! Hercules 3.13 source tree (scripts/setup.sh prepares one in vendor/hercules).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let glue = root.join("hercules-glue");
    println!("cargo:rerun-if-changed=hercules-glue");
    println!("cargo:rerun-if-changed=src/host/ffi.rs");
    println!("cargo:rerun-if-changed=src/plugin.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=HERCULES_SRC");
    println!("cargo:rerun-if-env-changed=HCPUMF_UPDATE_HEADER");

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
    // tests/header.rs; HCPUMF_UPDATE_HEADER=1 refreshes it.
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
            "no configured Hercules source at {} (run scripts/setup.sh or set HERCULES_SRC)",
            herc.display()
        );
    }
    cc::Build::new()
        .files(["instructions.c", "arming.c", "host.c"].map(|f| glue.join(f)))
        .include(&glue)
        .include(&out)
        .include(&herc)
        .include(herc.join("decNumber"))
        .include(herc.join("softfloat"))
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
    let libdir = env::var("HERCULES_LIBDIR").unwrap_or_else(|_| "/usr/lib/hercules".into());
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
    let _ = Path::new(&libdir);
}

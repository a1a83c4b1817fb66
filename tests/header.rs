//! include/hcpumf.h is checked in; it must be what cbindgen generates from the hooks now (src/host/ffi.rs, src/plugin.rs).
#[test]
fn checked_in_header_is_current() {
    let generated = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/hcpumf.h"))
        .expect("build script output");
    let checked_in =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/hcpumf.h"))
            .expect("include/hcpumf.h");
    assert!(
        generated == checked_in,
        "include/hcpumf.h is stale: run scripts/update-header.sh"
    );
}

//! hcpumf: the z/Architecture CPU-Measurement Facility (SA23-2260) for the Hercules emulator.
//!
//! This crate is the plugin. Its layers are modules; dependencies point one way, down this
//! list (`tests/layers.rs` checks it):
//!
//! | layer | what |
//! |---|---|
//! | [`plugin`] | the Hercules dynamic module: `ldmod`/`rmmod`, the console command's entry, the HDL sections |
//! | [`console`] | the operator's front door: `hcpumf ...` commands, calling into `his` and `host` |
//! | [`his`] | HIS collection from the console and MVS awareness |
//! | [`host`] | what runs inside Hercules: per-CPU state, metering, sampling clocks, the tick, the sampler thread, the C ABI hooks |
//!
//! Below them are the workspace's other crates: `hcpumf_arch` (SA23-2260 itself: pure, no
//! threads, no globals, no Hercules) and `hcpumf_formats` (the sample-data-block codec and
//! the HIS file formats, shared with the report tool, `hcpumf-report`).
//!
//! `hercules-glue/` only decodes operands, performs DAT and program interruptions with
//! Hercules' own macros and calls the hooks of [`host::ffi`] and [`plugin`].

pub mod console;
pub mod his;
pub mod host;
pub mod plugin;

//! hcpumf: the z/Architecture CPU-Measurement Facility (SA23-2260) for the Hercules emulator.
//!
//! The crate is layered; dependencies point one way, down this list:
//!
//! | layer | what |
//! |---|---|
//! | [`plugin`] | the Hercules dynamic module: `ldmod`/`rmmod`, the console command's entry, the HDL sections |
//! | [`console`] | the operator's front door: `hcpumf ...` commands, calling into `his` and `host` |
//! | [`his`] | HIS collection from the console, MVS awareness, the .CNT/.SMP/.MAP formats |
//! | [`host`] | what runs inside Hercules: per-CPU state, metering, sampling clocks, the tick, the sampler thread, the C ABI hooks |
//! | [`arch`] | SA23-2260 itself: pure, no threads, no globals, no Hercules |
//! | [`report`] | the report tool's library: reads the HIS formats only |
//!
//! `hercules-glue/` only decodes operands, performs DAT and program interruptions with
//! Hercules' own macros and calls the hooks of [`host::ffi`] and [`plugin`].

pub mod console;
pub mod his;
pub mod host;
pub mod plugin;

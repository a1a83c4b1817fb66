//! hcpumf: the z/Architecture CPU-Measurement Facility (SA23-2260) for the Hercules emulator.
//!
//! The architecture lives here, one module per facility; `hercules-glue/` only decodes
//! operands, performs DAT and program interruptions with Hercules' own macros and calls in.

pub mod alerts;
pub mod collect;
pub mod console;
pub mod counter;
pub mod cpu;
pub mod crypto;
pub mod engine;
pub mod ffi;
pub mod glue;
pub mod his;
pub mod hoststore;
pub mod model;
pub mod mvs;
pub mod pgm;
pub mod program_param;
pub mod report;
pub mod runtime;
pub mod sampling;
pub mod storage;

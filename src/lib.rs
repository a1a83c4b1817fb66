//! hcpumf: the z/Architecture CPU-Measurement Facility (SA23-2260) for the Hercules emulator.
//!
//! The architecture lives here, one module per facility; `hercules-glue/` only decodes
//! operands, performs DAT and program interruptions with Hercules' own macros and calls in.

pub mod alerts;
pub mod cpu;
pub mod model;
pub mod pgm;
pub mod storage;

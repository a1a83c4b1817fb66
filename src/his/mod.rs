//! z/OS Hardware Instrumentation Services (HIS) file formats: `.CNT`, `.SMP.cpu#`, `.MAP`.

pub mod cnt;
pub mod map;
pub mod smp;

//! TEMPORARY shim.
pub mod cnt;

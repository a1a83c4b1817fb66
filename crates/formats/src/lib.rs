//! hcpumf-formats: the data layouts of the CPU-Measurement Facility and of z/OS Hardware
//! Instrumentation Services (HIS), as pure Rust with no Hercules and no platform code.
//!
//! | module | what |
//! |---|---|
//! | [`sdb`] | SA23-2260's sample-data block: the basic-sampling and diagnostic-sampling data entries, the trailer entry, their flags; one codec for the plugin that stores them and the readers |
//! | [`counter_sets`] | the CPU counter sets and their numbering (SA23-2260 Figures 2-3 to 2-9) |
//! | [`cnt`] | `.CNT`: the HIS019I counter text |
//! | [`smp`] | `.SMP.xx`: 4-KB sample-data blocks, streamed |
//! | [`map`] | `.MAP`: the address map records |
//! | [`int`] | `.INT`: hcpumf's interval counters |
//! | [`text`], [`time`] | reading text files with byte offsets; calendar time |
//!
//! Every reader never panics on damaged input: it reports what it could not read with the
//! byte offset in the file.

pub mod cnt;
pub mod counter_sets;
pub mod int;
pub mod map;
pub mod sdb;
pub mod smp;
pub mod text;
pub mod time;

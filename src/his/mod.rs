//! z/OS Hardware Instrumentation Services (HIS) as the plugin offers it: host-driven
//! collection from the Hercules console, MVS awareness, and the file formats.
//!
//! | module | what |
//! |---|---|
//! | [`cnt`], [`smp`], [`map`], [`int`] | the file formats `.CNT` (HIS019I text), `.SMP.cpu#` (4-KB sample-data blocks), `.MAP` and `.INT` (interval counters): writers and never-failing readers; pure, shared with the report tool |
//! | [`text`], [`time`] | reading text files with byte offsets; UTC calendar time |
//! | [`options`] | the keywords of `hcpumf his begin` (z/OS `F HIS,BEGIN`) |
//! | [`run`] | a run's life cycle: BEGIN, the timer, END, STATUS |
//! | [`counters`] | the run's counter deltas from the plugin's meters, and the .CNT text of them |
//! | [`intervals`] | SMFINTVAL: the counters every N seconds into the .INT file |
//! | [`files`] | file names and the .CNT/.MAP space reserved at BEGIN |
//! | [`writer`] | the writer thread of the `.SMP` files |
//! | [`mvs`] | MVS awareness: the guest program parameter and the .MAP from MVS 3.8J's control blocks |
//!
//! The formats depend on nothing else of the crate; collection uses `host` (the per-CPU
//! run sampling and the meters), never the other way round.

pub mod counters;
pub mod files;
pub mod intervals;
pub mod mvs;
pub mod options;
pub mod run;
pub mod writer;

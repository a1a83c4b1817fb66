//! z/OS Hardware Instrumentation Services (HIS) as the plugin offers it: host-driven
//! collection from the Hercules console and MVS awareness. The file formats are
//! `hcpumf_formats`' (`cnt`, `smp`, `map`, `int`), shared with the report tool.
//!
//! | module | what |
//! |---|---|
//! | [`options`] | the keywords of `hcpumf his begin` (z/OS `F HIS,BEGIN`) |
//! | [`run`] | a run's life cycle: BEGIN, the timer, END, STATUS |
//! | [`counters`] | the run's counter deltas from the plugin's meters, and the .CNT text of them |
//! | [`intervals`] | SMFINTVAL: the counters every N seconds into the .INT file |
//! | [`files`] | file names and the .CNT/.MAP space reserved at BEGIN |
//! | [`localtime`] | the host's local time, which the files' times and names are in |
//! | [`writer`] | the writer thread of the `.SMP` files |
//! | [`mvs`] | MVS awareness: the guest program parameter and the .MAP from MVS 3.8J's control blocks |
//!
//! Collection uses `host` (the per-CPU run sampling and the meters), never the other way
//! round.

pub mod counters;
pub mod files;
pub mod intervals;
pub mod localtime;
pub mod mvs;
pub mod options;
pub mod run;
pub mod writer;

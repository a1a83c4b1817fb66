//! What runs inside Hercules: the per-CPU state, the metering of instructions and CPU time,
//! the sampling clocks, the tick that gets control on a CPU's own thread, the sampler
//! thread that arms it, and the C ABI hooks the glue calls. Everything Hercules-specific is
//! here; the decisions are `arch`'s.
//!
//! | module | responsibility |
//! |---|---|
//! | [`ffi`] | the C ABI hooks the glue calls on CPU threads (panics caught at each) |
//! | [`panics`] | a caught panic in words: its message and where it was raised |
//! | [`glue`], [`services`], [`storage`] | the glue's interface as Rust sees it: bindgen layouts, the host-services table (log, TOD clock, CPU states), guest main storage |
//! | [`state`], [`cacheline`] | one lock-free [`state::CpuState`] per CPU, the global [`state::Runtime`]; cache-line padding |
//! | [`model`] | the machine model in force, chosen at load; cycles to CPU time |
//! | [`meter`] | instructions and CPU time of a CPU, their problem-state attribution |
//! | [`clock`] | the sampling clocks (guest and HIS run), in CPU time |
//! | [`schedule`] | a CPU's tick schedule: sampling clocks, accounting points, the line shared with the sampler |
//! | [`sampler`], [`deadline`] | the sampler thread that takes samples and arms CPUs when their time has come (started again after its first panic); how CPUs post deadlines |
//! | [`placement`], [`hostload`] | where and how the sampler thread runs: its cores and scheduling policy; whether those cores are free of other processes |
//! | [`remote`], [`exclusive`] | basic samples the sampler thread takes from a running CPU without stopping it; who may change a CPU's sampling state |
//! | [`tick`] | the tick on the CPU's thread: account, guest sample, run sample, alert |
//! | [`instructions`] | executing the CPU-measurement instructions against the CPU's state |
//! | [`alerts`] | raising measurement alerts and getting them to the CPU |
//! | [`run`], [`run_cpu`] | the host side of a HIS run: its sampling on the tick, the 4-KB block each CPU fills |
//! | [`resets`] | CPU reset and initial CPU reset of the measurement state, by command, load or SIGP |
//! | [`crypto`] | counting the CPACF instructions the glue wraps |

pub mod alerts;
pub mod cacheline;
pub mod clock;
pub mod crypto;
pub mod deadline;
pub mod exclusive;
pub mod ffi;
pub mod glue;
pub mod guard;
pub mod hostload;
pub mod instructions;
pub mod meter;
pub mod model;
pub mod panics;
pub mod placement;
pub mod remote;
pub mod resets;
pub mod run;
pub mod run_cpu;
pub mod sampler;
pub mod schedule;
pub mod services;
pub mod state;
pub mod storage;
pub mod tick;
pub mod timer_duty;

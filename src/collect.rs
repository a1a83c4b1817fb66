//! Host-driven HIS-style collection (`hcpumf his ...`).

/// The `hcpumf his` console command.
pub fn command(_words: &[String]) {
    crate::runtime::log("HHCMF030E hcpumf his: host-driven collection is not in this build");
}

/// Module unload: end a collection run that is still going.
pub fn stop_on_unload() {}

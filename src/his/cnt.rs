//! TEMPORARY shim.
#![allow(missing_docs, unused)]
use crate::model::CounterSet;
pub struct CntRun {
    pub file_name: String,
    pub command: String,
    pub title: String,
    pub machine_type: u16,
    pub cfvn: u16,
    pub csvn: u16,
    pub cpu_speed: u32,
    pub start: std::time::SystemTime,
    pub end: std::time::SystemTime,
    pub start_tod: u64,
    pub end_tod: u64,
    pub cpus: Vec<(u16, Vec<(CounterSet, Vec<u64>)>)>,
}
pub fn render(r: &CntRun) -> String {
    String::new()
}

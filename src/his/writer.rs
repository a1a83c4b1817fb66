//! The run's writer thread: it appends each CPU's full blocks to its `.SMP.xx` file, and
//! when a write fails (disk full, file too large) cuts the file back to its last whole
//! block, stops sampling and says so at once.
//!
//! Between the sampling and the writer are the run's BUFCNT 4-KB buffers (the buffer
//! thread): a full block waits in one for the disk. A block that finds every buffer still
//! waiting is lost, as z/OS HIS loses "sampling data ... overwritten before it can be moved to
//! disk" when it cannot keep up (Redbook SG24-7857 2.2.5, Example 2-2); its samples count in
//! the .CNT's LOST SAMPLES, with those of blocks the disk refused.

use crate::host::run::{self, Block};
use crate::host::services::log;
use hcpumf_formats::sdb::BLOCK_4K;
use hcpumf_formats::smp;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Mutex;

/// What the writer did, returned when its channel closes (the run has ended).
#[derive(Default)]
pub struct WriterReport {
    /// Blocks written per CPU.
    pub blocks: Vec<u64>,
    /// The write error that stopped sampling.
    pub error: Option<String>,
    /// Samples in blocks that could not be written or found no free buffer.
    pub lost_samples: u64,
}

/// What the writer of the active run has done, for `his status`: blocks written, and the
/// write error that stopped sampling; and whether DATALOSS=STOP asks for the run's end.
static BLOCKS_WRITTEN: AtomicU64 = AtomicU64::new(0);
static WRITE_ERROR: Mutex<Option<String>> = Mutex::new(None);
static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Blocks the active run's writer has written so far.
pub fn blocks_written() -> u64 {
    BLOCKS_WRITTEN.load(Ordering::Relaxed)
}

/// The write error that stopped the active run's sampling, if any.
pub fn write_error() -> Option<String> {
    WRITE_ERROR.lock().ok().and_then(|w| w.clone())
}

/// Has a write failed under DATALOSS=STOP (the run is to end now)?
pub fn stop_requested() -> bool {
    STOP_REQUESTED.load(Ordering::Relaxed)
}

/// Start the writer of run `id`: it appends the blocks that arrive on `rx` to the CPUs'
/// `.SMP` files (`files`, by CPU address, created at BEGIN) in `dir` until every sender is
/// gone, through `bufcnt` buffers. `stop_run`: DATALOSS=STOP.
pub fn spawn(
    dir: PathBuf,
    id: String,
    rx: mpsc::Receiver<Block>,
    (stop_run, bufcnt): (bool, usize),
    files: Vec<Option<File>>,
) -> std::io::Result<std::thread::JoinHandle<WriterReport>> {
    BLOCKS_WRITTEN.store(0, Ordering::Relaxed);
    STOP_REQUESTED.store(false, Ordering::Relaxed);
    if let Ok(mut w) = WRITE_ERROR.lock() {
        *w = None;
    }
    let (tx, buffered) = mpsc::sync_channel::<Block>(bufcnt.max(1));
    let buffers = std::thread::Builder::new()
        .name("hcpumf-his-buffers".into())
        .spawn(move || buffer_loop(rx, tx, bufcnt, stop_run))?;
    std::thread::Builder::new()
        .name("hcpumf-his-writer".into())
        .spawn(move || {
            let mut rep = writer_loop(&dir, &id, buffered, stop_run, files);
            rep.lost_samples += buffers.join().unwrap_or(0);
            rep
        })
}

/// The buffers: every full block goes into one of the `bufcnt` that `tx` holds for the
/// writer; one that finds them all waiting is lost. Returns the samples lost so.
fn buffer_loop(rx: Receiver<Block>, tx: SyncSender<Block>, bufcnt: usize, stop_run: bool) -> u64 {
    let mut lost = 0;
    for b in rx.iter() {
        match tx.try_send(b) {
            Ok(()) => continue,
            Err(TrySendError::Full(b) | TrySendError::Disconnected(b)) => {
                if lost == 0 {
                    log(&format!(
                        "HHCMF051W hcpumf his: sample data lost: all BUFCNT={bufcnt} buffers are \
                         waiting for the disk{}",
                        if stop_run {
                            "; DATALOSS=STOP ends the run"
                        } else {
                            ""
                        }
                    ));
                }
                lost += samples_in(&b.bytes).max(1);
                if stop_run {
                    STOP_REQUESTED.store(true, Ordering::Relaxed);
                }
            }
        }
    }
    lost
}

fn writer_loop(
    dir: &Path,
    id: &str,
    rx: mpsc::Receiver<Block>,
    stop_run: bool,
    mut files: Vec<Option<File>>,
) -> WriterReport {
    let mut rep = WriterReport {
        blocks: vec![0; files.len()],
        error: None,
        lost_samples: 0,
    };
    while let Ok(Block { cpu, bytes: block }) = rx.recv() {
        if rep.error.is_some() {
            rep.lost_samples += samples_in(&block);
            continue;
        }
        let c = usize::from(cpu);
        if c >= files.len() {
            continue;
        }
        if files[c].is_none() {
            let p = dir.join(format!("{id}.SMP.{cpu:02X}"));
            match File::create(&p) {
                Ok(f) => files[c] = Some(f),
                Err(e) => {
                    rep.error = Some(format!("cannot create {}: {e}", p.display()));
                    continue;
                }
            }
        }
        let Some(f) = files[c].as_mut() else { continue };
        if let Err(e) = f.write_all(&block) {
            // Keep the file whole up to the last complete block, stop sampling (further
            // blocks could not be written) and say so now.
            let _ = f.set_len(rep.blocks[c] * BLOCK_4K as u64);
            rep.lost_samples += samples_in(&block);
            run::stop_sampling();
            let e = format!(
                "writing {id}.SMP.{cpu:02X}: {e}; sampling stopped, every .SMP file complete up \
                 to its last full block ({} blocks in {id}.SMP.{cpu:02X}), counters go on until END",
                rep.blocks[c]
            );
            log(&format!("HHCMF045W hcpumf his: {e}"));
            if let Ok(mut w) = WRITE_ERROR.lock() {
                *w = Some(e.clone());
            }
            rep.error = Some(e);
            if stop_run {
                // DATALOSS=STOP: the run's timer ends the run at once.
                STOP_REQUESTED.store(true, Ordering::Relaxed);
            }
        } else {
            rep.blocks[c] += 1;
            BLOCKS_WRITTEN.fetch_add(1, Ordering::Relaxed);
        }
    }
    for f in files.iter_mut().flatten() {
        let _ = f.flush();
    }
    rep
}

/// Basic samples in a block (what a block that could not be written loses).
fn samples_in(block: &[u8]) -> u64 {
    let mut sum = smp::ScanSummary::default();
    smp::scan_block(block, 0, &mut sum, &mut |_| {});
    sum.samples + sum.invalid
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcpumf_formats::smp::{make_block, Bsde};

    /// A full block of 126 samples.
    fn block(cpu: u16) -> Block {
        let s: Vec<Bsde> = (0..126)
            .map(|i| Bsde {
                ia: 0x1000 + 2 * i,
                ..Default::default()
            })
            .collect();
        Block {
            cpu,
            bytes: make_block(&s, true, 0, 1),
        }
    }

    /// Ten full blocks and a writer that takes none until they are all there: four wait in
    /// the four buffers, the other six are lost (their 756 samples), in the order they came.
    #[test]
    fn blocks_that_find_every_buffer_waiting_are_lost() {
        let (host, rx) = mpsc::channel();
        let (tx, buffered) = mpsc::sync_channel(4);
        for i in 0..10 {
            host.send(block(i)).unwrap();
        }
        drop(host);
        assert_eq!(buffer_loop(rx, tx, 4, false), 6 * 126);
        let kept: Vec<u16> = buffered.iter().map(|b| b.cpu).collect();
        assert_eq!(kept, vec![0, 1, 2, 3]);
    }

    /// A writer that keeps up loses nothing: each block is taken from its buffer before the
    /// next comes.
    #[test]
    fn a_writer_that_keeps_up_loses_nothing() {
        let (host, rx) = mpsc::channel();
        let (tx, buffered) = mpsc::sync_channel(4);
        let (ack, taken) = mpsc::channel();
        let drain = std::thread::spawn(move || {
            buffered
                .iter()
                .map(|b: Block| ack.send(b.cpu).map(|_| 1).unwrap_or(0))
                .sum::<u32>()
        });
        let buffers = std::thread::spawn(move || buffer_loop(rx, tx, 4, false));
        for i in 0..10 {
            host.send(block(i)).unwrap();
            assert_eq!(taken.recv().unwrap(), i);
        }
        drop(host);
        assert_eq!(buffers.join().unwrap(), 0);
        assert_eq!(drain.join().unwrap(), 10);
    }
}

//! The relay's own cost per message, measured when `RADIUM_ACP_TIMING`
//! names a file: for each of the agent's lines passed to the editor, the
//! time from radium reading it to its write to stdout returning. At the
//! end, `rad acp` writes their count and percentiles to that file as JSON
//! (`{"count", "p50_us", "p99_us", "max_us"}`). At most [`MAX_SAMPLES`]
//! are kept (later lines are not counted). Off, it costs one check a line.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The most lines timed in one run (4 bytes each: 8 MiB at most).
pub const MAX_SAMPLES: usize = 2 << 20;

/// Where the figures go, and the times so far (in nanoseconds).
struct Timing {
    file: PathBuf,
    samples: Mutex<Vec<u32>>,
}

fn timing() -> Option<&'static Timing> {
    static TIMING: OnceLock<Option<Timing>> = OnceLock::new();
    TIMING
        .get_or_init(|| {
            let file = std::env::var_os("RADIUM_ACP_TIMING").filter(|f| !f.is_empty())?;
            Some(Timing {
                file: PathBuf::from(file),
                samples: Mutex::default(),
            })
        })
        .as_ref()
}

/// Whether lines are timed.
pub fn on() -> bool {
    timing().is_some()
}

/// Counts the lines read at `stamps` as written now.
pub fn written(stamps: &[Instant]) {
    let Some(t) = timing() else { return };
    if stamps.is_empty() {
        return;
    }
    let now = Instant::now();
    let mut samples = super::lock(&t.samples);
    for at in stamps {
        if samples.len() >= MAX_SAMPLES {
            break;
        }
        let ns = now.saturating_duration_since(*at).as_nanos();
        samples.push(u32::try_from(ns).unwrap_or(u32::MAX));
    }
}

/// Writes the figures to the file (when timed); an error is on stderr.
pub fn report() {
    let Some(t) = timing() else { return };
    let mut samples = std::mem::take(&mut *super::lock(&t.samples));
    samples.sort_unstable();
    // The percentile `p` (nearest rank), in µs.
    let at = |p: usize| -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        let rank = (p * samples.len()).div_ceil(100).clamp(1, samples.len());
        f64::from(samples[rank - 1]) / 1000.0
    };
    let figures = serde_json::json!({
        "count": samples.len(),
        "p50_us": at(50),
        "p99_us": at(99),
        "max_us": samples.last().map_or(0.0, |m| f64::from(*m) / 1000.0),
    });
    if let Err(e) = std::fs::write(&t.file, format!("{figures}\n")) {
        eprintln!("rad acp: cannot write {}: {e}", t.file.display());
    }
}

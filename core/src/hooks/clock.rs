//! The clock that times hooks. quanta reads the TSC (about 20 ns cheaper per
//! hook than `std::time::Instant`) but calibrates it first, which takes about
//! 0.6 ms: a short-lived process (`rad`) or an editor's first chains should
//! not wait for that. The first chains of a process use std's clock; the
//! 257th calibrates quanta (once, on the thread that runs it; no thread is
//! started) and the later ones use it. A chain never mixes the two clocks:
//! its later readings follow its first one.

use std::ops::{Add, Sub};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

/// How many chains run on std's clock before quanta is calibrated.
const CHAINS_BEFORE_CALIBRATION: u32 = 256;

static CALIBRATED: AtomicBool = AtomicBool::new(false);
static CHAINS: AtomicU32 = AtomicU32::new(0);

/// A reading of one of the two clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tick {
    Tsc(quanta::Instant),
    Std(std::time::Instant),
}

impl Tick {
    /// A reading for a new chain: the calibrated TSC once enough chains ran.
    #[inline]
    pub(crate) fn start() -> Tick {
        if CALIBRATED.load(Ordering::Relaxed) {
            return Tick::Tsc(quanta::Instant::now());
        }
        if CHAINS.fetch_add(1, Ordering::Relaxed) < CHAINS_BEFORE_CALIBRATION {
            return Tick::Std(std::time::Instant::now());
        }
        // The first reading calibrates quanta's global clock (once per
        // process, even when several threads get here together).
        let now = quanta::Instant::now();
        CALIBRATED.store(true, Ordering::Relaxed);
        Tick::Tsc(now)
    }

    /// A later reading on the same clock as `self`.
    #[inline]
    pub(crate) fn now(self) -> Tick {
        match self {
            Tick::Tsc(_) => Tick::Tsc(quanta::Instant::now()),
            Tick::Std(_) => Tick::Std(std::time::Instant::now()),
        }
    }
}

impl Sub for Tick {
    type Output = Duration;

    /// The time from `earlier` to `self` (zero if they come from different
    /// clocks, which a chain never does).
    #[inline]
    fn sub(self, earlier: Tick) -> Duration {
        match (self, earlier) {
            (Tick::Tsc(a), Tick::Tsc(b)) => a.saturating_duration_since(b),
            (Tick::Std(a), Tick::Std(b)) => a.saturating_duration_since(b),
            _ => Duration::ZERO,
        }
    }
}

impl Tick {
    /// `self + d`, or `None` when that is past what the clock can hold (a
    /// deadline that far away is no deadline).
    #[inline]
    pub(crate) fn checked_add(self, d: Duration) -> Option<Tick> {
        match self {
            Tick::Tsc(t) => t.checked_add(d).map(Tick::Tsc),
            Tick::Std(t) => t.checked_add(d).map(Tick::Std),
        }
    }
}

impl Add<Duration> for Tick {
    type Output = Tick;

    #[inline]
    fn add(self, d: Duration) -> Tick {
        match self {
            Tick::Tsc(t) => Tick::Tsc(t + d),
            Tick::Std(t) => Tick::Std(t + d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_stay_on_their_clock_and_measure_time() {
        let start = Tick::start();
        std::thread::sleep(Duration::from_millis(5));
        let later = start.now();
        assert_eq!(
            std::mem::discriminant(&start),
            std::mem::discriminant(&later)
        );
        assert!(later - start >= Duration::from_millis(5));
        assert!(start + Duration::from_secs(1) > later);
        // After enough chains, new ones use the calibrated TSC.
        let mut chains = 0;
        while !matches!(Tick::start(), Tick::Tsc(_)) {
            chains += 1;
            assert!(
                chains <= CHAINS_BEFORE_CALIBRATION,
                "quanta never calibrated"
            );
        }
        let tsc = Tick::start();
        assert!(matches!(tsc.now(), Tick::Tsc(_)));
        assert_eq!(tsc.now() - start, Duration::ZERO, "clocks never mix");
    }
}

//! The clock that times hooks. quanta reads the TSC (about 20 ns cheaper per
//! hook than `std::time::Instant`) but calibrates it first, which takes about
//! 0.6 ms: a short-lived process (`rad`) or an editor's first chain should
//! not wait for that. The first chain starts the calibration on a background
//! thread and uses std's clock; chains started after it finished use quanta.
//! A chain never mixes the two: later readings follow its first one.

use std::ops::{Add, Sub};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use std::time::Duration;

static CALIBRATED: AtomicBool = AtomicBool::new(false);
static CALIBRATE: Once = Once::new();

/// A reading of one of the two clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tick {
    Tsc(quanta::Instant),
    Std(std::time::Instant),
}

impl Tick {
    /// A reading for a new chain: the calibrated TSC if it is ready.
    #[inline]
    pub(crate) fn start() -> Tick {
        if CALIBRATED.load(Ordering::Acquire) {
            return Tick::Tsc(quanta::Instant::now());
        }
        CALIBRATE.call_once(|| {
            let spawned = std::thread::Builder::new()
                .name("radium-clock".into())
                .spawn(|| {
                    // The first reading calibrates quanta's global clock.
                    let _ = quanta::Instant::now();
                    CALIBRATED.store(true, Ordering::Release);
                });
            // Without a thread, chains keep std's clock.
            drop(spawned);
        });
        Tick::Std(std::time::Instant::now())
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
        // The calibration finishes in the background; then new chains use the TSC.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !matches!(Tick::start(), Tick::Tsc(_)) {
            assert!(
                std::time::Instant::now() < deadline,
                "quanta never calibrated"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(Tick::start().now() - start, Duration::ZERO);
    }
}

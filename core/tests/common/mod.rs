//! Helpers shared by the integration tests.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Runs `work` on a current-thread runtime beside a task that ticks every
/// 10 ms; returns its output and how many ticks ran meanwhile (a future that
/// blocks its thread lets none run).
pub fn while_ticking<F: Future>(work: F) -> (F::Output, usize) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let ticks = Arc::new(AtomicUsize::new(0));
        let t = Arc::clone(&ticks);
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                t.fetch_add(1, Ordering::SeqCst);
            }
        });
        let output = work.await;
        ticker.abort();
        (output, ticks.load(Ordering::SeqCst))
    })
}

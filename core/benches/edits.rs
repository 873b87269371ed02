//! Applying a rename's edits to one file (`Plan::apply_ranges`): 10^5 and
//! 10^6 edits of a name, each replaced by a longer one. One pass over the
//! sorted edits builds the new text, so the time grows with the edits and
//! the text, not with their product.
//!
//! Run with `cargo bench -p radium-core --bench edits`; figures in BENCHMARKS.md.

#![allow(missing_docs)]

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use radium_core::code::edits::Plan;

/// A file of `n` lines `x = total`, and an edit renaming each `total`.
fn input(dir: &Path, n: usize) -> (std::path::PathBuf, Vec<(usize, usize, String)>) {
    let path = dir.join(format!("f{n}.py"));
    let line = "x = total\n";
    std::fs::write(&path, line.repeat(n)).expect("write");
    let edits = (0..n)
        .map(|i| {
            (
                i * line.len() + 4,
                i * line.len() + 9,
                "grand_total".to_owned(),
            )
        })
        .collect();
    (path, edits)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut group = c.benchmark_group("apply_ranges");
    group.sample_size(10);
    for n in [100_000, 1_000_000] {
        let (path, edits) = input(dir.path(), n);
        group.bench_function(format!("{n} edits"), |b| {
            b.iter_batched(
                || edits.clone(),
                |edits| {
                    let mut plan = Plan::default();
                    plan.apply_ranges(&path, edits, None).expect("applied");
                    plan
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

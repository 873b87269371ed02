//! A rename answer with very many edits of one file is applied in one pass
//! over the sorted edits; a range that would split a character is refused.

use radium_core::code::edits::Plan;

#[test]
fn a_hundred_thousand_edits_of_one_file_are_all_applied() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.py");
    let line = "x = total\n";
    let n = 100_000;
    std::fs::write(&path, line.repeat(n)).unwrap();
    // Given in reverse order: they are sorted before they are applied.
    let edits: Vec<(usize, usize, String)> = (0..n)
        .rev()
        .map(|i| (i * line.len() + 4, i * line.len() + 9, "grand".to_owned()))
        .collect();
    let mut plan = Plan::default();
    plan.apply_ranges(&path, edits, None).unwrap();
    assert_eq!(plan.edits[&path], n);
    assert_eq!(
        plan.after[&path].as_deref(),
        Some("x = grand\n".repeat(n).as_str())
    );
    // Two inserts at one place keep their order; a deletion is empty text.
    let mut plan = Plan::default();
    let edits = vec![
        (0, 0, "a".to_owned()),
        (0, 0, "b".to_owned()),
        (4, 10, String::new()),
    ];
    plan.apply_ranges(&path, edits, None).unwrap();
    assert!(plan.after[&path]
        .as_deref()
        .unwrap()
        .starts_with("abx = x = total\n"));
}

#[test]
fn edits_past_the_end_inside_a_character_or_overlapping_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.py");
    std::fs::write(&path, "é = 1\n").unwrap();
    for (edits, expected) in [
        (vec![(1, 2, "x".to_owned())], "inside a character"),
        (vec![(0, 99, "x".to_owned())], "past its end"),
        (
            vec![(0, 3, "x".to_owned()), (2, 4, "y".to_owned())],
            "overlap",
        ),
    ] {
        let mut plan = Plan::default();
        let error = plan
            .apply_ranges(&path, edits, None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("nothing was written") && error.contains(expected),
            "{error}"
        );
    }
}

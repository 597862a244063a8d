//! Compile-time diagnostics: one file per mistake under `tests/ui/`, each
//! with its expected compiler output (`.stderr`).
//! Refresh the snapshots after a deliberate change with
//! `TRYBUILD=overwrite cargo test --test ui`, then review every diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

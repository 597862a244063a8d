//! rowkey-core without `alloc` (no_std, no allocator): the derive's output
//! compiles, with `deny(warnings)`, for fixed-width, borrowed and text
//! layouts, and round-trips them. Tests `tests/no-alloc` on its own, so the
//! workspace's features (which turn `alloc` on) do not unify into it.

use std::process::Command;

#[test]
fn derive_compiles_without_alloc() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO"))
        .args(["test", "--quiet", "--manifest-path"])
        .arg(format!("{root}/tests/no-alloc/Cargo.toml"))
        .arg("--target-dir")
        .arg(format!("{}/no-alloc", env!("CARGO_TARGET_TMPDIR")))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

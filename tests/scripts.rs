//! Every command script is a test of its own: scripts/**/*.ump (on the repository's rulesets)
//! and tests/fixtures/scripts/**/*.ump (on the fixture ruleset). Each must pass every check and
//! make at least one; its transcript must match the snapshot `<script>.out` beside it
//! (`UPDATE_SNAPSHOTS=1 cargo test --test scripts` rewrites the snapshots, for review).
//!
//! A test is named by the script's path: `cargo test --test scripts combat` runs the scripts
//! whose path holds `combat`, several at once (libtest-mimic).

mod common;

use common::{all_scripts, diff, rel};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use umpire::script;

/// Runs one script and compares its transcript with its snapshot (or rewrites the snapshot).
fn check(path: &Path, root: &Path, update: bool) -> Result<(), Failed> {
    let o = script::run_file(root, Path::new(&rel(path)));
    if o.failed > 0 {
        return Err(format!("{}: {} failed\n{}", rel(path), o.failed, o.transcript).into());
    }
    if o.passed == 0 {
        return Err(format!("{}: checks nothing (add expect lines)", rel(path)).into());
    }
    let snap = path.with_extension("out");
    let got = format!("{}{} passed, {} failed\n", o.transcript, o.passed, o.failed);
    if update {
        std::fs::write(&snap, &got).map_err(|e| format!("{}: {e}", rel(&snap)))?;
        return Ok(());
    }
    match std::fs::read_to_string(&snap) {
        Ok(want) if want == got => Ok(()),
        Ok(want) => Err(format!("{}: transcript differs from {}\n{}", rel(path), rel(&snap), diff(&want, &got)).into()),
        Err(_) => Err(format!("{}: no snapshot {} (run with UPDATE_SNAPSHOTS=1)", rel(path), rel(&snap)).into()),
    }
}

fn main() {
    let args = Arguments::from_args();
    // scripts name files relative to the repository root
    std::env::set_current_dir(common::repo()).expect("the repository root");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let scripts: Vec<(PathBuf, PathBuf)> = all_scripts();
    assert!(!scripts.is_empty(), "no scripts found");
    let trials =
        scripts.into_iter().map(|(path, root)| Trial::test(rel(&path), move || check(&path, &root, update))).collect();
    libtest_mimic::run(&args, trials).exit();
}

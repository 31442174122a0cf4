//! The command scripts and their snapshots, shared by the script harness (tests/scripts.rs,
//! one test per script) and the integration tests (tests/it/: saves replay every script).

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every command script with the library it runs on: scripts/**/*.ump (the repository's
/// rulesets) and tests/fixtures/scripts/**/*.ump (the fixture ruleset), sorted.
pub fn all_scripts() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    collect(&repo().join("scripts"), &repo(), &mut out);
    collect(&repo().join("tests").join("fixtures").join("scripts"), &repo().join("tests").join("fixtures"), &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, root: &Path, out: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "ump") {
            out.push((p, root.to_path_buf()));
        }
    }
}

pub fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

/// A unified diff of the whole change (3 lines of context), `-` the snapshot, `+` the new
/// transcript, so that a refresh is reviewed hunk by hunk.
pub fn diff(want: &str, got: &str) -> String {
    let d = similar::TextDiff::from_lines(want, got);
    let changed = d.ops().iter().filter(|o| !matches!(o.tag(), similar::DiffTag::Equal)).count();
    format!(
        "{changed} change(s); review them, then refresh with UPDATE_SNAPSHOTS=1 cargo test --test it scripts\n{}",
        d.unified_diff().context_radius(3).header("snapshot", "transcript")
    )
}

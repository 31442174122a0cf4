//! Every command script is a test: scripts/**/*.ump (on the repository's rulesets) and
//! tests/fixtures/scripts/*.ump (on the fixture ruleset). Each must pass every check and make
//! at least one; its transcript must match the snapshot `<script>.out` beside it
//! (`UPDATE_SNAPSHOTS=1 cargo test` rewrites the snapshots for review).

use std::path::{Path, PathBuf};
use umpire::script;

pub fn all_scripts() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    collect(&super::repo().join("scripts"), &super::repo(), &mut out);
    collect(&super::fixtures().join("scripts"), &super::fixtures(), &mut out);
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

fn rel(p: &Path) -> String {
    p.strip_prefix(super::repo()).unwrap_or(p).display().to_string()
}

#[test]
fn every_script_passes_and_matches_its_snapshot() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut problems = Vec::new();
    let scripts = all_scripts();
    assert!(!scripts.is_empty(), "no scripts found");
    // scripts name files relative to the repository root
    std::env::set_current_dir(super::repo()).unwrap();
    for (path, root) in &scripts {
        let o = script::run_file(root, Path::new(&rel(path)));
        if o.failed > 0 {
            problems.push(format!("{}: {} failed\n{}", rel(path), o.failed, o.transcript));
            continue;
        }
        if o.passed == 0 {
            problems.push(format!("{}: checks nothing (add expect lines)", rel(path)));
        }
        let snap = path.with_extension("out");
        let got = format!("{}{} passed, {} failed\n", o.transcript, o.passed, o.failed);
        if update {
            std::fs::write(&snap, &got).unwrap();
        } else {
            match std::fs::read_to_string(&snap) {
                Ok(want) if want == got => {}
                Ok(want) => problems.push(format!(
                    "{}: transcript differs from {}\n{}",
                    rel(path),
                    rel(&snap),
                    diff(&want, &got)
                )),
                Err(_) => {
                    problems.push(format!("{}: no snapshot {} (run with UPDATE_SNAPSHOTS=1)", rel(path), rel(&snap)))
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
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

#[test]
fn a_snapshot_difference_shows_every_hunk_with_context() {
    let want = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n";
    let got = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nK\n";
    let d = diff(want, got);
    assert!(d.starts_with("2 change(s)"), "{d}");
    for line in ["-b", "+B", "-k", "+K", " a", " c", " h"] {
        assert!(d.lines().any(|l| l == line), "{line} missing in\n{d}");
    }
}

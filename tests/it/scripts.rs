//! The snapshot diff of the script harness (tests/scripts.rs runs each script as its own test).

pub use crate::common::{all_scripts, diff};

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

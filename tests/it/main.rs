//! umpire's integration tests: one binary, a module per area.

// (the script harness uses all of it; these tests some)
#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;

mod actions;
mod architecture;
mod board;
mod cli;
mod coverage;
mod designer;
mod finding;
mod hex;
mod hostile;
mod layers;
mod mutate;
mod perf;
mod playout;
mod readme;
mod refused;
mod render;
mod sandbox;
mod saves;
mod scripts;
mod smoke;
mod terminal;

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixture library (tests/fixtures with rulesets/ and scenarios/).
pub fn fixtures() -> PathBuf {
    repo().join("tests").join("fixtures")
}

/// A session on the fixture library with a started game (set-up answered by `auto`).
pub fn fixture_game(seed: u64) -> umpire::Session {
    let mut s = umpire::Session::with_root(fixtures());
    let r = s.execute(&format!("new fixture --seed {seed}"));
    assert_eq!(r.status, umpire::Status::Ok, "{r:?}");
    let r = s.execute("auto");
    assert_eq!(r.status, umpire::Status::Ok, "{r:?}");
    s
}

/// Runs `cmd` with `input` on its standard input; its whole output.
pub fn feed(cmd: &mut std::process::Command, input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

//! The README's sample session is real: its commands are piped into `umpire play` and every
//! output line it shows must come out, in order. `  ...` in the README stands for lines left
//! out, and a line in parentheses describes output instead of showing it (both skip ahead).

use std::io::Write;
use std::process::{Command, Stdio};

/// The README's fenced blocks that start with `$ umpire play`: each command line with the
/// transcript lines under it.
fn samples() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(super::repo().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut lines = readme.lines().peekable();
    while let Some(l) = lines.next() {
        if let Some(cmd) = l.strip_prefix("$ umpire ").filter(|_| l.starts_with("$ umpire play")) {
            let mut body = Vec::new();
            while let Some(b) = lines.next_if(|b| !b.starts_with("```")) {
                body.push(b.to_string());
            }
            out.push((cmd.to_string(), body));
        }
    }
    assert!(!out.is_empty(), "README has a sample session starting with `$ umpire play`");
    out
}

fn skips(l: &str) -> bool {
    let t = l.trim();
    t == "..." || (t.starts_with('(') && t.ends_with(')'))
}

#[test]
fn the_readme_sample_sessions_are_what_umpire_prints() {
    for (cmd, body) in samples() {
        check_sample(&cmd, &body);
    }
}

fn check_sample(cmd: &str, body: &[String]) {
    let input: String = body.iter().filter_map(|l| l.strip_prefix("> ")).map(|c| format!("{c}\n")).collect();
    assert!(input.lines().count() >= 5, "the README's sample has too few commands: {body:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_umpire"))
        .args(cmd.split_whitespace())
        .arg("--library")
        .arg(super::repo())
        .current_dir(dir.path())
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let actual: Vec<&str> = text.lines().collect();
    // the session's own `new` comes first; the README starts at its first command
    let mut at = 0;
    let mut skipping = true;
    for (n, want) in body.iter().enumerate() {
        if skips(want) {
            skipping = true;
            continue;
        }
        let found = if skipping {
            actual[at..].iter().position(|a| a.trim_end() == want.trim_end()).map(|p| at + p)
        } else {
            (actual.get(at).is_some_and(|a| a.trim_end() == want.trim_end())).then_some(at)
        };
        let Some(i) = found else {
            panic!(
                "README sample line {} `{want}` is not what umpire prints{}; umpire printed:\n{text}",
                n + 1,
                actual.get(at).map(|a| format!(" (next line printed: `{a}`)")).unwrap_or_default()
            );
        };
        at = i + 1;
        skipping = false;
    }
    assert!(dir.path().join("board.svg").exists() || !input.contains("--svg board.svg"), "map --svg wrote no file");
}

//! The real interactive session in a terminal (tmux): the prompt, Tab completing a command, a
//! unit list and a place name to its hex, and bytes that are not UTF-8 text.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Tmux(String);

impl Tmux {
    fn start(cmd: &str) -> Tmux {
        // a name of its own for each session (tests run side by side)
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let name = format!("umpire-test-{}-{}", std::process::id(), STARTED.fetch_add(1, Ordering::Relaxed));
        let ok = Command::new("tmux")
            .args(["new-session", "-d", "-s", &name, "-x", "120", "-y", "40", cmd])
            .env("NO_COLOR", "1")
            .status()
            .expect("tmux is needed for this test (.ci/run installs it)");
        assert!(ok.success());
        Tmux(name)
    }
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.0];
        args.extend_from_slice(keys);
        assert!(Command::new("tmux").args(&args).status().unwrap().success());
    }
    fn screen(&self) -> String {
        let out = Command::new("tmux").args(["capture-pane", "-p", "-t", &self.0]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    }
    /// Waits until the screen holds `text`.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(10) {
                panic!("timed out waiting for {text:?}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["kill-session", "-t", &self.0]).status();
    }
}

/// `umpire play` of the fixture scenario in a terminal, with a history of its own in `home`.
fn play(home: &tempfile::TempDir) -> Tmux {
    let bin = env!("CARGO_BIN_EXE_umpire");
    Tmux::start(&format!(
        "cd {} && XDG_DATA_HOME={} {bin} play tests/fixtures/scenarios/fixture/basic.toml --seed 3",
        super::repo().display(),
        home.path().display()
    ))
}

#[test]
fn tab_completes_commands_units_and_places() {
    let home = tempfile::tempdir().unwrap();
    let t = play(&home);
    // the prompt shows the pending set-up decision
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    t.keys(&["au", "Tab"]);
    t.wait_for("› auto");
    t.keys(&["Enter"]);
    t.wait_for("T1 · Blue · Player Turn › Movement Phase ›");
    // a command
    t.keys(&["mo", "Tab"]);
    t.wait_for("Movement Phase › move");
    // a unit id, then a place name that completes to its hex
    t.keys(&[" B", "Tab", "Tab"]);
    t.wait_for("BR");
    t.keys(&["A", " Bluet", "Tab"]);
    t.wait_for("› move BA 0101");
    t.keys(&["C-u", "move B1 0303", "Enter"]);
    t.wait_for("B1 moves 0202 → 0303 for 3 MP");
    // leaving with an unsaved command asks first
    t.keys(&["C-d"]);
    t.wait_for("unsaved commands. Leave anyway?");
    t.keys(&["y", "Enter"]);
}

#[test]
fn bytes_that_are_not_utf8_drop_the_line_not_the_session() {
    let home = tempfile::tempdir().unwrap();
    let t = play(&home);
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    t.keys(&["-H", "ff", "fe"]);
    t.wait_for("error: the input was not valid UTF-8 text; the line was dropped");
    t.keys(&["auto", "Enter"]);
    t.wait_for("T1 · Blue · Player Turn › Movement Phase ›");
}

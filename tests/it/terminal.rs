//! The real interactive session in a terminal (tmux): the prompt, and Tab completing a
//! command, a unit list and a place name to its hex.

use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux(String);

impl Tmux {
    fn start(cmd: &str) -> Tmux {
        let name = format!("umpire-test-{}-{}", std::process::id(), Instant::now().elapsed().as_nanos());
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

#[test]
fn tab_completes_commands_units_and_places() {
    let bin = env!("CARGO_BIN_EXE_umpire");
    let home = tempfile::tempdir().unwrap();
    let cmd = format!(
        "cd {} && XDG_DATA_HOME={} {bin} play tests/fixtures/scenarios/fixture/basic.toml --seed 3",
        super::repo().display(),
        home.path().display()
    );
    let t = Tmux::start(&cmd);
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

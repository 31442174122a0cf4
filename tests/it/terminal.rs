//! The real interactive session in a terminal (a pseudo-terminal driven by the test): the prompt, Tab completing a command, a
//! unit list and a place name to its hex, and bytes that are not UTF-8 text.

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A program in a pseudo-terminal of 120×40 (a pty crate and a terminal emulator in the test:
/// no system program is needed), its screen kept up to date from what it writes.
struct Term {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
}

impl Term {
    fn start(cmd: CommandBuilder) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 })
            .expect("a pseudo-terminal");
        let child = pair.slave.spawn_command(cmd).expect("the program starts in the terminal");
        drop(pair.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZero::new(40).unwrap(),
            std::num::NonZero::new(120).unwrap(),
            0,
        )));
        let mut reader = pair.master.try_clone_reader().expect("the terminal's output");
        let feed = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buf[..n]);
            }
        });
        let writer = pair.master.take_writer().expect("the terminal's input");
        Term { screen, writer, child, _master: pair.master }
    }
    /// Types keys: text as it is, and `Tab`, `Enter`, `C-u`, `C-d` by name.
    fn keys(&mut self, keys: &[&str]) {
        for k in keys {
            let bytes: &[u8] = match *k {
                "Tab" => b"\t",
                "Enter" => b"\r",
                "C-u" => b"\x15",
                "C-d" => b"\x04",
                text => text.as_bytes(),
            };
            self.bytes(bytes);
            // one key at a time, as typed
            std::thread::sleep(Duration::from_millis(30));
        }
    }
    /// Sends raw bytes (not necessarily UTF-8 text).
    fn bytes(&mut self, b: &[u8]) {
        self.writer.write_all(b).unwrap();
        self.writer.flush().unwrap();
    }
    fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
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

impl Drop for Term {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `umpire play` of the fixture scenario in a terminal, with a history of its own in `home`.
fn play(home: &tempfile::TempDir) -> Term {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_umpire"));
    cmd.args(["play", "tests/fixtures/scenarios/fixture/basic.toml", "--seed", "3"]);
    cmd.cwd(super::repo());
    cmd.env("XDG_DATA_HOME", home.path());
    cmd.env("NO_COLOR", "1");
    cmd.env("TERM", "xterm");
    Term::start(cmd)
}

#[test]
fn tab_completes_commands_units_and_places() {
    let home = tempfile::tempdir().unwrap();
    let mut t = play(&home);
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
    let mut t = play(&home);
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    t.bytes(&[0xff, 0xfe]);
    t.wait_for("error: the input was not valid UTF-8 text; the line was dropped");
    t.keys(&["auto", "Enter"]);
    t.wait_for("T1 · Blue · Player Turn › Movement Phase ›");
}

#[test]
fn enter_runs_what_was_typed_not_the_history_hint() {
    let home = tempfile::tempdir().unwrap();
    let mut t = play(&home);
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    t.keys(&["auto", "Enter"]);
    t.wait_for("Movement Phase ›");
    t.keys(&["status", "Enter"]);
    t.wait_for("0 to redo");
    // `sta` is hinted as `status` from the history; Enter runs `sta`
    t.keys(&["sta", "Enter"]);
    t.wait_for("unknown command 'sta'");
}

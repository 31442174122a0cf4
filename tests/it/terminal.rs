//! The real interactive session in a terminal (a pseudo-terminal driven by the test): the prompt
//! (shortened to fit 80 columns), Tab completing a command (with its space), a unit list, a place
//! name to its hex, a decision's options and the arguments the rules say are legal; history hints
//! dimmed; `next` saying once what is left undone; bytes that are not UTF-8 text; lines typed
//! ahead or pasted, each its own command.

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A program in a pseudo-terminal of `cols`×40 (a pty crate and a terminal emulator in the test:
/// no system program is needed), its screen kept up to date from what it writes.
struct Term {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
}

impl Term {
    fn start(cmd: CommandBuilder, cols: u16) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize { rows: 40, cols, pixel_width: 0, pixel_height: 0 })
            .expect("a pseudo-terminal");
        let child = pair.slave.spawn_command(cmd).expect("the program starts in the terminal");
        drop(pair.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZero::new(40).unwrap(),
            std::num::NonZero::new(cols).unwrap(),
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
                "C-c" => b"\x03",
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
    /// The text from the cursor to the end of its line, and whether all of it is drawn dim.
    fn after_cursor(&self) -> (String, bool) {
        let p = self.screen.lock().unwrap();
        let sc = p.screen();
        let (row, col) = sc.cursor_position();
        let cells: Vec<_> =
            (col..sc.size().1.get()).filter_map(|c| sc.cell(row, c)).filter(|c| c.has_contents()).collect();
        (cells.iter().map(|c| c.contents()).collect(), !cells.is_empty() && cells.iter().all(|c| c.dim()))
    }
    /// The line the cursor is on.
    fn cursor_line(&self) -> String {
        let p = self.screen.lock().unwrap();
        let sc = p.screen();
        let (row, _) = sc.cursor_position();
        sc.rows(0, sc.size().1.get()).nth(row as usize).unwrap_or_default()
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
    play_in(home, &["tests/fixtures/scenarios/fixture/basic.toml", "--seed", "3"], 120)
}

/// `umpire play <args>` in a terminal `cols` wide, with a history of its own in `home`.
fn play_in(home: &tempfile::TempDir, args: &[&str], cols: u16) -> Term {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_umpire"));
    cmd.arg("play");
    cmd.args(args);
    cmd.cwd(super::repo());
    cmd.env("XDG_DATA_HOME", home.path());
    cmd.env("NO_COLOR", "1");
    cmd.env("TERM", "xterm");
    Term::start(cmd, cols)
}

/// Stargard Solstice at seed 7 in a terminal 80 columns wide, at turn 1's first movement segment
/// (the 3rd SS Panzer Corps activated).
fn stargard_movement(home: &tempfile::TempDir) -> Term {
    let mut t = play_in(home, &["stargard-solstice", "--seed", "7"], 80);
    t.wait_for("set up 139/233");
    t.keys(&["forward step movement", "Enter"]);
    t.wait_for("› Movement ›");
    t
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
    // a command, with the space after it
    t.keys(&["atta", "Tab"]);
    t.wait_for("Movement Phase › attack ");
    // `mo` is `move` or `moves`: the common part
    t.keys(&["C-u", "mo", "Tab"]);
    t.wait_for("Movement Phase › move");
    t.keys(&[" "]);
    // a unit id (the units the rules list a move for: BR, in its box, is not offered), then a
    // place name that completes to its hex
    t.keys(&["B", "Tab", "Tab"]);
    t.wait_for("› move B");
    let screen = t.wait_for("B1  B2  BA");
    assert!(!screen.contains("BR"), "{screen}");
    t.keys(&["1", " Bluet", "Tab"]);
    t.wait_for("› move B1 0101");
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
fn lines_typed_ahead_or_pasted_each_run_at_their_own_prompt() {
    let home = tempfile::tempdir().unwrap();
    let mut t = play(&home);
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    // three commands typed ahead in one go: the first reads them all, the two after it were
    // once dropped with the line editor's read buffer
    t.bytes(b"auto\rstatus\rlua print(6 * 7)\r");
    let s = t.wait_for("42");
    assert!(s.contains("0 to redo"), "`status` did not run:\n{s}");
    // a pasted block (lines joined by newlines), a `lua` chunk left open going on as typed
    t.bytes(b"status\nlua print(({\n 6 })[1] * 9)\nlua print('after')\n");
    let s = t.wait_for("after");
    assert!(s.contains("54"), "the open `lua` chunk did not run whole:\n{s}");
    assert_eq!(s.matches("› status").count(), 2, "each pasted line at its own prompt:\n{s}");
    assert!(s.contains("› lua print('after')"), "{s}");
}

#[test]
fn history_hints_are_dimmed_and_enter_runs_what_was_typed_not_the_hint() {
    let home = tempfile::tempdir().unwrap();
    let mut t = play(&home);
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    t.keys(&["auto", "Enter"]);
    t.wait_for("Movement Phase ›");
    t.keys(&["status", "Enter"]);
    t.wait_for("0 to redo");
    // `sta` is hinted as `status` from the history, drawn dim: rustyline draws hints through the
    // highlighter only in its colour mode, which NO_COLOR (set here) would switch off, so the
    // line editor forces it (dimming is no colour)
    t.keys(&["sta"]);
    t.wait_for("› status");
    let (hint, dim) = t.after_cursor();
    assert_eq!(hint, "tus");
    assert!(dim, "the hint {hint:?} is not drawn dim");
    // Enter runs `sta`
    t.keys(&["Enter"]);
    t.wait_for("unknown command 'sta'");
}

#[test]
fn the_prompt_fits_80_columns_and_tab_offers_what_is_legal() {
    let home = tempfile::tempdir().unwrap();
    let mut t = stargard_movement(&home);
    // `T1 · German · Command Phase: 3SS-PZ-HQ activated › Movement ›` and a command would wrap
    t.wait_for("T1 · German · 3SS-PZ-HQ activated › Movement ›");
    assert!(!t.screen().contains("Command Phase: 3SS-PZ-HQ activated › Movement ›"));
    // move: the units that may still move, not every unit of the game
    t.keys(&["move HvS", "Tab"]);
    t.wait_for("› move HvS/11SS");
    t.keys(&[" 25.13", "Enter"]);
    t.wait_for("HvS/11SS moves 25.12 → 25.13");
    t.keys(&["move 11A/11SS 25.10", "Enter"]);
    t.wait_for("11A/11SS moves 24.12 → 25.10");
    // the first `next` says which activated units have not moved, once
    t.keys(&["next", "Enter"]);
    t.wait_for("activated units have not moved [5.1]:");
    t.wait_for("`next` again ends the segment anyway");
    t.keys(&["next", "Enter"]);
    t.wait_for("› Combat ›");
    // attack: the enemy hexes next to units that may attack, then the units next to the target
    // (11A/11SS in 25.10 is the only one next to the enemy, in 24.10: Tab completes it)
    t.keys(&["attack ", "Tab"]);
    t.wait_for("› attack 24.10");
    t.keys(&[" with ", "Tab"]);
    t.wait_for("› attack 24.10 with 11A/11SS");
    t.keys(&["C-u"]);
}

#[test]
fn tab_after_choose_offers_the_decisions_options() {
    let home = tempfile::tempdir().unwrap();
    let mut t = play_in(&home, &["stargard-solstice", "--seed", "7"], 120);
    t.wait_for("set up 139/233 within 1 of 16.17");
    t.keys(&["choose ", "Tab"]);
    // the seven set-up hexes (all 15.xx to 17.xx) share no longer prefix: a second Tab lists them
    t.keys(&["Tab"]);
    let s = t.wait_for("17.17");
    let line = t.cursor_line();
    assert!(line.contains("› choose"), "{line}");
    for h in ["15.16", "15.17", "16.16", "16.17", "16.18", "17.16"] {
        assert!(s.contains(h), "{h} is not offered:\n{s}");
    }
    assert!(!s.contains("3SS-PZ-HQ") && !s.contains("04.18"), "not only the options:\n{s}");
}

#[test]
fn ctrl_c_stops_the_running_command_and_a_killed_session_resumes_from_its_journal() {
    let home = tempfile::tempdir().unwrap();
    let mut t = play(&home);
    t.wait_for("T1 · ? Place BA within 1 hex of Bluetown ›");
    t.keys(&["auto", "Enter"]);
    t.wait_for("Movement Phase ›");
    t.keys(&["move B1 0303", "Enter"]);
    t.wait_for("B1 moves 0202 → 0303");
    // a command that would run until its budget: Ctrl-C stops it, it is taken back, and the
    // prompt comes back with the game as it was
    t.keys(&["lua vars.set('spun', 1) while true do end", "Enter"]);
    t.wait_for("while true do end");
    std::thread::sleep(Duration::from_millis(300));
    t.keys(&["C-c"]);
    t.wait_for("interrupted (Ctrl-C): the command is taken back");
    t.keys(&["= vars.get('spun')", "Enter"]);
    t.wait_for("nil");
    // the process is killed: nothing is lost, the journal holds the game
    let _ = t.child.kill();
    let _ = t.child.wait();
    let mut u = play_in(&home, &[], 120);
    u.wait_for("`umpire play --resume` resumes it");
    u.keys(&["quit", "Enter"]);
    let mut v = play_in(&home, &["--resume"], 120);
    v.wait_for("Movement Phase ›");
    v.keys(&["show B1", "Enter"]);
    v.wait_for("0303");
    // it is not saved yet: leaving asks
    v.keys(&["C-d"]);
    v.wait_for("unsaved commands. Leave anyway?");
    v.keys(&["y", "Enter"]);
}

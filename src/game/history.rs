//! The history of a game: committed commands with the state before each, `undo`, `redo` and
//! the honest undo past the dice.
//!
//! In a two-player game an undo does not take back a die roll or a draw the players have seen
//! (forced results excepted) unless asked (`past_dice`); that undo is itself recorded as a
//! command, with a log entry naming what it took back, and the record of rolls keeps what was
//! rolled. In a sandbox (`free`) undo is free.

use super::Game;
use crate::error::{Error, Result};
use crate::state::{GameState, LogEntry};

/// One applied command: its lines (the command and the answers to its questions).
#[derive(Clone)]
pub struct Entry {
    pub lines: Vec<String>,
    pub before: GameState,
    /// Hash of the state after the command (saves write it as a checkpoint).
    pub after_hash: String,
    /// The unforced rolls and draws the command made, as shown (undo honesty).
    pub seen: Vec<String>,
}

impl Entry {
    pub fn new(lines: Vec<String>, before: GameState, after: &GameState) -> Entry {
        let seen = seen_rolls(&before, after);
        Entry { lines, after_hash: after.hash(), seen, before }
    }
}

/// The unforced rolls and draws made between two states, as the players saw them.
fn seen_rolls(before: &GameState, after: &GameState) -> Vec<String> {
    after
        .dice
        .rolls
        .since(before.dice.rolls.len())
        .filter(|r| !r.forced)
        .map(|r| format!("{} ({}: {})", r.purpose, r.what, r.result))
        .collect()
}

/// The state an undo past the dice leads to: `target`, with the command count, the log (plus
/// an entry naming what was taken back) and the record of rolls of `now`.
fn past_dice_state(target: &GameState, now: &GameState, what: &str, seen: &[String]) -> GameState {
    let mut after = target.clone();
    after.commands = now.commands + 1;
    after.log = now.log.clone();
    after.log.push(LogEntry {
        command: after.commands,
        rule: None,
        text: format!("undo past the dice: took back {what} and the rolls {}", seen.join(", ")),
    });
    after.dice.rolls = now.dice.rolls.clone();
    after
}

impl Game {
    /// Takes back the last `n` commands. `line` is the command as typed (recorded when the
    /// undo goes past the dice).
    pub fn undo(&mut self, n: usize, free: bool, past_dice: bool, line: &str) -> Result<Vec<String>> {
        if n == 0 || n > self.history.len() {
            return Err(Error::Usage(format!("cannot undo {n}: {} command(s) to undo", self.history.len())));
        }
        let undone = &self.history[self.history.len() - n..];
        let seen: Vec<String> = undone.iter().flat_map(|e| e.seen.iter().cloned()).collect();
        if seen.is_empty() || free {
            let mut out = Vec::new();
            for _ in 0..n {
                let e = self.history.pop().expect("checked");
                let after = self.snapshot();
                self.restore(e.before.clone());
                out.push(format!("undone: {}", e.lines.join(" / ")));
                self.redo.push((e, after));
            }
            return Ok(out);
        }
        if !past_dice {
            return Err(Error::Usage(format!(
                "undo would take back what the dice showed: {} — use `undo --past-dice{}` to do it anyway (the log will record it), or play on",
                seen.join(", "),
                if n > 1 { format!(" {n}") } else { String::new() }
            )));
        }
        // an honest undo past the dice: a command of its own, recorded in the log and in saves
        let what: Vec<String> = undone.iter().map(|e| e.lines[0].clone()).collect();
        let before = self.snapshot();
        let after = past_dice_state(&undone[0].before, &before, &what.join("; "), &seen);
        self.restore(after.clone());
        self.history.push(Entry::new(vec![line.to_string()], before, &after));
        self.redo.clear();
        Ok(vec![format!("undone past the dice: {} (recorded in the log)", what.join(" / "))])
    }

    /// Re-applies the last undone command.
    pub fn redo(&mut self) -> Result<Vec<String>> {
        let Some((e, after)) = self.redo.pop() else {
            return Err(Error::Usage("nothing to redo".into()));
        };
        self.restore(after);
        let out = vec![format!("redone: {}", e.lines.join(" / "))];
        self.history.push(e);
        Ok(out)
    }

    /// Abandons the command waiting for a decision (`cancel`, or `undo` while one waits). If
    /// it already showed unforced dice, that needs `past_dice` (outside a sandbox), and is
    /// then recorded like any undo past the dice. None when nothing is pending.
    pub fn cancel_pending(&mut self, free: bool, past_dice: bool, line: &str) -> Result<Option<Vec<String>>> {
        let Some(p) = self.pending.take() else { return Ok(None) };
        let now = self.snapshot();
        let seen = seen_rolls(&p.before, &now);
        if seen.is_empty() || free {
            self.restore(p.before);
            self.take_out();
            return Ok(Some(vec![format!("cancelled the pending command: {}", p.lines[0])]));
        }
        if !past_dice {
            let msg = format!(
                "the dice of `{}` have been rolled ({}): answer the decision, or `cancel --past-dice` (the log will record it)",
                p.lines[0],
                seen.join(", ")
            );
            self.pending = Some(p);
            return Err(Error::Usage(msg));
        }
        let after = past_dice_state(&p.before, &now, &p.lines[0], &seen);
        self.restore(after.clone());
        self.take_out();
        let mut lines = p.lines.clone();
        lines.push(line.to_string());
        let out = vec![format!("cancelled past the dice: {} (recorded in the log)", p.lines[0])];
        self.history.push(Entry::new(lines, p.before, &after));
        self.redo.clear();
        Ok(Some(out))
    }
}

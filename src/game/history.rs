//! The history of a game: committed commands with the state before each, `undo`, `redo` and
//! the honest undo past the dice.
//!
//! In a two-player game an undo does not take back a die roll or a draw the players have seen
//! (forced results excepted) unless asked (`past_dice`); that undo is itself recorded as a
//! command, with a log entry naming what it took back, and the record of rolls keeps what was
//! rolled. In a sandbox (`free`) undo is free.

use super::Game;
use crate::contract::Call;
use crate::error::{Error, Result};
use crate::state::{GameState, LogEntry};
use std::collections::BTreeMap;

/// How many of the latest commands keep the state before them, so that they can be undone.
/// Older entries keep their lines and checkpoint hash (saves replay them) but drop the state:
/// the undo history of a long game stays bounded.
pub const UNDO_DEPTH: usize = 1_000;

/// One applied command: its lines (the command and the answers to its questions).
#[derive(Clone)]
pub struct Entry {
    pub lines: Vec<String>,
    /// The state before the command (None once it is older than [`UNDO_DEPTH`] commands;
    /// boxed, so that an old entry is small).
    pub before: Option<Box<GameState>>,
    /// Hash of the state after the command (saves write it as a checkpoint); None in a game
    /// that keeps no checkpoints ([`Game::checkpoints`]: a playout that does not save).
    pub after_hash: Option<String>,
    /// The unforced rolls and draws the command made, as shown (undo honesty).
    pub seen: Vec<String>,
    /// For the record of an undo that could not simply pop the commands it took back (past the
    /// dice, or past such a record): how many commands it took back. 0 for any other command.
    pub takes_back: usize,
    /// Whether umpire played it for one of its sides (the session's opponent): a player's
    /// `undo` takes it back with the player's command before it.
    pub by_bot: bool,
    /// The outcomes the command declared (`umpire.outcome`), in order: what the rules' tables
    /// gave, tallied by playouts ([`Game::outcomes`]).
    pub outcomes: Vec<String>,
}

impl Entry {
    /// The entry of a command; `hash`: whether to keep the hash of the state after it.
    pub fn new(lines: Vec<String>, before: GameState, after: &GameState, hash: bool) -> Entry {
        let seen = seen_rolls(&before, after);
        let after_hash = hash.then(|| after.hash());
        Entry {
            lines,
            after_hash,
            seen,
            before: Some(Box::new(before)),
            takes_back: 0,
            by_bot: false,
            outcomes: Vec::new(),
        }
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
        text: if seen.is_empty() {
            format!("undo: took back {what}")
        } else {
            format!("undo past the dice: took back {what} and the rolls {}", seen.join(", "))
        },
    });
    after.dice.rolls = now.dice.rolls.clone();
    after
}

impl Game {
    /// Appends a command to the history; the entry [`UNDO_DEPTH`] commands back drops its
    /// state.
    pub(super) fn commit(&mut self, e: Entry) {
        self.history.push(e);
        if let Some(old) = self.history.len().checked_sub(UNDO_DEPTH + 1) {
            self.history[old].before = None;
        }
    }

    /// The indices of the commands still in effect, latest first: a record of an undo and the
    /// commands it took back are not.
    fn live(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut skip = 0;
        for (i, e) in self.history.iter().enumerate().rev() {
            if e.takes_back > 0 {
                skip += e.takes_back;
            } else if skip > 0 {
                skip -= 1;
            } else {
                out.push(i);
            }
        }
        out
    }

    /// The outcomes declared by the commands in effect (`umpire.outcome`), counted by the
    /// command's verb (its first word) and the outcome: what the rules' tables gave this game.
    pub fn outcomes(&self) -> BTreeMap<String, BTreeMap<String, usize>> {
        let mut out: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        for i in self.live() {
            let e = &self.history[i];
            let verb = e.lines[0].split_whitespace().next().unwrap_or_default();
            for o in &e.outcomes {
                *out.entry(verb.to_string()).or_default().entry(o.clone()).or_default() += 1;
            }
        }
        out
    }

    /// How many commands in effect an undo of the player's last `n` takes back: each with the
    /// commands umpire played after it (its opponent's).
    pub fn players_span(&self, n: usize) -> usize {
        let live = self.live();
        let mut count = 0;
        for _ in 0..n {
            while live.get(count).is_some_and(|&i| self.history[i].by_bot) {
                count += 1;
            }
            count += 1;
        }
        count
    }

    /// Takes back the last `n` commands in effect. `line` is the command as typed (recorded
    /// when the undo goes past the dice, or past the record of such an undo: a second `undo`
    /// takes back the command before, it does not undo the record; it must take back `n` when
    /// replayed). `asked`: the count the player typed, which refusals repeat (the player's
    /// commands, where umpire's own come with them: [`Game::players_span`]).
    pub fn undo(&mut self, (n, asked): (usize, usize), free: bool, past_dice: bool, line: &str) -> Result<Vec<String>> {
        let live = self.live();
        if n == 0 || n > live.len() {
            return Err(Error::Usage(format!("cannot undo {asked}: {} command(s) to undo", live.len())));
        }
        let first = live[n - 1];
        let undone: Vec<&Entry> = live[..n].iter().rev().map(|&i| &self.history[i]).collect();
        if undone.iter().any(|e| e.before.is_none()) {
            return Err(Error::Usage(format!(
                "cannot undo {asked}: undo reaches back {UNDO_DEPTH} commands at most (the states before older ones are not kept; a save still replays the whole game)"
            )));
        }
        let seen: Vec<String> = undone.iter().flat_map(|e| e.seen.iter().cloned()).collect();
        // the last n entries are the commands themselves: pop them (nothing to record)
        let on_top = first + n == self.history.len();
        if on_top && (seen.is_empty() || free) {
            let mut out = Vec::new();
            for _ in 0..n {
                let e = self.history.pop().expect("checked");
                let after = self.snapshot();
                self.restore(*e.before.clone().expect("checked"));
                out.push(format!("undone: {}", e.lines.join(" / ")));
                self.redo.push((e, after));
            }
            return Ok(out);
        }
        if !seen.is_empty() && !past_dice && !free {
            return Err(Error::Usage(format!(
                "undo would take back what the dice showed: {} — use `undo --past-dice{}` to do it anyway (the log will record it), or play on",
                seen.join(", "),
                if asked > 1 { format!(" {asked}") } else { String::new() }
            )));
        }
        // an honest undo: a command of its own, recorded in the log and in saves
        let what: Vec<String> = undone.iter().map(|e| e.lines[0].clone()).collect();
        let before = self.snapshot();
        let target = undone[0].before.as_ref().expect("checked");
        let after = past_dice_state(target, &before, &what.join("; "), &seen);
        self.restore(after.clone());
        let mut record = Entry::new(vec![line.to_string()], before, &after, self.checkpoints);
        record.takes_back = n;
        self.commit(record);
        self.redo.clear();
        Ok(vec![if seen.is_empty() {
            format!("undone: {} (recorded in the log, after the undo before it)", what.join(" / "))
        } else {
            format!("undone past the dice: {} (recorded in the log)", what.join(" / "))
        }])
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
        if self.history.is_empty() && !self.new_line.is_empty() && p.lines.first() == Some(&self.new_line) {
            // the set-up is part of making the game: there is no game before it to go back to
            let msg = format!(
                "the set-up of a new game cannot be cancelled or undone: answer its questions (`auto` takes the rules' defaults), or start again with `{}`",
                self.new_line
            );
            self.pending = Some(p);
            return Err(Error::Usage(msg));
        }
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
        self.commit(Entry::new(lines, p.before, &after, self.checkpoints));
        self.redo.clear();
        Ok(Some(out))
    }
}

/// Where a game was before a command made of several commands (`forward`), to go back to if
/// one of them fails ([`Game::checkpoint`]).
pub struct Checkpoint {
    state: GameState,
    history_len: usize,
    redo: Vec<(Entry, GameState)>,
    setup: Vec<String>,
    /// The decision that was pending, as far as it can be asked again.
    pending: Option<(Option<Call>, GameState, Vec<String>, crate::contract::Question)>,
}

impl Game {
    /// The game as it is now, for [`Game::rollback`].
    /// Makes the commands committed from `from` on one command, `line` (`forward`: it is
    /// undone whole, and a save replays it as the one command it was).
    pub fn merge_history(&mut self, from: usize, line: &str) {
        if from >= self.history.len() {
            return;
        }
        let parts: Vec<Entry> = self.history.drain(from..).collect();
        let last = parts.last().expect("not empty");
        let merged = Entry {
            lines: vec![line.to_string()],
            after_hash: last.after_hash.clone(),
            seen: parts.iter().flat_map(|e| e.seen.iter().cloned()).collect(),
            before: parts[0].before.clone(),
            takes_back: 0,
            by_bot: parts.iter().all(|e| e.by_bot),
            outcomes: parts.iter().flat_map(|e| e.outcomes.iter().cloned()).collect(),
        };
        self.history.push(merged);
    }

    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            state: self.snapshot(),
            history_len: self.history.len(),
            redo: self.redo.clone(),
            setup: self.setup.clone(),
            pending: self
                .pending
                .as_ref()
                .map(|p| (p.start.clone(), p.before.clone(), p.lines.clone(), p.question.clone())),
        }
    }

    /// Puts the game back where it was at `cp`: state, history, redo, set-up and the pending
    /// decision (asked again by running its command anew). Returns why the decision could not
    /// be asked again, if it could not (the state is then the one before its command).
    pub fn rollback(&mut self, cp: Checkpoint) -> Option<String> {
        self.history.truncate(cp.history_len);
        self.redo = cp.redo;
        self.setup = cp.setup;
        self.pending = None;
        let Some((start, before, lines, question)) = cp.pending else {
            self.restore(cp.state);
            return None;
        };
        match self.rewind_to(start, &before, &lines, &question.prompt) {
            Ok(p) => {
                self.pending = Some(p);
                None
            }
            Err(why) => Some(why),
        }
    }
}

//! A game: one scenario under one ruleset — its state (shared with the rules' Lua host), the
//! history of commands, the decision a command waits for, and the transactions that change
//! it.
//!
//! Every state-changing command runs as a transaction ([`Game::transact`]): the state is
//! cloned first and put back if the command is refused or fails, so a failed command leaves
//! the same hash. This layer knows nothing of the command language: the session parses a
//! line and calls the methods here.

mod actions;
pub mod check;
mod decision;
mod history;
mod odds;

pub use decision::{Pending, describe_question};
pub use history::{Checkpoint, Entry, UNDO_DEPTH};
pub use odds::{Odds, Results as OddsResults};

use crate::contract::{Call, Question, Shared, Step, World};
use crate::error::{Error, Result};
use crate::hex::HexId;
use crate::lua::{Host, HostConfig, RuleThread};
use crate::ruleset::{Ruleset, resolve_scenario};
use crate::scenario::{self, Scenario};
use crate::state::{GameState, Unit};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

pub struct Game {
    pub scenario: Arc<Scenario>,
    pub ruleset: Ruleset,
    host: Host,
    pub shared: Shared,
    /// The host settings the game was made with (a reload uses them again).
    cfg: HostConfig,
    pub new_line: String,
    pub history: Vec<Entry>,
    /// Undone commands with the state they had led to.
    redo: Vec<(Entry, GameState)>,
    pub pending: Option<Pending>,
    /// When the game was resumed from a saved state instead of a replay: that state and the
    /// lines that led to it.
    pub base: Option<(GameState, Vec<String>)>,
    /// History length at the last save or load.
    pub saved_len: usize,
    /// Answers given to questions asked while the game was being set up (after `new`).
    pub setup: Vec<String>,
    /// Whether each command keeps the hash of the state after it (a save's checkpoints); a
    /// playout that saves nothing turns it off (hashing the state is a tenth of a game's work).
    pub checkpoints: bool,
    /// The sides umpire plays in this game, with the bot of each (the session's `opponent`;
    /// saves keep them).
    pub opponents: std::collections::BTreeMap<String, String>,
    /// How the rule thread of the running command was started (kept with a pending decision,
    /// so that a refused answer can bring the command back to its question).
    last_start: Option<Call>,
}

/// What a rule thread did.
pub enum Flow {
    Done(Vec<String>),
    Ask(RuleThread, Question),
}

impl Flow {
    /// The flow of `thread` after one of its steps (a command's own result is shown).
    fn of(thread: &RuleThread, step: Step) -> Result<Flow> {
        match step {
            Step::Done(v) => Ok(Flow::Done(v.map(|x| vec![format!("result: {x}")]).unwrap_or_default())),
            Step::Ask(q) => Ok(Flow::Ask(thread.clone(), q)),
            // umpire.outcome yields only while odds probes a command
            Step::Outcome(o) => Err(Error::Lua(format!("umpire.outcome({o}) ended a command outside odds"))),
            Step::Outcomes(_) => Err(Error::Lua("umpire.outcome_of ended a command outside odds".into())),
        }
    }
}

impl Game {
    /// Creates a game from a scenario name: loads scenario and ruleset (from the rules folder
    /// `rules` instead, where given: [`Ruleset::load_other`]), runs the ruleset's start (which
    /// may ask set-up questions). Returns the game and what the start printed.
    pub fn create(
        root: &Path,
        name: &str,
        seed: u64,
        options: &[String],
        new_line: &str,
        cfg: HostConfig,
        rules: Option<&Path>,
    ) -> Result<(Game, Vec<String>)> {
        let (file, lib, id) = resolve_scenario(root, name)?;
        let scen = scenario::load(&file, &id)?;
        if let Some(o) = options.iter().find(|o| !scen.options.contains_key(*o)) {
            let known: Vec<&str> = scen.options.keys().map(String::as_str).collect();
            return Err(Error::Usage(format!(
                "scenario {} has no option '{o}' (options: {})",
                scen.id,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        }
        let ruleset = match rules {
            Some(other) => Ruleset::load_other(other, &lib, &scen.ruleset)?,
            None => Ruleset::load(&lib, &scen.ruleset)?,
        };
        let mut state = scen.initial.clone();
        state.dice = crate::dice::Dice::new(seed);
        state.options = options.iter().cloned().collect();
        let mut g = Game::assemble(Arc::new(scen), ruleset, state, new_line, cfg)?;
        let before = g.snapshot();
        let r = g.run(Call::Start);
        let started = g.finish(r, before, vec![new_line.to_string()])?;
        let mut out = vec![format!(
            "{} — {} (rules {} {}), seed {seed}",
            g.scenario.name, g.scenario.id, g.ruleset.name, g.ruleset.version
        )];
        out.extend(started);
        Ok((g, out))
    }

    /// A game over `state` with a fresh VM that has run the rule files (no command run).
    pub fn assemble(
        scenario: Arc<Scenario>,
        ruleset: Ruleset,
        state: GameState,
        new_line: &str,
        cfg: HostConfig,
    ) -> Result<Game> {
        let shared: Shared = Rc::new(RefCell::new(World::new(state, scenario.clone())));
        let host = Host::new(&ruleset, shared.clone(), cfg)?;
        shared.borrow_mut().out.clear();
        Ok(Game {
            scenario,
            ruleset,
            host,
            shared,
            cfg,
            new_line: new_line.to_string(),
            history: vec![],
            redo: vec![],
            pending: None,
            base: None,
            saved_len: 0,
            setup: vec![],
            checkpoints: true,
            opponents: Default::default(),
            last_start: None,
        })
    }

    /// A digest of everything a save replays: the state, and the command waiting for a decision
    /// with the answers given so far (an answer that only leads to the next question changes
    /// no state). With no decision pending, the state's own hash.
    pub fn hash(&self) -> String {
        let state = self.state().hash();
        let Some(p) = &self.pending else { return state };
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(state.as_bytes());
        // (a new game's set-up: its `new` line is in the state already, as scenario, seed and
        // options; the folder of its rules is not part of the game)
        let setup = usize::from(p.lines.first() == Some(&self.new_line));
        for l in &p.lines[setup..] {
            h.update([0u8]);
            h.update(l.as_bytes());
        }
        h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    pub fn state(&self) -> std::cell::Ref<'_, GameState> {
        std::cell::Ref::map(self.shared.borrow(), |w| &w.state)
    }
    pub fn host(&self) -> &Host {
        &self.host
    }
    fn snapshot(&self) -> GameState {
        self.shared.borrow().state.clone()
    }
    fn restore(&self, s: GameState) {
        self.shared.borrow_mut().state = s;
    }
    /// What the rules printed since the last call.
    pub fn take_out(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.borrow_mut().out)
    }
    pub fn fmt_hex(&self, h: HexId) -> String {
        self.scenario.map.fmt(h)
    }
    /// Commands undone and not yet redone.
    pub fn redo_len(&self) -> usize {
        self.redo.len()
    }

    /// Fog of war: whether the side to act may not examine `u` (an enemy unit below the top
    /// of its stack). Always false without fog of war or without a side to act.
    pub fn is_hidden(&self, s: &GameState, u: &Unit) -> bool {
        let w = self.shared.borrow();
        s.is_hidden_to(w.fog, w.viewer.as_deref().or(s.clock.side.as_deref()), u)
    }

    /// Whether the rules hide units under fog of war (`umpire.fog_of_war`).
    pub fn fog(&self) -> bool {
        self.shared.borrow().fog
    }

    /// Shows the game from `viewer`'s side under fog of war (None: the side to act's).
    pub fn set_viewer(&self, viewer: Option<String>) {
        self.shared.borrow_mut().viewer = viewer;
    }

    /// Puts `state` in place of the game's state, for a view of another game's state (the
    /// board's copy on its own thread, made from a snapshot of the session): no history, no command.
    pub fn show_state(&mut self, state: GameState) {
        self.pending = None;
        self.restore(state);
    }

    /// The units the side to act may not examine under fog of war.
    pub fn hidden_units(&self) -> BTreeSet<String> {
        let s = self.state();
        s.units.values().filter(|u| self.is_hidden(&s, u)).map(|u| u.id.clone()).collect()
    }

    /// Runs rule code that may only look (`=`, `expect`, `show`, overlays): the state is put
    /// back afterwards and no die may be rolled (a read-only roll would show the next result).
    /// Returns the result and what the code printed.
    pub fn read_only<R>(&self, f: impl FnOnce(&Game) -> R) -> (R, Vec<String>) {
        let snap = self.snapshot();
        self.shared.borrow_mut().read_only = true;
        let r = f(self);
        self.shared.borrow_mut().read_only = false;
        self.restore(snap);
        (r, self.take_out())
    }

    /// Runs a state-changing command `line` as a transaction: committed to the history when
    /// `f` is done, kept as the pending command when it asks a question, rolled back on any
    /// error (what the rules printed is kept: it explains the failure).
    pub fn transact(&mut self, line: &str, f: impl FnOnce(&mut Game) -> Result<Flow>) -> Result<Vec<String>> {
        let before = {
            let _t = crate::lua::Timer::start("snapshot");
            self.snapshot()
        };
        self.take_out();
        self.shared.borrow_mut().outcomes.clear();
        let r = f(self);
        self.finish(r, before, vec![line.to_string()])
    }

    /// Runs a command's rule code (the start, `next`, a verb, a designer's chunk) as a new
    /// rule thread: one more command in the state's count.
    pub fn run(&mut self, call: Call) -> Result<Flow> {
        self.shared.borrow_mut().state.commands += 1;
        let (thread, step) = self.host.start(&call)?;
        self.last_start = Some(call);
        Flow::of(&thread, step)
    }

    /// Commits, suspends or rolls back a command.
    fn finish(&mut self, r: Result<Flow>, before: GameState, lines: Vec<String>) -> Result<Vec<String>> {
        match r {
            Err(e) => {
                let out = self.take_out();
                self.shared.borrow_mut().outcomes.clear();
                self.restore(before);
                self.shared.borrow_mut().out = out;
                Err(e)
            }
            Ok(Flow::Ask(thread, q)) => {
                let mut out = self.take_out();
                out.push(format!("? {}", describe_question(&q)));
                let start = self.last_start.take();
                self.pending = Some(Pending { thread, question: q, before, lines, start });
                Ok(out)
            }
            Ok(Flow::Done(extra)) => {
                let mut out = self.take_out();
                out.extend(extra.into_iter().filter(|l| !l.is_empty()));
                {
                    let mut w = self.shared.borrow_mut();
                    if w.state.commands == before.commands {
                        w.state.commands += 1;
                    }
                }
                if self.history.is_empty() && !self.new_line.is_empty() && lines.first() == Some(&self.new_line) {
                    // the set-up after `new` is the game's origin, not an undoable command
                    self.setup = lines[1..].to_vec();
                } else {
                    let _t = crate::lua::Timer::start("commit");
                    let after = self.snapshot();
                    let mut entry = Entry::new(lines, before, &after, self.checkpoints);
                    entry.outcomes = std::mem::take(&mut self.shared.borrow_mut().outcomes);
                    self.commit(entry);
                    self.redo.clear();
                }
                Ok(out)
            }
        }
    }

    /// Re-reads the rule files into a new VM over the same state. Everything a load registers
    /// (verbs, overlays, descriptions, fog of war) starts afresh; on failure the previous rules
    /// and registrations stay. Returns whether the rule files changed.
    pub fn reload(&mut self) -> Result<bool> {
        let rs = if self.ruleset.dir == self.ruleset.root.join("rulesets").join(&self.ruleset.id) {
            Ruleset::load(&self.ruleset.root, &self.ruleset.id)?
        } else {
            Ruleset::load_other(&self.ruleset.dir, &self.ruleset.root, &self.ruleset.id)?
        };
        // loading rules must not change the game: keep the state as it is
        let state = self.snapshot();
        let before = self.shared.borrow_mut().take_registrations();
        let loaded = Host::new(&rs, self.shared.clone(), self.cfg);
        self.restore(state);
        self.take_out();
        match loaded {
            Ok(h) => {
                self.host = h;
                let changed = rs.content_hash != self.ruleset.content_hash;
                self.ruleset = rs;
                Ok(changed)
            }
            Err(e) => {
                self.shared.borrow_mut().put_registrations(before);
                Err(Error::Lua(format!(
                    "reload failed, the previous rules stay loaded:\n{}",
                    e.to_string().trim_start_matches("rule error: ")
                )))
            }
        }
    }

    /// The ids of every step of the sequence of play.
    pub fn step_ids(&self) -> Result<Vec<String>> {
        self.host.step_ids()
    }

    /// The ids of the steps where play stops and waits (not those that run by themselves).
    pub fn stop_ids(&self) -> Result<Vec<String>> {
        self.host.stop_ids()
    }

    /// Steps of the sequence by their names, for messages (`Movement Phase or Combat Phase`).
    pub fn step_labels(&self, ids: &[String]) -> String {
        self.host.step_labels(ids).unwrap_or_else(|_| ids.join(", "))
    }

    /// The verbs the ruleset registered, by name.
    pub fn verbs(&self) -> BTreeMap<String, crate::contract::VerbSpec> {
        self.shared.borrow().verbs.clone()
    }

    /// The map overlays the ruleset registered, by name.
    pub fn overlays(&self) -> BTreeMap<String, crate::contract::VerbSpec> {
        self.shared.borrow().overlays.clone()
    }
}

//! A session: at most one game and the command language around it. A line is split into its
//! command and arguments; built-in commands (the table in [`builtins`]) are handled here, a
//! ruleset's verbs have their arguments parsed by the verb's usage line ([`args`]) and run as
//! a transaction of the game. Views (`status`, `show`, `map`...) are in [`views`], the
//! designer's commands in [`designer`], loading a save (which replays it through
//! [`Session::execute`]) in [`load`].

mod actions;
mod args;
pub mod bot;
pub mod builtins;
mod complete;
mod designer;
mod load;
mod mapview;
mod odds;
mod opponent;
mod play;
mod search;
mod show;
mod status;
mod units;
mod view;

pub use builtins::{BUILTINS, Builtin, is_builtin};
pub use view::{OverlayInfo, Snapshot};

use crate::error::{Error, Result};
use crate::game::{Flow, Game, describe_question};
use crate::lua::{HostConfig, Limits};
use crate::ruleset::find_root;
use std::path::PathBuf;

/// What a command answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Ok,
    /// Comment or blank line.
    Nothing,
    /// The command failed, and why (it changed nothing).
    Error(Error),
    Check(bool),
    Quit,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub out: Vec<String>,
    pub status: Status,
    /// The lines are the program's own drawing (the coloured text map, whose renderer made its
    /// names printable itself): they keep their escape sequences. Every other line has its
    /// control characters shown as escapes ([`crate::text::printable`]).
    styled: bool,
}

/// The longest command line (a `lua` chunk continued over many lines included).
pub const MAX_LINE: usize = 64 << 10;

impl Reply {
    pub(crate) fn ok(out: Vec<String>) -> Reply {
        Reply { out, status: Status::Ok, styled: false }
    }
    /// Whether the lines are the program's own drawing, to be written as they are.
    pub fn is_styled(&self) -> bool {
        self.styled
    }
    /// Lines drawn by the program with its own colours (see `styled`).
    pub(crate) fn styled(out: Vec<String>) -> Reply {
        Reply { out, status: Status::Ok, styled: true }
    }
    pub(crate) fn check(passed: bool, out: Vec<String>) -> Reply {
        Reply { out, status: Status::Check(passed), styled: false }
    }
    pub(crate) fn with(out: Vec<String>, status: Status) -> Reply {
        Reply { out, status, styled: false }
    }
    /// The error, if the command failed.
    pub fn error(&self) -> Option<&Error> {
        match &self.status {
            Status::Error(e) => Some(e),
            _ => None,
        }
    }
}

pub struct Session {
    /// The library the games come from (a folder with `rulesets/` and `scenarios/`).
    pub root: PathBuf,
    pub game: Option<Game>,
    pub limits: Limits,
    /// Seed used by `new` without `--seed` (None: from the clock, for real games).
    pub default_seed: Option<u64>,
    /// Where `save @/x` and `load @/x` put files (scripts use it for scratch saves).
    pub scratch: Option<PathBuf>,
    /// Columns available for `map` (the terminal's width; 100 without a terminal).
    pub width: usize,
    /// Designer's sandbox: `undo` may take back dice rolls without `--past-dice`.
    pub free_undo: bool,
    /// ANSI colours in output (a terminal without NO_COLOR).
    pub color: bool,
    /// The session replays a save (its games run without the wall-clock backstop, so that a
    /// replay never depends on the machine's speed).
    pub(crate) replaying: bool,
    /// Another rules folder that `new` takes the scenario's ruleset from (`compare`, `replay`;
    /// [`crate::ruleset::Ruleset::load_other`]).
    pub rules: Option<PathBuf>,
    /// Told how far umpire is while it plays its sides (a front end shows it; None: silent).
    pub progress: Option<Progress>,
    /// umpire is playing its sides now (their commands do not start another round).
    opponent_busy: bool,
    /// The decision pending is in a command umpire started (its entry is umpire's).
    opponent_started: bool,
    /// What umpire's search bot judged, commanded and planned in the step it is playing (kept
    /// from one of its commands to the next, as a playout's bot keeps it).
    opponent_memo: bot::Memo,
}

/// What a front end shows of umpire's progress while it plays a side (an empty message: done).
pub type Progress = Box<dyn Fn(&str)>;

/// A `new` line without its `--rules DIR`, and that folder (None for any other line, or a
/// `new` that names no rules): saves record the rules a game was played under, `replay`
/// chooses them itself.
pub fn rules_of_new(line: &str) -> (String, Option<std::path::PathBuf>) {
    if !line.starts_with("new ") {
        return (line.to_string(), None);
    }
    let (mut kept, mut rules) = (Vec::new(), None);
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        match w {
            "--rules" => rules = words.next().map(std::path::PathBuf::from),
            _ => kept.push(w),
        }
    }
    (kept.join(" "), rules)
}

/// Splits a line into its command and the rest (`=expr` is the command `=`).
pub(crate) fn split_first(line: &str) -> (&str, &str) {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix('=') {
        return ("=", rest.trim());
    }
    match line.split_once(char::is_whitespace) {
        Some((a, b)) => (a, b.trim()),
        None => (line, ""),
    }
}

impl Session {
    /// A session for play, on the library found by [`find_root`].
    pub fn new() -> Session {
        Session { default_seed: None, ..Session::with_root(find_root()) }
    }

    /// A session on the library `root`, seeding new games with 1 unless told (scripts, tests).
    pub fn with_root(root: impl Into<PathBuf>) -> Session {
        Session {
            root: root.into(),
            game: None,
            limits: Limits::default(),
            default_seed: Some(1),
            scratch: None,
            width: 100,
            color: false,
            free_undo: false,
            replaying: false,
            rules: None,
            progress: None,
            opponent_busy: false,
            opponent_started: false,
            opponent_memo: Default::default(),
        }
    }

    /// A session with the same library, limits and settings, holding `game`, that replays
    /// (used to replay saves without touching this one).
    pub fn sibling(&self, game: Option<Game>) -> Session {
        Session {
            root: self.root.clone(),
            game,
            limits: self.limits,
            default_seed: Some(1),
            scratch: self.scratch.clone(),
            width: self.width,
            color: self.color,
            // replays are never sandboxes: a recorded `undo --past-dice` must replay as recorded
            free_undo: false,
            replaying: true,
            rules: self.rules.clone(),
            progress: None,
            opponent_busy: false,
            opponent_started: false,
            opponent_memo: Default::default(),
        }
    }

    /// The host settings of this session's games.
    pub fn config(&self) -> HostConfig {
        HostConfig { limits: self.limits, reserved: is_builtin, backstop: !self.replaying }
    }

    pub fn hash(&self) -> Option<String> {
        self.game.as_ref().map(|g| g.hash())
    }

    /// The work of the last command, in Lua instructions and the charges of the API's searches
    /// and conversions (what its budget counted): the same on every machine.
    pub fn work_of_last_command(&self) -> Option<u64> {
        self.game.as_ref().map(|g| g.host().work())
    }

    /// Whether leaving or replacing the game would lose something typed since the last save or
    /// load: a command, an answer, a pending command. A new game whose first set-up question
    /// is still unanswered has nothing to lose.
    pub fn has_unsaved(&self) -> bool {
        self.game.as_ref().is_some_and(|g| {
            let untouched = g.history.is_empty()
                && g.setup.is_empty()
                && g.pending.as_ref().is_none_or(|p| p.lines() == [g.new_line.clone()]);
            !untouched && (g.history.len() != g.saved_len || g.pending.is_some())
        })
    }

    /// Names for completion: built-ins, the ruleset's verbs.
    pub fn command_names(&self) -> Vec<String> {
        let mut v: Vec<String> = BUILTINS.iter().map(|b| b.name.to_string()).collect();
        if let Some(g) = &self.game {
            v.extend(g.shared.borrow().verbs.keys().cloned());
        }
        v.sort();
        v
    }

    /// Scenario names for completion: `<game>` and `<game>/<scenario>`.
    pub fn scenario_names(&self) -> Vec<String> {
        let mut v = Vec::new();
        for game in crate::ruleset::list_dirs(&self.root.join("scenarios")) {
            if let Ok(rd) = std::fs::read_dir(self.root.join("scenarios").join(&game)) {
                let mut names: Vec<String> = rd
                    .flatten()
                    .filter_map(|e| {
                        let p = e.path();
                        (p.extension().is_some_and(|x| x == "toml"))
                            .then(|| p.file_stem()?.to_str().map(String::from))
                            .flatten()
                    })
                    .map(|s| format!("{game}/{s}"))
                    .collect();
                names.sort();
                v.push(game);
                v.extend(names);
            }
        }
        v
    }

    /// The prompt: where the game is.
    pub fn prompt(&self) -> String {
        let Some(g) = &self.game else {
            return "umpire › ".into();
        };
        let s = g.state();
        let c = &s.clock;
        let mut parts = vec![format!("T{}", c.turn)];
        if let Some(side) = &c.side {
            parts.push(side.clone());
        }
        if !c.phase.is_empty() {
            parts.push(c.phase.clone());
        }
        if let Some(over) = &c.over {
            parts.push(format!("game over: {over}"));
        }
        if let Some(p) = &g.pending {
            match &p.question.side {
                // the side that answers, when it is not the side to act
                Some(side) if c.side.as_ref() != Some(side) => parts.push(format!("? {side}: {}", p.question.prompt)),
                _ => parts.push(format!("? {}", p.question.prompt)),
            }
        }
        crate::text::printable(&format!("{} › ", parts.join(" · "))).into_owned()
    }

    /// Runs one line (a command, a comment or a blank line).
    pub fn execute(&mut self, line: &str) -> Reply {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Reply::with(vec![], Status::Nothing);
        }
        if line.len() > MAX_LINE {
            return Reply::with(
                vec![],
                Status::Error(Error::Usage(format!(
                    "the line is {} KiB long, over the limit of {} KiB for one command",
                    line.len() >> 10,
                    MAX_LINE >> 10
                ))),
            );
        }
        let (verb, rest) = split_first(line);
        let started = std::time::Instant::now();
        // one instruction budget for everything the command runs (odds runs, forward's steps)
        let scope = self.game.as_ref().map(|g| g.host().command_scope());
        let before = self.moved_on_mark();
        let (len, was_pending) = self.game.as_ref().map_or((0, false), |g| (g.history.len(), g.pending.is_some()));
        let r = self.dispatch(verb, rest, line);
        drop(scope);
        if !self.opponent_busy {
            opponent::players_turn(self, len, was_pending);
        }
        tracing::debug!(command = verb, ms = started.elapsed().as_secs_f64() * 1000.0, ok = r.is_ok(), "command");
        // output of rules printed during a failed command is kept: it explains the failure
        let mut r = match r {
            Ok(r) => r,
            Err(e) => Reply::with(self.game.as_ref().map(|g| g.take_out()).unwrap_or_default(), Status::Error(e)),
        };
        // umpire's sides play when the command handed the game on to one of them
        let moved_on = matches!(verb, "new" | "load" | "opponent") || self.moved_on_mark() != before;
        if r.status == Status::Ok && moved_on && opponent::hands_on(verb) && !self.replaying && !self.opponent_busy {
            self.opponent_busy = true;
            opponent::play(self, &mut r);
            self.opponent_busy = false;
        }
        // text from rules and scenario files never reaches the terminal raw
        if !r.styled {
            for l in &mut r.out {
                if let std::borrow::Cow::Owned(p) = crate::text::printable(l) {
                    *l = p;
                }
            }
        }
        r
    }

    /// Where the game is, as far as umpire's sides care: the commands in effect, the answers
    /// given to a pending decision (a command that changes these hands the game on).
    fn moved_on_mark(&self) -> Option<(usize, usize, usize)> {
        let g = self.game.as_ref()?;
        Some((g.history.len(), g.state().commands, g.pending.as_ref().map_or(0, |p| p.lines().len())))
    }

    /// Runs a built-in, or a verb of the ruleset.
    fn dispatch(&mut self, verb: &str, rest: &str, line: &str) -> Result<Reply> {
        // `<command> --help` is `help <command>` (`units --help` also lists its filters)
        if rest == "--help" && verb != "units" && verb != "=" && self.knows(verb) {
            return builtins::help(self, verb, line);
        }
        if let Some(b) = BUILTINS.iter().find(|b| b.name == verb) {
            if !b.during_decision {
                self.no_pending()?;
            }
            return (b.run)(self, rest, line);
        }
        let spec = self.game()?.shared.borrow().verbs.get(verb).cloned();
        // an option typed alone answers the pending decision (`choose` is implied); a verb's
        // name is never taken as an answer
        if spec.is_none() && self.game()?.is_bare_answer(line) {
            return play::choose(self, line, line);
        }
        // an unknown command is unknown, decision pending or not
        if spec.is_some() {
            self.no_pending()?;
        }
        let Some(spec) = spec else {
            let mut names = self.command_names();
            names.retain(|n| n != "=");
            let mean = crate::text::did_you_mean(verb, names.iter());
            // one word while a decision waits was meant as its answer: say why it is none
            if rest.is_empty()
                && self.game()?.pending.is_some()
                && let Err(e) = play::choose(self, line, line)
            {
                return Err(Error::Usage(format!(
                    "unknown command '{verb}'{mean}, nor an answer to the question waiting: {}",
                    e.to_string().trim_start_matches("usage: ")
                )));
            }
            return Err(Error::Usage(format!("unknown command '{verb}'{mean} — `help` lists commands")));
        };
        let args = self.parse_args(&spec, rest)?;
        let name = spec.name.clone();
        self.transact(line, move |g| g.run(crate::contract::Call::Verb { name, args }))
    }

    /// Whether `name` is a command: a built-in or a verb of the game's rules.
    fn knows(&self, name: &str) -> bool {
        is_builtin(name) || self.game.as_ref().is_some_and(|g| g.shared.borrow().verbs.contains_key(name))
    }

    pub(crate) fn game(&self) -> Result<&Game> {
        self.game
            .as_ref()
            .ok_or_else(|| Error::Usage("no game: start one with `new <scenario>` or `load <file>`".into()))
    }

    pub(crate) fn game_mut(&mut self) -> Result<&mut Game> {
        self.game
            .as_mut()
            .ok_or_else(|| Error::Usage("no game: start one with `new <scenario>` or `load <file>`".into()))
    }

    /// Refuses a command that must wait for the pending decision.
    fn no_pending(&self) -> Result<()> {
        if let Some(g) = &self.game
            && let Some(p) = &g.pending
        {
            return Err(Error::Pending(format!(
                "a decision is pending: {} — answer with `choose <answer>` (or the option alone) or `auto`, or `cancel` the command",
                describe_question(&p.question)
            )));
        }
        Ok(())
    }

    /// Runs a state-changing command as a transaction of the game.
    pub(crate) fn transact(&mut self, line: &str, f: impl FnOnce(&mut Game) -> Result<Flow>) -> Result<Reply> {
        self.game_mut()?.transact(line, f).map(Reply::ok)
    }

    /// `@/name` is a file in the session's scratch folder (scripts); anything else a plain path.
    pub(crate) fn scratch_path(&self, p: &str) -> PathBuf {
        match (p.strip_prefix("@/"), &self.scratch) {
            (Some(rest), Some(dir)) => dir.join(rest),
            _ => PathBuf::from(p),
        }
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

//! A session: at most one game, the command language, transactions, undo/redo, pending
//! decisions, saves and loads.
//!
//! Every state-changing command runs as a transaction: the state is cloned first and put back
//! if the command is refused or fails, so a failed command leaves the same `hash`.

use crate::error::{Error, Result};
use crate::hex::HexId;
use crate::lua::{ArgKind, Host, HostConfig, Limits, Question, Shared, Step, World, display_value};
pub use crate::names::{resolve_hex, resolve_unit};
use crate::ruleset::{Ruleset, find_root, resolve_scenario};
use crate::save;
use crate::scenario::{self, Scenario};
use crate::search::fmt_cost;
use crate::state::{GameState, Location};
use crate::text::{did_you_mean, json_text};
use mlua::{Thread, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// Built-in commands: (name, usage, one-line help, group).
pub const BUILTINS: &[(&str, &str, &str, &str)] = &[
    (
        "new",
        "new <scenario> [--seed N] [--option NAME]...",
        "start a game: <game>, <game>/<scenario> or a .toml path",
        "files",
    ),
    ("load", "load <file>", "load a saved game (replays it, checking hashes)", "files"),
    ("save", "save <file>", "save the game as a replayable script with the state", "files"),
    (
        "map",
        "map [<hex|unit|place> [radius]] | map <overlay> <args> | map --svg FILE [<overlay> <args>]",
        "the map as text around a place, with an overlay, or as an SVG picture",
        "view",
    ),
    ("status", "status", "where the game is: turn, phase, side, pending decision, seed", "view"),
    ("show", "show <hex|unit|place>", "a unit's values and markers, or a hex's terrain and stack", "view"),
    ("units", "units [side|box|hex|text]", "list units, optionally filtered", "view"),
    ("log", "log [n]", "the last n log entries (default 10)", "view"),
    ("why", "why", "the last ruling, step by step with rule numbers", "view"),
    ("hash", "hash", "a digest of the whole game state", "view"),
    ("next", "next", "end the current segment and go to the next one", "game"),
    ("choose", "choose <answer>", "answer the pending decision", "game"),
    ("auto", "auto", "answer the pending decision with the rule's default", "game"),
    ("cancel", "cancel [--past-dice]", "abandon the command waiting for a decision", "game"),
    ("odds", "odds <arguments of the combat verb>", "the odds and every result's probability, no dice used", "game"),
    ("dice", "dice <face|name>... | dice clear", "force the next die rolls or draws (real dice, scripts)", "game"),
    ("roll", "roll <NdM> [purpose...]", "roll dice and record it", "game"),
    ("seed", "seed <n>", "reseed the game's dice", "game"),
    (
        "forward",
        "forward [turn N | step ID | end]",
        "play on with `next`, answering every question with its default",
        "game",
    ),
    (
        "undo",
        "undo [--past-dice] [n]",
        "take back the last n commands (past seen dice only with --past-dice)",
        "history",
    ),
    ("redo", "redo", "re-apply the last undone command", "history"),
    ("reload", "reload", "re-read the rule files, keep the game", "designer"),
    ("lua", "lua <code>", "run Lua in the rules' environment (changes are a command)", "designer"),
    ("=", "= <expression>", "evaluate a Lua expression (read-only)", "designer"),
    ("expect", "expect <expression>", "check that a Lua expression is true (read-only)", "designer"),
    (
        "expect-error",
        "expect-error <command> [~ text]",
        "check that a command fails (and its message holds text)",
        "designer",
    ),
    (
        "expect-ok",
        "expect-ok <command> [~ text]",
        "check that a command succeeds (and its output holds text)",
        "designer",
    ),
    ("checkpoint", "checkpoint <hash>", "check the state hash (saves use it to detect divergence)", "designer"),
    ("help", "help [command]", "list commands, or explain one", "view"),
    ("quit", "quit", "leave", "files"),
];

/// Whether `name` is a built-in command (a ruleset may not register a verb of that name).
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.iter().any(|b| b.0 == name)
}

/// Examples shown by `help <command>`.
const EXAMPLES: &[(&str, &str)] = &[
    ("new", "new <game> --seed 7 --option <name>"),
    ("load", "load game.sav"),
    ("save", "save game.sav"),
    ("map", "map <place> 4      map <overlay> <unit>      map --svg board.svg"),
    ("show", "show <unit>      show <hex>      show <place>"),
    ("units", "units <side>      units dead      units <hex>"),
    ("log", "log 20"),
    ("choose", "choose <hex|unit|option>"),
    ("odds", "odds <hex> with <unit>,<unit>"),
    ("dice", "dice 3 5      dice <chit name>      dice clear"),
    ("roll", "roll 2d6 weather"),
    ("seed", "seed 12345"),
    ("undo", "undo      undo 3      undo --past-dice"),
    ("lua", "lua units.get('B1'):move_to('0101')"),
    ("=", "= units.get('B1').hex"),
    ("expect", "expect units.get('B1').hex == '0303'"),
    ("expect-ok", "expect-ok odds 0404 with B1 ~ 1:2"),
    ("expect-error", "expect-error move B1 0909 ~ not on the map"),
    ("help", "help move"),
    ("forward", "forward      forward step combat      forward turn 3      forward end"),
];

/// What a command answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Ok,
    /// Comment or blank line.
    Nothing,
    Error(String),
    Check(bool),
    Quit,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub out: Vec<String>,
    pub status: Status,
}

impl Reply {
    fn ok(out: Vec<String>) -> Reply {
        Reply { out, status: Status::Ok }
    }
    fn check(passed: bool, out: Vec<String>) -> Reply {
        Reply { out, status: Status::Check(passed) }
    }
}

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
        let seen = after
            .dice
            .rolls
            .since(before.dice.rolls.len())
            .filter(|r| !r.forced)
            .map(|r| format!("{} ({}: {})", r.purpose, r.what, r.result))
            .collect();
        Entry { lines, after_hash: after.hash(), seen, before }
    }
}

pub struct Pending {
    thread: Thread,
    pub question: Question,
    before: GameState,
    lines: Vec<String>,
}

impl Pending {
    /// The state before the command that waits.
    pub fn before(&self) -> &GameState {
        &self.before
    }
}

pub struct Game {
    pub scenario: Arc<Scenario>,
    pub ruleset: Ruleset,
    host: Host,
    pub shared: Shared,
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
}

pub struct Session {
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
}

impl Game {
    pub fn state(&self) -> std::cell::Ref<'_, GameState> {
        std::cell::Ref::map(self.shared.borrow(), |w| &w.state)
    }
    fn snapshot(&self) -> GameState {
        self.shared.borrow().state.clone()
    }
    fn restore(&self, s: GameState) {
        self.shared.borrow_mut().state = s;
    }
    fn take_out(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.borrow_mut().out)
    }
    fn fmt_hex(&self, h: HexId) -> String {
        self.scenario.map.fmt(h)
    }

    /// Units the side to act may not examine under fog of war: enemy units below the top of
    /// their stack (empty without fog of war or without a side to act).
    pub fn hidden_units(&self) -> std::collections::BTreeSet<String> {
        let w = self.shared.borrow();
        let mut out = std::collections::BTreeSet::new();
        let Some(viewer) = w.state.clock.side.clone() else { return out };
        if !w.fog {
            return out;
        }
        for u in w.state.units.values() {
            if u.side != viewer
                && let Some(h) = u.hex()
                && w.state.stack(h).first().is_some_and(|top| top.id != u.id)
            {
                out.insert(u.id.clone());
            }
        }
        out
    }

    /// Runs rule code that may only look (`=`, `expect`, `show`, overlays): the state is put
    /// back afterwards and no die may be rolled (a read-only roll would show the next result).
    /// Returns the result and what the code printed.
    fn read_only<R>(&self, f: impl FnOnce(&Game) -> R) -> (R, Vec<String>) {
        let snap = self.snapshot();
        self.shared.borrow_mut().read_only = true;
        let r = f(self);
        self.shared.borrow_mut().read_only = false;
        self.restore(snap);
        (r, self.take_out())
    }
}

fn split_first(line: &str) -> (&str, &str) {
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
    pub fn new() -> Session {
        Session {
            root: find_root(),
            game: None,
            limits: Limits::default(),
            default_seed: None,
            scratch: None,
            width: 100,
            color: false,
            free_undo: false,
        }
    }

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
        }
    }

    /// A session with the same library, limits and settings, holding `game` (used to replay
    /// saves without touching this one).
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
        }
    }

    /// The host settings of this session's games.
    pub fn config(&self) -> HostConfig {
        HostConfig { limits: self.limits, reserved: is_builtin }
    }

    pub fn hash(&self) -> Option<String> {
        self.game.as_ref().map(|g| g.state().hash())
    }

    pub fn has_unsaved(&self) -> bool {
        self.game.as_ref().is_some_and(|g| g.history.len() != g.saved_len || g.pending.is_some())
    }

    /// Names for completion: built-ins, the ruleset's verbs.
    pub fn command_names(&self) -> Vec<String> {
        let mut v: Vec<String> = BUILTINS.iter().map(|b| b.0.to_string()).collect();
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
            parts.push(format!("? {}", p.question.prompt));
        }
        format!("{} › ", parts.join(" · "))
    }

    /// Runs one line (a command, a comment or a blank line).
    pub fn execute(&mut self, line: &str) -> Reply {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Reply { out: vec![], status: Status::Nothing };
        }
        let (verb, rest) = split_first(line);
        let started = std::time::Instant::now();
        let r = self.dispatch(verb, rest, line);
        tracing::debug!(command = verb, ms = started.elapsed().as_secs_f64() * 1000.0, ok = r.is_ok(), "command");
        // output of rules printed during a failed command is kept: it explains the failure
        match r {
            Ok(r) => r,
            Err(e) => {
                let out = self.game.as_ref().map(|g| g.take_out()).unwrap_or_default();
                Reply { out, status: Status::Error(e.to_string()) }
            }
        }
    }

    fn game(&self) -> Result<&Game> {
        self.game
            .as_ref()
            .ok_or_else(|| Error::Usage("no game: start one with `new <scenario>` or `load <file>`".into()))
    }

    fn game_mut(&mut self) -> Result<&mut Game> {
        self.game
            .as_mut()
            .ok_or_else(|| Error::Usage("no game: start one with `new <scenario>` or `load <file>`".into()))
    }

    fn no_pending(&self) -> Result<()> {
        if let Some(g) = &self.game
            && let Some(p) = &g.pending
        {
            return Err(Error::Usage(format!(
                "a decision is pending: {} — answer with `choose <answer>` or `auto`, or `cancel` the command",
                describe_question(&p.question)
            )));
        }
        Ok(())
    }

    fn dispatch(&mut self, verb: &str, rest: &str, line: &str) -> Result<Reply> {
        match verb {
            "new" => {
                self.no_pending_or_replace()?;
                self.cmd_new(rest, line)
            }
            "help" => Ok(Reply::ok(self.cmd_help(rest))),
            "quit" => Ok(Reply { out: vec![], status: Status::Quit }),
            "status" => self.cmd_status(),
            "map" => self.cmd_map(rest),
            "show" => self.cmd_show(rest),
            "units" => self.cmd_units(rest),
            "log" => self.cmd_log(rest),
            "why" => self.cmd_why(),
            "hash" => Ok(Reply::ok(vec![self.game()?.state().hash()])),
            "checkpoint" => {
                let h = self.game()?.state().hash();
                if h == rest.trim() {
                    Ok(Reply::check(true, vec![]))
                } else {
                    Ok(Reply::check(
                        false,
                        vec![format!("state hash is {h}, expected {}: the game has diverged here", rest.trim())],
                    ))
                }
            }
            "undo" => self.cmd_undo(rest, line),
            "forward" => self.cmd_forward(rest),
            "redo" => self.cmd_redo(),
            "save" => {
                self.game()?;
                let path = rest.trim();
                if path.is_empty() {
                    return Err(Error::Usage("usage: save <file>".into()));
                }
                let file = scratch_path(&self.scratch, path);
                let g = self.game_mut()?;
                save::write(g, &file)?;
                g.saved_len = g.history.len();
                Ok(Reply::ok(vec![format!("saved to {path}")]))
            }
            "load" => {
                self.no_pending_or_replace()?;
                let path = rest.trim();
                if path.is_empty() {
                    return Err(Error::Usage("usage: load <file>".into()));
                }
                let file = scratch_path(&self.scratch, path);
                let out = save::load(self, &file, path)?;
                Ok(Reply::ok(out))
            }
            "seed" => {
                self.no_pending()?;
                let n: u64 =
                    rest.trim().parse().map_err(|_| Error::Usage("usage: seed <n> (a whole number)".into()))?;
                self.transact(line, |g| {
                    g.shared.borrow_mut().state.dice.reseed(n);
                    Ok(Flow::Done(vec![format!("dice reseeded with {n}")]))
                })
            }
            "dice" => {
                self.no_pending()?;
                let words: Vec<&str> = rest.split_whitespace().collect();
                if words == ["clear"] {
                    return self.transact(line, |g| {
                        g.shared.borrow_mut().state.dice.forced.clear();
                        Ok(Flow::Done(vec!["forced results cleared".into()]))
                    });
                }
                if words.is_empty() {
                    let g = self.game()?;
                    let s = g.state();
                    let q: Vec<String> = s.dice.forced.iter().map(|f| f.to_string()).collect();
                    return Ok(Reply::ok(vec![if q.is_empty() {
                        "no forced results queued".into()
                    } else {
                        format!("forced next: {}", q.join(" "))
                    }]));
                }
                for w in &words {
                    if w.parse::<i64>().is_ok_and(|v| v < 1) {
                        return Err(Error::Usage(format!("'{w}' is not a die face (faces start at 1)")));
                    }
                }
                self.transact(line, |g| {
                    g.shared.borrow_mut().state.dice.force(words.iter().copied());
                    Ok(Flow::Done(vec![format!("next results forced: {}", words.join(" "))]))
                })
            }
            "roll" => {
                self.no_pending()?;
                let (expr, purpose) = split_first(rest);
                let (n, m) = crate::dice::parse_expr(expr).map_err(|e| Error::Usage(e.to_string()))?;
                let purpose = if purpose.is_empty() { "roll".to_string() } else { purpose.to_string() };
                self.transact(line, |g| {
                    let faces = g
                        .shared
                        .borrow_mut()
                        .state
                        .dice
                        .roll(n, m, &purpose)
                        .map_err(|e| Error::Usage(e.to_string()))?;
                    let total: u32 = faces.iter().sum();
                    let f: Vec<String> = faces.iter().map(|x| x.to_string()).collect();
                    Ok(Flow::Done(vec![format!(
                        "{expr} for {purpose}: {total}{}",
                        if faces.len() > 1 { format!(" ({})", f.join("+")) } else { String::new() }
                    )]))
                })
            }
            "next" => {
                self.no_pending()?;
                self.transact(line, |g| g.start_thread("next", ()))
            }
            "choose" => self.cmd_answer(Some(rest), line),
            "auto" => self.cmd_answer(None, line),
            "cancel" => {
                let free = self.free_undo;
                let past = rest.split_whitespace().any(|w| w == "--past-dice");
                self.game_mut()?
                    .cancel_pending(free, past, line)?
                    .ok_or_else(|| Error::Usage("nothing to cancel: no decision is pending".into()))
            }
            "reload" => {
                self.no_pending()?;
                let g = self.game_mut()?;
                let mut rs = Ruleset::load(&g.ruleset.root, &g.ruleset.id)?;
                rs.rehash();
                let cfg = self.config();
                let g = self.game_mut()?;
                // loading rules must not change the game: keep the state as it is
                let state = g.snapshot();
                let verbs_before = std::mem::take(&mut g.shared.borrow_mut().verbs);
                let overlays_before = std::mem::take(&mut g.shared.borrow_mut().overlays);
                let loaded = Host::new(&rs, g.shared.clone(), cfg);
                g.restore(state);
                match loaded {
                    Ok(h) => {
                        g.host = h;
                        let changed = if rs.content_hash != g.ruleset.content_hash { "changed" } else { "unchanged" };
                        g.ruleset = rs;
                        g.take_out();
                        Ok(Reply::ok(vec![format!(
                            "reloaded {} {} (rule files {changed}); the game is kept",
                            g.ruleset.name, g.ruleset.version
                        )]))
                    }
                    Err(e) => {
                        g.shared.borrow_mut().verbs = verbs_before;
                        g.shared.borrow_mut().overlays = overlays_before;
                        g.take_out();
                        Err(Error::Lua(format!(
                            "reload failed, the previous rules stay loaded:\n{}",
                            e.to_string().trim_start_matches("rule error: ")
                        )))
                    }
                }
            }
            "lua" => {
                self.no_pending()?;
                let code = rest.to_string();
                self.transact(line, move |g| {
                    let f = g.host.chunk(&code, "lua")?;
                    g.start_thread("run_chunk", f)
                })
            }
            "=" => {
                let g = self.game()?;
                let (r, out) = g.read_only(|g| g.host.eval(&format!("return {rest}"), "="));
                let vals = r?;
                let mut lines = out;
                lines.push(vals.iter().map(display_value).collect::<Vec<_>>().join("\t"));
                Ok(Reply::ok(lines))
            }
            "expect" => {
                let g = self.game()?;
                let (r, _) = g.read_only(|g| g.host.eval(&format!("return {rest}"), "expect"));
                match r {
                    Ok(v) => {
                        let first = v.into_iter().next().unwrap_or(Value::Nil);
                        let pass = !matches!(first, Value::Nil | Value::Boolean(false));
                        Ok(Reply::check(
                            pass,
                            if pass { vec![] } else { vec![format!("expected true, got {}", display_value(&first))] },
                        ))
                    }
                    Err(e) => Ok(Reply::check(false, vec![format!("expect raised an error: {e}")])),
                }
            }
            "expect-error" => {
                let (cmd, want) = match rest.rsplit_once(" ~ ") {
                    Some((c, w)) => (c.trim(), Some(w.trim().trim_matches('"'))),
                    None => (rest.trim(), None),
                };
                if cmd.is_empty() {
                    return Err(Error::Usage("usage: expect-error <command> [~ text]".into()));
                }
                let before = self.hash();
                let r = self.execute(cmd);
                let after = self.hash();
                match r.status {
                    Status::Error(msg) => {
                        let mut out = vec![format!("error as expected: {msg}")];
                        let mut pass = true;
                        if let Some(w) = want
                            && !msg.contains(w)
                        {
                            pass = false;
                            out.push(format!("but the message does not contain '{w}'"));
                        }
                        if before != after {
                            pass = false;
                            out.push("but the state changed".into());
                        }
                        Ok(Reply::check(pass, out))
                    }
                    _ => {
                        let mut out = r.out;
                        out.push("expected an error, but the command succeeded".into());
                        Ok(Reply::check(false, out))
                    }
                }
            }
            "expect-ok" => {
                let (cmd, want) = match rest.rsplit_once(" ~ ") {
                    Some((c, w)) => (c.trim(), Some(w.trim().trim_matches('"'))),
                    None => (rest.trim(), None),
                };
                if cmd.is_empty() {
                    return Err(Error::Usage("usage: expect-ok <command> [~ text]".into()));
                }
                let r = self.execute(cmd);
                let mut out = r.out.clone();
                match r.status {
                    Status::Error(msg) => {
                        out.push(format!("expected success, got: {msg}"));
                        Ok(Reply::check(false, out))
                    }
                    Status::Check(false) => {
                        out.push("the check inside failed".into());
                        Ok(Reply::check(false, out))
                    }
                    _ => {
                        let pass = want.is_none_or(|w| r.out.iter().any(|l| l.contains(w)));
                        if !pass {
                            out.push(format!("the output does not contain '{}'", want.unwrap_or_default()));
                        }
                        Ok(Reply::check(pass, out))
                    }
                }
            }
            "odds" => {
                self.no_pending()?;
                self.cmd_odds(rest)
            }
            _ => {
                self.no_pending()?;
                let g = self.game()?;
                let spec = g.shared.borrow().verbs.get(verb).cloned();
                let Some(spec) = spec else {
                    let mut names = self.command_names();
                    names.retain(|n| n != "=");
                    return Err(Error::Usage(format!(
                        "unknown command '{verb}'{} — `help` lists commands",
                        did_you_mean(verb, names.iter())
                    )));
                };
                let args = self.parse_args(&spec, rest)?;
                let name = spec.name.clone();
                self.transact(line, move |g| g.start_thread("dispatch", (name, mlua::MultiValue::from_vec(args))))
            }
        }
    }

    fn no_pending_or_replace(&self) -> Result<()> {
        Ok(())
    }

    /// Parses a verb's arguments by its usage line, resolving units and hexes.
    fn parse_args(&self, spec: &crate::lua::VerbSpec, rest: &str) -> Result<Vec<Value>> {
        let g = self.game()?;
        let lua = &g.host.lua;
        let words: Vec<&str> = rest.split_whitespace().collect();
        let mut i = 0;
        let mut out = Vec::new();
        let usage = || format!("usage: {}", spec.usage);
        let w = g.shared.borrow();
        let one = |kind: &ArgKind, word: &str| -> std::result::Result<Value, String> {
            let s = |x: String| lua.create_string(x).map(Value::String).map_err(|e| e.to_string());
            match kind {
                ArgKind::Unit => {
                    let id = resolve_unit(&w.state, word)?;
                    crate::lua::unit_handle(lua, id).map(Value::UserData).map_err(|e| e.to_string())
                }
                ArgKind::Units => {
                    let mut v = Vec::new();
                    for part in word.split(',').filter(|p| !p.is_empty()) {
                        let id = resolve_unit(&w.state, part)?;
                        if v.contains(&id) {
                            return Err(format!("unit {id} is listed twice"));
                        }
                        v.push(id);
                    }
                    let t = v
                        .into_iter()
                        .map(|id| crate::lua::unit_handle(lua, id))
                        .collect::<mlua::Result<Vec<_>>>()
                        .and_then(|hs| lua.create_sequence_from(hs))
                        .map_err(|e| e.to_string())?;
                    Ok(Value::Table(t))
                }
                ArgKind::Hex => s(w.map.fmt(resolve_hex(&w.map, word)?)),
                ArgKind::Int => {
                    word.parse::<i64>().map(Value::Integer).map_err(|_| format!("'{word}' is not a whole number"))
                }
                ArgKind::Number => {
                    word.parse::<f64>().map(Value::Number).map_err(|_| format!("'{word}' is not a number"))
                }
                ArgKind::Word => s(word.to_string()),
                ArgKind::Side => s(crate::names::resolve_side(&w.state, word)?),
                ArgKind::Text | ArgKind::Literal(_) => unreachable!(),
            }
        };
        for (idx, a) in spec.args.iter().enumerate() {
            match &a.kind {
                ArgKind::Literal(l) => {
                    let present = words.get(i).is_some_and(|x| x.eq_ignore_ascii_case(l));
                    if present {
                        i += 1;
                    } else if !a.optional {
                        return Err(Error::Usage(format!(
                            "expected '{l}' {}; {}",
                            words.get(i).map(|x| format!("where '{x}' is")).unwrap_or_else(|| "at the end".into()),
                            usage()
                        )));
                    }
                    if a.optional {
                        out.push(Value::Boolean(present));
                    }
                }
                ArgKind::Text => {
                    let text = words[i.min(words.len())..].join(" ");
                    i = words.len();
                    if text.is_empty() && !a.optional {
                        return Err(Error::Usage(format!("missing <{}>; {}", a.name, usage())));
                    }
                    out.push(if text.is_empty() {
                        Value::Nil
                    } else {
                        Value::String(lua.create_string(text).map_err(crate::lua::convert_error)?)
                    });
                }
                kind => {
                    if a.repeated {
                        let mut vals = Vec::new();
                        // a repetition stops at a keyword that a later argument expects
                        let stop: Vec<&str> = spec.args[idx + 1..]
                            .iter()
                            .filter_map(|x| if let ArgKind::Literal(l) = &x.kind { Some(l.as_str()) } else { None })
                            .collect();
                        while i < words.len() && !stop.iter().any(|l| l.eq_ignore_ascii_case(words[i])) {
                            match one(kind, words[i]) {
                                Ok(v) => {
                                    vals.push(v);
                                    i += 1;
                                }
                                Err(e) => return Err(Error::Usage(format!("{e}; {}", usage()))),
                            }
                        }
                        if vals.is_empty() && !a.optional {
                            return Err(Error::Usage(format!("missing <{}>; {}", a.name, usage())));
                        }
                        out.push(Value::Table(lua.create_sequence_from(vals).map_err(crate::lua::convert_error)?));
                    } else if i < words.len() {
                        match one(kind, words[i]) {
                            Ok(v) => {
                                out.push(v);
                                i += 1;
                            }
                            Err(e) => return Err(Error::Usage(format!("{e}; {}", usage()))),
                        }
                    } else if a.optional {
                        out.push(Value::Nil);
                    } else {
                        return Err(Error::Usage(format!("missing <{}>; {}", a.name, usage())));
                    }
                }
            }
        }
        if i < words.len() {
            return Err(Error::Usage(format!("unexpected '{}'; {}", words[i..].join(" "), usage())));
        }
        Ok(out)
    }

    /// Runs a state-changing command as a transaction.
    fn transact(&mut self, line: &str, f: impl FnOnce(&mut Game) -> Result<Flow>) -> Result<Reply> {
        let g = self.game_mut()?;
        let before = {
            let _t = crate::lua::Timer::start("snapshot");
            g.snapshot()
        };
        g.take_out();
        let r = f(g);
        g.finish(r, before, vec![line.to_string()])
    }

    fn cmd_new(&mut self, rest: &str, line: &str) -> Result<Reply> {
        let mut words = rest.split_whitespace();
        let Some(name) = words.next() else {
            return Err(Error::Usage(format!(
                "usage: new <scenario> [--seed N] [--option NAME]... (games: {})",
                crate::ruleset::list_dirs(&self.root.join("scenarios")).join(", ")
            )));
        };
        let mut seed = None;
        let mut options = Vec::new();
        while let Some(w) = words.next() {
            match w {
                "--seed" => {
                    seed = Some(
                        words
                            .next()
                            .and_then(|s| s.parse::<u64>().ok())
                            .ok_or_else(|| Error::Usage("--seed takes a whole number".into()))?,
                    )
                }
                "--option" => {
                    options.push(words.next().ok_or_else(|| Error::Usage("--option takes a name".into()))?.to_string())
                }
                other => {
                    return Err(Error::Usage(format!(
                        "unexpected '{other}'; usage: new <scenario> [--seed N] [--option NAME]..."
                    )));
                }
            }
        }
        let seed = match seed.or(self.default_seed) {
            Some(s) => s,
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64 % 1_000_000)
                .unwrap_or(1),
        };
        let mut canonical = format!("new {name} --seed {seed}");
        for o in &options {
            canonical.push_str(&format!(" --option {o}"));
        }
        let _ = line;
        let (game, out) = Game::create(&self.root, name, seed, &options, &canonical, self.config())?;
        self.game = Some(game);
        Ok(Reply::ok(out))
    }

    fn cmd_answer(&mut self, answer: Option<&str>, line: &str) -> Result<Reply> {
        let g = self.game_mut()?;
        let Some(p) = g.pending.take() else {
            return Err(Error::Usage("no decision is pending".into()));
        };
        let value = match answer {
            Some(a) => match validate_answer(g, &p.question, a) {
                Ok(v) => v,
                Err(e) => {
                    let msg = format!("{e}; {}", describe_question(&p.question));
                    g.pending = Some(p);
                    return Err(Error::Usage(msg));
                }
            },
            None => match &p.question.default {
                Some(d) => match validate_answer(g, &p.question, d) {
                    Ok(v) => v,
                    Err(e) => {
                        let msg = format!(
                            "the rule's default answer is not valid ({e}): a bug in the ruleset; choose instead: {}",
                            describe_question(&p.question)
                        );
                        g.pending = Some(p);
                        return Err(Error::Lua(msg));
                    }
                },
                None => {
                    let msg = format!("this decision has no default: {}", describe_question(&p.question));
                    g.pending = Some(p);
                    return Err(Error::Usage(msg));
                }
            },
        };
        let _ = line;
        let mut lines = p.lines.clone();
        lines.push(format!("choose {value}"));
        let mut out = vec![format!("→ {value}")];
        let r = g.host.resume(&p.thread, value.clone()).map(|s| match s {
            Step::Done(v) => Flow::Done(v.map(|x| vec![format!("result: {x}")]).unwrap_or_default()),
            Step::Ask(q) => Flow::Ask(p.thread.clone(), q),
        });
        let mut reply = g.finish(r, p.before, lines)?;
        out.append(&mut reply.out);
        reply.out = out;
        Ok(reply)
    }

    /// `undo [n]`, `undo --past-dice [n]`. In a two-player game an undo does not take back a
    /// die roll or a draw the players have seen (forced results excepted) unless asked with
    /// `--past-dice`; that undo is itself recorded as a command, with a log entry naming what
    /// it took back. In a sandbox (`free_undo`) undo is free.
    fn cmd_undo(&mut self, rest: &str, line: &str) -> Result<Reply> {
        let free = self.free_undo;
        let g = self.game_mut()?;
        let past = rest.split_whitespace().any(|w| w == "--past-dice");
        if let Some(r) = g.cancel_pending(free, past, line)? {
            return Ok(r);
        }
        let mut past_dice = false;
        let mut n: usize = 1;
        for w in rest.split_whitespace() {
            match w {
                "--past-dice" => past_dice = true,
                w => n = w.parse().map_err(|_| Error::Usage("usage: undo [--past-dice] [n]".into()))?,
            }
        }
        if n == 0 || n > g.history.len() {
            return Err(Error::Usage(format!("cannot undo {n}: {} command(s) to undo", g.history.len())));
        }
        let undone = &g.history[g.history.len() - n..];
        let seen: Vec<String> = undone.iter().flat_map(|e| e.seen.iter().cloned()).collect();
        if seen.is_empty() || free {
            let mut out = Vec::new();
            for _ in 0..n {
                let e = g.history.pop().expect("checked");
                let after = g.snapshot();
                g.restore(e.before.clone());
                out.push(format!("undone: {}", e.lines.join(" / ")));
                g.redo.push((e, after));
            }
            return Ok(Reply::ok(out));
        }
        if !past_dice {
            return Err(Error::Usage(format!(
                "undo would take back what the dice showed: {} — use `undo --past-dice{}` to do it anyway (the log will record it), or play on",
                seen.join(", "),
                if n > 1 { format!(" {n}") } else { String::new() }
            )));
        }
        // an honest undo past the dice: a command of its own, recorded in the log and in saves
        let target = undone[0].before.clone();
        let what: Vec<String> = undone.iter().map(|e| e.lines[0].clone()).collect();
        let before = g.snapshot();
        let mut after = target;
        after.commands = before.commands + 1;
        after.log = before.log.clone();
        after.log.push(crate::state::LogEntry {
            command: after.commands,
            rule: None,
            text: format!("undo past the dice: took back {} and the rolls {}", what.join("; "), seen.join(", ")),
        });
        // the record of rolls keeps what was rolled, even though the game goes back
        after.dice.rolls = before.dice.rolls.clone();
        g.restore(after.clone());
        g.history.push(Entry::new(vec![line.to_string()], before, &after));
        g.redo.clear();
        Ok(Reply::ok(vec![format!("undone past the dice: {} (recorded in the log)", what.join(" / "))]))
    }

    /// `forward [turn N | step ID | end]`: `next` and `auto` until the target (default: the
    /// next step that waits for the players). Each `next` and answer is a command of its own.
    fn cmd_forward(&mut self, rest: &str) -> Result<Reply> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        enum Target {
            Next,
            Turn(i64),
            Step(String),
            End,
        }
        let target = match words.as_slice() {
            [] => Target::Next,
            ["end"] => Target::End,
            ["turn", n] => Target::Turn(n.parse().map_err(|_| Error::Usage(format!("'{n}' is not a turn number")))?),
            ["step", id] => Target::Step(id.to_string()),
            _ => return Err(Error::Usage("usage: forward [turn N | step ID | end]".into())),
        };
        if let Target::Step(id) = &target {
            let g = self.game()?;
            let ids: Vec<String> = g.host.call("step_ids", ())?;
            if !ids.contains(id) {
                return Err(Error::Usage(format!(
                    "no step '{id}' in the sequence of play{}",
                    did_you_mean(id, ids.iter())
                )));
            }
        }
        self.game()?;
        let mut out = Vec::new();
        let mut first = true;
        let mut answered = false;
        for _ in 0..100_000 {
            let (over, turn, step, pending) = {
                let g = self.game()?;
                let s = g.state();
                (s.clock.over.is_some(), s.clock.turn, s.clock.step.clone(), g.pending.is_some())
            };
            if pending {
                let r = self.execute("auto");
                out.push("> auto".to_string());
                out.extend(r.out.into_iter().map(|l| format!("  {l}")));
                if let Status::Error(e) = r.status {
                    return Err(Error::Usage(format!("forward stopped: {e}")));
                }
                answered = true;
                continue;
            }
            let reached = match &target {
                Target::Next => !first || answered,
                Target::Turn(n) => turn >= *n,
                Target::Step(id) => (!first || answered) && step == *id,
                Target::End => false,
            };
            if reached || over {
                break;
            }
            first = false;
            let r = self.execute("next");
            out.push("> next".to_string());
            out.extend(r.out.into_iter().map(|l| format!("  {l}")));
            if let Status::Error(e) = r.status {
                return Err(Error::Usage(format!("forward stopped: {e}")));
            }
        }
        Ok(Reply::ok(out))
    }

    fn cmd_redo(&mut self) -> Result<Reply> {
        self.no_pending()?;
        let g = self.game_mut()?;
        let Some((e, after)) = g.redo.pop() else {
            return Err(Error::Usage("nothing to redo".into()));
        };
        g.restore(after);
        let out = vec![format!("redone: {}", e.lines.join(" / "))];
        g.history.push(e);
        Ok(Reply::ok(out))
    }

    fn cmd_help(&self, rest: &str) -> Vec<String> {
        let verbs: BTreeMap<String, crate::lua::VerbSpec> =
            self.game.as_ref().map(|g| g.shared.borrow().verbs.clone()).unwrap_or_default();
        let topic = rest.trim();
        if topic.is_empty() {
            let mut out = Vec::new();
            if !verbs.is_empty() {
                out.push("rules (this game):".to_string());
                for v in verbs.values() {
                    out.push(format!(
                        "  {:<36} {}{}",
                        v.usage,
                        v.help,
                        if v.rule.is_empty() { String::new() } else { format!(" [{}]", v.rule) }
                    ));
                }
            }
            let overlays: Vec<crate::lua::VerbSpec> =
                self.game.as_ref().map(|g| g.shared.borrow().overlays.values().cloned().collect()).unwrap_or_default();
            if !overlays.is_empty() {
                out.push("map overlays (this game):".to_string());
                for v in &overlays {
                    out.push(format!("  {:<36} {}", v.usage, v.help));
                }
            }
            for group in ["game", "view", "history", "files", "designer"] {
                out.push(format!("{group}:"));
                for b in BUILTINS.iter().filter(|b| b.3 == group) {
                    out.push(format!("  {:<36} {}", b.1, b.2));
                }
            }
            out.push("Unit and hex ids may be abbreviated to a unique prefix; hexes may be named by place.".into());
            return out;
        }
        if let Some(v) = verbs.get(topic) {
            let mut out = vec![format!("usage: {}", v.usage), v.help.clone()];
            if !v.example.is_empty() {
                out.push(format!("example: {}", v.example));
            }
            if !v.rule.is_empty() {
                out.push(format!("rules: {}", v.rule));
            }
            if !v.phases.is_empty() {
                out.push(format!("allowed in: {}", v.phases.join(", ")));
            }
            return out;
        }
        if let Some(b) = BUILTINS.iter().find(|b| b.0 == topic) {
            let mut out = vec![format!("usage: {}", b.1), b.2.to_string()];
            if let Some((_, e)) = EXAMPLES.iter().find(|e| e.0 == topic) {
                out.push(format!("example: {e}"));
            }
            return out;
        }
        let overlays: BTreeMap<String, crate::lua::VerbSpec> =
            self.game.as_ref().map(|g| g.shared.borrow().overlays.clone()).unwrap_or_default();
        if let Some(v) = overlays.get(topic) {
            let mut out = vec![format!("usage: {}", v.usage), v.help.clone()];
            if !v.rule.is_empty() {
                out.push(format!("rules: {}", v.rule));
            }
            return out;
        }
        let names = self.command_names();
        vec![format!("no command '{topic}'{}", did_you_mean(topic, names.iter()))]
    }

    fn cmd_map(&mut self, rest: &str) -> Result<Reply> {
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        let mut svg = None;
        if words.first() == Some(&"--svg") {
            let f = words.get(1).ok_or_else(|| Error::Usage("usage: map --svg FILE [<overlay> <args>]".into()))?;
            svg = Some(scratch_path(&self.scratch, f));
            words.drain(..2);
        }
        let g = self.game()?;
        let overlays = g.shared.borrow().overlays.clone();
        let map = g.scenario.map.clone();
        let mut center = None;
        let mut radius = 3;
        let mut labels = BTreeMap::new();
        let mut title = g.scenario.name.clone();
        if let Some(spec) = words.first().and_then(|w| overlays.get(*w)) {
            let args = self.parse_args(spec, &words[1..].join(" "))?;
            let g = self.game()?;
            for a in &args {
                if center.is_some() {
                    break;
                }
                match a {
                    Value::String(s) => center = map.grid.parse(&s.to_string_lossy()),
                    Value::UserData(u) => {
                        if let Ok(r) = u.borrow::<crate::lua::UnitRef>() {
                            center = g.state().units.get(&r.0).and_then(|u| u.hex());
                        }
                    }
                    _ => {}
                }
            }
            let (r, _) = g.read_only(|g| g.host.overlay(&spec.name, args));
            for (k, v) in r? {
                let h = map
                    .grid
                    .parse(&k)
                    .ok_or_else(|| Error::Lua(format!("overlay {}: '{k}' is not a hex", spec.name)))?;
                labels.insert(h, v);
            }
            title = format!("{title} — {}", words.join(" "));
            radius = 4;
            if center.is_none() {
                // centre on what the overlay marks
                center = labels.keys().nth(labels.len() / 2).copied();
            }
        } else if let Some(w) = words.first() {
            let g = self.game()?;
            let s = g.state();
            center = Some(match resolve_unit(&s, w) {
                Ok(id) => s.units[&id].hex().ok_or_else(|| Error::Usage(format!("{id} is not on the map")))?,
                Err(ue) => resolve_hex(&map, w).map_err(|he| {
                    let names: Vec<String> = overlays.keys().cloned().collect();
                    Error::Usage(format!(
                        "{ue}; {he}{}",
                        if names.is_empty() { String::new() } else { format!("; overlays: {}", names.join(", ")) }
                    ))
                })?,
            });
            if let Some(r) = words.get(1) {
                radius = r.parse().map_err(|_| Error::Usage(format!("'{r}' is not a radius (a whole number)")))?;
            }
        }
        let g = self.game()?;
        let hidden = g.hidden_units();
        let state = g.state();
        if let Some(file) = svg {
            let pic = crate::render::svg::SvgMap {
                map: &map,
                state: &state,
                overlay: labels,
                hidden: hidden.clone(),
                colors: &map.colors,
                title,
            };
            save::write_atomic(&file, pic.render().as_bytes())?;
            return Ok(Reply::ok(vec![format!("map drawn to {}", rest.split_whitespace().nth(1).unwrap_or_default())]));
        }
        let hexes = match center {
            Some(c) => crate::render::text::around(&map, c, radius, self.width),
            None => {
                // the whole map if it fits, else the part around the middle
                let all: std::collections::BTreeSet<HexId> = map.hexes.keys().copied().collect();
                let cols =
                    all.iter().map(|h| h.col).max().unwrap_or(0) - all.iter().map(|h| h.col).min().unwrap_or(0) + 1;
                if (cols as usize) * 6 + 3 <= self.width {
                    all
                } else {
                    let mid = *all.iter().nth(all.len() / 2).unwrap_or(&HexId::new(1, 1));
                    crate::render::text::around(&map, mid, 30, self.width)
                }
            }
        };
        let tm = crate::render::text::TextMap {
            map: &map,
            state: &state,
            hexes,
            overlay: labels,
            hidden,
            color: self.color,
        };
        Ok(Reply::ok(tm.render()))
    }

    fn cmd_status(&self) -> Result<Reply> {
        let g = self.game()?;
        let s = g.state();
        let c = &s.clock;
        let mut out = vec![
            format!("{} ({}) — rules {} {}", g.scenario.name, g.scenario.id, g.ruleset.name, g.ruleset.version),
            format!(
                "turn {}{}{}",
                c.turn,
                if c.phase.is_empty() { String::new() } else { format!(", {}", c.phase) },
                c.side.as_ref().map(|s| format!(", {s} to act")).unwrap_or_default()
            ),
        ];
        if let Some(o) = &c.over {
            out.push(format!("game over: {o}"));
        }
        if let Some(p) = &g.pending {
            out.push(format!("waiting for a decision: {}", describe_question(&p.question)));
        }
        if !s.options.is_empty() {
            out.push(format!("options: {}", s.options.iter().cloned().collect::<Vec<_>>().join(", ")));
        }
        out.push(format!(
            "seed {}, {} roll(s) so far{}",
            s.dice.seed,
            s.dice.rolls.len(),
            if s.dice.forced.is_empty() {
                String::new()
            } else {
                format!(", forced next: {}", s.dice.forced.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(" "))
            }
        ));
        out.push(format!("{} command(s) in history, {} to redo", g.history.len(), g.redo.len()));
        for (k, v) in &s.tracks {
            out.push(format!("track {k}: {v}"));
        }
        Ok(Reply::ok(out))
    }

    fn cmd_show(&self, rest: &str) -> Result<Reply> {
        let g = self.game()?;
        let text = rest.trim();
        if text.is_empty() {
            return Err(Error::Usage("usage: show <hex|unit|place>".into()));
        }
        let s = g.state();
        let map = &g.scenario.map;
        let unit = resolve_unit(&s, text);
        let hex = resolve_hex(map, text);
        let viewer = s.clock.side.clone();
        let fog = g.shared.borrow().fog;
        // fog of war: an enemy unit that is not on top of its stack cannot be examined
        let hidden = |u: &crate::state::Unit| -> bool {
            fog && viewer.as_ref().is_some_and(|v| *v != u.side)
                && u.hex().is_some_and(|h| s.stack(h).first().is_some_and(|top| top.id != u.id))
        };
        let (mut out, describe) = match (unit, hex) {
            (Ok(id), _) => {
                let u = &s.units[&id];
                if hidden(u) {
                    return Err(Error::Usage(format!("{id} is hidden under the top of its stack (fog of war)")));
                }
                let mut out = vec![format!(
                    "{} — {} ({}{})",
                    u.id,
                    u.name,
                    u.side,
                    if u.kind.is_empty() { String::new() } else { format!(", {}", u.kind) }
                )];
                out.push(match &u.loc {
                    Location::Hex(h) => format!(
                        "at {}{}",
                        g.fmt_hex(*h),
                        map.hexes.get(h).and_then(|i| i.name.clone()).map(|n| format!(" ({n})")).unwrap_or_default()
                    ),
                    Location::Box(b) => format!("in box {b}"),
                });
                out.push(format!("step {} of {}", u.step + 1, u.steps.len()));
                let vals: Vec<String> = u
                    .values()
                    .iter()
                    .map(|(k, v)| {
                        format!("{k} {}{}", json_text(v), if u.approx.contains(k) { " (approx.)" } else { "" })
                    })
                    .collect();
                out.push(format!("printed: {}", vals.join(", ")));
                if !u.markers.is_empty() {
                    out.push(format!("markers: {}", crate::text::markers(&u.markers).join(", ")));
                }
                if !u.attrs.is_empty() {
                    out.push(
                        u.attrs
                            .iter()
                            .map(|(k, v)| format!("{k} {}", json_text(v)))
                            .collect::<Vec<_>>()
                            .join(", ")
                            .to_string(),
                    );
                }
                if !u.approx.is_empty() {
                    out.push(format!(
                        "approximated values (not in the rulebook): {}",
                        u.approx.iter().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
                (out, Some(("unit", id)))
            }
            (Err(_), Ok(h)) => {
                let info = &map.hexes[&h];
                let mut out = vec![format!(
                    "hex {}{}: {}",
                    g.fmt_hex(h),
                    info.name.as_ref().map(|n| format!(" ({n})")).unwrap_or_default(),
                    info.terrain
                )];
                if !info.features.is_empty() {
                    out.push(format!("features: {}", info.features.iter().cloned().collect::<Vec<_>>().join(", ")));
                }
                for (k, v) in &info.values {
                    out.push(format!("{k}: {v}"));
                }
                for (d, n) in map.neighbours(h) {
                    let mut f: Vec<String> =
                        map.side_features(h, n).map(|x| x.iter().cloned().collect()).unwrap_or_default();
                    if let Some(m) = s.side_markers.get(&crate::hex::Hexside::new(h, n)) {
                        f.extend(m.keys().cloned());
                    }
                    if !f.is_empty() {
                        out.push(format!(
                            "hexside {} (to {}): {}",
                            map.drawn_dir(d).name(),
                            g.fmt_hex(n),
                            f.join(", ")
                        ));
                    }
                }
                if let Some(m) = s.hex_markers.get(&h) {
                    out.push(format!("markers: {}", crate::text::markers(m).join(", ")));
                }
                let stack = s.stack(h);
                if stack.is_empty() {
                    out.push("no units".into());
                } else {
                    let shown: Vec<String> =
                        stack.iter().filter(|u| !hidden(u)).map(|u| format!("{} [{}]", u.id, u.side)).collect();
                    let concealed = stack.len() - shown.len();
                    out.push(format!(
                        "stack (top first): {}{}",
                        shown.join(", "),
                        if concealed > 0 {
                            format!(" and {concealed} more unit(s) hidden by fog of war")
                        } else {
                            String::new()
                        }
                    ));
                }
                (out, Some(("hex", g.fmt_hex(h))))
            }
            (Err(ue), Err(he)) => return Err(Error::Usage(format!("{ue}; {he}"))),
        };
        drop(s);
        // what the rules say about it: current values with their modifiers, ZOC, control...
        if let Some((what, key)) = describe {
            let (r, _) = g.read_only(|g| {
                let arg = if what == "unit" {
                    crate::lua::unit_handle(&g.host.lua, key).map(Value::UserData)
                } else {
                    g.host.lua.create_string(key).map(Value::String)
                }
                .map_err(crate::lua::convert_error)?;
                g.host.describe(what, arg)
            });
            out.extend(r?);
        }
        Ok(Reply::ok(out))
    }

    fn cmd_units(&self, rest: &str) -> Result<Reply> {
        let g = self.game()?;
        let s = g.state();
        let f = rest.trim().to_lowercase();
        let mut out = Vec::new();
        let fog = g.shared.borrow().fog;
        let viewer = s.clock.side.clone();
        for u in s.units.values() {
            let concealed = fog
                && viewer.as_ref().is_some_and(|v| *v != u.side)
                && u.hex().is_some_and(|h| s.stack(h).first().is_some_and(|top| top.id != u.id));
            if concealed {
                continue;
            }
            let loc = match &u.loc {
                Location::Hex(h) => g.fmt_hex(*h),
                Location::Box(b) => format!("[{b}]"),
            };
            let keep = f.is_empty()
                || u.side.to_lowercase() == f
                || matches!(&u.loc, Location::Box(b) if b.to_lowercase() == f)
                || loc == f
                || u.id.to_lowercase().starts_with(&f)
                || u.kind.to_lowercase() == f;
            if keep {
                let vals: Vec<String> = u.values().iter().map(|(k, v)| format!("{k} {}", json_text(v))).collect();
                out.push(format!(
                    "{:<10} {:<8} {:<10} step {}/{}  {}",
                    u.id,
                    u.side,
                    loc,
                    u.step + 1,
                    u.steps.len(),
                    vals.join(" ")
                ));
            }
        }
        if out.is_empty() {
            out.push(format!("no unit matches '{}'", rest.trim()));
        }
        Ok(Reply::ok(out))
    }

    fn cmd_log(&self, rest: &str) -> Result<Reply> {
        let g = self.game()?;
        let n: usize = if rest.trim().is_empty() {
            10
        } else {
            rest.trim().parse().map_err(|_| Error::Usage("usage: log [n]".into()))?
        };
        let s = g.state();
        let start = s.log.len().saturating_sub(n);
        Ok(Reply::ok(
            s.log
                .since(start)
                .map(|e| {
                    format!(
                        "#{:<4} {}{}",
                        e.command,
                        e.rule.as_ref().map(|r| format!("[{r}] ")).unwrap_or_default(),
                        e.text
                    )
                })
                .collect(),
        ))
    }

    fn cmd_why(&self) -> Result<Reply> {
        let g = self.game()?;
        let s = g.state();
        let Some(last) = s.log.iter().rev().find(|e| e.rule.is_some()).map(|e| e.command) else {
            return Ok(Reply::ok(vec!["no ruling yet".into()]));
        };
        let entries: Vec<_> = s.log.iter().filter(|e| e.command == last).collect();
        let mut out = vec![format!("ruling of command #{last}:")];
        for (i, e) in entries.iter().enumerate() {
            out.push(format!("{:>3}. {:<10} {}", i + 1, e.rule.clone().unwrap_or_default(), e.text));
        }
        Ok(Reply::ok(out))
    }

    /// Enumerates every outcome of a combat verb (marked `odds = true`) by forcing each
    /// sequence of die faces in turn; nothing is committed.
    fn cmd_odds(&mut self, rest: &str) -> Result<Reply> {
        let g = self.game()?;
        let verbs: Vec<crate::lua::VerbSpec> = g.shared.borrow().verbs.values().filter(|v| v.odds).cloned().collect();
        let (spec, args_text) = match verbs.as_slice() {
            [] => {
                return Err(Error::Usage("this ruleset has no verb that `odds` can evaluate".into()));
            }
            [one] => {
                let (first, tail) = split_first(rest);
                if first == one.name { (one.clone(), tail.to_string()) } else { (one.clone(), rest.to_string()) }
            }
            many => {
                let (first, tail) = split_first(rest);
                let fits: Vec<&crate::lua::VerbSpec> =
                    many.iter().filter(|v| self.parse_args(v, rest).is_ok()).collect();
                match many.iter().find(|v| v.name == first) {
                    Some(v) => (v.clone(), tail.to_string()),
                    None if fits.len() == 1 => (fits[0].clone(), rest.to_string()),
                    None => {
                        return Err(Error::Usage(format!(
                            "odds <{}> <arguments>",
                            many.iter().map(|v| v.name.clone()).collect::<Vec<_>>().join("|")
                        )));
                    }
                }
            }
        };
        let g = self.game()?;
        let before = g.snapshot();
        let mut prefix: Vec<u32> = Vec::new();
        let mut results: BTreeMap<String, f64> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut explanation: Vec<String> = Vec::new();
        let mut paths: BTreeMap<String, Vec<Vec<u32>>> = BTreeMap::new();
        let mut runs = 0;
        let outcome = loop {
            runs += 1;
            if runs > 20_000 {
                break Err(Error::Usage("odds: too many outcomes to enumerate (over 20000 dice sequences)".into()));
            }
            let args = match self.parse_args(&spec, &args_text) {
                Ok(a) => a,
                Err(e) => break Err(e),
            };
            let g = self.game()?;
            {
                let mut w = g.shared.borrow_mut();
                w.state = before.clone();
                w.state.dice.forced = prefix.iter().map(|&v| crate::dice::Forced::Face(v)).collect();
                w.state.dice.probe = Some(Vec::new());
                w.probe = true;
                w.probe_first_roll_log = None;
                w.out.clear();
            }
            let log_start = before.log.len();
            let mut step = g.host.start("dispatch", (spec.name.clone(), mlua::MultiValue::from_vec(args)));
            // answer questions with their defaults
            let mut guard = 0;
            let result = loop {
                match step {
                    Ok((t, Step::Ask(q))) if guard < 100 => {
                        guard += 1;
                        let ans = q.default.clone().unwrap_or_default();
                        step = g.host.resume(&t, ans).map(|s| (t, s));
                    }
                    Ok((_, Step::Ask(q))) => {
                        break Err(Error::Usage(format!("odds: too many questions ({})", q.prompt)));
                    }
                    Ok((_, Step::Done(v))) => break Ok(v.unwrap_or_else(|| "(no result)".into())),
                    Err(e) => break Err(e),
                }
            };
            let (faces, first_roll) = {
                let w = g.shared.borrow();
                (w.state.dice.probe.clone().unwrap_or_default(), w.probe_first_roll_log)
            };
            let result = match result {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            if runs == 1 {
                let w = g.shared.borrow();
                let end = first_roll.unwrap_or(w.state.log.len());
                explanation = w
                    .state
                    .log
                    .since(log_start)
                    .take(end.saturating_sub(log_start))
                    .map(|e| format!("{}{}", e.rule.as_ref().map(|r| format!("[{r}] ")).unwrap_or_default(), e.text))
                    .collect();
            }
            // the probability of this sequence, and the next sequence (odometer over faces)
            let mut values: Vec<u32> = prefix.clone();
            values.resize(faces.len(), 1);
            let p: f64 = faces.iter().map(|&f| 1.0 / f as f64).product();
            if !results.contains_key(&result) {
                order.push(result.clone());
            }
            paths.entry(result.clone()).or_default().push(values.clone());
            *results.entry(result).or_insert(0.0) += p;
            let mut next = None;
            for i in (0..faces.len()).rev() {
                if values[i] < faces[i] {
                    let mut v = values[..i].to_vec();
                    v.push(values[i] + 1);
                    next = Some(v);
                    break;
                }
            }
            match next {
                Some(n) => prefix = n,
                None => break Ok(()),
            }
        };
        let g = self.game()?;
        {
            let mut w = g.shared.borrow_mut();
            w.state = before;
            w.probe = false;
            w.out.clear();
        }
        outcome?;
        let mut out = explanation;
        out.push(format!("{:<24} {:>9}  {:<8} {}", "result", "chance", "", "dice"));
        for r in &order {
            let p = results[r];
            out.push(format!(
                "{:<24} {:>8.2}%  {:<8} {}",
                r,
                p * 100.0,
                format!("({})", fraction(p)),
                dice_text(&paths[r])
            ));
        }
        Ok(Reply::ok(out))
    }
}

/// `@/name` is a file in the session's scratch folder (scripts); anything else a plain path.
fn scratch_path(scratch: &Option<PathBuf>, p: &str) -> PathBuf {
    match (p.strip_prefix("@/"), scratch) {
        (Some(rest), Some(dir)) => dir.join(rest),
        _ => PathBuf::from(p),
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// The dice that give a result: `1-2, 6` for one die, `3+5, 4+4` for a few, else a count.
fn dice_text(paths: &[Vec<u32>]) -> String {
    if paths.iter().all(|p| p.is_empty()) {
        return "no roll".into();
    }
    if paths.iter().all(|p| p.len() == 1) {
        let mut faces: Vec<u32> = paths.iter().map(|p| p[0]).collect();
        faces.sort();
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < faces.len() {
            let mut j = i;
            while j + 1 < faces.len() && faces[j + 1] == faces[j] + 1 {
                j += 1;
            }
            parts.push(if i == j { faces[i].to_string() } else { format!("{}-{}", faces[i], faces[j]) });
            i = j + 1;
        }
        return parts.join(", ");
    }
    if paths.len() <= 6 {
        return paths
            .iter()
            .map(|p| p.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("+"))
            .collect::<Vec<_>>()
            .join(", ");
    }
    format!("{} combinations", paths.len())
}

/// Probability as a fraction over 6^k or 36 when exact, e.g. `7/36`.
fn fraction(p: f64) -> String {
    for d in [6u64, 36, 216, 1296, 10, 20, 100, 2, 3, 4, 8, 12, 24, 48] {
        let n = p * d as f64;
        if (n - n.round()).abs() < 1e-9 {
            let n = n.round() as u64;
            let g = crate::text::gcd(n, d);
            return format!("{}/{}", n / g, d / g);
        }
    }
    format!("{p:.4}")
}

pub fn describe_question(q: &Question) -> String {
    let mut s = q.prompt.clone();
    if let Some(r) = &q.rule {
        s = format!("{s} [{r}]");
    }
    if !q.options.is_empty() {
        s.push_str(&format!(" — options: {}", q.options.join(", ")));
    } else if q.kind != "text" {
        s.push_str(&format!(" — a {}", q.kind));
    }
    if let Some(d) = &q.default {
        s.push_str(&format!(" (auto: {d})"));
    }
    s
}

fn validate_answer(g: &Game, q: &Question, a: &str) -> std::result::Result<String, String> {
    let a = a.trim();
    if a.is_empty() {
        return Err("choose what?".into());
    }
    if !q.options.is_empty() {
        return match crate::text::pick(a, q.options.iter().map(String::as_str)) {
            crate::text::Pick::One(o) => Ok(o.to_string()),
            crate::text::Pick::None(_) => Err(format!("'{a}' is not one of the options")),
            crate::text::Pick::Many(hits) => Err(format!("'{a}' could be {}", hits.join(", "))),
        };
    }
    let w = g.shared.borrow();
    match q.kind.as_str() {
        "unit" => resolve_unit(&w.state, a),
        "hex" => resolve_hex(&w.map, a).map(|h| w.map.fmt(h)),
        "number" => match a.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(a.to_string()),
            _ => Err(format!("'{a}' is not a number")),
        },
        "yesno" => match a.to_lowercase().as_str() {
            "y" | "yes" => Ok("yes".into()),
            "n" | "no" => Ok("no".into()),
            _ => Err("answer yes or no".into()),
        },
        _ => Ok(a.to_string()),
    }
}

/// What a rule thread did.
pub enum Flow {
    Done(Vec<String>),
    Ask(Thread, Question),
}

impl Game {
    /// Creates a game from a scenario name: loads scenario and ruleset, runs the ruleset's
    /// start (which may ask set-up questions).
    pub fn create(
        root: &Path,
        name: &str,
        seed: u64,
        options: &[String],
        new_line: &str,
        cfg: HostConfig,
    ) -> Result<(Game, Vec<String>)> {
        let (file, lib, id) = resolve_scenario(root, name)?;
        let scen = scenario::load(&file, &id)?;
        for o in options {
            if !scen.options.contains_key(o) {
                return Err(Error::Usage(format!(
                    "scenario {} has no option '{o}' (options: {})",
                    scen.id,
                    if scen.options.is_empty() {
                        "none".to_string()
                    } else {
                        scen.options.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                )));
            }
        }
        let ruleset = Ruleset::load(&lib, &scen.ruleset)?;
        let mut state = scen.initial.clone();
        state.dice = crate::dice::Dice::new(seed);
        state.options = options.iter().cloned().collect();
        let mut g = Game::assemble(Arc::new(scen), ruleset, state, new_line, cfg)?;
        let before = g.snapshot();
        let r = g.start_thread("start", ());
        let reply = g.finish(r, before, vec![new_line.to_string()])?;
        let mut out = vec![format!(
            "{} — {} (rules {} {}), seed {seed}",
            g.scenario.name, g.scenario.id, g.ruleset.name, g.ruleset.version
        )];
        out.extend(reply.out);
        Ok((g, out))
    }

    pub fn assemble(
        scenario: Arc<Scenario>,
        ruleset: Ruleset,
        state: GameState,
        new_line: &str,
        cfg: HostConfig,
    ) -> Result<Game> {
        let world = World {
            state,
            map: scenario.map.clone(),
            scenario: scenario.clone(),
            out: vec![],
            verbs: BTreeMap::new(),
            overlays: BTreeMap::new(),
            fog: false,
            read_only: false,
            loading: false,
            probe: false,
            probe_first_roll_log: None,
        };
        let shared: Shared = Rc::new(RefCell::new(world));
        let host = Host::new(&ruleset, shared.clone(), cfg)?;
        shared.borrow_mut().out.clear();
        Ok(Game {
            scenario,
            ruleset,
            host,
            shared,
            new_line: new_line.to_string(),
            history: vec![],
            redo: vec![],
            pending: None,
            base: None,
            saved_len: 0,
            setup: vec![],
        })
    }

    fn start_thread(&mut self, entry: &str, args: impl mlua::IntoLuaMulti) -> Result<Flow> {
        self.shared.borrow_mut().state.commands += 1;
        match self.host.start(entry, args)? {
            (_, Step::Done(v)) => Ok(Flow::Done(v.map(|x| vec![format!("result: {x}")]).unwrap_or_default())),
            (t, Step::Ask(q)) => Ok(Flow::Ask(t, q)),
        }
    }

    /// Commits, suspends or rolls back a command.
    fn finish(&mut self, r: Result<Flow>, before: GameState, lines: Vec<String>) -> Result<Reply> {
        match r {
            Err(e) => {
                let out = self.take_out();
                self.restore(before);
                self.shared.borrow_mut().out = out;
                Err(e)
            }
            Ok(Flow::Ask(thread, q)) => {
                let mut out = self.take_out();
                out.push(format!("? {}", describe_question(&q)));
                self.pending = Some(Pending { thread, question: q, before, lines });
                Ok(Reply::ok(out))
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
                    self.history.push(Entry::new(lines, before, &after));
                    self.redo.clear();
                }
                Ok(Reply::ok(out))
            }
        }
    }

    /// Abandons the command waiting for a decision (`cancel`, or `undo` while one waits). If
    /// it already showed unforced dice, that needs `--past-dice` (outside a sandbox), and is
    /// then recorded like any undo past the dice. None when nothing is pending.
    fn cancel_pending(&mut self, free: bool, past_dice: bool, line: &str) -> Result<Option<Reply>> {
        let Some(p) = self.pending.take() else { return Ok(None) };
        let now = self.snapshot();
        let seen: Vec<String> = now
            .dice
            .rolls
            .since(p.before.dice.rolls.len())
            .filter(|r| !r.forced)
            .map(|r| format!("{} ({}: {})", r.purpose, r.what, r.result))
            .collect();
        if seen.is_empty() || free {
            self.restore(p.before);
            self.take_out();
            return Ok(Some(Reply::ok(vec![format!("cancelled the pending command: {}", p.lines[0])])));
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
        let mut after = p.before.clone();
        after.commands = now.commands + 1;
        after.log = now.log.clone();
        after.log.push(crate::state::LogEntry {
            command: after.commands,
            rule: None,
            text: format!("undo past the dice: took back {} and the rolls {}", p.lines[0], seen.join(", ")),
        });
        after.dice.rolls = now.dice.rolls.clone();
        self.restore(after.clone());
        self.take_out();
        let mut lines = p.lines.clone();
        lines.push(line.to_string());
        self.history.push(Entry::new(lines, p.before, &after));
        self.redo.clear();
        Ok(Some(Reply::ok(vec![format!("cancelled past the dice: {} (recorded in the log)", p.lines[0])])))
    }

    /// Lines of the pending command so far (for saves).
    pub fn pending_lines(&self) -> Vec<String> {
        self.pending.as_ref().map(|p| p.lines.clone()).unwrap_or_default()
    }

    pub fn format_cost(c: i64) -> String {
        fmt_cost(c)
    }
}

/// `umpire check PATH`: validates a ruleset folder (its Lua compiles, its scenarios load and
/// start) or a scenario file, without playing. Every problem is reported.
pub fn check_path(p: &Path) -> Result<Vec<String>> {
    let mut ok = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let limits = HostConfig { limits: Limits::default(), reserved: is_builtin };
    if p.is_dir() && p.join("ruleset.toml").is_file() {
        let dir = p.canonicalize().map_err(|e| Error::io(p, e))?;
        let id = dir.file_name().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let root = dir.parent().and_then(|d| d.parent()).map(Path::to_path_buf).unwrap_or_default();
        let rs = Ruleset::load(&root, &id)?;
        // every Lua file compiles
        let lua =
            mlua::Lua::new_with(mlua::StdLib::NONE, mlua::LuaOptions::new()).map_err(crate::lua::convert_error)?;
        let mut files = Vec::new();
        collect_lua(&dir, &mut files);
        files.sort();
        for f in &files {
            let src = std::fs::read_to_string(f).map_err(|e| Error::io(f, e))?;
            let name = crate::lua::display_path(&root, f);
            if let Err(e) =
                lua.load(src).set_name(format!("@{name}")).set_mode(mlua::chunk::ChunkMode::Text).into_function()
            {
                problems.push(crate::lua::convert_error(e).to_string().trim_start_matches("rule error: ").to_string());
            }
        }
        ok.push(format!("ok: ruleset {} {} ({} Lua files)", rs.name, rs.version, files.len()));
        let default = root.join("scenarios").join(&id).join(format!("{}.toml", rs.default_scenario));
        if !default.is_file() {
            problems.push(format!(
                "rulesets/{id}/ruleset.toml: the default scenario '{}' does not exist (scenarios/{id}/{}.toml)",
                rs.default_scenario, rs.default_scenario
            ));
        }
        // every scenario of this game loads and starts
        let sdir = root.join("scenarios").join(&id);
        let mut scen: Vec<PathBuf> = std::fs::read_dir(&sdir)
            .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect())
            .unwrap_or_default();
        scen.sort();
        for s in scen {
            match Game::create(&root, &s.display().to_string(), 1, &[], "new", limits) {
                Ok(_) => ok.push(format!("ok: scenario {}", s.display())),
                Err(e) => problems.push(e.to_string()),
            }
        }
    } else if p.is_file() {
        let root = find_root();
        match Game::create(&root, &p.display().to_string(), 1, &[], "new", limits) {
            Ok((g, _)) => ok.push(format!(
                "ok: scenario {} ({} units, {} hexes)",
                g.scenario.id,
                g.state().units.len(),
                g.scenario.map.hexes.len()
            )),
            Err(e) => problems.push(e.to_string()),
        }
    } else {
        return Err(Error::NotFound(format!(
            "{}: neither a ruleset folder (with ruleset.toml) nor a scenario file",
            p.display()
        )));
    }
    if problems.is_empty() { Ok(ok) } else { Err(Error::State(problems.join("\n"))) }
}

fn collect_lua(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                collect_lua(&p, out);
            } else if p.extension().is_some_and(|x| x == "lua") {
                out.push(p);
            }
        }
    }
}

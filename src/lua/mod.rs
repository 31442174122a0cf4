//! The sandboxed Lua 5.4 host that runs a ruleset.
//!
//! Rules are untrusted code. The host loads only `table`, `string`, `math` (without `random`),
//! `utf8` and `coroutine`; `load` takes text chunks only; `require` resolves inside the
//! ruleset's folder and `rulesets/lib/`; an instruction budget and a memory limit stop runaway
//! code with an error naming `file:line`. Every chunk is named by its path so errors carry
//! `file:line`.
//!
//! The Lua VM holds no game state: everything persistent is in [`World::state`], reached
//! through the API modules below (one per area, each with a `register`). Once the rule files
//! have loaded, every table they reach is sealed read-only (`seal`, and `I.freeze` in the
//! prelude), so a command cannot leave anything behind in the VM that undo, saves and replays
//! would not see. A reload builds a new VM over the same world.

mod actions;
mod charged;
mod chunks;
pub mod coverage;
mod cups;
mod dice;
mod fast;
mod handle;
mod log;
mod map;
mod patterns;
pub mod profile;
mod seal;
mod sides;
mod tracks;
mod umpire;
mod units;
mod validate;
mod vars;
mod views;

use crate::error::Error;
use crate::map::Map;
use crate::ruleset::Ruleset;
use crate::scenario::Scenario;
use crate::state::{GameState, LogEntry};
use mlua::chunk::ChunkMode;
use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Thread, Value, VmState};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

pub use actions::{Action, Evaluation, Figure, Filter as ActionFilter, groups as action_groups};
pub use umpire::{ArgKind, ArgSpec, VerbSpec};
pub use units::UnitRef;
pub use views::TableView;

/// How often the instruction-budget hook runs (and [`profile`] samples): every so many Lua
/// instructions.
pub const PROFILE_EVERY: u64 = 1_000;

/// Everything the rules can reach, shared between the session and the Lua API.
pub struct World {
    pub state: GameState,
    pub map: Arc<Map>,
    pub scenario: Arc<Scenario>,
    /// Lines printed by the current command.
    pub out: Vec<String>,
    /// Verbs registered by the ruleset (`umpire.command`).
    pub verbs: BTreeMap<String, VerbSpec>,
    /// Map overlays registered by the ruleset (`umpire.overlay`).
    pub overlays: BTreeMap<String, VerbSpec>,
    /// True while `odds` enumerates a command's outcomes: nothing is committed.
    pub probe: bool,
    /// Rolls made so far in this probe run (index into the dice record).
    pub probe_first_roll_log: Option<usize>,
    /// In a probe run, the distribution `umpire.outcome_of` found: each outcome with its
    /// probability and the die faces that give it.
    pub probe_outcomes: Option<OutcomeTable>,
    /// Fog of war (`umpire.fog_of_war(true)`): players see only the top unit of enemy stacks.
    pub fog: bool,
    /// A look-only command is running (`=`, `expect`, `show`, overlays): no dice may be rolled.
    pub read_only: bool,
    /// The rule files are being loaded: only then may verbs, overlays and the sequence be
    /// registered (the VM holds no game state, so nothing may be registered during play).
    pub loading: bool,
}

pub type Shared = Rc<RefCell<World>>;

/// Set by the front end when the player presses Ctrl-C while a command runs: the instruction
/// hook stops the rule code at its next count, and the command fails, taken back as any failed
/// command is. Cleared before each command.
static INTERRUPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks the running rule code to stop (Ctrl-C); safe from a signal handler's thread.
pub fn interrupt() {
    INTERRUPT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Forgets an interrupt asked before the next command.
pub fn clear_interrupt() {
    INTERRUPT.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// Whether an interrupt was asked (`forward` stops between its commands).
pub fn interrupted() -> bool {
    INTERRUPT.load(std::sync::atomic::Ordering::Relaxed)
}

/// App data of the VM: rule code ran out of memory (garbage is collected before the next command).
struct OutOfMemory;

/// The names of the session's built-in commands (app data of the VM).
pub(crate) struct Reserved(pub fn(&str) -> bool);

/// What loading the rule files registers in the world (verbs, overlays, fog of war): a reload
/// starts it afresh, and puts the old one back if the new rules fail to load.
pub struct Registrations {
    verbs: BTreeMap<String, VerbSpec>,
    overlays: BTreeMap<String, VerbSpec>,
    fog: bool,
}

impl World {
    /// A world over `state`, with nothing registered yet.
    pub fn new(state: GameState, scenario: Arc<Scenario>) -> World {
        World {
            state,
            map: scenario.map.clone(),
            scenario,
            out: vec![],
            verbs: BTreeMap::new(),
            overlays: BTreeMap::new(),
            fog: false,
            read_only: false,
            loading: false,
            probe: false,
            probe_first_roll_log: None,
            probe_outcomes: None,
        }
    }

    /// Takes what the rule files registered, leaving the world as before any load.
    pub fn take_registrations(&mut self) -> Registrations {
        Registrations {
            verbs: std::mem::take(&mut self.verbs),
            overlays: std::mem::take(&mut self.overlays),
            fog: std::mem::replace(&mut self.fog, false),
        }
    }

    /// Puts back registrations taken by [`World::take_registrations`].
    pub fn put_registrations(&mut self, r: Registrations) {
        self.verbs = r.verbs;
        self.overlays = r.overlays;
        self.fog = r.fog;
    }

    /// Appends a log entry for the current command and echoes it.
    pub fn log(&mut self, rule: Option<String>, text: String) {
        let line = match &rule {
            Some(r) => format!("[{r}] {text}"),
            None => text.clone(),
        };
        self.out.push(line);
        let command = self.state.commands;
        self.state.log.push(LogEntry { command, rule, text });
    }

    pub fn fmt_hex(&self, h: crate::hex::HexId) -> String {
        self.map.fmt(h)
    }
}

/// Resource limits for rule code.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Lua VM instructions per command (one resume); searches are charged too.
    pub instructions: u64,
    /// Bytes of Lua memory.
    pub memory: usize,
    /// Wall-clock seconds per command: a last resort for time spent outside the VM (C
    /// functions), far above what `instructions` takes on a slow machine, so that it never
    /// decides a command the budget would have decided. Off while a save replays.
    pub seconds: f64,
}

/// The instruction budget of the running command, shared with API functions that do work
/// outside the VM (searches charge for the hexes they visit).
pub struct Budget {
    pub used: Rc<Cell<u64>>,
    pub limit: u64,
}

impl Budget {
    /// Charges `n` instructions; errors when the budget is spent.
    pub fn charge(&self, n: u64, what: &str) -> mlua::Result<()> {
        let used = self.used.get() + n;
        self.used.set(used);
        if used > self.limit {
            return Err(mlua::Error::runtime(format!(
                "instruction limit exceeded ({} in one command, {what} included): a runaway loop?",
                self.limit
            )));
        }
        Ok(())
    }
}

/// What the layer above hands the host: the resource limits, and the names its own commands
/// take (which a ruleset may not register as verbs).
#[derive(Clone, Copy, Debug)]
pub struct HostConfig {
    pub limits: Limits,
    pub reserved: fn(&str) -> bool,
    /// Whether the wall-clock backstop applies (off while a save replays: see
    /// [`Host::set_backstop`]).
    pub backstop: bool,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig { limits: Limits::default(), reserved: |_| false, backstop: true }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits { instructions: 200_000_000, memory: 64 << 20, seconds: 60.0 }
    }
}

/// A question the rules asked a player, waiting for `choose` or `auto`.
#[derive(Clone, Debug)]
pub struct Question {
    pub prompt: String,
    pub rule: Option<String>,
    /// Allowed answers (empty: free text, checked by `kind`).
    pub options: Vec<String>,
    /// What `auto` answers.
    pub default: Option<String>,
    /// `choice` (one of options), `unit`, `hex`, `text`, `number`, `yesno`.
    pub kind: String,
    /// The side that answers, when the rules name one (it may be another than the side to act).
    pub side: Option<String>,
    /// `odds` shows the outcomes of each option (a choice that changes the result).
    pub odds: bool,
}

/// Outcomes of a command with their probabilities and the die faces that give each (`odds`).
pub type OutcomeTable = Vec<(String, f64, Vec<Vec<u32>>)>;

/// How one resume of a rule coroutine ended.
pub enum Step {
    Done(Option<String>),
    Ask(Question),
    /// In an `odds` enumeration, the rules declared the command's outcome (`umpire.outcome`):
    /// the run ends there.
    Outcome(String),
    /// In an `odds` enumeration, `umpire.outcome_of` tabulated the outcomes of the dice it
    /// was given (each with its probability and the faces that give it): the run ends there.
    Outcomes(OutcomeTable),
}

pub struct Host {
    pub lua: Lua,
    pub shared: Shared,
    budget: Rc<Cell<u64>>,
    /// Where rule code was at the last instruction-count check (names the place of a memory
    /// error, which Lua reports without a position).
    last_place: Rc<RefCell<(String, usize)>>,
    /// When the current command started running rule code (the wall-clock backstop).
    started: Rc<Cell<Option<std::time::Instant>>>,
    /// Whether the wall-clock backstop applies ([`Host::set_backstop`]).
    backstop: Rc<Cell<bool>>,
    /// How many [`CommandScope`]s are open: inside one, the budget is not reset between the
    /// rule calls a command makes.
    scopes: Rc<Cell<u32>>,
    limits: Limits,
}

/// One typed command: while it lives, every rule call the command makes (each run of an
/// `odds` enumeration, each `next` of `forward`, each answer) draws on one instruction budget
/// and one wall-clock backstop ([`Host::command_scope`]).
pub struct CommandScope(Rc<Cell<u32>>);

impl Drop for CommandScope {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

/// The guard of [`Host::own_budget`].
pub struct OwnBudget {
    cell: Rc<Cell<u64>>,
    used: u64,
}

impl Drop for OwnBudget {
    fn drop(&mut self) {
        self.cell.set(self.used);
    }
}

const PRELUDE: &str = include_str!("prelude.lua");

fn world(lua: &Lua) -> Shared {
    lua.app_data_ref::<Shared>().expect("world registered").clone()
}

/// A rule refused an action; carried through Lua as an external error.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub rule: String,
    pub msg: String,
}
impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refused ({}): {}", self.rule, self.msg)
    }
}
impl std::error::Error for Refusal {}

/// A usage problem detected by the API (bad unit id in a rule call that came from a player).
fn find_refusal(e: &mlua::Error) -> Option<Refusal> {
    match e {
        mlua::Error::ExternalError(x) => x.downcast_ref::<Refusal>().cloned(),
        mlua::Error::CallbackError { cause, .. } => find_refusal(cause),
        mlua::Error::WithContext { cause, .. } => find_refusal(cause),
        _ => None,
    }
}

/// A syntax error, possibly raised inside a Rust callback (`require` reading a file).
fn is_syntax_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::SyntaxError { .. } => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => is_syntax_error(cause),
        _ => false,
    }
}

/// Compiles a rule file (`chunk_name` is its path as messages show it). A syntax error names
/// `file:line:column`: Lua's message gives the line and the token it stopped at (`near ')'`),
/// and the column is that token's place on the line — the first occurrence of the token there
/// at which the file, cut just after it, fails with the same message (an earlier occurrence
/// was read without error, so the cut file would end too early there: `near <eof>`).
pub fn compile(lua: &Lua, src: &str, chunk_name: &str) -> mlua::Result<Function> {
    if let Some(f) = chunks::cached(lua, src, chunk_name) {
        return Ok(f);
    }
    let load = |text: &str| lua.load(text).set_name(format!("@{chunk_name}")).set_mode(ChunkMode::Text).into_function();
    match load(src) {
        Ok(f) => {
            chunks::keep(&f, src, chunk_name);
            Ok(f)
        }
        Err(mlua::Error::SyntaxError { message, incomplete_input }) => {
            let message = match syntax_column(src, &message, |cut| match load(cut) {
                Err(mlua::Error::SyntaxError { message, .. }) => Some(message),
                _ => None,
            }) {
                Some((n, col)) => format!("{}:{col}{}", &message[..n], &message[n..]),
                None => message,
            };
            Err(mlua::Error::SyntaxError { message, incomplete_input })
        }
        r => r,
    }
}

/// Where to insert the column in a syntax error's message (just after `file:line`), and the
/// column; `fails(cut)` is the message of compiling a cut of the source.
fn syntax_column(src: &str, message: &str, fails: impl Fn(&str) -> Option<String>) -> Option<(usize, usize)> {
    let head = message.lines().next()?;
    // `<file>:<line>: ` — the last such place before the message text
    let (n, line) = (0..head.len()).rev().find_map(|i| {
        let rest = head.get(i..)?.strip_prefix(':')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0 && rest[digits..].starts_with(": ")).then(|| (i + 1 + digits, rest[..digits].parse::<usize>()))
    })?;
    let line = line.ok()?;
    let near = head.rsplit_once(" near ")?.1;
    let line_start: usize = src.split_inclusive('\n').take(line - 1).map(str::len).sum();
    let text = src.get(line_start..)?.split('\n').next()?.trim_end_matches('\r');
    if near == "<eof>" {
        return Some((n, text.chars().count() + 1));
    }
    let token = near.strip_prefix('\'')?.strip_suffix('\'')?;
    let starts: Vec<usize> = text.match_indices(token).map(|(i, _)| i).collect();
    let column = |i: usize| text[..i].chars().count() + 1;
    let exact = starts.iter().find(|&&i| fails(&src[..line_start + i + token.len()]).as_deref() == Some(message));
    exact.or(starts.first()).map(|&i| (n, column(i)))
}

/// A memory error, possibly raised inside a Rust callback (`require` loading a module).
fn is_memory_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => is_memory_error(cause),
        _ => false,
    }
}

/// Converts a Lua error into the library's error: refusals keep their rule number, anything
/// else is a rule bug reported with file:line and traceback.
pub fn convert_error(e: mlua::Error) -> Error {
    if let Some(r) = find_refusal(&e) {
        return Error::Refused { rule: r.rule, msg: r.msg };
    }
    Error::Lua(tidy_traceback(&clean_message(&e)))
}

/// Keeps one traceback and only the frames of rule code (not the prelude's plumbing). The
/// message names one place: a place repeated by each coroutine an error went through is named
/// once, and an error the prelude raised on behalf of rule code (a stack overflow) names the
/// rule's line.
fn tidy_traceback(msg: &str) -> String {
    let (head, rest) = msg.split_once('\n').map_or((msg, None), |(h, r)| (h, Some(r)));
    let mut head = collapse_places(head);
    if head.starts_with(PRELUDE_PLACE)
        && let (Some(n), Some(frame)) = (leading_place(&head), rest.and_then(|r| r.lines().find_map(rule_frame)))
    {
        head = format!("{frame}: {}", &head[n..]);
    }
    let msg = match rest {
        Some(r) => format!("{head}\n{r}"),
        None => head,
    };
    let mut out: Vec<&str> = Vec::new();
    let mut in_tb = false;
    let mut seen_tb = false;
    for l in msg.lines() {
        let t = l.trim();
        if t == "stack traceback:" {
            if seen_tb {
                break;
            }
            seen_tb = true;
            in_tb = true;
            out.push(l);
            continue;
        }
        if in_tb
            && (t.contains("<umpire prelude>")
                || t.starts_with("[C]: in function 'error'")
                || t.starts_with("[C]: in function 'xpcall'")
                || t.starts_with("[C]: in upvalue 'xpcall'")
                || t.starts_with("[C]: in field 'thread_error'")
                || t.starts_with("[C]: in ?")
                || t == "(...tail calls...)")
        {
            continue;
        }
        out.push(l);
    }
    if out.last().is_some_and(|l| l.trim() == "stack traceback:") {
        out.pop();
    }
    out.join("\n")
}

/// How the prelude's chunk is named in messages.
const PRELUDE_PLACE: &str = "<umpire prelude>";

/// The length of the `file:line: ` a message starts with, if it starts with one.
fn leading_place(s: &str) -> Option<usize> {
    let colon = s.find(':')?;
    let file = &s[..colon];
    if file.is_empty() || (file != PRELUDE_PLACE && file.contains(char::is_whitespace)) {
        return None;
    }
    let digits = s[colon + 1..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && s[colon + 1 + digits..].starts_with(": ")).then_some(colon + 1 + digits + 2)
}

/// Most places kept at the start of a message that went through several coroutines.
const MAX_PLACES: usize = 4;

/// The first line of a message with its leading places (`lua:1: lua:1: x`, one added by each
/// coroutine the error went through) named once each in a row, and at most [`MAX_PLACES`] of
/// them: the outermost and the innermost ones.
fn collapse_places(head: &str) -> String {
    let mut places: Vec<&str> = Vec::new();
    let mut rest = head;
    while let Some(n) = leading_place(rest) {
        if places.last() != Some(&&rest[..n]) {
            places.push(&rest[..n]);
        }
        rest = &rest[n..];
    }
    if places.len() > MAX_PLACES {
        let last = places.split_off(places.len() - (MAX_PLACES - 1));
        places.truncate(1);
        places.push("…: ");
        places.extend(last);
    }
    format!("{}{rest}", places.concat())
}

/// `file:line` of a traceback line that is a frame of rule code (not C, not the prelude).
fn rule_frame(line: &str) -> Option<&str> {
    let t = line.trim();
    if t.starts_with("[C]") || t.starts_with(PRELUDE_PLACE) {
        return None;
    }
    let (place, _) = t.split_once(": in ")?;
    leading_place(&format!("{place}: ")).map(|_| place)
}

fn clean_message(e: &mlua::Error) -> String {
    match e {
        // a syntax error names its file, line and column: the frames of the `require` that
        // read the file add nothing
        mlua::Error::CallbackError { cause, .. } if is_syntax_error(cause) => clean_message(cause),
        mlua::Error::CallbackError { traceback, cause } => {
            let inner = clean_message(cause);
            if inner.contains("stack traceback:") { inner } else { format!("{inner}\n{traceback}") }
        }
        mlua::Error::WithContext { context, cause } => {
            format!("{context}: {}", clean_message(cause))
        }
        mlua::Error::MemoryError(m) => format!("memory limit exceeded ({m})"),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::ExternalError(x) => x.to_string(),
        other => other.to_string(),
    }
}

impl Host {
    /// Builds a sandboxed VM, registers the API and runs the ruleset's entry script.
    pub fn new(ruleset: &Ruleset, shared: Shared, cfg: HostConfig) -> Result<Host, Error> {
        let limits = cfg.limits;
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8 | StdLib::COROUTINE;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(convert_error)?;
        // Lua 5.4's generational collector: rule code makes many short-lived tables (a list of
        // actions, a profile, a stack's handles) and few that live; a whole Stargard game by the
        // random bot runs about 7% faster than with the incremental collector (docs/performance.md).
        // Set before any rule code runs (`collectgarbage` is not in the sandbox).
        lua.load("collectgarbage('generational')").exec().map_err(convert_error)?;
        lua.set_app_data(shared.clone());
        lua.set_app_data(Reserved(cfg.reserved));
        let budget = Rc::new(Cell::new(0u64));
        let host = Host {
            lua,
            shared,
            budget: budget.clone(),
            limits,
            last_place: Rc::new(RefCell::new((String::new(), 0))),
            started: Rc::new(Cell::new(None)),
            backstop: Rc::new(Cell::new(cfg.backstop)),
            scopes: Rc::new(Cell::new(0)),
        };
        host.lua.set_app_data(Budget { used: budget, limit: limits.instructions });
        let loaded = host.sandbox(ruleset).map_err(convert_error)?;
        let areas: [fn(&Lua) -> mlua::Result<()>; 12] = [
            umpire::register,
            vars::register,
            tracks::register,
            sides::register,
            cups::register,
            log::register,
            units::register,
            map::register,
            dice::register,
            validate::register,
            views::register,
            actions::register,
        ];
        for register in areas {
            register(&host.lua).map_err(convert_error)?;
        }
        // (before the prelude, whose wrappers keep the functions they wrap)
        charged::register(&host.lua).map_err(convert_error)?;
        let internal: Table = host.lua.globals().get("__umpire").map_err(convert_error)?;
        seal::register(&host.lua, &internal).map_err(convert_error)?;
        internal.set("loaded", loaded).map_err(convert_error)?;
        // the prelude refuses a single string larger than half the memory limit at the caller's
        // line (one C call would otherwise fail with a memory error that names no place)
        let internal: Table = host.lua.globals().get("__umpire").map_err(convert_error)?;
        internal.set("max_string", (limits.memory / 2) as i64).map_err(convert_error)?;
        // what stops a command, if it has happened (pcall must not catch it: the prelude)
        let (used, limit, started, backstop, seconds) =
            (host.budget.clone(), limits.instructions, host.started.clone(), host.backstop.clone(), limits.seconds);
        let stopping = host
            .lua
            .create_function(move |lua, ()| {
                let late = backstop.get() && started.get().is_some_and(|t| t.elapsed().as_secs_f64() > seconds);
                Ok(if interrupted() {
                    Some("interrupted (Ctrl-C): the command is taken back".to_string())
                } else if used.get() > limit {
                    Some(format!("instruction limit exceeded ({limit} Lua instructions in one command): a runaway loop?"))
                } else if late {
                    Some(format!(
                        "time limit exceeded ({seconds} s in one command, outside the instruction budget): a runaway loop?"
                    ))
                } else if lua.app_data_ref::<OutOfMemory>().is_some() {
                    Some("memory limit exceeded (not enough memory)".to_string())
                } else {
                    None
                })
            })
            .map_err(convert_error)?;
        internal.set("stopping", stopping).map_err(convert_error)?;
        compile(&host.lua, PRELUDE, PRELUDE_PLACE).and_then(|f| f.call::<()>(())).map_err(convert_error)?;
        let internal: Table = host.lua.globals().get("__umpire").map_err(convert_error)?;
        // the error a rule call's own coroutine died of (the prelude's `protected`)
        let memory = limits.memory;
        internal
            .set(
                "thread_error",
                host.lua
                    .create_function(move |lua, (co, msg): (Thread, String)| thread_error(lua, &co, msg, memory))
                    .map_err(convert_error)?,
            )
            .map_err(convert_error)?;
        host.reset_budget();
        let entry = ruleset.dir.join(&ruleset.entry);
        let require: Function = host.lua.globals().get("require").map_err(convert_error)?;
        // the entry script is required by its path in the ruleset (`main.lua` -> `main`,
        // `src/main.lua` -> `src.main`)
        let module = ruleset.entry.trim_end_matches(".lua").replace(['/', '\\'], ".");
        if !entry.is_file() {
            return Err(Error::NotFound(format!("entry script {} does not exist", entry.display())));
        }
        host.shared.borrow_mut().loading = true;
        // the rule files load under the same limits as a command, and a limit hit there names
        // the rule's file:line in the same way
        let loaded = require.call::<Value>(module).map_err(|e| host.run_error(e));
        host.shared.borrow_mut().loading = false;
        loaded?;
        // the ruleset's own checks of its data (umpire.validate): bad tables stop the load
        validate::run(&host.lua, ruleset)?;
        // from now on every table the rule files can reach is read-only, and no global may be
        // created or assigned: whatever persists belongs in the game state
        host.prelude_fn("freeze")?.call::<()>(()).map_err(convert_error)?;
        seal::name_functions(&host.lua).map_err(convert_error)?;
        Ok(host)
    }

    /// Removes what rules may not use and installs the guarded functions; returns the table of
    /// the modules `require` has loaded.
    fn sandbox(&self, ruleset: &Ruleset) -> mlua::Result<Table> {
        let lua = &self.lua;
        let g = lua.globals();
        for name in ["dofile", "loadfile", "collectgarbage", "io", "os", "debug", "package"] {
            g.set(name, Value::Nil)?;
        }
        let math: Table = g.get("math")?;
        math.set("random", Value::Nil)?;
        math.set("randomseed", Value::Nil)?;
        let string: Table = g.get("string")?;
        string.set("dump", Value::Nil)?;

        // pattern matching is Umpire's own, charged to the instruction budget (the C functions
        // run out of the hook's reach)
        patterns::register(lua, &string)?;

        // print goes to the command's output: a line is displayed as `=` shows values (cut at
        // MAX_DISPLAY), charged to the budget, and the command's output is bounded in all
        g.set(
            "print",
            lua.create_function(|lua, args: mlua::Variadic<Value>| {
                let (line, nodes) = display_values(&args);
                let cost = nodes as u64 * PRINT_CHARGE_PER_NODE + line.len() as u64 / PRINT_BYTES_PER_CHARGE;
                charge(lua, cost, "printed output")?;
                log::emit(lua, "print", line)
            })?,
        )?;

        // load: text chunks only, in the sandboxed globals
        let raw_load: Function = g.get("load")?;
        let env = g.clone();
        g.set(
            "load",
            lua.create_function(
                move |_, (chunk, name, _mode, e): (Value, Option<String>, Option<String>, Option<Table>)| {
                    let env = e.unwrap_or_else(|| env.clone());
                    raw_load.call::<mlua::MultiValue>((chunk, name.unwrap_or_else(|| "=(load)".into()), "t", env))
                },
            )?,
        )?;

        let modules = install_require(lua, ruleset)?;

        lua.set_memory_limit(self.limits.memory)?;
        self.install_hook()?;
        Ok(modules)
    }

    /// Counts instructions every 1,000 (the deterministic budget), remembers where rule code
    /// is (a memory error names no place), and applies the wall-clock backstop.
    fn install_hook(&self) -> mlua::Result<()> {
        const EVERY: u32 = PROFILE_EVERY as u32;
        let budget = self.budget.clone();
        let place = self.last_place.clone();
        let started = self.started.clone();
        let backstop = self.backstop.clone();
        let seconds = self.limits.seconds;
        let limit = self.limits.instructions;
        let mut triggers = HookTriggers::new().every_nth_instruction(EVERY);
        let covering = coverage::on();
        if covering {
            triggers = triggers.every_line();
        }
        self.lua.set_global_hook(triggers, move |lua, debug| {
            if debug.event() == mlua::debug::DebugEvent::Line {
                let src = debug.source();
                if let Some(s) = src.source.as_deref() {
                    coverage::line(s.as_bytes(), debug.current_line().unwrap_or(0));
                }
                return Ok(VmState::Continue);
            }
            let used = budget.get() + EVERY as u64;
            budget.set(used);
            if covering {
                coverage::budget(used);
            }
            let src = debug.source();
            let file = src.short_src.as_deref().unwrap_or("?");
            // the place of rule code, not of the prelude's wrappers it calls
            if file != "<umpire prelude>" {
                let mut p = place.borrow_mut();
                if p.0 != file {
                    p.0 = file.to_string();
                }
                p.1 = debug.current_line().unwrap_or(0);
            }
            if profile::on() {
                profile::sample(file, src.line_defined.unwrap_or(0), debug.current_line().unwrap_or(0), started.get());
            }
            let line = || debug.current_line().map(|l| l.to_string()).unwrap_or_else(|| "?".into());
            // the player's Ctrl-C
            if interrupted() {
                return Err(mlua::Error::runtime(format!(
                    "{}interrupted (Ctrl-C): the command is taken back",
                    seal::rule_place(lua)
                )));
            }
            // the budget first: it is the limit, the same on every machine
            if used > limit {
                // inside a wrapper of the prelude, the place is the rule's that called it
                let place = if file == "<umpire prelude>" {
                    seal::rule_place(lua)
                } else {
                    format!("{file}:{}: ", line())
                };
                return Err(mlua::Error::runtime(format!(
                    "{place}instruction limit exceeded ({limit} Lua instructions in one command): a runaway loop?"
                )));
            }
            // a last resort for time spent outside the VM, which the budget cannot see (C
            // functions); far above what the budget allows on a slow machine, and switched off
            // while a save replays so that a replay never depends on the machine's speed
            if backstop.get() && started.get().is_some_and(|t| t.elapsed().as_secs_f64() > seconds) {
                return Err(mlua::Error::runtime(format!(
                    "{file}:{}: time limit exceeded ({seconds} s in one command, outside the instruction budget): a runaway loop?",
                    line()
                )));
            }
            Ok(VmState::Continue)
        })
    }

    /// Switches the wall-clock backstop on (the default) or off. The session switches it off
    /// while it replays a save: a replay must give the same result on any machine, and the
    /// instruction budget, which stays on, already stops runaway rule code deterministically.
    pub fn set_backstop(&self, on: bool) {
        self.backstop.set(on);
    }

    /// A fresh budget for the next rule call, unless a [`CommandScope`] is open (then the
    /// command's one budget goes on).
    pub fn reset_budget(&self) {
        if self.scopes.get() == 0 {
            self.fresh_budget();
        }
        self.last_place.borrow_mut().0.clear();
    }

    fn fresh_budget(&self) {
        self.budget.set(0);
        self.started.set(Some(std::time::Instant::now()));
    }

    /// A fresh budget until the guard is dropped, when the budget spent before it is back
    /// (the host's own rule calls, such as bringing a command back to its question, do not
    /// spend the command's budget).
    pub fn own_budget(&self) -> OwnBudget {
        let used = self.budget.replace(0);
        OwnBudget { cell: self.budget.clone(), used }
    }

    /// Opens the scope of one typed command: a fresh budget now, and none until the scope
    /// (and any scope opened inside it) is dropped.
    pub fn command_scope(&self) -> CommandScope {
        if self.scopes.get() == 0 {
            self.fresh_budget();
            // after a command that ran out of memory, its garbage goes before the next one runs
            // (else an allocation inside a garbage-collection step, which Lua cannot retry,
            // may fail the next command too)
            if self.lua.remove_app_data::<OutOfMemory>().is_some() {
                let _ = self.lua.gc_collect();
                let _ = self.lua.set_memory_limit(self.limits.memory);
            }
        }
        self.scopes.set(self.scopes.get() + 1);
        CommandScope(self.scopes.clone())
    }

    /// Converts an error of running rule code; a memory error is told where the code was.
    fn run_error(&self, e: mlua::Error) -> Error {
        let memory = is_memory_error(&e);
        if memory {
            self.lua.set_app_data(OutOfMemory);
            // room for the checks after the command (the dead coroutine holds its memory until
            // the next command starts, when the garbage goes and the limit is put back)
            let _ = self.lua.set_memory_limit(self.limits.memory + GRACE);
        }
        let (file, line) = self.last_place.borrow().clone();
        match convert_error(e) {
            Error::Lua(m) if memory && !file.is_empty() => Error::Lua(format!("{file}:{line}: {m}")),
            other => other,
        }
    }

    /// After rule code ran: puts back what the seal cannot intercept (a module's upvalue
    /// reassigned, a metamethod key written in place) and fails a run that changed one, so
    /// that the next command sees the rule files as they loaded.
    fn checked<T>(&self, r: Result<T, Error>) -> Result<T, Error> {
        // the host's own check, outside the command's budget (which the rules may have spent)
        let changed = {
            let _budget = self.own_budget();
            self.prelude_fn("check_frozen").and_then(|f| f.call(()).map_err(convert_error))
        };
        let changed: Option<String> = changed?;
        match (r, changed) {
            (Ok(_), Some(m)) => Err(Error::Lua(m)),
            (r, _) => r,
        }
    }

    /// Runs `__umpire.<entry>(args...)` in a new coroutine.
    pub fn start(&self, entry: &str, args: impl mlua::IntoLuaMulti) -> Result<(Thread, Step), Error> {
        let f: Function = self.prelude_fn(entry)?;
        let thread = self.lua.create_thread(f).map_err(convert_error)?;
        let step = self.resume(&thread, args)?;
        Ok((thread, step))
    }

    fn prelude_fn(&self, entry: &str) -> Result<Function, Error> {
        let t: Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        t.get(entry).map_err(convert_error)
    }

    /// Resumes a rule coroutine; it either finishes or asks a question.
    pub fn resume(&self, thread: &Thread, args: impl mlua::IntoLuaMulti) -> Result<Step, Error> {
        self.reset_budget();
        let _t = Timer::start("lua");
        let v: mlua::MultiValue = self.checked(thread.resume(args).map_err(|e| self.run_error(e)))?;
        let first = v.into_iter().next().unwrap_or(Value::Nil);
        if thread.status() == mlua::thread::ThreadStatus::Resumable {
            let Value::Table(q) = first else {
                return Err(Error::Lua("a rule yielded without asking a question (use umpire.ask)".into()));
            };
            if let Some(outcome) = q.get::<Option<String>>("__outcome").map_err(convert_error)? {
                return Ok(Step::Outcome(outcome));
            }
            if q.get::<Option<bool>>("__outcome_table").map_err(convert_error)? == Some(true) {
                let table = self.shared.borrow_mut().probe_outcomes.take().unwrap_or_default();
                return Ok(Step::Outcomes(table));
            }
            return Ok(Step::Ask(question_from(&q).map_err(convert_error)?));
        }
        Ok(Step::Done(match first {
            Value::Nil => None,
            v => Some(display_value(&v)),
        }))
    }

    /// Evaluates a Lua expression or chunk typed by a user (`=`, `expect`, `lua`).
    pub fn eval(&self, code: &str, name: &str) -> Result<mlua::MultiValue, Error> {
        self.reset_budget();
        let chunk = self.chunk(code, name)?;
        self.checked(chunk.call::<mlua::MultiValue>(()).map_err(|e| self.run_error(e)))
    }

    /// Compiles a designer's chunk (`lua`, `=`, `expect`) in a fresh environment of its own.
    pub fn chunk(&self, code: &str, name: &str) -> Result<Function, Error> {
        let env: Table = self.prelude_fn("chunk_env")?.call(()).map_err(convert_error)?;
        self.lua
            .load(code)
            .set_name(format!("={name}"))
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function()
            .map_err(convert_error)
    }

    /// Runs an overlay: a table of labels by hex (read-only use; the caller restores state).
    pub fn overlay(&self, name: &str, args: Vec<Value>) -> Result<BTreeMap<String, String>, Error> {
        self.reset_budget();
        let t: Table = self
            .lua
            .globals()
            .get::<Table>("__umpire")
            .and_then(|t| t.get::<Table>("overlays"))
            .map_err(convert_error)?;
        let f: Function = t.get(name).map_err(convert_error)?;
        let r: Value = self.checked(f.call(mlua::MultiValue::from_vec(args)).map_err(convert_error))?;
        let mut out = BTreeMap::new();
        if let Value::Table(t) = r {
            for p in seal::seen_through(t).pairs::<String, Value>() {
                let (k, v) = p.map_err(convert_error)?;
                let label = match v {
                    Value::Number(n) if n.fract() == 0.0 => format!("{}", n as i64),
                    Value::Boolean(true) => "•".to_string(),
                    other => display_value(&other),
                };
                out.insert(k, label);
            }
        } else if !r.is_nil() {
            return Err(Error::Lua(format!(
                "overlay {name} must return a table of labels by hex, not {}",
                r.type_name()
            )));
        }
        Ok(out)
    }

    /// Lines the rules add to `show <unit>` or `show <hex>` (`umpire.describe{unit=, hex=}`).
    pub fn describe(&self, what: &str, arg: Value) -> Result<Vec<String>, Error> {
        self.reset_budget();
        let t: Table = self
            .lua
            .globals()
            .get::<Table>("__umpire")
            .and_then(|t| t.get::<Table>("describe"))
            .map_err(convert_error)?;
        let Some(f) = t.get::<Option<Function>>(what).map_err(convert_error)? else { return Ok(vec![]) };
        let r: Value = self.checked(f.call(arg).map_err(convert_error))?;
        let mut out = Vec::new();
        if let Value::Table(t) = r {
            for v in seal::seen_through(t).sequence_values::<Value>() {
                out.push(display_value(&v.map_err(convert_error)?));
            }
        }
        Ok(out)
    }

    /// Calls a function registered under `__umpire.<name>` directly (no yielding).
    pub fn call<R: mlua::FromLuaMulti>(&self, name: &str, args: impl mlua::IntoLuaMulti) -> Result<R, Error> {
        self.reset_budget();
        self.checked(self.prelude_fn(name)?.call(args).map_err(convert_error))
    }
}

/// `require`: only inside the ruleset folder and rulesets/lib, text only, cached; returns the
/// table of loaded modules.
fn install_require(lua: &Lua, ruleset: &Ruleset) -> mlua::Result<Table> {
    let g = lua.globals();
    let loaded = lua.create_table()?;
    let dirs: Vec<PathBuf> = vec![ruleset.dir.clone(), ruleset.root.join("rulesets").join("lib")];
    let root = ruleset.root.clone();
    let modules = loaded.clone();
    g.set(
        "require",
        lua.create_function(move |lua, name: String| {
            if let Some(v) = loaded.get::<Option<Value>>(name.as_str())? {
                return Ok(v);
            }
            // a refusal names the line that required
            let refused = |m: String| mlua::Error::runtime(format!("{}{m}", seal::rule_place(lua)));
            let (file, real) = resolve_module(&dirs, &root, &name).map_err(refused)?;
            let chunk_name = display_path(&root, &file);
            let bytes = std::fs::read(&real).map_err(|e| refused(format!("require '{name}': {chunk_name}: {e}")))?;
            // (a byte that is not UTF-8, as a file saved as Latin-1 has: named by its place)
            let src = crate::text::utf8_text(bytes).map_err(|at| mlua::Error::runtime(format!("{chunk_name}:{at}")))?;
            let chunk = compile(lua, &src, &chunk_name)?;
            let v = load_module(lua, chunk, &name)?;
            let v = if v.is_nil() { Value::Boolean(true) } else { v };
            // a module first required during play is sealed at once, as the others were
            // when the rule files had loaded
            if !world(lua).borrow().loading {
                let internal: Table = lua.globals().get("__umpire")?;
                if let Some(seal) = internal.get::<Option<Function>>("seal_module")? {
                    seal.call::<()>((name.as_str(), &v))?;
                }
            }
            loaded.set(name.as_str(), v.clone())?;
            Ok(v)
        })?,
    )?;
    Ok(modules)
}

/// Runs a module's chunk (with its name as `...`) in a coroutine of its own, so that its frames
/// outlive an error: a memory error, which Lua reports without a place, is told where the module
/// was; any other error keeps the frames of the module and then those of the code that required
/// it, as one traceback.
fn load_module(lua: &Lua, chunk: Function, name: &str) -> mlua::Result<Value> {
    let co = lua.create_thread(chunk)?;
    match co.resume::<Value>(name) {
        Ok(_) if co.status() == mlua::thread::ThreadStatus::Resumable => Err(mlua::Error::runtime(format!(
            "{}require '{name}': a module may not yield while it loads",
            seal::rule_place(lua)
        ))),
        Ok(v) => Ok(v),
        Err(e) if is_memory_error(&e) => match dead_thread_place(&co) {
            Some(place) => Err(mlua::Error::runtime(format!("{place}: {}", clean_message(&e)))),
            None => Err(e),
        },
        Err(mlua::Error::RuntimeError(m)) if m.contains("stack traceback:") => {
            let outer = lua.traceback(None, 1)?.to_string_lossy();
            let frames = outer.split_once('\n').map_or("", |(_, f)| f);
            Err(mlua::Error::runtime(format!("{m}\n\t[C]: in function 'require'\n{frames}")))
        }
        Err(e) => Err(e),
    }
}

/// Memory above the limit that an error of running out of it may use to be said and checked.
const GRACE: usize = 1 << 20;

/// The error a rule call died of in its own coroutine (the prelude's `protected`), for its
/// caller: a text with the traceback of the dead coroutine and then the frames of the caller; a
/// memory error (which Lua reports without a place and without calling a message handler) is
/// raised with the place where the rule was, with room to say it.
fn thread_error(lua: &Lua, co: &Thread, msg: String, memory: usize) -> mlua::Result<String> {
    if msg == "not enough memory" {
        lua.set_app_data(OutOfMemory);
        // (the limit is put back when the next command starts, after the garbage has gone)
        let _ = lua.set_memory_limit(memory + GRACE);
        let m = "memory limit exceeded (not enough memory)";
        return Err(mlua::Error::runtime(match dead_thread_place(co) {
            Some(place) => format!("{place}: {m}"),
            None => m.to_string(),
        }));
    }
    if msg.contains("stack traceback:") {
        return Ok(msg);
    }
    let co_state = co.state();
    // SAFETY: the stack holds `msg` (1); luaL_traceback reads the frames of `co` (alive,
    // borrowed, not running) and pushes one string, and `msg` is then removed.
    let inner: String = unsafe {
        lua.exec_raw(msg, |state| {
            let m = mlua::ffi::lua_tostring(state, 1);
            mlua::ffi::luaL_traceback(state, co_state, m, 0);
            mlua::ffi::lua_remove(state, 1);
        })?
    };
    let outer = lua.traceback(None, 1)?.to_string_lossy();
    let frames = outer.split_once('\n').map_or("", |(_, f)| f);
    Ok(format!("{inner}\n{frames}"))
}

/// `file:line` where a coroutine that died by an error was in rule code: Lua keeps the frames of
/// a dead coroutine, so a memory error (reported without a place) can be located after it.
fn dead_thread_place(co: &Thread) -> Option<String> {
    let l = co.state();
    // SAFETY: `co` is alive (borrowed), not running, and lua_getstack/lua_getinfo("Sl") only read
    // its call frames into `ar` (no allocation, nothing pushed).
    unsafe {
        let mut ar: mlua::ffi::lua_Debug = std::mem::zeroed();
        let mut level = 0;
        while mlua::ffi::lua_getstack(l, level, &mut ar) != 0 {
            if mlua::ffi::lua_getinfo(l, c"Sl".as_ptr(), &mut ar) != 0 && ar.currentline > 0 {
                let src = std::ffi::CStr::from_ptr(ar.short_src.as_ptr()).to_string_lossy();
                if src != PRELUDE_PLACE {
                    return Some(format!("{src}:{}", ar.currentline));
                }
            }
            level += 1;
        }
    }
    None
}

fn question_from(q: &Table) -> mlua::Result<Question> {
    let options = seal::string_list(q.get("options")?, "umpire.ask options")?;
    let kind = q
        .get::<Option<String>>("kind")?
        .unwrap_or_else(|| if options.is_empty() { "text".into() } else { "choice".into() });
    Ok(Question {
        prompt: q.get::<Option<String>>("prompt")?.unwrap_or_else(|| "choose".into()),
        rule: q.get::<Option<String>>("rule")?,
        default: q.get::<Option<String>>("default")?.or_else(|| options.first().cloned()),
        options,
        kind,
        side: q.get::<Option<String>>("side")?,
        odds: q.get::<Option<bool>>("odds")?.unwrap_or(false),
    })
}

/// Finds `name` (dots are folders) in `dirs`, refusing anything that could leave them: the
/// file's real path (links followed) must lie inside the real path of one of them. Returns the
/// file as found (for its chunk name) and its real path (to read).
fn resolve_module(dirs: &[PathBuf], root: &Path, name: &str) -> Result<(PathBuf, PathBuf), String> {
    let ok = !name.is_empty()
        && name
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    if !ok {
        return Err(format!(
            "require '{name}': module names are dotted words (a.b.c) resolved inside the ruleset and rulesets/lib only"
        ));
    }
    let rel = format!("{}.lua", name.replace('.', "/"));
    for d in dirs {
        let p = d.join(&rel);
        if p.is_file() {
            let inside = |real: &Path| dirs.iter().filter_map(|d| d.canonicalize().ok()).any(|d| real.starts_with(d));
            return match p.canonicalize() {
                Ok(real) if inside(&real) => Ok((p, real)),
                _ => Err(format!(
                    "require '{name}': {} leads outside the ruleset folder and rulesets/lib (a link?): refused",
                    display_path(root, &p)
                )),
            };
        }
    }
    Err(format!("require '{name}': no {rel} in the ruleset folder or rulesets/lib"))
}

/// A path relative to the library root, for chunk names (`rulesets/x/main.lua`).
pub fn display_path(root: &Path, file: &Path) -> String {
    file.strip_prefix(root).unwrap_or(file).display().to_string()
}

/// Most bytes of text one display ([`display_value`], a line of `print`) shows: a longer one is
/// cut there and ends in "…" (display is for people).
pub const MAX_DISPLAY: usize = 64 << 10;

/// Most values and table entries one display visits (a table reached twice counts twice): a
/// wide table shared many times over is cut, not walked for ever.
pub const MAX_DISPLAY_NODES: usize = 20_000;

/// What `print` is charged: per value or table entry it shows, and per bytes of the line.
const PRINT_CHARGE_PER_NODE: u64 = 16;
const PRINT_BYTES_PER_CHARGE: u64 = 16;

/// Renders a Lua value for people: tables with sorted keys, handles by their `__tostring`. At
/// most [`MAX_DISPLAY`] bytes and [`MAX_DISPLAY_NODES`] values: beyond, the text ends in "…".
pub fn display_value(v: &Value) -> String {
    display_values(std::slice::from_ref(v)).0
}

/// Values rendered as [`display_value`] does, separated by tabs, within one allowance of text
/// and nodes; also returns the nodes visited.
pub fn display_values(vals: &[Value]) -> (String, usize) {
    let mut r = Render { out: String::new(), nodes: 0, cut: false };
    for (i, v) in vals.iter().enumerate() {
        if i > 0 {
            r.push("\t");
        }
        r.value(v, 0);
        if r.cut {
            break;
        }
    }
    (r.out, r.nodes)
}

/// A display being written: its text, the nodes visited, and whether it has been cut.
struct Render {
    out: String,
    nodes: usize,
    cut: bool,
}

impl Render {
    /// Counts one more node; false (and the text cut) once there are too many.
    fn visit(&mut self, n: usize) -> bool {
        self.nodes += n;
        if self.nodes > MAX_DISPLAY_NODES {
            self.cut();
        }
        !self.cut
    }

    fn push(&mut self, s: &str) {
        if self.cut {
            return;
        }
        self.out.push_str(s);
        if self.out.len() > MAX_DISPLAY {
            self.cut();
        }
    }

    /// Ends the text with "…", at most [`MAX_DISPLAY`] bytes before it.
    fn cut(&mut self) {
        if self.cut {
            return;
        }
        let mut at = self.out.len().min(MAX_DISPLAY);
        while !self.out.is_char_boundary(at) {
            at -= 1;
        }
        self.out.truncate(at);
        self.out.push('…');
        self.cut = true;
    }

    /// A Lua string's text, read only as far as the display has room for (a huge string is
    /// not copied whole to show its first bytes).
    fn text(&self, s: &mlua::LuaString) -> String {
        let b = s.as_bytes();
        let room = MAX_DISPLAY.saturating_sub(self.out.len()) + 4;
        String::from_utf8_lossy(&b[..b.len().min(room)]).into_owned()
    }

    fn value(&mut self, v: &Value, depth: usize) {
        if !self.visit(1) {
            return;
        }
        match v {
            Value::Nil => self.push("nil"),
            Value::Boolean(b) => self.push(&b.to_string()),
            Value::Integer(i) => self.push(&i.to_string()),
            Value::Number(n) => {
                if n.fract() == 0.0 && n.abs() < 1e15 {
                    self.push(&format!("{n:.1}"))
                } else {
                    self.push(&format!("{n}"))
                }
            }
            Value::String(s) => {
                let t = self.text(s);
                self.push(&t)
            }
            Value::Table(t) => self.table(t, depth),
            Value::UserData(ud) => {
                let s = ud
                    .metatable()
                    .ok()
                    .and_then(|mt| mt.get::<Function>("__tostring").ok())
                    .and_then(|f| f.call::<String>(ud.clone()).ok());
                self.push(&s.unwrap_or_else(|| "<userdata>".into()));
            }
            Value::Function(_) => self.push("<function>"),
            Value::Thread(_) => self.push("<thread>"),
            Value::Error(e) => self.push(&e.to_string()),
            _ => self.push("<value>"),
        }
    }

    fn table(&mut self, t: &Table, depth: usize) {
        let t = &seal::seen_through(t.clone());
        if depth > 3 {
            self.push("{…}");
            return;
        }
        // the entries are sorted, so all of them are read, within the allowance of nodes; a
        // table with more shows its sequence part, as far as there is room
        let len = t.raw_len();
        let room = MAX_DISPLAY_NODES.saturating_sub(self.nodes);
        let mut entries: Vec<(Value, Value)> = Vec::new();
        for p in t.pairs::<Value, Value>() {
            if entries.len() >= room {
                return self.sequence(t, len, depth);
            }
            if let Ok(e) = p {
                entries.push(e);
            }
        }
        self.visit(entries.len());
        entries.sort_by(|a, b| key_order(&a.0, &b.0));
        self.push("{");
        let mut first = true;
        for (k, val) in entries {
            if self.cut {
                return;
            }
            if !first {
                self.push(", ");
            }
            first = false;
            match &k {
                Value::Integer(i) if *i >= 1 && (*i as usize) <= len => {}
                Value::String(s) => {
                    let s = self.text(s);
                    self.push(&s);
                    self.push(" = ");
                }
                other => {
                    self.push("[");
                    self.value(other, depth + 1);
                    self.push("] = ");
                }
            }
            self.inner(&val, depth);
        }
        self.push("}");
    }

    /// A table too large to sort: its sequence part, as far as there is room, then "…".
    fn sequence(&mut self, t: &Table, len: usize, depth: usize) {
        self.push("{");
        for i in 1..=len {
            if self.cut {
                return;
            }
            if i > 1 {
                self.push(", ");
            }
            match t.raw_get::<Value>(i) {
                Ok(v) => self.inner(&v, depth),
                Err(_) => break,
            }
        }
        self.cut();
    }

    /// A value inside a table at `depth`: strings quoted.
    fn inner(&mut self, v: &Value, depth: usize) {
        match v {
            Value::String(s) if self.visit(1) => {
                let s = self.text(s);
                self.push(&format!("{s:?}"));
            }
            Value::String(_) => {}
            other => self.value(other, depth + 1),
        }
    }
}

fn key_order(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Integer(_) | Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Boolean(_) => 2,
            _ => 3,
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(&y.as_bytes()),
        _ => {
            let (ra, rb) = (rank(a), rank(b));
            if ra != rb {
                return ra.cmp(&rb);
            }
            let fa = a.as_f64().unwrap_or(0.0);
            let fb = b.as_f64().unwrap_or(0.0);
            fa.partial_cmp(&fb).unwrap_or(Ordering::Equal)
        }
    }
}

/// Converts a JSON value (persistent state) to Lua.
pub fn to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
    use mlua::LuaSerdeExt;
    lua.to_value(v)
}

/// Most values and table entries one value stored in the game state may hold, counted as it is
/// expanded (a table reached twice counts twice, so a small table shared many times over is
/// refused before it is copied out).
pub const MAX_STORED_NODES: u64 = 1_000_000;

/// Most bytes of text (strings and keys) one value stored in the game state may hold.
pub const MAX_STORED_TEXT: u64 = 16 << 20;

/// What storing a value is charged to the budget: per value or table entry (about the bytes it
/// takes in the state), and one per byte of its text. The budget so bounds what one command can
/// add to the game state outside the Lua memory limit (about 200 MB for the whole budget).
pub const STORE_CHARGE_PER_NODE: u64 = 64;

/// Charges `n` instructions to the running command's budget for work done outside the VM
/// (`what` names it in the error, which names the rule's line).
pub(crate) fn charge(lua: &Lua, n: u64, what: &str) -> mlua::Result<()> {
    match lua.app_data_ref::<Budget>() {
        Some(b) => b.charge(n, what).map_err(|e| match e {
            mlua::Error::RuntimeError(m) => mlua::Error::runtime(format!("{}{m}", seal::rule_place(lua))),
            other => other,
        }),
        None => Ok(()),
    }
}

/// Converts a Lua value to JSON for persistent state. Tables become arrays when they are
/// sequences, objects (string keys only) otherwise; functions and userdata are refused. The
/// value is bounded ([`MAX_STORED_NODES`], [`MAX_STORED_TEXT`], [`MAX_DEPTH`]) and charged to
/// the budget; an error starts with the rule's `file:line: ` and `what` (`vars.set('k')`).
pub fn from_lua(lua: &Lua, v: &Value, what: &str) -> mlua::Result<serde_json::Value> {
    let mut size = Size::default();
    let j = measure(v, 0, &mut size).and_then(|()| from_lua_depth(v, 0)).map_err(|e| {
        let msg = match &e {
            mlua::Error::RuntimeError(m) => m.clone(),
            other => other.to_string(),
        };
        mlua::Error::runtime(format!("{}{what}: {msg}", seal::rule_place(lua)))
    })?;
    charge(lua, size.nodes * STORE_CHARGE_PER_NODE + size.text, "stored values")?;
    Ok(j)
}

/// Tables nested deeper than this (or cyclic) cannot be stored.
const MAX_DEPTH: usize = 32;

/// What a value to be stored holds, counted as it is expanded.
#[derive(Default)]
struct Size {
    nodes: u64,
    text: u64,
}

impl Size {
    /// Counts `n` more values or entries, refusing more than [`MAX_STORED_NODES`].
    fn nodes(&mut self, n: u64) -> mlua::Result<()> {
        self.nodes += n;
        if self.nodes > MAX_STORED_NODES {
            return Err(mlua::Error::runtime(format!(
                "cannot store a value of more than {MAX_STORED_NODES} values and table entries in the game state (a table reached twice counts twice)"
            )));
        }
        Ok(())
    }

    /// Counts `n` more bytes of text, refusing more than [`MAX_STORED_TEXT`].
    fn text(&mut self, n: usize) -> mlua::Result<()> {
        self.text += n as u64;
        if self.text > MAX_STORED_TEXT {
            return Err(mlua::Error::runtime(format!(
                "cannot store a value with more than {} MiB of text in the game state",
                MAX_STORED_TEXT >> 20
            )));
        }
        Ok(())
    }
}

/// Walks a value as [`from_lua_depth`] will, counting its nodes and text against the bounds
/// without copying anything: a value too large is refused before any of it is copied.
fn measure(v: &Value, depth: usize, size: &mut Size) -> mlua::Result<()> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    size.nodes(1)?;
    match v {
        Value::String(s) => size.text(s.as_bytes().len()),
        Value::UserData(ud) => ud.borrow::<units::UnitRef>().map_or(Ok(()), |u| size.text(u.0.len())),
        Value::Table(t) => {
            for p in seal::seen_through(t.clone()).pairs::<Value, Value>() {
                let (k, val) = p?;
                if let Value::String(s) = &k {
                    size.text(s.as_bytes().len())?;
                }
                measure(&val, depth + 1, size)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The memory address in a text (`tostring({})` is `table: 0x5581…`), if it holds one.
pub(crate) fn address_in(text: &str) -> Option<&str> {
    ["table: 0x", "function: 0x", "function: builtin: 0x", "thread: 0x", "userdata: 0x"]
        .iter()
        .find_map(|p| text.find(p).map(|i| &text[i..(i + p.len() + 12).min(text.len())]))
}

/// `text`, unless it holds a memory address: an address differs in every process, so a state
/// holding one would hash and replay differently.
fn stable_text(text: &str) -> mlua::Result<&str> {
    match address_in(text) {
        None => Ok(text),
        Some(a) => Err(mlua::Error::runtime(format!(
            "cannot store a memory address (`{a}…`, from tostring of a table or function) in the game state: it differs in every process; store an id of your own"
        ))),
    }
}

fn too_deep() -> mlua::Error {
    mlua::Error::runtime(format!(
        "cannot store a table nested more than {MAX_DEPTH} deep (is it cyclic?) in the game state"
    ))
}

fn from_lua_depth(v: &Value, depth: usize) -> mlua::Result<serde_json::Value> {
    use serde_json::Value as J;
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(match v {
        Value::Nil => J::Null,
        Value::Boolean(b) => J::Bool(*b),
        Value::Integer(i) => J::from(*i),
        Value::Number(n) => match serde_json::Number::from_f64(*n) {
            Some(x) => J::Number(x),
            None => {
                return Err(mlua::Error::runtime(format!("cannot store {n} in the game state (not a finite number)")));
            }
        },
        Value::String(s) => J::String(stable_text(&s.to_str()?)?.to_string()),
        Value::Table(t) => {
            let t = &seal::seen_through(t.clone());
            let len = t.raw_len();
            let count = t.pairs::<Value, Value>().count();
            if len > 0 && count == len {
                let mut arr = Vec::with_capacity(len);
                for i in 1..=len {
                    arr.push(from_lua_depth(&t.raw_get::<Value>(i)?, depth + 1)?);
                }
                J::Array(arr)
            } else {
                let mut m = serde_json::Map::new();
                for p in t.pairs::<Value, Value>() {
                    let (k, val) = p?;
                    let key = match k {
                        Value::String(s) => s.to_str()?.to_string(),
                        Value::Integer(i) => i.to_string(),
                        other => {
                            return Err(mlua::Error::runtime(format!(
                                "cannot store a table with a {} key in the game state",
                                other.type_name()
                            )));
                        }
                    };
                    let key = stable_text(&key)?.to_string();
                    if m.contains_key(&key) {
                        // {[1] = x, ["1"] = y}: one key once stored, and which value stays would
                        // depend on the table's order
                        return Err(mlua::Error::runtime(format!(
                            "cannot store a table with both the number {key} and the text \"{key}\" as keys in the game state (they are one key once stored)"
                        )));
                    }
                    m.insert(key, from_lua_depth(&val, depth + 1)?);
                }
                J::Object(m)
            }
        }
        Value::UserData(ud) => {
            if let Ok(u) = ud.borrow::<units::UnitRef>() {
                J::String(u.0.clone())
            } else {
                return Err(mlua::Error::runtime("cannot store userdata in the game state"));
            }
        }
        other => {
            return Err(mlua::Error::runtime(format!("cannot store a {} in the game state", other.type_name())));
        }
    })
}

/// The unit handle for a unit id (resolved against the state on every use).
pub fn unit_handle(lua: &Lua, id: String) -> mlua::Result<mlua::AnyUserData> {
    units::handle(lua, id)
}

/// Logs how long a part of a command took (`RUST_LOG=umpire=trace`).
pub struct Timer(pub &'static str, pub std::time::Instant);

impl Timer {
    pub fn start(what: &'static str) -> Timer {
        Timer(what, std::time::Instant::now())
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        tracing::trace!(part = self.0, ms = self.1.elapsed().as_secs_f64() * 1000.0, "timing");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syntax_error(src: &str) -> String {
        let lua = Lua::new();
        match compile(&lua, src, "x.lua") {
            Err(e) => clean_message(&e),
            Ok(_) => panic!("compiled: {src}"),
        }
    }

    #[test]
    fn a_syntax_error_names_the_column_of_the_token_lua_stopped_at() {
        // the second `)` of the line is the bad one
        assert_eq!(syntax_error("local a = (1))\n"), "x.lua:1:14: unexpected symbol near ')'");
        assert_eq!(syntax_error("local t = {}\n  t.x = = 2\n"), "x.lua:2:9: unexpected symbol near '='");
        // at the end of the file: the column after its last character
        assert_eq!(
            syntax_error("function f()\n  return 1"),
            "x.lua:2:11: 'end' expected (to close 'function' at line 1) near <eof>"
        );
    }
}

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
mod calls;
mod charged;
mod chunks;
mod convert;
mod costs;
pub mod coverage;
mod cups;
mod dice;
mod display;
mod errors;
mod fast;
mod handle;
mod hexset;
mod limits;
mod log;
mod map;
mod patterns;
pub mod profile;
mod require;
mod seal;
mod searches;
mod sides;
mod tracks;
mod umpire;
mod units;
mod validate;
mod vars;
mod views;

use crate::contract::{Question, Shared, Step, World};
use crate::error::Error;
use crate::ruleset::Ruleset;
pub use calls::{Evaluated, RuleThread, Said, SyntaxChecker};
pub use convert::*;
pub use display::*;
pub use errors::*;
pub use limits::*;
use mlua::chunk::ChunkMode;
use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Thread, Value, VmState};
pub use require::display_path;
use require::*;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
pub use views::TableView;

/// How often the instruction-budget hook runs (and [`profile`] samples): every so many Lua
/// instructions.
pub const PROFILE_EVERY: u64 = 1_000;

/// App data of the VM: rule code ran out of memory (garbage is collected before the next command).
struct OutOfMemory;

/// The names of the session's built-in commands (app data of the VM).
pub(crate) struct Reserved(pub fn(&str) -> bool);

pub struct Host {
    lua: Lua,
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

const PRELUDE: &str = include_str!("prelude.lua");

fn world(lua: &Lua) -> Shared {
    lua.app_data_ref::<Shared>().expect("world registered").clone()
}

/// The rule functions running, innermost first (chunk, line where defined), the whole stack:
/// the profile's inclusive count (`run --profile`).
fn profile_stack(lua: &Lua) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for level in 0.. {
        let frame = lua.inspect_stack(level, |d| {
            let s = d.source();
            (s.what, s.short_src.map(|x| x.into_owned()), s.line_defined)
        });
        let Some((what, src, defined)) = frame else { break };
        if what == "C" {
            continue;
        }
        out.push((src.unwrap_or_default(), defined.unwrap_or(0)));
    }
    out
}

/// Registrations happen while the rule files load, never during play.
pub(super) fn while_loading(lua: &Lua, what: &str) -> mlua::Result<()> {
    if world(lua).borrow().loading {
        Ok(())
    } else {
        Err(mlua::Error::runtime(format!(
            "{what} may only be called while the rule files load (at the top level of a rule file)"
        )))
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
        let stopping = host.stopping().map_err(convert_error)?;
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
        host.load_rules(ruleset)?;
        Ok(host)
    }

    /// The prelude's `stopping`: what stops the running command, if it has happened (Ctrl-C,
    /// the budget, the wall-clock backstop, the memory limit), which `pcall` must not catch.
    fn stopping(&self) -> mlua::Result<Function> {
        let limits = self.limits;
        let (used, limit, started, backstop, seconds) =
            (self.budget.clone(), limits.instructions, self.started.clone(), self.backstop.clone(), limits.seconds);
        self.lua.create_function(move |lua, ()| {
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
    }

    /// Loads the rule files (the entry script and what it requires), runs the ruleset's checks
    /// of its data, and seals what the files left.
    fn load_rules(&self, ruleset: &Ruleset) -> Result<(), Error> {
        self.reset_budget();
        let entry = ruleset.dir.join(&ruleset.entry);
        let require: Function = self.lua.globals().get("require").map_err(convert_error)?;
        // the entry script is required by its path in the ruleset (`main.lua` -> `main`,
        // `src/main.lua` -> `src.main`)
        let module = ruleset.entry.trim_end_matches(".lua").replace(['/', '\\'], ".");
        if !entry.is_file() {
            return Err(Error::NotFound(format!("entry script {} does not exist", entry.display())));
        }
        self.shared.borrow_mut().loading = true;
        // the rule files load under the same limits as a command, and a limit hit there names
        // the rule's file:line in the same way
        let loaded = require.call::<Value>(module).map_err(|e| self.run_error(e));
        self.shared.borrow_mut().loading = false;
        loaded?;
        // the ruleset's own checks of its data (umpire.validate): bad tables stop the load
        validate::run(&self.lua, ruleset)?;
        // from now on every table the rule files can reach is read-only, and no global may be
        // created or assigned: whatever persists belongs in the game state
        self.prelude_fn("freeze")?.call::<()>(()).map_err(convert_error)?;
        seal::name_functions(&self.lua).map_err(convert_error)?;
        Ok(())
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
                let stack = profile_stack(lua);
                profile::sample(file, src.line_defined.unwrap_or(0), debug.current_line().unwrap_or(0), started.get(), &stack);
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
            out_of_memory(&self.lua, self.limits.memory);
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
    fn start_entry(&self, entry: &str, args: impl mlua::IntoLuaMulti) -> Result<(Thread, Step), Error> {
        let f: Function = self.prelude_fn(entry)?;
        let thread = self.lua.create_thread(f).map_err(convert_error)?;
        let step = self.resume_thread(&thread, args)?;
        Ok((thread, step))
    }

    fn prelude_fn(&self, entry: &str) -> Result<Function, Error> {
        let t: Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        t.get(entry).map_err(convert_error)
    }

    /// Resumes a rule coroutine; it either finishes or asks a question.
    fn resume_thread(&self, thread: &Thread, args: impl mlua::IntoLuaMulti) -> Result<Step, Error> {
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
    fn eval_values(&self, code: &str, name: &str) -> Result<mlua::MultiValue, Error> {
        self.reset_budget();
        let chunk = self.chunk(code, name)?;
        self.checked(chunk.call::<mlua::MultiValue>(()).map_err(|e| self.run_error(e)))
    }

    /// Compiles a designer's chunk (`lua`, `=`, `expect`) in a fresh environment of its own.
    fn chunk(&self, code: &str, name: &str) -> Result<Function, Error> {
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
    fn overlay_values(&self, name: &str, args: Vec<Value>) -> Result<BTreeMap<String, String>, Error> {
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
    fn describe_value(&self, what: &str, arg: Value) -> Result<Vec<String>, Error> {
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
    fn call<R: mlua::FromLuaMulti>(&self, name: &str, args: impl mlua::IntoLuaMulti) -> Result<R, Error> {
        self.reset_budget();
        self.checked(self.prelude_fn(name)?.call(args).map_err(convert_error))
    }
}

fn question_from(q: &Table) -> mlua::Result<Question> {
    let options = seal::string_list(q.get("options")?, "umpire.ask options")?;
    let kind = q
        .get::<Option<String>>("kind")?
        .unwrap_or_else(|| if options.is_empty() { "text".into() } else { "choice".into() });
    let weights = answer_weights(q, &options)?;
    Ok(Question {
        prompt: q.get::<Option<String>>("prompt")?.unwrap_or_else(|| "choose".into()),
        rule: q.get::<Option<String>>("rule")?,
        default: q.get::<Option<String>>("default")?.or_else(|| options.first().cloned()),
        options,
        kind,
        side: q.get::<Option<String>>("side")?,
        odds: q.get::<Option<bool>>("odds")?.unwrap_or(false),
        weights,
    })
}

/// `umpire.ask`'s `weights`: one number of 0 or more for each option (the bots' weights).
fn answer_weights(q: &Table, options: &[String]) -> mlua::Result<Vec<f64>> {
    let Some(list) = q.get::<Option<Vec<f64>>>("weights")? else { return Ok(Vec::new()) };
    if list.len() != options.len() {
        return Err(mlua::Error::runtime(format!(
            "umpire.ask: `weights` has {} numbers for {} options (one for each option)",
            list.len(),
            options.len()
        )));
    }
    if let Some(w) = list.iter().find(|w| !crate::contract::Action::valid_weight(**w)) {
        return Err(mlua::Error::runtime(format!("umpire.ask: a weight must be a number of 0 or more, not {w}")));
    }
    Ok(list)
}

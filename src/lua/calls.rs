//! The typed side of the host: the contract's calls and arguments (src/contract/) turned into
//! Lua values and run, and what the rules answer turned back into Rust. The game and the
//! session above call these; no Lua value leaves src/lua/.

use super::{Host, compile, convert_error, display_value, display_values, to_lua, units};
use crate::contract::{Arg, Call, Step};
use crate::error::Error;
use mlua::{Lua, Thread, Value};
use std::collections::BTreeMap;

/// The rule coroutine of a command that waits on a question: resumed with the answer
/// ([`Host::resume`]).
#[derive(Clone)]
pub struct RuleThread(Thread);

/// A designer's expression, evaluated (`=`, `expect`).
#[derive(Clone, Debug, Default)]
pub struct Evaluated {
    /// How many values it gave.
    pub count: usize,
    /// Every value as `=` prints them (tab-separated).
    pub shown: String,
    /// The first value as printed (`nil` when there is none).
    pub first: String,
    /// Whether the first value is true for Lua (neither nil nor false).
    pub truthy: bool,
}

/// What one of the rules' describe functions (`umpire.describe{...}`) answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    Text(String),
    /// `false`: hide it.
    Hidden,
    /// `nil`: the program's own words.
    Nothing,
    /// Anything else, by its Lua type name (an error of the rules).
    Other(&'static str),
}

impl Said {
    /// The Lua type of what was said.
    pub fn type_name(&self) -> &'static str {
        match self {
            Said::Text(_) => "string",
            Said::Hidden => "boolean",
            Said::Nothing => "nil",
            Said::Other(t) => t,
        }
    }
}

/// The Lua value of a command's argument.
fn value(lua: &Lua, a: &Arg) -> mlua::Result<Value> {
    Ok(match a {
        Arg::Absent => Value::Nil,
        Arg::Flag(b) => Value::Boolean(*b),
        Arg::Unit(id) => Value::UserData(units::handle(lua, id.clone())?),
        Arg::Units(ids) => {
            let handles = ids.iter().map(|id| units::handle(lua, id.clone())).collect::<mlua::Result<Vec<_>>>()?;
            Value::Table(lua.create_sequence_from(handles)?)
        }
        Arg::Hex(s) | Arg::Word(s) | Arg::Side(s) | Arg::Text(s) => Value::String(lua.create_string(s)?),
        Arg::Int(i) => Value::Integer(*i),
        Arg::Number(n) => Value::Number(*n),
        Arg::List(xs) => Value::Table(lua.create_sequence_from(values(lua, xs)?)?),
        Arg::Data(v) => to_lua(lua, v)?,
    })
}

fn values(lua: &Lua, args: &[Arg]) -> mlua::Result<Vec<Value>> {
    args.iter().map(|a| value(lua, a)).collect()
}

impl Host {
    /// Starts a command's rule code in a new coroutine: it finishes, or waits on a question.
    /// Every start makes its arguments afresh (rule code may change the tables it is handed).
    pub fn start(&self, call: &Call) -> Result<(RuleThread, Step), Error> {
        let lua = &self.lua;
        let (entry, args): (&str, Vec<Value>) = match call {
            Call::Start => ("start", vec![]),
            Call::Next { hold } => ("next", vec![Value::Boolean(*hold)]),
            Call::Verb { name, args } => {
                let mut v = vec![Value::String(lua.create_string(name).map_err(convert_error)?)];
                v.extend(values(lua, args).map_err(convert_error)?);
                ("dispatch", v)
            }
            Call::Chunk(code) => ("run_chunk", vec![Value::Function(self.chunk(code, "lua")?)]),
        };
        let (thread, step) = self.start_entry(entry, mlua::MultiValue::from_vec(args))?;
        Ok((RuleThread(thread), step))
    }

    /// Resumes a command waiting on a question with the answer.
    pub fn resume(&self, thread: &RuleThread, answer: &str) -> Result<Step, Error> {
        self.resume_thread(&thread.0, answer)
    }

    /// Evaluates a designer's expression or chunk (`=`, `expect`).
    pub fn eval(&self, code: &str, name: &str) -> Result<Evaluated, Error> {
        let vals = self.eval_values(code, name)?.into_vec();
        let first = vals.first().cloned().unwrap_or(Value::Nil);
        Ok(Evaluated {
            count: vals.len(),
            shown: display_values(&vals).0,
            truthy: !matches!(first, Value::Nil | Value::Boolean(false)),
            first: display_value(&first),
        })
    }

    /// Runs the overlay `name` with its arguments: labels by hex id.
    pub fn overlay(&self, name: &str, args: &[Arg]) -> Result<BTreeMap<String, String>, Error> {
        self.overlay_values(name, values(&self.lua, args).map_err(convert_error)?)
    }

    /// Lines the rules add to `show <unit>` or `show <hex>` (`umpire.describe{unit=, hex=}`);
    /// `target` is the unit or the hex.
    pub fn describe(&self, what: &str, target: &Arg) -> Result<Vec<String>, Error> {
        self.describe_value(what, value(&self.lua, target).map_err(convert_error)?)
    }

    /// Whether the rules gave `umpire.describe` a `key` function.
    pub fn describes(&self, key: &str) -> Result<bool, Error> {
        let internal: mlua::Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        internal.contains_key(format!("describe_{key}")).map_err(convert_error)
    }

    /// What the rules' `umpire.describe{<key> = fn}` says, given `args`.
    pub fn describe_words(&self, key: &str, args: &[Arg]) -> Result<Said, Error> {
        let args = mlua::MultiValue::from_vec(values(&self.lua, args).map_err(convert_error)?);
        Ok(match self.call::<Value>(&format!("describe_{key}"), args)? {
            Value::String(t) => Said::Text(t.to_string_lossy()),
            Value::Boolean(false) => Said::Hidden,
            Value::Nil => Said::Nothing,
            v => Said::Other(v.type_name()),
        })
    }

    /// What the budget has counted since the last command began (instructions and charges).
    pub fn work(&self) -> u64 {
        self.budget.get()
    }

    /// Collects all garbage of the VM now (a measurement of memory: `cargo bench`).
    pub fn collect_garbage(&self) -> Result<(), Error> {
        self.lua.gc_collect().map_err(convert_error)
    }

    /// The ids of every step of the sequence of play, in order.
    pub fn step_ids(&self) -> Result<Vec<String>, Error> {
        self.call("step_ids", ())
    }

    /// The ids of the steps where play stops and waits, in order.
    pub fn stop_ids(&self) -> Result<Vec<String>, Error> {
        self.call("stop_ids", ())
    }

    /// Steps named as players read them, each with its phase.
    pub fn step_labels(&self, ids: &[String]) -> Result<String, Error> {
        self.call("step_labels", ids.to_vec())
    }
}

/// Lua's compiler without a game: whether a designer's line is unfinished (the REPL reads
/// more), and whether a rule file compiles (`check`).
pub struct SyntaxChecker(Lua);

impl Default for SyntaxChecker {
    fn default() -> Self {
        SyntaxChecker(Lua::new_with(mlua::StdLib::NONE, mlua::LuaOptions::new()).expect("a bare Lua state"))
    }
}

impl SyntaxChecker {
    /// True when `code` is a chunk that is not finished yet (an open block or string).
    pub fn incomplete(&self, code: &str) -> bool {
        matches!(
            self.0.load(code).set_name("=check").into_function(),
            Err(mlua::Error::SyntaxError { incomplete_input: true, .. })
        )
    }

    /// Compiles a rule file's text, named `chunk_name` in its errors.
    pub fn compile(&self, src: &str, chunk_name: &str) -> Result<(), Error> {
        compile(&self.0, src, chunk_name).map(|_| ()).map_err(convert_error)
    }
}

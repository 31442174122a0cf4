//! What helps a player find things, registered by the ruleset while its files load:
//! `umpire.unit_filter` (named unit states for `units`), `umpire.status` (lines for
//! `status`), `umpire.table` (the game's charts for `table`), `umpire.unfinished` (what is left
//! undone before `next` at a terminal) and `umpire.complete` (Tab candidates of a verb's
//! arguments; a verb's spec may also hold `complete`). The registrations live in `__umpire`
//! (a reload builds a new VM, so they start afresh); the host's calls below run them.

use super::while_loading;
use super::{Host, convert_error, display_value, seal};
use crate::error::Error;
use mlua::{Function, Lua, Table, Value};

/// A table registered by the ruleset (`umpire.table`), as `table <name>` prints it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableView {
    pub name: String,
    pub title: String,
    pub rule: String,
    /// The header row (may be empty).
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Lines printed under the table.
    pub notes: Vec<String>,
}

/// A registration name: a word of letters, digits, `_` and `-` (typed after a command).
fn name_of(what: &str, spec: &Table) -> mlua::Result<String> {
    let name: String =
        spec.get("name").map_err(|_| mlua::Error::runtime(format!("{what}: `name` (string) is required")))?;
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return Err(mlua::Error::runtime(format!(
            "{what}: name '{name}' must be one word of letters, digits, '_' or '-'"
        )));
    }
    Ok(name)
}

fn function_of(what: &str, spec: &Table, key: &str) -> mlua::Result<Function> {
    spec.get(key).map_err(|_| mlua::Error::runtime(format!("{what}: `{key}` (function) is required")))
}

/// Appends a function to a list of `__umpire` (`umpire.status(fn)`, `umpire.unfinished(fn)`).
fn append_hook(lua: &Lua, um: &Table, internal: &Table, key: &'static str) -> mlua::Result<()> {
    let list = lua.create_table()?;
    internal.set(key, list.clone())?;
    um.set(
        key,
        lua.create_function(move |lua, f: Value| {
            let what = format!("umpire.{key}");
            while_loading(lua, &what)?;
            let Value::Function(f) = f else {
                return Err(mlua::Error::runtime(format!("{what}: expects a function, not {}", f.type_name())));
            };
            list.raw_set(list.raw_len() + 1, f)
        })?,
    )
}

/// `umpire.<api>{ name = ..., ... }`, registered once per name while the rule files load: `make`
/// checks the spec and gives what `__umpire.<key>[name]` holds.
fn named(
    lua: &Lua,
    um: &Table,
    internal: &Table,
    api: &'static str,
    key: &'static str,
    make: fn(&Lua, &str, Table) -> mlua::Result<Table>,
) -> mlua::Result<()> {
    let registered = lua.create_table()?;
    internal.set(key, registered.clone())?;
    um.set(
        api,
        lua.create_function(move |lua, spec: Table| {
            let what = format!("umpire.{api}");
            while_loading(lua, &what)?;
            let name = name_of(&what, &spec)?;
            if registered.contains_key(name.as_str())? {
                return Err(mlua::Error::runtime(format!("{what}: '{name}' is registered twice")));
            }
            let value = make(lua, &format!("{what} '{name}'"), spec)?;
            registered.set(name, value)
        })?,
    )
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let internal: Table = lua.globals().get("__umpire")?;
    let um: Table = lua.globals().get("umpire")?;

    // umpire.unit_filter{ name = "activated", help = "...", test = function(u) return bool end }
    named(lua, &um, &internal, "unit_filter", "unit_filters", |lua, what, spec| {
        let test = function_of(what, &spec, "test")?;
        let help: Option<String> = spec.get("help")?;
        let f = lua.create_table()?;
        f.set("help", help.unwrap_or_default())?;
        f.set("test", test)?;
        Ok(f)
    })?;
    // umpire.table{ name = "crt", title =, rule =, columns = {...}, rows = {...} | function, notes = {...} }
    named(lua, &um, &internal, "table", "tables", |_, what, spec| match spec.get::<Value>("rows")? {
        Value::Table(_) | Value::Function(_) => Ok(spec),
        other => Err(mlua::Error::runtime(format!(
            "{what}: `rows` must be a list of rows or a function returning one, not {}",
            other.type_name()
        ))),
    })?;
    append_hook(lua, &um, &internal, "status")?;
    append_hook(lua, &um, &internal, "unfinished")?;

    // umpire.complete("attack", function(index, words) return {candidates} end)
    let completers = lua.create_table()?;
    internal.set("completers", completers.clone())?;
    um.set(
        "complete",
        lua.create_function(move |lua, (verb, f): (String, Function)| {
            while_loading(lua, "umpire.complete")?;
            completers.set(verb, f)
        })?,
    )
}

/// The strings of a list returned by rule code (`nil`: none).
fn lines_of(v: Value, what: &str) -> Result<Vec<String>, Error> {
    match v {
        Value::Nil => Ok(vec![]),
        Value::Table(t) => seal::seen_through(t)
            .sequence_values::<Value>()
            .map(|v| v.map(|v| display_value(&v)).map_err(convert_error))
            .collect(),
        other => Err(Error::Lua(format!("{what} must return a list of lines, not {}", other.type_name()))),
    }
}

impl Host {
    fn internal(&self, key: &str) -> Result<Table, Error> {
        self.lua.globals().get::<Table>("__umpire").and_then(|t| t.get::<Table>(key)).map_err(convert_error)
    }

    /// Calls a rule function the host registered, under the command's budget.
    pub(super) fn call_rule<R: mlua::FromLuaMulti>(
        &self,
        f: &Function,
        args: impl mlua::IntoLuaMulti,
    ) -> Result<R, Error> {
        self.reset_budget();
        self.checked(f.call(args).map_err(|e| self.run_error(e)))
    }

    /// The ruleset's unit filters (`umpire.unit_filter`): (name, help), by name.
    pub fn unit_filters(&self) -> Result<Vec<(String, String)>, Error> {
        let t = self.internal("unit_filters")?;
        let mut out = Vec::new();
        for p in seal::seen_through(t).pairs::<String, Table>() {
            let (name, f) = p.map_err(convert_error)?;
            out.push((name, f.get::<String>("help").map_err(convert_error)?));
        }
        out.sort();
        Ok(out)
    }

    /// The units of `ids` that pass the ruleset's filter `name` (run it look-only:
    /// `Game::read_only`). One budget and one check of the sealed tables for the whole list:
    /// the test runs once per unit, the host's checks once per `units` command.
    pub fn unit_filter(&self, name: &str, ids: &[String]) -> Result<Vec<String>, Error> {
        let f: Table = self.internal("unit_filters")?.get(name).map_err(convert_error)?;
        let test: Function = f.get("test").map_err(convert_error)?;
        self.reset_budget();
        let run = || -> mlua::Result<Vec<String>> {
            let mut out = Vec::new();
            for id in ids {
                let v: Value = test.call(super::units::handle(&self.lua, id.clone())?)?;
                if !matches!(v, Value::Nil | Value::Boolean(false)) {
                    out.push(id.clone());
                }
            }
            Ok(out)
        };
        self.checked(run().map_err(|e| self.run_error(e)))
    }

    /// The lines of `umpire.status` and `umpire.unfinished` hooks (`key`), in registration order.
    pub fn hook_lines(&self, key: &str) -> Result<Vec<String>, Error> {
        let list = seal::seen_through(self.internal(key)?);
        let mut out = Vec::new();
        for f in list.sequence_values::<Function>() {
            let v: Value = self.call_rule(&f.map_err(convert_error)?, ())?;
            out.extend(lines_of(v, &format!("umpire.{key}'s function"))?);
        }
        Ok(out)
    }

    /// The ruleset's tables (`umpire.table`): (name, title, rule), by name.
    pub fn table_names(&self) -> Result<Vec<(String, String, String)>, Error> {
        let t = self.internal("tables")?;
        let mut out = Vec::new();
        for p in seal::seen_through(t).pairs::<String, Table>() {
            let (name, spec) = p.map_err(convert_error)?;
            let title: Option<String> = spec.get("title").map_err(convert_error)?;
            let rule: Option<String> = spec.get("rule").map_err(convert_error)?;
            out.push((name, title.unwrap_or_default(), rule.unwrap_or_default()));
        }
        out.sort();
        Ok(out)
    }

    /// One table, its rows computed now when they are a function (run it look-only).
    pub fn table(&self, name: &str) -> Result<TableView, Error> {
        let spec: Table = self.internal("tables")?.get(name).map_err(convert_error)?;
        let what = format!("table '{name}'");
        let text = |k: &str| -> Result<String, Error> {
            Ok(spec.get::<Option<String>>(k).map_err(convert_error)?.unwrap_or_default())
        };
        let rows = match spec.get::<Value>("rows").map_err(convert_error)? {
            Value::Function(f) => self.call_rule::<Value>(&f, ())?,
            v => v,
        };
        let Value::Table(rows) = rows else {
            return Err(Error::Lua(format!("{what}: the rows must be a list of rows, not {}", rows.type_name())));
        };
        let mut view =
            TableView { name: name.to_string(), title: text("title")?, rule: text("rule")?, ..Default::default() };
        for row in seal::seen_through(rows).sequence_values::<Value>() {
            view.rows.push(match row.map_err(convert_error)? {
                Value::Table(r) => lines_of(Value::Table(r), &what)?,
                other => vec![display_value(&other)],
            });
        }
        view.columns = lines_of(spec.get("columns").map_err(convert_error)?, &what)?;
        view.notes = lines_of(spec.get("notes").map_err(convert_error)?, &what)?;
        Ok(view)
    }

    /// Tab candidates for argument `index` (1 = the first after the verb) of `verb`, the
    /// arguments before it being `words`: `None` when the rules cannot tell (no completer, or it
    /// returned nil). Run it look-only.
    pub fn complete(&self, verb: &str, index: usize, words: &[String]) -> Result<Option<Vec<String>>, Error> {
        let own: Option<Function> = self.internal("completers")?.get(verb).map_err(convert_error)?;
        let f = match own {
            Some(f) => f,
            None => {
                let spec: Option<Table> = self.internal("verbs")?.get(verb).map_err(convert_error)?;
                match spec.map(|s| s.get::<Option<Function>>("complete")).transpose().map_err(convert_error)? {
                    Some(Some(f)) => f,
                    _ => return Ok(None),
                }
            }
        };
        let list = self.lua.create_sequence_from(words.iter().cloned()).map_err(convert_error)?;
        match self.call_rule::<Value>(&f, (index, list))? {
            Value::Nil => Ok(None),
            v => lines_of(v, &format!("the completer of {verb}")).map(Some),
        }
    }
}

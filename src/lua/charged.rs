//! Calls into Rust charged to the instruction budget. The hook counts Lua's own instructions,
//! and a call of a C or Rust function is one of them however much it does: a loop of cheap
//! calls that each build a table of every unit (`units.all()`), or a string of ten million
//! bytes (`('x'):rep(1e7)`, `table.concat`), would otherwise run until the wall-clock backstop.
//! Every function of the API tables and of the string, table and utf8 libraries is wrapped so
//! that a call costs [`PER_CALL`] instructions and what it returns costs its size: a table
//! [`PER_ENTRY`] an entry of its sequence part, a string one per [`BYTES_PER_CHARGE`] bytes. A
//! command is then stopped by its budget, at the rule's line, the same on every machine.

use mlua::{Function, Lua, MultiValue, Table, Value};

/// What one call into Rust costs, in Lua instructions (about what a small Lua function costs).
pub const PER_CALL: u64 = 8;
/// What each entry of a returned sequence costs (a unit handle or a hex id made and stored:
/// several Lua instructions' worth of work).
pub const PER_ENTRY: u64 = 8;
/// Bytes of a returned string that cost one instruction.
pub const BYTES_PER_CHARGE: u64 = 16;

/// The tables whose C and Rust functions are all charged: the API.
const CHARGED: [&str; 8] = ["units", "map", "vars", "tracks", "sides", "cups", "dice", "log"];

/// The library functions charged: those whose work grows with what they make. (Wrapping shifts
/// a library function's "bad argument #1 to 'find'" to the wrapper's numbering, so the others
/// are left alone: pattern matching is Umpire's own and charged already, `coroutine` yields,
/// which a wrapper would stop, and `math` does constant work.)
const LIBRARY: [(&str, &[&str]); 3] = [
    ("string", &["byte", "char", "lower", "pack", "rep", "reverse", "upper"]),
    ("table", &["concat", "unpack"]),
    ("utf8", &["char", "codepoint"]),
];

/// What the values a call returned cost (one each, and their size).
fn size_of(values: &MultiValue) -> u64 {
    values.len() as u64
        + values
            .iter()
            .map(|v| match v {
                Value::Table(t) => t.raw_len() as u64 * PER_ENTRY,
                Value::String(s) => s.as_bytes().len() as u64 / BYTES_PER_CHARGE,
                _ => 0,
            })
            .sum::<u64>()
}

/// The API functions charged where they are made ([`set`]): [`register`] leaves them as they
/// are.
#[derive(Default)]
struct Direct(std::collections::BTreeSet<String>);

/// Puts `f` in the API table `t` (`table`, e.g. "map") as `key`, charged as [`register`]
/// charges the others but with no call of Lua between: the same charges, without the wrapper's
/// own call (a hot API function is called hundreds of thousands of times a game).
pub fn set<A, R, F>(lua: &Lua, t: &Table, table: &str, key: &str, f: F) -> mlua::Result<()>
where
    A: mlua::FromLuaMulti,
    R: mlua::IntoLuaMulti,
    F: Fn(&Lua, A) -> mlua::Result<R> + mlua::MaybeSend + 'static,
{
    let what = format!("{table}.{key}");
    if lua.app_data_ref::<Direct>().is_none() {
        lua.set_app_data(Direct::default());
    }
    lua.app_data_mut::<Direct>().expect("set above").0.insert(what.clone());
    t.set(key, lua.create_function(move |lua, args: A| billed(lua, &what, || f(lua, args)?.into_lua_multi(lua)))?)
}

/// One call, charged: [`PER_CALL`] before it, what it returns after.
fn billed(lua: &Lua, what: &str, call: impl FnOnce() -> mlua::Result<MultiValue>) -> mlua::Result<MultiValue> {
    super::charge(lua, PER_CALL, what)?;
    let out = call()?;
    super::charge(lua, size_of(&out), what)?;
    Ok(out)
}

/// One function, charged.
fn charged(lua: &Lua, f: Function, what: String) -> mlua::Result<Function> {
    lua.create_function(move |lua, args: MultiValue| billed(lua, &what, || f.call::<MultiValue>(args)))
}

/// Wraps every C or Rust function of the [`CHARGED`] tables (Lua functions count themselves)
/// and the [`LIBRARY`] functions.
pub fn register(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    for name in CHARGED {
        let Some(t) = g.get::<Option<Table>>(name)? else { continue };
        let mut fns: Vec<(String, Function)> = Vec::new();
        for p in t.pairs::<Value, Value>() {
            if let (Value::String(k), Value::Function(f)) = p?
                && f.info().what == "C"
            {
                fns.push((k.to_str()?.to_string(), f));
            }
        }
        // (in name order: no dependence on the table's order)
        fns.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, f) in fns {
            let what = format!("{name}.{k}");
            if lua.app_data_ref::<Direct>().is_some_and(|d| d.0.contains(&what)) {
                continue;
            }
            t.set(k, charged(lua, f, what)?)?;
        }
    }
    for (name, keys) in LIBRARY {
        let t: Table = g.get(name)?;
        for k in keys {
            let f: Function = t.get(*k)?;
            t.set(*k, charged(lua, f, format!("{name}.{k}"))?)?;
        }
    }
    Ok(())
}

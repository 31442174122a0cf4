//! Lua values to and from the state's data (JSON values): bounded in size and depth, charged
//! to the budget, with keys that stay one key and no memory addresses.

use super::*;
use mlua::{Lua, Value};

/// Converts a JSON value (persistent state) to Lua.
pub(super) fn to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
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
pub(super) const MAX_DEPTH: usize = 32;

/// What a value to be stored holds, counted as it is expanded.
#[derive(Default)]
pub(super) struct Size {
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
pub(super) fn measure(v: &Value, depth: usize, size: &mut Size) -> mlua::Result<()> {
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
pub(super) fn stable_text(text: &str) -> mlua::Result<&str> {
    match address_in(text) {
        None => Ok(text),
        Some(a) => Err(mlua::Error::runtime(format!(
            "cannot store a memory address (`{a}…`, from tostring of a table or function) in the game state: it differs in every process; store an id of your own"
        ))),
    }
}

pub(super) fn too_deep() -> mlua::Error {
    mlua::Error::runtime(format!(
        "cannot store a table nested more than {MAX_DEPTH} deep (is it cyclic?) in the game state"
    ))
}

pub(super) fn from_lua_depth(v: &Value, depth: usize) -> mlua::Result<serde_json::Value> {
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

//! `log.*`: the game log of rulings (`log.rule`) and plain lines (`log.say`); and the bound on
//! what one command may output (printed lines, log entries, rolls and draws together).

use super::seal::rule_place;
use super::{World, charge, world};
use mlua::Lua;
use std::cell::Cell;

/// Most bytes of output one command may produce: printed lines, log entries, rolls and draws
/// together, each line counting one byte more than its text. Output beyond it is a runaway:
/// the line that would go over fails.
pub const MAX_OUTPUT: usize = 1 << 20;

/// Most bytes one log entry may hold (its rule and its text).
pub const MAX_LOG_ENTRY: usize = 64 << 10;

/// What a log entry is charged to the budget, besides one per byte of its text.
const LOG_CHARGE_PER_ENTRY: u64 = 64;

/// How much of the world's output [`admit`] has counted: the lines seen and their bytes. Every
/// line the API adds goes through `admit`, and the session only ever empties the output (at
/// the start and end of a command), so output shorter than what was seen is a new command's.
#[derive(Default)]
struct Counted {
    lines: Cell<usize>,
    bytes: Cell<usize>,
}

/// Admits one more line of `len` bytes to the command's output, or fails naming the rule's
/// line and `what` (`print`, `log.say`...). The caller then pushes the line.
pub(super) fn admit(lua: &Lua, w: &World, len: usize, what: &str) -> mlua::Result<()> {
    let Some(c) = lua.app_data_ref::<Counted>() else { return Ok(()) };
    let (mut lines, mut bytes) = (c.lines.get(), c.bytes.get());
    if w.out.len() < lines {
        (lines, bytes) = (0, 0);
    }
    bytes += w.out[lines..].iter().map(|l| l.len() + 1).sum::<usize>();
    lines = w.out.len();
    if bytes + len + 1 > MAX_OUTPUT {
        return Err(mlua::Error::runtime(format!(
            "{}{what}: the command's output is over {} MiB (printed lines, log entries, rolls and draws together): a runaway loop?",
            rule_place(lua),
            MAX_OUTPUT >> 20
        )));
    }
    c.lines.set(lines + 1);
    c.bytes.set(bytes + len + 1);
    Ok(())
}

/// Adds a line to the command's output (`print`).
pub(super) fn emit(lua: &Lua, what: &str, line: String) -> mlua::Result<()> {
    let w = world(lua);
    let mut w = w.borrow_mut();
    admit(lua, &w, line.len(), what)?;
    w.out.push(line);
    Ok(())
}

/// Appends a log entry for the current command (echoed to its output), within
/// [`MAX_LOG_ENTRY`] and [`MAX_OUTPUT`].
pub(super) fn entry(lua: &Lua, what: &str, rule: Option<&[u8]>, text: &[u8]) -> mlua::Result<()> {
    let size = text.len() + rule.map_or(0, |r| r.len());
    if size > MAX_LOG_ENTRY {
        return Err(mlua::Error::runtime(format!(
            "{}{what}: a log entry of {size} bytes is over the limit of {} KiB",
            rule_place(lua),
            MAX_LOG_ENTRY >> 10
        )));
    }
    let utf8 = |b: &[u8]| {
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|e| mlua::Error::runtime(format!("{}{what}: the text is not UTF-8 ({e})", rule_place(lua))))
    };
    let rule = rule.map(utf8).transpose()?;
    let text = utf8(text)?;
    // the log is stored: an address would differ in every process
    if let Some(a) = super::address_in(&text) {
        return Err(mlua::Error::runtime(format!(
            "{}{what}: the text holds a memory address (`{a}…`, from tostring of a table or function), which differs in every process: log an id of your own",
            rule_place(lua)
        )));
    }
    charge(lua, LOG_CHARGE_PER_ENTRY + size as u64, "log entries")?;
    let w = world(lua);
    let mut w = w.borrow_mut();
    // the line echoed is `[rule] text`
    admit(lua, &w, size + rule.as_ref().map_or(0, |_| 3), what)?;
    w.log(rule, text);
    Ok(())
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    lua.set_app_data(Counted::default());
    let log = lua.create_table()?;
    log.set(
        "rule",
        lua.create_function(|lua, (rule, text): (mlua::LuaString, mlua::LuaString)| {
            entry(lua, "log.rule", Some(&rule.as_bytes()), &text.as_bytes())
        })?,
    )?;
    log.set("say", lua.create_function(|lua, text: mlua::LuaString| entry(lua, "log.say", None, &text.as_bytes()))?)?;
    lua.globals().set("log", log)
}

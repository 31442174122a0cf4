//! `dice.*`: every roll goes through the game's generator and is recorded with its purpose.

use super::vars::name;
use super::{Refusal, world};
use crate::dice::parse_expr;
use mlua::Lua;

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let t = lua.create_table()?;
    // dice.roll("2d6", purpose) -> total, {faces}
    t.set(
        "roll",
        lua.create_function(|lua, (expr, purpose): (String, Option<String>)| {
            let expr = name(lua, "dice.roll", expr)?;
            let purpose = purpose.map(|p| name(lua, "dice.roll", p)).transpose()?;
            let (n, m) = parse_expr(&expr).map_err(|e| mlua::Error::runtime(format!("dice.roll: {e}")))?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            if w.read_only {
                return Err(mlua::Error::runtime(
                    "no die may be rolled here: this code only looks (=, expect, show, map, or the decision of umpire.outcome_of)",
                ));
            }
            let purpose = purpose.unwrap_or_else(|| expr.clone());
            let faces = w
                .state
                .dice
                .roll(n, m, &purpose)
                .map_err(|e| mlua::Error::external(Refusal { rule: "dice".into(), msg: e.to_string() }))?;
            let total: u32 = faces.iter().sum();
            let forced = w.state.dice.rolls.last().is_some_and(|r| r.forced);
            if w.probe_first_roll_log.is_none() {
                w.probe_first_roll_log = Some(w.state.log.len());
            }
            let shown = if faces.len() == 1 {
                total.to_string()
            } else {
                format!("{total} ({})", faces.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("+"))
            };
            let line = format!("roll {expr} for {purpose}: {shown}{}", if forced { " (forced)" } else { "" });
            super::log::admit(lua, &w, line.len(), "dice.roll")?;
            w.out.push(line);
            Ok((total, faces))
        })?,
    )?;
    t.set(
        "d6",
        lua.create_function(|lua, purpose: Option<String>| {
            let roll: mlua::Function = lua.globals().get::<mlua::Table>("dice")?.get("roll")?;
            let (total, _): (u32, Vec<u32>) = roll.call(("1d6", purpose))?;
            Ok(total)
        })?,
    )?;
    // forced results still queued (read-only)
    t.set(
        "pending",
        lua.create_function(|lua, ()| {
            Ok(world(lua).borrow().state.dice.forced.iter().map(|f| f.to_string()).collect::<Vec<_>>())
        })?,
    )?;
    t.set(
        "last",
        lua.create_function(|lua, ()| {
            let w = world(lua);
            let w = w.borrow();
            Ok(w.state.dice.rolls.last().map(|r| r.result.clone()))
        })?,
    )?;
    // every roll and draw so far: { {purpose=, what=, result=, forced=}, ... }
    t.set(
        "rolls",
        lua.create_function(|lua, ()| {
            let w = world(lua);
            let w = w.borrow();
            let out = lua.create_table()?;
            for (i, r) in w.state.dice.rolls.iter().enumerate() {
                let e = lua.create_table()?;
                e.set("purpose", r.purpose.as_str())?;
                e.set("what", r.what.as_str())?;
                e.set("result", r.result.as_str())?;
                e.set("forced", r.forced)?;
                out.set(i + 1, e)?;
            }
            Ok(out)
        })?,
    )?;
    lua.globals().set("dice", t)?;
    Ok(())
}

/// Most combinations of faces `umpire.outcome_of` tabulates (as many as `odds` runs a verb).
const MAX_COMBINATIONS: u64 = 20_000;

/// Sets the world's look-only flag for as long as it lives, and puts back what it was.
struct Looking(super::Shared, bool);
impl Looking {
    fn new(lua: &Lua) -> Looking {
        let w = world(lua);
        let was = std::mem::replace(&mut w.borrow_mut().read_only, true);
        Looking(w, was)
    }
}
impl Drop for Looking {
    fn drop(&mut self) {
        self.0.borrow_mut().read_only = self.1;
    }
}

/// The outcome a decision returned, as text (as `umpire.outcome` takes it).
fn outcome_text(lua: &Lua, v: mlua::Value) -> mlua::Result<String> {
    match v {
        mlua::Value::String(s) => Ok(s.to_str()?.to_string()),
        v => lua.globals().get::<mlua::Function>("tostring")?.call(v),
    }
}

/// `__umpire.outcome_seen(result)`: an outcome declared in play (`umpire.outcome`), kept for
/// the command's history entry; nothing in look-only code or an `odds` run.
pub(super) fn outcome_seen(lua: &Lua, result: String) -> mlua::Result<()> {
    let w = world(lua);
    let mut w = w.borrow_mut();
    if !w.read_only && !w.probe {
        w.outcomes.push(result);
    }
    Ok(())
}

/// `__umpire.decided(decide, totals...)`: the decision of `umpire.outcome_of` in play, once,
/// on the totals rolled; it may only look (no roll, and the state as before when it returns).
pub(super) fn decided(
    lua: &Lua,
    (decide, totals): (mlua::Function, mlua::Variadic<u32>),
) -> mlua::Result<mlua::MultiValue> {
    let before = world(lua).borrow().state.clone();
    let r = {
        let _look = Looking::new(lua);
        decide.call::<mlua::MultiValue>(totals)?
    };
    let w = world(lua);
    if w.borrow().state != before {
        w.borrow_mut().state = before;
        return Err(mlua::Error::runtime(
            "umpire.outcome_of: the decision changed the game state (it may only look: apply its result after it returns)",
        ));
    }
    if let Some(first) = r.front() {
        let text = outcome_text(lua, first.clone())?;
        outcome_seen(lua, text)?;
    }
    Ok(r)
}

/// `__umpire.outcome_table(exprs, decide)`: under `odds`, the decision of `umpire.outcome_of`
/// for every combination of faces of the dice `exprs` (no die rolled), each on the state as it
/// was; the distribution of its first results is left in the world for the run's end.
pub(super) fn outcome_table(lua: &Lua, (exprs, decide): (Vec<String>, mlua::Function)) -> mlua::Result<()> {
    // the dice: (expression index, faces) per die
    let mut dice: Vec<(usize, u32)> = Vec::new();
    for (i, e) in exprs.iter().enumerate() {
        let (n, m) = parse_expr(e).map_err(|e| mlua::Error::runtime(format!("umpire.outcome_of: {e}")))?;
        dice.extend(std::iter::repeat_n((i, m), n as usize));
    }
    let combinations: u64 = dice.iter().map(|&(_, m)| m as u64).product();
    if combinations > MAX_COMBINATIONS {
        return Err(mlua::Error::runtime(format!(
            "umpire.outcome_of: {combinations} combinations of faces (odds tabulates {MAX_COMBINATIONS} at most)"
        )));
    }
    let w = world(lua);
    let before = {
        let mut w = w.borrow_mut();
        if w.probe_first_roll_log.is_none() {
            w.probe_first_roll_log = Some(w.state.log.len());
        }
        w.state.clone()
    };
    let p = 1.0 / combinations as f64;
    let mut table: crate::contract::OutcomeTable = Vec::new();
    let mut faces: Vec<u32> = vec![1; dice.len()];
    let result = (|| -> mlua::Result<()> {
        let _look = Looking::new(lua);
        loop {
            let mut totals = vec![0u32; exprs.len()];
            for (k, &(i, _)) in dice.iter().enumerate() {
                totals[i] += faces[k];
            }
            w.borrow_mut().state = before.clone();
            let first = decide.call::<mlua::MultiValue>(mlua::Variadic::from_iter(totals))?.into_iter().next();
            let r = outcome_text(lua, first.unwrap_or(mlua::Value::Nil))?;
            // (with the faces of each combination, as the runs of `odds` list them)
            match table.iter_mut().find(|e| e.0 == r) {
                Some(e) => {
                    e.1 += p;
                    e.2.push(faces.clone());
                }
                None => table.push((r, p, vec![faces.clone()])),
            }
            // next combination (an odometer over the faces, the last die fastest)
            match (0..dice.len()).rev().find(|&k| faces[k] < dice[k].1) {
                Some(k) => {
                    faces[k] += 1;
                    faces[k + 1..].iter_mut().for_each(|f| *f = 1);
                }
                None => return Ok(()),
            }
        }
    })();
    w.borrow_mut().state = before;
    result?;
    w.borrow_mut().probe_outcomes = Some(table);
    Ok(())
}

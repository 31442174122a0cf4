//! A verb's arguments, parsed by its usage line (`move <units> <hex> [<hex>...]`): units and
//! hexes resolved as typed (unique prefixes, place names), keywords matched, and every
//! argument handed to the rules as a Lua value.

use super::Session;
use crate::error::{Error, Result};
use crate::lua::{ArgKind, ArgSpec, VerbSpec, World};
use crate::names::{resolve_hex, resolve_side, resolve_unit};
use mlua::{Lua, Value};

impl Session {
    /// Parses a verb's arguments by its usage line, resolving units and hexes.
    pub(crate) fn parse_args(&self, spec: &VerbSpec, rest: &str) -> Result<Vec<Value>> {
        let g = self.game()?;
        let lua = &g.host().lua;
        let w = g.shared.borrow();
        let words: Vec<&str> = rest.split_whitespace().collect();
        let usage = || format!("usage: {}", spec.usage);
        // what a list of units looks like, said where one is wrong or missing
        let lists = |a: &ArgSpec| if matches!(a.kind, ArgKind::Units) { UNITS_NOTE } else { "" };
        // right after a list of units, a word that is a unit is a list typed with spaces
        let mut after_units = false;
        let spaced = |at: usize, after_units: bool| -> Result<()> {
            match words.get(at) {
                Some(word) if after_units && resolve_unit(&w.state, word).is_ok() => {
                    let list = words[at - 1..].iter().take_while(|x| resolve_unit(&w.state, x).is_ok());
                    Err(Error::Usage(format!(
                        "'{word}' is a unit: a list of units is written with commas, without spaces ({}); usage: {}",
                        list.copied().collect::<Vec<_>>().join(","),
                        spec.usage
                    )))
                }
                _ => Ok(()),
            }
        };
        let bad = |e: String| Error::Usage(format!("{e}; {}", usage()));
        let lua_err = crate::lua::convert_error;
        let mut i = 0;
        let mut out = Vec::new();
        for (idx, a) in spec.args.iter().enumerate() {
            match &a.kind {
                ArgKind::Literal(l) => {
                    let present = words.get(i).is_some_and(|x| x.eq_ignore_ascii_case(l));
                    if present {
                        i += 1;
                        after_units = false;
                    } else if !a.optional {
                        let at = words.get(i).map(|x| format!("where '{x}' is")).unwrap_or_else(|| "at the end".into());
                        return Err(Error::Usage(format!("expected '{l}' {at}; {}", usage())));
                    }
                    if a.optional {
                        out.push(Value::Boolean(present));
                    }
                }
                ArgKind::Text => {
                    spaced(i, after_units)?;
                    let text = words[i.min(words.len())..].join(" ");
                    i = words.len();
                    if text.is_empty() && !a.optional {
                        return Err(missing(a, &usage()));
                    }
                    out.push(if text.is_empty() {
                        Value::Nil
                    } else {
                        Value::String(lua.create_string(text).map_err(lua_err)?)
                    });
                }
                kind if a.repeated => {
                    if matches!(kind, ArgKind::Word) {
                        spaced(i, after_units)?;
                    }
                    // a repetition stops at a keyword that a later argument expects
                    let stop = keywords_after(spec, idx);
                    let mut vals = Vec::new();
                    while i < words.len() && !stop.iter().any(|l| l.eq_ignore_ascii_case(words[i])) {
                        vals.push(one(lua, &w, kind, words[i]).map_err(bad)?);
                        i += 1;
                    }
                    if vals.is_empty() && !a.optional {
                        return Err(missing(a, &usage()));
                    }
                    if !vals.is_empty() {
                        after_units = false;
                    }
                    out.push(Value::Table(lua.create_sequence_from(vals).map_err(lua_err)?));
                }
                kind => {
                    if matches!(kind, ArgKind::Word) {
                        spaced(i, after_units)?;
                    }
                    if i < words.len() {
                        out.push(one(lua, &w, kind, words[i]).map_err(bad)?);
                        i += 1;
                        after_units = matches!(kind, ArgKind::Units);
                    } else if a.optional {
                        out.push(Value::Nil);
                    } else {
                        return Err(missing(a, &format!("{}{}", usage(), lists(a))));
                    }
                }
            }
        }
        if i < words.len() {
            spaced(i, after_units)?;
            return Err(Error::Usage(format!("unexpected '{}'; {}", words[i..].join(" "), usage())));
        }
        Ok(out)
    }
}

/// The keywords (literal words) of the usage line after argument `idx`: where a repeated
/// argument stops.
pub(super) fn keywords_after(spec: &VerbSpec, idx: usize) -> Vec<&str> {
    spec.args[idx + 1..]
        .iter()
        .filter_map(|x| if let ArgKind::Literal(l) = &x.kind { Some(l.as_str()) } else { None })
        .collect()
}

/// Said of a list of units that is wrong or missing.
const UNITS_NOTE: &str = " (<units>: unit ids separated by commas, no spaces: A,B,C)";

fn missing(a: &ArgSpec, usage: &str) -> Error {
    Error::Usage(format!("missing <{}>; {usage}", a.name))
}

/// One word as the Lua value of an argument of `kind`.
fn one(lua: &Lua, w: &World, kind: &ArgKind, word: &str) -> std::result::Result<Value, String> {
    let s = |x: String| lua.create_string(x).map(Value::String).map_err(|e| e.to_string());
    let handle = |id: String| crate::lua::unit_handle(lua, id).map_err(|e| e.to_string());
    match kind {
        ArgKind::Unit => handle(resolve_unit(&w.state, word)?).map(Value::UserData),
        ArgKind::Units => {
            if word.split(',').all(str::is_empty) {
                return Err(format!("'{word}' names no unit (a list of units is separated by commas: A,B)"));
            }
            let mut ids = Vec::new();
            for part in word.split(',').filter(|p| !p.is_empty()) {
                let id = resolve_unit(&w.state, part)?;
                if ids.contains(&id) {
                    return Err(format!("unit {id} is listed twice"));
                }
                ids.push(id);
            }
            let hs = ids.into_iter().map(handle).collect::<std::result::Result<Vec<_>, _>>()?;
            lua.create_sequence_from(hs).map(Value::Table).map_err(|e| e.to_string())
        }
        ArgKind::Hex => s(w.map.fmt(resolve_hex(&w.map, word)?)),
        ArgKind::Int => word.parse::<i64>().map(Value::Integer).map_err(|_| format!("'{word}' is not a whole number")),
        ArgKind::Number => word.parse::<f64>().map(Value::Number).map_err(|_| format!("'{word}' is not a number")),
        ArgKind::Word => s(word.to_string()),
        ArgKind::Side => s(resolve_side(&w.state, word)?),
        ArgKind::Text | ArgKind::Literal(_) => unreachable!("handled by parse_args"),
    }
}

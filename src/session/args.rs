//! A verb's arguments, parsed by its usage line (`move <units> <hex> [<hex>...]`): units and
//! hexes resolved as typed (unique prefixes, place names), keywords matched, and every
//! argument typed ([`Arg`]) for the rules.

use super::Session;
use crate::contract::{Arg, ArgKind, ArgSpec, VerbSpec, World};
use crate::error::{Error, Result};
use crate::names::{resolve_hex, resolve_side, resolve_unit};

impl Session {
    /// Parses a verb's arguments by its usage line, resolving units and hexes.
    pub(crate) fn parse_args(&self, spec: &VerbSpec, rest: &str) -> Result<Vec<Arg>> {
        let g = self.game()?;
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
                        out.push(Arg::Flag(present));
                    }
                }
                ArgKind::Text => {
                    spaced(i, after_units)?;
                    let text = words[i.min(words.len())..].join(" ");
                    i = words.len();
                    if text.is_empty() && !a.optional {
                        return Err(missing(a, &usage()));
                    }
                    out.push(if text.is_empty() { Arg::Absent } else { Arg::Text(text) });
                }
                kind if a.repeated => {
                    if matches!(kind, ArgKind::Word) {
                        spaced(i, after_units)?;
                    }
                    // a repetition stops at a keyword that a later argument expects
                    let stop = keywords_after(spec, idx);
                    let mut vals = Vec::new();
                    while i < words.len() && !stop.iter().any(|l| l.eq_ignore_ascii_case(words[i])) {
                        vals.push(one(&w, kind, words[i]).map_err(bad)?);
                        i += 1;
                    }
                    if vals.is_empty() && !a.optional {
                        return Err(missing(a, &usage()));
                    }
                    if !vals.is_empty() {
                        after_units = false;
                    }
                    out.push(Arg::List(vals));
                }
                kind => {
                    if matches!(kind, ArgKind::Word) {
                        spaced(i, after_units)?;
                    }
                    if i < words.len() {
                        out.push(one(&w, kind, words[i]).map_err(bad)?);
                        i += 1;
                        after_units = matches!(kind, ArgKind::Units);
                    } else if a.optional {
                        out.push(Arg::Absent);
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

/// One word as an argument of `kind`.
fn one(w: &World, kind: &ArgKind, word: &str) -> std::result::Result<Arg, String> {
    match kind {
        ArgKind::Unit => resolve_unit(&w.state, word).map(Arg::Unit),
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
            Ok(Arg::Units(ids))
        }
        ArgKind::Hex => Ok(Arg::Hex(w.map.fmt(resolve_hex(&w.map, word)?))),
        ArgKind::Int => word.parse::<i64>().map(Arg::Int).map_err(|_| format!("'{word}' is not a whole number")),
        ArgKind::Number => word.parse::<f64>().map(Arg::Number).map_err(|_| format!("'{word}' is not a number")),
        ArgKind::Word => Ok(Arg::Word(word.to_string())),
        ArgKind::Side => resolve_side(&w.state, word).map(Arg::Side),
        ArgKind::Text | ArgKind::Literal(_) => unreachable!("handled by parse_args"),
    }
}

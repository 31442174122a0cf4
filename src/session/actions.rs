//! `actions [unit|hex]` and `moves <unit>`: what may be done now, from the ruleset's own list
//! (`umpire.actions`, docs/lua-api.md §2.6) or the answers of the pending decision.

use super::{Reply, Session};
use crate::contract::{Action, ActionFilter};
use crate::error::{Error, Result};
use crate::names::{resolve_hex, resolve_unit};

/// A group longer than this is shown unit by unit in `actions` (moves: hundreds).
const LISTED: usize = 20;

fn filter_of(s: &Session, text: &str) -> Result<ActionFilter> {
    let g = s.game()?;
    let text = text.trim();
    if text.is_empty() {
        return Ok(ActionFilter::default());
    }
    let st = g.state();
    match (resolve_unit(&st, text), resolve_hex(&g.scenario.map, text)) {
        (Ok(id), _) => Ok(ActionFilter { unit: Some(id), hex: None }),
        (Err(_), Ok(h)) => Ok(ActionFilter { unit: None, hex: Some(g.fmt_hex(h)) }),
        (Err(ue), Err(he)) => Err(Error::Usage(format!("{ue}; {he}"))),
    }
}

fn listed(s: &Session, filter: &ActionFilter) -> Result<Vec<Action>> {
    s.game()?.actions(filter)?.ok_or_else(|| {
        Error::Usage("this ruleset does not list what may be done (umpire.actions): `help` lists its commands".into())
    })
}

/// The groups of a list in the order first seen.
fn groups(list: &[Action]) -> Vec<(String, Vec<&Action>)> {
    crate::contract::action_groups(list)
        .into_iter()
        .map(|(g, ix)| (g.to_string(), ix.into_iter().map(|i| &list[i]).collect()))
        .collect()
}

fn line(a: &Action) -> String {
    match &a.note {
        Some(n) => format!("    {:<36} {n}", a.cmd),
        None => format!("    {}", a.cmd),
    }
}

pub(super) fn actions(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let filter = filter_of(s, rest)?;
    let list = listed(s, &filter)?;
    let what = filter.unit.as_ref().or(filter.hex.as_ref()).map(|x| format!(" for {x}")).unwrap_or_default();
    if list.is_empty() {
        return Ok(Reply::ok(vec![format!("nothing may be done now{what}")]));
    }
    let mut out =
        vec![format!("{} {} may be done now{what}:", list.len(), if list.len() == 1 { "command" } else { "commands" })];
    for (group, items) in groups(&list) {
        out.push(format!("  {group} ({})", items.len()));
        let units: Vec<&str> = items.iter().filter_map(|a| a.unit.as_deref()).collect();
        if filter.unit.is_none() && filter.hex.is_none() && items.len() > LISTED && units.len() == items.len() {
            // unit by unit, in the order listed: `moves <unit>` shows each one's
            // (in the order first seen; the index finds a unit's place without a search)
            let mut by: Vec<(&str, usize)> = Vec::new();
            let mut at: crate::hex::FastMap<&str, usize> = crate::hex::FastMap::default();
            for u in units {
                let i = *at.entry(u).or_insert_with(|| {
                    by.push((u, 0));
                    by.len() - 1
                });
                by[i].1 += 1;
            }
            let parts: Vec<String> = by.iter().map(|(u, n)| format!("{u} {n}")).collect();
            for chunk in parts.chunks(8) {
                out.push(format!("    {}", chunk.join(", ")));
            }
            out.push("    (by unit: `actions <unit>` lists them, `moves <unit>` shows where each goes)".to_string());
        } else {
            out.extend(items.iter().map(|a| line(a)));
        }
    }
    Ok(Reply::ok(out))
}

pub(super) fn moves(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    if rest.trim().is_empty() {
        return Err(Error::Usage("usage: moves <unit>".into()));
    }
    let filter = filter_of(s, rest)?;
    let Some(unit) = filter.unit.clone() else {
        return Err(Error::Usage(format!(
            "moves takes a unit ('{}' is a hex: `actions {}` lists what concerns it)",
            rest.trim(),
            rest.trim()
        )));
    };
    let list = listed(s, &filter)?;
    let mut out = Vec::new();
    let (to, others): (Vec<&Action>, Vec<&Action>) = list.iter().partition(|a| a.group == "move" && a.hex.is_some());
    if to.is_empty() {
        out.push(match super::show::why_cannot_move(s.game()?, &unit)? {
            Some(why) => format!("{unit} cannot move now: {why}"),
            None => format!("{unit} cannot move now (no move of it is listed: `actions` lists what may be done)"),
        });
    } else {
        out.push(format!("{unit} can move to {} {}:", to.len(), if to.len() == 1 { "hex" } else { "hexes" }));
        let parts: Vec<String> = to
            .iter()
            .map(|a| match &a.note {
                Some(n) => format!("{} ({n})", a.hex.as_deref().unwrap_or("")),
                None => a.hex.clone().unwrap_or_default(),
            })
            .collect();
        for chunk in parts.chunks(6) {
            out.push(format!("    {}", chunk.join(", ")));
        }
    }
    for (group, items) in groups(&others.into_iter().cloned().collect::<Vec<_>>()) {
        out.push(format!("  {group} ({})", items.len()));
        for a in items {
            out.push(line(a));
            if let Some(chances) = super::odds::odds_summary(s, &a.cmd) {
                out.push(format!("        {chances}"));
            }
        }
    }
    Ok(Reply::ok(out))
}

/// `evaluate [side]`: the ruleset's score of the state for a side and its figures
/// (`umpire.evaluate`, docs/lua-api.md §2.7).
pub(super) fn evaluate(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let sides = g.sides();
    let side = match rest.trim() {
        "" => g.state().clock.side.clone().or_else(|| sides.first().cloned()).unwrap_or_default(),
        x => sides.iter().find(|s| s.eq_ignore_ascii_case(x)).cloned().ok_or_else(|| {
            Error::Usage(format!("no side '{x}' (sides: {}); usage: evaluate [<side>]", sides.join(", ")))
        })?,
    };
    let e = g.evaluate(&side)?.ok_or_else(|| {
        Error::Usage("this ruleset does not score positions (umpire.evaluate): bots cannot play it greedily".into())
    })?;
    let mut out = vec![format!("score for {side}: {}", crate::text::fmt_number(e.score))];
    for (k, f) in &e.figures {
        out.push(match f {
            crate::contract::Figure::Number(x) => format!("  {k} = {}", crate::text::fmt_number(*x)),
            crate::contract::Figure::Text(t) => format!("  {k} = {t}"),
        });
    }
    Ok(Reply::ok(out))
}

/// `map moves <unit>`: the hexes the listed moves of a unit go to, each labelled with the first
/// word of its note (its cost) or `*`, and the unit's hex (where the view centres).
pub(super) fn move_labels(
    s: &Session,
    unit: &str,
) -> Result<(std::collections::BTreeMap<crate::hex::HexId, String>, crate::hex::HexId)> {
    let filter = filter_of(s, unit)?;
    let Some(id) = filter.unit.clone() else {
        return Err(Error::Usage(format!("map moves takes a unit ('{unit}' is a hex)")));
    };
    let g = s.game()?;
    let at = g
        .state()
        .units
        .get(&id)
        .and_then(|u| u.hex())
        .ok_or_else(|| Error::Usage(format!("{id} is not on the map")))?;
    let mut labels = std::collections::BTreeMap::new();
    for a in listed(s, &filter)? {
        let Some(h) = a.hex.as_deref().filter(|_| a.group == "move") else { continue };
        let Some(hex) = g.scenario.map.grid.parse(h) else { continue };
        let label = a.note.as_deref().and_then(|n| n.split_whitespace().next()).unwrap_or("*").to_string();
        labels.insert(hex, label);
    }
    Ok((labels, at))
}

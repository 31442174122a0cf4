//! `show <hex|unit|place>`: a unit's values and markers or a hex's terrain and stack, in the
//! rules' words where they give them (`umpire.describe`).

use super::{Reply, Session};
use crate::contract::Arg;
use crate::error::{Error, Result};
use crate::game::Game;
use crate::hex::HexId;
use crate::lua::Said;
use crate::names::{resolve_hex, resolve_unit};
use crate::state::{GameState, Location, Unit};
use crate::text::{json_text, markers};
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn show(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let text = rest.trim();
    if text.is_empty() {
        return Err(Error::Usage("usage: show <hex|unit|place>".into()));
    }
    let target = {
        let st = g.state();
        match (resolve_unit(&st, text), resolve_hex(&g.scenario.map, text)) {
            (Ok(id), _) => {
                let u = st.units.get(&id).expect("a resolved unit");
                // fog of war: an enemy unit that is not on top of its stack cannot be examined
                if g.is_hidden(&st, u) {
                    return Err(Error::Usage(format!("{id} is hidden under the top of its stack (fog of war)")));
                }
                Shown::Unit(id)
            }
            (Err(_), Ok(h)) => Shown::Hex(h),
            (Err(ue), Err(he)) => return Err(Error::Usage(format!("{ue}; {he}"))),
        }
    };
    // the rules' words for markers and attributes, and their own lines (current values with
    // their modifiers, ZOC, control...); the state is put back afterwards
    let (r, _) = g.read_only(|g| -> Result<Vec<String>> {
        let labels = labels(g, &target)?;
        let mut out = match &target {
            Shown::Unit(id) => {
                let u = g.state().units.get(id).cloned().expect("a resolved unit");
                let strength = strength_of(g, &u)?;
                show_unit(g, &u, &strength, &labels)
            }
            Shown::Hex(h) => show_hex(g, &g.state(), *h, &labels),
        };
        let (what, arg) = match &target {
            Shown::Unit(id) => ("unit", Arg::Unit(id.clone())),
            Shown::Hex(h) => ("hex", Arg::Hex(g.fmt_hex(*h))),
        };
        out.extend(g.host().describe(what, &arg)?);
        Ok(out)
    });
    Ok(Reply::ok(r?))
}

/// What the rules' `umpire.describe{<key> = fn(u)}` says of a unit: `None` when they give no
/// such function or it returns nil (`nil_means` says what nil stands for, in the error of a
/// result that is neither).
fn unit_words(g: &Game, key: &str, unit: &str, nil_means: &str) -> Result<Option<String>> {
    if !g.host().describes(key)? {
        return Ok(None);
    }
    match g.host().describe_words(key, &[Arg::Unit(unit.to_string())])? {
        Said::Text(t) => Ok(Some(t)),
        Said::Nothing => Ok(None),
        said => Err(Error::Lua(format!(
            "umpire.describe: `{key}` must return a text or nil ({nil_means}) for {unit}, not {}",
            said.type_name()
        ))),
    }
}

/// A unit's strength in the rules' words (`umpire.describe{strength = fn}`), else the kernel's
/// (`full, 2 of 2 steps`).
pub(super) fn strength_of(g: &Game, u: &Unit) -> Result<String> {
    Ok(unit_words(g, "strength", &u.id, "the kernel's words")?.unwrap_or_else(|| u.strength()))
}

/// Why a unit has no move listed now, in the rules' words (`umpire.describe{cannot_move = fn}`);
/// `None` when the rules give no reason.
pub(super) fn why_cannot_move(g: &Game, unit: &str) -> Result<Option<String>> {
    unit_words(g, "cannot_move", unit, "no reason")
}

/// What `show` looks at.
enum Shown {
    Unit(String),
    Hex(HexId),
}

/// How the rules print a marker or an attribute (`umpire.describe{marker=, attr=}`), by
/// ("marker" | "attr", name): `Some(text)`, or `None` to hide it. Absent: printed as stored.
type Labels = BTreeMap<(&'static str, String), Option<String>>;

/// Asks the rules for the words of every marker and attribute (a hex's values count as its
/// attributes) of what `show` prints. Runs inside `read_only`.
fn labels(g: &Game, target: &Shown) -> Result<Labels> {
    // the values first, with the state's borrow released before any rule runs
    let (kind, owner, items): (&str, Arg, Vec<(&'static str, String, Arg)>) = match target {
        Shown::Unit(id) => {
            let (markers, attrs) = {
                let st = g.state();
                let u = st.units.get(id).expect("a resolved unit");
                (u.markers.clone(), u.attrs.clone())
            };
            let mut items = Vec::new();
            for (k, v) in markers {
                items.push(("marker", k, Arg::Int(v)));
            }
            for (k, v) in attrs.iter() {
                items.push(("attr", k.clone(), Arg::Data(v.clone())));
            }
            ("unit", Arg::Unit(id.clone()), items)
        }
        Shown::Hex(h) => {
            let markers = g.state().hex_markers.get(h).map(|m| (**m).clone()).unwrap_or_default();
            let mut items = Vec::new();
            for (k, v) in markers {
                items.push(("marker", k, Arg::Int(v)));
            }
            for (k, v) in &g.scenario.map.hexes[h].values {
                items.push(("attr", k.clone(), Arg::Number(*v)));
            }
            ("hex", Arg::Hex(g.fmt_hex(*h)), items)
        }
    };
    let mut out = Labels::new();
    for (what, name, value) in items {
        if !g.host().describes(what)? {
            continue;
        }
        let args = [Arg::Word(kind.to_string()), Arg::Word(name.clone()), value, owner.clone()];
        match g.host().describe_words(what, &args)? {
            Said::Text(t) => {
                out.insert((what, name), Some(t));
            }
            Said::Hidden => {
                out.insert((what, name), None);
            }
            Said::Nothing => {}
            Said::Other(t) => {
                return Err(Error::Lua(format!(
                    "umpire.describe: `{what}` must return a text, false (hidden) or nil (shown as stored) for {name}, not {t}"
                )));
            }
        }
    }
    Ok(out)
}

/// One marker or attribute as `show` prints it: the rules' words, the default, or nothing.
fn labelled(labels: &Labels, what: &'static str, name: &str, default: impl FnOnce() -> String) -> Option<String> {
    match labels.get(&(what, name.to_string())) {
        Some(label) => label.clone(),
        None => Some(default()),
    }
}

/// A unit's printed values, markers and attributes.
fn show_unit(g: &Game, u: &Unit, strength: &str, labels: &Labels) -> Vec<String> {
    let map = &g.scenario.map;
    let mut out = vec![format!(
        "{} — {} ({}{})",
        u.id,
        u.name,
        u.side,
        if u.kind.is_empty() { String::new() } else { format!(", {}", u.kind) }
    )];
    out.push(match &u.loc {
        Location::Hex(h) => format!(
            "at {}{}",
            g.fmt_hex(*h),
            map.hexes.get(h).and_then(|i| i.name.clone()).map(|n| format!(" ({n})")).unwrap_or_default()
        ),
        Location::Box(b) => format!("in box {b}"),
    });
    out.push(format!("strength: {strength}"));
    let vals: Vec<String> = u
        .values()
        .iter()
        .map(|(k, v)| format!("{k} {}{}", json_text(v), if u.approx.contains(k) { " (approx.)" } else { "" }))
        .collect();
    out.push(format!("printed: {}", vals.join(", ")));
    let shown: Vec<String> = u
        .markers
        .iter()
        .filter_map(|(k, v)| labelled(labels, "marker", k, || markers(&BTreeMap::from([(k.clone(), *v)])).remove(0)))
        .collect();
    if !shown.is_empty() {
        out.push(format!("markers: {}", shown.join(", ")));
    }
    let attrs: Vec<String> =
        u.attrs.iter().filter_map(|(k, v)| labelled(labels, "attr", k, || format!("{k} {}", json_text(v)))).collect();
    if !attrs.is_empty() {
        out.push(attrs.join(", "));
    }
    if !u.approx.is_empty() {
        out.push(format!(
            "approximated values (not in the rulebook): {}",
            u.approx.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    out
}

/// A hex's terrain, features, values, hexsides, markers and the stack as the side to act may see it.
fn show_hex(g: &Game, st: &GameState, h: HexId, labels: &Labels) -> Vec<String> {
    let map = &g.scenario.map;
    let info = &map.hexes[&h];
    let mut out = vec![format!(
        "hex {}{}: {}",
        g.fmt_hex(h),
        info.name.as_ref().map(|n| format!(" ({n})")).unwrap_or_default(),
        info.terrain
    )];
    if !info.features.is_empty() {
        out.push(format!("features: {}", info.features.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    out.extend(info.values.iter().filter_map(|(k, v)| labelled(labels, "attr", k, || format!("{k}: {v}"))));
    for (d, n) in map.neighbours(h) {
        let mut f: Vec<String> = map.side_features(h, n).map(|x| x.iter().cloned().collect()).unwrap_or_default();
        if let Some(m) = st.side_markers.get(&crate::hex::Hexside::new(h, n)) {
            f.extend(m.keys().cloned());
        }
        if !f.is_empty() {
            out.push(format!("hexside {} (to {}): {}", map.drawn_name(d), g.fmt_hex(n), f.join(", ")));
        }
    }
    if let Some(m) = st.hex_markers.get(&h) {
        let shown: Vec<String> = m
            .iter()
            .filter_map(|(k, v)| {
                labelled(labels, "marker", k, || markers(&BTreeMap::from([(k.clone(), *v)])).remove(0))
            })
            .collect();
        if !shown.is_empty() {
            out.push(format!("markers: {}", shown.join(", ")));
        }
    }
    let stack = st.stack(h);
    if stack.is_empty() {
        out.push("no units".into());
    } else {
        let shown: Vec<String> =
            stack.iter().filter(|u| !g.is_hidden(st, u)).map(|u| format!("{} [{}]", u.id, u.side)).collect();
        let concealed = stack.len() - shown.len();
        out.push(format!(
            "stack (top first): {}{}",
            shown.join(", "),
            match concealed {
                0 => String::new(),
                1 => " and 1 more unit hidden by fog of war".to_string(),
                n => format!(" and {n} more units hidden by fog of war"),
            }
        ));
    }
    out
}

/// The rules' words (`umpire.describe{marker=}`) for each value of a hex marker in `hexes`, by
/// (marker, value), asked once a value (of the first hex holding it): what the pictures put in
/// a key's tooltip and the legend (`ctl` 2: "controlled by the German [3.3]"). A value the
/// rules print as stored, or hide, is left out. Runs inside `read_only`.
pub(super) fn hex_marker_words(g: &Game, hexes: &BTreeSet<HexId>) -> Result<BTreeMap<(String, i64), String>> {
    let mut out = BTreeMap::new();
    if !g.host().describes("marker")? {
        return Ok(out);
    }
    let mut first: BTreeMap<(String, i64), HexId> = BTreeMap::new();
    {
        let st = g.state();
        for h in hexes {
            for (k, v) in st.hex_markers.get(h).iter().flat_map(|m| m.iter()) {
                first.entry((k.clone(), *v)).or_insert(*h);
            }
        }
    }
    for ((name, v), h) in first {
        let args = [Arg::Word("hex".into()), Arg::Word(name.clone()), Arg::Int(v), Arg::Hex(g.fmt_hex(h))];
        if let Said::Text(t) = g.host().describe_words("marker", &args)? {
            out.insert((name, v), t);
        }
    }
    Ok(out)
}

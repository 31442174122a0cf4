//! `units [filters]`: the units, filtered by side, place, state and kind.

use super::show::strength_of;
use super::{Reply, Session};
use crate::error::Result;
use crate::game::Game;
use crate::hex::HexId;
use crate::state::{GameState, Location, Unit};
use crate::text::json_text;
use std::collections::BTreeSet;

/// How `units` is typed (its line in `help`).
pub(super) const USAGE: &str = "units [<filter>...] | units --help";

/// One word of `units`: which units it keeps.
enum UnitFilter {
    Side(String),
    Box(String),
    Hex(HexId),
    Marker(String),
    /// `key=value`: a unit attribute (a formation, a nation...).
    Attr(String, String),
    Kind(String),
    /// A state the ruleset names (`umpire.unit_filter`).
    State(String),
    /// The start of a unit id.
    Id(String),
}

impl UnitFilter {
    /// What it keeps, for the message when nothing is left.
    fn describe(&self, g: &Game) -> String {
        match self {
            UnitFilter::Side(x) => format!("side {x}"),
            UnitFilter::Box(x) => format!("box {x}"),
            UnitFilter::Hex(h) => format!("hex {}", g.fmt_hex(*h)),
            UnitFilter::Marker(x) => format!("marker {x}"),
            UnitFilter::Attr(k, v) => format!("{k}={v}"),
            UnitFilter::Kind(x) => format!("kind {x}"),
            UnitFilter::State(x) => x.clone(),
            UnitFilter::Id(x) => format!("'{x}'"),
        }
    }

    /// Whether a unit passes a filter the core knows (a ruleset state is asked of the rules).
    fn keeps(&self, u: &Unit) -> bool {
        let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        match self {
            UnitFilter::Side(x) => same(&u.side, x),
            UnitFilter::Box(x) => matches!(&u.loc, Location::Box(b) if same(b, x)),
            UnitFilter::Hex(h) => u.hex() == Some(*h),
            UnitFilter::Marker(x) => u.markers.contains_key(x),
            UnitFilter::Attr(k, v) => u.attrs.get(k).is_some_and(|a| same(&json_text(a), v)),
            UnitFilter::Kind(x) => same(&u.kind, x),
            UnitFilter::State(_) => true,
            UnitFilter::Id(x) => u.id.to_lowercase().starts_with(&x.to_lowercase()),
        }
    }
}

/// Reads one word of `units` (see `units --help`).
fn unit_filter(g: &Game, st: &GameState, states: &[(String, String)], word: &str) -> UnitFilter {
    let same = |a: &str| a.eq_ignore_ascii_case(word);
    if let Some((k, v)) = word.split_once('=') {
        return match k.to_lowercase().as_str() {
            "marker" => UnitFilter::Marker(v.to_string()),
            "side" => UnitFilter::Side(v.to_string()),
            "box" => UnitFilter::Box(v.to_string()),
            "kind" => UnitFilter::Kind(v.to_string()),
            _ => UnitFilter::Attr(k.to_string(), v.to_string()),
        };
    }
    let map = &g.scenario.map;
    if let Some((n, _)) = states.iter().find(|(n, _)| same(n)) {
        UnitFilter::State(n.clone())
    } else if let Some(x) = st.sides.iter().find(|x| same(x)) {
        UnitFilter::Side(x.clone())
    } else if let Some(b) = st.boxes.iter().find(|b| same(b)) {
        UnitFilter::Box(b.clone())
    } else if let Some(m) = st.units.values().flat_map(|u| u.markers.keys()).find(|m| same(m)) {
        UnitFilter::Marker(m.clone())
    } else if let Some(h) = map.grid.parse(word).filter(|h| map.contains(*h)) {
        UnitFilter::Hex(h)
    } else if let Some((_, hexes)) = map.places.get(&word.to_lowercase()).filter(|(_, hs)| hs.len() == 1) {
        UnitFilter::Hex(hexes[0])
    } else if st.units.values().any(|u| same(&u.kind)) {
        UnitFilter::Kind(word.to_lowercase())
    } else {
        UnitFilter::Id(word.to_string())
    }
}

/// What `units --help` (and `help units`) lists: the kinds of filter and the ruleset's states.
pub(super) fn units_help(s: &Session) -> Vec<String> {
    let mut out = vec![
        "filters (combine them: `units German activated`; each word keeps the units that match it):".to_string(),
        "  <side>, <box>, <hex> or <place>, <marker>, <kind>, or the start of a unit id".to_string(),
        "  <attribute>=<value>   a unit attribute, e.g. formation=<HQ id>; marker=<name>, side=, box=, kind="
            .to_string(),
    ];
    if let Some(g) = &s.game {
        // markers are filtered by the names the rules store (`show` may word them otherwise)
        let st = g.state();
        let names: BTreeSet<&str> = st.units.values().flat_map(|u| u.markers.keys().map(String::as_str)).collect();
        if !names.is_empty() {
            out.push(format!("  markers on units now: {}", names.into_iter().collect::<Vec<_>>().join(", ")));
        }
    }
    let states = s.game.as_ref().map(|g| g.host().unit_filters()).transpose().ok().flatten().unwrap_or_default();
    if !states.is_empty() {
        out.push("states (this game):".to_string());
        for (n, h) in states {
            out.push(format!("  {n:<21} {h}"));
        }
    }
    out
}

pub(super) fn units(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    if rest.split_whitespace().any(|w| w == "--help") {
        let mut out = vec![format!("usage: {}", USAGE)];
        out.extend(units_help(s));
        return Ok(Reply::ok(out));
    }
    let g = s.game()?;
    let states = g.host().unit_filters()?;
    let (filters, mut kept) = {
        let st = g.state();
        let filters: Vec<UnitFilter> = rest.split_whitespace().map(|w| unit_filter(g, &st, &states, w)).collect();
        let kept: Vec<String> = st.units.values().filter(|u| !g.is_hidden(&st, u)).map(|u| u.id.clone()).collect();
        (filters, kept)
    };
    // each filter in the order typed, on what the ones before it kept
    let mut counts = Vec::new();
    for f in &filters {
        kept = match f {
            UnitFilter::State(name) => {
                let (r, _) = g.read_only(|g| g.host().unit_filter(name, &kept));
                r?
            }
            _ => {
                let st = g.state();
                kept.into_iter().filter(|id| st.units.get(id).is_some_and(|u| f.keeps(u))).collect()
            }
        };
        counts.push(kept.len());
        if kept.is_empty() {
            break;
        }
    }
    let listed: Vec<Unit> = kept.iter().filter_map(|id| g.state().units.get(id).cloned()).collect();
    let (strengths, _) = g.read_only(|g| listed.iter().map(|u| strength_of(g, u)).collect::<Result<Vec<String>>>());
    let strengths = strengths?;
    let mut rows = Vec::new();
    for (u, strength) in listed.iter().zip(&strengths) {
        let loc = match &u.loc {
            Location::Hex(h) => g.fmt_hex(*h),
            Location::Box(b) => format!("[{b}]"),
        };
        let vals: Vec<String> = u.values().iter().map(|(k, v)| format!("{k} {}", json_text(v))).collect();
        rows.push([u.id.clone(), u.side.clone(), loc, strength.clone(), vals.join(" ")]);
    }
    // columns as wide as their widest entry (at least the old fixed widths), so that a long id
    // or box name does not push the rest out of line
    let width = |i: usize, least: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0).max(least);
    let (w0, w1, w2, w3) = (width(0, 10), width(1, 8), width(2, 10), width(3, 22));
    let mut out: Vec<String> =
        rows.iter().map(|r| format!("{:<w0$} {:<w1$} {:<w2$} {:<w3$} {}", r[0], r[1], r[2], r[3], r[4])).collect();
    if out.is_empty() {
        out.push(match filters.as_slice() {
            [] => "no units".to_string(),
            [UnitFilter::Box(b)] => format!("the {b} box is empty"),
            [UnitFilter::Side(x)] => {
                format!("{x} has no units{}", if g.shared.borrow().fog { " you may see" } else { "" })
            }
            [UnitFilter::Id(x)] => format!(
                "no unit matches '{x}' (filter by a side, a box, a hex, a unit kind, or the start of a unit id; `units --help` lists every filter)"
            ),
            [one] => format!("no unit matches {}", one.describe(g)),
            _ => {
                let steps: Vec<String> = filters
                    .iter()
                    .zip(&counts)
                    .map(|(f, n)| match n {
                        0 => format!("{} keeps none", f.describe(g)),
                        1 => format!("{} keeps 1 unit", f.describe(g)),
                        n => format!("{} keeps {n} units", f.describe(g)),
                    })
                    .collect();
                format!("no unit matches all of `{}`: {}", rest.trim(), steps.join(", then "))
            }
        });
    }
    Ok(Reply::ok(out))
}

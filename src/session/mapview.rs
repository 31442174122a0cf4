//! `map`: the map as text around a place (or as an SVG picture), with an overlay of the rules
//! (`umpire.overlay`) or of a unit's moves.

use super::show::strength_of;
use super::{Reply, Session};
use crate::contract::Arg;
use crate::error::{Error, Result};
use crate::hex::HexId;
use crate::names::{resolve_hex, resolve_unit};
use crate::state::{Location, Unit};
use std::collections::{BTreeMap, BTreeSet};

/// What `map` draws: an overlay, a centre and radius asked for, a title.
struct MapView {
    overlay: Option<crate::render::Overlay>,
    center: Option<HexId>,
    radius: Option<i32>,
    title: String,
}

/// The rows of hexes in a window the text map chooses (the width sets its columns).
const WINDOW_ROWS: i32 = 9;

pub(super) fn map(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let mut svg = None;
    if words.first() == Some(&"--svg") {
        let force = words.get(1) == Some(&"--force");
        let f = words.get(1 + usize::from(force));
        let f = f.ok_or_else(|| {
            Error::Usage("usage: map --svg [--force] FILE [<overlay> <args>] [<hex|unit|place> [radius]]".into())
        })?;
        let file = s.scratch_path(f);
        let mode = crate::save::target(&file, &s.root, crate::save::Kind::Picture, force)?;
        svg = Some((file, f.to_string(), mode));
        words.drain(..2 + usize::from(force));
    }
    let view = map_view(s, &words)?;
    let g = s.game()?;
    let map = g.scenario.map.clone();
    let hidden = g.hidden_units();
    let state = g.state().clone();
    if let Some((file, shown, mode)) = svg {
        return draw_svg(g, view, &file, &shown, mode);
    }
    let (hexes, note) = text_window(s, &view, &map)?;
    let tm = crate::render::text::TextMap {
        map: &map,
        state: &state,
        hexes,
        overlay: view.overlay,
        hidden,
        color: s.color,
        width: s.width,
    };
    let mut out = tm.render();
    out.extend(note.iter().map(|l| crate::text::printable(l).into_owned()));
    // (the renderer draws names printable: its colours are the only escapes)
    Ok(Reply::styled(out))
}

/// `map --svg FILE`: the picture of the view, written atomically.
fn draw_svg(
    g: &crate::game::Game,
    view: MapView,
    file: &std::path::Path,
    shown: &str,
    mode: Option<std::fs::Permissions>,
) -> Result<Reply> {
    crate::save::write_atomic(file, svg_of(g, view)?.as_bytes(), mode)?;
    Ok(Reply::ok(vec![format!("map drawn to {shown}")]))
}

/// The picture of the whole map with `map`'s overlay and its arguments (`rest`) as SVG text,
/// as `map --svg FILE rest` draws it (the board serves it).
pub(super) fn svg(s: &Session, rest: &str) -> Result<String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut view = map_view(s, &words)?;
    // (the whole map: an overlay of a unit would otherwise be a window around it)
    (view.center, view.radius) = (None, None);
    svg_of(s.game()?, view)
}

/// The picture of a view as SVG text.
fn svg_of(g: &crate::game::Game, view: MapView) -> Result<String> {
    let map = g.scenario.map.clone();
    let hidden = g.hidden_units();
    // a copy (persistent maps: cheap): the rules are asked for the units' strengths below
    let state = g.state().clone();
    let all: BTreeSet<HexId> = map.hexes.keys().copied().collect();
    let hexes = match view.center {
        Some(c) => map.grid.within(c, view.radius.unwrap_or(4)).into_iter().filter(|h| map.contains(*h)).collect(),
        None => all,
    };
    let c = &state.clock;
    let mut title = format!("{} — turn {}", view.title, c.turn);
    if !c.phase.is_empty() {
        title.push_str(&format!(", {}", c.phase));
    }
    if let Some(side) = &c.side {
        title.push_str(&format!(", {side} to act"));
    }
    if let Some(o) = &view.overlay {
        title.push_str(&format!(" — overlay {}", o.title));
    }
    let drawn: Vec<Unit> = state
        .units
        .values()
        .filter(|u| matches!(u.loc, Location::Hex(h) if hexes.contains(&h)) && !hidden.contains(&u.id))
        .cloned()
        .collect();
    let (strengths, _) = g.read_only(|g| {
        drawn.iter().map(|u| Ok((u.id.clone(), strength_of(g, u)?))).collect::<Result<BTreeMap<String, String>>>()
    });
    let (marker_words, _) = g.read_only(|g| super::show::hex_marker_words(g, &hexes));
    let pic = crate::render::svg::SvgMap {
        strengths: strengths?,
        marker_words: marker_words?,
        map: &map,
        state: &state,
        hexes,
        overlay: view.overlay,
        hidden,
        symbols: &g.scenario.symbols,
        title,
    };
    Ok(pic.render())
}

/// The hexes the text map shows, with a note when they are a part of what was asked: around
/// the centre asked; the marks of an overlay if they fit, else where the marks end (the
/// front); the whole map if it fits, else the part around its middle.
fn text_window(s: &Session, view: &MapView, map: &crate::map::Map) -> Result<(BTreeSet<HexId>, Option<String>)> {
    let g = s.game()?;
    let all: BTreeSet<HexId> = map.hexes.keys().copied().collect();
    let mut note = None;
    let hexes = match (view.center, &view.overlay) {
        (Some(c), _) => crate::render::text::around(map, c, view.radius.unwrap_or(3), s.width),
        (None, Some(o)) if !o.labels.is_empty() => {
            // the marked hexes if they fit, else a window on where the marks end (the front)
            let marked: BTreeSet<HexId> = o.labels.keys().copied().collect();
            let down = marked.iter().map(|h| crate::render::text::place(map, *h).1);
            let rows = down.clone().max().unwrap_or(0) - down.min().unwrap_or(0);
            let hexes = if crate::render::text::fits(map, &marked, s.width) && rows < WINDOW_ROWS {
                let (c0, c1) = (marked.iter().map(|h| h.col).min(), marked.iter().map(|h| h.col).max());
                let (r0, r1) = (marked.iter().map(|h| h.row).min(), marked.iter().map(|h| h.row).max());
                all.iter()
                    .filter(|h| (c0..=c1).contains(&Some(h.col)) && (r0..=r1).contains(&Some(h.row)))
                    .copied()
                    .collect()
            } else {
                let occupied: BTreeSet<HexId> = g.state().units.values().filter_map(|u| u.hex()).collect();
                crate::render::text::front_window(map, &marked, &occupied, s.width, WINDOW_ROWS)
            };
            let out = marked.iter().filter(|h| !hexes.contains(*h)).count();
            if out > 0 {
                note = Some(format!(
                    "({out} of the {} marked hexes are outside this window, which is centred where the marks end; `map {} <hex|unit|place> [radius]` draws another part)",
                    marked.len(),
                    o.title
                ));
            }
            hexes
        }
        _ => {
            // the whole map if it fits, else the part around the middle
            if crate::render::text::fits(map, &all, s.width) {
                all
            } else {
                note = Some(
                    "(the part around the middle of the map; `map <hex|unit|place> [radius]` draws another part)"
                        .into(),
                );
                let mid = crate::render::text::middle(map, &all).unwrap_or(HexId::new(1, 1));
                crate::render::text::window(map, mid, s.width, WINDOW_ROWS)
            }
        }
    };
    Ok((hexes, note))
}

/// Whether `map moves <unit>` draws the unit's listed moves: the rules list actions and have
/// no overlay of that name (theirs would win).
pub(super) fn lists_moves(g: &crate::game::Game) -> bool {
    !g.overlays().contains_key("moves") && g.lists_actions().unwrap_or(false)
}

/// The hex a word of `map` names: a unit on the map, a hex or a place.
fn map_place(s: &Session, w: &str) -> Result<HexId> {
    let g = s.game()?;
    let st = g.state();
    match resolve_unit(&st, w) {
        Ok(id) => {
            st.units.get(&id).and_then(|u| u.hex()).ok_or_else(|| Error::Usage(format!("{id} is not on the map")))
        }
        Err(ue) => resolve_hex(&g.scenario.map, w).map_err(|he| {
            let mut names: Vec<String> = g.overlays().keys().cloned().collect();
            if lists_moves(g) {
                names.push("moves".into());
            }
            let known = if names.is_empty() { String::new() } else { format!("; overlays: {}", names.join(", ")) };
            Error::Usage(format!("{ue}; {he}{known}"))
        }),
    }
}

fn map_radius(w: &str) -> Result<i32> {
    w.parse().map_err(|_| Error::Usage(format!("'{w}' is not a radius (a whole number)")))
}

/// Reads `map`'s words: an overlay and its arguments, then optionally a unit/hex/place and a
/// radius; or a unit/hex/place and a radius.
fn map_view(s: &Session, words: &[&str]) -> Result<MapView> {
    let g = s.game()?;
    let overlays = g.overlays();
    let map = &g.scenario.map;
    let mut view = MapView { overlay: None, center: None, radius: None, title: g.scenario.name.clone() };
    // fog of war: no overlay of, nor a window on, a unit the viewer may not examine (as `show`)
    let st = g.state();
    for w in words.iter().skip(1) {
        if let Ok(id) = resolve_unit(&st, w)
            && st.units.get(&id).is_some_and(|u| g.is_hidden(&st, u))
        {
            return Err(Error::Usage(format!("{id} is hidden under the top of its stack (fog of war)")));
        }
    }
    drop(st);
    // `map moves <unit>`: the unit's listed moves (a ruleset's own overlay of that name wins)
    if words.first() == Some(&"moves") && !overlays.contains_key("moves") && words.len() > 1 {
        let (labels, at) = super::actions::move_labels(s, words[1])?;
        view.center = Some(at);
        view.radius = Some(4);
        if let Some(w) = words.get(2) {
            view.center = Some(map_place(s, w)?);
            view.radius = None;
        }
        if let Some(r) = words.get(3) {
            view.radius = Some(map_radius(r)?);
        }
        if let Some(extra) = words.get(4) {
            return Err(Error::Usage(format!(
                "unexpected '{extra}'; usage: map moves <unit> [<hex|unit|place> [radius]]"
            )));
        }
        view.overlay = Some(crate::render::Overlay {
            title: format!("moves {}", words[1]),
            help: "where the unit can move now, with the cost of each hex (the rules' list of actions)".into(),
            rule: String::new(),
            labels,
        });
        return Ok(view);
    }
    if let Some(spec) = words.first().and_then(|w| overlays.get(*w)) {
        let rest = &words[1..];
        // the overlay's own arguments first; what its usage leaves over is a place and radius
        let (args, own) = match s.parse_args(spec, &rest.join(" ")) {
            Ok(a) => (a, rest.len()),
            Err(e) => {
                let mut found = None;
                for k in [2, 1] {
                    let Some(n) = rest.len().checked_sub(k) else { continue };
                    let radius = match rest.get(n + 1) {
                        Some(r) => match map_radius(r) {
                            Ok(r) => Some(r),
                            Err(_) => continue,
                        },
                        None => None,
                    };
                    if let (Ok(c), Ok(a)) = (map_place(s, rest[n]), s.parse_args(spec, &rest[..n].join(" "))) {
                        (view.center, view.radius) = (Some(c), radius);
                        found = Some((a, n));
                        break;
                    }
                }
                match (found, e) {
                    (Some(f), _) => f,
                    (None, Error::Usage(m)) if m.ends_with(&spec.usage) => {
                        return Err(Error::Usage(format!("{m} [<hex|unit|place> [radius]]")));
                    }
                    (None, e) => return Err(e),
                }
            }
        };
        if view.center.is_none() {
            // centre on the first hex or unit argument
            view.center = args.iter().find_map(|a| match a {
                Arg::Hex(t) => map.grid.parse(t),
                Arg::Unit(id) => g.state().units.get(id)?.hex(),
                _ => None,
            });
            view.radius = Some(4);
        }
        let (r, _) = g.read_only(|g| g.host().overlay(&spec.name, &args));
        let mut labels = BTreeMap::new();
        for (k, v) in r? {
            let h =
                map.grid.parse(&k).ok_or_else(|| Error::Lua(format!("overlay {}: '{k}' is not a hex", spec.name)))?;
            labels.insert(h, v);
        }
        let title = std::iter::once(spec.name.as_str()).chain(rest[..own].iter().copied()).collect::<Vec<_>>();
        view.overlay = Some(crate::render::Overlay {
            title: title.join(" "),
            help: spec.help.clone(),
            rule: spec.rule.clone(),
            labels,
        });
    } else if let Some(w) = words.first() {
        view.center = Some(map_place(s, w)?);
        if let Some(r) = words.get(1) {
            view.radius = Some(map_radius(r)?);
        }
        if let Some(extra) = words.get(2) {
            return Err(Error::Usage(format!("unexpected '{extra}'; usage: map [<hex|unit|place> [radius]]")));
        }
    }
    Ok(view)
}

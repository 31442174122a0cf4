//! The commands that only look: `status`, `show`, `units`, `log`, `why`, `hash`, `help`,
//! `map` and `odds`. None changes the game; those that run rule code (`show`'s descriptions,
//! overlays, `odds`) put the state back afterwards.

use super::builtins::{BUILTINS, GROUPS};
use super::{Reply, Session, split_first};
use crate::error::{Error, Result};
use crate::game::{Game, Odds, describe_question};
use crate::hex::HexId;
use crate::lua::VerbSpec;
use crate::names::{resolve_hex, resolve_unit};
use crate::state::{GameState, Location, Unit};
use crate::text::{did_you_mean, json_text, markers};
use mlua::Value;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn hash(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    Ok(Reply::ok(vec![s.game()?.state().hash()]))
}

pub(super) fn status(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let st = g.state();
    let c = &st.clock;
    let mut out = vec![
        format!(
            "{} ({}) — rules {} {} from {}",
            g.scenario.name,
            g.scenario.id,
            g.ruleset.name,
            g.ruleset.version,
            crate::ruleset::shown(&g.ruleset.dir)
        ),
        format!(
            "turn {}{}{}",
            c.turn,
            if c.phase.is_empty() { String::new() } else { format!(", {}", c.phase) },
            c.side.as_ref().map(|s| format!(", {s} to act")).unwrap_or_default()
        ),
    ];
    if let Some(o) = &c.over {
        out.push(format!("game over: {o}"));
    }
    if let Some(p) = &g.pending {
        out.push(format!("waiting for a decision: {}", describe_question(&p.question)));
    }
    if !st.options.is_empty() {
        out.push(format!("options: {}", st.options.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    let forced: Vec<String> = st.dice.forced.iter().map(|f| f.to_string()).collect();
    out.push(format!(
        "seed {}, {} roll(s) so far{}",
        st.dice.seed,
        st.dice.rolls.len(),
        if forced.is_empty() { String::new() } else { format!(", forced next: {}", forced.join(" ")) }
    ));
    out.push(format!("{} command(s) in history, {} to redo", g.history.len(), g.redo_len()));
    for (k, v) in &st.tracks {
        out.push(format!("track {k}: {v}"));
    }
    Ok(Reply::ok(out))
}

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
        let mut out = {
            let st = g.state();
            match &target {
                Shown::Unit(id) => show_unit(g, st.units.get(id).expect("a resolved unit"), &labels),
                Shown::Hex(h) => show_hex(g, &st, *h, &labels),
            }
        };
        let lua = &g.host().lua;
        let (what, arg) = match &target {
            Shown::Unit(id) => ("unit", crate::lua::unit_handle(lua, id.clone()).map(Value::UserData)),
            Shown::Hex(h) => ("hex", lua.create_string(g.fmt_hex(*h)).map(Value::String)),
        };
        out.extend(g.host().describe(what, arg.map_err(crate::lua::convert_error)?)?);
        Ok(out)
    });
    Ok(Reply::ok(r?))
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
    let lua = &g.host().lua;
    let lua_err = crate::lua::convert_error;
    // the values first, with the state's borrow released before any rule runs
    let (kind, owner, items): (&str, Value, Vec<(&'static str, String, Value)>) = match target {
        Shown::Unit(id) => {
            let (markers, attrs) = {
                let st = g.state();
                let u = st.units.get(id).expect("a resolved unit");
                (u.markers.clone(), u.attrs.clone())
            };
            let mut items = Vec::new();
            for (k, v) in markers {
                items.push(("marker", k, Value::Integer(v)));
            }
            for (k, v) in attrs.iter() {
                items.push(("attr", k.clone(), crate::lua::to_lua(lua, v).map_err(lua_err)?));
            }
            ("unit", Value::UserData(crate::lua::unit_handle(lua, id.clone()).map_err(lua_err)?), items)
        }
        Shown::Hex(h) => {
            let markers = g.state().hex_markers.get(h).cloned().unwrap_or_default();
            let mut items = Vec::new();
            for (k, v) in markers {
                items.push(("marker", k, Value::Integer(v)));
            }
            for (k, v) in &g.scenario.map.hexes[h].values {
                items.push(("attr", k.clone(), Value::Number(*v)));
            }
            ("hex", Value::String(lua.create_string(g.fmt_hex(*h)).map_err(lua_err)?), items)
        }
    };
    let internal: mlua::Table = lua.globals().get("__umpire").map_err(lua_err)?;
    let mut out = Labels::new();
    for (what, name, value) in items {
        let f = format!("describe_{what}");
        if !internal.contains_key(f.as_str()).map_err(lua_err)? {
            continue;
        }
        match g.host().call::<Value>(&f, (kind, name.as_str(), value, owner.clone()))? {
            Value::String(t) => {
                out.insert((what, name), Some(t.to_string_lossy()));
            }
            Value::Boolean(false) => {
                out.insert((what, name), None);
            }
            Value::Nil => {}
            v => {
                return Err(Error::Lua(format!(
                    "umpire.describe: `{what}` must return a text, false (hidden) or nil (shown as stored) for {name}, not {}",
                    v.type_name()
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
fn show_unit(g: &Game, u: &Unit, labels: &Labels) -> Vec<String> {
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
    out.push(format!("strength: {}", u.strength()));
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
            out.push(format!("hexside {} (to {}): {}", map.drawn_dir(d).name(), g.fmt_hex(n), f.join(", ")));
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

pub(super) fn units(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let st = g.state();
    let f = rest.trim().to_lowercase();
    let mut out = Vec::new();
    for u in st.units.values().filter(|u| !g.is_hidden(&st, u)) {
        let loc = match &u.loc {
            Location::Hex(h) => g.fmt_hex(*h),
            Location::Box(b) => format!("[{b}]"),
        };
        let keep = f.is_empty()
            || u.side.to_lowercase() == f
            || matches!(&u.loc, Location::Box(b) if b.to_lowercase() == f)
            || loc == f
            || u.id.to_lowercase().starts_with(&f)
            || u.kind.to_lowercase() == f;
        if keep {
            let vals: Vec<String> = u.values().iter().map(|(k, v)| format!("{k} {}", json_text(v))).collect();
            out.push(format!("{:<10} {:<8} {:<10} {:<22} {}", u.id, u.side, loc, u.strength(), vals.join(" ")));
        }
    }
    if out.is_empty() {
        let what = rest.trim();
        out.push(if st.boxes.iter().any(|b| b.to_lowercase() == f) {
            format!("the {what} box is empty")
        } else if st.sides.iter().any(|x| x.to_lowercase() == f) {
            format!("{what} has no units{}", if g.shared.borrow().fog { " you may see" } else { "" })
        } else {
            format!("no unit matches '{what}' (filter by a side, a box, a hex, a unit kind, or the start of a unit id)")
        });
    }
    Ok(Reply::ok(out))
}

pub(super) fn log(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let n: usize = if rest.trim().is_empty() {
        10
    } else {
        rest.trim().parse().map_err(|_| Error::Usage("usage: log [n]".into()))?
    };
    let st = g.state();
    let start = st.log.len().saturating_sub(n);
    Ok(Reply::ok(
        st.log
            .since(start)
            .map(|e| {
                format!(
                    "#{:<4} {}{}",
                    e.command,
                    e.rule.as_ref().map(|r| format!("[{r}] ")).unwrap_or_default(),
                    e.text
                )
            })
            .collect(),
    ))
}

pub(super) fn why(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let st = g.state();
    let Some(last) = st.log.iter().rev().find(|e| e.rule.is_some()).map(|e| e.command) else {
        return Ok(Reply::ok(vec!["no ruling yet".into()]));
    };
    let mut out = vec![format!("ruling of command #{last}:")];
    for (i, e) in st.log.iter().filter(|e| e.command == last).enumerate() {
        out.push(format!("{:>3}. {:<10} {}", i + 1, e.rule.clone().unwrap_or_default(), e.text));
    }
    Ok(Reply::ok(out))
}

pub(super) fn help(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let (verbs, overlays) = s.game.as_ref().map(|g| (g.verbs(), g.overlays())).unwrap_or_default();
    let topic = rest.trim();
    if topic.is_empty() {
        return Ok(Reply::ok(help_index(&verbs, &overlays)));
    }
    if let Some(v) = verbs.get(topic) {
        let mut out = vec![format!("usage: {}", v.usage), v.help.clone()];
        if !v.example.is_empty() {
            out.push(format!("example: {}", v.example));
        }
        if !v.rule.is_empty() {
            out.push(format!("rules: {}", v.rule));
        }
        if !v.phases.is_empty() {
            out.push(format!("allowed in: {}", v.phases.join(", ")));
        }
        return Ok(Reply::ok(out));
    }
    if let Some(b) = BUILTINS.iter().find(|b| b.name == topic) {
        let mut out = vec![format!("usage: {}", b.usage), b.help.to_string()];
        if !b.example.is_empty() {
            out.push(format!("example: {}", b.example));
        }
        return Ok(Reply::ok(out));
    }
    if let Some(v) = overlays.get(topic) {
        let mut out = vec![format!("usage: {}", v.usage), v.help.clone()];
        if !v.rule.is_empty() {
            out.push(format!("rules: {}", v.rule));
        }
        return Ok(Reply::ok(out));
    }
    let names = s.command_names();
    Ok(Reply::ok(vec![format!("no command '{topic}'{}", did_you_mean(topic, names.iter()))]))
}

fn help_index(verbs: &BTreeMap<String, VerbSpec>, overlays: &BTreeMap<String, VerbSpec>) -> Vec<String> {
    let mut out = Vec::new();
    if !verbs.is_empty() {
        out.push("rules (this game):".to_string());
        for v in verbs.values() {
            let rule = if v.rule.is_empty() { String::new() } else { format!(" [{}]", v.rule) };
            out.push(format!("  {:<36} {}{rule}", v.usage, v.help));
        }
    }
    if !overlays.is_empty() {
        out.push("map overlays (this game):".to_string());
        for v in overlays.values() {
            out.push(format!("  {:<36} {}", v.usage, v.help));
        }
    }
    for group in GROUPS {
        out.push(format!("{group}:"));
        for b in BUILTINS.iter().filter(|b| b.group == *group) {
            out.push(format!("  {:<36} {}", b.usage, b.help));
        }
    }
    out.push("Unit and hex ids may be abbreviated to a unique prefix; hexes may be named by place.".into());
    out
}

/// What `map` draws: the labels of an overlay, a centre and radius, a title.
struct MapView {
    labels: BTreeMap<HexId, String>,
    center: Option<HexId>,
    radius: i32,
    title: String,
}

pub(super) fn map(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let mut svg = None;
    if words.first() == Some(&"--svg") {
        let force = words.get(1) == Some(&"--force");
        let f = words.get(1 + usize::from(force));
        let f = f.ok_or_else(|| Error::Usage("usage: map --svg [--force] FILE [<overlay> <args>]".into()))?;
        let file = s.scratch_path(f);
        let mode = crate::save::target(&file, &s.root, crate::save::Kind::Picture, force)?;
        svg = Some((file, f.to_string(), mode));
        words.drain(..2 + usize::from(force));
    }
    let view = map_view(s, &words)?;
    let g = s.game()?;
    let map = g.scenario.map.clone();
    let hidden = g.hidden_units();
    let state = g.state();
    if let Some((file, shown, mode)) = svg {
        let pic = crate::render::svg::SvgMap {
            map: &map,
            state: &state,
            overlay: view.labels,
            hidden,
            colors: &map.colors,
            title: view.title,
        };
        crate::save::write_atomic(&file, pic.render().as_bytes(), mode)?;
        return Ok(Reply::ok(vec![format!("map drawn to {shown}")]));
    }
    let hexes = match view.center {
        Some(c) => crate::render::text::around(&map, c, view.radius, s.width),
        None => {
            // the whole map if it fits, else the part around the middle
            let all: BTreeSet<HexId> = map.hexes.keys().copied().collect();
            let cols = all.iter().map(|h| h.col).max().unwrap_or(0) - all.iter().map(|h| h.col).min().unwrap_or(0) + 1;
            if (cols as usize) * 6 + 3 <= s.width {
                all
            } else {
                let mid = *all.iter().nth(all.len() / 2).unwrap_or(&HexId::new(1, 1));
                crate::render::text::around(&map, mid, 30, s.width)
            }
        }
    };
    let tm =
        crate::render::text::TextMap { map: &map, state: &state, hexes, overlay: view.labels, hidden, color: s.color };
    Ok(Reply::ok(tm.render()))
}

/// Reads `map`'s words: an overlay and its arguments, or a unit/hex/place and a radius.
fn map_view(s: &Session, words: &[&str]) -> Result<MapView> {
    let g = s.game()?;
    let overlays = g.overlays();
    let map = &g.scenario.map;
    let mut view = MapView { labels: BTreeMap::new(), center: None, radius: 3, title: g.scenario.name.clone() };
    if let Some(spec) = words.first().and_then(|w| overlays.get(*w)) {
        let args = s.parse_args(spec, &words[1..].join(" "))?;
        // centre on the first hex or unit argument
        view.center = args.iter().find_map(|a| match a {
            Value::String(t) => map.grid.parse(&t.to_string_lossy()),
            Value::UserData(u) => u.borrow::<crate::lua::UnitRef>().ok().and_then(|r| g.state().units.get(&r.0)?.hex()),
            _ => None,
        });
        let (r, _) = g.read_only(|g| g.host().overlay(&spec.name, args));
        for (k, v) in r? {
            let h =
                map.grid.parse(&k).ok_or_else(|| Error::Lua(format!("overlay {}: '{k}' is not a hex", spec.name)))?;
            view.labels.insert(h, v);
        }
        view.title = format!("{} — {}", view.title, words.join(" "));
        view.radius = 4;
        if view.center.is_none() {
            // centre on what the overlay marks
            view.center = view.labels.keys().nth(view.labels.len() / 2).copied();
        }
    } else if let Some(w) = words.first() {
        let st = g.state();
        view.center = Some(match resolve_unit(&st, w) {
            Ok(id) => st
                .units
                .get(&id)
                .and_then(|u| u.hex())
                .ok_or_else(|| Error::Usage(format!("{id} is not on the map")))?,
            Err(ue) => resolve_hex(map, w).map_err(|he| {
                let names: Vec<String> = overlays.keys().cloned().collect();
                let known = if names.is_empty() { String::new() } else { format!("; overlays: {}", names.join(", ")) };
                Error::Usage(format!("{ue}; {he}{known}"))
            })?,
        });
        if let Some(r) = words.get(1) {
            view.radius = r.parse().map_err(|_| Error::Usage(format!("'{r}' is not a radius (a whole number)")))?;
        }
    }
    Ok(view)
}

/// `odds <arguments of the combat verb>`: which verb (the one marked `odds`, or the one named
/// first, or the only one whose arguments fit), then every outcome as a table.
pub(super) fn odds(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let verbs: Vec<VerbSpec> = g.verbs().into_values().filter(|v| v.odds).collect();
    let (first, tail) = split_first(rest);
    let (spec, args_text) = match verbs.as_slice() {
        [] => return Err(Error::Usage("this ruleset has no verb that `odds` can evaluate".into())),
        [one] if first == one.name => (one.clone(), tail.to_string()),
        [one] => (one.clone(), rest.to_string()),
        many => match many.iter().find(|v| v.name == first) {
            Some(v) => (v.clone(), tail.to_string()),
            None => {
                let fits: Vec<&VerbSpec> = many.iter().filter(|v| s.parse_args(v, rest).is_ok()).collect();
                match fits.as_slice() {
                    [one] => ((*one).clone(), rest.to_string()),
                    _ => {
                        let names: Vec<&str> = many.iter().map(|v| v.name.as_str()).collect();
                        return Err(Error::Usage(format!("odds <{}> <arguments>", names.join("|"))));
                    }
                }
            }
        },
    };
    let odds = g.odds(&spec.name, |_| s.parse_args(&spec, &args_text))?;
    Ok(Reply::ok(odds_table(odds)))
}

fn odds_table(odds: Odds) -> Vec<String> {
    let mut out = odds.explanation;
    out.push(format!("{:<24} {:>9}  {:<8} {}", "result", "chance", "", "dice"));
    for (r, p, paths) in &odds.results {
        out.push(format!("{:<24} {:>8.2}%  {:<8} {}", r, p * 100.0, format!("({})", fraction(*p)), dice_text(paths)));
    }
    out
}

/// The dice that give a result: `1-2, 6` for one die, `3+5, 4+4` for a few, else a count.
fn dice_text(paths: &[Vec<u32>]) -> String {
    if paths.iter().all(|p| p.is_empty()) {
        return "no roll".into();
    }
    if paths.iter().all(|p| p.len() == 1) {
        let mut faces: Vec<u32> = paths.iter().map(|p| p[0]).collect();
        faces.sort();
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < faces.len() {
            let mut j = i;
            while j + 1 < faces.len() && faces[j + 1] == faces[j] + 1 {
                j += 1;
            }
            parts.push(if i == j { faces[i].to_string() } else { format!("{}-{}", faces[i], faces[j]) });
            i = j + 1;
        }
        return parts.join(", ");
    }
    if paths.len() <= 6 {
        return paths
            .iter()
            .map(|p| p.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("+"))
            .collect::<Vec<_>>()
            .join(", ");
    }
    format!("{} combinations", paths.len())
}

/// Probability as a fraction over 6^k or 36 when exact, e.g. `7/36`.
fn fraction(p: f64) -> String {
    for d in [6u64, 36, 216, 1296, 10, 20, 100, 2, 3, 4, 8, 12, 24, 48] {
        let n = p * d as f64;
        if (n - n.round()).abs() < 1e-9 {
            let n = n.round() as u64;
            let g = crate::text::gcd(n, d);
            return format!("{}/{}", n / g, d / g);
        }
    }
    format!("{p:.4}")
}

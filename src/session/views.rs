//! The commands that only look: `status`, `show`, `units`, `log`, `why`, `hash`, `help`,
//! `map` and `odds`. None changes the game; those that run rule code (`show`'s descriptions,
//! overlays, `odds`) put the state back afterwards.

use super::builtins::{BUILTINS, GROUPS};
use super::{Reply, Session, split_first};
use crate::error::{Error, Result};
use crate::game::{Game, Odds, describe_question};
use crate::hex::HexId;
use crate::lua::{ArgKind, ArgSpec, VerbSpec};
use crate::names::{resolve_hex, resolve_unit};
use crate::state::{GameState, Location, Unit};
use crate::text::{did_you_mean, json_text, markers};
use mlua::Value;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn hash(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    Ok(Reply::ok(vec![s.game()?.hash()]))
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
        c.place(),
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
    let tracks: Vec<(String, i64)> = st.tracks.iter().map(|(k, v)| (k.clone(), *v)).collect();
    drop(st);
    // the rules' words for each track (`umpire.describe{track=}`), or as stored
    let (words, _) = g.read_only(|g| track_words(g, &tracks));
    for ((k, v), w) in tracks.iter().zip(words?) {
        match w {
            Some(Some(text)) => out.push(text),
            Some(None) => {}
            None => out.push(format!("track {k}: {v}")),
        }
    }
    // what the rules say matters now (`umpire.status`)
    let (lines, _) = g.read_only(|g| g.host().hook_lines("status"));
    out.extend(lines?);
    Ok(Reply::ok(out))
}

/// `table` lists the game's tables (`umpire.table`); `table <name>` prints one as aligned
/// columns (a unique prefix of the name will do).
pub(super) fn table(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let names = g.host().table_names()?;
    let typed = rest.trim();
    if typed.is_empty() {
        if names.is_empty() {
            return Ok(Reply::ok(vec!["this game registers no tables".into()]));
        }
        let mut out = vec!["tables (`table <name>` prints one):".to_string()];
        let w = names.iter().map(|(n, _, _)| n.chars().count()).max().unwrap_or(0).max(12);
        for (n, title, rule) in &names {
            let rule = if rule.is_empty() { String::new() } else { format!(" [{rule}]") };
            out.push(format!("  {n:<w$} {title}{rule}"));
        }
        return Ok(Reply::ok(out));
    }
    let name = match crate::text::pick(typed, names.iter().map(|(n, _, _)| n.as_str())) {
        crate::text::Pick::One(n) => n.to_string(),
        crate::text::Pick::Many(ns) => {
            return Err(Error::Usage(format!("'{typed}' could be the tables {}", ns.join(", "))));
        }
        crate::text::Pick::None(dym) => {
            let all: Vec<&str> = names.iter().map(|(n, _, _)| n.as_str()).collect();
            return Err(Error::NotFound(format!("no table '{typed}'{dym} (tables: {})", all.join(", "))));
        }
    };
    let (view, _) = g.read_only(|g| g.host().table(&name));
    Ok(Reply::ok(table_lines(&view?)))
}

/// A table as aligned columns: the title and rule, the header, a rule line, the rows, the notes.
fn table_lines(t: &crate::lua::TableView) -> Vec<String> {
    let mut out = vec![format!(
        "{}{}",
        if t.title.is_empty() { &t.name } else { &t.title },
        if t.rule.is_empty() { String::new() } else { format!(" [{}]", t.rule) }
    )];
    let cols = t.rows.iter().map(Vec::len).chain([t.columns.len()]).max().unwrap_or(0);
    let mut width = vec![0usize; cols];
    for row in t.rows.iter().chain([&t.columns]) {
        for (i, c) in row.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let cells: Vec<String> = row.iter().enumerate().map(|(i, c)| format!("{c:<w$}", w = width[i])).collect();
        format!("  {}", cells.join("  ").trim_end())
    };
    if !t.columns.is_empty() {
        out.push(line(&t.columns));
        out.push(format!("  {}", "-".repeat(width.iter().sum::<usize>() + 2 * cols.saturating_sub(1))));
    }
    out.extend(t.rows.iter().map(|r| line(r)));
    out.extend(t.notes.iter().map(|n| format!("  {n}")));
    out
}

impl Session {
    /// What Tab may offer for the word being typed at the end of `line`, when the game can tell
    /// (`None`: complete from every unit and hex): the pending decision's options after
    /// `choose`, or what the verb's completer (`umpire.complete`) says is legal there. Looks
    /// only: the state is put back.
    pub fn candidates(&self, line: &str) -> Option<Vec<String>> {
        let g = self.game.as_ref()?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let at_new_word = line.is_empty() || line.ends_with(char::is_whitespace);
        let index = if at_new_word { words.len() } else { words.len().checked_sub(1)? };
        let verb = *words.first()?;
        if index == 0 {
            return None;
        }
        if verb == "choose" {
            let p = g.pending.as_ref()?;
            return (!p.question.options.is_empty()).then(|| p.question.options.clone());
        }
        // `odds` completes as the combat verb it evaluates (named first, or the one of this step)
        let (verb, words, index) = if verb == "odds" {
            let now = odds_verbs(g);
            match now.iter().find(|v| words.get(1).is_some_and(|w| *w == v.spec.name) && index > 1) {
                Some(v) => (v.spec.name.clone(), words[1..].to_vec(), index - 1),
                None => match now.iter().filter(|v| v.allowed).collect::<Vec<_>>().as_slice() {
                    [one] => (one.spec.name.clone(), words, index),
                    _ => return None,
                },
            }
        } else {
            (verb.to_string(), words, index)
        };
        let verb = verb.as_str();
        if !g.verbs().contains_key(verb) {
            return None;
        }
        let before: Vec<String> = words[1..index].iter().map(|w| w.to_string()).collect();
        let (r, _) = g.read_only(|g| g.host().complete(verb, index, &before));
        if let Some(list) = r.ok().flatten() {
            return Some(list);
        }
        // what the ruleset lists as legal now (`umpire.actions`): the word at this place of each
        // listed command that begins with the words typed
        if let Ok(Some(listed)) = g.actions(&crate::lua::ActionFilter::default()) {
            let mut out: Vec<String> = Vec::new();
            for a in &listed {
                let w: Vec<&str> = a.cmd.split_whitespace().collect();
                if w.first() == Some(&verb) && w.len() > index && w[1..index].iter().zip(&before).all(|(x, y)| x == y) {
                    let c = w[index].to_string();
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
            if !out.is_empty() {
                return Some(out);
            }
        }
        // the rules cannot tell: what the verb's usage line asks for there
        let spec = g.verbs().get(verb).cloned()?;
        let map = &g.scenario.map;
        match arg_at(&spec, &before)?.kind {
            // (once something is typed, the editor's own completion also turns a place's name
            // into its hex)
            ArgKind::Hex if at_new_word => Some(map.hexes.keys().map(|h| map.fmt(*h)).collect()),
            ArgKind::Unit | ArgKind::Units => {
                let st = g.state();
                Some(st.units.values().filter(|u| !g.is_hidden(&st, u)).map(|u| u.id.clone()).collect())
            }
            _ => None,
        }
    }

    /// What the rules say is left undone before `next` ends the segment (`umpire.unfinished`).
    pub fn unfinished(&self) -> Vec<String> {
        let Some(g) = self.game.as_ref().filter(|g| g.pending.is_none()) else { return vec![] };
        let (r, _) = g.read_only(|g| g.host().hook_lines("unfinished"));
        r.unwrap_or_default()
    }
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
        let mut out = match &target {
            Shown::Unit(id) => {
                let u = g.state().units.get(id).cloned().expect("a resolved unit");
                let strength = strength_of(g, &u)?;
                show_unit(g, &u, &strength, &labels)
            }
            Shown::Hex(h) => show_hex(g, &g.state(), *h, &labels),
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

/// Whether the rules gave `umpire.describe` a `what` function (kept as
/// `__umpire.describe_<what>`).
fn describes(g: &Game, what: &str) -> Result<bool> {
    let lua_err = crate::lua::convert_error;
    let internal: mlua::Table = g.host().lua.globals().get("__umpire").map_err(lua_err)?;
    internal.contains_key(format!("describe_{what}")).map_err(lua_err)
}

/// What the rules' `umpire.describe{<key> = fn(u)}` says of a unit: `None` when they give no
/// such function or it returns nil (`nil_means` says what nil stands for, in the error of a
/// result that is neither).
fn unit_words(g: &Game, key: &str, unit: &str, nil_means: &str) -> Result<Option<String>> {
    if !describes(g, key)? {
        return Ok(None);
    }
    let handle = crate::lua::unit_handle(&g.host().lua, unit.to_string()).map_err(crate::lua::convert_error)?;
    match g.host().call::<Value>(&format!("describe_{key}"), Value::UserData(handle))? {
        Value::String(t) => Ok(Some(t.to_string_lossy())),
        Value::Nil => Ok(None),
        v => Err(Error::Lua(format!(
            "umpire.describe: `{key}` must return a text or nil ({nil_means}) for {unit}, not {}",
            v.type_name()
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

/// How the rules print each track in `status` (`umpire.describe{track = fn}`): `Some(Some(text))`,
/// `Some(None)` hidden, `None` printed as stored.
fn track_words(g: &Game, tracks: &[(String, i64)]) -> Result<Vec<Option<Option<String>>>> {
    if !describes(g, "track")? {
        return Ok(vec![None; tracks.len()]);
    }
    let mut out = Vec::new();
    for (name, v) in tracks {
        match g.host().call::<Value>("describe_track", (name.as_str(), Value::Integer(*v)))? {
            Value::String(t) => out.push(Some(Some(t.to_string_lossy()))),
            Value::Boolean(false) => out.push(Some(None)),
            Value::Nil => out.push(None),
            v => {
                return Err(Error::Lua(format!(
                    "umpire.describe: `track` must return a text, false (hidden) or nil (shown as stored) for {name}, not {}",
                    v.type_name()
                )));
            }
        }
    }
    Ok(out)
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
            let markers = g.state().hex_markers.get(h).map(|m| (**m).clone()).unwrap_or_default();
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
    let mut out = Labels::new();
    for (what, name, value) in items {
        if !describes(g, what)? {
            continue;
        }
        let f = format!("describe_{what}");
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
        let mut out = vec![format!("usage: {}", builtin_usage("units"))];
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

/// The usage line of a built-in command.
fn builtin_usage(name: &str) -> &'static str {
    BUILTINS.iter().find(|b| b.name == name).map_or("", |b| b.usage)
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
        let lists = s.game.as_ref().is_some_and(|g| g.lists_actions().unwrap_or(false));
        return Ok(Reply::ok(help_index(&verbs, &overlays, lists)));
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
        if b.name == "units" {
            out.extend(units_help(s));
        }
        if b.name == "forward"
            && let Ok(g) = s.game()
        {
            out.push("steps (`forward step ID`), where play stops:".into());
            for id in g.stop_ids()? {
                out.push(format!("  {id:<18} {}", g.step_labels(std::slice::from_ref(&id))));
            }
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

fn help_index(verbs: &BTreeMap<String, VerbSpec>, overlays: &BTreeMap<String, VerbSpec>, lists: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !verbs.is_empty() {
        out.push("rules (this game):".to_string());
        for v in verbs.values() {
            let rule = if v.rule.is_empty() { String::new() } else { format!(" [{}]", v.rule) };
            out.push(format!("  {:<36} {}{rule}", v.usage, v.help));
        }
    }
    if lists && !overlays.contains_key("moves") {
        out.push("map overlays (from the listed actions):".to_string());
        out.push(format!("  {:<36} {}", "map moves <unit>", "where the unit can move now, with the cost of each hex"));
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
            // the index gives the first sentence; `help <command>` all of it
            let short = b.help.split_once(". ").map_or(b.help, |(first, _)| first);
            out.push(format!("  {:<36} {short}", b.usage));
        }
    }
    out.push("Unit and hex ids may be abbreviated to a unique prefix; hexes may be named by place.".into());
    out
}

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
    // a copy (persistent maps: cheap): the rules are asked for the units' strengths below
    let state = g.state().clone();
    let all: BTreeSet<HexId> = map.hexes.keys().copied().collect();
    if let Some((file, shown, mode)) = svg {
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
        let pic = crate::render::svg::SvgMap {
            strengths: strengths?,
            map: &map,
            state: &state,
            hexes,
            overlay: view.overlay,
            hidden,
            symbols: &g.scenario.symbols,
            title,
        };
        crate::save::write_atomic(&file, pic.render().as_bytes(), mode)?;
        return Ok(Reply::ok(vec![format!("map drawn to {shown}")]));
    }
    let mut note = None;
    let hexes = match (view.center, &view.overlay) {
        (Some(c), _) => crate::render::text::around(&map, c, view.radius.unwrap_or(3), s.width),
        (None, Some(o)) if !o.labels.is_empty() => {
            // the marked hexes if they fit, else a window on where the marks end (the front)
            let marked: BTreeSet<HexId> = o.labels.keys().copied().collect();
            let down = marked.iter().map(|h| crate::render::text::place(&map, *h).1);
            let rows = down.clone().max().unwrap_or(0) - down.min().unwrap_or(0);
            let hexes = if crate::render::text::fits(&map, &marked, s.width) && rows < WINDOW_ROWS {
                let (c0, c1) = (marked.iter().map(|h| h.col).min(), marked.iter().map(|h| h.col).max());
                let (r0, r1) = (marked.iter().map(|h| h.row).min(), marked.iter().map(|h| h.row).max());
                all.iter()
                    .filter(|h| (c0..=c1).contains(&Some(h.col)) && (r0..=r1).contains(&Some(h.row)))
                    .copied()
                    .collect()
            } else {
                let occupied: BTreeSet<HexId> = g.state().units.values().filter_map(|u| u.hex()).collect();
                crate::render::text::front_window(&map, &marked, &occupied, s.width, WINDOW_ROWS)
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
            if crate::render::text::fits(&map, &all, s.width) {
                all
            } else {
                note = Some(
                    "(the part around the middle of the map; `map <hex|unit|place> [radius]` draws another part)"
                        .into(),
                );
                let mid = crate::render::text::middle(&map, &all).unwrap_or(HexId::new(1, 1));
                crate::render::text::window(&map, mid, s.width, WINDOW_ROWS)
            }
        }
    };
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

/// The hex a word of `map` names: a unit on the map, a hex or a place.
fn map_place(s: &Session, w: &str) -> Result<HexId> {
    let g = s.game()?;
    let st = g.state();
    match resolve_unit(&st, w) {
        Ok(id) => {
            st.units.get(&id).and_then(|u| u.hex()).ok_or_else(|| Error::Usage(format!("{id} is not on the map")))
        }
        Err(ue) => resolve_hex(&g.scenario.map, w).map_err(|he| {
            let names: Vec<String> = g.overlays().keys().cloned().collect();
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
                Value::String(t) => map.grid.parse(&t.to_string_lossy()),
                Value::UserData(u) => {
                    u.borrow::<crate::lua::UnitRef>().ok().and_then(|r| g.state().units.get(&r.0)?.hex())
                }
                _ => None,
            });
            view.radius = Some(4);
        }
        let (r, _) = g.read_only(|g| g.host().overlay(&spec.name, args));
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

/// `odds <arguments of the combat verb>`: which verb (the one named first; else the one marked
/// `odds` that is allowed at this step, or the only one whose arguments fit), then every
/// outcome as a table. Bad arguments are reported with the usage of the verb in force.
/// The argument of `spec` that the word after `before` would be, by the usage line: keywords
/// typed are matched, optional ones skipped, a repeated argument goes on to its keyword.
fn arg_at<'a>(spec: &'a VerbSpec, before: &[String]) -> Option<&'a ArgSpec> {
    let mut at = 0;
    for w in before {
        loop {
            let a = spec.args.get(at)?;
            match &a.kind {
                ArgKind::Literal(l) if l.eq_ignore_ascii_case(w) => {
                    at += 1;
                    break;
                }
                ArgKind::Literal(_) if a.optional => at += 1,
                ArgKind::Literal(_) => return None,
                // a repetition goes on to a keyword a later argument expects (as `parse_args`)
                _ if a.repeated => {
                    if super::args::keywords_after(spec, at).iter().any(|l| l.eq_ignore_ascii_case(w)) {
                        at += 1;
                        continue;
                    }
                    break;
                }
                _ => {
                    at += 1;
                    break;
                }
            }
        }
    }
    // an optional keyword not typed yet: the argument after it
    spec.args[at.min(spec.args.len())..].iter().find(|a| !matches!(a.kind, ArgKind::Literal(_)) || !a.optional)
}

/// A verb `odds` can evaluate, and whether it is allowed at the game's step.
struct OddsVerb {
    spec: VerbSpec,
    allowed: bool,
}

/// The verbs marked `odds`, each with whether its phases hold the current step.
fn odds_verbs(g: &Game) -> Vec<OddsVerb> {
    let step = g.state().clock.step.clone();
    g.verbs()
        .into_values()
        .filter(|v| v.odds)
        .map(|v| OddsVerb { allowed: v.phases.is_empty() || v.phases.contains(&step), spec: v })
        .collect()
}

pub(super) fn odds(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let all = odds_verbs(g);
    let verbs: Vec<&VerbSpec> = all.iter().map(|v| &v.spec).collect();
    let phase = g.state().clock.phase.clone();
    let (first, tail) = split_first(rest);
    let (spec, args_text) = match verbs.iter().find(|v| v.name == first) {
        Some(v) => ((*v).clone(), tail.to_string()),
        None => {
            let now: Vec<&VerbSpec> = all.iter().filter(|v| v.allowed).map(|v| &v.spec).collect();
            match now.as_slice() {
                [] if verbs.is_empty() => {
                    return Err(Error::Usage("this ruleset has no verb that `odds` can evaluate".into()));
                }
                [] => {
                    let when: Vec<String> =
                        verbs.iter().map(|v| format!("`{}` ({})", v.name, g.step_labels(&v.phases))).collect();
                    return Err(Error::Usage(format!(
                        "no combat verb is allowed now ({}): odds evaluates {}",
                        if phase.is_empty() { "no phase" } else { &phase },
                        when.join(", ")
                    )));
                }
                [one] => ((*one).clone(), rest.to_string()),
                many => {
                    let fits: Vec<&&VerbSpec> = many.iter().filter(|v| s.parse_args(v, rest).is_ok()).collect();
                    match fits.as_slice() {
                        [one] => ((**one).clone(), rest.to_string()),
                        _ => {
                            let names: Vec<&str> = many.iter().map(|v| v.name.as_str()).collect();
                            return Err(Error::Usage(format!(
                                "odds <{}> <arguments>: name the verb, then its arguments",
                                names.join("|")
                            )));
                        }
                    }
                }
            }
        }
    };
    let odds_of = |e: Error| match e {
        Error::Usage(m) => Error::Usage(format!("odds takes the arguments of `{}`: {m}", spec.name)),
        other => other,
    };
    s.parse_args(&spec, &args_text).map_err(odds_of)?;
    let odds = g.odds(&spec.name, |_| s.parse_args(&spec, &args_text))?;
    Ok(Reply::ok(odds_table(odds)))
}

fn odds_table(odds: Odds) -> Vec<String> {
    let mut out = odds.explanation;
    let Some((q, each)) = odds.by_answer else {
        results_table(&odds.results, &mut out);
        return out;
    };
    // a choice that changes the result: the results of each answer
    let who = q.side.as_deref().map(|s| format!("{s} ")).unwrap_or_default();
    let rule = q.rule.as_deref().map(|r| format!("[{r}] ")).unwrap_or_default();
    for (answer, results) in &each {
        let default = if q.default.as_ref() == Some(answer) { ", the default" } else { "" };
        out.push(format!("{rule}if {who}answers `{answer}`{default} ({}):", q.prompt));
        results_table(results, &mut out);
    }
    out
}

/// One line a result, in columns as wide as the longest result (at least 24) and fraction.
fn results_table(results: &crate::game::OddsResults, out: &mut Vec<String>) {
    let w = results.iter().map(|(r, _, _)| r.to_string().chars().count()).max().unwrap_or(0).max(24);
    let fractions: Vec<String> = results.iter().map(|(_, p, _)| format!("({})", fraction(*p))).collect();
    let f = fractions.iter().map(|x| x.chars().count()).max().unwrap_or(0).max(8);
    out.push(format!("{:<w$} {:>9}  {:<f$} {}", "result", "chance", "", "dice"));
    for ((r, p, paths), frac) in results.iter().zip(&fractions) {
        out.push(format!("{:<w$} {:>8.2}%  {frac:<f$} {}", r.to_string(), p * 100.0, dice_text(paths)));
    }
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

/// The chances of each result of a command line whose verb `odds` evaluates (`moves` shows
/// them beside each attack), or `None` for any other verb or a command `odds` refuses.
pub(super) fn odds_summary(s: &Session, cmd: &str) -> Option<String> {
    let g = s.game().ok()?;
    let (verb, rest) = split_first(cmd);
    let spec = odds_verbs(g).into_iter().find(|v| v.spec.name == verb)?.spec;
    s.parse_args(&spec, rest).ok()?;
    let odds = g.odds(&spec.name, |_| s.parse_args(&spec, rest)).ok()?;
    let parts: Vec<String> = odds.results.iter().map(|(r, p, _)| format!("{r} {:.0}%", p * 100.0)).collect();
    Some(parts.join(", "))
}

//! Hexes as the rules hand them over: a hex id, a list or set of them (`map.hexset`, kept in
//! Rust), or amounts by hex; each read with the name of what it is for in its errors.

use super::seal::seen_through;
use super::world;
use crate::hex::HexId;
use crate::map::Map;
use crate::search::to_units;
use mlua::{Lua, Table, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn hex_arg(map: &Map, s: &str, what: &str) -> mlua::Result<HexId> {
    match map.grid.parse(s) {
        Some(h) if map.contains(h) => Ok(h),
        Some(_) => Err(mlua::Error::runtime(format!("{what}: hex {s} is not on the map"))),
        None => Err(mlua::Error::runtime(format!("{what}: '{s}' is not a hex id"))),
    }
}

/// [`hex_arg`] of a key's bytes as Lua holds them.
pub(super) fn hex_bytes(map: &Map, s: &[u8], what: &str) -> mlua::Result<HexId> {
    if let Some(h) = map.grid.parse_bytes(s)
        && map.contains(h)
    {
        return Ok(h);
    }
    match std::str::from_utf8(s) {
        Ok(s) => hex_arg(map, s, what),
        Err(_) => hex_arg(map, &String::from_utf8_lossy(s), what),
    }
}

/// `map.hexset(set)`: a set of hexes read once and kept in Rust, never changed. Lua reads it
/// like a set table (`s[hex]`, `#s`, `pairs` in the order of the printed ids); every function
/// that takes a set of hexes takes it without reading it again: a profile's `blocked` and
/// `stop` made once and handed to the searches of many units.
/// (Shared: a copy of a hexset, or a set `map.marked` answers again, is the same one.)
#[derive(Clone)]
pub struct HexSet(std::sync::Arc<Hexes>);

pub struct Hexes {
    /// The hexes, in the order of their printed ids (as `pairs` walks them).
    pub(super) sorted: Vec<HexId>,
    /// The same hexes hashed, made the first time they are wanted so (a search's `blocked`, or
    /// membership on a map whose printed ids do not sort as its hexes): most sets are only
    /// walked, counted, or asked of a hex, which the sorted hexes answer.
    hashed: std::sync::OnceLock<crate::hex::FastSet<HexId>>,
    /// The map that prints them.
    map: std::sync::Arc<Map>,
}

impl Hexes {
    /// Whether `h` is one of the hexes.
    pub(super) fn contains(&self, h: &HexId) -> bool {
        if self.map.printed_in_order() { self.sorted.binary_search(h).is_ok() } else { self.hashed().contains(h) }
    }

    /// The hexes as a hashed set (made once).
    pub(super) fn hashed(&self) -> &crate::hex::FastSet<HexId> {
        self.hashed.get_or_init(|| self.sorted.iter().copied().collect())
    }
}

impl std::ops::Deref for HexSet {
    type Target = Hexes;
    fn deref(&self) -> &Hexes {
        &self.0
    }
}

/// The id `h` is printed as (the map's own, kept once it is loaded).
pub(super) fn printed(map: &Map, h: HexId) -> std::borrow::Cow<'_, str> {
    map.printed_id(h).map_or_else(|| map.fmt(h).into(), Into::into)
}

impl HexSet {
    pub(super) fn new(map: &std::sync::Arc<Map>, hexes: impl IntoIterator<Item = HexId>) -> HexSet {
        let mut sorted: Vec<HexId> = hexes.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        // (in hex order already where the printed ids sort as the hexes do: most maps)
        if !map.printed_in_order() {
            sorted.sort_by(|a, b| printed(map, *a).cmp(&printed(map, *b)));
        }
        HexSet::of_sorted(map, sorted)
    }

    /// A set of hexes already in the order of their printed ids, without duplicates.
    fn of_sorted(map: &std::sync::Arc<Map>, sorted: Vec<HexId>) -> HexSet {
        HexSet(std::sync::Arc::new(Hexes { sorted, hashed: Default::default(), map: map.clone() }))
    }

    /// The hex printed as `id`, if it is in the set.
    fn hex_of(&self, id: &[u8]) -> Option<HexId> {
        let h = self.map.grid.parse_bytes(id)?;
        (self.contains(&h) && printed(&self.map, h).as_bytes() == id).then_some(h)
    }

    /// Where the hex printed as `id` is in the order of the printed ids.
    fn find(&self, id: &[u8]) -> Result<usize, usize> {
        self.sorted.binary_search_by(|h| printed(&self.map, *h).as_bytes().cmp(id))
    }
}

impl mlua::UserData for HexSet {
    fn add_methods<M: mlua::UserDataMethods<Self>>(m: &mut M) {
        m.add_meta_method(mlua::MetaMethod::Index, |_, this, k: Value| {
            Ok(match k {
                Value::String(s) => this.hex_of(&s.as_bytes()).is_some().then_some(true),
                _ => None,
            })
        });
        m.add_meta_method(mlua::MetaMethod::NewIndex, |_, _, (k, _): (Value, Value)| -> mlua::Result<()> {
            Err(mlua::Error::runtime(format!(
                "a map.hexset is never changed (setting {}): copy it into a table with pairs",
                k.to_string().unwrap_or_default()
            )))
        });
        m.add_meta_method(mlua::MetaMethod::Len, |_, this, ()| Ok(this.sorted.len()));
        m.add_meta_method(mlua::MetaMethod::ToString, |_, this, ()| {
            let n = this.sorted.len();
            Ok(format!("hexset of {n} {}", if n == 1 { "hex" } else { "hexes" }))
        });
    }
}

/// The step of `pairs` over a [`HexSet`] (the prelude's `pairs` calls it for a hexset): the
/// hex after `k` in the order of the printed ids, and `true`.
pub(super) fn hexset_next(lua: &Lua, (u, k): (mlua::AnyUserData, Value)) -> mlua::Result<(Value, Value)> {
    let this = u
        .borrow::<HexSet>()
        .map_err(|_| mlua::Error::runtime("pairs: a userdata that is not a table or a map.hexset"))?;
    let i = match &k {
        Value::Nil => 0,
        Value::String(s) => match this.find(&s.as_bytes()) {
            Ok(i) => i + 1,
            Err(_) => return Err(mlua::Error::runtime("next: invalid key to 'next'")),
        },
        _ => return Err(mlua::Error::runtime("next: invalid key to 'next'")),
    };
    match this.sorted.get(i) {
        Some(h) => Ok((Value::String(lua.create_string(printed(&this.map, *h).as_ref())?), Value::Boolean(true))),
        None => Ok((Value::Nil, Value::Nil)),
    }
}

/// `{ [hex] = n }` by the printed ids the map keeps (not made afresh: `map.marked("ctl")` names
/// most hexes), from hexes with a number each: `map.marked`, `units.hexes`.
pub(super) fn hex_ints(
    lua: &Lua,
    w: &crate::contract::World,
    hexes: impl Iterator<Item = (HexId, i64)>,
) -> mlua::Result<Table> {
    let named: Vec<(std::borrow::Cow<str>, i64)> = hexes.map(|(h, n)| (printed(&w.map, h), n)).collect();
    let entries: Vec<(&str, super::fast::Val)> =
        named.iter().map(|(h, n)| (h.as_ref(), super::fast::Val::Int(*n))).collect();
    super::fast::keyed(lua, &entries)
}

/// `map.hexset(set, opts?) -> hexset`: see [`HexSet`]. `opts.without`, hexes (a set, a hexset
/// or a list of them) left out; `opts.within`, the only hexes kept: the rail net's sources from
/// the map edge's railroad hexes less those blocked, in one call.
pub(super) fn hexset(lua: &Lua, (v, opts): (Value, Option<Table>)) -> mlua::Result<HexSet> {
    let w = world(lua);
    let w = w.borrow();
    let (without, within) = match &opts {
        Some(o) => (o.get::<Value>("without")?, o.get::<Value>("within")?),
        None => (Value::Nil, Value::Nil),
    };
    let without = match without {
        Value::Nil => None,
        v => Some(any_of(lua, &w.map, v, "map.hexset{without}")?),
    };
    let within = match within {
        Value::Nil => None,
        v => Some(any_of(lua, &w.map, v, "map.hexset{within}")?),
    };
    let keep =
        |h: &HexId| without.as_ref().is_none_or(|s| !s.contains(h)) && within.as_ref().is_none_or(|s| s.contains(h));
    // (a hexset's hexes are in order already: kept as they are)
    if let Value::UserData(u) = &v {
        let h = hexset_of(u, "map.hexset")?;
        if without.is_none() && within.is_none() {
            return Ok(HexSet::clone(&h));
        }
        return Ok(HexSet::of_sorted(&h.map, h.sorted.iter().copied().filter(keep).collect()));
    }
    let mut hexes: Vec<HexId> = read_into(lua, &w.map, v, "map.hexset")?;
    hexes.retain(keep);
    Ok(HexSet::new(&w.map, hexes))
}

/// A set of hexes given as a list or as a set table (`{["0418"]=true}`) or a [`HexSet`]; a list
/// may also hold such tables and hexsets, which are merged (`blocked = { enemy_hexes, ezoc_hexes }`).
pub(super) fn hex_set(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<BTreeSet<HexId>> {
    read_into(lua, map, v, what)
}

/// The hexes of `v` (see [`hex_set`]) put into a new sink: a set, a list, an [`AnyOf`].
fn read_into<S: HexSink + Default>(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<S> {
    let mut out = S::default();
    match v {
        Value::Nil => {}
        Value::Table(t) => add_hexes(lua, map, &t, what, &mut out, 0)?,
        Value::UserData(u) => out.set(hexset_of(&u, what)?),
        other => {
            return Err(mlua::Error::runtime(format!("{what}: a set or list of hexes, not {}", other.type_name())));
        }
    }
    Ok(out)
}

/// The hexes of a set (see [`hex_set`]) as a list, in no order and maybe twice: what is walked
/// once (a hexset's are copied, not read again).
pub(super) fn hex_list(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<Vec<HexId>> {
    match v {
        Value::UserData(u) => Ok(hexset_of(&u, what)?.sorted.clone()),
        v => read_into(lua, map, v, what),
    }
}

/// A set of hexes for a search (see [`hex_set`]), read straight into the hashed set the search
/// uses: a [`HexSet`] is copied, not read again.
pub(super) fn search_set(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<crate::hex::FastSet<HexId>> {
    match v {
        Value::UserData(u) => Ok(hexset_of(&u, what)?.hashed().clone()),
        v => read_into(lua, map, v, what),
    }
}

pub(super) fn hexset_of(u: &mlua::AnyUserData, what: &str) -> mlua::Result<mlua::UserDataRef<HexSet>> {
    u.borrow::<HexSet>().map_err(|_| mlua::Error::runtime(format!("{what}: a set or list of hexes, not a userdata")))
}

/// Where [`add_hexes`] puts what it reads: a hex, or a whole hexset.
pub(super) trait HexSink {
    fn hex(&mut self, h: HexId);
    fn set(&mut self, s: mlua::UserDataRef<HexSet>);
}

impl<T: Extend<HexId>> HexSink for T {
    fn hex(&mut self, h: HexId) {
        self.extend([h]);
    }
    fn set(&mut self, s: mlua::UserDataRef<HexSet>) {
        self.extend(s.sorted.iter().copied());
    }
}

/// Sets of hexes only asked whether they hold a hex (a `without`, a filter's `within`): the
/// hexsets among them are kept where they are, not copied into one set; the rest is read into
/// one.
#[derive(Default)]
pub(super) struct AnyOf {
    shared: Vec<mlua::UserDataRef<HexSet>>,
    own: crate::hex::FastSet<HexId>,
}

impl AnyOf {
    pub(super) fn contains(&self, h: &HexId) -> bool {
        self.own.contains(h) || self.shared.iter().any(|s| s.contains(h))
    }
}

impl HexSink for AnyOf {
    fn hex(&mut self, h: HexId) {
        self.own.insert(h);
    }
    fn set(&mut self, s: mlua::UserDataRef<HexSet>) {
        self.shared.push(s);
    }
}

/// A set of hexes (see [`hex_set`]) to ask of, as an [`AnyOf`].
pub(super) fn any_of(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<AnyOf> {
    read_into(lua, map, v, what)
}

pub(super) fn add_hexes<S: HexSink>(
    lua: &Lua,
    map: &Map,
    t: &Table,
    what: &str,
    out: &mut S,
    depth: usize,
) -> mlua::Result<()> {
    let real = seen_through(t.clone());
    // one pass in Lua's C API for a plain set or list; a list of sets the slow way
    let mut failed = None;
    let plain = !super::fast::hex_keys(lua, &real, |k| {
        if failed.is_none() {
            match hex_bytes(map, k, what) {
                Ok(h) => out.hex(h),
                Err(e) => failed = Some(e),
            }
        }
    })?;
    if plain {
        return failed.map_or(Ok(()), Err);
    }
    // (what the pass found is found again below, in the same order, and any bad hex named
    // there; inserting into a set twice changes nothing)
    for p in real.pairs::<Value, Value>() {
        let (k, v) = p?;
        let s = match (&k, &v) {
            (Value::Integer(_), Value::String(s)) => s,
            (Value::Integer(_), Value::Table(inner)) if depth == 0 => {
                add_hexes(lua, map, inner, what, out, 1)?;
                continue;
            }
            (Value::Integer(_), Value::UserData(u)) if depth == 0 => {
                out.set(hexset_of(u, what)?);
                continue;
            }
            (Value::String(s), v) if !matches!(v, Value::Boolean(false) | Value::Nil) => s,
            _ => continue,
        };
        out.hex(hex_arg(map, &s.to_str()?, what)?);
    }
    Ok(())
}

pub(super) fn hex_amounts<M>(lua: &Lua, map: &Map, v: Option<Table>, what: &str) -> mlua::Result<M>
where
    M: Default + Amounts,
{
    let mut out = M::default();
    if let Some(t) = v {
        let t = seen_through(t);
        // one pass in Lua's C API for the common table of numbers; anything else the slow way
        let mut failed = None;
        let plain = super::fast::hex_numbers(lua, &t, |k, n| {
            if failed.is_some() {
                return;
            }
            let amount = to_units(n)
                .ok_or_else(|| mlua::Error::runtime(format!("{what}: {n} is not a multiple of 1/60")))
                .and_then(|c| Ok((hex_bytes(map, k, what)?, c)));
            match amount {
                Ok((h, c)) => out.add(h, c),
                Err(e) => failed = Some(e),
            }
        })?;
        if plain {
            return failed.map_or(Ok(out), Err);
        }
        // (read again the slow way, which names what is not a number)
        out = M::default();
        for p in t.pairs::<String, f64>() {
            let (k, n) = p?;
            let c =
                to_units(n).ok_or_else(|| mlua::Error::runtime(format!("{what}: {n} is not a multiple of 1/60")))?;
            out.add(hex_arg(map, &k, what)?, c);
        }
    }
    Ok(out)
}

/// A map of hexes to amounts that [`hex_amounts`] fills (two keys naming one hex add up): the
/// profiles' hashed ones and the ordered ones of `dear`.
pub(super) trait Amounts {
    fn add(&mut self, h: HexId, c: i64);
}

impl Amounts for BTreeMap<HexId, i64> {
    fn add(&mut self, h: HexId, c: i64) {
        *self.entry(h).or_insert(0) += c;
    }
}

impl Amounts for crate::hex::FastMap<HexId, i64> {
    fn add(&mut self, h: HexId, c: i64) {
        *self.entry(h).or_insert(0) += c;
    }
}

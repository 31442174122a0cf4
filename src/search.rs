//! Movement reach, path costs and multi-source tracing, computed in Rust on a cost profile
//! the rules hand over (never calling Lua per hex).
//!
//! Costs are kept exactly in 1/60ths of a movement point, so halves, thirds and quarters add
//! up without rounding.

use crate::hex::{HexId, Hexside};
use crate::map::Map;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

/// Cost units per movement point.
pub const UNIT: i64 = 60;

/// What it costs to cross a hexside or enter a hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cost {
    /// Costs this many 1/60 MP.
    Mp(i64),
    /// Cannot be done.
    No,
    /// Ends the move: the mover may enter if it can pay `Mp`, then must stop (0 = free).
    Stop(i64),
}

/// A movement or tracing profile. Everything is data; see `map.reach` in docs/lua-api.md.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Cost to enter a hex, by terrain.
    pub terrain: BTreeMap<String, Cost>,
    /// Cost to enter a hex holding a feature; combined with the terrain cost by `combine`.
    pub features: BTreeMap<String, Cost>,
    /// `max` (default): the dearest of terrain and features; `add`: terrain plus features.
    pub add_features: bool,
    /// Extra cost to cross a hexside with a feature (map feature or hexside marker).
    pub hexsides: BTreeMap<String, Cost>,
    /// Hexside features followed as paths (`road`): crossing such a hexside costs this instead
    /// of terrain and hexside costs. With several, the cheapest applies; a path priced `No`
    /// is not usable (the crossing is then priced as if there were no path).
    pub paths: BTreeMap<String, Cost>,
    /// Only path hexsides may be crossed (rail or strategic movement along roads).
    pub paths_only: bool,
    /// Default cost of a hex whose terrain is not listed (None: error).
    pub default: Option<Cost>,
    /// Extra cost to enter these hexes (e.g. enemy ZOC).
    pub enter_extra: crate::hex::FastMap<HexId, i64>,
    /// Extra cost to leave these hexes.
    pub leave_extra: crate::hex::FastMap<HexId, i64>,
    /// Hexes that cannot be entered.
    pub blocked: crate::hex::FastSet<HexId>,
    /// The only hexes that may be entered (None: every hex not blocked).
    pub only: Option<crate::hex::FastSet<HexId>>,
    /// Cost to enter these hexes, replacing the terrain and feature costs (a hex made passable
    /// by a friendly unit, say).
    pub hex_cost: crate::hex::FastMap<HexId, Cost>,
    /// Hexside features that cancel others (`bridge` cancels `river`): where the first is
    /// present, the listed ones are ignored.
    pub cancels: BTreeMap<String, BTreeSet<String>>,
    /// Hexes that end movement on entry.
    pub stop: crate::hex::FastSet<HexId>,
    /// Maximum cost (None: unlimited).
    pub max: Option<i64>,
    /// A mover may always enter one adjacent hex, whatever it costs, if not blocked.
    pub always_one: bool,
    /// Markers placed on hexsides during play (a blown bridge); priced by `hexsides` like the
    /// map's own hexside features.
    pub hexside_markers: BTreeMap<Hexside, BTreeSet<String>>,
    /// Per-search hexside overrides, by the step they price (from, to): the cost of crossing
    /// replaces what the hexside's features cost (`No` forbids the step, a number permits it
    /// whatever the features say). Given one way (`A>B`) or both ways (`A/B`).
    pub side_cost: crate::hex::FastMap<(HexId, HexId), Cost>,
    /// The directions a step may go in (by [`crate::hex::Dir`] index; None: every direction).
    /// A search whose steps must all follow a compass (a retreat, a withdrawal).
    pub directions: Option<[bool; 6]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reached {
    /// The cheapest cost to arrive here.
    pub cost: i64,
    /// Where that cheapest arrival came from.
    pub from: Option<HexId>,
    /// The cheapest arrival ends the move here.
    pub stops: bool,
    /// Where the cheapest arrival that may go on came from (for routes through this hex).
    pub go_from: Option<HexId>,
}

/// What a search reached: the cheapest arrival at every hex it reached, by the map's hex
/// slots in order (a lookup is a binary search, iteration is in hex id order).
pub struct Reach<'m> {
    entries: std::rc::Rc<[(usize, Reached)]>,
    map: &'m Map,
}

impl Reach<'_> {
    /// The arrival at `h`, if the search reached it.
    pub fn get(&self, h: &HexId) -> Option<&Reached> {
        let i = self.map.hexes.slot(*h)?;
        self.entries.binary_search_by_key(&i, |e| e.0).ok().map(|k| &self.entries[k].1)
    }

    /// How many hexes were reached.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every hex reached, in hex id order.
    pub fn iter(&self) -> impl Iterator<Item = (HexId, &Reached)> {
        self.entries.iter().filter_map(|(i, r)| Some((self.map.hexes.at_slot(*i)?.0, r)))
    }
}

/// The cheapest arrival so far at a slot, and where from.
type Best = (i64, Option<HexId>);
const NONE: Best = (i64::MAX, None);

/// A search's working arrays by slot, kept between the searches of a thread: a search that
/// reaches a few dozen hexes of a map of thousands neither allocates nor clears arrays over the
/// whole map, only the slots it wrote (`dirty`) are put back before the next one. (A list of
/// legal actions runs hundreds of searches.)
#[derive(Default)]
struct Scratch {
    go: Vec<Best>,
    stop: Vec<Best>,
    /// The terrain part of entering each hex, worked out once per search.
    hex_parts: Vec<Option<StepResult>>,
    /// The same by the hex's look ([`Map::look_of`]) where no hex has a price of its own: worked
    /// out once per search for each terrain with features, not for each hex.
    look_parts: Vec<Option<StepResult>>,
    /// The price of each kind of hexside ([`Map::side_kinds`]), worked out once per search.
    side_parts: Vec<Option<Option<SidePart>>>,
    flags: Vec<u8>,
    dirty: Vec<usize>,
}

const BLOCKED: u8 = 1;
const STOPS: u8 = 2;
const DIRTY: u8 = 4;

impl Scratch {
    /// Clean arrays of `n` slots.
    fn ready(&mut self, n: usize) {
        if self.go.len() != n {
            *self = Scratch {
                go: vec![NONE; n],
                stop: vec![NONE; n],
                hex_parts: vec![None; n],
                look_parts: Vec::new(),
                side_parts: Vec::new(),
                flags: vec![0; n],
                dirty: Vec::new(),
            };
            return;
        }
        self.side_parts.clear();
        self.look_parts.clear();
        for &i in &self.dirty {
            self.go[i] = NONE;
            self.stop[i] = NONE;
            self.hex_parts[i] = None;
            self.flags[i] = 0;
        }
        self.dirty.clear();
    }
}

/// Marks slot `i` as written.
fn touch(flags: &mut [u8], dirty: &mut Vec<usize>, i: usize) {
    if flags[i] & DIRTY == 0 {
        flags[i] |= DIRTY;
        dirty.push(i);
    }
}

/// The answers of the last searches, by their profile and sources: a search is a function of
/// these and the map alone, and the rules ask the same one again and again (a supply trace
/// after each move looked ahead that changes none of its blocked hexes). Bounded by
/// [`ReachMemo::SIZE`], the oldest forgotten first. Only what a search answers is kept, never a
/// failure; what it is charged is the caller's, the same whether it is found here or not.
#[derive(Default)]
pub struct ReachMemo {
    /// The map the answers are of (kept, so that no other map is taken for it).
    map: Option<Arc<Map>>,
    /// The latest first.
    kept: VecDeque<Kept>,
}

struct Kept {
    print: u64,
    profile: Profile,
    sources: Vec<(HexId, i64)>,
    entries: Rc<[(usize, Reached)]>,
}

impl ReachMemo {
    /// How many answers are kept (a supply check of one side makes three or four searches).
    pub const SIZE: usize = 32;

    /// [`Profile::reach`] of `profile` from `sources` on `map`, answered from the memo if it holds
    /// the same search.
    pub fn reach<'m>(
        &mut self,
        map: &'m Arc<Map>,
        profile: Profile,
        sources: &[(HexId, i64)],
    ) -> Result<Reach<'m>, SearchError> {
        if !self.map.as_ref().is_some_and(|m| Arc::ptr_eq(m, map)) {
            self.map = Some(map.clone());
            self.kept.clear();
        }
        let print = profile.fingerprint(sources);
        let found = self.kept.iter().position(|k| k.print == print && k.sources == sources && k.profile == profile);
        if let Some(i) = found {
            let k = self.kept.remove(i).expect("found");
            let entries = k.entries.clone();
            self.kept.push_front(k);
            return Ok(Reach { entries, map });
        }
        let r = profile.reach(map, sources)?;
        self.kept.truncate(Self::SIZE - 1);
        self.kept.push_front(Kept { print, profile, sources: sources.to_vec(), entries: r.entries.clone() });
        Ok(r)
    }
}

/// A hash of `items` that does not depend on their order (the sum of each one's hash): the
/// hashed sets and maps of a profile.
fn unordered<T: Hash>(seed: u64, items: impl Iterator<Item = T>) -> u64 {
    items.fold(seed, |sum, x| {
        let mut h = crate::hex::FastHasher::default();
        x.hash(&mut h);
        sum.wrapping_add(h.finish())
    })
}

impl Profile {
    /// A hash of the profile and `sources`, for [`ReachMemo`] (two searches with different
    /// fingerprints differ; equal ones are compared whole).
    fn fingerprint(&self, sources: &[(HexId, i64)]) -> u64 {
        let mut h = crate::hex::FastHasher::default();
        (&self.terrain, &self.features, self.add_features, &self.hexsides, &self.paths, self.paths_only).hash(&mut h);
        (self.default, &self.cancels, self.max, self.always_one, &self.hexside_markers, self.directions).hash(&mut h);
        sources.hash(&mut h);
        (self.only.as_ref().map(|o| unordered(7, o.iter())), unordered(1, self.blocked.iter())).hash(&mut h);
        (unordered(2, self.stop.iter()), unordered(3, self.enter_extra.iter()), unordered(4, self.leave_extra.iter()))
            .hash(&mut h);
        (unordered(5, self.hex_cost.iter()), unordered(6, self.side_cost.iter())).hash(&mut h);
        h.finish()
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl std::ops::Index<&HexId> for Reach<'_> {
    type Output = Reached;
    fn index(&self, h: &HexId) -> &Reached {
        self.get(h).unwrap_or_else(|| panic!("hex {h:?} was not reached"))
    }
}

/// What crossing a hexside costs (see [`Profile::side_part`]): its features' cost, whether
/// they end the move, and the cheapest path along it (cost, ends the move).
#[derive(Clone, Copy, Debug, Default)]
struct SidePart {
    cost: i64,
    stop: bool,
    path: Option<(i64, bool)>,
}

/// The cost of a step (cost, must stop), None if it cannot be made.
type StepResult = Result<Option<(i64, bool)>, SearchError>;

#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum SearchError {
    #[error("terrain '{0}' has no cost in this profile")]
    NoTerrainCost(String),
}

impl Profile {
    /// The cost of stepping from `a` into the adjacent `b`, or None if forbidden.
    /// Returns (cost, must stop).
    pub fn step(&self, map: &Map, a: HexId, b: HexId) -> Result<Option<(i64, bool)>, SearchError> {
        let Some(info) = map.info(b) else {
            return Ok(None);
        };
        if self.blocked.contains(&b) || self.only.as_ref().is_some_and(|o| !o.contains(&b)) || !self.may_go(map, a, b) {
            return Ok(None);
        }
        let side = self.side_part(a, b, map.side(&Hexside::new(a, b)));
        self.step_with(a, b, info, side, self.stop.contains(&b), &mut |b, info| self.hex_part(b, info))
    }

    /// Whether a step from `a` to the adjacent `b` goes in one of the allowed `directions`.
    fn may_go(&self, map: &Map, a: HexId, b: HexId) -> bool {
        match self.directions {
            None => true,
            Some(dirs) => map.grid.direction(a, b).is_some_and(|d| dirs[d as usize]),
        }
    }

    /// What entering `b` costs by its terrain and features (or its `hex_cost`), apart from
    /// hexsides, paths and extras: the same whichever side it is entered from, so a search
    /// works it out once per hex.
    fn hex_part(&self, b: HexId, info: &crate::map::HexInfo) -> StepResult {
        let mut stop = false;
        let own = if self.hex_cost.is_empty() { None } else { self.hex_cost.get(&b) };
        let terrain_cost = own.or_else(|| self.terrain.get(&info.terrain)).or(self.default.as_ref());
        let mut c = match terrain_cost {
            Some(Cost::No) => return Ok(None),
            Some(Cost::Mp(c)) => *c,
            Some(Cost::Stop(c)) => {
                stop = true;
                *c
            }
            None => return Err(SearchError::NoTerrainCost(info.terrain.clone())),
        };
        if own.is_none() {
            for f in info.features.iter() {
                match self.features.get(f) {
                    Some(Cost::No) => return Ok(None),
                    Some(&Cost::Mp(x)) => c = if self.add_features { c + x } else { c.max(x) },
                    Some(&Cost::Stop(x)) => {
                        stop = true;
                        c = if self.add_features { c + x } else { c.max(x) };
                    }
                    None => {}
                }
            }
        }
        Ok(Some((c, stop)))
    }

    /// What crossing the hexside from `a` into `b` costs apart from entering `b`: the hexside's
    /// features (map features `map_feats` and markers, those another cancels left out; a step's
    /// own price in `side_cost` in their place) and the cheapest path along it. None: the
    /// crossing is forbidden (a hexside `No` always wins, even over a path).
    fn side_part(&self, a: HexId, b: HexId, map_feats: Option<&BTreeSet<String>>) -> Option<SidePart> {
        let empty = BTreeSet::new();
        let map_feats = map_feats.unwrap_or(&empty);
        let mark_feats = if self.hexside_markers.is_empty() {
            &empty
        } else {
            self.hexside_markers.get(&Hexside::new(a, b)).unwrap_or(&empty)
        };
        let mut part = SidePart::default();
        let over = if self.side_cost.is_empty() { None } else { self.side_cost.get(&(a, b)) };
        match over {
            Some(Cost::No) => return None,
            Some(&Cost::Mp(c)) => part.cost = c,
            Some(&Cost::Stop(c)) => {
                part.cost = c;
                part.stop = true;
            }
            None => {}
        }
        if map_feats.is_empty() && mark_feats.is_empty() {
            return Some(part);
        }
        let all = || map_feats.iter().chain(mark_feats.iter());
        // features cancelled by others on the same hexside (a bridge cancels the river)
        let cancelled =
            |f: &String| !self.cancels.is_empty() && all().any(|g| self.cancels.get(g).is_some_and(|c| c.contains(f)));
        // an override of this step replaces the features' costs
        for f in all().filter(|f| over.is_none() && !cancelled(f)) {
            match self.hexsides.get(f) {
                Some(Cost::No) => return None,
                Some(Cost::Mp(c)) => part.cost += c,
                Some(Cost::Stop(c)) => {
                    part.cost += c;
                    part.stop = true;
                }
                None => {}
            }
        }
        for f in map_feats.iter() {
            if let Some(c) = self.paths.get(f) {
                let c = match c {
                    Cost::Mp(c) => (*c, false),
                    Cost::Stop(c) => (*c, true),
                    Cost::No => continue,
                };
                if part.path.is_none_or(|p| c.0 < p.0) {
                    part.path = Some(c);
                }
            }
        }
        Some(part)
    }

    /// Whether the step from `a` into `b` is priced by its hexside's features alone (no marker
    /// on it, no price of its own): then every hexside with the same features costs the same.
    fn priced_by_features(&self, a: HexId, b: HexId) -> bool {
        (self.side_cost.is_empty() || !self.side_cost.contains_key(&(a, b)))
            && (self.hexside_markers.is_empty() || !self.hexside_markers.contains_key(&Hexside::new(a, b)))
    }

    /// A step from `a` into `b` (on the map, not blocked) whose hexside costs `side` (None:
    /// forbidden); `stop_here` when `b` ends movement; the hex part (terrain and features)
    /// given by `hex_part`.
    fn step_with(
        &self,
        a: HexId,
        b: HexId,
        info: &crate::map::HexInfo,
        side: Option<SidePart>,
        stop_here: bool,
        hex_part: &mut dyn FnMut(HexId, &crate::map::HexInfo) -> StepResult,
    ) -> Result<Option<(i64, bool)>, SearchError> {
        let Some(side) = side else { return Ok(None) };
        let mut stop = stop_here || side.stop;
        let mut cost = match side.path {
            Some((c, s)) => {
                stop |= s;
                c
            }
            None => {
                if self.paths_only {
                    return Ok(None);
                }
                let Some((c, s)) = hex_part(b, info)? else {
                    return Ok(None);
                };
                stop |= s;
                c + side.cost
            }
        };
        if !self.enter_extra.is_empty() {
            cost += self.enter_extra.get(&b).copied().unwrap_or(0);
        }
        if !self.leave_extra.is_empty() {
            cost += self.leave_extra.get(&a).copied().unwrap_or(0);
        }
        Ok(Some((cost, stop)))
    }

    /// Dijkstra from one or more sources (each with a starting cost). Deterministic: ties are
    /// broken by hex order.
    ///
    /// Two arrivals are kept per hex: the cheapest one from which the mover may go on, and the
    /// cheapest one that ends the move (a stop hex, a stopping hexside or path). A dearer arrival
    /// that can go on is never hidden by a cheaper one that must stop.
    ///
    /// The search keeps its state in vectors by the map's hex slots and walks the map's
    /// neighbour links, so a step costs no hashing unless its hexside has features.
    pub fn reach<'m>(&self, map: &'m Map, sources: &[(HexId, i64)]) -> Result<Reach<'m>, SearchError> {
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            s.ready(map.hexes.slot_count());
            self.reach_in(&mut s, map, sources)
        })
    }

    fn reach_in<'m>(&self, s: &mut Scratch, map: &'m Map, sources: &[(HexId, i64)]) -> Result<Reach<'m>, SearchError> {
        let links = map.links();
        let kinds = map.side_kinds();
        let Scratch { go, stop, hex_parts, look_parts, side_parts, flags, dirty } = s;
        side_parts.resize(kinds.len(), None);
        let look_of = map.look_of();
        let by_look = self.hex_cost.is_empty();
        if by_look {
            look_parts.resize(map.looks().len(), None);
        }
        if let Some(only) = &self.only {
            // every hex blocked but those of `only` (then `blocked` blocks some of those again)
            for i in 0..map.hexes.slot_count() {
                flags[i] |= BLOCKED;
                touch(flags, dirty, i);
            }
            for h in only.iter().filter_map(|h| map.hexes.slot(*h)) {
                flags[h] &= !BLOCKED;
            }
        }
        for (set, flag) in [(&self.blocked, BLOCKED), (&self.stop, STOPS)] {
            for h in set.iter().filter_map(|h| map.hexes.slot(*h)) {
                flags[h] |= flag;
                touch(flags, dirty, h);
            }
        }
        let mut heap = BinaryHeap::new();
        for &(h, c) in sources {
            if let Some(i) = map.hexes.slot(h)
                && c < go[i].0
            {
                touch(flags, dirty, i);
                go[i] = (c, None);
                heap.push(Reverse((c, h, i)));
            }
        }
        let origin: BTreeSet<HexId> = sources.iter().map(|s| s.0).collect();
        while let Some(Reverse((c, h, hs))) = heap.pop() {
            if c > go[hs].0 {
                continue;
            }
            for (k, link) in links[hs].iter().enumerate() {
                let ns = link.slot as usize;
                if link.slot == crate::map::OFF
                    || flags[ns] & BLOCKED != 0
                    || self.directions.is_some_and(|dirs| !dirs[k])
                // (links go in Dir::ALL order)
                {
                    continue;
                }
                let Some((_, info)) = map.hexes.at_slot(ns) else { continue };
                touch(flags, dirty, ns);
                let side = if !self.priced_by_features(h, link.to) {
                    self.side_part(h, link.to, map.side(&Hexside::new(h, link.to)))
                } else if link.kind == 0 {
                    Some(SidePart::default())
                } else {
                    let k = link.kind as usize - 1;
                    *side_parts[k].get_or_insert_with(|| self.side_part(h, link.to, Some(&kinds[k])))
                };
                let step = self.step_with(h, link.to, info, side, flags[ns] & STOPS != 0, &mut |b, info| {
                    let part = if by_look { &mut look_parts[look_of[ns] as usize] } else { &mut hex_parts[ns] };
                    part.get_or_insert_with(|| self.hex_part(b, info)).clone()
                })?;
                let Some((step, stops)) = step else { continue };
                let mut nc = c + step;
                if let Some(max) = self.max
                    && nc > max
                {
                    if self.always_one && origin.contains(&h) && c == 0 {
                        nc = max;
                    } else {
                        continue;
                    }
                }
                let best = if stops { &mut stop[ns] } else { &mut go[ns] };
                if nc < best.0 {
                    *best = (nc, Some(h));
                    if !stops {
                        heap.push(Reverse((nc, link.to, ns)));
                    }
                }
            }
        }
        let mut reached: Vec<usize> =
            dirty.iter().copied().filter(|&i| go[i].0 != i64::MAX || stop[i].0 != i64::MAX).collect();
        reached.sort_unstable();
        let entries = reached
            .into_iter()
            .map(|i| {
                let (g, s) = (go[i], stop[i]);
                let r = if g.0 != i64::MAX && g.0 <= s.0 {
                    Reached { cost: g.0, from: g.1, stops: false, go_from: g.1 }
                } else {
                    let go_from = if g.0 != i64::MAX { g.1 } else { None };
                    Reached { cost: s.0, from: s.1, stops: true, go_from }
                };
                (i, r)
            })
            .collect();
        Ok(Reach { entries, map })
    }

    /// The cost of following `path` (consecutive adjacent hexes, the first being the start).
    /// Err(index, reason) names the first step that cannot be made.
    pub fn path_cost(&self, map: &Map, path: &[HexId]) -> Result<Result<i64, (usize, String)>, SearchError> {
        let mut total = 0;
        for i in 1..path.len() {
            let (a, b) = (path[i - 1], path[i]);
            let (fa, fb) = (map.fmt(a), map.fmt(b));
            if map.grid.direction(a, b).is_none() {
                return Ok(Err((i, format!("{fb} is not adjacent to {fa}"))));
            }
            let Some((c, stop)) = self.step(map, a, b)? else {
                return Ok(Err((i, format!("{fb} cannot be entered from {fa}"))));
            };
            total += c;
            if let Some(max) = self.max
                && total > max
                && !(self.always_one && i == 1)
            {
                return Ok(Err((
                    i,
                    format!("reaching {fb} costs {} MP, more than the {} available", fmt_cost(total), fmt_cost(max)),
                )));
            }
            if stop && i + 1 < path.len() {
                return Ok(Err((i + 1, format!("the move must end in {fb}: entering it ends movement"))));
            }
        }
        Ok(Ok(total))
    }
}

/// The cheapest path to `to`, from its source: the last step is the cheapest arrival at
/// `to`, the earlier ones follow arrivals that may go on.
pub fn route(reached: &Reach, to: HexId) -> Vec<HexId> {
    let mut out = vec![to];
    let mut next = reached.get(&to).and_then(|r| r.from);
    while let Some(p) = next {
        out.push(p);
        next = reached.get(&p).and_then(|r| r.go_from);
        if out.len() > reached.len() + 1 {
            break; // cannot happen with positive costs; guards against a zero-cost cycle
        }
    }
    out.reverse();
    out
}

/// Formats a cost in MP: `2`, `1.5`, `2 1/3`.
pub fn fmt_cost(c: i64) -> String {
    let whole = c / UNIT;
    let frac = c % UNIT;
    if frac == 0 {
        return whole.to_string();
    }
    if frac * 2 == UNIT {
        return format!("{whole}.5");
    }
    let g = crate::text::gcd(frac.unsigned_abs(), UNIT as u64) as i64;
    if whole == 0 { format!("{}/{}", frac / g, UNIT / g) } else { format!("{whole} {}/{}", frac / g, UNIT / g) }
}

/// Converts MP to cost units; None if not a multiple of 1/60.
pub fn to_units(mp: f64) -> Option<i64> {
    let u = mp * UNIT as f64;
    let r = u.round();
    ((u - r).abs() < 1e-6).then_some(r as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::HexInfo;

    fn map(hexes: &[(i32, i32)]) -> Map {
        let mut m = Map::default();
        for &(c, r) in hexes {
            m.hexes.insert(HexId::new(c, r), HexInfo { terrain: "clear".into(), ..Default::default() });
        }
        m
    }

    #[test]
    fn a_stopping_arrival_does_not_hide_one_that_goes_on() {
        // A=0101 → B=0102 across a ford that ends the move (cheap), or round by D=0202 (dearer);
        // C=0103 lies beyond B and can only be reached through the dearer arrival.
        let (a, b, c, d) = (HexId::new(1, 1), HexId::new(1, 2), HexId::new(1, 3), HexId::new(2, 2));
        let mut m = map(&[(1, 1), (1, 2), (1, 3), (2, 2)]);
        m.sides.entry(Hexside::new(a, b)).or_default().insert("ford".into());
        let p = Profile {
            terrain: [("clear".to_string(), Cost::Mp(UNIT))].into(),
            hexsides: [("ford".to_string(), Cost::Stop(0))].into(),
            ..Default::default()
        };
        let r = p.reach(&m, &[(a, 0)]).unwrap();
        assert_eq!(r[&b].cost, UNIT);
        assert!(r[&b].stops);
        assert_eq!(r[&c].cost, 3 * UNIT);
        assert_eq!(route(&r, c), vec![a, d, b, c]);
        assert_eq!(route(&r, b), vec![a, b]);
    }

    #[test]
    fn bridges_cancel_rivers_and_hex_costs_override_terrain() {
        let (a, b) = (HexId::new(1, 1), HexId::new(1, 2));
        let mut m = map(&[(1, 1), (1, 2)]);
        m.hexes.get_mut(&b).unwrap().terrain = "forest".into();
        m.sides.entry(Hexside::new(a, b)).or_default().extend(["major_river".to_string(), "bridge".to_string()]);
        let mut p = Profile {
            terrain: [("clear".to_string(), Cost::Mp(UNIT)), ("forest".to_string(), Cost::No)].into(),
            hexsides: [("major_river".to_string(), Cost::No)].into(),
            ..Default::default()
        };
        assert_eq!(p.step(&m, a, b).unwrap(), None);
        p.hex_cost.insert(b, Cost::Mp(UNIT));
        assert_eq!(p.step(&m, a, b).unwrap(), None, "the unbridged major river still blocks");
        p.cancels.insert("bridge".into(), ["major_river".to_string()].into());
        assert_eq!(p.step(&m, a, b).unwrap(), Some((UNIT, false)));
    }

    /// The hexes a search reached with their costs, in order.
    fn costs(r: &Reach) -> Vec<(HexId, i64)> {
        r.iter().map(|(h, x)| (h, x.cost)).collect()
    }

    #[test]
    fn the_memo_answers_as_the_search_would_and_never_for_another_search_or_map() {
        let line: Vec<(i32, i32)> = (1..=5).map(|r| (1, r)).collect();
        let m = Arc::new(map(&line));
        let (a, c) = (HexId::new(1, 1), HexId::new(1, 3));
        let p = Profile { default: Some(Cost::Mp(UNIT)), ..Default::default() };
        let fresh = costs(&p.reach(&m, &[(a, 0)]).unwrap());
        assert_eq!(fresh.len(), 5);
        let mut memo = ReachMemo::default();
        assert_eq!(costs(&memo.reach(&m, p.clone(), &[(a, 0)]).unwrap()), fresh);
        assert_eq!(costs(&memo.reach(&m, p.clone(), &[(a, 0)]).unwrap()), fresh, "answered from the memo");
        assert_eq!(memo.kept.len(), 1);
        // a blocked hex, a start count, another source: other searches
        let mut blocked = p.clone();
        blocked.blocked.insert(c);
        assert_eq!(memo.reach(&m, blocked, &[(a, 0)]).unwrap().len(), 2);
        assert_eq!(memo.reach(&m, p.clone(), &[(a, UNIT)]).unwrap()[&c].cost, 3 * UNIT);
        assert_eq!(memo.reach(&m, p.clone(), &[(c, 0)]).unwrap()[&a].cost, 2 * UNIT);
        assert_eq!(memo.kept.len(), 4);
        // another map with the same hexes but a wall: the memo of the first is forgotten
        let mut walled = map(&line);
        walled.hexes.get_mut(&c).unwrap().terrain = "wall".into();
        let walled = Arc::new(walled);
        let mut p2 = p.clone();
        p2.terrain.insert("wall".into(), Cost::No);
        assert_eq!(memo.reach(&m, p2.clone(), &[(a, 0)]).unwrap().len(), 5);
        assert_eq!(memo.reach(&walled, p2, &[(a, 0)]).unwrap().len(), 2);
        assert_eq!(memo.kept.len(), 1);
        // at most SIZE answers are kept, the latest
        for n in 0..ReachMemo::SIZE as i64 + 3 {
            memo.reach(&m, p.clone(), &[(a, n)]).unwrap();
        }
        assert_eq!(memo.kept.len(), ReachMemo::SIZE);
        assert_eq!(memo.kept.front().unwrap().sources, vec![(a, ReachMemo::SIZE as i64 + 2)]);
    }

    #[test]
    fn a_fingerprint_does_not_depend_on_the_order_sets_were_filled_in() {
        let hexes: Vec<HexId> = (1..40).map(|r| HexId::new(r % 7, r)).collect();
        let (mut p, mut q) = (Profile::default(), Profile::default());
        p.blocked.extend(hexes.iter().copied());
        q.blocked.extend(hexes.iter().rev().copied());
        assert_eq!(p.fingerprint(&[]), q.fingerprint(&[]));
        q.stop.insert(hexes[0]);
        assert_ne!(p.fingerprint(&[]), q.fingerprint(&[]));
    }

    #[test]
    fn costs_add_exactly_in_sixtieths() {
        assert_eq!(to_units(0.5), Some(30));
        assert_eq!(to_units(1.0 / 3.0), Some(20));
        assert_eq!(to_units(0.01), None);
        assert_eq!(fmt_cost(90), "1.5");
        assert_eq!(fmt_cost(80), "1 1/3");
        assert_eq!(fmt_cost(20), "1/3");
        assert_eq!(fmt_cost(120), "2");
    }
}

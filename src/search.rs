//! Movement reach, path costs and multi-source tracing, computed in Rust on a cost profile
//! the rules hand over (never calling Lua per hex).
//!
//! Costs are kept exactly in 1/60ths of a movement point, so halves, thirds and quarters add
//! up without rounding.

use crate::hex::{HexId, Hexside};
use crate::map::Map;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// Cost units per movement point.
pub const UNIT: i64 = 60;

/// What it costs to cross a hexside or enter a hex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cost {
    /// Costs this many 1/60 MP.
    Mp(i64),
    /// Cannot be done.
    No,
    /// Ends the move: the mover may enter if it can pay `Mp`, then must stop (0 = free).
    Stop(i64),
}

/// A movement or tracing profile. Everything is data; see `map.reach` in docs/lua-api.md.
#[derive(Clone, Debug, Default)]
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
        self.step_with(map, a, b, &mut |b, info| self.hex_part(b, info))
    }

    /// What entering `b` costs by its terrain and features (or its `hex_cost`), apart from
    /// hexsides, paths and extras: the same whichever side it is entered from, so a search
    /// works it out once per hex.
    fn hex_part(&self, b: HexId, info: &crate::map::HexInfo) -> StepResult {
        let mut stop = false;
        let terrain_cost = self.hex_cost.get(&b).or_else(|| self.terrain.get(&info.terrain)).or(self.default.as_ref());
        let mut c = match terrain_cost {
            Some(Cost::No) => return Ok(None),
            Some(Cost::Mp(c)) => *c,
            Some(Cost::Stop(c)) => {
                stop = true;
                *c
            }
            None => return Err(SearchError::NoTerrainCost(info.terrain.clone())),
        };
        if !self.hex_cost.contains_key(&b) {
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

    /// `step`, with the hex part (terrain and features) given by `hex_part`.
    fn step_with(
        &self,
        map: &Map,
        a: HexId,
        b: HexId,
        hex_part: &mut dyn FnMut(HexId, &crate::map::HexInfo) -> StepResult,
    ) -> Result<Option<(i64, bool)>, SearchError> {
        let Some(info) = map.info(b) else {
            return Ok(None);
        };
        if self.blocked.contains(&b) {
            return Ok(None);
        }
        let side = Hexside::new(a, b);
        let empty = BTreeSet::new();
        let map_feats = map.side(&side).unwrap_or(&empty);
        let mark_feats = self.hexside_markers.get(&side).unwrap_or(&empty);
        let mut stop = self.stop.contains(&b);
        let mut side_cost = 0i64;
        let mut path_cost: Option<(i64, bool)> = None;
        if !map_feats.is_empty() || !mark_feats.is_empty() {
            // features cancelled by others on the same hexside (a bridge cancels the river)
            let cancelled: Vec<&String> = if self.cancels.is_empty() {
                Vec::new()
            } else {
                map_feats
                    .iter()
                    .chain(mark_feats.iter())
                    .filter_map(|f| self.cancels.get(f))
                    .flat_map(|c| c.iter())
                    .collect()
            };
            // hexside "No" always wins, even over a path (a blown bridge, an all-sea hexside).
            for f in map_feats.iter().chain(mark_feats.iter()).filter(|f| !cancelled.contains(f)) {
                match self.hexsides.get(f) {
                    Some(Cost::No) => return Ok(None),
                    Some(Cost::Mp(c)) => side_cost += c,
                    Some(Cost::Stop(c)) => {
                        side_cost += c;
                        stop = true;
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
                    if path_cost.is_none_or(|p| c.0 < p.0) {
                        path_cost = Some(c);
                    }
                }
            }
        }
        let mut cost = match path_cost {
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
                c + side_cost
            }
        };
        cost += self.enter_extra.get(&b).copied().unwrap_or(0);
        cost += self.leave_extra.get(&a).copied().unwrap_or(0);
        Ok(Some((cost, stop)))
    }

    /// Dijkstra from one or more sources (each with a starting cost). Deterministic: ties are
    /// broken by hex order.
    ///
    /// Two arrivals are kept per hex: the cheapest one from which the mover may go on, and the
    /// cheapest one that ends the move (a stop hex, a stopping hexside or path). A dearer arrival
    /// that can go on is never hidden by a cheaper one that must stop.
    pub fn reach(&self, map: &Map, sources: &[(HexId, i64)]) -> Result<BTreeMap<HexId, Reached>, SearchError> {
        // hash maps for the search itself; the result is ordered
        let mut go: crate::hex::FastMap<HexId, (i64, Option<HexId>)> = Default::default();
        let mut stop: crate::hex::FastMap<HexId, (i64, Option<HexId>)> = Default::default();
        let mut heap = BinaryHeap::new();
        for &(h, c) in sources {
            if map.contains(h) && go.get(&h).is_none_or(|r| c < r.0) {
                go.insert(h, (c, None));
                heap.push(Reverse((c, h)));
            }
        }
        let origin: BTreeSet<HexId> = sources.iter().map(|s| s.0).collect();
        // the terrain part of entering each hex, worked out once per search
        let mut hex_parts: crate::hex::FastMap<HexId, StepResult> = Default::default();
        while let Some(Reverse((c, h))) = heap.pop() {
            if c > go[&h].0 {
                continue;
            }
            for (_, n) in map.neighbours(h) {
                let Some((step, stops)) = self.step_with(map, h, n, &mut |b, info| {
                    if let Some(r) = hex_parts.get(&b) {
                        return r.clone();
                    }
                    let r = self.hex_part(b, info);
                    hex_parts.insert(b, r.clone());
                    r
                })?
                else {
                    continue;
                };
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
                if stops {
                    if stop.get(&n).is_none_or(|r| nc < r.0) {
                        stop.insert(n, (nc, Some(h)));
                    }
                } else if go.get(&n).is_none_or(|r| nc < r.0) {
                    go.insert(n, (nc, Some(h)));
                    heap.push(Reverse((nc, n)));
                }
            }
        }
        let mut out = BTreeMap::new();
        for (&h, &(c, from)) in &go {
            out.insert(h, Reached { cost: c, from, stops: false, go_from: from });
        }
        for (&h, &(c, from)) in &stop {
            match out.get_mut(&h) {
                Some(r) if r.cost <= c => {}
                Some(r) => {
                    r.cost = c;
                    r.from = from;
                    r.stops = true;
                }
                None => {
                    out.insert(h, Reached { cost: c, from, stops: true, go_from: None });
                }
            }
        }
        Ok(out)
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
pub fn route(reached: &BTreeMap<HexId, Reached>, to: HexId) -> Vec<HexId> {
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
    let g = gcd(frac, UNIT);
    if whole == 0 { format!("{}/{}", frac / g, UNIT / g) } else { format!("{whole} {}/{}", frac / g, UNIT / g) }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
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

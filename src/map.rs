//! The printed map: hexes, terrain, features, hexsides, named places and areas.
//!
//! The map is fixed for a scenario and shared (`Arc`) between the session, the Lua host and
//! every undo snapshot. Whatever changes during play (entrenchments dug, bridges blown,
//! control) lives in the game state as hex and hexside markers.

use crate::hex::{Dir, Grid, HexId, Hexside};
use std::collections::{BTreeMap, BTreeSet};

/// One hex of the map.
#[derive(Clone, Debug, Default)]
pub struct HexInfo {
    /// The hex's base terrain (`clear`, `forest`, `swamp`, `city`, ...), as the ruleset names it.
    pub terrain: String,
    /// Further features in the hex (`village`, `entrenchment`, `vp`, ...).
    pub features: BTreeSet<String>,
    /// The name printed in the hex, if any.
    pub name: Option<String>,
    /// Numeric values attached to the hex by the scenario (victory points, ...).
    pub values: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Default)]
pub struct Map {
    pub grid: Grid,
    pub hexes: BTreeMap<HexId, HexInfo>,
    /// Features of hexsides (`river`, `major_river`, `road`, `railroad`, `bridge`, `sea`, ...).
    pub sides: BTreeMap<Hexside, BTreeSet<String>>,
    /// Named places, lowercase key -> (printed name, hexes).
    pub places: BTreeMap<String, (String, Vec<HexId>)>,
    /// Named sets of hexes: entry areas, supply sources, edges (`edge:N`, `edge:S`, ...).
    pub areas: BTreeMap<String, BTreeSet<HexId>>,
    /// Colours of terrains for pictures (`#8dbb78`), by terrain name.
    pub colors: BTreeMap<String, String>,
    /// Row numbers grow towards the top of the printed map (pictures are drawn mirrored).
    pub rows_up: bool,
    /// Printed ids of the hexes (a cache).
    pub printed: BTreeMap<HexId, String>,
    /// Hash indexes of hexes and hexsides for searches (lookups only; iterate the ordered maps).
    pub fast_hexes: crate::hex::FastMap<HexId, HexInfo>,
    pub fast_sides: crate::hex::FastMap<Hexside, BTreeSet<String>>,
}

impl Map {
    /// Where a hexside facing `d` is drawn: mirrored top to bottom when rows grow upwards.
    pub fn drawn_dir(&self, d: Dir) -> Dir {
        if !self.rows_up {
            return d;
        }
        match d {
            Dir::N => Dir::S,
            Dir::S => Dir::N,
            Dir::NE => Dir::SE,
            Dir::SE => Dir::NE,
            Dir::NW => Dir::SW,
            Dir::SW => Dir::NW,
        }
    }
}

impl Map {
    pub fn contains(&self, h: HexId) -> bool {
        if self.fast_hexes.is_empty() { self.hexes.contains_key(&h) } else { self.fast_hexes.contains_key(&h) }
    }

    /// A hex's data, through the hash index when it is built.
    pub fn info(&self, h: HexId) -> Option<&HexInfo> {
        if self.fast_hexes.is_empty() { self.hexes.get(&h) } else { self.fast_hexes.get(&h) }
    }

    /// A hexside's features, through the hash index when it is built.
    pub fn side(&self, s: &Hexside) -> Option<&BTreeSet<String>> {
        if self.fast_sides.is_empty() { self.sides.get(s) } else { self.fast_sides.get(s) }
    }

    pub fn fmt(&self, h: HexId) -> String {
        match self.printed.get(&h) {
            Some(s) => s.clone(),
            None => self.grid.format(h),
        }
    }

    /// Builds the caches once the map is loaded: printed ids (searches hand back hundreds of
    /// them) and hash indexes for the searches' lookups.
    pub fn finish(&mut self) {
        self.printed = self.hexes.keys().map(|h| (*h, self.grid.format(*h))).collect();
        self.fast_hexes = self.hexes.iter().map(|(h, i)| (*h, i.clone())).collect();
        self.fast_sides = self.sides.iter().map(|(s, f)| (*s, f.clone())).collect();
    }

    /// On-map neighbours, clockwise from north.
    pub fn neighbours(&self, h: HexId) -> impl Iterator<Item = (Dir, HexId)> + '_ {
        Dir::ALL.into_iter().map(move |d| (d, self.grid.neighbour(h, d))).filter(|(_, n)| self.contains(*n))
    }

    pub fn side_features(&self, a: HexId, b: HexId) -> Option<&BTreeSet<String>> {
        self.sides.get(&Hexside::new(a, b))
    }

    /// Adds the `edge:N/S/E/W` areas: every on-map hex with a neighbour off the map in that
    /// direction (N and S by rows, E and W by the extreme columns of each row band).
    pub fn compute_edges(&mut self) {
        let mut edges: BTreeMap<&str, BTreeSet<HexId>> = BTreeMap::new();
        for &h in self.hexes.keys() {
            let g = &self.grid;
            let off = |d: Dir| !self.hexes.contains_key(&g.neighbour(h, d));
            if off(Dir::N) {
                edges.entry("edge:N").or_default().insert(h);
            }
            if off(Dir::S) {
                edges.entry("edge:S").or_default().insert(h);
            }
            if off(Dir::NE) && off(Dir::SE) {
                edges.entry("edge:E").or_default().insert(h);
            }
            if off(Dir::NW) && off(Dir::SW) {
                edges.entry("edge:W").or_default().insert(h);
            }
        }
        for (k, v) in edges {
            self.areas.entry(k.to_string()).or_insert(v);
        }
    }

    /// Looks up a place by name, case-insensitively, accepting a unique prefix.
    pub fn place(&self, name: &str) -> Result<(String, Vec<HexId>), Vec<String>> {
        let key = name.to_lowercase();
        if let Some(p) = self.places.get(&key) {
            return Ok(p.clone());
        }
        let hits: Vec<_> = self.places.iter().filter(|(k, _)| k.starts_with(&key)).collect();
        if hits.len() == 1 {
            return Ok(hits[0].1.clone());
        }
        Err(hits.into_iter().map(|(_, (n, _))| n.clone()).collect())
    }
}

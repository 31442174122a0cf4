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

/// How a picture marks an area or a hex value, and what its legend says of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mark {
    /// The legend's text (`German supply source`).
    pub label: String,
    /// An SVG colour (`#3b6fb6`).
    pub color: String,
    /// A short text drawn in each hex of an area (`A`), or empty.
    pub text: String,
}

/// What the scenario asks pictures to mark (`[map.legend]`): areas by name and hex values by
/// name, in the order the legend lists them.
#[derive(Clone, Debug, Default)]
pub struct Legend {
    pub areas: Vec<(String, Mark)>,
    pub values: Vec<(String, Mark)>,
}

/// The unit symbols pictures draw (NATO style), which a scenario's unit types may name
/// (`symbol = "armour"`); a unit without one is drawn as a plain box, an `hq` or `air` kind
/// as those.
pub const UNIT_SYMBOLS: &[&str] = &[
    "infantry",
    "armour",
    "mechanized",
    "motorized",
    "cavalry",
    "recon",
    "hq",
    "air",
    "artillery",
    "engineer",
    "antitank",
    "fortified",
    "militia",
    "box",
];

/// The hexes of a map: one dense table over the map's bounding box, so a lookup is an index
/// (searches make millions) and iteration is in hex id order (column, then row), as the
/// ordered maps it replaces. A hex outside the box grows the box.
#[derive(Clone, Debug, Default)]
pub struct HexTable {
    /// The lowest column and row of the box, and its number of rows and columns.
    col0: i32,
    row0: i32,
    cols: i32,
    rows: i32,
    cells: Vec<Option<(HexId, HexInfo)>>,
    len: usize,
}

impl HexTable {
    /// An empty table with room for the box of columns `cols` and rows `rows` (inclusive).
    pub fn with_box(cols: [i32; 2], rows: [i32; 2]) -> HexTable {
        let (nc, nr) = ((cols[1] - cols[0] + 1).max(0), (rows[1] - rows[0] + 1).max(0));
        let mut cells = Vec::new();
        cells.resize_with((nc * nr) as usize, || None);
        HexTable { col0: cols[0], row0: rows[0], cols: nc, rows: nr, cells, len: 0 }
    }

    fn index(&self, h: HexId) -> Option<usize> {
        let (c, r) = (h.col - self.col0, h.row - self.row0);
        ((0..self.cols).contains(&c) && (0..self.rows).contains(&r)).then(|| (c * self.rows + r) as usize)
    }

    /// Makes room for `h` (a table built hex by hex should start [`HexTable::with_box`]).
    fn grow_to(&mut self, h: HexId) {
        let (c0, r0, c1, r1) = if self.cells.is_empty() {
            (h.col, h.row, h.col, h.row)
        } else {
            let (c1, r1) = (self.col0 + self.cols - 1, self.row0 + self.rows - 1);
            (self.col0.min(h.col), self.row0.min(h.row), c1.max(h.col), r1.max(h.row))
        };
        let old = std::mem::replace(self, HexTable::with_box([c0, c1], [r0, r1]));
        for (id, info) in old.cells.into_iter().flatten() {
            self.insert(id, info);
        }
    }

    pub fn insert(&mut self, h: HexId, info: HexInfo) -> Option<HexInfo> {
        let i = match self.index(h) {
            Some(i) => i,
            None => {
                self.grow_to(h);
                self.index(h).expect("grown to hold it")
            }
        };
        let old = self.cells[i].replace((h, info)).map(|(_, i)| i);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub fn remove(&mut self, h: &HexId) -> Option<HexInfo> {
        let old = self.index(*h).and_then(|i| self.cells[i].take()).map(|(_, i)| i);
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    pub fn get(&self, h: &HexId) -> Option<&HexInfo> {
        self.index(*h).and_then(|i| self.cells[i].as_ref()).map(|(_, i)| i)
    }

    pub fn get_mut(&mut self, h: &HexId) -> Option<&mut HexInfo> {
        let i = self.index(*h)?;
        self.cells[i].as_mut().map(|(_, i)| i)
    }

    /// The place of `h` in the table (searches keep their state in vectors by slot).
    pub fn slot(&self, h: HexId) -> Option<usize> {
        self.index(h).filter(|&i| self.cells[i].is_some())
    }

    /// The number of slots (hexes and holes of the bounding box).
    pub fn slot_count(&self) -> usize {
        self.cells.len()
    }

    /// The hex in slot `i`, if any.
    pub fn at_slot(&self, i: usize) -> Option<(HexId, &HexInfo)> {
        self.cells.get(i).and_then(|c| c.as_ref()).map(|(h, info)| (*h, info))
    }

    pub fn contains_key(&self, h: &HexId) -> bool {
        self.get(h).is_some()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The hexes in id order.
    pub fn iter(&self) -> impl Iterator<Item = (&HexId, &HexInfo)> + Clone {
        self.cells.iter().flatten().map(|(h, i)| (h, i))
    }

    pub fn keys(&self) -> impl Iterator<Item = &HexId> + Clone {
        self.iter().map(|(h, _)| h)
    }

    pub fn values(&self) -> impl Iterator<Item = &HexInfo> + Clone {
        self.iter().map(|(_, i)| i)
    }
}

impl std::ops::Index<&HexId> for HexTable {
    type Output = HexInfo;
    fn index(&self, h: &HexId) -> &HexInfo {
        self.get(h).unwrap_or_else(|| panic!("hex {h:?} is not on the map"))
    }
}

/// One of a hex's six neighbours as the searches walk them: its id, its slot in the hex table
/// (`OFF` when it is not on the map) and the features of the hexside between: 0 for none, else
/// `k` for the `k-1`th set of [`Map::side_kinds`] (a search prices each set once, not each side).
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub to: HexId,
    pub slot: u32,
    pub kind: u32,
}

/// The searches' view of the map's adjacency, built once: the links of every slot and the
/// distinct sets of hexside features the links point to; and each slot's look, the number of
/// its distinct terrain and features, so that a search asks what a terrain means once, not once
/// a hex.
#[derive(Clone, Debug, Default)]
struct Links {
    by_slot: Vec<[Link; 6]>,
    kinds: Vec<BTreeSet<String>>,
    look_of: Vec<u32>,
    looks: Vec<HexLook>,
}

/// A hex's terrain and features: what most rules ask of a hex they enter or look into.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HexLook {
    pub terrain: String,
    pub features: BTreeSet<String>,
}

/// The number of `v` in `list` (its index), pushed at the end if it is not there yet.
fn intern<T: PartialEq + Clone>(list: &mut Vec<T>, v: &T) -> u32 {
    match list.iter().position(|x| x == v) {
        Some(i) => i as u32,
        None => {
            list.push(v.clone());
            list.len() as u32 - 1
        }
    }
}

/// The slot of a neighbour that is not on the map.
pub const OFF: u32 = u32::MAX;

/// How the printed map lays out its hexes (`[map] layout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Flat-topped hexes in vertical columns, numbered column then row (`CCRR`).
    #[default]
    Columns,
    /// Pointy-topped hexes in horizontal rows, numbered printed row then position in the row
    /// (`RRPP`). The kernel keeps the first number as its column and the second as its row:
    /// its topology is that of the columns layout turned a quarter, so only the pictures and
    /// the names of directions change.
    Rows,
}

/// The names of the sides of a pointy-topped hex drawn where a flat-topped hex has its
/// `Dir::ALL` sides (each turned 30° clockwise: N → NE, NE → E, ...).
const POINTY_NAMES: [&str; 6] = ["NE", "E", "SE", "SW", "W", "NW"];

#[derive(Clone, Debug, Default)]
pub struct Map {
    pub grid: Grid,
    pub hexes: HexTable,
    /// Features of hexsides (`river`, `major_river`, `road`, `railroad`, `bridge`, `sea`, ...),
    /// hashed for the searches' lookups: iterate them through [`Map::sorted_sides`].
    pub sides: crate::hex::FastMap<Hexside, BTreeSet<String>>,
    /// Named places, lowercase key -> (printed name, hexes).
    pub places: BTreeMap<String, (String, Vec<HexId>)>,
    /// Named sets of hexes: entry areas, supply sources, edges (`edge:N`, `edge:S`, ...).
    pub areas: BTreeMap<String, BTreeSet<HexId>>,
    /// Colours of terrains for pictures (`#8dbb78`), by terrain name.
    pub colors: BTreeMap<String, String>,
    /// Row numbers grow towards the top of the printed map (pictures are drawn mirrored); in
    /// rows layout, the printed rows (the first numbers) do.
    pub rows_up: bool,
    /// Columns of flat-topped hexes (the default) or rows of pointy-topped ones.
    pub layout: Layout,
    /// What pictures mark beside the terrain: areas and hex values (`[map.legend]`).
    pub legend: Legend,
    /// Printed ids of the hexes by slot (a cache built by `finish`).
    printed: Vec<String>,
    /// Whether the printed ids sort as the hexes do (`finish` finds out): a set of hexes in
    /// hex order is then in the order of its printed ids too (most maps).
    printed_in_order: bool,
    /// The neighbours of every slot, in `Dir::ALL` order (a cache for the searches, built on
    /// the first search; `finish` drops it, so a map changed after a search must call it).
    links: std::sync::OnceLock<Links>,
}

impl Map {
    /// Where the hexside facing the kernel's direction `d` is drawn, as the side of a
    /// flat-topped hex: mirrored top to bottom when rows grow upwards. In rows layout the
    /// picture is the columns one turned a quarter (a column of the kernel is a printed row):
    /// the side returned is that of a flat-topped hex, which a pointy-topped hex draws turned
    /// 30° clockwise ([`Map::drawn_name`] names it).
    pub fn drawn_dir(&self, d: Dir) -> Dir {
        let i = d as usize;
        match (self.layout, self.rows_up) {
            (Layout::Columns, false) => d,
            (Layout::Columns, true) => Dir::ALL[(9 - i) % 6],
            // N (a lower position) is drawn W, NE (the next printed row) NW: turned
            (Layout::Rows, true) => Dir::ALL[(i + 4) % 6],
            // ... and, with the first printed row at the top, NE is drawn SW: mirrored
            (Layout::Rows, false) => Dir::ALL[(10 - i) % 6],
        }
    }

    /// The kernel's direction whose hexside is drawn at `slot` (the inverse of
    /// [`Map::drawn_dir`]).
    pub fn drawn_at(&self, slot: Dir) -> Dir {
        Dir::ALL.into_iter().find(|&d| self.drawn_dir(d) == slot).unwrap_or(slot)
    }

    /// The name of the direction in which the kernel's `d` is drawn: `N`…`NW` of a
    /// flat-topped hex, or `W`, `NW`, `NE`, `E`, `SE`, `SW` of a pointy-topped one.
    pub fn drawn_name(&self, d: Dir) -> &'static str {
        match self.layout {
            Layout::Columns => self.drawn_dir(d).name(),
            Layout::Rows => POINTY_NAMES[self.drawn_dir(d) as usize],
        }
    }

    /// The name of `d` for the rules (`map.direction`, the edge areas): the kernel's own in
    /// columns layout (`N` is the side of lower row numbers, even when they are drawn at the
    /// bottom), the drawn one in rows layout.
    pub fn dir_name(&self, d: Dir) -> &'static str {
        match self.layout {
            Layout::Columns => d.name(),
            Layout::Rows => self.drawn_name(d),
        }
    }

    /// The kernel's directions clockwise as the rules see them: from `N` in columns layout
    /// (`Dir::ALL`), from the drawn `W` in rows layout.
    pub fn dir_order(&self) -> [Dir; 6] {
        match self.layout {
            Layout::Columns => Dir::ALL,
            Layout::Rows => [Dir::SW, Dir::NW, Dir::N, Dir::NE, Dir::SE, Dir::S].map(|s| self.drawn_at(s)),
        }
    }
}

impl Map {
    pub fn contains(&self, h: HexId) -> bool {
        self.hexes.contains_key(&h)
    }

    /// A hex's data.
    pub fn info(&self, h: HexId) -> Option<&HexInfo> {
        self.hexes.get(&h)
    }

    /// A hexside's features.
    pub fn side(&self, s: &Hexside) -> Option<&BTreeSet<String>> {
        self.sides.get(s)
    }

    /// The hexsides with features, in a fixed order.
    pub fn sorted_sides(&self) -> Vec<(&Hexside, &BTreeSet<String>)> {
        let mut v: Vec<_> = self.sides.iter().collect();
        v.sort_by_key(|(s, _)| **s);
        v
    }

    pub fn fmt(&self, h: HexId) -> String {
        match self.printed_id(h) {
            Some(s) => s.to_string(),
            None => self.grid.format(h),
        }
    }

    /// The printed id of a hex of the map, without allocating (searches hand back hundreds).
    pub fn printed_id(&self, h: HexId) -> Option<&str> {
        self.hexes.slot(h).and_then(|i| self.printed.get(i)).map(String::as_str).filter(|s| !s.is_empty())
    }

    /// Builds the cache of printed ids once the map is loaded (searches hand back hundreds
    /// of them).
    pub fn finish(&mut self) {
        self.printed = (0..self.hexes.slot_count())
            .map(|i| self.hexes.at_slot(i).map(|(h, _)| self.grid.format(h)).unwrap_or_default())
            .collect();
        let mut by_hex: Vec<(HexId, &str)> = (0..self.hexes.slot_count())
            .filter_map(|i| self.hexes.at_slot(i).map(|(h, _)| (h, self.printed[i].as_str())))
            .collect();
        by_hex.sort_unstable_by_key(|(h, _)| *h);
        self.printed_in_order = by_hex.windows(2).all(|w| w[0].1 < w[1].1);
        self.links = std::sync::OnceLock::new();
    }

    /// Whether hexes in hex order are in the order of their printed ids (see `finish`).
    pub fn printed_in_order(&self) -> bool {
        self.printed_in_order
    }

    /// The neighbours of every slot of the hex table, for the searches.
    pub fn links(&self) -> &[[Link; 6]] {
        &self.built_links().by_slot
    }

    /// The distinct sets of hexside features, as [`Link::kind`] numbers them (from 1).
    pub fn side_kinds(&self) -> &[BTreeSet<String>] {
        &self.built_links().kinds
    }

    /// Each slot's look (a number of [`Map::looks`]; a slot without a hex has 0, which means
    /// nothing: ask the slot for its hex first).
    pub fn look_of(&self) -> &[u32] {
        &self.built_links().look_of
    }

    /// The distinct terrains with features of the map's hexes, as [`Map::look_of`] numbers them.
    pub fn looks(&self) -> &[HexLook] {
        &self.built_links().looks
    }

    fn built_links(&self) -> &Links {
        self.links.get_or_init(|| {
            let off = Link { to: HexId::new(0, 0), slot: OFF, kind: 0 };
            let mut kinds: Vec<BTreeSet<String>> = Vec::new();
            // (hexside kinds are numbered from 1: 0 is a hexside with no features)
            let mut kind_of = |f: &BTreeSet<String>| intern(&mut kinds, f) + 1;
            let by_slot = (0..self.hexes.slot_count())
                .map(|i| {
                    let mut out = [off; 6];
                    if let Some((h, _)) = self.hexes.at_slot(i) {
                        for (k, d) in Dir::ALL.into_iter().enumerate() {
                            let n = self.grid.neighbour(h, d);
                            if let Some(slot) = self.hexes.slot(n) {
                                let kind = self.sides.get(&Hexside::new(h, n)).map_or(0, &mut kind_of);
                                out[k] = Link { to: n, slot: slot as u32, kind };
                            }
                        }
                    }
                    out
                })
                .collect();
            let mut looks: Vec<HexLook> = Vec::new();
            let look_of = (0..self.hexes.slot_count())
                .map(|i| {
                    let Some((_, info)) = self.hexes.at_slot(i) else { return 0 };
                    intern(&mut looks, &HexLook { terrain: info.terrain.clone(), features: info.features.clone() })
                })
                .collect();
            Links { by_slot, kinds, look_of, looks }
        })
    }

    /// On-map neighbours, clockwise in [`Map::dir_order`] (from north; from the drawn west in
    /// rows layout).
    pub fn neighbours(&self, h: HexId) -> impl Iterator<Item = (Dir, HexId)> + '_ {
        self.dir_order().into_iter().map(move |d| (d, self.grid.neighbour(h, d))).filter(|(_, n)| self.contains(*n))
    }

    pub fn side_features(&self, a: HexId, b: HexId) -> Option<&BTreeSet<String>> {
        self.side(&Hexside::new(a, b))
    }

    /// Adds the `edge:N/S/E/W` areas: every on-map hex whose neighbours off the map include
    /// all those of the edge's directions, as [`Map::dir_name`] names them. In columns layout
    /// N and S are one direction each (by rows), E and W two (NE and SE, NW and SW: the
    /// extreme columns of each row band); in rows layout, the other way round: W and E one
    /// each, N two (NW and NE: the top row) and S two (SW and SE).
    pub fn compute_edges(&mut self) {
        let rules: [(&str, &[&str]); 4] = match self.layout {
            Layout::Columns => {
                [("edge:N", &["N"]), ("edge:S", &["S"]), ("edge:E", &["NE", "SE"]), ("edge:W", &["NW", "SW"])]
            }
            Layout::Rows => {
                [("edge:N", &["NW", "NE"]), ("edge:S", &["SW", "SE"]), ("edge:E", &["E"]), ("edge:W", &["W"])]
            }
        };
        let mut edges: BTreeMap<&str, BTreeSet<HexId>> = BTreeMap::new();
        for &h in self.hexes.keys() {
            let off: Vec<&str> = Dir::ALL
                .into_iter()
                .filter(|&d| !self.hexes.contains_key(&self.grid.neighbour(h, d)))
                .map(|d| self.dir_name(d))
                .collect();
            for (area, dirs) in rules {
                if dirs.iter().all(|d| off.contains(d)) {
                    edges.entry(area).or_default().insert(h);
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_directions_turn_back_and_name_each_side_once() {
        for (layout, rows_up) in
            [(Layout::Columns, false), (Layout::Columns, true), (Layout::Rows, false), (Layout::Rows, true)]
        {
            let map = Map { layout, rows_up, ..Default::default() };
            let names: BTreeSet<&str> = Dir::ALL.into_iter().map(|d| map.drawn_name(d)).collect();
            assert_eq!(names.len(), 6, "{layout:?} {rows_up}");
            for d in Dir::ALL {
                assert_eq!(map.drawn_at(map.drawn_dir(d)), d, "{layout:?} {rows_up} {d:?}");
                // opposite sides are drawn opposite
                assert_eq!(map.drawn_dir(d.opposite()), map.drawn_dir(d).opposite(), "{layout:?} {rows_up} {d:?}");
            }
        }
        let rows_up = Map { layout: Layout::Rows, rows_up: true, ..Default::default() };
        let names: Vec<&str> = rows_up.dir_order().into_iter().map(|d| rows_up.dir_name(d)).collect();
        assert_eq!(names, ["W", "NW", "NE", "E", "SE", "SW"]);
        assert_eq!(rows_up.dir_order(), Dir::ALL);
        let down = Map { layout: Layout::Rows, ..Default::default() };
        let names: Vec<&str> = down.dir_order().into_iter().map(|d| down.dir_name(d)).collect();
        assert_eq!(names, ["W", "NW", "NE", "E", "SE", "SW"]);
        assert_eq!(down.dir_name(Dir::NE), "SW");
    }

    #[test]
    fn the_hex_table_keeps_id_order_and_grows() {
        let mut t = HexTable::default();
        let info = |t: &str| HexInfo { terrain: t.into(), ..Default::default() };
        for (c, r) in [(3, 2), (1, 5), (3, 1), (0, 9)] {
            assert!(t.insert(HexId::new(c, r), info("clear")).is_none());
        }
        let ids: Vec<(i32, i32)> = t.keys().map(|h| (h.col, h.row)).collect();
        assert_eq!(ids, [(0, 9), (1, 5), (3, 1), (3, 2)]);
        assert_eq!(t.insert(HexId::new(1, 5), info("forest")).map(|i| i.terrain), Some("clear".into()));
        assert_eq!((t.len(), t[&HexId::new(1, 5)].terrain.as_str()), (4, "forest"));
        assert!(t.remove(&HexId::new(3, 1)).is_some() && t.remove(&HexId::new(3, 1)).is_none());
        assert!(!t.contains_key(&HexId::new(2, 2)) && t.get(&HexId::new(-4, 40)).is_none());
        assert_eq!(t.len(), 3);
    }
}

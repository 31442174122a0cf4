//! Hex geometry on printed, column-numbered maps.
//!
//! Every map umpire knows is drawn with flat-topped hexes in vertical columns, numbered
//! column first then row (`0418` = column 4, row 18), as on hex-and-counter maps since the
//! 1970s. Adjacent columns are offset by half a hex; which parity sits lower is a property of
//! the printed map ([`Shift`]). Everything here works directly on printed numbers so that a hex
//! id in a rulebook, a scenario file and a transcript is the same text. A map numbered by rows
//! (pointy-topped hexes, `RRPP`) is the same topology turned a quarter: its first number is
//! kept as the column, its second as the row, and only the map (its `Layout`) names
//! and draws it otherwise.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A hex as printed: column and row numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HexId {
    pub col: i32,
    pub row: i32,
}

impl HexId {
    pub const fn new(col: i32, row: i32) -> Self {
        HexId { col, row }
    }
}

/// Which columns are drawn half a hex lower than their neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shift {
    /// Odd-numbered columns sit half a hex lower ("odd-q").
    Odd,
    /// Even-numbered columns sit half a hex lower ("even-q").
    Even,
}

/// The six directions of a flat-topped hex, clockwise from north.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    N,
    NE,
    SE,
    S,
    SW,
    NW,
}

impl Dir {
    pub const ALL: [Dir; 6] = [Dir::N, Dir::NE, Dir::SE, Dir::S, Dir::SW, Dir::NW];

    pub fn name(self) -> &'static str {
        match self {
            Dir::N => "N",
            Dir::NE => "NE",
            Dir::SE => "SE",
            Dir::S => "S",
            Dir::SW => "SW",
            Dir::NW => "NW",
        }
    }

    pub fn parse(s: &str) -> Option<Dir> {
        Dir::ALL.into_iter().find(|d| d.name().eq_ignore_ascii_case(s))
    }

    pub fn opposite(self) -> Dir {
        Dir::ALL[(self as usize + 3) % 6]
    }
}

/// How hex ids are printed: digits for the column and the row, and an optional separator
/// (`CCRR` prints `0418`, `CC.RR` prints `04.18`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HexFormat {
    pub col_digits: usize,
    pub row_digits: usize,
    pub separator: String,
}

impl HexFormat {
    /// Parses a pattern like `CCRR` or `CC.RR`.
    pub fn from_pattern(p: &str) -> Option<HexFormat> {
        let cols = p.chars().take_while(|&c| c == 'C').count();
        let rest = &p[cols..];
        let rows = rest.chars().rev().take_while(|&c| c == 'R').count();
        let sep = &rest[..rest.len() - rows];
        if cols == 0 || rows == 0 || sep.chars().any(|c| c == 'C' || c == 'R' || c.is_ascii_digit()) {
            return None;
        }
        Some(HexFormat { col_digits: cols, row_digits: rows, separator: sep.to_string() })
    }

    pub fn pattern(&self) -> String {
        format!("{}{}{}", "C".repeat(self.col_digits), self.separator, "R".repeat(self.row_digits))
    }
}

impl Default for HexFormat {
    fn default() -> Self {
        HexFormat { col_digits: 2, row_digits: 2, separator: String::new() }
    }
}

/// Geometry of one printed map: column shift and id format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    pub shift: Shift,
    pub format: HexFormat,
}

impl Default for Grid {
    fn default() -> Self {
        Grid { shift: Shift::Odd, format: HexFormat::default() }
    }
}

impl Grid {
    /// True when `col` is drawn half a hex lower than its neighbours.
    fn is_low(&self, col: i32) -> bool {
        let odd = col.rem_euclid(2) == 1;
        match self.shift {
            Shift::Odd => odd,
            Shift::Even => !odd,
        }
    }

    /// The neighbour of `h` in direction `d` (it may be off the map).
    pub fn neighbour(&self, h: HexId, d: Dir) -> HexId {
        let (c, r) = (h.col, h.row);
        let low = self.is_low(c);
        let (dc, dr) = match d {
            Dir::N => (0, -1),
            Dir::S => (0, 1),
            Dir::NE => (1, if low { 0 } else { -1 }),
            Dir::SE => (1, if low { 1 } else { 0 }),
            Dir::SW => (-1, if low { 1 } else { 0 }),
            Dir::NW => (-1, if low { 0 } else { -1 }),
        };
        HexId::new(c + dc, r + dr)
    }

    /// The six neighbours of `h`, clockwise from north.
    pub fn neighbours(&self, h: HexId) -> [HexId; 6] {
        Dir::ALL.map(|d| self.neighbour(h, d))
    }

    /// The direction from `a` to the adjacent hex `b`, if they are adjacent.
    pub fn direction(&self, a: HexId, b: HexId) -> Option<Dir> {
        Dir::ALL.into_iter().find(|&d| self.neighbour(a, d) == b)
    }

    /// Axial coordinates (q, r) of a printed hex.
    fn axial(&self, h: HexId) -> (i32, i32) {
        let c = h.col;
        let r = match self.shift {
            // odd columns low ("odd-q"): r = row - floor(col / 2)
            Shift::Odd => h.row - c.div_euclid(2),
            // even columns low ("even-q"): r = row - ceil(col / 2)
            Shift::Even => h.row - (c + 1).div_euclid(2),
        };
        (c, r)
    }

    /// Distance in hexes between two hexes.
    pub fn distance(&self, a: HexId, b: HexId) -> i32 {
        let (aq, ar) = self.axial(a);
        let (bq, br) = self.axial(b);
        let dq = aq - bq;
        let dr = ar - br;
        (dq.abs() + dr.abs() + (dq + dr).abs()) / 2
    }

    /// Every hex within `radius` of `center`, sorted.
    pub fn within(&self, center: HexId, radius: i32) -> Vec<HexId> {
        let mut out = Vec::new();
        for c in center.col - radius..=center.col + radius {
            for r in center.row - radius - 1..=center.row + radius + 1 {
                let h = HexId::new(c, r);
                if self.distance(center, h) <= radius {
                    out.push(h);
                }
            }
        }
        out.sort();
        out
    }

    /// Formats a hex as printed on the map.
    pub fn format(&self, h: HexId) -> String {
        let f = &self.format;
        format!("{:0cw$}{}{:0rw$}", h.col, f.separator, h.row, cw = f.col_digits, rw = f.row_digits)
    }

    /// Parses a printed hex id. Accepts the map's own format and, whatever the map's format,
    /// both the plain digits (`0418`) and the dotted form (`04.18`).
    pub fn parse(&self, s: &str) -> Option<HexId> {
        self.parse_bytes(s.trim().as_bytes())
    }

    /// [`Grid::parse`] of bytes as Lua holds them (not trimmed): the printed forms (digits, or
    /// digits, one separator, digits) read without a search of the text or a check of it as
    /// UTF-8 (the searches hand thousands of these back and forth); anything else split at the
    /// map's separator, a dot or a dash.
    pub fn parse_bytes(&self, b: &[u8]) -> Option<HexId> {
        let num = |d: &[u8]| -> Option<i32> {
            if d.is_empty() || d.len() > 6 {
                return None;
            }
            d.iter().try_fold(0i32, |n, &c| c.is_ascii_digit().then(|| n * 10 + (c - b'0') as i32))
        };
        let f = &self.format;
        match b.iter().position(|c| !c.is_ascii_digit()) {
            None if b.len() == f.col_digits + f.row_digits => {
                Some(HexId::new(num(&b[..f.col_digits])?, num(&b[f.col_digits..])?))
            }
            Some(k) if (b[k] == b'.' || b[k] == b'-') && f.separator.len() <= 1 => {
                Some(HexId::new(num(&b[..k])?, num(&b[k + 1..])?))
            }
            _ => {
                let s = std::str::from_utf8(b).ok()?;
                [f.separator.as_str(), ".", "-"].into_iter().find_map(|sep| {
                    let (c, r) = s.split_once(sep).filter(|_| !sep.is_empty())?;
                    (is_digits(c) && is_digits(r)).then(|| Some(HexId::new(c.parse().ok()?, r.parse().ok()?)))?
                })
            }
        }
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit())
}

/// A hexside: the boundary between two adjacent hexes, stored with the smaller hex first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hexside(pub HexId, pub HexId);

impl Hexside {
    pub fn new(a: HexId, b: HexId) -> Hexside {
        if a <= b { Hexside(a, b) } else { Hexside(b, a) }
    }
}

impl fmt::Display for HexId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}{:02}", self.col, self.row)
    }
}

// Hexes serialise as "col.row" and hexsides as "col.row/col.row" so that they can key maps in
// saves and state hashes.
impl Serialize for HexId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}.{}", self.col, self.row))
    }
}

fn parse_dotted(s: &str) -> Option<HexId> {
    let (c, r) = s.split_once('.')?;
    Some(HexId::new(c.parse().ok()?, r.parse().ok()?))
}

impl<'de> Deserialize<'de> for HexId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_dotted(&s).ok_or_else(|| serde::de::Error::custom(format!("bad hex '{s}'")))
    }
}

impl Serialize for Hexside {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}.{}/{}.{}", self.0.col, self.0.row, self.1.col, self.1.row))
    }
}

impl<'de> Deserialize<'de> for Hexside {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let bad = || serde::de::Error::custom(format!("bad hexside '{s}'"));
        let (a, b) = s.split_once('/').ok_or_else(bad)?;
        Ok(Hexside::new(parse_dotted(a).ok_or_else(bad)?, parse_dotted(b).ok_or_else(bad)?))
    }
}

/// A small, fast, deterministic hasher for hex-keyed hash maps used in searches (FxHash's
/// multiply-rotate; the keys are a few integers, not attacker-controlled input).
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_i32(&mut self, n: i32) {
        self.write_u64(n as u32 as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// Hash maps keyed by hexes, for lookups in searches.
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// Hash sets of hexes, for lookups in searches.
pub type FastSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<FastHasher>>;

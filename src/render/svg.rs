//! The map as an SVG picture: terrain colours, rivers on hexsides with the bridges over them,
//! roads and railroads from hex centre to hex centre, the areas and hex values the scenario's
//! `[map.legend]` names, hex ids, place names, counters in their side's colour with a NATO-style
//! symbol of their type, markers, an overlay above the counters, and a legend. Drawn for the
//! whole map or a window of it. Flat-topped hexes in columns, or pointy-topped hexes in rows
//! for a map numbered by rows.

use super::{Overlay, SideKind};
use crate::hex::{Dir, HexId, Hexside};
use crate::map::{Layout, Map};
use crate::state::{GameState, Unit};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Hex size: distance from centre to corner, in SVG units.
const R: f64 = 36.0;
/// The side of a counter.
const COUNTER: f64 = 32.0;
/// Space above the map (title) and to its right (legend).
pub(super) const TOP: f64 = 44.0;
const LEGEND_W: f64 = 300.0;

pub struct SvgMap<'a> {
    pub map: &'a Map,
    pub state: &'a GameState,
    /// The hexes to draw (the whole map, or a window of it).
    pub hexes: BTreeSet<HexId>,
    pub overlay: Option<Overlay>,
    pub hidden: BTreeSet<String>,
    /// The symbol of each unit, by unit id (`Scenario::symbols`).
    pub symbols: &'a BTreeMap<String, String>,
    /// Each drawn unit's strength in the rules' words, by unit id (else the kernel's).
    pub strengths: BTreeMap<String, String>,
    /// The rules' words for each value of a hex marker drawn, by (marker, value): the keys'
    /// tooltips and the legend.
    pub marker_words: BTreeMap<(String, i64), String>,
    pub title: String,
}

fn default_color(t: &str) -> String {
    match t {
        "clear" | "open" => "#f3efd9",
        "forest" | "woods" => "#8dbb78",
        "swamp" | "marsh" => "#a9cfc4",
        "city" => "#c9b8a6",
        "town" | "village" => "#ddd0bb",
        "water" | "lake" | "sea" => "#9cc3e6",
        "rough" | "hills" => "#d7c08e",
        "mountain" => "#b49a6b",
        _ => {
            // a stable pastel from the name
            let h = t.bytes().fold(7u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32)) % 360;
            return format!("hsl({h},35%,80%)");
        }
    }
    .to_string()
}

pub(super) const RIVER: &str = "#2f6fc4";
pub(super) const ROAD: &str = "#8b5a2b";
pub(super) const RAIL: &str = "#222";
pub(super) const HIGHWAY: &str = "#5a3a1a";
/// A sea's, a lake's or a haff's hexside (not a river).
pub(super) const WATER: &str = r##"stroke="#7fb2e0" stroke-width="7" stroke-opacity="0.85""##;

pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A font size at which `text` fits `width` (about 0.58 em a character), at most `max`.
fn fitted(text: &str, width: f64, max: f64) -> f64 {
    let n = text.chars().count().max(1) as f64;
    (width / (0.58 * n)).clamp(3.5, max)
}

/// `text` cut into lines of at most `width` characters, at spaces.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for w in text.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + w.chars().count() <= width => {
                l.push(' ');
                l.push_str(w);
            }
            _ => lines.push(w.to_string()),
        }
    }
    lines
}

/// The symbol drawn for a unit: the scenario's, else one for an `hq` or `air` kind, else a box.
pub(super) fn symbol_of<'s>(symbols: &'s BTreeMap<String, String>, u: &Unit) -> &'s str {
    match symbols.get(&u.id) {
        Some(s) => s,
        None => match u.kind.as_str() {
            "hq" => "hq",
            "air" => "air",
            _ => "box",
        },
    }
}

/// Whether a hex feature is a city (a word of its name), drawn as a darker inset of its hex.
pub(super) fn is_city(feature: &str) -> bool {
    feature.split(['_', '-', ' ']).any(|w| w.eq_ignore_ascii_case("city"))
}

/// Whether a hex feature is a line drawn from hex to hex (a railroad, a road...).
pub(super) fn is_line(feature: &str) -> bool {
    matches!(SideKind::of(feature), SideKind::Rail | SideKind::Road | SideKind::Highway | SideKind::Trail)
}

/// The NATO mark of a unit's size (II a battalion ... XXXXX an army group), from its `size`
/// attribute (`size = "corps"`) or a flag of its size (`division = true`); None if neither.
pub(super) fn size_mark(u: &Unit) -> Option<&'static str> {
    const MARKS: &[(&str, &str)] = &[
        ("battalion", "II"),
        ("regiment", "III"),
        ("brigade", "X"),
        ("division", "XX"),
        ("corps", "XXX"),
        ("army", "XXXX"),
        ("front", "XXXXX"),
        ("army_group", "XXXXX"),
    ];
    let size = u.attrs.get("size").and_then(|v| v.as_str()).map(|s| s.to_lowercase());
    MARKS.iter().find_map(|(name, mark)| {
        let flagged = u.attrs.get(*name).and_then(|v| v.as_bool()) == Some(true);
        (size.as_deref() == Some(*name) || flagged).then_some(*mark)
    })
}

/// A hex marker's key as printed in a hex: the key, and the value after it unless it is 1
/// (`Ct`, `Ct2`).
pub(super) fn marker_tag(key: &str, v: i64) -> String {
    if v == 1 { key.to_string() } else { format!("{key}{v}") }
}

/// A unit id too long for one line of a counter (over 10 characters) cut in two after the
/// separator (`/`, `-`, `_`) nearest its middle: `Festung-` and `Arnswalde`. None when it fits or
/// has no separator.
pub(super) fn split_id(id: &str) -> Option<(&str, &str)> {
    let n = id.chars().count();
    if n <= 10 {
        return None;
    }
    let mid = id.len() / 2;
    let cut = id
        .char_indices()
        .filter(|&(i, ch)| matches!(ch, '/' | '-' | '_') && i > 0 && i + 1 < id.len())
        .map(|(i, _)| i + 1)
        .min_by_key(|&i| i.abs_diff(mid))?;
    Some(id.split_at(cut))
}

/// A NATO-style unit symbol in the box at (x, y), `w` by `h`.
pub(super) fn symbol(s: &mut String, sym: &str, x: f64, y: f64, w: f64, h: f64) {
    let st = r##"stroke="#fff" stroke-width="1" fill="none""##;
    let _ = write!(s, r#"<g class="symbol {sym}"><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" {st}/>"#);
    let (x2, y2, cx, cy) = (x + w, y + h, x + w / 2.0, y + h / 2.0);
    let cross = format!(r#"<path d="M{x:.1} {y:.1}L{x2:.1} {y2:.1}M{x:.1} {y2:.1}L{x2:.1} {y:.1}" {st}/>"#);
    let oval = format!(r#"<ellipse cx="{cx:.1}" cy="{cy:.1}" rx="{:.1}" ry="{:.1}" {st}/>"#, w * 0.32, h * 0.3);
    match sym {
        "infantry" => s.push_str(&cross),
        "militia" => {
            let _ = write!(
                s,
                r#"<path d="M{x:.1} {y:.1}L{x2:.1} {y2:.1}M{x:.1} {y2:.1}L{x2:.1} {y:.1}" {st} stroke-dasharray="2,1.5"/>"#
            );
        }
        "armour" => s.push_str(&oval),
        "mechanized" => {
            s.push_str(&cross);
            s.push_str(&oval);
        }
        "motorized" => {
            s.push_str(&cross);
            let _ = write!(s, r#"<path d="M{cx:.1} {y:.1}V{y2:.1}" {st}/>"#);
        }
        "cavalry" | "recon" => {
            let _ = write!(s, r#"<path d="M{x:.1} {y2:.1}L{x2:.1} {y:.1}" {st}/>"#);
        }
        "hq" => {
            // a headquarters: the frame's staff, down from its left edge (NATO's HQ)
            // (a short staff on a counter: a long one would strike through the unit's id)
            let _ = write!(s, r##"<path d="M{x:.1} {y:.1}V{:.1}" stroke="#fff" stroke-width="1.6"/>"##, y2 + h * 0.3);
        }
        "air" => {
            let _ = write!(
                s,
                r#"<ellipse cx="{:.1}" cy="{cy:.1}" rx="{:.1}" ry="{:.1}" {st}/><ellipse cx="{:.1}" cy="{cy:.1}" rx="{:.1}" ry="{:.1}" {st}/>"#,
                cx - w * 0.16,
                w * 0.16,
                h * 0.22,
                cx + w * 0.16,
                w * 0.16,
                h * 0.22
            );
        }
        "artillery" => {
            let _ = write!(s, r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="#fff"/>"##, h * 0.18);
        }
        "engineer" => {
            let (a, b, t, d) = (x + w * 0.25, x2 - w * 0.25, y + h * 0.35, y + h * 0.7);
            let _ = write!(s, r#"<path d="M{a:.1} {d:.1}V{t:.1}H{b:.1}V{d:.1}M{cx:.1} {t:.1}V{d:.1}" {st}/>"#);
        }
        "antitank" => {
            let _ = write!(s, r#"<path d="M{x:.1} {y2:.1}L{cx:.1} {y:.1}L{x2:.1} {y2:.1}" {st}/>"#);
        }
        "fortified" => {
            let _ = write!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {st}/>"#,
                x + 2.0,
                y + 2.0,
                w - 4.0,
                h - 4.0
            );
        }
        _ => {}
    }
    s.push_str("</g>");
}

/// What a symbol means, for the legend.
pub(super) fn symbol_name(sym: &str) -> &str {
    match sym {
        "box" => "unit (no type symbol)",
        "hq" => "headquarters",
        "air" => "air unit",
        "armour" => "armour",
        "mechanized" => "mechanized",
        "motorized" => "motorized",
        "militia" => "militia",
        other => other,
    }
}

/// Where the hexes are drawn: the box of columns and rows of the window.
struct Frame {
    min_c: i32,
    max_c: i32,
    min_r: i32,
    max_r: i32,
}

impl SvgMap<'_> {
    fn frame(&self) -> Frame {
        let cols = self.hexes.iter().map(|h| h.col);
        let rows = self.hexes.iter().map(|h| h.row);
        Frame {
            min_c: cols.clone().min().unwrap_or(0),
            max_c: cols.max().unwrap_or(0),
            min_r: rows.clone().min().unwrap_or(0),
            max_r: rows.max().unwrap_or(0),
        }
    }

    fn pointy(&self) -> bool {
        self.map.layout == Layout::Rows
    }

    /// The centre of a hex. In columns layout a low column is drawn half a hex lower; in rows
    /// layout the kernel's columns are the printed rows, drawn across, and a low one is drawn
    /// half a hex further east.
    fn centre(&self, f: &Frame, h: HexId) -> (f64, f64) {
        let low = self.map.grid.neighbour(HexId::new(h.col, 0), Dir::SE).row == 1;
        let hh = R * 3f64.sqrt();
        if self.pointy() {
            let x = hh / 2.0 + hh * (h.row - f.min_r) as f64 + if low { hh / 2.0 } else { 0.0 };
            let band = if self.map.rows_up { f.max_c - h.col } else { h.col - f.min_c };
            return (x + 10.0, R + 1.5 * R * band as f64 + TOP);
        }
        let x = R + 1.5 * R * (h.col - f.min_c) as f64;
        let y = if self.map.rows_up {
            hh / 2.0 + hh * (f.max_r - h.row) as f64 + if low { 0.0 } else { hh / 2.0 }
        } else {
            hh / 2.0 + hh * (h.row - f.min_r) as f64 + if low { hh / 2.0 } else { 0.0 }
        };
        (x + 10.0, y + TOP)
    }

    /// Corner `i` of a hex, clockwise (y down) from east for a flat-topped hex, from 30°
    /// below east for a pointy-topped one (whose corner 4 is straight above the centre).
    fn corner(&self, c: (f64, f64), i: usize, scale: f64) -> (f64, f64) {
        let mut a = std::f64::consts::PI / 3.0 * i as f64;
        if self.pointy() {
            a += std::f64::consts::PI / 6.0;
        }
        (c.0 + R * scale * a.cos(), c.1 + R * scale * a.sin())
    }

    fn hex_points(&self, c: (f64, f64), scale: f64) -> String {
        (0..6).map(|i| self.corner(c, i, scale)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
    }

    /// Corners of the side of a hex drawn at `d` (a side of a flat-topped hex, as
    /// [`Map::drawn_dir`] gives it; a pointy-topped hex's corners are turned with its sides).
    fn side_points(&self, c: (f64, f64), d: Dir) -> ((f64, f64), (f64, f64)) {
        let (i, j) = match d {
            Dir::N => (4, 5),
            Dir::NE => (5, 0),
            Dir::SE => (0, 1),
            Dir::S => (1, 2),
            Dir::SW => (2, 3),
            Dir::NW => (3, 4),
        };
        (self.corner(c, i, 1.0), self.corner(c, j, 1.0))
    }

    /// The direction a hexside is drawn in from `h` to its neighbour `n`.
    fn drawn_towards(&self, h: HexId, n: HexId) -> Option<Dir> {
        Dir::ALL.into_iter().find(|d| self.map.grid.neighbour(h, *d) == n).map(|d| self.map.drawn_dir(d))
    }

    pub fn render(&self) -> String {
        let f = self.frame();
        let hh = R * 3f64.sqrt();
        let (map_w, map_h) = if self.pointy() {
            (
                20.0 + hh * ((f.max_r - f.min_r) as f64 + 1.5),
                TOP + 20.0 + R * 2.0 + R * 1.5 * (f.max_c - f.min_c) as f64,
            )
        } else {
            (
                20.0 + R * 2.0 + R * 1.5 * (f.max_c - f.min_c) as f64,
                TOP + 20.0 + hh * ((f.max_r - f.min_r) as f64 + 1.5),
            )
        };
        let mut legend = String::new();
        let legend_h = self.legend(&mut legend, map_w + 10.0);
        let (width, height) = (map_w + LEGEND_W, map_h.max(legend_h + 20.0));
        // a window of a few hexes is shown larger
        let zoom = if map_w < 900.0 { 2.0 } else { 1.0 };
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">"#,
            width * zoom,
            height * zoom
        );
        let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#fbfaf5"/>"##);
        let _ = writeln!(
            s,
            r#"<text id="title" x="10" y="26" font-size="{:.1}" font-weight="bold">{}</text>"#,
            fitted(&self.title, width - 20.0, 17.0),
            esc(&self.title)
        );
        self.terrain(&mut s, &f);
        self.areas(&mut s, &f);
        self.roads(&mut s, &f);
        self.hexsides(&mut s, &f);
        self.bridges(&mut s, &f);
        self.labels(&mut s, &f);
        self.counters(&mut s, &f);
        self.draw_overlay(&mut s, &f);
        s.push_str(&legend);
        s.push_str("</svg>\n");
        s
    }

    /// The terrain of every hex.
    fn terrain(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"terrain\">\n");
        for &h in &self.hexes {
            let info = &self.map.hexes[&h];
            let c = self.centre(f, h);
            let fill = self.terrain_color(&info.terrain);
            let _ = writeln!(
                s,
                r##"<polygon data-hex="{id}" points="{}" fill="{fill}" stroke="#9a937f" stroke-width="0.8"><title>{id} {}</title></polygon>"##,
                self.hex_points(c, 1.0),
                esc(&info.terrain),
                id = self.map.fmt(h),
            );
            // (a city, a feature on its terrain, stands out as a darker inset: Stalingrad, Rostov)
            if info.features.iter().any(|f| is_city(f)) {
                let _ = writeln!(
                    s,
                    r##"<polygon class="city" points="{}" fill="#5a554d" opacity="0.28" stroke="none"/>"##,
                    self.hex_points(c, 0.78)
                );
            }
        }
        s.push_str("</g>\n");
    }

    /// A side's counter colour (by nationality, [`super::side_color`]).
    pub(super) fn side_fill(&self, side: &str) -> String {
        super::side_color(&self.map.colors, &self.state.sides, side).0
    }

    /// A unit's counter colour: its nation's where that is not its side's ([`super::unit_color`]).
    pub(super) fn unit_fill(&self, u: &Unit) -> String {
        super::unit_color(&self.map.colors, &self.state.sides, u).0
    }

    pub(super) fn terrain_color(&self, t: &str) -> String {
        self.map.colors.get(t).cloned().unwrap_or_else(|| default_color(t))
    }

    /// The areas the scenario's legend names: their boundary, one line along the hexsides
    /// between the area and the rest of the map (not along the map's edge; set a little inside the area, nested when an
    /// edge bounds several), and the area's short text once, in its first hex drawn.
    fn areas(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"areas\">\n");
        let mut depth: BTreeMap<(HexId, Dir), usize> = BTreeMap::new();
        for (name, mark) in &self.map.legend.areas {
            let Some(area) = self.map.areas.get(name) else { continue };
            let mut path = String::new();
            for &h in area.iter().filter(|h| self.hexes.contains(h)) {
                let c = self.centre(f, h);
                for d in Dir::ALL {
                    // (the map's own edge is not the area's boundary)
                    let n = self.map.grid.neighbour(h, d);
                    if area.contains(&n) || !self.map.contains(n) {
                        continue;
                    }
                    let k = depth.entry((h, d)).or_default();
                    let inset = 0.93 - 0.07 * *k as f64;
                    *k += 1;
                    let (p, q) = self.side_points(c, self.map.drawn_dir(d));
                    let at = |p: (f64, f64)| (c.0 + (p.0 - c.0) * inset, c.1 + (p.1 - c.1) * inset);
                    let (p, q) = (at(p), at(q));
                    let _ = write!(path, "M{:.1} {:.1}L{:.1} {:.1}", p.0, p.1, q.0, q.1);
                }
            }
            if path.is_empty() {
                continue;
            }
            let _ = writeln!(
                s,
                r#"<g class="area {}"><title>{}</title><path d="{path}" fill="none" stroke="{}" stroke-width="8" stroke-linejoin="round" opacity="0.22"/><path d="{path}" fill="none" stroke="{}" stroke-width="1.6" stroke-dasharray="2,3" stroke-linecap="round"/></g>"#,
                esc(name),
                esc(&mark.label),
                esc(&mark.color),
                esc(&mark.color)
            );
            if let Some(&first) = area.iter().find(|h| self.hexes.contains(h))
                && !mark.text.is_empty()
            {
                let c = self.centre(f, first);
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="8" font-weight="bold" fill="{}" text-anchor="middle">{}</text>"#,
                    c.0 - R * 0.55,
                    c.1 + 3.0,
                    esc(&mark.color),
                    esc(&mark.text)
                );
            }
        }
        s.push_str("</g>\n");
    }

    /// Roads and railroads: centre to centre across the hexside (to the edge of the window
    /// when the next hex is outside it).
    fn roads(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"roads\">\n");
        for (side, feats) in self.map.sorted_sides() {
            let (a, b) = (side.0, side.1);
            let (ina, inb) = (self.hexes.contains(&a), self.hexes.contains(&b));
            if !self.map.contains(a) || !self.map.contains(b) || !(ina || inb) {
                continue;
            }
            let (mut ca, mut cb) = (self.centre(f, a), self.centre(f, b));
            let mid = ((ca.0 + cb.0) / 2.0, (ca.1 + cb.1) / 2.0);
            if !ina {
                ca = mid;
            }
            if !inb {
                cb = mid;
            }
            // (a road and a railroad between the same hexes side by side, not one over the other)
            let lines: Vec<&String> = feats.iter().filter(|f| is_line(f)).collect();
            let (dx, dy) = (cb.0 - ca.0, cb.1 - ca.1);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let normal = (-dy / len, dx / len);
            for feat in feats {
                let k = lines.iter().position(|l| *l == feat).unwrap_or(0) as f64;
                let off = 3.5 * (k - (lines.len().max(1) as f64 - 1.0) / 2.0);
                let (pa, pb) =
                    ((ca.0 + normal.0 * off, ca.1 + normal.1 * off), (cb.0 + normal.0 * off, cb.1 + normal.1 * off));
                let styles = match SideKind::of(feat) {
                    SideKind::Rail => vec![format!(r#"stroke="{RAIL}" stroke-width="2.5" stroke-dasharray="6,3""#)],
                    SideKind::Road => vec![format!(r#"stroke="{ROAD}" stroke-width="3""#)],
                    SideKind::Trail => vec![format!(r#"stroke="{ROAD}" stroke-width="1.6" stroke-dasharray="4,3""#)],
                    // a highway: a wide dark road with a light line along it
                    SideKind::Highway => vec![
                        format!(r#"stroke="{HIGHWAY}" stroke-width="5""#),
                        r##"stroke="#f0d28a" stroke-width="1.8""##.to_string(),
                    ],
                    _ => continue,
                };
                for style in styles {
                    let _ = writeln!(
                        s,
                        r#"<line class="{}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" {style}/>"#,
                        esc(feat),
                        pa.0,
                        pa.1,
                        pb.0,
                        pb.1
                    );
                }
            }
        }
        s.push_str("</g>\n");
    }

    /// The hexsides of the window with what lies on them (features and markers).
    pub(super) fn window_sides(&self) -> Vec<(HexId, HexId, BTreeSet<String>)> {
        let mut out = Vec::new();
        for &h in &self.hexes {
            for n in self.map.grid.neighbours(h) {
                // each side once: from the smaller hex, or from the only one in the window
                if self.hexes.contains(&n) && n < h {
                    continue;
                }
                let mut feats: BTreeSet<String> = self.map.side_features(h, n).cloned().unwrap_or_default();
                if let Some(m) = self.state.side_markers.get(&Hexside::new(h, n)) {
                    feats.extend(m.keys().map(|k| format!("marker:{k}")));
                }
                if !feats.is_empty() {
                    out.push((h, n, feats));
                }
            }
        }
        out
    }

    /// Rivers and other hexside features (and hexside markers), on the sides.
    fn hexsides(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"hexsides\">\n");
        let waters = self.water_names();
        for (h, n, feats) in self.window_sides() {
            let Some(d) = self.drawn_towards(h, n) else { continue };
            let (p, q) = self.side_points(self.centre(f, h), d);
            for feat in &feats {
                // (a water's name, `don` on a major river: the river is drawn)
                if waters.contains(feat) {
                    continue;
                }
                let style = if feat.starts_with("marker:") {
                    r##"stroke="#d22" stroke-width="3" stroke-dasharray="3,2""##.to_string()
                } else {
                    match SideKind::of(feat) {
                        SideKind::River if feat.contains("major") => format!(r#"stroke="{RIVER}" stroke-width="6""#),
                        SideKind::River if feat.contains("river") => format!(r#"stroke="{RIVER}" stroke-width="4""#),
                        // a sea's, a lake's or a haff's shore
                        SideKind::River => WATER.to_string(),
                        SideKind::Other => super::other_side_style(feat),
                        _ => continue,
                    }
                };
                let _ = writeln!(
                    s,
                    r#"<line class="{}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" {style} stroke-linecap="round"><title>{}</title></line>"#,
                    esc(feat),
                    p.0,
                    p.1,
                    q.0,
                    q.1,
                    esc(feat)
                );
            }
        }
        s.push_str("</g>\n");
    }

    /// Bridges, drawn after the rivers so the river does not cover them: a deck across the
    /// hexside, along the road, with its two rails.
    fn bridges(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"bridges\">\n");
        for (h, n, feats) in self.window_sides() {
            if !super::bridged(&super::side_kinds(&feats)) {
                continue;
            }
            let Some(d) = self.drawn_towards(h, n) else { continue };
            let c = self.centre(f, h);
            let (p, q) = self.side_points(c, d);
            let mid = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
            // along the crossing: from the hex centre through the middle of the side
            let (dx, dy) = (mid.0 - c.0, mid.1 - c.1);
            let len = (dx * dx + dy * dy).sqrt();
            let (ux, uy) = (dx / len * 9.0, dy / len * 9.0);
            let (a, b) = ((mid.0 - ux, mid.1 - uy), (mid.0 + ux, mid.1 + uy));
            let _ = writeln!(
                s,
                r##"<g class="bridge"><title>bridge</title><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="9"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#e9dcc0" stroke-width="6"/></g>"##,
                a.0, a.1, b.0, b.1, a.0, a.1, b.0, b.1
            );
        }
        s.push_str("</g>\n");
    }

    /// Hex ids (top), place names (bottom, fitted to the hex), the hex values the legend names,
    /// and the features and markers of an empty hex.
    fn labels(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"labels\">\n");
        let (keys, widespread) = (self.tag_keys(), self.widespread_markers());
        // a place name at the bottom of the hex, narrower in a pointy-topped one
        // (a place name under the counter, off the hex's bottom edge: it reads as this hex's, not
        // the next one's, and may be a little wider than the hex)
        let (name_y, name_w) = if self.pointy() { (0.66, 1.25) } else { (0.68, 1.3) };
        for &h in &self.hexes {
            let info = &self.map.hexes[&h];
            let c = self.centre(f, h);
            let id = self.map.fmt(h);
            let _ = writeln!(
                s,
                r##"<text class="hexid" x="{:.1}" y="{:.1}" font-size="{:.1}" fill="#6b6552" text-anchor="middle">{}</text>"##,
                c.0,
                c.1 - R * 0.62,
                fitted(&id, R * 0.9, 7.5),
                esc(&id)
            );
            if let Some(name) = &info.name {
                let _ = writeln!(
                    s,
                    r##"<text class="place" x="{:.1}" y="{:.1}" font-size="{:.1}" font-weight="bold" fill="#222" stroke="#fbfaf5" stroke-width="2" paint-order="stroke" text-anchor="middle">{}</text>"##,
                    c.0,
                    c.1 + R * name_y,
                    fitted(name, R * name_w, 8.0),
                    esc(name)
                );
            }
            for (k, (name, mark)) in self.map.legend.values.iter().enumerate() {
                if let Some(v) = info.values.get(name) {
                    let v = if v.fract() == 0.0 { format!("{v:.0}") } else { v.to_string() };
                    // (low on the right, clear of a stack's badge at the counter's top corner)
                    let (x, y) = (c.0 + R * 0.62, c.1 + R * 0.3 - 13.0 * k as f64);
                    let _ = writeln!(
                        s,
                        r##"<g class="value {}"><title>{}: {}</title><circle cx="{x:.1}" cy="{y:.1}" r="6.5" fill="{}" stroke="#fff" stroke-width="1"/><text x="{x:.1}" y="{:.1}" font-size="8" font-weight="bold" fill="#fff" text-anchor="middle">{}</text></g>"##,
                        esc(name),
                        esc(&mark.label),
                        esc(&v),
                        esc(&mark.color),
                        y + 3.0,
                        esc(&v)
                    );
                }
            }
            // features and markers by their keys (the legend says what each is); a marker on
            // most of the hexes drawn is in the legend only
            let mut tags: Vec<String> = info.features.iter().filter_map(|f| keys.get(f).cloned()).collect();
            let mut said: Vec<String> = Vec::new();
            if let Some(m) = self.state.hex_markers.get(&h) {
                for (k, v) in m.iter().filter(|(k, _)| !widespread.contains_key(*k)) {
                    let key = keys.get(k).cloned().unwrap_or_else(|| k.clone());
                    let tag = marker_tag(&key, *v);
                    if let Some(w) = self.marker_words.get(&(k.clone(), *v)) {
                        said.push(format!("{tag}: {w}"));
                    }
                    tags.push(tag);
                }
            }
            // (what the rules say of the markers, in the tooltip of the hex's keys)
            let title =
                if said.is_empty() { String::new() } else { format!("<title>{}</title>", esc(&said.join("; "))) };
            if tags.is_empty() {
                continue;
            }
            if self.state.stack(h).is_empty() {
                let t = tags.join(" ");
                let _ = writeln!(
                    s,
                    r##"<text class="hexkey" x="{:.1}" y="{:.1}" font-size="{:.1}" fill="#444" stroke="#fbfaf5" stroke-width="2.5" paint-order="stroke" text-anchor="middle">{title}{}</text>"##,
                    c.0,
                    c.1 + 2.0,
                    fitted(&t, R * 1.4, 7.0),
                    esc(&t)
                );
            } else {
                self.tags_beside_counter(s, c, &tags, &title);
            }
        }
        s.push_str("</g>\n");
    }

    /// The keys of a hex under a counter, one a line in the strip left of the counter (as the
    /// values are right of it), so that a unit does not hide its hex's features and markers.
    fn tags_beside_counter(&self, s: &mut String, c: (f64, f64), tags: &[String], title: &str) {
        // (the hex's half width at its centre: R flat-topped, R cos 30° pointy-topped)
        let half = if self.pointy() { R * 0.866 } else { R };
        let strip = half - COUNTER / 2.0;
        let x = c.0 - COUNTER / 2.0 - strip / 2.0;
        let mut lines: Vec<String> = tags.iter().take(3).cloned().collect();
        if tags.len() > 3 {
            lines[2] = tags[2..].join(" ");
        }
        let top = c.1 - 4.0 * (lines.len() as f64 - 1.0);
        for (k, t) in lines.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text class="hexkey beside" x="{x:.1}" y="{:.1}" font-size="{:.1}" fill="#333" stroke="#fbfaf5" stroke-width="2.5" paint-order="stroke" text-anchor="middle">{title}{}</text>"##,
                top + 8.0 * k as f64 + 2.5,
                fitted(t, strip - 1.0, 7.0),
                esc(t)
            );
        }
    }

    /// The features and hex markers of the hexes drawn, each with its short key (the initials
    /// of its words, or its first two letters; a letter more where two would be the same).
    pub(super) fn tag_keys(&self) -> BTreeMap<String, String> {
        let mut names: BTreeSet<&String> = BTreeSet::new();
        for h in &self.hexes {
            // (a railroad or road through the hex is drawn as its line)
            names.extend(self.map.hexes[h].features.iter().filter(|f| !is_line(f)));
            if let Some(m) = self.state.hex_markers.get(h) {
                names.extend(m.keys());
            }
        }
        let mut out: BTreeMap<String, String> = BTreeMap::new();
        let mut used: BTreeSet<String> = BTreeSet::new();
        for name in names {
            let words: Vec<&str> = name.split(['_', '-', ' ']).filter(|w| !w.is_empty()).collect();
            let letters: String = if words.len() > 1 {
                words.iter().filter_map(|w| w.chars().next()).collect::<String>().to_uppercase()
            } else {
                let mut c = name.chars();
                c.next().map(|f| f.to_uppercase().chain(c.take(1)).collect()).unwrap_or_default()
            };
            let mut key = letters.clone();
            let mut extra = name.chars().filter(|c| c.is_alphanumeric()).skip(letters.chars().count());
            while used.contains(&key) {
                match extra.next() {
                    Some(c) => key.push(c),
                    None => key.push('\''),
                }
            }
            used.insert(key.clone());
            out.insert(name.clone(), key);
        }
        out
    }

    /// The names of hexside features of no known kind that lie only on a river's or a sea's
    /// hexsides (Fortress Stalingrad's `don`, `volga`, `kerch`): names of waters, drawn as them.
    pub(super) fn water_names(&self) -> BTreeSet<String> {
        let (mut wet, mut dry) = (BTreeSet::new(), BTreeSet::new());
        for (_, _, feats) in self.window_sides() {
            let watery = feats.iter().any(|x| SideKind::of(x) == SideKind::River);
            for f in feats.iter().filter(|f| !f.starts_with("marker:") && SideKind::of(f) == SideKind::Other) {
                if watery {
                    wet.insert(f.clone())
                } else {
                    dry.insert(f.clone())
                };
            }
        }
        wet.difference(&dry).cloned().collect()
    }

    /// The hex markers on more than half the hexes drawn (and twenty at least), with how many:
    /// the legend names them, the hexes do not (`show <hex>` gives each).
    pub(super) fn widespread_markers(&self) -> BTreeMap<String, usize> {
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for h in &self.hexes {
            for k in self.state.hex_markers.get(h).into_iter().flat_map(|m| m.keys()) {
                *count.entry(k.clone()).or_default() += 1;
            }
        }
        count.retain(|_, n| *n >= 20 && *n * 2 > self.hexes.len());
        count
    }

    /// The top counter of each stack, with the height of the stack; under fog of war the
    /// tooltip names only the units the side to act may see.
    fn counters(&self, s: &mut String, f: &Frame) {
        s.push_str("<g id=\"counters\">\n");
        for &h in &self.hexes {
            // the top counter is always seen; under fog of war only the height of the stack
            let stack = self.state.stack(h);
            let Some(top) = stack.first() else { continue };
            let c = self.centre(f, h);
            let fill = self.unit_fill(top);
            let (x, y) = (c.0 - COUNTER / 2.0, c.1 - COUNTER / 2.0 - 1.0);
            let sym = symbol_of(self.symbols, top);
            let _ = write!(s, r#"<g class="counter" data-unit="{}" data-symbol="{sym}">"#, esc(&top.id));
            if stack.len() > 1 {
                let _ = write!(
                    s,
                    r##"<rect x="{:.1}" y="{:.1}" width="{COUNTER}" height="{COUNTER}" rx="2" fill="{fill}" stroke="#111" stroke-width="0.6" opacity="0.6"/>"##,
                    x + 3.0,
                    y + 3.0
                );
            }
            let _ = write!(
                s,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{COUNTER}" height="{COUNTER}" rx="2" fill="{fill}" stroke="#111" stroke-width="0.8"/>"##
            );
            // (a long id in two lines, cut at the separator nearest its middle, rather than tiny;
            // the symbol is then a little shorter)
            let split = split_id(&top.id);
            let short = if split.is_some() { 2.0 } else { 0.0 };
            match size_mark(top) {
                Some(mark) => {
                    // the unit's size above its symbol (XX a division, XXX a corps...)
                    let _ = write!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" font-size="4.6" fill="#fff" text-anchor="middle" font-weight="bold" class="size">{mark}</text>"##,
                        c.0,
                        y + 4.6
                    );
                    symbol(s, sym, c.0 - 8.0, y + 5.2, 16.0, 8.6 - short);
                }
                None => symbol(s, sym, c.0 - 8.0, y + 3.0, 16.0, 10.0 - short),
            }
            let vals = top.values();
            let num = |k: &str| vals.get(k).map(crate::text::json_text).unwrap_or_else(|| "-".into());
            let line = if (vals.contains_key("attack") || vals.contains_key("defense")) && !vals.contains_key("move") {
                format!("{}-{}", num("attack"), num("defense"))
            } else if vals.contains_key("attack") || vals.contains_key("defense") {
                format!("{}-{}-{}", num("attack"), num("defense"), num("move"))
            } else {
                vals.iter().take(3).map(|(_, v)| crate::text::json_text(v)).collect::<Vec<_>>().join("-")
            };
            let (id_lines, values_at) = match split {
                Some((a, b)) => (vec![(a, y + 17.4, 5.6), (b, y + 23.0, 5.6)], y + 29.4),
                None => (vec![(top.id.as_str(), y + 20.5, 7.0)], y + 29.0),
            };
            for (text, at, max) in id_lines {
                let _ = write!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="{:.1}" fill="#fff" text-anchor="middle" font-weight="bold">{}</text>"##,
                    c.0,
                    at,
                    fitted(text, COUNTER - 3.0, max),
                    esc(text)
                );
            }
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="{:.1}" fill="#fff" text-anchor="middle">{}</text>"##,
                c.0,
                values_at,
                fitted(&line, COUNTER - 4.0, if split.is_some() { 6.2 } else { 7.0 }),
                esc(&line)
            );
            if top.step > 0 {
                // reduced: a band along the bottom of the counter
                let _ = write!(
                    s,
                    r##"<rect class="reduced" x="{x:.1}" y="{:.1}" width="{COUNTER}" height="2.5" fill="#f5c542"/>"##,
                    y + COUNTER - 2.5
                );
            }
            if !top.markers.is_empty() {
                let _ = write!(
                    s,
                    r##"<circle class="marked" cx="{:.1}" cy="{:.1}" r="2.5" fill="#f5c542" stroke="#111" stroke-width="0.5"/>"##,
                    x + 4.0,
                    y + 4.0
                );
            }
            if stack.len() > 1 {
                let _ = write!(
                    s,
                    r##"<g class="height"><circle cx="{:.1}" cy="{:.1}" r="6" fill="#fff" stroke="#111" stroke-width="0.8"/><text x="{:.1}" y="{:.1}" font-size="7" font-weight="bold" text-anchor="middle">+{}</text></g>"##,
                    x + COUNTER + 2.0,
                    y - 2.0,
                    x + COUNTER + 2.0,
                    y + 0.5,
                    stack.len() - 1
                );
            }
            let title: Vec<String> = stack
                .iter()
                .filter(|u| u.id == top.id || !self.hidden.contains(&u.id))
                .map(|u| {
                    let m = if u.markers.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", u.markers.keys().cloned().collect::<Vec<_>>().join(", "))
                    };
                    let strength = self.strengths.get(&u.id).cloned().unwrap_or_else(|| u.strength());
                    format!("{} ({}): {strength}{m}", u.id, u.name)
                })
                .collect();
            let hidden = stack.len() - title.len();
            let more = if hidden > 0 { format!(" and {hidden} hidden") } else { String::new() };
            let _ = writeln!(s, r#"<title>{}{more}</title></g>"#, esc(&title.join(", ")));
        }
        s.push_str("</g>\n");
    }

    /// The overlay, above the counters: a tint over each marked hex and its label.
    fn draw_overlay(&self, s: &mut String, f: &Frame) {
        let Some(o) = &self.overlay else { return };
        s.push_str("<g id=\"overlay\">\n");
        for (h, label) in o.labels.iter().filter(|(h, _)| self.hexes.contains(h)) {
            let c = self.centre(f, *h);
            let (x, y) = (c.0 - R * 0.6, c.1 - R * 0.42);
            let _ = writeln!(
                s,
                r##"<g class="mark"><polygon points="{}" fill="#ffd54a" opacity="0.22"/><circle cx="{x:.1}" cy="{y:.1}" r="7.5" fill="#ffd54a" stroke="#7a5c00" stroke-width="0.8"/><text x="{x:.1}" y="{:.1}" font-size="{:.1}" font-weight="bold" text-anchor="middle">{}</text></g>"##,
                self.hex_points(c, 1.0),
                y + 2.8,
                fitted(label, 13.0, 8.0),
                esc(label)
            );
        }
        s.push_str("</g>\n");
    }
}

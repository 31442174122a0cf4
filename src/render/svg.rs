//! The whole map as an SVG picture: terrain colours, rivers on hexsides, roads and railroads
//! from hex centre to hex centre, place names, hex numbers, counters with their values in
//! their side's colour, markers, and an optional overlay.

use crate::hex::{Dir, HexId};
use crate::map::Map;
use crate::state::GameState;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Hex size: distance from centre to corner, in SVG units.
const R: f64 = 30.0;

pub struct SvgMap<'a> {
    pub map: &'a Map,
    pub state: &'a GameState,
    pub overlay: BTreeMap<HexId, String>,
    pub hidden: BTreeSet<String>,
    /// Terrain colours given by the scenario (`[map.colors]`), by terrain name.
    pub colors: &'a BTreeMap<String, String>,
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

const SIDE_COLORS: [&str; 4] = ["#3b6fb6", "#b8413a", "#3c8d4a", "#8a4fa3"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl SvgMap<'_> {
    fn centre(&self, h: HexId, min_c: i32, min_r: i32) -> (f64, f64) {
        let low = self.map.grid.neighbour(HexId::new(h.col, 0), Dir::SE).row == 1;
        let w = R * 1.5;
        let hh = R * 3f64.sqrt();
        let x = R + w * (h.col - min_c) as f64;
        let y = if self.map.rows_up {
            let max_r = self.map.hexes.keys().map(|h| h.row).max().unwrap_or(0);
            hh / 2.0 + hh * (max_r - h.row) as f64 + if low { 0.0 } else { hh / 2.0 }
        } else {
            hh / 2.0 + hh * (h.row - min_r) as f64 + if low { hh / 2.0 } else { 0.0 }
        };
        (x + 10.0, y + 40.0)
    }

    fn corner(c: (f64, f64), i: usize) -> (f64, f64) {
        let a = std::f64::consts::PI / 3.0 * i as f64;
        (c.0 + R * a.cos(), c.1 + R * a.sin())
    }

    /// Corners of the side of a hex facing `d` (corners go clockwise from east, y down).
    fn side_points(c: (f64, f64), d: Dir) -> ((f64, f64), (f64, f64)) {
        let (i, j) = match d {
            Dir::N => (4, 5),
            Dir::NE => (5, 0),
            Dir::SE => (0, 1),
            Dir::S => (1, 2),
            Dir::SW => (2, 3),
            Dir::NW => (3, 4),
        };
        (Self::corner(c, i), Self::corner(c, j))
    }

    pub fn render(&self) -> String {
        let hexes: Vec<HexId> = self.map.hexes.keys().copied().collect();
        let min_c = hexes.iter().map(|h| h.col).min().unwrap_or(0);
        let max_c = hexes.iter().map(|h| h.col).max().unwrap_or(0);
        let min_r = hexes.iter().map(|h| h.row).min().unwrap_or(0);
        let max_r = hexes.iter().map(|h| h.row).max().unwrap_or(0);
        let width = 20.0 + R * 2.0 + R * 1.5 * (max_c - min_c) as f64;
        let height = 60.0 + R * 3f64.sqrt() * ((max_r - min_r) as f64 + 1.5);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">"#
        );
        let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#fbfaf5"/>"##);
        let _ = writeln!(s, r#"<text x="10" y="24" font-size="16" font-weight="bold">{}</text>"#, esc(&self.title));
        self.terrain(&mut s, &hexes, min_c, min_r);
        self.roads(&mut s, min_c, min_r);
        self.hexsides(&mut s, &hexes, min_c, min_r);
        self.labels(&mut s, &hexes, min_c, min_r);
        self.counters(&mut s, &hexes, min_c, min_r);
        s.push_str("</svg>\n");
        s
    }

    /// The terrain of every hex.
    fn terrain(&self, s: &mut String, hexes: &[HexId], min_c: i32, min_r: i32) {
        for &h in hexes {
            let info = &self.map.hexes[&h];
            let c = self.centre(h, min_c, min_r);
            let pts: Vec<String> = (0..6).map(|i| Self::corner(c, i)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let fill = self.colors.get(&info.terrain).cloned().unwrap_or_else(|| default_color(&info.terrain));
            let _ = writeln!(
                s,
                r##"<polygon points="{}" fill="{fill}" stroke="#9a937f" stroke-width="0.8"><title>{} {}</title></polygon>"##,
                pts.join(" "),
                self.map.fmt(h),
                esc(&info.terrain)
            );
        }
    }

    /// Roads and railroads: centre to centre across the hexside.
    fn roads(&self, s: &mut String, min_c: i32, min_r: i32) {
        for (side, feats) in self.map.sorted_sides() {
            let (a, b) = (side.0, side.1);
            if !self.map.contains(a) || !self.map.contains(b) {
                continue;
            }
            let (ca, cb) = (self.centre(a, min_c, min_r), self.centre(b, min_c, min_r));
            for f in feats {
                let style = if f.contains("rail") {
                    r##"stroke="#222" stroke-width="2.5" stroke-dasharray="6,3""##
                } else if f.contains("road") || f.contains("trail") || f.contains("bahn") {
                    r##"stroke="#8b5a2b" stroke-width="3""##
                } else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" {style}/>"#,
                    ca.0, ca.1, cb.0, cb.1
                );
            }
        }
    }

    /// Rivers and other hexside features (and hexside markers), on the sides.
    fn hexsides(&self, s: &mut String, hexes: &[HexId], min_c: i32, min_r: i32) {
        for &h in hexes {
            let c = self.centre(h, min_c, min_r);
            for d in [Dir::N, Dir::NE, Dir::SE, Dir::S, Dir::SW, Dir::NW] {
                let n = self.map.grid.neighbour(h, d);
                // draw each side once: from the smaller hex, or from the only on-map hex
                if self.map.contains(n) && n < h {
                    continue;
                }
                let mut feats: BTreeSet<String> = self.map.side_features(h, n).cloned().unwrap_or_default();
                if let Some(m) = self.state.side_markers.get(&crate::hex::Hexside::new(h, n)) {
                    feats.extend(m.keys().map(|k| format!("marker:{k}")));
                }
                let (p, q) = Self::side_points(c, self.map.drawn_dir(d));
                for f in &feats {
                    let style = if f.contains("major") {
                        r##"stroke="#1f5fa8" stroke-width="6""##
                    } else if f.contains("river") || f.contains("lake") || f.contains("sea") || f.contains("water") {
                        r##"stroke="#3a7bd5" stroke-width="4""##
                    } else if f.starts_with("marker:") {
                        r##"stroke="#d22" stroke-width="3" stroke-dasharray="3,2""##
                    } else if f.contains("road") || f.contains("rail") || f.contains("trail") || f.contains("bahn") {
                        continue;
                    } else {
                        r##"stroke="#555" stroke-width="3""##
                    };
                    let _ = writeln!(
                        s,
                        r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" {style} stroke-linecap="round"><title>{}</title></line>"#,
                        p.0,
                        p.1,
                        q.0,
                        q.1,
                        esc(f)
                    );
                }
            }
        }
    }

    /// Hex numbers, place names, features, markers and the overlay.
    fn labels(&self, s: &mut String, hexes: &[HexId], min_c: i32, min_r: i32) {
        for &h in hexes {
            let info = &self.map.hexes[&h];
            let c = self.centre(h, min_c, min_r);
            let id: String = self.map.fmt(h);
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="7" fill="#6b6552" text-anchor="middle">{id}</text>"##,
                c.0,
                c.1 - R * 0.62
            );
            if let Some(name) = &info.name {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="8" font-weight="bold" fill="#222" text-anchor="middle">{}</text>"##,
                    c.0,
                    c.1 + R * 0.78,
                    esc(name)
                );
            }
            let mut tags: Vec<String> = info.features.iter().cloned().collect();
            if let Some(m) = self.state.hex_markers.get(&h) {
                tags.extend(crate::text::markers(m));
            }
            if !tags.is_empty() && self.state.stack(h).is_empty() {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="6" fill="#444" text-anchor="middle">{}</text>"##,
                    c.0,
                    c.1 + 2.0,
                    esc(&tags.join(" "))
                );
            }
            if let Some(o) = self.overlay.get(&h) {
                let _ = writeln!(
                    s,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="7" fill="#ffd54a" opacity="0.85"/><text x="{:.1}" y="{:.1}" font-size="7" text-anchor="middle">{}</text>"##,
                    c.0 + R * 0.55,
                    c.1 - R * 0.35,
                    c.0 + R * 0.55,
                    c.1 - R * 0.35 + 2.5,
                    esc(o)
                );
            }
        }
    }

    /// The top counter of each stack, with the height of the stack; under fog of war the
    /// tooltip names only the units the side to act may see.
    fn counters(&self, s: &mut String, hexes: &[HexId], min_c: i32, min_r: i32) {
        for &h in hexes {
            // the top counter is always seen; under fog of war only the height of the stack
            let stack = self.state.stack(h);
            let Some(top) = stack.first() else { continue };
            let c = self.centre(h, min_c, min_r);
            let si = self.state.sides.iter().position(|x| *x == top.side).unwrap_or(0);
            let fill = SIDE_COLORS[si % SIDE_COLORS.len()];
            let size = R * 0.95;
            let (x, y) = (c.0 - size / 2.0, c.1 - size / 2.0);
            if stack.len() > 1 {
                let _ = writeln!(
                    s,
                    r##"<rect x="{:.1}" y="{:.1}" width="{size:.1}" height="{size:.1}" rx="2" fill="{fill}" stroke="#111" stroke-width="0.6" opacity="0.6"/>"##,
                    x + 3.0,
                    y - 3.0
                );
            }
            let _ = writeln!(
                s,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{size:.1}" height="{size:.1}" rx="2" fill="{fill}" stroke="#111" stroke-width="0.8"/>"##
            );
            let vals = top.values();
            let num = |k: &str| vals.get(k).map(crate::text::json_text).unwrap_or_else(|| "-".into());
            let line = if vals.contains_key("attack") || vals.contains_key("defense") {
                format!("{}-{}-{}", num("attack"), num("defense"), num("move"))
            } else {
                vals.iter().take(3).map(|(_, v)| crate::text::json_text(v)).collect::<Vec<_>>().join("-")
            };
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="7" fill="#fff" text-anchor="middle" font-weight="bold">{}</text>"##,
                c.0,
                c.1 - 3.0,
                esc(&top.id)
            );
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="7" fill="#fff" text-anchor="middle">{}</text>"##,
                c.0,
                c.1 + 7.0,
                esc(&line)
            );
            let mut tags = Vec::new();
            if stack.len() > 1 {
                tags.push(format!("+{}", stack.len() - 1));
            }
            tags.extend(top.markers.keys().cloned());
            if top.step > 0 {
                tags.push("reduced".to_string());
            }
            if !tags.is_empty() {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="6" fill="#b00" text-anchor="middle">{}</text>"##,
                    c.0,
                    y + size + 7.0,
                    esc(&tags.join(" "))
                );
            }
            let title: Vec<String> = stack
                .iter()
                .filter(|u| u.id == top.id || !self.hidden.contains(&u.id))
                .map(|u| format!("{} ({})", u.id, u.name))
                .collect();
            let _ = writeln!(s, r#"<title>{}</title>"#, esc(&title.join(", ")));
        }
    }
}

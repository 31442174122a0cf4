//! The map as text: flat-topped hexes in ASCII, six columns apart, four lines high, with
//! hexside features drawn on the sides (`~` river, `=` road, `#` rail, `|` other) and each
//! hex's id, terrain, features, top counter and an overlay label inside.

use crate::hex::{Dir, Grid, HexId, Hexside};
use crate::map::Map;
use crate::state::GameState;
use std::collections::{BTreeMap, BTreeSet};

/// What to draw.
pub struct TextMap<'a> {
    pub map: &'a Map,
    pub state: &'a GameState,
    /// Hexes to draw.
    pub hexes: BTreeSet<HexId>,
    /// Short labels from an overlay (ZOC, reach cost, supply...), by hex.
    pub overlay: BTreeMap<HexId, String>,
    /// Units the viewer may not see, other than the top of their stack (fog of war).
    pub hidden: BTreeSet<String>,
    pub color: bool,
}

const ANSI_RESET: &str = "\x1b[0m";

fn terrain_code(t: &str) -> String {
    let mut s: String = t.chars().filter(|c| c.is_alphanumeric()).take(3).collect();
    if s.is_empty() {
        s = "?".into();
    }
    s
}

fn terrain_ansi(t: &str) -> &'static str {
    match t {
        "clear" | "open" => "\x1b[37m",
        "forest" | "woods" => "\x1b[32m",
        "swamp" | "marsh" => "\x1b[36m",
        "city" | "town" | "village" => "\x1b[1;37m",
        "water" | "lake" | "sea" => "\x1b[34m",
        "rough" | "hills" | "mountain" => "\x1b[33m",
        _ => "\x1b[37m",
    }
}

fn side_ansi(i: usize) -> &'static str {
    ["\x1b[1;34m", "\x1b[1;31m", "\x1b[1;32m", "\x1b[1;35m"][i % 4]
}

/// Characters for a hexside: (first, second) for diagonal sides, one for N/S sides.
fn side_glyph(feats: &BTreeSet<String>) -> Option<char> {
    let has = |s: &str| feats.iter().any(|f| f.contains(s));
    if has("river") || has("water") || has("lake") || has("sea") {
        if has("road") || has("rail") || has("bridge") { Some('H') } else { Some('~') }
    } else if has("rail") {
        Some('#')
    } else if has("road") || has("trail") || has("bahn") {
        Some('=')
    } else if feats.is_empty() {
        None
    } else {
        Some('|')
    }
}

struct Canvas {
    w: usize,
    cells: Vec<Vec<(char, Option<&'static str>)>>,
}

impl Canvas {
    fn new(w: usize, h: usize) -> Canvas {
        Canvas { w, cells: vec![vec![(' ', None); w]; h] }
    }
    fn put(&mut self, x: i64, y: i64, c: char, color: Option<&'static str>) {
        if x >= 0 && y >= 0 && (y as usize) < self.cells.len() && (x as usize) < self.w {
            self.cells[y as usize][x as usize] = (c, color);
        }
    }
    fn text(&mut self, x: i64, y: i64, s: &str, width: usize, color: Option<&'static str>) {
        for (i, c) in s.chars().take(width).enumerate() {
            self.put(x + i as i64, y, c, color);
        }
    }
    fn render(&self, color: bool) -> Vec<String> {
        let mut out = Vec::new();
        for row in &self.cells {
            let mut line = String::new();
            let mut cur: Option<&'static str> = None;
            for &(c, col) in row {
                if color && col != cur {
                    line.push_str(ANSI_RESET);
                    if let Some(code) = col {
                        line.push_str(code);
                    }
                    cur = col;
                }
                line.push(c);
            }
            if color && cur.is_some() {
                line.push_str(ANSI_RESET);
            }
            out.push(line.trim_end().to_string());
        }
        while out.last().is_some_and(|l| l.is_empty()) {
            out.pop();
        }
        out
    }
}

/// Where the hexes are drawn: the box of columns and rows that holds them, and which way up.
struct Frame<'a> {
    grid: &'a Grid,
    rows_up: bool,
    min_c: i32,
    max_c: i32,
    min_r: i32,
    max_r: i32,
}

impl<'a> Frame<'a> {
    /// The frame around `hexes`, which must not be empty.
    fn around(map: &'a Map, hexes: &BTreeSet<HexId>) -> Frame<'a> {
        Frame {
            grid: &map.grid,
            rows_up: map.rows_up,
            min_c: hexes.iter().map(|h| h.col).min().unwrap(),
            max_c: hexes.iter().map(|h| h.col).max().unwrap(),
            min_r: hexes.iter().map(|h| h.row).min().unwrap(),
            max_r: hexes.iter().map(|h| h.row).max().unwrap(),
        }
    }

    /// A blank canvas just large enough for every hex of the frame.
    fn canvas(&self) -> Canvas {
        let width = 6 * (self.max_c - self.min_c + 1) as usize + 3;
        let height = 4 * (self.max_r - self.min_r + 1) as usize + 4;
        Canvas::new(width, height)
    }

    /// The top-left corner of a hex on the canvas; a low column is drawn 2 lines further down.
    fn origin(&self, h: HexId) -> (i64, i64) {
        let low = self.grid.neighbour(HexId::new(h.col, 0), Dir::SE).row == 1;
        let x = 6 * (h.col - self.min_c) as i64;
        let y = if self.rows_up {
            4 * (self.max_r - h.row) as i64 + if low { 0 } else { 2 }
        } else {
            4 * (h.row - self.min_r) as i64 + if low { 2 } else { 0 }
        };
        (x, y)
    }
}

impl TextMap<'_> {
    pub fn render(&self) -> Vec<String> {
        if self.hexes.is_empty() {
            return vec!["(no hex to draw)".into()];
        }
        let frame = Frame::around(self.map, &self.hexes);
        let mut cv = frame.canvas();
        for &h in &self.hexes {
            let (x, y) = frame.origin(h);
            self.draw_sides(&mut cv, h, x, y);
            self.draw_terrain(&mut cv, h, x, y);
            self.draw_stack(&mut cv, h, x, y);
        }
        let mut out = cv.render(self.color);
        out.push(legend());
        out
    }

    /// A colour, when the picture is in colour.
    fn color(&self, c: &'static str) -> Option<&'static str> {
        if self.color { Some(c) } else { None }
    }

    /// What lies on the hexside of `h` towards `d`: the map's features and the markers put on it.
    fn side_feats(&self, h: HexId, d: Dir) -> BTreeSet<String> {
        let n = self.map.grid.neighbour(h, d);
        let s = Hexside::new(h, n);
        let mut f = self.map.sides.get(&s).cloned().unwrap_or_default();
        if let Some(m) = self.state.side_markers.get(&s) {
            f.extend(m.keys().cloned());
        }
        f
    }

    /// The outline of a hex, each side drawn with the glyph of what lies on it.
    fn draw_sides(&self, cv: &mut Canvas, h: HexId, x: i64, y: i64) {
        let blue = self.color("\x1b[1;34m");
        // N and S sides
        for (d, yy) in [(Dir::N, y), (Dir::S, y + 4)] {
            let g = side_glyph(&self.side_feats(h, self.map.drawn_dir(d)));
            let (c, col) = match g {
                Some(g) => (g, blue),
                None => ('_', None),
            };
            for i in 2..=5 {
                cv.put(x + i, yy, c, col);
            }
        }
        // diagonal sides: NW, NE, SW, SE
        for (d, pts, base) in [
            (Dir::NW, [(x + 1, y + 1), (x, y + 2)], '/'),
            (Dir::NE, [(x + 6, y + 1), (x + 7, y + 2)], '\\'),
            (Dir::SW, [(x, y + 3), (x + 1, y + 4)], '\\'),
            (Dir::SE, [(x + 7, y + 3), (x + 6, y + 4)], '/'),
        ] {
            let g = side_glyph(&self.side_feats(h, self.map.drawn_dir(d)));
            for (px, py) in pts {
                match g {
                    Some(c) => cv.put(px, py, c, blue),
                    None => cv.put(px, py, base, None),
                }
            }
        }
    }

    /// The first two lines inside a hex: its id, then its terrain, features and a `*` if it
    /// holds markers.
    fn draw_terrain(&self, cv: &mut Canvas, h: HexId, x: i64, y: i64) {
        let id: String = self.map.fmt(h).chars().filter(|c| c.is_ascii_digit()).collect();
        cv.text(x + 2, y + 1, &id, 4, None);
        if let Some(info) = self.map.hexes.get(&h) {
            let mut t = terrain_code(&info.terrain);
            for f in &info.features {
                if let Some(c) = f.chars().next() {
                    t.push(c.to_ascii_uppercase());
                }
            }
            if let Some(m) = self.state.hex_markers.get(&h)
                && !m.is_empty()
            {
                t.push('*');
            }
            cv.text(x + 1, y + 2, &t, 6, self.color(terrain_ansi(&info.terrain)));
        }
    }

    /// The last line inside a hex: the top counter and the height of its stack, or else the
    /// overlay's label (which moves up beside the terrain when a counter is there).
    fn draw_stack(&self, cv: &mut Canvas, h: HexId, x: i64, y: i64) {
        // the top counter is always seen; under fog of war only the height of the stack
        let stack = self.state.stack(h);
        if let Some(top) = stack.first() {
            let label = stack_label(&top.id, stack.len() - 1);
            let si = self.state.sides.iter().position(|s| *s == top.side).unwrap_or(0);
            cv.text(x + 1, y + 3, &label, 6, self.color(side_ansi(si)));
        } else if let Some(o) = self.overlay.get(&h) {
            cv.text(x + 1, y + 3, o, 6, self.color("\x1b[1;33m"));
        }
        if !stack.is_empty()
            && let Some(o) = self.overlay.get(&h)
        {
            // overlay shown after the id line when the counter line is taken
            let n = o.chars().count().min(3) as i64;
            cv.text(x + 7 - n, y + 2, o, 3, self.color("\x1b[1;33m"));
        }
    }
}

/// The label of a stack in six characters: the top counter's id and, when others lie under it,
/// `+N` (the id cut short to keep the count).
fn stack_label(top: &str, more: usize) -> String {
    let label = if more > 0 { format!("{top}+{more}") } else { top.to_string() };
    if label.chars().count() > 6 {
        let keep = if more > 0 { 4 } else { 6 };
        let mut s: String = top.chars().take(keep).collect();
        if more > 0 {
            s.push_str(&format!("+{more}"));
        }
        s
    } else {
        label
    }
}

fn legend() -> String {
    "sides: ~ river  = road  # rail  H bridge  | other; inside: id, terrain+FEATURES (* marker), top counter+under it"
        .into()
}

/// The hexes within `radius` of `center` that are on the map, limited to what fits `width`.
pub fn around(map: &Map, center: HexId, radius: i32, width: usize) -> BTreeSet<HexId> {
    let max_radius = ((width.saturating_sub(3)) / 6).saturating_sub(1) as i32 / 2;
    let r = radius.min(max_radius.max(1));
    map.grid.within(center, r).into_iter().filter(|h| map.contains(*h)).collect()
}

//! The map as text: flat-topped hexes in ASCII, six lines high, with hexside features drawn
//! on the sides (`~` river, `=` road, `#` rail, `H` bridge, `|` other) and inside each hex, one
//! line each: its id as the map prints it, its terrain and features, the top counter of its
//! stack, the height of the stack, and the overlay's label.
//!
//! Columns are offset by half a hex, so a text line crosses hexes of two rows; the lines are
//! laid out so that no line holding a counter's id is a neighbour's id line (line 1 of a hex
//! is line 4 of its neighbours, which holds only the height of the stack).
//!
//! A map numbered by rows (`layout = "rows"`, pointy-topped hexes) is drawn as a wall of
//! bricks: each hex a cell four lines high (id, terrain, top counter, stack height and overlay
//! label), the rows top to bottom, shifted rows half a cell to the right; the W and E
//! hexsides are drawn in the upright separators (`:` when bare), the other four on the halves
//! of the lines between rows (`-`), with the same glyphs.

use super::{Overlay, SideKind};
use crate::hex::{Dir, Grid, HexId, Hexside};
use crate::map::{Layout, Map};
use crate::state::GameState;
use std::collections::{BTreeMap, BTreeSet};

/// What to draw.
pub struct TextMap<'a> {
    pub map: &'a Map,
    pub state: &'a GameState,
    /// Hexes to draw.
    pub hexes: BTreeSet<HexId>,
    /// Labels from an overlay (ZOC, reach cost, supply...), by hex, and what they mean.
    pub overlay: Option<Overlay>,
    /// Units the viewer may not see, other than the top of their stack (fog of war).
    pub hidden: BTreeSet<String>,
    pub color: bool,
    /// The columns available (the terminal's width; a fixed width for piped output).
    pub width: usize,
}

const ANSI_RESET: &str = "\x1b[0m";
/// Hexside colours, none of them a side's counter colour.
const RIVER_ANSI: &str = "\x1b[36m";
const ROAD_ANSI: &str = "\x1b[33m";
const RAIL_ANSI: &str = "\x1b[90m";
const BRIDGE_ANSI: &str = "\x1b[1;37m";
const OTHER_ANSI: &str = "\x1b[35m";
const OVERLAY_ANSI: &str = "\x1b[30;43m";

fn terrain_code(t: &str) -> String {
    let mut s: String = t.chars().filter(|c| c.is_alphanumeric()).take(3).collect();
    if s.is_empty() {
        s = "?".into();
    }
    s
}

fn terrain_ansi(t: &str) -> &'static str {
    match t {
        "forest" | "woods" => "\x1b[32m",
        "swamp" | "marsh" => "\x1b[36m",
        "city" | "town" | "village" => "\x1b[1m",
        "water" | "lake" | "sea" => "\x1b[34m",
        "rough" | "hills" | "mountain" => "\x1b[33m",
        _ => "\x1b[37m",
    }
}

/// The sides' counter colours: bold, on a background, unlike any hexside's colour.
/// The glyph of a hexside and its kind (the legend names the kinds drawn).
fn side_glyph(feats: &BTreeSet<String>) -> Option<(char, SideKind)> {
    let kinds = super::side_kinds(feats);
    if super::bridged(&kinds) {
        Some(('H', SideKind::Bridge))
    } else if kinds.contains(&SideKind::River) {
        Some(('~', SideKind::River))
    } else if kinds.contains(&SideKind::Rail) {
        Some(('#', SideKind::Rail))
    } else if kinds.contains(&SideKind::Highway) {
        Some(('%', SideKind::Highway))
    } else if kinds.contains(&SideKind::Road) {
        Some(('=', SideKind::Road))
    } else if kinds.contains(&SideKind::Trail) {
        Some(('.', SideKind::Trail))
    } else if feats.is_empty() {
        None
    } else {
        Some(('|', SideKind::Other))
    }
}

fn side_ansi_of(k: SideKind) -> &'static str {
    match k {
        SideKind::River => RIVER_ANSI,
        SideKind::Road | SideKind::Highway | SideKind::Trail => ROAD_ANSI,
        SideKind::Rail => RAIL_ANSI,
        SideKind::Bridge => BRIDGE_ANSI,
        SideKind::Other => OTHER_ANSI,
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
        // a control character from a name (scenario or rules) must not reach the terminal:
        // its colours are the map's only escapes
        let c = if c.is_control() || ('\u{80}'..='\u{9f}').contains(&c) { '?' } else { c };
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

/// The size of a hex on the canvas: `top` characters along its flat top; the hex is
/// `top + 4` wide inside at its middle lines, six lines high, and columns are `top + 3` apart.
/// In rows layout (`bricks`) a hex is a brick [`Cell::inner`] characters wide inside and four
/// lines high, between separators, and the printed rows are laid as a wall.
#[derive(Clone, Copy, Debug)]
pub struct Cell {
    pub top: usize,
    pub bricks: bool,
}

/// Where the lines inside a hex go, from its top-left corner: `(dx, dy, width)` of its id, its
/// terrain, its top counter and the overlay's label (centred, or right-aligned in a brick),
/// `(dx, dy)` of the height of its stack.
struct Slots {
    id: (i64, i64, usize),
    terrain: (i64, i64, usize),
    counter: (i64, i64, usize),
    height: (i64, i64),
    overlay: (i64, i64, usize),
    overlay_right: bool,
}

impl Cell {
    /// The cell for a picture of `map` `width` columns wide showing hex ids `id_len` long:
    /// nine columns of hexes fit when they can, with counter ids of 9 to 16 characters.
    pub fn fitting(map: &Map, width: usize, id_len: usize) -> Cell {
        let top = (width.saturating_sub(3) / 9).saturating_sub(3).clamp(5, 12);
        Cell { top: top.max(id_len), bricks: map.layout == Layout::Rows }
    }
    /// Characters between the columns of hexes (between the bricks of a row).
    pub fn step(&self) -> usize {
        if self.bricks { self.inner() + 1 } else { self.top + 3 }
    }
    /// The width inside a brick: the longest counter id, made odd so that a brick's middle
    /// is a corner of the bricks above and below.
    pub fn inner(&self) -> usize {
        (self.top + 4) | 1
    }
    /// How far a shifted row of bricks is drawn to the right.
    fn half(&self) -> usize {
        self.step() / 2
    }
    /// The longest counter id shown in full.
    pub fn name_width(&self) -> usize {
        if self.bricks { self.inner() } else { self.top + 4 }
    }
    /// How many columns of hexes (positions of a row of bricks) fit `width` characters.
    pub fn columns(&self, width: usize) -> usize {
        let margin = if self.bricks { 1 + self.half() } else { 3 };
        (width.saturating_sub(margin) / self.step()).max(1)
    }
    fn slots(&self) -> Slots {
        let t = self.top;
        if self.bricks {
            let n = self.inner();
            Slots {
                id: (1, 1, n),
                terrain: (1, 2, n),
                counter: (1, 3, n),
                height: (1, 4),
                overlay: (5, 4, n - 4),
                overlay_right: true,
            }
        } else {
            Slots {
                id: (3, 1, t),
                terrain: (2, 2, t + 2),
                counter: (1, 3, t + 4),
                height: (1, 4),
                overlay: (2, 5, t + 2),
                overlay_right: false,
            }
        }
    }
}

/// Where a hex is in the picture: `(across, down)`, its column and row in columns layout, its
/// position and printed row (the kernel's row and column) in rows layout.
pub fn place(map: &Map, h: HexId) -> (i32, i32) {
    match map.layout {
        Layout::Columns => (h.col, h.row),
        Layout::Rows => (h.row, h.col),
    }
}

/// Where the hexes are drawn: the box of columns and rows that holds them, and which way up.
struct Frame<'a> {
    grid: &'a Grid,
    rows_up: bool,
    cell: Cell,
    min_c: i32,
    max_c: i32,
    min_r: i32,
    max_r: i32,
}

impl<'a> Frame<'a> {
    /// The frame around `hexes`, which must not be empty.
    fn around(map: &'a Map, hexes: &BTreeSet<HexId>, cell: Cell) -> Frame<'a> {
        Frame {
            grid: &map.grid,
            rows_up: map.rows_up,
            cell,
            min_c: hexes.iter().map(|h| h.col).min().unwrap(),
            max_c: hexes.iter().map(|h| h.col).max().unwrap(),
            min_r: hexes.iter().map(|h| h.row).min().unwrap(),
            max_r: hexes.iter().map(|h| h.row).max().unwrap(),
        }
    }

    /// A blank canvas just large enough for every hex of the frame.
    fn canvas(&self) -> Canvas {
        if self.cell.bricks {
            let width = self.cell.step() * (self.max_r - self.min_r + 1) as usize + 1 + self.cell.half();
            return Canvas::new(width, 5 * (self.max_c - self.min_c + 1) as usize + 1);
        }
        let width = self.cell.step() * (self.max_c - self.min_c + 1) as usize + 3;
        let height = 6 * (self.max_r - self.min_r + 1) as usize + 4;
        Canvas::new(width, height)
    }

    /// The top-left corner of a hex on the canvas; a low column is drawn 3 lines further down,
    /// a low column of the kernel in rows layout (a shifted printed row) half a brick to the
    /// right.
    fn origin(&self, h: HexId) -> (i64, i64) {
        let low = self.grid.neighbour(HexId::new(h.col, 0), Dir::SE).row == 1;
        if self.cell.bricks {
            let x =
                (self.cell.step() as i64) * (h.row - self.min_r) as i64 + if low { self.cell.half() as i64 } else { 0 };
            let band = if self.rows_up { self.max_c - h.col } else { h.col - self.min_c };
            return (x, 5 * band as i64);
        }
        let x = (self.cell.step() as i64) * (h.col - self.min_c) as i64;
        let y = if self.rows_up {
            6 * (self.max_r - h.row) as i64 + if low { 0 } else { 3 }
        } else {
            6 * (h.row - self.min_r) as i64 + if low { 3 } else { 0 }
        };
        (x, y)
    }
}

/// A side of a hex on the canvas: where a flat-topped hex has it ([`Map::drawn_dir`]), its
/// characters, and the character drawn when nothing lies on it.
type SideCells = (Dir, Vec<(i64, i64)>, char);

/// What the legend explains: the glyphs, terrains and features drawn.
#[derive(Default)]
struct Seen {
    sides: BTreeSet<SideKind>,
    terrains: BTreeMap<String, BTreeSet<String>>,
    features: BTreeMap<char, BTreeSet<String>>,
    marker: bool,
    stack: bool,
}

impl TextMap<'_> {
    pub fn render(&self) -> Vec<String> {
        if self.hexes.is_empty() {
            return vec!["(no hex to draw)".into()];
        }
        let id_len = self.hexes.iter().map(|h| self.map.fmt(*h).chars().count()).max().unwrap_or(4);
        let cell = Cell::fitting(self.map, self.width, id_len);
        let frame = Frame::around(self.map, &self.hexes, cell);
        let mut cv = frame.canvas();
        let mut seen = Seen::default();
        for &h in &self.hexes {
            let (x, y) = frame.origin(h);
            self.draw_sides(&mut cv, cell, h, x, y, &mut seen);
        }
        for &h in &self.hexes {
            let (x, y) = frame.origin(h);
            self.draw_terrain(&mut cv, cell, h, x, y, &mut seen);
            self.draw_stack(&mut cv, cell, h, x, y, &mut seen);
        }
        let mut out = cv.render(self.color);
        out.extend(self.legend(&seen));
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
    fn draw_sides(&self, cv: &mut Canvas, cell: Cell, h: HexId, x: i64, y: i64, seen: &mut Seen) {
        let t = cell.top as i64;
        // in rows layout: the bricks' corners, then each side of the brick under the side of
        // a flat-topped hex it is drawn for (turned 30° clockwise: SW is the brick's W, NW its
        // NW, N its NE, NE its E, SE its SE, S its SW)
        let sides: Vec<SideCells> = if cell.bricks {
            let (n, hf) = (cell.inner() as i64, cell.half() as i64);
            let line = |y: i64, from: i64, to: i64| (from..=to).map(|i| (i, y)).collect::<Vec<_>>();
            for (cx, cy) in [(x, y), (x + hf, y), (x + n + 1, y), (x, y + 5), (x + hf, y + 5), (x + n + 1, y + 5)] {
                cv.put(cx, cy, '+', None);
            }
            vec![
                (Dir::SW, (1..=4).map(|i| (x, y + i)).collect(), ':'),
                (Dir::NE, (1..=4).map(|i| (x + n + 1, y + i)).collect(), ':'),
                (Dir::NW, line(y, x + 1, x + hf - 1), '-'),
                (Dir::N, line(y, x + hf + 1, x + n), '-'),
                (Dir::S, line(y + 5, x + 1, x + hf - 1), '-'),
                (Dir::SE, line(y + 5, x + hf + 1, x + n), '-'),
            ]
        } else {
            vec![
                (Dir::N, (0..t).map(|i| (x + 3 + i, y)).collect::<Vec<_>>(), '_'),
                (Dir::S, (0..t).map(|i| (x + 3 + i, y + 6)).collect(), '_'),
                (Dir::NW, vec![(x + 2, y + 1), (x + 1, y + 2), (x, y + 3)], '/'),
                (Dir::NE, vec![(x + 3 + t, y + 1), (x + 4 + t, y + 2), (x + 5 + t, y + 3)], '\\'),
                (Dir::SW, vec![(x, y + 4), (x + 1, y + 5), (x + 2, y + 6)], '\\'),
                (Dir::SE, vec![(x + 5 + t, y + 4), (x + 4 + t, y + 5), (x + 3 + t, y + 6)], '/'),
            ]
        };
        for (d, pts, base) in sides {
            let g = side_glyph(&self.side_feats(h, self.map.drawn_at(d)));
            if let Some((_, k)) = g {
                seen.sides.insert(k);
            }
            for (px, py) in pts {
                match g {
                    Some((c, k)) => cv.put(px, py, c, self.color(side_ansi_of(k))),
                    None => cv.put(px, py, base, None),
                }
            }
        }
    }

    /// The first two lines inside a hex: its id as the map prints it, then its terrain, the
    /// first letter of each feature and a `*` if it holds markers.
    fn draw_terrain(&self, cv: &mut Canvas, cell: Cell, h: HexId, x: i64, y: i64, seen: &mut Seen) {
        let sl = cell.slots();
        cv.text(x + sl.id.0, y + sl.id.1, &self.map.fmt(h), sl.id.2, None);
        if let Some(info) = self.map.hexes.get(&h) {
            let mut t = terrain_code(&info.terrain);
            seen.terrains.entry(t.clone()).or_default().insert(info.terrain.clone());
            for f in &info.features {
                if let Some(c) = f.chars().next() {
                    let c = c.to_ascii_uppercase();
                    t.push(c);
                    seen.features.entry(c).or_default().insert(f.clone());
                }
            }
            if let Some(m) = self.state.hex_markers.get(&h)
                && !m.is_empty()
            {
                t.push('*');
                seen.marker = true;
            }
            let (dx, dy, w) = sl.terrain;
            cv.text(x + dx, y + dy, &t, w, self.color(terrain_ansi(&info.terrain)));
        }
    }

    /// The other lines inside a hex: the top counter's id, `+N` for the units under it, and
    /// the overlay's label.
    fn draw_stack(&self, cv: &mut Canvas, cell: Cell, h: HexId, x: i64, y: i64, seen: &mut Seen) {
        let sl = cell.slots();
        // the top counter is always seen; under fog of war only the height of the stack
        let stack = self.state.stack(h);
        if let Some(top) = stack.first() {
            let (dx, dy, w) = sl.counter;
            let name = fit(&top.id, w);
            let (_, ansi) = super::unit_color(&self.map.colors, &self.state.sides, top);
            cv.text(x + dx, y + dy, &name, w, self.color(ansi));
            if stack.len() > 1 {
                seen.stack = true;
                cv.text(x + sl.height.0, y + sl.height.1, &format!("+{}", stack.len() - 1), 4, None);
            }
        }
        if let Some(o) = self.overlay.as_ref().and_then(|o| o.labels.get(&h)) {
            let (dx, dy, w) = sl.overlay;
            let o = fit(o, w);
            let room = (w - o.chars().count()) as i64;
            let pad = if sl.overlay_right { room } else { room / 2 };
            cv.text(x + dx + pad, y + dy, &o, w, self.color(OVERLAY_ANSI));
        }
    }

    /// The legend: every glyph, terrain code and feature letter drawn, the counters, and the
    /// overlay's marks.
    fn legend(&self, seen: &Seen) -> Vec<String> {
        let mut out = Vec::new();
        let sides: Vec<&str> = seen
            .sides
            .iter()
            .map(|k| match k {
                SideKind::River => "~ river",
                SideKind::Road => "= road",
                SideKind::Rail => "# rail",
                SideKind::Highway => "% highway (Reichsautobahn, Rollbahn)",
                SideKind::Trail => ". trail",
                SideKind::Bridge => "H bridge (a road or rail over a river)",
                SideKind::Other => "| other hexside feature",
            })
            .collect();
        if !sides.is_empty() {
            out.push(format!("hexsides: {}", sides.join(", ")));
        }
        let terr: Vec<String> = seen
            .terrains
            .iter()
            .map(|(c, ts)| format!("{c} {}", ts.iter().cloned().collect::<Vec<_>>().join("/")))
            .collect();
        let mut line = format!("in a hex: its id; terrain ({})", terr.join(", "));
        if !seen.features.is_empty() {
            let f: Vec<String> = seen
                .features
                .iter()
                .map(|(c, fs)| format!("{c} {}", fs.iter().cloned().collect::<Vec<_>>().join("/")))
                .collect();
            line.push_str(&format!(" and features ({})", f.join(", ")));
        }
        if seen.marker {
            line.push_str(", * markers (`show <hex>`)");
        }
        line.push_str("; the top counter's id");
        if seen.stack {
            line.push_str(", +N units under it");
        }
        out.push(line);
        if let Some(o) = &self.overlay {
            out.push(o.legend(&self.hexes));
        }
        // (terrain names and the overlay's words come from scenario files and rules)
        out.iter().map(|l| crate::text::printable(l).into_owned()).collect()
    }
}

/// `text` in at most `width` characters, cut with `…` when longer.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// The hexes within `radius` of `center` that are on the map, limited to what fits `width`.
pub fn around(map: &Map, center: HexId, radius: i32, width: usize) -> BTreeSet<HexId> {
    let cell = Cell::fitting(map, width, map.fmt(center).chars().count());
    let max_radius = (cell.columns(width) as i32 - 1) / 2;
    let r = radius.min(max_radius.max(1));
    map.grid.within(center, r).into_iter().filter(|h| map.contains(*h)).collect()
}

/// The hex a window on a map too large to draw whole is centred on: the middle hex in id
/// order (in columns layout the middle column, at its top, as ever); in rows layout the hex
/// of the middle printed row nearest the middle of its positions, so that the window is full
/// across.
pub fn middle(map: &Map, hexes: &BTreeSet<HexId>) -> Option<HexId> {
    let mid = *hexes.iter().nth(hexes.len() / 2)?;
    if map.layout == Layout::Columns {
        // the middle column's middle hex (the median in id order is the middle column's first
        // hex when the columns are many: a map edge)
        let column: Vec<HexId> = hexes.iter().filter(|h| h.col == mid.col).copied().collect();
        return column.get(column.len() / 2).copied();
    }
    let across = hexes.iter().map(|h| place(map, *h).0);
    let (lo, hi) = (across.clone().min()?, across.max()?);
    hexes.iter().filter(|h| h.col == mid.col).min_by_key(|h| (2 * place(map, **h).0 - lo - hi).abs()).copied()
}

/// Whether `h` is in the window `half` columns either side of `center` and `rows` rows high
/// around it (as [`place`] lays them out).
fn in_window(map: &Map, center: HexId, half: i32, rows: i32, h: HexId) -> bool {
    let ((ca, cd), (a, d)) = (place(map, center), place(map, h));
    (a - ca).abs() <= half && (cd - rows / 2..cd - rows / 2 + rows).contains(&d)
}

/// The hexes of the map in a window `width` characters wide and `rows` rows high around
/// `center` (a rectangle of columns and rows; of positions and printed rows in rows layout).
pub fn window(map: &Map, center: HexId, width: usize, rows: i32) -> BTreeSet<HexId> {
    let cell = Cell::fitting(map, width, map.fmt(center).chars().count());
    let half = (cell.columns(width) as i32 - 1) / 2;
    map.hexes.keys().filter(|h| in_window(map, center, half, rows, **h)).copied().collect()
}

/// The window (as [`window`]) that shows most of the edge of a set of marked hexes — the
/// marked hexes beside an unmarked one, where a supply net or a zone ends —, centred on one of
/// them (the first in id order of the best); centred on the middle marked hex when no marked
/// hex has an unmarked neighbour. Where the edge meets units (`occupied` hexes outside the
/// marks: a front line, not a lake shore) counts first.
pub fn front_window(
    map: &Map,
    marked: &BTreeSet<HexId>,
    occupied: &BTreeSet<HexId>,
    width: usize,
    rows: i32,
) -> BTreeSet<HexId> {
    let front: Vec<HexId> =
        marked.iter().filter(|h| map.neighbours(**h).any(|(_, n)| !marked.contains(&n))).copied().collect();
    let contested: BTreeSet<HexId> = front
        .iter()
        .filter(|h| map.neighbours(**h).any(|(_, n)| !marked.contains(&n) && occupied.contains(&n)))
        .copied()
        .collect();
    let Some(&first) = front.first().or(marked.iter().nth(marked.len() / 2)) else {
        return BTreeSet::new();
    };
    let cell = Cell::fitting(map, width, map.fmt(first).chars().count());
    let half = (cell.columns(width) as i32 - 1) / 2;
    let inside = |c: HexId, h: HexId| in_window(map, c, half, rows, h);
    let best = front
        .iter()
        .copied()
        .max_by_key(|c| {
            let near_units = contested.iter().filter(|h| inside(*c, **h)).count();
            (near_units, front.iter().filter(|h| inside(*c, **h)).count(), std::cmp::Reverse(*c))
        })
        .unwrap_or(first);
    window(map, best, width, rows)
}

/// Whether the hexes fit `width` characters side by side.
pub fn fits(map: &Map, hexes: &BTreeSet<HexId>, width: usize) -> bool {
    let across = hexes.iter().map(|h| place(map, *h).0);
    let (Some(lo), Some(hi)) = (across.clone().min(), across.max()) else {
        return true;
    };
    let id_len = hexes.iter().map(|h| map.fmt(*h).chars().count()).max().unwrap_or(4);
    (hi - lo + 1) as usize <= Cell::fitting(map, width, id_len).columns(width)
}

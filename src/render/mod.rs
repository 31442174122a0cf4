//! Pictures of the map: as text for the terminal (`map`), as SVG for a file (`map --svg`).

mod legend;
pub mod svg;
pub mod text;

use crate::hex::HexId;
use std::collections::{BTreeMap, BTreeSet};

/// An overlay drawn over the map: the rules' labels by hex, and what they mean.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    /// The overlay as typed, without `map` (`zoc Soviet`).
    pub title: String,
    /// The overlay's help text, from the ruleset.
    pub help: String,
    /// The rule the overlay shows, from the ruleset.
    pub rule: String,
    pub labels: BTreeMap<HexId, String>,
}

impl Overlay {
    /// What the labels drawn in `shown` mean, in one line: the overlay, its rule, its marks
    /// (each letter, or the range of the numbers) and its help text.
    pub fn legend(&self, shown: &BTreeSet<HexId>) -> String {
        let marks: BTreeSet<&str> =
            self.labels.iter().filter(|(h, _)| shown.contains(h)).map(|(_, v)| v.as_str()).collect();
        let rule = if self.rule.is_empty() { String::new() } else { format!(" [{}]", self.rule) };
        let nums: Vec<f64> = marks.iter().filter_map(|m| m.parse::<f64>().ok()).collect();
        let what = if marks.is_empty() {
            "no hex marked here".to_string()
        } else if nums.len() == marks.len() {
            let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = (num_text(lo), num_text(hi));
            if lo == hi { format!("the number {lo}") } else { format!("numbers {lo} to {hi}") }
        } else {
            let list: Vec<&str> = marks.iter().take(12).copied().collect();
            let more = if marks.len() > 12 { ", …" } else { "" };
            format!("{}{more}", list.join(", "))
        };
        format!("overlay `{}`{rule}: {what} = {}", self.title, self.help)
    }
}

fn num_text(x: f64) -> String {
    if x.fract() == 0.0 { format!("{x:.0}") } else { format!("{x}") }
}

/// The colours of nations and colour words, by their names in lower case: the SVG fill and the
/// terminal's style.
const BY_NAME: &[(&[&str], &str, &str)] = &[
    (&["german", "germany", "wehrmacht", "axis"], "#5d6a55", "\x1b[1;37;48;5;59m"),
    (&["soviet", "ussr", "russian", "red army", "soviets"], "#8b3a2b", "\x1b[1;37;48;5;88m"),
    (&["polish", "poland", "poles"], "#9c3b5c", "\x1b[1;37;48;5;125m"),
    (&["romanian", "romania"], "#8a8a24", "\x1b[1;37;48;5;100m"),
    (&["italian", "italy"], "#4f7a8c", "\x1b[1;37;48;5;66m"),
    (&["hungarian", "hungary"], "#7b5a2e", "\x1b[1;37;48;5;94m"),
    (&["american", "us", "usa", "allied", "allies"], "#6b7a3c", "\x1b[1;37;48;5;101m"),
    (&["british", "uk", "commonwealth"], "#9a7446", "\x1b[1;37;48;5;137m"),
    (&["blue"], "#3a5f9a", "\x1b[1;37;44m"),
    (&["red"], "#a8342c", "\x1b[1;37;41m"),
    (&["green"], "#3c8d4a", "\x1b[1;37;42m"),
];

/// The colour of a nation or colour word (any case), if it is one the pictures know.
fn named_color(name: &str) -> Option<(&'static str, &'static str)> {
    let name = name.to_lowercase();
    BY_NAME.iter().find(|(names, _, _)| names.contains(&name.as_str())).map(|&(_, fill, ansi)| (fill, ansi))
}

/// A side's colour in the pictures, by nationality so that it is the same in every game: the
/// scenario's `[map.colors]` may name the side (`German = "#5d6a55"`); else German field-grey,
/// Soviet red-brown and the other nations (or colour words) by their names; else a colour by
/// the side's place in the list. The SVG fill and the terminal's style.
pub fn side_color(colors: &BTreeMap<String, String>, sides: &[String], side: &str) -> (String, &'static str) {
    const BY_PLACE: &[(&str, &str)] = &[
        ("#4a5f7a", "\x1b[1;37;44m"),
        ("#a8342c", "\x1b[1;37;41m"),
        ("#3c8d4a", "\x1b[1;37;42m"),
        ("#8a4fa3", "\x1b[1;37;45m"),
    ];
    let (fill, ansi) = named_color(side).unwrap_or_else(|| {
        let i = sides.iter().position(|s| s == side).unwrap_or(0);
        BY_PLACE[i % BY_PLACE.len()]
    });
    (colors.get(side).cloned().unwrap_or_else(|| fill.to_string()), ansi)
}

/// The nation a unit's data names (its `nation` or `nationality` attribute) where it is not its
/// side's and the pictures know its colour (or the scenario's `[map.colors]` names it): Fortress
/// Stalingrad's Romanian, Italian and Hungarian units on the German side. `None` for a unit of
/// its side's nation (German, SS, Guards...).
pub fn other_nation(colors: &BTreeMap<String, String>, u: &crate::state::Unit) -> Option<String> {
    let nation = ["nation", "nationality"].iter().find_map(|k| u.attrs.get(*k)?.as_str())?;
    let known =
        named_color(nation).is_some() || colors.contains_key(nation) || colors.contains_key(&title_case(nation));
    let own =
        named_color(nation).is_some_and(|c| Some(c) == named_color(&u.side)) || nation.eq_ignore_ascii_case(&u.side);
    (known && !own).then(|| title_case(nation))
}

/// A unit's counter colour: its nation's where that is not its side's ([`other_nation`]), else
/// its side's ([`side_color`]).
pub fn unit_color(
    colors: &BTreeMap<String, String>,
    sides: &[String],
    u: &crate::state::Unit,
) -> (String, &'static str) {
    if let Some(n) = other_nation(colors, u) {
        let (fill, ansi) = named_color(&n).unwrap_or(("#6b6a6a", "\x1b[1;37;100m"));
        let fill =
            colors.get(&n).or_else(|| colors.get(&n.to_lowercase())).cloned().unwrap_or_else(|| fill.to_string());
        return (fill, ansi);
    }
    side_color(colors, sides, &u.side)
}

/// `romanian` -> `Romanian`.
fn title_case(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// The kinds of hexside features the pictures draw, from the words of their names (a scenario
/// names its features freely: `major_river`, `rollbahn`, `railroad`, `trail`...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SideKind {
    River,
    Rail,
    Highway,
    Road,
    Trail,
    Bridge,
    Other,
}

impl SideKind {
    pub fn of(feature: &str) -> SideKind {
        let lower = feature.to_lowercase();
        let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let is = |names: &[&str]| words.iter().any(|w| names.contains(w));
        let ends = |tails: &[&str]| words.iter().any(|w| tails.iter().any(|t| w.ends_with(t)));
        if is(&["bridge", "bridges"]) {
            SideKind::Bridge
        } else if ends(&["river", "water", "lake", "sea", "haff", "strait", "straits", "canal"]) {
            SideKind::River
        } else if is(&["trail", "trails", "track", "tracks", "path"]) {
            SideKind::Trail
        } else if is(&["rail", "railroad", "railway", "railroads", "railways", "rr"]) {
            SideKind::Rail
        } else if ends(&["bahn", "autobahn"]) || is(&["highway", "motorway", "autostrada"]) {
            SideKind::Highway
        } else if is(&["road", "roads"]) {
            SideKind::Road
        } else {
            SideKind::Other
        }
    }
}

/// How a hexside feature of no known kind is drawn: a dashed line in a colour of its own,
/// the same for the same name on every map (the legend names it).
pub fn other_side_style(feature: &str) -> String {
    const COLORS: &[&str] = &["#7b3fa0", "#c2410c", "#0f766e", "#9d174d", "#4d7c0f", "#1e3a8a"];
    let h = feature.bytes().fold(7u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32));
    format!(r#"stroke="{}" stroke-width="3" stroke-dasharray="7,3""#, COLORS[h as usize % COLORS.len()])
}

/// A feature's name as a player reads it (`weather_line`: weather line).
pub fn words(name: &str) -> String {
    name.replace(['_', '-'], " ")
}

/// The kinds of a hexside's features.
pub fn side_kinds<'a>(feats: impl IntoIterator<Item = &'a String>) -> BTreeSet<SideKind> {
    feats.into_iter().map(|f| SideKind::of(f)).collect()
}

/// Whether a bridge is drawn on a hexside of these kinds: a bridge, or a road or rail over a
/// river.
pub fn bridged(kinds: &BTreeSet<SideKind>) -> bool {
    let crossing =
        [SideKind::Road, SideKind::Rail, SideKind::Highway, SideKind::Trail].iter().any(|k| kinds.contains(k));
    kinds.contains(&SideKind::Bridge) || (kinds.contains(&SideKind::River) && crossing)
}

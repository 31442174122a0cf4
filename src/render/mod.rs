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

/// The kinds of hexside features the pictures draw, from their names (a scenario names its
/// features freely: `major_river`, `rollbahn`, `railroad`...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SideKind {
    River,
    Rail,
    Road,
    Bridge,
    Other,
}

impl SideKind {
    pub fn of(feature: &str) -> SideKind {
        let has = |s: &str| feature.contains(s);
        if has("bridge") {
            SideKind::Bridge
        } else if has("river") || has("water") || has("lake") || has("sea") {
            SideKind::River
        } else if has("rail") {
            SideKind::Rail
        } else if has("road") || has("trail") || has("bahn") {
            SideKind::Road
        } else {
            SideKind::Other
        }
    }
}

/// The kinds of a hexside's features.
pub fn side_kinds<'a>(feats: impl IntoIterator<Item = &'a String>) -> BTreeSet<SideKind> {
    feats.into_iter().map(|f| SideKind::of(f)).collect()
}

/// Whether a bridge is drawn on a hexside of these kinds: a bridge, or a road or rail over a
/// river.
pub fn bridged(kinds: &BTreeSet<SideKind>) -> bool {
    let crossing = kinds.contains(&SideKind::Road) || kinds.contains(&SideKind::Rail);
    kinds.contains(&SideKind::Bridge) || (kinds.contains(&SideKind::River) && crossing)
}

//! A scenario file as it is read, before it is checked: the raw parts of each section, each
//! value with its place in the file.

use super::*;
use crate::datafile::{Part, Reader as Ctx};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// A scenario file as read: each part on its own, so that a part of the wrong shape is
/// reported and left out while the others are still checked.
pub(super) struct RawFile {
    pub(super) scenario: RawHeader,
    pub(super) map: RawMap,
    pub(super) cups: BTreeMap<String, Vec<S<String>>>,
    pub(super) tracks: BTreeMap<String, i64>,
    pub(super) sides: BTreeMap<S<String>, BTreeMap<String, toml::Value>>,
    pub(super) vars: BTreeMap<String, toml::Value>,
    pub(super) types: BTreeMap<String, RawType>,
    pub(super) units: Vec<RawUnit>,
    pub(super) markers: BTreeMap<String, BTreeMap<S<String>, i64>>,
}

/// The parts of a scenario file.
pub(super) const SECTIONS: &[&str] =
    &["scenario", "map", "cups", "tracks", "sides", "vars", "types", "units", "markers"];

pub(super) const MAP_KEYS: &[&str] = &[
    "format", "shift", "cols", "rows", "terrain", "off", "terrains", "features", "hexsides", "paths", "places",
    "areas", "values", "colors", "legend", "rows_up", "layout",
];

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawHeader {
    pub(super) name: String,
    pub(super) ruleset: String,
    pub(super) sides: Vec<String>,
    #[serde(default)]
    pub(super) description: String,
    #[serde(default)]
    pub(super) boxes: Vec<String>,
    #[serde(default)]
    pub(super) options: BTreeMap<String, String>,
}

/// `[scenario]` of a scenario that extends another (see `read_extension`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExtHeader {
    pub(super) extends: S<String>,
    pub(super) name: String,
    #[serde(default)]
    pub(super) ruleset: Option<S<String>>,
    #[serde(default)]
    pub(super) sides: Option<S<Vec<String>>>,
    #[serde(default)]
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) boxes: Vec<String>,
    #[serde(default)]
    pub(super) options: BTreeMap<String, String>,
    /// Units of the scenario extended that this one leaves out.
    #[serde(default)]
    pub(super) remove: Vec<S<String>>,
}

/// `[map]`, read key by key (see [`raw_map`]).
pub(super) struct RawMap {
    pub(super) format: S<String>,
    pub(super) shift: S<String>,
    pub(super) cols: [i32; 2],
    pub(super) rows: [i32; 2],
    pub(super) terrain: String,
    /// Hexes inside the rectangle that are not part of the map.
    pub(super) off: Vec<S<String>>,
    pub(super) terrains: BTreeMap<String, Vec<S<String>>>,
    pub(super) features: BTreeMap<String, Vec<S<String>>>,
    pub(super) hexsides: BTreeMap<String, Vec<S<String>>>,
    pub(super) paths: BTreeMap<String, Vec<Vec<S<String>>>>,
    pub(super) places: BTreeMap<String, S<String>>,
    pub(super) areas: BTreeMap<String, Vec<S<String>>>,
    pub(super) values: BTreeMap<String, BTreeMap<S<String>, f64>>,
    pub(super) colors: BTreeMap<String, String>,
    /// What pictures mark: areas and hex values.
    pub(super) legend: RawLegend,
    /// Row numbers grow towards the top of the printed map.
    pub(super) rows_up: bool,
    /// `columns` (flat-topped hexes, ids column then row) or `rows` (pointy-topped hexes,
    /// ids printed row then position).
    pub(super) layout: S<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLegend {
    #[serde(default)]
    pub(super) areas: BTreeMap<S<String>, RawMark>,
    #[serde(default)]
    pub(super) values: BTreeMap<S<String>, RawMark>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMark {
    pub(super) label: String,
    #[serde(default)]
    pub(super) color: Option<String>,
    #[serde(default)]
    pub(super) text: String,
}

#[derive(Deserialize, Default, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawType {
    #[serde(default)]
    pub(super) kind: Option<String>,
    /// The symbol pictures draw on the counter (`map::UNIT_SYMBOLS`).
    #[serde(default)]
    pub(super) symbol: Option<S<String>>,
    #[serde(default)]
    pub(super) steps: Option<Vec<BTreeMap<String, toml::Value>>>,
    #[serde(default)]
    pub(super) attrs: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub(super) approx: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnit {
    pub(super) id: S<String>,
    pub(super) side: S<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(rename = "type", default)]
    pub(super) ty: Option<S<String>>,
    #[serde(default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) symbol: Option<S<String>>,
    #[serde(default)]
    pub(super) steps: Option<Vec<BTreeMap<String, toml::Value>>>,
    /// Starting step, 1 = full strength.
    #[serde(default)]
    pub(super) step: Option<S<usize>>,
    /// A hex, or the name of a box.
    pub(super) at: S<String>,
    #[serde(default)]
    pub(super) attrs: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub(super) markers: BTreeMap<String, i64>,
    #[serde(default)]
    pub(super) approx: Option<toml::Value>,
}

/// The parts of a scenario file, each read on its own; None when `[scenario]` or `[map]` is
/// missing or unreadable (nothing can be checked without them).
pub(super) fn raw_file<'a>(cx: &mut Ctx<'a>, doc: &toml::Spanned<toml::de::DeTable<'a>>) -> Option<RawFile> {
    raw_parts(cx, doc, None)
}

/// The parts of a file; with `ext`, of a scenario that extends another: its `[scenario]` is read
/// into `ext` and it may not have a `[map]`.
pub(super) fn raw_parts<'a>(
    cx: &mut Ctx<'a>,
    doc: &toml::Spanned<toml::de::DeTable<'a>>,
    mut ext: Option<&mut Option<RawExtHeader>>,
) -> Option<RawFile> {
    let mut header = None;
    let mut map = None;
    let mut raw = RawFile {
        scenario: RawHeader::default(),
        map: RawMap::default(),
        cups: BTreeMap::new(),
        tracks: BTreeMap::new(),
        sides: BTreeMap::new(),
        vars: BTreeMap::new(),
        types: BTreeMap::new(),
        units: Vec::new(),
        markers: BTreeMap::new(),
    };
    for (key, v) in doc.get_ref().iter() {
        match key.get_ref().as_ref() {
            "scenario" => match ext.as_deref_mut() {
                Some(e) => *e = cx.part::<RawExtHeader>(v),
                None => header = cx.part::<RawHeader>(v),
            },
            "map" if ext.is_some() => {
                cx.err::<()>(
                    key.span(),
                    "a scenario that extends another has its map: [map] is not allowed here (change the scenario it extends)",
                );
            }
            "map" => map = raw_map(cx, v),
            "cups" => raw.cups = named(cx.each(v, "cups", |cx, x| cx.part(x))),
            "tracks" => raw.tracks = named(cx.each(v, "tracks", |cx, x| cx.part(x))),
            "sides" => raw.sides = cx.each(v, "sides", |cx, x| cx.part(x)).into_iter().collect(),
            "vars" => raw.vars = cx.part(v).unwrap_or_default(),
            "types" => raw.types = named(cx.each(v, "types", |cx, x| cx.part_of(x, "type"))),
            "units" => {
                raw.units = cx
                    .items(v, "units")
                    .iter()
                    .filter_map(|u| {
                        let id = u.get_ref().as_table().and_then(|t| t.get("id")).and_then(|i| i.get_ref().as_str());
                        cx.part_of(u, &format!("unit {}", id.unwrap_or("(no id)")))
                    })
                    .collect()
            }
            "markers" => {
                raw.markers = named(cx.each(v, "markers", |cx, per| {
                    Some(cx.each(per, "markers", |cx, x| cx.part(x)).into_iter().collect())
                }))
            }
            other => {
                cx.err::<()>(key.span(), format!("unknown section '{other}' (sections are {})", SECTIONS.join(", ")));
            }
        }
    }
    if !doc.get_ref().iter().any(|(k, _)| k.get_ref() == "scenario") {
        cx.err::<()>(0..0, "missing [scenario] (name, ruleset, sides)");
    }
    if ext.is_some() {
        return Some(raw);
    }
    if !doc.get_ref().iter().any(|(k, _)| k.get_ref() == "map") {
        cx.err::<()>(0..0, "missing [map] (cols, rows)");
    }
    raw.scenario = header?;
    raw.map = map?;
    Some(raw)
}

/// Entries by their names (the places of the keys dropped).
pub(super) fn named<T>(v: Vec<(S<String>, T)>) -> BTreeMap<String, T> {
    v.into_iter().map(|(k, x)| (k.into_inner(), x)).collect()
}

/// `[map]`, key by key: a key of the wrong shape is reported and the others still read; None
/// without `cols` and `rows`.
pub(super) fn raw_map<'a>(cx: &mut Ctx<'a>, v: &Part<'a>) -> Option<RawMap> {
    let mut m = RawMap::default();
    let (mut cols, mut rows) = (None, None);
    for (key, x) in cx.entries(v, "map") {
        match key.get_ref().as_str() {
            "format" => m.format = cx.part(x).unwrap_or(m.format),
            "shift" => m.shift = cx.part(x).unwrap_or(m.shift),
            "cols" => cols = cx.part(x),
            "rows" => rows = cx.part(x),
            "terrain" => m.terrain = cx.part(x).unwrap_or(m.terrain),
            "off" => m.off = cx.part(x).unwrap_or_default(),
            "terrains" => m.terrains = named(cx.each(x, "map.terrains", |cx, l| cx.part(l))),
            "features" => m.features = named(cx.each(x, "map.features", |cx, l| cx.part(l))),
            "hexsides" => m.hexsides = named(cx.each(x, "map.hexsides", |cx, l| cx.part(l))),
            "paths" => m.paths = named(cx.each(x, "map.paths", |cx, l| cx.part(l))),
            "places" => m.places = named(cx.each(x, "map.places", |cx, l| cx.part(l))),
            "areas" => m.areas = named(cx.each(x, "map.areas", |cx, l| cx.part(l))),
            "values" => {
                m.values = named(cx.each(x, "map.values", |cx, per| {
                    Some(cx.each(per, "map.values", |cx, n| cx.part(n)).into_iter().collect())
                }))
            }
            "colors" => m.colors = named(cx.each(x, "map.colors", |cx, c| cx.part(c))),
            "rows_up" => m.rows_up = cx.part(x).unwrap_or_default(),
            "layout" => m.layout = cx.part(x).unwrap_or(m.layout),
            "legend" => m.legend = cx.part(x).unwrap_or_default(),
            other => {
                cx.err::<()>(key.span(), format!("unknown key '{other}' in [map] (keys are {})", MAP_KEYS.join(", ")));
            }
        }
    }
    let given = |k: &str| matches!(v.get_ref(), toml::de::DeValue::Table(t) if t.iter().any(|(x, _)| x.get_ref() == k));
    for (key, value) in [("cols", &cols), ("rows", &rows)] {
        // (one of the wrong shape is reported already)
        if value.is_none() && !given(key) {
            cx.err::<()>(v.span(), format!("[map] has no {key} (e.g. {key} = [1, 8])"));
        }
    }
    m.cols = cols?;
    m.rows = rows?;
    Some(m)
}

impl Default for RawMap {
    fn default() -> RawMap {
        RawMap {
            format: Spanned::new(0..0, "CCRR".to_string()),
            shift: Spanned::new(0..0, "odd".to_string()),
            cols: [0, 0],
            rows: [0, 0],
            terrain: "clear".to_string(),
            off: vec![],
            terrains: BTreeMap::new(),
            features: BTreeMap::new(),
            hexsides: BTreeMap::new(),
            paths: BTreeMap::new(),
            places: BTreeMap::new(),
            areas: BTreeMap::new(),
            values: BTreeMap::new(),
            colors: BTreeMap::new(),
            legend: RawLegend::default(),
            rows_up: false,
            layout: Spanned::new(0..0, "columns".to_string()),
        }
    }
}

//! The legend of the SVG map: one line for each kind of thing the picture shows (the sides'
//! counters, unit symbols, stacks, reduced strength, markers, terrains, hexside features, the
//! scenario's marked areas and values, the overlay), each with its swatch.

use super::SideKind;
use super::svg::{HIGHWAY, RAIL, RIVER, ROAD, SvgMap, TOP, WATER, esc, symbol, symbol_name, symbol_of, wrap};
use crate::state::Unit;
use std::collections::BTreeSet;
use std::fmt::Write as _;

impl SvgMap<'_> {
    /// The legend at `x`, right of the map: the sides, the unit symbols, the terrains,
    /// hexsides, areas and values drawn, and the overlay; its height.
    pub(super) fn legend(&self, s: &mut String, x: f64) -> f64 {
        let mut y = TOP + 4.0;
        let _ = writeln!(
            s,
            r#"<g id="legend"><text x="{x:.1}" y="{y:.1}" font-size="12" font-weight="bold">Legend</text>"#
        );
        y += 8.0;
        let mut entries = self.counter_entries(x);
        entries.extend(self.terrain_entries(x));
        entries.extend(self.hexside_entries(x));
        entries.extend(self.area_and_value_entries(x));
        entries.extend(self.tag_entries(x));
        if let Some(o) = &self.overlay {
            let sw = move |y: f64| {
                format!(r##"<circle cx="{:.1}" cy="{:.1}" r="7" fill="#ffd54a" stroke="#7a5c00"/>"##, x + 13.0, cy(y))
            };
            entries.push((Box::new(sw), o.legend(&self.hexes)));
        }
        for (swatch, text) in entries {
            let sw = swatch(y);
            y += 16.0;
            let _ = write!(s, r#"<g class="entry">{sw}"#);
            let lines = wrap(&text, 44);
            for (i, line) in lines.iter().enumerate() {
                let _ = write!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="10">{}</text>"#,
                    x + 34.0,
                    y + 4.0 + 12.0 * i as f64,
                    esc(line)
                );
            }
            y += 12.0 * (lines.len() - 1) as f64;
            s.push_str("</g>\n");
        }
        s.push_str("</g>\n");
        y + 10.0
    }

    /// The legend's lines for the counters: each side's colour, the unit symbols shown, stacks,
    /// reduced strength, markers.
    fn counter_entries(&self, x: f64) -> Vec<Entry<'_>> {
        let mut out: Vec<Entry<'_>> = Vec::new();
        let stacks: Vec<Vec<&Unit>> =
            self.state.stacks().into_iter().filter(|(h, _)| self.hexes.contains(h)).map(|(_, v)| v).collect();
        let units: Vec<&Unit> = stacks.iter().filter_map(|v| v.first().copied()).collect();
        // (a counter without a movement factor reads attack-defense: said where one is drawn)
        let unmoving = units.iter().any(|u| {
            let v = u.values();
            (v.contains_key("attack") || v.contains_key("defense")) && !v.contains_key("move")
        });
        let values =
            if unmoving { "attack-defense-move (attack-defense: no movement factor)" } else { "attack-defense-move" };
        for side in &self.state.sides {
            let fill = self.side_fill(side);
            out.push((Box::new(move |y| box_at(x, y, &fill)), format!("{side} counter: id, {values}")));
        }
        // (the nations of a side drawn in colours of their own: Fortress Stalingrad's allies)
        let nations: BTreeSet<(String, String, String)> = units
            .iter()
            .filter_map(|u| super::other_nation(&self.map.colors, u).map(|n| (n, u.side.clone(), self.unit_fill(u))))
            .collect();
        for (nation, side, fill) in nations {
            out.push((Box::new(move |y| box_at(x, y, &fill)), format!("{nation} counter ({side} side)")));
        }
        let neutral = self.state.sides.first().map(|s| self.side_fill(s)).unwrap_or_else(|| "#4a5f7a".into());
        let syms: BTreeSet<&str> = units.iter().map(|u| symbol_of(self.symbols, u)).collect();
        for sym in syms {
            let neutral = neutral.clone();
            let sw = move |y: f64| {
                let mut sw = box_at(x, y, &neutral);
                symbol(&mut sw, sym, x + 5.0, cy(y) - 5.0, 16.0, 10.0);
                sw
            };
            out.push((Box::new(sw), symbol_name(sym).to_string()));
        }
        let sizes: BTreeSet<&str> = units.iter().filter_map(|u| super::svg::size_mark(u)).collect();
        if !sizes.is_empty() {
            let names = [
                ("II", "battalion"),
                ("III", "regiment"),
                ("X", "brigade"),
                ("XX", "division"),
                ("XXX", "corps"),
                ("XXXX", "army"),
                ("XXXXX", "army group or front"),
            ];
            let text: Vec<String> =
                names.iter().filter(|(m, _)| sizes.contains(m)).map(|(m, n)| format!("{m} {n}")).collect();
            out.push((Box::new(|_| String::new()), format!("above the symbol, the unit's size: {}", text.join(", "))));
        }
        if stacks.iter().any(|v| v.len() > 1) {
            out.push((Box::new(|_| String::new()), "+N: units under the top counter (hover for the stack)".into()));
        }
        if units.iter().any(|u| u.step > 0) {
            let sw = move |y: f64| {
                format!(r##"<rect x="{x:.1}" y="{:.1}" width="26" height="3" fill="#f5c542"/>"##, cy(y) + 3.0)
            };
            out.push((Box::new(sw), "yellow band: reduced strength".into()));
        }
        if units.iter().any(|u| !u.markers.is_empty()) {
            let sw = move |y: f64| {
                format!(
                    r##"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="#f5c542" stroke="#111" stroke-width="0.5"/>"##,
                    x + 13.0,
                    cy(y)
                )
            };
            out.push((Box::new(sw), "dot: the counter has markers (hover, or `show`)".into()));
        }
        out
    }

    /// The legend's lines for the terrains of the hexes drawn.
    fn terrain_entries(&self, x: f64) -> Vec<Entry<'_>> {
        let terrains: BTreeSet<&str> = self.hexes.iter().map(|h| self.map.hexes[h].terrain.as_str()).collect();
        terrains
            .into_iter()
            .map(|t| {
                let fill = self.terrain_color(t);
                (Box::new(move |y| box_at(x, y, &fill)) as Box<dyn Fn(f64) -> String>, t.to_string())
            })
            .collect()
    }

    /// The legend's lines for the kinds of hexside features drawn.
    fn hexside_entries(&self, x: f64) -> Vec<Entry<'_>> {
        let mut kinds: BTreeSet<(SideKind, bool)> = BTreeSet::new();
        let mut others: BTreeSet<String> = BTreeSet::new();
        let waters_named = self.water_names();
        let names: BTreeSet<String> = waters_named.iter().map(|n| super::words(n)).collect();
        let mut markers: BTreeSet<String> = BTreeSet::new();
        let mut waters: BTreeSet<String> = BTreeSet::new();
        for (_, _, feats) in self.window_sides() {
            for f in &feats {
                match SideKind::of(f) {
                    _ if f.starts_with("marker:") => {
                        markers.insert(f["marker:".len()..].to_string());
                    }
                    SideKind::Other if waters_named.contains(f) => {}
                    SideKind::Other => {
                        others.insert(f.clone());
                    }
                    SideKind::River if !f.contains("river") => {
                        waters.insert(super::words(f));
                    }
                    k => {
                        kinds.insert((k, f.contains("major")));
                    }
                }
            }
        }
        let mut out: Vec<Entry<'_>> = kinds.into_iter().map(|(k, major)| hexside_entry(x, k, major)).collect();
        for f in others {
            let style = super::other_side_style(&f);
            out.push((Box::new(move |y| line_at(x, y, &style)), format!("{} (hexside)", super::words(&f))));
        }
        if !waters.is_empty() {
            let w: Vec<String> = waters.into_iter().collect();
            out.push((Box::new(move |y| line_at(x, y, WATER)), format!("{} (shore hexside)", w.join(", "))));
        }
        for m in markers {
            let style = r##"stroke="#d22" stroke-width="3" stroke-dasharray="3,2""##;
            out.push((Box::new(move |y| line_at(x, y, style)), format!("{} (hexside marker)", super::words(&m))));
        }
        if !names.is_empty() {
            let names: Vec<String> = names.into_iter().collect();
            out.push((
                Box::new(|_| String::new()),
                format!("named waters, drawn as their river or sea: {}", names.join(", ")),
            ));
        }
        out
    }

    /// The legend's lines for the keys of the features and markers printed in hexes, and the
    /// markers on most hexes, which are not printed.
    fn tag_entries(&self, x: f64) -> Vec<Entry<'_>> {
        let widespread = self.widespread_markers();
        let features: BTreeSet<&String> = self.hexes.iter().flat_map(|h| self.map.hexes[h].features.iter()).collect();
        let mut out: Vec<Entry<'_>> = Vec::new();
        for (name, key) in self.tag_keys() {
            // (what the rules say of each value of a marker drawn)
            let said: Vec<(i64, &String)> =
                self.marker_words.iter().filter(|((m, _), _)| *m == name).map(|((_, v), w)| (*v, w)).collect();
            let text = if let Some(n) = widespread.get(&name) {
                let values: Vec<String> = said.iter().map(|(v, w)| format!("{v}: {w}")).collect();
                format!(
                    "{} marker: on {n} of the {} hexes drawn, not printed in them (`show <hex>`){}",
                    super::words(&name),
                    self.hexes.len(),
                    if values.is_empty() { String::new() } else { format!("; {}", values.join("; ")) }
                )
            } else if !said.is_empty() {
                let values: Vec<String> =
                    said.iter().map(|(v, w)| format!("{}: {w}", super::svg::marker_tag(&key, *v))).collect();
                values.join("; ")
            } else if let Some((_, mark)) = self.map.legend.areas.iter().find(|(a, _)| *a == name) {
                format!("{key}: {}", mark.label)
            } else if features.contains(&name) && super::svg::is_city(&name) {
                format!("{key}: {} (the hex's darker inset)", super::words(&name))
            } else if features.contains(&name) {
                format!("{key}: {}", super::words(&name))
            } else {
                format!("{key}: {} marker (a number after it: its value)", super::words(&name))
            };
            let shown = if widespread.contains_key(&name) { String::new() } else { key };
            let sw = move |y: f64| {
                format!(
                    r##"<text x="{:.1}" y="{:.1}" font-size="8" fill="#444" text-anchor="middle">{}</text>"##,
                    x + 13.0,
                    cy(y) + 3.0,
                    esc(&shown)
                )
            };
            out.push((Box::new(sw), text));
        }
        out
    }

    /// The legend's lines for the scenario's marked areas and values (`[map.legend]`) drawn.
    fn area_and_value_entries(&self, x: f64) -> Vec<Entry<'_>> {
        let mut out: Vec<Entry<'_>> = Vec::new();
        for (name, mark) in &self.map.legend.areas {
            if self.map.areas.get(name).is_some_and(|a| a.iter().any(|h| self.hexes.contains(h))) {
                let sw = move |y: f64| {
                    format!(
                        r#"<rect x="{:.1}" y="{:.1}" width="22" height="10" fill="none" stroke="{c}" stroke-width="6" opacity="0.22"/><rect x="{:.1}" y="{:.1}" width="22" height="10" fill="none" stroke="{c}" stroke-width="1.6" stroke-dasharray="2,3"/><text x="{:.1}" y="{:.1}" font-size="8" font-weight="bold" fill="{c}">{}</text>"#,
                        x + 2.0,
                        cy(y) - 5.0,
                        x + 2.0,
                        cy(y) - 5.0,
                        x + 5.0,
                        cy(y) + 3.0,
                        esc(&mark.text),
                        c = esc(&mark.color),
                    )
                };
                out.push((Box::new(sw), mark.label.clone()));
            }
        }
        for (name, mark) in &self.map.legend.values {
            if self.hexes.iter().any(|h| self.map.hexes[h].values.contains_key(name)) {
                let sw = move |y: f64| {
                    format!(
                        r##"<circle cx="{:.1}" cy="{:.1}" r="6.5" fill="{}" stroke="#fff"/><text x="{:.1}" y="{:.1}" font-size="8" font-weight="bold" fill="#fff" text-anchor="middle">n</text>"##,
                        x + 13.0,
                        cy(y),
                        esc(&mark.color),
                        x + 13.0,
                        cy(y) + 3.0
                    )
                };
                out.push((Box::new(sw), mark.label.clone()));
            }
        }
        out
    }
}

/// One line of the legend: its swatch, drawn at the line's height, and its words.
type Entry<'a> = (Box<dyn Fn(f64) -> String + 'a>, String);

/// The middle of a legend line at height `y`.
fn cy(y: f64) -> f64 {
    y + 16.0
}

/// A legend swatch: a box of `fill`.
fn box_at(x: f64, y: f64, fill: &str) -> String {
    format!(
        r##"<rect x="{x:.1}" y="{:.1}" width="26" height="12" fill="{fill}" stroke="#111" stroke-width="0.6"/>"##,
        cy(y) - 6.0
    )
}

/// A legend swatch: a line drawn in `style`.
fn line_at(x: f64, y: f64, style: &str) -> String {
    format!(r#"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" {style}/>"#, cy(y), x + 26.0, cy(y))
}

/// The legend's line of a kind of hexside feature.
fn hexside_entry<'a>(x: f64, k: SideKind, major: bool) -> Entry<'a> {
    let (style, text): (String, &str) = match k {
        SideKind::River if major => (format!(r#"stroke="{RIVER}" stroke-width="6""#), "major river"),
        SideKind::River => (format!(r#"stroke="{RIVER}" stroke-width="4""#), "river"),
        SideKind::Road => (format!(r#"stroke="{ROAD}" stroke-width="3""#), "road"),
        SideKind::Rail => (format!(r#"stroke="{RAIL}" stroke-width="2.5" stroke-dasharray="6,3""#), "railroad"),
        SideKind::Trail => (format!(r#"stroke="{ROAD}" stroke-width="1.6" stroke-dasharray="4,3""#), "trail"),
        SideKind::Highway => {
            let sw = move |y: f64| {
                format!(
                    "{}{}",
                    line_at(x, y, &format!(r#"stroke="{HIGHWAY}" stroke-width="5""#)),
                    line_at(x, y, r##"stroke="#f0d28a" stroke-width="1.8""##)
                )
            };
            return (Box::new(sw), "highway (Reichsautobahn, Rollbahn)".into());
        }
        SideKind::Bridge => {
            let sw = move |y: f64| {
                format!(
                    r##"{}<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="9"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#e9dcc0" stroke-width="6"/>"##,
                    line_at(x, y, &format!(r#"stroke="{RIVER}" stroke-width="4""#)),
                    x + 13.0,
                    cy(y) - 7.0,
                    x + 13.0,
                    cy(y) + 7.0,
                    x + 13.0,
                    cy(y) - 7.0,
                    x + 13.0,
                    cy(y) + 7.0
                )
            };
            return (Box::new(sw), "bridge".into());
        }
        SideKind::Other => (super::other_side_style(""), "other hexside feature"),
    };
    (Box::new(move |y| line_at(x, y, &style)), text.to_string())
}

//! The map as text (`map`) and as an SVG picture (`map --svg`), read as a player reads them.

use umpire::session::{Session, Status};

/// A Stargard game at its set-up (the first German units placed by the scenario).
fn stargard() -> Session {
    let mut s = Session::with_root(super::repo());
    let r = s.execute("new stargard-solstice --seed 7");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    s
}

/// A game of the repository's rules, seed 1.
fn game(id: &str) -> Session {
    let mut s = Session::with_root(super::repo());
    ok(&mut s, &format!("new {id} --seed 1"));
    s
}

fn ok(s: &mut Session, line: &str) -> Vec<String> {
    let r = s.execute(line);
    assert_eq!(r.status, Status::Ok, "{line}: {r:?}");
    r.out
}

/// Draws `map --svg FILE <rest>` and reads the picture.
fn svg(s: &mut Session, rest: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.svg");
    ok(s, &format!("map --svg {} {rest}", file.display()));
    std::fs::read_to_string(&file).unwrap()
}

/// The position of the first occurrence of `what`, which must be there.
fn at(svg: &str, what: &str) -> usize {
    svg.find(what).unwrap_or_else(|| panic!("no {what} in the picture"))
}

#[test]
fn the_text_map_prints_hex_ids_as_the_map_does() {
    let mut s = stargard();
    let out = ok(&mut s, "map 24.11 1").join("\n");
    assert!(out.contains("24.11") && out.contains("24.12") && out.contains("23.10"), "{out}");
    assert!(!out.contains("2411"), "{out}");
}

#[test]
fn counter_ids_are_cut_only_when_the_terminal_is_narrow() {
    let mut s = stargard();
    // 26.12 holds Schulz-Streek (11 characters)
    s.width = 80;
    let narrow = ok(&mut s, "map 26.12 1").join("\n");
    assert!(narrow.contains("Schulz-S…") && !narrow.contains("Schulz-Streek"), "{narrow}");
    s.width = 160;
    let wide = ok(&mut s, "map 26.12 1").join("\n");
    assert!(wide.contains("Schulz-Streek"), "{wide}");
    // piped output keeps its fixed width: the same picture twice
    s.width = 100;
    assert_eq!(ok(&mut s, "map 26.12 2"), ok(&mut s, "map 26.12 2"));
}

#[test]
fn no_counter_id_sits_on_a_neighbours_id_line() {
    let mut s = stargard();
    for width in [80, 100, 160] {
        s.width = width;
        let out = ok(&mut s, "map 24.11 3");
        let ids: Vec<String> = s.execute("= (function() local t = {} for _, u in ipairs(units.all { on_map = true }) do t[#t+1] = u.id end return table.concat(t, ' ') end)()").out.join(" ").split_whitespace().map(String::from).collect();
        assert!(ids.len() > 50, "{ids:?}");
        let hex_id =
            |w: &str| w.len() == 5 && w.as_bytes()[2] == b'.' && w.chars().filter(|c| c.is_ascii_digit()).count() == 4;
        for line in &out {
            let words: Vec<&str> = line.split(|c: char| " /\\_~=#H|".contains(c)).filter(|w| !w.is_empty()).collect();
            if words.iter().any(|w| hex_id(w)) {
                let unit = words.iter().find(|w| {
                    ids.iter().any(|id| id == *w || (w.ends_with('…') && id.starts_with(w.trim_end_matches('…'))))
                });
                assert!(unit.is_none(), "width {width}: a counter on an id line: {line}");
            }
        }
        assert!(out.iter().any(|l| l.contains("HvS/11SS")), "{out:?}");
    }
}

#[test]
fn the_legend_explains_what_is_drawn_and_the_overlay() {
    let mut s = stargard();
    let out = ok(&mut s, "map zoc Soviet 24.11 2");
    let text = out.join("\n");
    assert!(out.iter().any(|l| l.starts_with("hexsides: ") && l.contains("~ river") && l.contains("= road")), "{text}");
    assert!(
        out.iter().any(|l| l.starts_with("in a hex: ") && l.contains("cle clear") && l.contains("+N units under it"))
    );
    assert!(out.iter().any(|l| l == "overlay `zoc Soviet` [4.2]: Z = hexes in the side's zone of control"), "{text}");
    let reach = ok(&mut s, "map reach HvS/11SS").join("\n");
    assert!(reach.contains("overlay `reach HvS/11SS` [5.1]: numbers 0 to"), "{reach}");
    // features are named by their letter
    let town = ok(&mut s, "map 16.14 1").join("\n");
    assert!(town.contains("V village"), "{town}");
}

#[test]
fn an_overlay_takes_its_arguments_then_a_place_and_radius() {
    let mut s = stargard();
    let out = ok(&mut s, "map zoc Soviet 24.11 2").join("\n");
    assert!(out.contains("24.11") && out.contains("Z") && !out.contains("24.14"), "{out}");
    let one = ok(&mut s, "map zoc Soviet Stargard").join("\n");
    assert!(one.contains("17.14") && one.contains("17.17") && !one.contains("17.18"), "{one}");
    let r = s.execute("map zoc Soviet 24.11 2 3");
    assert!(matches!(r.status, Status::Error(_)), "{r:?}");
    assert!(format!("{r:?}").contains("usage: map zoc <side> [<hex|unit|place> [radius]]"), "{r:?}");
    let r = s.execute("map 24.11 2 3");
    assert!(format!("{r:?}").contains("unexpected '3'"), "{r:?}");
}

#[test]
fn a_large_overlay_is_drawn_where_its_marks_end_and_says_what_is_not_shown() {
    let mut s = stargard();
    let out = ok(&mut s, "map supply German");
    let last = out.last().unwrap();
    assert!(last.contains("marked hexes are outside this window"), "{last}");
    assert!(last.contains("`map supply German <hex|unit|place> [radius]` draws another part"), "{last}");
    // the window shows both marked and unmarked hexes: the edge of the supply net
    let body: Vec<&String> = out.iter().take_while(|l| !l.starts_with("hexsides:")).collect();
    let marked = body.iter().filter(|l| l.contains("    S    ")).count();
    assert!(marked > 5, "{out:?}");
    assert!(body.iter().any(|l| l.starts_with("   ") && l.contains("\\         /")), "no unmarked hex: {out:?}");
    // where the net meets units outside it (the front), not a lake shore: Soviet counters show
    let soviet: Vec<String> = (s.execute("= (function() local t = {} for _, u in ipairs(units.all { side = 'Soviet', on_map = true }) do t[#t + 1] = u.id end return table.concat(t, ' ') end)()").out)
        .concat()
        .split_whitespace()
        .map(|id| id.chars().take(6).collect())
        .collect();
    assert!(
        body.iter().any(|l| soviet.iter().any(|id| l.contains(id.as_str()))),
        "no Soviet unit in the window: {out:?}"
    );
}

#[test]
fn colours_of_hexsides_are_not_the_sides_colours_and_piped_output_is_plain() {
    let mut s = stargard();
    let plain = ok(&mut s, "map 24.11 3").join("\n");
    assert!(!plain.contains('\x1b'), "piped output has no colour");
    s.color = true;
    let col = ok(&mut s, "map 24.11 3").join("\n");
    let code_before = |c: char| -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        for part in col.split("\x1b[0m") {
            if let Some(i) = part.rfind('\x1b') {
                let (code, text) = part[i..].split_at(part[i..].find('m').unwrap() + 1);
                if text.starts_with(c) {
                    out.insert(code.to_string());
                }
            }
        }
        out
    };
    let rivers = code_before('~');
    let roads = code_before('=');
    // counters: the colour before a counter id
    let counters: std::collections::BTreeSet<String> = ["HvS/11SS", "212/80"]
        .iter()
        .map(|id| {
            let i = col.find(id).unwrap();
            let j = col[..i].rfind('\x1b').unwrap();
            col[j..i].to_string()
        })
        .collect();
    assert!(!rivers.is_empty() && !roads.is_empty(), "{rivers:?} {roads:?}");
    assert_eq!(counters.len(), 2, "the two sides differ: {counters:?}");
    for c in &counters {
        assert!(!rivers.contains(c) && !roads.contains(c), "{c:?} is a side's and a hexside's colour");
    }
}

#[test]
fn the_svg_title_names_the_turn_phase_and_side() {
    let mut s = super::fixture_game(2);
    let pic = svg(&mut s, "");
    let title = &pic[at(&pic, "<text id=\"title\"")..];
    let title = &title[..title.find("</text>").unwrap()];
    assert!(title.contains("turn 1") && title.contains("Movement Phase") && title.contains("Blue to act"), "{title}");
}

#[test]
fn the_svg_of_a_window_draws_its_hexes_only_with_the_overlay_above_the_counters() {
    let mut s = stargard();
    let pic = svg(&mut s, "zoc Soviet 24.11 2");
    let ids: Vec<&str> = pic
        .match_indices("class=\"hexid\"")
        .map(|(i, _)| {
            let t = &pic[i..];
            let a = t.find('>').unwrap() + 1;
            &t[a..a + t[a..].find('<').unwrap()]
        })
        .collect();
    assert_eq!(ids.len(), 19, "a window of radius 2: {ids:?}");
    assert!(ids.contains(&"24.11") && ids.contains(&"24.13") && !ids.contains(&"24.14"), "{ids:?}");
    assert!(at(&pic, "<g id=\"overlay\">") > at(&pic, "<g id=\"counters\">"), "overlay drawn above counters");
    assert!(pic[at(&pic, "<g id=\"overlay\">")..].contains(">Z</text>"));
    assert!(pic.contains("overlay `zoc Soviet` [4.2]"), "the legend names the overlay");
    // the whole map without a place
    let all = svg(&mut s, "");
    assert_eq!(all.matches("class=\"hexid\"").count(), 48 * 30);
}

#[test]
fn the_svg_draws_bridges_after_rivers_areas_values_and_a_legend() {
    let mut s = stargard();
    // 17.14 Stargard: bridges over the Ihna, 3 VP
    let pic = svg(&mut s, "17.14 2");
    let rivers = at(&pic, "<g id=\"hexsides\">");
    let bridges = at(&pic, "<g id=\"bridges\">");
    assert!(bridges > rivers && pic[bridges..].contains("class=\"bridge\""), "bridges drawn after the rivers");
    assert!(pic.contains("<g class=\"value vp\"><title>victory points of the hex (14.3.1): 3</title>"), "VP marked");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    for entry in
        ["bridge", "river", "road", "victory points of the hex (14.3.1)", "German counter", "Soviet counter", "clear"]
    {
        assert!(legend.contains(entry), "legend: no {entry}");
    }
    // supply sources and entry areas (15.01 is entry area D, on the Soviet supply edge)
    let edge = svg(&mut s, "15.01 1");
    assert!(edge.contains("class=\"area supply_soviet\"") && edge.contains("class=\"area entry_D\""), "areas marked");
    assert!(
        edge.contains("entry area D (14.2.1)") && edge.contains("Soviet supply source (11.2)"),
        "areas in the legend"
    );
    // place names below the hex id, and inside their hex
    let name = at(&pic, ">Stargard</text>");
    let place = &pic[pic[..name].rfind("<text").unwrap()..name];
    assert!(place.contains("class=\"place\""), "{place}");
}

#[test]
fn the_svg_counters_carry_the_symbol_of_their_unit_type() {
    let mut s = stargard();
    let pic = svg(&mut s, "");
    let symbol_of = |unit: &str| {
        let i = at(&pic, &format!("data-unit=\"{unit}\""));
        let t = &pic[i..];
        let a = t.find("data-symbol=\"").unwrap() + 13;
        t[a..a + t[a..].find('"').unwrap()].to_string()
    };
    // types: g_armor, g_pzgren, s_rifle, g_inf_support; HQs
    assert_eq!(symbol_of("HvS/11SS"), "armour");
    assert_eq!(symbol_of("212/80"), "infantry");
    assert_eq!(symbol_of("Munzel-HQ"), "hq");
    // a unit's own symbol wins over its type's (g_inf_support: pioneers, and tank-hunters)
    assert_eq!(symbol_of("27P/27SS"), "engineer");
    assert_eq!(symbol_of("2J/104PJ"), "antitank");
    assert!(pic.contains("<g class=\"symbol infantry\">") && pic.contains("<g class=\"symbol armour\">"));
    // ids fit their counters: a long id in two lines cut after a separator, each in a smaller
    // font, but not a tiny one
    for part in ["Schulz-", "Streek"] {
        let i = at(&pic, &format!(">{part}</text>"));
        let t = &pic[pic[..i].rfind("<text").unwrap()..i];
        let size: f64 = t.split("font-size=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!((5.0..7.0).contains(&size), "{t}");
    }
}

#[test]
fn a_scenario_with_an_unknown_unit_symbol_or_legend_area_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(super::repo().join("scenarios/stargard-solstice/campaign.toml")).unwrap();
    let bad = src.replacen("symbol = \"armour\"", "symbol = \"tank\"", 1).replacen(
        "entry_D = { label",
        "entry_Q = { label",
        1,
    );
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, bad).unwrap();
    let e = umpire::scenario::load(&path, "x/bad").unwrap_err().to_string();
    assert!(e.contains("unknown unit symbol 'tank' (symbols are infantry, armour"), "{e}");
    assert!(e.contains("legend: no area 'entry_Q'"), "{e}");
}

/// A game on the fixture's map numbered by rows (`fixture/rows`), or on a copy of it with
/// lines of its `[map]` replaced (`from` → `to`); the folder of the copy goes with it.
fn rows_game(edits: &[(&str, &str)]) -> (Session, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(super::fixtures().join("scenarios/fixture/rows.toml")).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    let file = dir.path().join("rows.toml");
    std::fs::write(&file, text).unwrap();
    let mut s = Session::with_root(super::fixtures());
    ok(&mut s, &format!("new {} --seed 1", file.display()));
    ok(&mut s, "auto");
    (s, dir)
}

/// The corners of every hex of a picture's terrain, by hex id.
fn hex_corners(pic: &str) -> std::collections::BTreeMap<String, Vec<(f64, f64)>> {
    let terrain = &pic[at(pic, "<g id=\"terrain\">")..at(pic, "<g id=\"areas\">")];
    terrain
        .lines()
        .filter(|l| l.starts_with("<polygon"))
        .map(|l| {
            let points = l.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
            let corners = points
                .split(' ')
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            let id = l.split("<title>").nth(1).unwrap().split(' ').next().unwrap().to_string();
            (id, corners)
        })
        .collect()
}

fn centre(corners: &[(f64, f64)]) -> (f64, f64) {
    let n = corners.len() as f64;
    (corners.iter().map(|c| c.0).sum::<f64>() / n, corners.iter().map(|c| c.1).sum::<f64>() / n)
}

#[test]
fn the_svg_of_a_map_numbered_by_rows_draws_pointy_hexes_where_their_directions_say() {
    for (shift, rows_up) in [("odd", true), ("odd", false), ("even", true), ("even", false)] {
        let (mut s, _dir) = rows_game(&[
            ("shift = \"odd\"", &format!("shift = \"{shift}\"")),
            ("rows_up = true", &format!("rows_up = {rows_up}")),
        ]);
        let case = format!("shift {shift}, rows_up {rows_up}");
        let pic = svg(&mut s, "");
        let hexes = hex_corners(&pic);
        assert_eq!(hexes.len(), 29, "{case}");
        let c = |id: &str| centre(&hexes[id]);
        for (id, corners) in &hexes {
            // pointy-topped: a corner straight above the centre
            let (x, y) = centre(corners);
            assert!(corners.iter().any(|p| (p.0 - x).abs() < 0.11 && p.1 < y - 30.0), "{case}: {id} {corners:?}");
        }
        // a higher printed row is drawn above a lower one when rows grow upwards
        assert_eq!(c("0401").1 < c("0301").1, rows_up, "{case}");
        assert!((c("0401").1 - c("0402").1).abs() < 0.11, "{case}: a printed row is drawn across");
        // the shifted rows (the first number's parity) half a hex further east
        assert_eq!(c("0301").0 > c("0201").0, shift == "odd", "{case}");
        // every neighbour lies where its direction's name says, clockwise from W
        let map = &s.game.as_ref().unwrap().scenario.map;
        for id in hexes.keys() {
            let h = map.grid.parse(id).unwrap();
            let (x, y) = c(id);
            let mut names = Vec::new();
            for (d, n) in map.neighbours(h) {
                let (nx, ny) = c(&map.fmt(n));
                let angle = (-(ny - y)).atan2(nx - x).to_degrees().round() as i32;
                let drawn = match angle {
                    0 => "E",
                    60 => "NE",
                    120 => "NW",
                    180 | -180 => "W",
                    -120 => "SW",
                    -60 => "SE",
                    other => panic!("{case}: {id} to {n:?} at {other}°"),
                };
                assert_eq!(map.dir_name(d), drawn, "{case}: {id} to {}", map.fmt(n));
                assert_eq!(map.drawn_name(d), drawn, "{case}: {id} to {}", map.fmt(n));
                names.push(drawn);
            }
            let order = ["W", "NW", "NE", "E", "SE", "SW"];
            let mut expected: Vec<&str> = order.to_vec();
            expected.retain(|o| names.contains(o));
            assert_eq!(names, expected, "{case}: the neighbours of {id}, clockwise from W");
        }
        // a river on the W side of 0303 is drawn upright, midway between 0302 and 0303
        let sides = &pic[at(&pic, "<g id=\"hexsides\">")..at(&pic, "<g id=\"bridges\">")];
        let attr = |l: &str, k: &str| -> f64 {
            l.split(&format!(" {k}=\"")).nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
        };
        let mid = (c("0302").0 + c("0303").0) / 2.0;
        assert!(
            sides
                .lines()
                .filter(|l| l.contains("class=\"river\""))
                .any(|l| (attr(l, "x1") - mid).abs() < 0.11 && (attr(l, "x2") - mid).abs() < 0.11),
            "{case}: {sides}"
        );
    }
}

#[test]
fn the_text_map_of_a_map_numbered_by_rows_is_a_wall_of_bricks() {
    let (mut s, _dir) = rows_game(&[]);
    s.width = 80;
    // row 05 at the top, odd rows half a brick to the right; the river on the W, NW and SW
    // sides of 0303, the road 0101 0102 0202 0203 0204, the wall between 0104 and 0105
    let out = ok(&mut s, "map");
    assert_eq!(out, ROWS_MAP[1..].lines().collect::<Vec<_>>(), "{}", out.join("\n"));
}

/// `map` of `fixture/rows` at its set-up, 80 characters wide.
const ROWS_MAP: &str = r#"
     +----+----+----+----+----+----+----+----+----+----+
     :0501     :0502     :0503     :0504     :0505     :
     :cle      :cle      :cle      :cle      :cle      :
     :         :         :         :         :         :
     :         :         :         :         :         :
+----+----+----+----+----+----+----+----+----+----+----+----+
:0401     :0402     :0403     :0404     :0405     :0406     :
:cle      :cle      :cle      :cle      :cit      :cle      :
:         :         :         :R2       :R3       :         :
:         :         :         :+1       :         :         :
+----+----+----+----+----+~~~~+----+----+----+----+----+----+----+
     :0301     :0302     ~0303     :0304     :0305     :0306     :
     :cle      :cle      ~for      :forV     :cle      :cle      :
     :         :         ~         :         :         :         :
     :         :         ~         :         :         :         :
+----+----+----+----+----+~~~~+----+----+----+----+----+----+----+
:0201     :0202     =0203     =0204     :0205     :0206     :
:cle      :swa      =cle      =cle      :cle      :cle      :
:         :B1       =B2       =         :         :         :
:         :         =         =         :         :         :
+----+----+----+====+----+----+----+----+----+----+----+----+----+
     :0101     =0102     :0103     :0104     |0105     :0106     :
     :cle      =cle      :cle      :cle      |cle      :cle      :
     :BA       =         :         :         |         :         :
     :         =         :         :         |         :         :
     +----+----+----+----+----+----+----+----+----+----+----+----+
hexsides: ~ river, = road, | other hexside feature
in a hex: its id; terrain (cit city, cle clear, for forest, swa swamp) and features (V village); the top counter's id, +N units under it"#;

#[test]
fn a_map_numbered_by_rows_too_wide_for_the_terminal_is_windowed_on_its_middle() {
    let (mut s, _dir) = rows_game(&[("cols = [1, 5]", "cols = [1, 20]"), ("rows = [1, 6]", "rows = [1, 30]")]);
    s.width = 80;
    let out = ok(&mut s, "map");
    let text = out.join("\n");
    let picture = out.iter().take_while(|l| !l.starts_with("in a hex"));
    assert!(picture.clone().count() > 40 && picture.into_iter().all(|l| l.chars().count() <= 80), "{text}");
    // seven positions fit, around position 15 of the middle printed row 11, nine rows high
    for (shown, id) in [(true, "1112"), (true, "1118"), (false, "1111"), (false, "1119")] {
        assert_eq!(text.contains(id), shown, "{id}: {text}");
    }
    for (shown, id) in [(true, "0712"), (true, "1512"), (false, "0612"), (false, "1612")] {
        assert_eq!(text.contains(id), shown, "{id}: {text}");
    }
    assert!(text.contains("(the part around the middle of the map;"), "{text}");
    // rows_up: the highest printed row at the top
    assert!(text.find("1512").unwrap() < text.find("0712").unwrap(), "{text}");
}

#[test]
fn map_alone_draws_the_middle_of_the_map_not_an_edge() {
    // the window is around the middle column's middle hex (it was that column's first: the edge)
    let mut s = stargard();
    let text = ok(&mut s, "map").join("\n");
    assert!(text.contains("the part around the middle of the map"), "{text}");
    assert!(text.contains("25.14") && !text.contains("25.01") && !text.contains(".02 "), "{text}");
}

#[test]
fn hexside_kinds_are_read_from_the_words_of_their_names() {
    use umpire::render::SideKind::{self, *};
    for (name, kind) in [
        ("trail", Trail),
        ("railroad", Rail),
        ("rail", Rail),
        ("road", Road),
        ("rollbahn", Highway),
        ("reichsautobahn", Highway),
        ("major_river", River),
        ("minor_river", River),
        ("sea", River),
        ("bridge", Bridge),
        ("weather_line", Other),
        ("don", Other),
    ] {
        assert_eq!(SideKind::of(name), kind, "{name}");
    }
}

#[test]
fn each_nation_has_its_colour_whatever_its_place_among_the_sides() {
    use umpire::render::side_color;
    let none = std::collections::BTreeMap::new();
    let (ab, ba) = (vec!["German".to_string(), "Soviet".to_string()], vec!["Soviet".to_string(), "German".to_string()]);
    for sides in [&ab, &ba] {
        assert_eq!(side_color(&none, sides, "German").0, "#5d6a55", "field-grey");
        assert_eq!(side_color(&none, sides, "Soviet").0, "#8b3a2b", "red-brown");
    }
    // a scenario may name a side's colour; a side of no known nation takes one by its place
    let named: std::collections::BTreeMap<String, String> = [("German".to_string(), "#123456".to_string())].into();
    assert_eq!(side_color(&named, &ab, "German").0, "#123456");
    let other = vec!["Ruritania".to_string(), "Syldavia".to_string()];
    assert_ne!(side_color(&none, &other, "Ruritania").0, side_color(&none, &other, "Syldavia").0);
}

#[test]
fn the_pictures_tell_trails_from_railroads_and_highways_from_roads() {
    let mut s = stargard();
    // 24.15: trails SE and SW, a railroad and a road NE and NW
    let text = ok(&mut s, "map 24.15 1").join("\n");
    assert!(text.contains(". trail") && text.contains("# rail"), "{text}");
    let pic = svg(&mut s, "24.15 2");
    assert!(pic.contains("class=\"trail\"") && pic.contains("stroke-dasharray=\"4,3\""), "a trail drawn as a trail");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains(">trail<") && legend.contains(">railroad<"), "both in the legend");
    // the Rollbahn (04.15) is a highway, not a road
    let pic = svg(&mut s, "04.15 1");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("highway (Reichsautobahn, Rollbahn)"), "the Rollbahn in the legend");
    let text = ok(&mut s, "map 04.15 1").join("\n");
    assert!(text.contains("% highway"), "{text}");
}

#[test]
fn the_full_maps_name_no_raw_marker_and_draw_each_area_as_one_boundary() {
    // Fortress Stalingrad: control markers on every hex are in the legend, not in each hex
    let mut s = game("fortress-stalingrad");
    let pic = svg(&mut s, "");
    let labels = &pic[at(&pic, "<g id=\"labels\">")..at(&pic, "<g id=\"counters\">")];
    assert!(!labels.contains(">ctl") && !labels.contains("entrench_soviet"), "raw names printed in hexes");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("ctl marker: on ") && legend.contains(": entrench soviet"), "the legend keys them");
    assert!(pic.contains("<g class=\"area north_edge\"><title>"), "an area is drawn as its boundary");
    assert_eq!(pic.matches("class=\"area north_edge\"").count(), 1, "one boundary, not an outline in every hex");
    // Red Storm: the Soviet Logistical Strain area, one line
    let mut s = game("red-storm-over-the-reich");
    let pic = svg(&mut s, "");
    assert_eq!(pic.matches("class=\"area west_of_sls\"").count(), 1);
    assert!(!pic.contains("<polygon class=\"area"), "no area drawn hex by hex");
}

#[test]
fn counters_carry_their_units_size_and_an_hq_its_staff() {
    // Red Storm's corps and divisions (`corps = true`, `division = true`)
    let mut s = game("red-storm-over-the-reich");
    let pic = svg(&mut s, "");
    assert!(pic.contains("class=\"size\">XXX<") && pic.contains("class=\"size\">XX<"), "size marks drawn");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("the unit&#39;s size") || legend.contains("the unit's size"), "and in the legend");
    assert!(legend.contains("size: XX<") && legend.contains(">division, XXX corps"), "and in the legend");
    // Stargard's HQs: the frame's staff, not the letters HQ
    let mut s = stargard();
    let pic = svg(&mut s, "");
    assert!(pic.contains("data-symbol=\"hq\""), "an HQ drawn");
    assert!(!pic.contains(">HQ</text>"), "an HQ is not the letters HQ");
}

#[test]
fn a_hexside_marker_is_drawn_and_in_the_legend() {
    let mut s = Session::with_root(super::fixtures());
    ok(&mut s, "new fixture --seed 1");
    ok(&mut s, "auto");
    ok(&mut s, "blow 0404 0504");
    let pic = svg(&mut s, "0404 2");
    assert!(pic.contains("class=\"marker:blown\""), "the blown bridge drawn");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("blown (hexside marker)"), "and in the legend");
}

#[test]
fn a_nation_of_a_side_has_its_own_colour_and_legend_line() {
    // Fortress Stalingrad: Romanian, Italian and Hungarian units on the German side
    let mut s = game("fortress-stalingrad");
    let pic = svg(&mut s, "");
    let counters = &pic[at(&pic, "<g id=\"counters\">")..at(&pic, "<g id=\"legend\">")];
    assert!(counters.contains("fill=\"#8a8a24\""), "a Romanian counter in the Romanian colour");
    assert!(counters.contains("fill=\"#5d6a55\""), "German counters still field-grey");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("Romanian counter (German side)"), "the nation in the legend");
    assert!(
        !legend.contains("Soviet counter (") && !legend.contains("German counter (German"),
        "a side's own nation is no other"
    );
    // its cities (a feature on clear terrain) stand out as a darker inset, said in the legend
    assert!(pic.contains("<polygon class=\"city\""), "Stalingrad and Rostov drawn as cities");
    assert!(
        legend.contains(": city (the hex&#39;s darker inset)") || legend.contains(": city (the hex's darker inset)")
    );
    // Stargard: the 1st Polish Army on the Soviet side
    let mut s = stargard();
    let legend = svg(&mut s, "");
    assert!(legend.contains("Polish counter (Soviet side)"), "the Polish units");
}

#[test]
fn a_hexs_keys_are_drawn_beside_its_counter_and_stargards_counters_carry_their_size() {
    // Red Storm 4406, a VP town held by a German unit at the start: its keys beside the counter
    let mut s = game("red-storm-over-the-reich");
    let pic = svg(&mut s, "");
    let labels = &pic[at(&pic, "<g id=\"labels\">")..at(&pic, "<g id=\"counters\">")];
    assert!(labels.contains("class=\"hexkey\""), "keys drawn in hexes that hold units");
    // (a long id in two lines: the_svg_counters_carry_the_symbol_of_their_unit_type)
    let mut s = stargard();
    let pic = svg(&mut s, "");
    // Stargard's counters carry their sizes (rifle divisions XX, armies XXXX)
    assert!(pic.contains("class=\"size\">XX<") && pic.contains("class=\"size\">XXXX<"), "Stargard's sizes drawn");
}

#[test]
fn a_road_and_a_railroad_between_the_same_hexes_are_drawn_side_by_side() {
    // Stargard 24.08-25.08-26.08: a railroad beside the road to Arnswalde (before, the road hid
    // the railroad on 131 of 179 of its hexsides)
    let mut s = stargard();
    let pic = svg(&mut s, "26.08 3");
    let lines = |class: &str| -> Vec<[String; 4]> {
        pic.split(&format!("<line class=\"{class}\" "))
            .skip(1)
            .map(|t| {
                let get = |k: &str| t.split(&format!("{k}=\"")).nth(1).unwrap().split('"').next().unwrap().to_string();
                [get("x1"), get("y1"), get("x2"), get("y2")]
            })
            .collect()
    };
    let (rails, roads) = (lines("railroad"), lines("road"));
    assert!(!rails.is_empty() && !roads.is_empty());
    assert!(rails.iter().all(|r| !roads.contains(r)), "a railroad drawn exactly over a road");
    // an area: a translucent band under a dotted line, not a line like a river or a railroad
    let mut s = game("red-storm-over-the-reich");
    let pic = svg(&mut s, "0425 3");
    let berlin = &pic[at(&pic, "<g class=\"area berlin\">")..];
    let berlin = &berlin[..berlin.find("</g>").unwrap()];
    assert!(berlin.contains("opacity=\"0.22\"") && berlin.contains("stroke-dasharray=\"2,3\""), "{berlin}");
    // the VP badge low on the right of the hex, clear of the stack badge at the counter's corner
    let vp = &pic[at(&pic, "<g class=\"value vp\">")..];
    let cy: f64 = vp.split("cy=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    let hexid = &pic[at(&pic, ">0425</text>") - 120..at(&pic, ">0425</text>")];
    let id_y: f64 = hexid.split("y=\"").last().unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(cy > id_y + 30.0, "the VP badge at {cy}, the hex id at {id_y}");
}

#[test]
fn a_hex_markers_key_says_in_the_rules_words_what_it_means() {
    // Fortress Stalingrad's control marker (ctl 2: the German's, 3.3): its key in a window and
    // its tooltip, and on the full map (on most hexes: in the legend only) each value
    let mut s = game("fortress-stalingrad");
    let pic = svg(&mut s, "1504 3");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("Ct2: controlled by the German [3.3]"), "{legend}");
    let labels = &pic[at(&pic, "<g id=\"labels\">")..at(&pic, "<g id=\"counters\">")];
    assert!(labels.contains("<title>Ct2: controlled by the German [3.3]</title>"), "the key's tooltip");
    let pic = svg(&mut s, "");
    let legend = &pic[at(&pic, "<g id=\"legend\">")..];
    assert!(legend.contains("controlled by the German [3.3]") && legend.contains("controlled by the Soviet [3.3]"));
}

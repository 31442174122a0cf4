//! Hex math against hand-made neighbour and distance tables, for both column parities.

use umpire::hex::{Dir, Grid, HexFormat, HexId, Shift};

fn grid(shift: Shift) -> Grid {
    Grid { shift, format: HexFormat::default() }
}

fn h(s: &str) -> HexId {
    grid(Shift::Odd).parse(s).unwrap()
}

fn ring(g: &Grid, hex: &str) -> Vec<String> {
    g.neighbours(h(hex)).iter().map(|x| g.format(*x)).collect()
}

#[test]
fn neighbours_odd_columns_low() {
    let g = grid(Shift::Odd);
    // clockwise from north: N, NE, SE, S, SW, NW
    assert_eq!(ring(&g, "0606"), ["0605", "0705", "0706", "0607", "0506", "0505"]);
    assert_eq!(ring(&g, "0505"), ["0504", "0605", "0606", "0506", "0406", "0405"]);
    // Fortress Stalingrad 5.3: 1606 touches 1705, 1605, 1505 and 1706, 1607, 1506
    let mut n = ring(&g, "1606");
    n.sort();
    assert_eq!(n, ["1505", "1506", "1605", "1607", "1705", "1706"]);
}

#[test]
fn neighbours_even_columns_low() {
    let g = grid(Shift::Even);
    assert_eq!(ring(&g, "0606"), ["0605", "0706", "0707", "0607", "0507", "0506"]);
    assert_eq!(ring(&g, "0505"), ["0504", "0604", "0605", "0506", "0405", "0404"]);
}

#[test]
fn red_storm_paths_are_adjacent_chains() {
    // Red Storm examples (fuel, retreat, overrun, the Oder chain) only connect with odd columns low.
    let g = grid(Shift::Odd);
    for chain in [
        &["3937", "3838"][..],
        &["4527", "4428"],
        &["2637", "2638", "2738", "2839", "2939", "3040"],
        &["4640", "4540", "4441", "4340"],
    ] {
        for w in chain.windows(2) {
            assert_eq!(g.distance(h(w[0]), h(w[1])), 1, "{} - {}", w[0], w[1]);
            assert!(g.direction(h(w[0]), h(w[1])).is_some());
        }
    }
    // and the Oder chain does not connect with even columns low
    let e = grid(Shift::Even);
    assert!(["2637", "2638", "2738", "2839", "2939", "3040"].windows(2).any(|w| e.distance(h(w[0]), h(w[1])) != 1));
}

#[test]
fn distance_table() {
    let odd = grid(Shift::Odd);
    let even = grid(Shift::Even);
    for (a, b, d_odd, d_even) in [
        ("0101", "0101", 0, 0),
        ("0101", "0103", 2, 2),
        ("0101", "0301", 2, 2),
        ("0101", "0201", 1, 1),
        ("0101", "0202", 1, 2),
        ("0102", "0201", 2, 1),
        ("0505", "0808", 4, 5),
        ("1005", "0110", 10, 9),
        ("3814", "3811", 3, 3),
    ] {
        assert_eq!(odd.distance(h(a), h(b)), d_odd, "odd {a}-{b}");
        assert_eq!(odd.distance(h(b), h(a)), d_odd, "odd {b}-{a}");
        assert_eq!(even.distance(h(a), h(b)), d_even, "even {a}-{b}");
    }
}

/// Distance agrees with a breadth-first search over neighbours, on both parities.
#[test]
fn distance_matches_bfs() {
    for shift in [Shift::Odd, Shift::Even] {
        let g = grid(shift);
        let start = HexId::new(7, 7);
        let mut dist = std::collections::BTreeMap::new();
        dist.insert(start, 0);
        let mut frontier = vec![start];
        for d in 1..=8 {
            let mut next = vec![];
            for x in frontier {
                for n in g.neighbours(x) {
                    if let std::collections::btree_map::Entry::Vacant(e) = dist.entry(n) {
                        e.insert(d);
                        next.push(n);
                    }
                }
            }
            frontier = next;
        }
        for (hex, d) in &dist {
            assert_eq!(g.distance(start, *hex), *d, "{shift:?} {hex:?}");
        }
        assert_eq!(g.within(start, 3).len(), 37);
    }
}

#[test]
fn directions_are_mutual() {
    for shift in [Shift::Odd, Shift::Even] {
        let g = grid(shift);
        for c in 1..6 {
            for r in 1..6 {
                let a = HexId::new(c, r);
                for d in Dir::ALL {
                    let b = g.neighbour(a, d);
                    assert_eq!(g.neighbour(b, d.opposite()), a);
                    assert_eq!(g.direction(a, b), Some(d));
                }
            }
        }
    }
}

#[test]
fn printed_ids() {
    let g = grid(Shift::Odd);
    assert_eq!(g.parse("0418"), Some(HexId::new(4, 18)));
    assert_eq!(g.parse("04.18"), Some(HexId::new(4, 18)));
    assert_eq!(g.parse("3427"), Some(HexId::new(34, 27)));
    assert_eq!(g.parse("418"), None);
    assert_eq!(g.parse("Stargard"), None);
    // the digits-only form and the others agree: spaces around, signs and stray bytes
    assert_eq!(g.parse(" 0418 "), Some(HexId::new(4, 18)));
    assert_eq!(g.parse("0000"), Some(HexId::new(0, 0)));
    assert_eq!(g.parse("+418"), None);
    assert_eq!(g.parse("04a8"), None);
    assert_eq!(g.parse("041８"), None);
    let wide = Grid { shift: Shift::Odd, format: HexFormat::from_pattern("CCCRRR").unwrap() };
    assert_eq!(wide.parse("104218"), Some(HexId::new(104, 218)));
    assert_eq!(wide.parse("0418"), None);
    let dotted = Grid { shift: Shift::Odd, format: HexFormat::from_pattern("CC.RR").unwrap() };
    assert_eq!(dotted.format(HexId::new(4, 18)), "04.18");
    assert_eq!(dotted.parse("0418"), Some(HexId::new(4, 18)));
    assert_eq!(HexFormat::from_pattern("CCRR").unwrap().pattern(), "CCRR");
    assert!(HexFormat::from_pattern("RRCC").is_none());
}

#[test]
fn beyond_edge_gives_the_distances_of_off_map_neighbours() {
    let mut s = super::fixture_game(1);
    let mut eval = |e: &str| s.execute(&format!("= {e}")).out.last().cloned().unwrap_or_default();
    // an inner hex has no off-map neighbour
    assert_eq!(eval("#map.beyond_edge('0403', '0403')"), "0");
    // the corner 0101 (odd column, half a hex lower): N, NW and SW lie off the map
    assert_eq!(eval("#map.beyond_edge('0101', '0101')"), "3");
    assert_eq!(eval("table.concat(map.beyond_edge('0101', '0101'), ',')"), "1,1,1");
    // seen from two hexes away, the off-map hexes are one or two hexes farther
    assert_eq!(eval("table.concat(map.beyond_edge('0101', '0102'), ',')"), "2,1,2");
}

/// A game of the fixture's map numbered by rows (`fixture/rows`: printed rows 01-05 from the
/// bottom, positions 01-06, odd rows drawn half a hex further east, 0506 off).
fn rows_game() -> umpire::Session {
    let mut s = umpire::Session::with_root(super::fixtures());
    for line in ["new fixture/rows --seed 1", "auto"] {
        let r = s.execute(line);
        assert_eq!(r.status, umpire::Status::Ok, "{line}: {r:?}");
    }
    s
}

#[test]
fn a_map_numbered_by_rows_names_directions_as_drawn() {
    let mut s = rows_game();
    let mut eval = |e: &str| s.execute(&format!("= {e}")).out.join("\n");
    // 0303 (row 3, shifted east): 0302 and 0304 beside it, row 4 above, row 2 below
    for (to, dir) in [("0302", "W"), ("0403", "NW"), ("0404", "NE"), ("0304", "E"), ("0204", "SE"), ("0203", "SW")] {
        assert_eq!(eval(&format!("map.direction('0303', '{to}')")), dir, "0303 to {to}");
    }
    // 0202 (row 2, not shifted): rows 3 and 1 are shifted east, so its NE and SE neighbours
    // have its position
    for (to, dir) in [("0201", "W"), ("0301", "NW"), ("0302", "NE"), ("0203", "E"), ("0102", "SE"), ("0101", "SW")] {
        assert_eq!(eval(&format!("map.direction('0202', '{to}')")), dir, "0202 to {to}");
    }
    assert_eq!(eval("map.direction('0202', '0404')"), "nil");
    // clockwise from W
    assert_eq!(eval("table.concat(map.neighbours('0303'), ' ')"), "0302 0403 0404 0304 0204 0203");
    assert_eq!(eval("table.concat(map.neighbours('0101'), ' ')"), "0201 0202 0102");
    // 0101 (the bottom row, at the west end, shifted east): W, SE and SW are off the map
    assert_eq!(eval("table.concat(map.beyond_edge('0101', '0101'), ',')"), "1,1,1");
}

#[test]
fn a_map_numbered_by_rows_has_its_drawn_edges() {
    let mut s = rows_game();
    let mut eval = |e: &str| s.execute(&format!("= table.concat(map.area('{e}'), ' ')")).out.join("\n");
    // N: the highest printed row (rows_up), both NW and NE off; 0406 is not, its NW 0505 is there
    assert_eq!(eval("edge:N"), "0501 0502 0503 0504 0505");
    assert_eq!(eval("edge:S"), "0101 0102 0103 0104 0105 0106");
    // E and W: the ends of every row, with 0505 beside the hole at 0506
    assert_eq!(eval("edge:E"), "0106 0206 0306 0406 0505");
    assert_eq!(eval("edge:W"), "0101 0201 0301 0401 0501");
}

#[test]
fn show_names_the_hexsides_of_a_map_numbered_by_rows_as_drawn() {
    let mut s = rows_game();
    let out = s.execute("show 0303").out;
    for line in ["hexside W (to 0302): river", "hexside NW (to 0403): river", "hexside SW (to 0203): river"] {
        assert!(out.iter().any(|l| l == line), "{line}: {out:?}");
    }
    let out = s.execute("show 0104").out;
    assert!(out.iter().any(|l| l == "hexside E (to 0105): wall"), "{out:?}");
}

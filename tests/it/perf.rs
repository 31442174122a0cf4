//! Speed on a full-size map: a 60×40 map (2,400 hexes, rivers and roads) with 400 units,
//! played with the fixture's rules. Every REPL command must stay under 10 ms in a release
//! build; debug builds (plain `cargo test`) get a looser bound. Timings are printed
//! (`cargo test --release perf -- --nocapture`).
//! This is a smoke test; the measurement is `cargo bench` (docs/performance.md).

use std::fmt::Write as _;
use std::time::Instant;
use umpire::session::{Session, Status};

fn big_library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    super::saves::copy_dir(&super::fixtures().join("rulesets"), &lib.join("rulesets"));
    std::fs::create_dir_all(lib.join("scenarios/fixture")).unwrap();
    let base = std::fs::read_to_string(super::fixtures().join("scenarios/fixture/basic.toml")).unwrap();
    // keep the header, types and special units; replace the map and the order of battle
    let header = &base[..base.find("[map]").unwrap()];
    let mut s = String::from(header);
    s.push_str("[map]\nformat = \"CCRR\"\nshift = \"odd\"\ncols = [1, 60]\nrows = [1, 40]\nterrain = \"clear\"\n");
    s.push_str("[map.terrains]\nforest = [\"1005..1815\", \"3020..3530\"]\nswamp = [\"4001..4405\"]\ncity = [\"2020\", \"0605\"]\n");
    s.push_str("[map.hexsides]\nriver = [");
    for r in 1..=40 {
        // a river along column 30/31
        let _ = write!(s, "\"30{r:02}/31{r:02}\", ");
    }
    s.push_str("]\n[map.paths]\nroad = [[");
    for c in 1..=60 {
        let _ = write!(s, "\"{c:02}20\", ");
    }
    s.push_str("]]\n[map.places]\nBluetown = \"0101\"\nRedburg = \"0605\"\n");
    s.push_str("[map.areas]\nblue_supply = [\"0101..0140\"]\nred_supply = [\"6001..6040\"]\n");
    s.push_str(&base[base.find("[cups]").unwrap()..base.find("[[units]]").unwrap()]);
    let mut n = 0;
    for c in (2..=58).step_by(2) {
        for r in (2..=39).step_by(2) {
            if n >= 400 {
                break;
            }
            let side = if c < 30 { "Blue" } else { "Red" };
            let _ = write!(s, "[[units]]\nid = \"U{n}\"\nside = \"{side}\"\ntype = \"inf\"\nat = \"{c:02}{r:02}\"\n\n");
            n += 1;
        }
    }
    s.push_str("[[units]]\nid = \"BA\"\nside = \"Blue\"\ntype = \"armor\"\nat = \"0101\"\n\n");
    s.push_str("[[units]]\nid = \"BR\"\nside = \"Blue\"\ntype = \"inf\"\nat = \"reinforcements\"\nattrs = { arrives = 2, entry = \"blue_supply\" }\n");
    std::fs::write(lib.join("scenarios/fixture/big.toml"), s).unwrap();
    dir
}

fn timed(s: &mut Session, line: &str) -> f64 {
    let t = Instant::now();
    let r = s.execute(line);
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    assert!(!matches!(r.status, Status::Error(_)), "{line}: {r:?}");
    ms
}

#[test]
fn commands_on_a_full_map_are_fast() {
    let lib = big_library();
    let mut s = Session::with_root(lib.path());
    s.scratch = Some(lib.path().to_path_buf());
    let r = s.execute("new fixture/big --seed 1");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    s.execute("auto");
    assert!(s.game.as_ref().unwrap().state().units.len() >= 400);
    let limit = if cfg!(debug_assertions) { 150.0 } else { 10.0 };
    let mut report = Vec::new();
    // (command, is it undone after each timing run?)
    for (line, changes) in [
        ("move U0 0204", true),
        ("move BA 0104", true),
        ("= #map.hexes()", false),
        (
            "= (function() local c = map.reach(require('main').profile('Blue', '0101', 12)) local n = 0 for _ in pairs(c) do n = n + 1 end return n end)()",
            false,
        ),
        ("lua require('main').supply('Blue')", true),
        ("lua require('main').supply('Red')", true),
        ("show U5", false),
        ("units Red", false),
        ("hash", false),
        ("next", true),
        ("undo", false),
        ("save @/big.sav", false),
    ] {
        // best of three, so one scheduling hiccup does not fail the test
        let mut best = f64::MAX;
        for _ in 0..3 {
            if line == "undo" {
                s.execute("move U0 0204");
            }
            let ms = timed(&mut s, line);
            best = best.min(ms);
            if changes {
                s.execute("undo");
            }
        }
        report.push(format!("{best:8.2} ms  {line}"));
        assert!(best < limit, "{line} took {best:.2} ms (limit {limit} ms)");
    }
    println!("{}", report.join("\n"));
}

//! Work on a full-size map: a 60×40 map (2,400 hexes, rivers and roads) with 400 units, played
//! with the fixture's rules. Each REPL command's work — the Lua instructions and the charges of
//! the searches and conversions its budget counts, the same on every machine — stays under a
//! bound, so a change that makes a command do much more work fails here whatever the machine's
//! speed. The work is printed (`cargo test perf -- --nocapture`); the time of each command is
//! measured by `cargo bench --bench latency` (docs/performance.md), never by a test.

use std::fmt::Write as _;
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

/// The work of one command (it must not fail).
fn work(s: &mut Session, line: &str) -> u64 {
    let r = s.execute(line);
    assert!(!matches!(r.status, Status::Error(_)), "{line}: {r:?}");
    s.work_of_last_command().expect("a game")
}

/// The most work one command may do on this map: ten times what the costliest of these commands
/// (a supply trace over the map, about 194,000) does today, a hundredth of a command's budget.
const MAX_WORK: u64 = 2_000_000;

#[test]
fn commands_on_a_full_map_do_bounded_work() {
    let lib = big_library();
    let mut s = Session::with_root(lib.path());
    s.scratch = Some(lib.path().to_path_buf());
    let r = s.execute("new fixture/big --seed 1");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    s.execute("auto");
    assert!(s.game.as_ref().unwrap().state().units.len() >= 400);
    let mut report = Vec::new();
    // (command, is it undone afterwards?)
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
        ("move U0 0204", false),
        ("undo", false),
        ("save @/big.sav", false),
    ] {
        let w = work(&mut s, line);
        if changes {
            s.execute("undo");
        }
        report.push(format!("{w:>12}  {line}"));
        assert!(w < MAX_WORK, "{line} did {w} units of work (at most {MAX_WORK})");
    }
    // the searches are counted: a reach over the whole map does measurable work
    let reach = work(&mut s, "= #map.hexes()");
    let whole = work(
        &mut s,
        "= (function() local c = map.reach(require('main').profile('Blue', '0101', 60)) local n = 0 for _ in pairs(c) do n = n + 1 end return n end)()",
    );
    assert!(whole > reach && whole > 100_000, "a reach over the map counted {whole} (hexes listed: {reach})");
    println!("{}", report.join("\n"));
}

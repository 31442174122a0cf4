//! The registrations that help a player find things (`umpire.unit_filter`, `status`, `table`,
//! `unfinished`, `complete`), on a tiny game: what the views print, how they fail, and that
//! they are looked at, never changed, during play.

use super::sandbox::{mini_library, mini_session};
use umpire::lua::Limits;
use umpire::session::Status;

const SCENARIO: &str = r#"[scenario]
name = "Mini"
ruleset = "mini"
sides = ["A", "B"]

[map]
cols = [1, 2]
rows = [1, 2]

[types.inf]
kind = "infantry"
steps = [ { attack = 4, defense = 4, move = 4 } ]

[[units]]
id = "A1"
name = "A one"
side = "A"
type = "inf"
at = "0101"
attrs = { corps = "north" }

[[units]]
id = "A2"
name = "A two"
side = "A"
type = "inf"
at = "0102"
attrs = { corps = "south" }

[[units]]
id = "B1"
name = "B one"
side = "B"
type = "inf"
at = "0202"
"#;

const MAIN_LUA: &str = r#"
umpire.unit_filter { name = "fresh", help = "has not moved (M1)", test = function(u) return not u:marker("moved") end }
umpire.status(function() return { "moved so far [M1]: " .. (vars.get("moved") or 0) } end)
umpire.table { name = "crt", title = "Combat", rule = "M8", columns = { "die", "1:1", "2:1" },
  rows = { { 1, "A1", "D1" }, { 2, "-", "D2r1" } }, notes = { "a note" } }
umpire.table { name = "track", rows = function() return { { "turn", umpire.clock().turn } } end }
umpire.unfinished(function()
  if not units.get("A1"):marker("moved") then return { "A1 has not moved [M1]" } end
end)
umpire.command { usage = "step <unit>", run = function(u) u:set_marker("moved", 1) vars.set("moved", (vars.get("moved") or 0) + 1) end,
  complete = function(index, words) if index == 1 then return { "A1", "A2" } end end }
umpire.command { usage = "hit <hex> with <units>", odds = true, run = function() end }
umpire.command { usage = "go <unit> <hex>", run = function() end }
umpire.complete("hit", function(index, words)
  if index == 1 then return { "0202" } elseif index == 3 then return { words[1] == "0202" and "A1" or "A2" } end
end)
umpire.sequence { turns = 3, steps = { { id = "play", name = "Play", side = "A" } } }
"#;

fn game(main: &str) -> (tempfile::TempDir, umpire::Session, umpire::Reply) {
    let lib = mini_library(&[("main.lua", main)]);
    std::fs::write(lib.path().join("scenarios/mini/basic.toml"), SCENARIO).unwrap();
    let mut s = mini_session(lib.path(), Limits::default());
    let r = s.execute("new mini --seed 1");
    (lib, s, r)
}

fn out(s: &mut umpire::Session, line: &str) -> String {
    let r = s.execute(line);
    assert!(matches!(r.status, Status::Ok), "{line}: {r:?}");
    r.out.join("\n")
}

#[test]
fn units_filters_combine_with_the_rules_states_and_say_which_emptied_the_list() {
    let (_lib, mut s, r) = game(MAIN_LUA);
    assert_eq!(r.status, Status::Ok, "{r:?}");
    let all = out(&mut s, "units A fresh");
    assert!(all.contains("A1") && all.contains("A2") && !all.contains("B1"), "{all}");
    assert!(out(&mut s, "units corps=north").contains("A1"));
    assert!(!out(&mut s, "units corps=north").contains("A2"));
    assert!(out(&mut s, "units 0102").contains("A2"));
    let hash = s.hash();
    out(&mut s, "step A1");
    assert_ne!(s.hash(), hash);
    let hash = s.hash();
    let fresh = out(&mut s, "units A fresh");
    assert!(!fresh.contains("A1") && fresh.contains("A2"), "{fresh}");
    assert!(out(&mut s, "units marker=moved").contains("A1"));
    assert_eq!(
        out(&mut s, "units corps=north fresh"),
        "no unit matches all of `corps=north fresh`: corps=north keeps 1 unit, then fresh keeps none"
    );
    let help = out(&mut s, "units --help");
    assert!(help.contains("fresh") && help.contains("has not moved (M1)"), "{help}");
    assert!(out(&mut s, "help units").contains("has not moved (M1)"));
    // looking changed nothing
    assert_eq!(s.hash(), hash);
}

#[test]
fn status_tables_completion_and_unfinished_come_from_the_rules() {
    let (_lib, mut s, r) = game(MAIN_LUA);
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(out(&mut s, "status").ends_with("moved so far [M1]: 0"));
    assert_eq!(
        out(&mut s, "table cr"),
        "Combat [M8]\n  die  1:1  2:1\n  --------------\n  1    A1   D1\n  2    -    D2r1\n  a note"
    );
    assert_eq!(out(&mut s, "table track"), "track\n  turn  1");
    assert!(out(&mut s, "table").contains("crt          Combat [M8]"));
    let r = s.execute("table zzz");
    assert_eq!(r.error().map(|e| e.kind()), Some("not-found"), "{r:?}");
    // Tab: the verb's completer, then umpire.complete, with the words before the argument
    assert_eq!(s.candidates("step "), Some(vec!["A1".to_string(), "A2".to_string()]));
    assert_eq!(s.candidates("step A1 "), None);
    assert_eq!(s.candidates("hit 0"), Some(vec!["0202".to_string()]));
    assert_eq!(s.candidates("hit 0202 with "), Some(vec!["A1".to_string()]));
    assert_eq!(s.candidates("status "), None);
    // `odds` completes as the combat verb it evaluates, named or not
    assert_eq!(s.candidates("odds 0"), Some(vec!["0202".to_string()]));
    assert_eq!(s.candidates("odds 0202 with "), Some(vec!["A1".to_string()]));
    assert_eq!(s.candidates("odds hit 0202 with "), Some(vec!["A1".to_string()]));
    // without a completer, what the usage line asks for there: a hex, not a unit
    let hexes = s.candidates("go A1 ").expect("hexes after go <unit>");
    assert!(hexes.contains(&"0202".to_string()) && !hexes.contains(&"A1".to_string()), "{hexes:?}");
    assert!(s.candidates("go ").expect("units after go").contains(&"A1".to_string()));
    assert_eq!(s.candidates("go A1 0202 "), None);
    // what is left undone, until it is done
    assert_eq!(s.unfinished(), ["A1 has not moved [M1]"]);
    out(&mut s, "step A1");
    assert!(s.unfinished().is_empty());
}

#[test]
fn registrations_are_checked_and_only_while_the_rules_load() {
    for (main, message) in [
        (
            "umpire.unit_filter { name = 'x', test = function() end }\numpire.unit_filter { name = 'x', test = function() end }",
            "umpire.unit_filter: 'x' is registered twice",
        ),
        ("umpire.unit_filter { name = 'two words', test = function() end }", "must be one word"),
        ("umpire.unit_filter { name = 'x' }", "umpire.unit_filter 'x': `test` (function) is required"),
        ("umpire.table { name = 't', rows = 5 }", "`rows` must be a list of rows or a function"),
        ("umpire.status(5)", "umpire.status: expects a function, not integer"),
    ] {
        let (_lib, _s, r) =
            game(&format!("{main}\numpire.sequence {{ turns = 1, steps = {{ {{ id = 'p', name = 'P' }} }} }}"));
        let e = r.error().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(message), "{main}: {e}");
    }
    let (_lib, mut s, _) = game(MAIN_LUA);
    let r = s.execute("lua umpire.table { name = 'late', rows = {} }");
    let e = r.error().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("umpire.table may only be called while the rule files load"), "{e}");
}

#[test]
fn tab_after_a_stargard_move_offers_the_hexes_the_unit_can_reach() {
    let mut s = umpire::Session::with_root(super::repo());
    for c in ["new stargard-solstice --seed 7", "forward", "dice 5", "forward step movement"] {
        assert_eq!(s.execute(c).status, Status::Ok, "{c}");
    }
    let reach = s.candidates("move HvS/11SS ").expect("the hexes HvS/11SS can reach");
    assert!(reach.contains(&"24.11".to_string()) && reach.contains(&"24.12".to_string()), "{reach:?}");
    // not its own hex, not an enemy-held hex, no unit ids
    assert!(!reach.iter().any(|h| h == "25.12" || h == "24.10" || h.contains('/')), "{reach:?}");
    // a unit typed by a prefix, the first of a list
    assert_eq!(s.candidates("move HvS,11A/11SS "), Some(reach));
}

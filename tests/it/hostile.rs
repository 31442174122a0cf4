//! Hostile and careless input against the transactions (issue 8): one budget per typed
//! command, `forward` all or nothing, the bounded undo history.

use super::sandbox::{mini_library, mini_session};
use umpire::Status;
use umpire::lua::Limits;

/// A ruleset whose verb and turns each do a fixed amount of Lua work.
const BUSY: &str = r#"local function work(n) local x = 0 for i = 1, n do x = x + i % 7 end return x end
umpire.command { usage = "spin", odds = true, run = function()
  work(100000)
  local total = dice.roll("2d6", "spin")
  return "r" .. total
end }
umpire.sequence { turns = 1000, turn_start = function() work(100000) end,
  steps = { { id = "play", name = "Play" } } }
"#;

fn busy_game(instructions: u64) -> (tempfile::TempDir, umpire::Session) {
    let lib = mini_library(&[("main.lua", BUSY)]);
    let mut s = mini_session(lib.path(), Limits { instructions, ..Limits::default() });
    let r = s.execute("new mini --seed 1");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    (lib, s)
}

fn error_text(r: &umpire::Reply) -> String {
    r.error().map(|e| e.to_string()).unwrap_or_else(|| panic!("expected an error: {r:?}"))
}

#[test]
fn one_typed_command_has_one_budget_whatever_it_runs() {
    // each run of `spin` fits the budget, all 36 runs of `odds spin` do not
    let (_lib, mut s) = busy_game(3_000_000);
    assert_eq!(s.execute("spin").status, Status::Ok);
    let before = s.hash();
    let e = error_text(&s.execute("odds spin"));
    assert!(e.contains("instruction limit exceeded (3000000"), "{e}");
    assert_eq!(s.hash(), before);
    // with room for all of them, odds enumerates the 11 totals of 2d6
    let (_lib, mut s) = busy_game(200_000_000);
    let r = s.execute("odds spin");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out.iter().any(|l| l.contains("r12")), "{:?}", r.out);
}

#[test]
fn forward_is_stopped_by_one_budget_and_takes_back_all_it_did() {
    let (_lib, mut s) = busy_game(3_000_000);
    // one turn at a time fits
    for _ in 0..3 {
        assert_eq!(s.execute("next").status, Status::Ok);
    }
    let before = s.hash();
    let history = s.game.as_ref().unwrap().history.len();
    let e = error_text(&s.execute("forward end"));
    assert!(e.contains("instruction limit exceeded (3000000"), "{e}");
    assert!(e.contains("were taken back: the game is as before `forward`"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(s.game.as_ref().unwrap().history.len(), history);
    assert_eq!(s.execute("next").status, Status::Ok);
}

#[test]
fn the_undo_history_is_bounded_and_says_so() {
    let lib = mini_library(&[(
        "main.lua",
        "umpire.sequence { turns = 3, steps = { { id = \"play\", name = \"Play\" } } }\n",
    )]);
    let mut s = mini_session(lib.path(), Limits::default());
    assert_eq!(s.execute("new mini --seed 1").status, Status::Ok);
    for i in 0..1_005 {
        assert_eq!(s.execute(&format!("lua vars.set('n', {i})")).status, Status::Ok);
    }
    // the save replays the whole game, older commands included
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.ump");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let mut t = mini_session(lib.path(), Limits::default());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out.iter().any(|l| l.contains("1005 commands replayed")), "{:?}", r.out);
    assert_eq!(t.hash(), s.hash());
    let before = s.hash();
    let e = error_text(&s.execute("undo 1001"));
    assert!(e.contains("undo reaches back 1000 commands at most"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(s.execute("undo 1000").status, Status::Ok);
    let r = s.execute("= vars.get('n')");
    assert_eq!(r.out.last().map(String::as_str), Some("4"), "{r:?}");
}

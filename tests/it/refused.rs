//! The refused-commands property (issue 8): seeded campaigns of every shipped game and of the
//! fixture, with bad commands of every category mixed into plausible play. After every
//! command that fails, the state hash, the history and the pending decision are as before it.
//! A longer run: `UMPIRE_REFUSED_COMMANDS=20000 cargo test --release refused` (commands per
//! campaign; default 250).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use umpire::{Session, Status};

/// Bad commands of every category: unknown commands and units and hexes, wrong arguments,
/// wrong phase, rule errors after a change, refusals, files that cannot be read or written.
const BAD: &[&str] = &[
    "fly 0101",
    "move",
    "move , 0101",
    "move NOSUCH 0101",
    "move {unit} 9999",
    "move {unit} nowhere-at-all",
    "attack {hex} with ,,",
    "attack {hex}",
    "odds",
    "odds {hex}",
    "undo 0",
    "undo x",
    "undo -1",
    "undo 1 2",
    "redo",
    "choose",
    "choose ???",
    "cancel",
    "dice 0",
    "dice -3",
    "roll 0d6",
    "roll 1d0",
    "seed x",
    "forward turn x",
    "forward step nosuch",
    // extra words are refused, not ignored (`next` would end the segment, `auto` answer)
    "next foo bar",
    "auto now",
    "lua vars.set('junk', 1) error('boom')",
    "lua vars.set('junk', 2) umpire.refuse('X1', 'refused after a change')",
    "lua units.get('{unit}'):set_marker('junk', 1) error('late')",
    "lua (",
    "lua --[[",
    "lua local t = {} t[t] = t vars.set('cycle', t)",
    "lua vars.set('f', function() end)",
    "lua string.dump(print)",
    "lua os.exit(1)",
    "lua require('../../etc/passwd')",
    "lua map.extra = 1",
    "lua rawset(string, 'upper', 1)",
    "lua getmetatable('').__index = {}",
    "lua dice.roll('1d6', 'peek') error('after a roll')",
    "load /nonexistent/file.ump",
    "load /dev/null",
    "save /nonexistent/folder/x.ump",
    "show NOSUCH",
    "new nosuch-game",
];

fn fill(cmd: &str, s: &Session, rng: &mut ChaCha8Rng) -> String {
    let g = s.game.as_ref().expect("a game");
    let st = g.state();
    let ids: Vec<&str> = st.units.keys().collect();
    let unit = ids[rng.random_range(0..ids.len())].to_string();
    let hexes: Vec<_> = g.scenario.map.hexes.keys().copied().collect();
    let hex = g.scenario.map.fmt(hexes[rng.random_range(0..hexes.len())]);
    cmd.replace("{unit}", &unit).replace("{hex}", &hex)
}

/// Plausible play: mostly `next` and answers, moves and attacks by units of the game to hexes
/// of the map (most of them refused by the rules, which is the point).
fn play_command(s: &Session, rng: &mut ChaCha8Rng) -> String {
    let g = s.game.as_ref().expect("a game");
    if let Some(p) = &g.pending {
        let q = &p.question;
        return match rng.random_range(0..4) {
            0 if !q.options.is_empty() => format!("choose {}", q.options[rng.random_range(0..q.options.len())]),
            1 => "choose zzz".into(),
            2 => "undo".into(),
            _ => "auto".into(),
        };
    }
    let verbs = g.verbs();
    match rng.random_range(0..10) {
        0..=2 => "next".into(),
        3..=5 if verbs.contains_key("move") => fill("move {unit} {hex}", s, rng),
        6 if verbs.contains_key("attack") => fill("attack {hex} with {unit}", s, rng),
        7 => "undo".into(),
        8 => fill("show {unit}", s, rng),
        _ => "status".into(),
    }
}

fn campaign(library: &std::path::Path, scenario: &str, seed: u64, commands: usize) -> (usize, usize) {
    let mut s = Session::with_root(library);
    let r = s.execute(&format!("new {scenario} --seed {seed}"));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lines = vec![format!("new {scenario} --seed {seed}")];
    let mut failed = 0;
    for _ in 0..commands {
        if s.game.as_ref().is_some_and(|g| g.state().clock.over.is_some()) {
            break;
        }
        let cmd = if rng.random_range(0..3) == 0 {
            fill(BAD[rng.random_range(0..BAD.len())], &s, &mut rng)
        } else {
            play_command(&s, &mut rng)
        };
        let before = s.hash();
        let history = s.game.as_ref().map(|g| (g.history.len(), g.pending.as_ref().map(|p| p.question.prompt.clone())));
        let r = s.execute(&cmd);
        lines.push(cmd.clone());
        if let Status::Error(e) = &r.status {
            failed += 1;
            let after = s.hash();
            let now = s.game.as_ref().map(|g| (g.history.len(), g.pending.as_ref().map(|p| p.question.prompt.clone())));
            assert!(
                before == after && history == now,
                "{scenario} seed {seed}: `{cmd}` failed ({e}) but changed the game:\nhash {before:?} -> {after:?}, history/pending {history:?} -> {now:?}\nthe commands:\n{}",
                lines.join("\n")
            );
        }
    }
    (lines.len() - 1, failed)
}

fn budget() -> usize {
    std::env::var("UMPIRE_REFUSED_COMMANDS").ok().and_then(|v| v.parse().ok()).unwrap_or(250)
}

/// Plays the campaigns of `seeds` and checks that enough commands were refused to test anything.
fn campaigns(library: &std::path::Path, scenario: &str, seeds: std::ops::RangeInclusive<u64>) {
    let (mut ran, mut failed) = (0, 0);
    for seed in seeds {
        let (n, f) = campaign(library, scenario, seed, budget());
        ran += n;
        failed += f;
    }
    eprintln!("{scenario}: {ran} commands, {failed} failed");
    assert!(failed * 4 > ran, "too few refusals to test anything: {failed} of {ran}");
}

#[test]
fn a_refused_command_never_changes_the_fixture_game() {
    campaigns(&super::fixtures(), "fixture", 1..=8);
}

#[test]
fn slow_a_refused_command_never_changes_a_stargard_game() {
    campaigns(&super::repo(), "stargard-solstice", 1..=3);
}

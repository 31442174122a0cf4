//! The contract of `umpire.actions` (docs/lua-api.md §2.6): every command a ruleset lists as
//! legal now is accepted when executed. From many seeds, games are played by picking listed
//! commands; at every state a sample of the listed commands is executed, each then taken back
//! (the state hash must come back), and a listed command is played to go on. A state where the
//! game is not over and nothing is listed is a dead end: it fails too.

use umpire::contract::{Action, ActionFilter};
use umpire::{Session, Status};

/// A small deterministic generator (the test's own choices; the game's dice are its own).
struct Pick(u64);
impl Pick {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn listed(s: &Session) -> Vec<Action> {
    let g = s.game.as_ref().expect("a game");
    g.actions(&ActionFilter::default()).expect("the actions are listed").expect("the ruleset lists its actions")
}

fn over(s: &Session) -> bool {
    s.game.as_ref().is_some_and(|g| g.state().clock.over.is_some())
}

/// Executes `cmd`, which must be accepted, then takes it back; the hash must be as before.
fn try_and_take_back(s: &mut Session, cmd: &str, at: &str) {
    let before = s.hash();
    let r = s.execute(cmd);
    assert!(matches!(r.status, Status::Ok), "{at}: the listed `{cmd}` was refused: {r:?}");
    let pending = s.game.as_ref().is_some_and(|g| g.pending.is_some());
    // (the designer's free undo: the dice are taken back too, so the state is as before)
    let back = if pending { "cancel" } else { "undo" };
    let r = s.execute(back);
    assert!(matches!(r.status, Status::Ok), "{at}: `{back}` after `{cmd}`: {r:?}");
    assert_eq!(s.hash(), before, "{at}: `{cmd}` then `{back}` did not bring the state back");
}

/// Plays `steps` listed commands of a game from `seed`, checking up to `sample` listed
/// commands at every state.
fn play(root: &std::path::Path, new: &str, seed: u64, steps: usize, sample: usize) {
    let mut s = Session::with_root(root);
    s.free_undo = true;
    let r = s.execute(&format!("{new} --seed {seed}"));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    let mut pick = Pick(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for step in 0..steps {
        if over(&s) {
            return;
        }
        let list = listed(&s);
        let at = format!("{new} --seed {seed}, step {step}");
        assert!(!list.is_empty(), "{at}: a dead end: the game is not over and nothing is listed");
        // (an answer cannot be taken back alone: the answer played below is checked instead)
        if list.iter().all(|a| a.group != "answer") {
            for _ in 0..sample.min(list.len()) {
                let a = &list[pick.next(list.len())];
                try_and_take_back(&mut s, &a.cmd, &at);
            }
        }
        // go on: `next` now and then, otherwise any listed command
        let go = match list.iter().find(|a| a.cmd == "next") {
            Some(n) if pick.next(4) == 0 => n.cmd.clone(),
            _ => list[pick.next(list.len())].cmd.clone(),
        };
        let r = s.execute(&go);
        assert!(matches!(r.status, Status::Ok), "{at}: the listed `{go}` was refused: {r:?}");
    }
}

#[test]
fn every_listed_action_of_the_fixture_is_accepted() {
    for seed in 1..=8 {
        play(&super::fixtures(), "new fixture", seed, 60, 6);
        play(&super::fixtures(), "new fixture --option duels", seed, 30, 6);
    }
}

#[test]
fn a_ruleset_without_a_list_says_so() {
    let mut s = Session::with_root(super::fixtures());
    assert_eq!(s.execute("new seqtest").status, Status::Ok);
    let r = s.execute("actions");
    match r.status {
        Status::Error(e) => assert!(e.to_string().contains("does not list what may be done"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// A game of the library played from several seeds by its listed commands.
fn game(name: &str, seeds: std::ops::RangeInclusive<u64>, steps: usize, sample: usize) {
    let mut s = Session::with_root(super::repo());
    assert_eq!(s.execute(&format!("new {name} --seed 1")).status, Status::Ok);
    assert!(s.game.as_ref().unwrap().lists_actions().unwrap(), "{name}: its rules register umpire.actions");
    for seed in seeds {
        play(&super::repo(), &format!("new {name}"), seed, steps, sample);
    }
}

#[test]
fn slow_every_listed_action_of_stargard_solstice_is_accepted() {
    game("stargard-solstice", 1..=4, 80, 4);
}

#[test]
fn slow_every_listed_action_of_fortress_stalingrad_is_accepted() {
    game("fortress-stalingrad", 1..=4, 80, 4);
}

#[test]
fn slow_every_listed_action_of_red_storm_over_the_reich_is_accepted() {
    game("red-storm-over-the-reich", 1..=4, 80, 4);
}

#[test]
fn slow_every_listed_action_of_the_red_storm_set_ups_is_accepted() {
    // Sleigh Ride and Guderian begin with the German set-up decisions (3.3.A, 3.4.A): listed, and
    // `next` only once they are made
    game("red-storm-over-the-reich/sleigh-ride", 1..=2, 40, 4);
    game("red-storm-over-the-reich/guderian", 1..=2, 80, 2);
}

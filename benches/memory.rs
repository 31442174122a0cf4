//! `cargo bench --bench memory`: the memory a whole game holds, for every shipped scenario
//! (scenarios/<game>/*.toml). A counting allocator reports the live heap after:
//! - `forward end`: the game played to its end with every decision left to its default;
//! - a busy game: at every place the players act, 100 state-changing commands (a unit moved,
//!   a var set: each one an undoable command with its snapshot), until the game ends — about
//!   twenty thousand commands, far more than two players type in a whole game;
//! - a game played by each bot (`random`, `greedy`: src/playout), seed 1, as `playout` plays it
//!   (`UMPIRE_MEMORY_ONLY=<substring>` some scenarios only).
//!
//! The undo history keeps the states of the last 1,000 commands (game::history::UNDO_DEPTH).
//! Fails if a game holds 50 MB or more, or if the process's peak resident set (Linux: VmHWM,
//! all the games one after another) reaches 50 MB. See docs/performance.md.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use umpire::{Session, Status};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator, only counting the bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const LIMIT: usize = 50 << 20;

fn mb(b: usize) -> String {
    format!("{:.1} MB", b as f64 / (1 << 20) as f64)
}

fn run(s: &mut Session, line: &str) {
    let r = s.execute(line);
    assert!(!matches!(r.status, Status::Error(_)), "{line}: {r:?}");
}

fn over(s: &Session) -> bool {
    s.game.as_ref().is_some_and(|g| g.state().clock.over.is_some())
}

/// The first command the rules list other than `next`: played where `forward` cannot go on (a
/// decision with no default it may take, such as Sleigh Ride's flips before its set-up ends).
fn first_listed(s: &Session, scenario: &str) -> String {
    let g = s.game.as_ref().expect("a game");
    g.actions(&umpire::contract::ActionFilter { unit: None, hex: None })
        .ok()
        .flatten()
        .and_then(|l| l.into_iter().find(|a| a.cmd != "next"))
        .map(|a| a.cmd)
        .unwrap_or_else(|| panic!("{scenario}: forward stopped and the rules list nothing to play"))
}

/// Plays `scenario` as `busy` says and returns (commands in history, live heap held by the
/// session, peak while playing).
fn play(scenario: &str, busy: bool) -> (usize, usize, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut s = Session::with_root(std::env::current_dir().unwrap());
    run(&mut s, &format!("new {scenario} --seed 1"));
    if busy {
        let mut i = 0u64;
        while !over(&s) {
            if s.execute("forward").status != Status::Ok {
                let cmd = first_listed(&s, scenario);
                run(&mut s, &cmd);
                continue;
            }
            if over(&s) {
                break;
            }
            for _ in 0..100 {
                i += 1;
                run(
                    &mut s,
                    &format!(
                        "lua local us = units.all() local u = us[{i} * 7 % #us + 1] if u.hex then u:move_to(u.hex) end vars.set('k', {i})"
                    ),
                );
            }
        }
    } else {
        // `forward end`; where a decision has no default that forward can take (Sleigh Ride's
        // set-up asks for flips first), the first command the rules list is played instead
        while !over(&s) {
            if s.execute("forward end").status == Status::Ok {
                continue;
            }
            let cmd = first_listed(&s, scenario);
            run(&mut s, &cmd);
        }
    }
    let commands = s.game.as_ref().map_or(0, |g| g.history.len());
    if let Some(g) = &s.game {
        g.host().collect_garbage().expect("a full collection");
    }
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(base);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    drop(s);
    (commands, held, peak)
}

/// A whole game of `scenario` by `policy` (seed 1): (commands, live heap after, peak while playing).
fn bot_game(scenario: &str, policy: umpire::playout::Policy) -> (usize, usize, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let spec = umpire::playout::Spec::new(std::env::current_dir().unwrap(), scenario);
    let r = umpire::playout::play(&spec, 1, policy, None);
    assert!(r.failure.is_none(), "{scenario} {policy}: {:?}", r.failure);
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(base);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    (r.commands, held, peak)
}

fn main() {
    let mut scenarios = Vec::new();
    for game in std::fs::read_dir("scenarios").expect("run from the repository root").flatten() {
        for f in std::fs::read_dir(game.path()).into_iter().flatten().flatten() {
            let p = f.path();
            if p.extension().is_some_and(|x| x == "toml") {
                let g = game.file_name().to_string_lossy().to_string();
                scenarios.push(format!("{g}/{}", p.file_stem().unwrap().to_string_lossy()));
            }
        }
    }
    scenarios.sort();
    if let Ok(only) = std::env::var("UMPIRE_MEMORY_ONLY") {
        scenarios.retain(|s| s.contains(only.as_str()));
    }
    println!("{:<36} {:<12} {:>9} {:>10} {:>10}", "scenario", "play", "commands", "held", "peak");
    let mut worst = 0;
    for sc in &scenarios {
        for busy in [false, true] {
            let (n, held, peak) = play(sc, busy);
            let how = if busy { "busy" } else { "forward end" };
            println!("{sc:<36} {how:<12} {n:>9} {:>10} {:>10}", mb(held), mb(peak));
            worst = worst.max(held).max(peak);
        }
        for policy in [umpire::playout::Policy::Random, umpire::playout::Policy::Greedy] {
            let (n, held, peak) = bot_game(sc, policy);
            println!("{sc:<36} {:<12} {n:>9} {:>10} {:>10}", format!("{policy} bot"), mb(held), mb(peak));
            worst = worst.max(held).max(peak);
        }
    }
    assert!(worst < LIMIT, "a game held {} (limit {})", mb(worst), mb(LIMIT));
    // the process's peak resident set (Linux), over all the games above one after another: the
    // program, the Lua states and what the allocator keeps, not only the live heap
    if let Some(kb) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse::<usize>().ok())
    {
        println!("peak resident set of the whole run: {}", mb(kb << 10));
        assert!(kb << 10 < LIMIT, "the run's peak resident set was {} (limit {})", mb(kb << 10), mb(LIMIT));
    }
}

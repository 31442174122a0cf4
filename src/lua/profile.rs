//! A sampling profile of rule code for designers (`umpire run --profile`): where the Lua
//! instructions of the rules go, and roughly where the time goes, by rule function and line.
//!
//! The instruction-budget hook (every 1,000 Lua instructions, [`super::Host`]) records a sample
//! when profiling is on for the thread: the function and line running, 1,000 instructions, and
//! the time since the previous sample of the same command. Instruction counts are exact to the
//! sample and the same on every machine; the time spent in the kernel's functions (a movement
//! search, a table of units) between two samples counts to the line that runs next, usually
//! the caller's. Off (the default), the hook does one thread-local read more.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::time::Instant;

#[derive(Default, Clone, Copy)]
pub struct Cost {
    pub samples: u64,
    pub nanos: u128,
}

#[derive(Default)]
struct Profile {
    /// by (chunk, line where the function is defined)
    functions: BTreeMap<(String, usize), Cost>,
    /// by (chunk, line running)
    lines: BTreeMap<(String, usize), Cost>,
    /// by (chunk, line where the function is defined), counting the functions it calls
    within: BTreeMap<(String, usize), Cost>,
    last: Option<Instant>,
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static PROFILE: RefCell<Profile> = RefCell::new(Profile::default());
}

/// Starts (and empties) the profile of this thread.
pub fn start() {
    ON.with(|o| o.set(true));
    PROFILE.with(|p| *p.borrow_mut() = Profile::default());
}

pub(super) fn on() -> bool {
    ON.with(|o| o.get())
}

/// One sample from the hook: `since` is when the command's rule code started; `stack` the rule
/// functions running, innermost first, as (chunk, line where defined), each counted once.
pub(super) fn sample(file: &str, defined: usize, line: usize, since: Option<Instant>, stack: &[(String, usize)]) {
    PROFILE.with(|p| {
        let p = &mut *p.borrow_mut();
        let now = Instant::now();
        let from = match (p.last, since) {
            (Some(l), Some(s)) => l.max(s),
            (l, s) => l.or(s).unwrap_or(now),
        };
        let nanos = now.saturating_duration_since(from).as_nanos();
        p.last = Some(now);
        for (map, key) in [(&mut p.functions, (file.to_string(), defined)), (&mut p.lines, (file.to_string(), line))] {
            let c = map.entry(key).or_default();
            c.samples += 1;
            c.nanos += nanos;
        }
        for (i, key) in stack.iter().enumerate() {
            if stack[..i].contains(key) {
                continue; // (recursion: once a sample)
            }
            let c = p.within.entry(key.clone()).or_default();
            c.samples += 1;
            c.nanos += nanos;
        }
    });
}

/// Stops profiling and returns the report: the `top` costliest functions and lines, by
/// instructions, with their share of the time.
pub fn report(top: usize, every: u64) -> String {
    ON.with(|o| o.set(false));
    PROFILE.with(|p| {
        let p = std::mem::take(&mut *p.borrow_mut());
        let total: u64 = p.functions.values().map(|c| c.samples).sum();
        let nanos: u128 = p.functions.values().map(|c| c.nanos).sum();
        let mut out = format!(
            "profile: {} Lua instructions of rule code sampled every {every}, {:.1} ms between samples\n",
            total * every,
            nanos as f64 / 1e6
        );
        if total == 0 {
            return out;
        }
        for (title, map, what) in [
            ("functions (where defined)", &p.functions, "function"),
            ("functions with the functions they call", &p.within, "function"),
            ("lines", &p.lines, "line"),
        ] {
            let mut v: Vec<(&(String, usize), &Cost)> = map.iter().collect();
            v.sort_by(|a, b| b.1.samples.cmp(&a.1.samples).then(a.0.cmp(b.0)));
            out.push_str(&format!("{:>7} {:>6} {:>9} {:>6}  {title}\n", "instr.", "%", "ms", "%"));
            for (k, c) in v.into_iter().take(top) {
                out.push_str(&format!(
                    "{:>6}k {:>5.1}% {:>9.2} {:>5.1}%  {what} {}:{}\n",
                    c.samples * every / 1000,
                    100.0 * c.samples as f64 / total as f64,
                    c.nanos as f64 / 1e6,
                    if nanos > 0 { 100.0 * c.nanos as f64 / nanos as f64 } else { 0.0 },
                    k.0,
                    k.1
                ));
            }
        }
        out
    })
}

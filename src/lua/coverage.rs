//! Line coverage of rule code (`umpire mutate`): which lines of which rule files ran.
//!
//! Off by default. [`start`] switches it on for the thread *before* a game's host is made: a
//! host made then also hooks every line ([`super::Host`]'s hook), and each line event records
//! its chunk (the rule file's path as messages show it) and line. The instruction budget is
//! counted as without coverage, so a game runs the same either way.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static LINES: RefCell<BTreeMap<String, BTreeSet<usize>>> = const { RefCell::new(BTreeMap::new()) };
    static EVENTS: Cell<u64> = const { Cell::new(0) };
    static PEAK: Cell<u64> = const { Cell::new(0) };
}

/// Starts (and empties) the coverage of this thread.
pub fn start() {
    ON.with(|o| o.set(true));
    LINES.with(|l| l.borrow_mut().clear());
    EVENTS.with(|e| e.set(0));
    PEAK.with(|p| p.set(0));
}

/// The instruction budget a command has used so far (the budget hook, while recording).
pub(super) fn budget(used: u64) {
    PEAK.with(|p| p.set(p.get().max(used)));
}

/// Whether hosts made now on this thread record their lines.
pub(super) fn on() -> bool {
    ON.with(|o| o.get())
}

/// One line event: `source` is the chunk's source (`@path`).
pub(super) fn line(source: &[u8], line: usize) {
    let Some(path) = source.strip_prefix(b"@") else { return };
    EVENTS.with(|e| e.set(e.get() + 1));
    LINES.with(|l| {
        let mut l = l.borrow_mut();
        let path = String::from_utf8_lossy(path);
        match l.get_mut(path.as_ref()) {
            Some(set) => {
                set.insert(line);
            }
            None => {
                l.insert(path.into_owned(), BTreeSet::from([line]));
            }
        }
    });
}

/// What ran since [`start`]
pub struct Coverage {
    /// The lines that ran, by chunk.
    pub lines: BTreeMap<String, BTreeSet<usize>>,
    /// Line events in all (a measure of the work done, the same on every machine).
    pub events: u64,
    /// The most instructions of the budget one command used.
    pub peak: u64,
}

/// Stops recording on this thread and returns what ran.
pub fn stop() -> Coverage {
    ON.with(|o| o.set(false));
    Coverage {
        lines: LINES.with(|l| std::mem::take(&mut *l.borrow_mut())),
        events: EVENTS.with(|e| e.replace(0)),
        peak: PEAK.with(|p| p.replace(0)),
    }
}

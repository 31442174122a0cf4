//! The limits of rule code: the instruction budget of a command (and its scopes), the memory
//! and wall-clock limits, the player's Ctrl-C; and the timer of a command's parts.

use std::cell::Cell;
use std::rc::Rc;

/// Set by the front end when the player presses Ctrl-C while a command runs: the instruction
/// hook stops the rule code at its next count, and the command fails, taken back as any failed
/// command is. Cleared before each command.
pub(super) static INTERRUPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks the running rule code to stop (Ctrl-C); safe from a signal handler's thread.
pub fn interrupt() {
    INTERRUPT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Forgets an interrupt asked before the next command.
pub fn clear_interrupt() {
    INTERRUPT.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// Whether an interrupt was asked (`forward` stops between its commands).
pub fn interrupted() -> bool {
    INTERRUPT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Resource limits for rule code.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Lua VM instructions per command (one resume); searches are charged too.
    pub instructions: u64,
    /// Bytes of Lua memory.
    pub memory: usize,
    /// Wall-clock seconds per command: a last resort for time spent outside the VM (C
    /// functions), far above what `instructions` takes on a slow machine, so that it never
    /// decides a command the budget would have decided. Off while a save replays.
    pub seconds: f64,
}

/// The instruction budget of the running command, shared with API functions that do work
/// outside the VM (searches charge for the hexes they visit).
pub struct Budget {
    pub used: Rc<Cell<u64>>,
    pub limit: u64,
}

impl Budget {
    /// Charges `n` instructions; errors when the budget is spent.
    pub fn charge(&self, n: u64, what: &str) -> mlua::Result<()> {
        let used = self.used.get() + n;
        self.used.set(used);
        if used > self.limit {
            return Err(mlua::Error::runtime(format!(
                "instruction limit exceeded ({} in one command, {what} included): a runaway loop?",
                self.limit
            )));
        }
        Ok(())
    }
}

/// What the layer above hands the host: the resource limits, and the names its own commands
/// take (which a ruleset may not register as verbs).
#[derive(Clone, Copy, Debug)]
pub struct HostConfig {
    pub limits: Limits,
    pub reserved: fn(&str) -> bool,
    /// Whether the wall-clock backstop applies (off while a save replays: see
    /// [`Host::set_backstop`]).
    pub backstop: bool,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig { limits: Limits::default(), reserved: |_| false, backstop: true }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits { instructions: 200_000_000, memory: 64 << 20, seconds: 60.0 }
    }
}

/// One typed command: while it lives, every rule call the command makes (each run of an
/// `odds` enumeration, each `next` of `forward`, each answer) draws on one instruction budget
/// and one wall-clock backstop ([`Host::command_scope`]).
pub struct CommandScope(pub(super) Rc<Cell<u32>>);

impl Drop for CommandScope {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

/// The guard of [`Host::own_budget`].
pub struct OwnBudget {
    pub(super) cell: Rc<Cell<u64>>,
    pub(super) used: u64,
}

impl Drop for OwnBudget {
    fn drop(&mut self) {
        self.cell.set(self.used);
    }
}

/// Logs how long a part of a command took (`RUST_LOG=umpire=trace`).
pub struct Timer(pub &'static str, pub std::time::Instant);

impl Timer {
    pub fn start(what: &'static str) -> Timer {
        Timer(what, std::time::Instant::now())
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        tracing::trace!(part = self.0, ms = self.1.elapsed().as_secs_f64() * 1000.0, "timing");
    }
}

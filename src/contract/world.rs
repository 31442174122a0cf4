//! Everything the rules can reach: the state, the map and scenario, what the current command
//! printed, and what the rule files registered while they loaded.

use super::{OutcomeTable, VerbSpec};
use crate::map::Map;
use crate::scenario::Scenario;
use crate::state::{GameState, LogEntry};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// Everything the rules can reach, shared between the session and the Lua API.
pub struct World {
    pub state: GameState,
    pub map: Arc<Map>,
    pub scenario: Arc<Scenario>,
    /// Lines printed by the current command.
    pub out: Vec<String>,
    /// Verbs registered by the ruleset (`umpire.command`).
    pub verbs: BTreeMap<String, VerbSpec>,
    /// Map overlays registered by the ruleset (`umpire.overlay`).
    pub overlays: BTreeMap<String, VerbSpec>,
    /// True while `odds` enumerates a command's outcomes: nothing is committed.
    pub probe: bool,
    /// Rolls made so far in this probe run (index into the dice record).
    pub probe_first_roll_log: Option<usize>,
    /// In a probe run, the distribution `umpire.outcome_of` found: each outcome with its
    /// probability and the die faces that give it.
    pub probe_outcomes: Option<OutcomeTable>,
    /// The outcomes the running command declared in play (`umpire.outcome`, `umpire.outcome_of`),
    /// in order: the game keeps them with the command in its history (playouts tally them).
    pub outcomes: Vec<String>,
    /// The side whose view fog of war follows (a board's page of one side); None: the side
    /// to act.
    pub viewer: Option<String>,
    /// Fog of war (`umpire.fog_of_war(true)`): players see only the top unit of enemy stacks.
    pub fog: bool,
    /// A look-only command is running (`=`, `expect`, `show`, overlays): no dice may be rolled.
    pub read_only: bool,
    /// The rule files are being loaded: only then may verbs, overlays and the sequence be
    /// registered (the VM holds no game state, so nothing may be registered during play).
    pub loading: bool,
    /// The stacks by hex (`units.at` asks hex by hex).
    stacks: Indexed<StacksByHex>,
    /// The units on the map by side and kind (a side's units counted or placed, asked several
    /// times a position).
    on_map: Indexed<OnMapByKind>,
}

/// An index of the units as last read, with the units it was read from: made again only once
/// the units have changed (a change copies the persistent map's root).
struct Indexed<T>(RefCell<Option<(crate::state::Units, Rc<T>)>>);

impl<T> Indexed<T> {
    fn new() -> Self {
        Indexed(RefCell::new(None))
    }

    /// The index of `units`, made by `make` unless the one kept is of these very units.
    fn of(&self, units: &crate::state::Units, make: impl FnOnce(&crate::state::Units) -> T) -> Rc<T> {
        let mut kept = self.0.borrow_mut();
        match kept.as_ref() {
            Some((read, index)) if read.same(units) => index.clone(),
            _ => {
                let index = Rc::new(make(units));
                *kept = Some((units.clone(), index.clone()));
                index
            }
        }
    }
}

/// The units on the map by side and kind, each list in the order of the ids.
pub type OnMapByKind = Vec<(String, String, Vec<Arc<crate::state::Unit>>)>;

/// The ids of the units on the map by hex, each stack top first.
type StacksByHex = crate::hex::FastMap<crate::hex::HexId, Vec<Arc<str>>>;

pub type Shared = Rc<RefCell<World>>;

/// What loading the rule files registers in the world (verbs, overlays, fog of war): a reload
/// starts it afresh, and puts the old one back if the new rules fail to load.
pub struct Registrations {
    verbs: BTreeMap<String, VerbSpec>,
    overlays: BTreeMap<String, VerbSpec>,
    fog: bool,
}

impl World {
    /// Fog of war: whether `u` is hidden from the viewer (a board page's side, else the side
    /// to act).
    pub fn hidden(&self, u: &crate::state::Unit) -> bool {
        self.state.is_hidden_to(self.fog, self.viewer.as_deref().or(self.state.clock.side.as_deref()), u)
    }

    /// A world over `state`, with nothing registered yet.
    pub fn new(state: GameState, scenario: Arc<Scenario>) -> World {
        World {
            state,
            map: scenario.map.clone(),
            scenario,
            out: vec![],
            verbs: BTreeMap::new(),
            overlays: BTreeMap::new(),
            fog: false,
            read_only: false,
            loading: false,
            probe: false,
            probe_first_roll_log: None,
            probe_outcomes: None,
            outcomes: Vec::new(),
            viewer: None,
            stacks: Indexed::new(),
            on_map: Indexed::new(),
        }
    }

    /// The ids of the units in `h`, top of the stack first (what [`GameState::stack`] gives),
    /// from an index of the stacks made once for the units as they are.
    pub fn stack_ids(&self, h: crate::hex::HexId) -> Vec<Arc<str>> {
        self.stacks.of(&self.state.units, crate::state::Units::stacks_by_hex).get(&h).cloned().unwrap_or_default()
    }

    /// The units on the map by side and kind, from an index made once for the units as they
    /// are.
    pub fn on_map_by_kind(&self) -> Rc<OnMapByKind> {
        self.on_map.of(&self.state.units, crate::state::Units::on_map_by_kind)
    }

    /// Takes what the rule files registered, leaving the world as before any load.
    pub fn take_registrations(&mut self) -> Registrations {
        Registrations {
            verbs: std::mem::take(&mut self.verbs),
            overlays: std::mem::take(&mut self.overlays),
            fog: std::mem::replace(&mut self.fog, false),
        }
    }

    /// Puts back registrations taken by [`World::take_registrations`].
    pub fn put_registrations(&mut self, r: Registrations) {
        self.verbs = r.verbs;
        self.overlays = r.overlays;
        self.fog = r.fog;
    }

    /// Appends a log entry for the current command and echoes it.
    pub fn log(&mut self, rule: Option<String>, text: String) {
        let line = match &rule {
            Some(r) => format!("[{r}] {text}"),
            None => text.clone(),
        };
        self.out.push(line);
        let command = self.state.commands;
        self.state.log.push(LogEntry { command, rule, text });
    }

    pub fn fmt_hex(&self, h: crate::hex::HexId) -> String {
        self.map.fmt(h)
    }
}

//! The game state: everything that changes during play, and nothing else.
//!
//! A `GameState` is plain data (ordered maps only, so serialisation and the state hash are
//! canonical). It is cloned before every command and restored if the command fails, and it
//! is what a save carries so a game can resume even if its rule files changed.

use crate::dice::Dice;
use crate::hex::{HexId, Hexside};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where a unit is: on a hex, or in an off-map box (dead pile, holding box, reinforcements...).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Location {
    Hex(HexId),
    Box(String),
}

/// A counter on the map or in a box.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub id: String,
    pub name: String,
    pub side: String,
    pub kind: String,
    /// Printed values of each step, full strength first (shared: they never change).
    pub steps: Arc<Vec<BTreeMap<String, Value>>>,
    /// Index into `steps` of the current step (0 = full strength).
    pub step: usize,
    pub loc: Location,
    /// Position in its stack: higher is nearer the top.
    pub stack_seq: u64,
    pub markers: BTreeMap<String, i64>,
    /// Further scenario data (formation, HQ, nationality, arrival turn...); shared between
    /// snapshots until the rules change it.
    pub attrs: Arc<BTreeMap<String, Value>>,
    /// Names of values that are approximated rather than taken from the rulebook.
    pub approx: Arc<BTreeSet<String>>,
}

impl Unit {
    pub fn hex(&self) -> Option<HexId> {
        match self.loc {
            Location::Hex(h) => Some(h),
            Location::Box(_) => None,
        }
    }

    pub fn values(&self) -> &BTreeMap<String, Value> {
        &self.steps[self.step]
    }

    /// The unit's strength as a wargamer reads it: `full` or `reduced`, with the steps it has
    /// left of its steps (`reduced, 1 of 2 steps`); a one-step unit is `1 step`.
    pub fn strength(&self) -> String {
        let all = self.steps.len();
        let left = all - self.step;
        match (all, self.step) {
            (1, _) => "1 step".to_string(),
            (_, 0) => format!("full, {left} of {all} steps"),
            _ => format!("reduced, {left} of {all} steps"),
        }
    }
}

/// Markers by hex or hexside: a persistent map of shared marker sets, as the units are. A
/// snapshot (one per command, for undo) shares them all, and a change copies one set and a
/// short path of the map: Fortress Stalingrad keeps a control marker on some 950 hexes, which
/// a plain map copied whole into every snapshot (440 KB an undo entry). It serialises as a map.
pub type Markers<K> = imbl::OrdMap<K, Arc<BTreeMap<String, i64>>>;

/// Sets (`Some`) or clears (`None`) marker `name` of `key`; a key left with no marker goes.
pub fn set_marker<K: Ord + Clone>(all: &mut Markers<K>, key: K, name: String, v: Option<i64>) {
    let mut m = all.get(&key).map(|m| (**m).clone()).unwrap_or_default();
    match v {
        Some(v) => {
            m.insert(name, v);
        }
        None => {
            m.remove(&name);
        }
    }
    if m.is_empty() {
        all.remove(&key);
    } else {
        all.insert(key, Arc::new(m));
    }
}

/// The counters of a game by id, in id order. A persistent map of shared units: cloning it
/// (every snapshot does) costs nothing, and a change copies only the unit it changes and a
/// short path of the map (ids are shared `Arc<str>`s, so copying a node of the map allocates
/// nothing but the node). It serialises as a map from id to unit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Units(imbl::OrdMap<Arc<str>, Arc<Unit>>);

impl Units {
    pub fn get(&self, id: &str) -> Option<&Unit> {
        self.0.get(id).map(|u| &**u)
    }
    /// The unit to change (copied first if a snapshot shares it).
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Unit> {
        self.0.get_mut(id).map(Arc::make_mut)
    }
    pub fn insert(&mut self, u: Unit) {
        self.0.insert(Arc::from(u.id.as_str()), Arc::new(u));
    }
    /// Takes a unit out: only while a scenario is being built (one that extends another
    /// leaves some of its units out); in play units are never removed.
    pub(crate) fn remove(&mut self, id: &str) -> Option<Unit> {
        self.0.remove(id).map(Arc::unwrap_or_clone)
    }
    pub fn contains_key(&self, id: &str) -> bool {
        self.0.contains_key(id)
    }
    /// Whether `other` is this very map, not a copy changed since (a change copies the path
    /// to what it changes, root included, while a copy is held): what was read from one is
    /// good for the other.
    pub fn same(&self, other: &Units) -> bool {
        self.0.ptr_eq(&other.0)
    }
    /// The units on the map by side and kind (in that order), each list in the order of the
    /// ids.
    pub fn on_map_by_kind(&self) -> Vec<(String, String, Vec<Arc<Unit>>)> {
        let mut by: Vec<(String, String, Vec<Arc<Unit>>)> = Vec::new();
        for u in self.0.values() {
            if u.hex().is_some() {
                match by.iter_mut().find(|(s, k, _)| *s == u.side && *k == u.kind) {
                    Some((_, _, v)) => v.push(u.clone()),
                    None => by.push((u.side.clone(), u.kind.clone(), vec![u.clone()])),
                }
            }
        }
        by.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        by
    }
    /// Every stack on the map by hex, each top first.
    pub fn stacks(&self) -> BTreeMap<HexId, Vec<&Unit>> {
        let mut by_hex: BTreeMap<HexId, Vec<&Unit>> = BTreeMap::new();
        for u in self.values() {
            if let Location::Hex(h) = u.loc {
                by_hex.entry(h).or_default().push(u);
            }
        }
        for v in by_hex.values_mut() {
            v.sort_by(|a, b| top_first(a, b));
        }
        by_hex
    }
    /// The ids of the units on the map by hex, each stack top first (as [`GameState::stack`]).
    pub fn stacks_by_hex(&self) -> crate::hex::FastMap<HexId, Vec<Arc<str>>> {
        // (the map's own keys shared, not copied: rebuilt after every change of a unit)
        let mut by_hex: crate::hex::FastMap<HexId, Vec<(&Arc<str>, &Unit)>> = Default::default();
        for (id, u) in self.0.iter() {
            if let Location::Hex(h) = u.loc {
                by_hex.entry(h).or_default().push((id, u));
            }
        }
        by_hex
            .into_iter()
            .map(|(h, mut v)| {
                v.sort_by(|a, b| top_first(a.1, b.1));
                (h, v.into_iter().map(|(id, _)| id.clone()).collect())
            })
            .collect()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + '_ {
        self.0.keys().map(|k| &**k)
    }
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Unit> + '_ {
        self.0.values().map(|u| &**u)
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Unit)> + '_ {
        self.0.iter().map(|(k, u)| (&**k, &**u))
    }
}

/// One entry of the game log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Index of the command (in the game's history) that wrote it.
    pub command: usize,
    /// The rule number the entry applies, if any.
    pub rule: Option<String>,
    pub text: String,
}

/// Where the game is in its sequence of play, as the ruleset last described it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub turn: i64,
    /// Human label of the current phase/segment chain (`Movement Phase`).
    pub phase: String,
    /// Id of the current leaf step of the sequence (`movement`).
    pub step: String,
    /// The side whose phase it is, if any.
    pub side: Option<String>,
    /// Ruleset-maintained position in the sequence (opaque to the core).
    pub position: Value,
    /// Set when the game has ended, with the result.
    pub over: Option<String>,
}

impl Clock {
    /// Where the game is, as `status` and `forward` say it: `turn 1, Movement Phase, Blue to act`.
    pub fn place(&self) -> String {
        format!(
            "turn {}{}{}",
            self.turn,
            if self.phase.is_empty() { String::new() } else { format!(", {}", self.phase) },
            self.side.as_ref().map(|s| format!(", {s} to act")).unwrap_or_default()
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    /// `game/scenario` id.
    pub scenario: String,
    pub options: BTreeSet<String>,
    pub sides: Vec<String>,
    pub clock: Clock,
    /// The counters by id: a persistent map of shared units, so that a snapshot costs nothing
    /// and a change copies only the unit it changes and a path of the map.
    pub units: Units,
    pub hex_markers: Markers<HexId>,
    pub side_markers: Markers<Hexside>,
    pub boxes: BTreeSet<String>,
    pub cups: BTreeMap<String, Vec<String>>,
    pub tracks: BTreeMap<String, i64>,
    pub side_values: BTreeMap<String, Arc<BTreeMap<String, Value>>>,
    /// Free-form persistent data of the ruleset (`vars.get/set`); each value shared between
    /// snapshots until it is set again.
    pub vars: BTreeMap<String, Arc<Value>>,
    pub dice: Dice,
    pub log: crate::applog::AppendLog<LogEntry>,
    pub next_stack_seq: u64,
    /// Number of state-changing commands applied so far.
    pub commands: usize,
}

/// The order of a stack: the unit placed last on top, ties by id.
fn top_first(a: &Unit, b: &Unit) -> std::cmp::Ordering {
    b.stack_seq.cmp(&a.stack_seq).then(a.id.cmp(&b.id))
}

impl GameState {
    /// Units in a hex, top of the stack first.
    pub fn stack(&self, h: HexId) -> Vec<&Unit> {
        let mut v: Vec<&Unit> = self.units.values().filter(|u| u.loc == Location::Hex(h)).collect();
        v.sort_by(|a, b| top_first(a, b));
        v
    }

    /// Fog of war (when `fog`): whether the side to act may not examine `u` — an enemy unit
    /// below the top of its stack. False without a side to act. The one predicate every view
    /// and the rules (`u.hidden`) use.
    pub fn is_hidden(&self, fog: bool, u: &Unit) -> bool {
        self.is_hidden_to(fog, self.clock.side.as_deref(), u)
    }

    /// Fog of war as `viewer` sees the map (a side's own view, whoever is to act): an enemy
    /// unit below the top of its stack is hidden from it.
    pub fn is_hidden_to(&self, fog: bool, viewer: Option<&str>, u: &Unit) -> bool {
        fog && viewer.is_some_and(|v| v != u.side)
            && u.hex().is_some_and(|h| self.stack(h).first().is_some_and(|top| top.id != u.id))
    }

    /// Every stack on the map by hex, each top first.
    pub fn stacks(&self) -> BTreeMap<HexId, Vec<&Unit>> {
        self.units.stacks()
    }

    /// Units in a box, in the order they were put there.
    pub fn in_box(&self, name: &str) -> Vec<&Unit> {
        let mut v: Vec<&Unit> =
            self.units.values().filter(|u| matches!(&u.loc, Location::Box(b) if b == name)).collect();
        v.sort_by(|a, b| a.stack_seq.cmp(&b.stack_seq).then(a.id.cmp(&b.id)));
        v
    }

    /// Moves a unit to a location, on top of the stack there.
    pub fn place(&mut self, id: &str, loc: Location) {
        self.next_stack_seq += 1;
        let seq = self.next_stack_seq;
        if let Some(u) = self.units.get_mut(id) {
            u.loc = loc;
            u.stack_seq = seq;
        }
    }

    /// Moves a unit to a location under the units already there (they keep their order above it).
    pub fn place_under(&mut self, id: &str, loc: Location) {
        let mut others: Vec<(u64, String)> =
            self.units.values().filter(|u| u.loc == loc && u.id != id).map(|u| (u.stack_seq, u.id.clone())).collect();
        others.sort();
        self.place(id, loc);
        for (_, other) in others {
            self.next_stack_seq += 1;
            let seq = self.next_stack_seq;
            if let Some(u) = self.units.get_mut(&other) {
                u.stack_seq = seq;
            }
        }
    }

    /// A digest of the whole state (16 hex digits), the same on every run and platform.
    pub fn hash(&self) -> String {
        // the log and the record of rolls enter through their chained digests, so hashing does
        // not grow with the length of the game. Every field is named here, so a new field
        // cannot be left out of the hash by mistake.
        let GameState {
            scenario,
            options,
            sides,
            clock,
            units,
            hex_markers,
            side_markers,
            boxes,
            cups,
            tracks,
            side_values,
            vars,
            dice,
            log: _,
            next_stack_seq,
            commands,
        } = self;
        let light = (
            (scenario, options, sides, clock, units, hex_markers),
            (side_markers, boxes, cups, tracks, side_values, vars),
            (dice.without_rolls(), next_stack_seq, commands),
        );
        // (written straight into the digest: the same bytes as `to_vec`, without the buffer)
        struct Into<'a>(&'a mut Sha256);
        impl std::io::Write for Into<'_> {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.update(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut h = Sha256::new();
        serde_json::to_writer(std::io::BufWriter::with_capacity(8192, Into(&mut h)), &light).expect("state serialises");
        h.update(self.log.digest());
        h.update(self.dice.rolls.digest());
        h.update((self.log.len() as u64).to_le_bytes());
        h.update((self.dice.rolls.len() as u64).to_le_bytes());
        h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod marker_tests {
    use super::*;

    #[test]
    fn a_snapshot_shares_every_marker_set_a_change_did_not_touch() {
        // Fortress Stalingrad's control markers: one set a hex on ~950 hexes
        let mut now: Markers<HexId> = Markers::default();
        for c in 1..=40 {
            for r in 1..=25 {
                set_marker(&mut now, HexId::new(c, r), "ctl".into(), Some(1));
            }
        }
        let snapshot = now.clone();
        set_marker(&mut now, HexId::new(7, 7), "ctl".into(), Some(2));
        set_marker(&mut now, HexId::new(8, 8), "ctl".into(), None);
        let shared = now.iter().filter(|(h, m)| snapshot.get(*h).is_some_and(|s| Arc::ptr_eq(s, m))).count();
        assert_eq!(shared, 1000 - 2, "every untouched hex's markers are the snapshot's own");
        assert_eq!(snapshot.get(&HexId::new(7, 7)).and_then(|m| m.get("ctl")), Some(&1));
        assert_eq!(now.get(&HexId::new(7, 7)).and_then(|m| m.get("ctl")), Some(&2));
        assert!(!now.contains_key(&HexId::new(8, 8)), "a hex left with no marker goes");
    }
}

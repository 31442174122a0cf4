//! Views of a game on another thread (the board, src/board): a [`Snapshot`] of what a view
//! needs — scenario, rules, state, all `Send` — and a session made from it on that thread, with
//! its own VM, that only looks: pictures, `show`, overlays, as one side sees them.

use super::{Reply, Session};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::ruleset::Ruleset;
use crate::scenario::Scenario;
use crate::state::GameState;
use std::path::PathBuf;
use std::sync::Arc;

/// A game as it stands, for a view on another thread.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub scenario: Arc<Scenario>,
    pub ruleset: Ruleset,
    pub state: GameState,
}

impl Snapshot {
    /// Whether a view made for `self` shows `other` by its state alone: the same scenario
    /// under the same rule files.
    pub fn same_game(&self, other: &Snapshot) -> bool {
        self.scenario.id == other.scenario.id
            && self.ruleset.dir == other.ruleset.dir
            && self.ruleset.content_hash == other.ruleset.content_hash
    }
}

/// An overlay a view may draw: its name, its arguments' usage and what it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverlayInfo {
    pub name: String,
    pub usage: String,
    pub help: String,
}

impl Session {
    /// The game as it stands, for a view on another thread (None without a game).
    pub fn snapshot(&self) -> Option<Snapshot> {
        let g = self.game.as_ref()?;
        Some(Snapshot { scenario: g.scenario.clone(), ruleset: g.ruleset.clone(), state: g.state().clone() })
    }

    /// A session that shows `snap`, made on the thread that will use it: the rule files run
    /// in a VM of its own over a copy of the state, and nothing it does reaches the game the
    /// snapshot was taken of.
    pub fn viewer(root: PathBuf, snap: &Snapshot) -> Result<Session> {
        let mut s = Session::with_root(root);
        let g = Game::assemble(snap.scenario.clone(), snap.ruleset.clone(), snap.state.clone(), "", s.config())?;
        s.game = Some(g);
        Ok(s)
    }

    /// Shows `state` (of the game this view was made for) as `side` sees it under fog of war
    /// (None: as the side to act sees it).
    pub fn view(&mut self, state: &GameState, side: Option<&str>) -> Result<()> {
        let g = self.game_mut()?;
        g.show_state(state.clone());
        g.set_viewer(side.map(str::to_string));
        Ok(())
    }

    /// The picture of the whole map with `map`'s overlay and its arguments (nothing: none) as
    /// SVG text, as `map --svg FILE <args>` draws it.
    pub fn svg(&self, args: &str) -> Result<String> {
        super::mapview::svg(self, args)
    }

    /// What `show <what>` prints, as lines (an error if it refuses).
    pub fn show_lines(&mut self, what: &str) -> Result<Vec<String>> {
        if what.trim().is_empty() || what.contains(['\n', '\r']) {
            return Err(Error::Usage("show what? (a unit, a hex or a place)".into()));
        }
        let r: Reply = self.execute(&format!("show {what}"));
        match r.error() {
            Some(e) => Err(Error::Usage(e.to_string())),
            None => Ok(r.out),
        }
    }

    /// The overlays of the rules, by name (what the board offers to draw).
    pub fn overlay_infos(&self) -> Vec<OverlayInfo> {
        let Some(g) = &self.game else { return Vec::new() };
        let mut out: Vec<OverlayInfo> =
            g.overlays().into_values().map(|v| OverlayInfo { name: v.name, usage: v.usage, help: v.help }).collect();
        if super::mapview::lists_moves(g) {
            out.push(OverlayInfo {
                name: "moves".into(),
                usage: "map moves <unit>".into(),
                help: "where the unit can move now, with the cost of each hex".into(),
            });
        }
        out
    }

    /// Whether the game's rules hide units under fog of war.
    pub fn fog(&self) -> bool {
        self.game.as_ref().is_some_and(|g| g.fog())
    }
}

//! What may be done now: the ruleset's list (`umpire.actions`), or the answers of the
//! decision the game waits for.

use super::Game;
use crate::contract::{Action, ActionFilter, Evaluation};
use crate::error::Result;

impl Game {
    /// Whether the ruleset lists its actions (`umpire.actions`).
    pub fn lists_actions(&self) -> Result<bool> {
        self.host().has_actions()
    }

    /// The commands that are legal now, in the ruleset's order: with a decision pending, its
    /// answers (`choose <option>`, with the option's weight if the rules gave one; the default where the
    /// answer is free); once the game is
    /// over, none; otherwise what the ruleset lists for the side to act (`None`: it lists
    /// nothing). Look-only: the state is as before.
    pub fn actions(&self, filter: &ActionFilter) -> Result<Option<Vec<Action>>> {
        if let Some(p) = &self.pending {
            let q = &p.question;
            let answers: Vec<String> =
                if q.options.is_empty() { q.default.iter().cloned().collect() } else { q.options.clone() };
            return Ok(Some(
                answers
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| Action {
                        cmd: format!("choose {a}"),
                        group: "answer".into(),
                        side: q.side.clone(),
                        weight: q.weights.get(i).copied(),
                        ..Action::default()
                    })
                    .collect(),
            ));
        }
        let clock = self.state().clock.clone();
        if clock.over.is_some() {
            return Ok(Some(Vec::new()));
        }
        let side = clock.side.clone().unwrap_or_default();
        let (r, _) = self.read_only(|g| g.host().actions(&side, filter));
        r
    }

    /// The ruleset's evaluation of the state for `side` (`umpire.evaluate`; `None`: it has
    /// none). Look-only.
    pub fn evaluate(&self, side: &str) -> Result<Option<Evaluation>> {
        let (r, _) = self.read_only(|g| g.host().evaluate(side, true));
        r
    }

    /// The score alone of [`Game::evaluate`] (the rules are told the figures are not read).
    pub fn score(&self, side: &str) -> Result<Option<f64>> {
        let (r, _) = self.read_only(|g| g.host().evaluate(side, false));
        Ok(r?.map(|e| e.score))
    }

    /// Where the rules say `side`'s commands matter most now (`umpire.focus`: hex ids; `None`:
    /// the ruleset has none). Look-only.
    pub fn focus(&self, side: &str) -> Result<Option<Vec<String>>> {
        let (r, _) = self.read_only(|g| g.host().focus(side));
        r
    }

    /// The sides of the game, in the scenario's order.
    pub fn sides(&self) -> Vec<String> {
        self.state().sides.clone()
    }
}

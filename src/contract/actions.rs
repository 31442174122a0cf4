//! What the rules list as legal now (`umpire.actions`) and what they say of a state
//! (`umpire.evaluate`): the bots' and the views' side of the contract (docs/lua-api.md §2.6).

/// One legal command, as the ruleset listed it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Action {
    /// The command line, as a player types it.
    pub cmd: String,
    /// What kind of action it is (the `actions` view's heading); the verb when not given.
    pub group: String,
    /// The unit it moves or that takes part (the first, for several).
    pub unit: Option<String>,
    /// Every unit that takes part, where there are several (`units = {...}`).
    pub units: Vec<String>,
    /// The hex it goes to or acts on.
    pub hex: Option<String>,
    /// A short remark (a cost, the units taking part).
    pub note: Option<String>,
    /// The side that does it, where the rules say (a step both sides act in, or none: the
    /// greedy bot scores the command for this side).
    pub side: Option<String>,
    /// How likely a bot choosing at random is to pick it, against the others of its group and
    /// (the largest of a group) against the other groups: `None` is 1; 0 never, while anything
    /// of a weight above 0 is listed (docs/lua-api.md §2.6). Players see every entry alike.
    pub weight: Option<f64>,
    /// For a `next` weighed below 1: whether the search bot sweeps the units it has not
    /// commanded in the step before it ends it (`None` is yes; `sweep = false`: the side's
    /// idle units serve where they stand, docs/lua-api.md §2.6).
    pub sweep: Option<bool>,
}

impl Action {
    /// The entry's weight for bots (1 when the rules give none).
    pub fn weight(&self) -> f64 {
        self.weight.unwrap_or(1.0)
    }

    /// Whether this entry is a `next` that has the search bot sweep where nothing gains: it
    /// forfeits what is left undone (a weight below 1) and the rules do not say `sweep = false`.
    pub fn sweeps(&self) -> bool {
        self.cmd == "next" && self.weight() < 1.0 && self.sweep != Some(false)
    }

    /// Whether the rules may give `w` as a weight: a number of 0 or more.
    pub fn valid_weight(w: f64) -> bool {
        w.is_finite() && w >= 0.0
    }
}

/// The groups of a list of actions in the order first seen, each with its actions' indices
/// (the `actions` view's headings; the random bot's first choice).
pub fn groups(list: &[Action]) -> Vec<(&str, Vec<usize>)> {
    let mut out: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, a) in list.iter().enumerate() {
        match out.iter_mut().find(|(g, _)| *g == a.group) {
            Some((_, v)) => v.push(i),
            None => out.push((a.group.as_str(), vec![i])),
        }
    }
    out
}

/// What the actions are asked for.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub unit: Option<String>,
    pub hex: Option<String>,
}

/// A figure the evaluation reports about the game (`vp = 23`, `level = "Major Victory"`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Figure {
    Number(f64),
    Text(String),
}

/// What `umpire.evaluate` said of the state for one side: a score (higher is better for the
/// side; bots compare it) and named figures (playouts report their distributions).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    pub score: f64,
    pub figures: std::collections::BTreeMap<String, Figure>,
}

//! How a run of rule code ends: done (with a result), or waiting on a question to a player,
//! or (while `odds` enumerates) with the outcome the rules declared.

/// A question the rules asked a player, waiting for `choose` or `auto`.
#[derive(Clone, Debug)]
pub struct Question {
    pub prompt: String,
    pub rule: Option<String>,
    /// Allowed answers (empty: free text, checked by `kind`).
    pub options: Vec<String>,
    /// What `auto` answers.
    pub default: Option<String>,
    /// `choice` (one of options), `unit`, `hex`, `text`, `number`, `yesno`.
    pub kind: String,
    /// The side that answers, when the rules name one (it may be another than the side to act).
    pub side: Option<String>,
    /// `odds` shows the outcomes of each option (a choice that changes the result).
    pub odds: bool,
    /// The bots' weight of each option, in the order of `options` (empty: all alike; see
    /// `Action::weight`).
    pub weights: Vec<f64>,
}

/// Outcomes of a command with their probabilities and the die faces that give each (`odds`).
pub type OutcomeTable = Vec<(String, f64, Vec<Vec<u32>>)>;

/// How one resume of a rule coroutine ended.
pub enum Step {
    Done(Option<String>),
    Ask(Question),
    /// In an `odds` enumeration, the rules declared the command's outcome (`umpire.outcome`):
    /// the run ends there.
    Outcome(String),
    /// In an `odds` enumeration, `umpire.outcome_of` tabulated the outcomes of the dice it
    /// was given (each with its probability and the faces that give it): the run ends there.
    Outcomes(OutcomeTable),
}

//! The contract between the rules and the program, as typed Rust: verbs and their arguments,
//! the calls a command makes, questions, the list of legal actions and the evaluation, and the
//! world the rules read and change. The Lua host (src/lua/) turns these into Lua values and
//! back; the game and the session above it use only these types, never Lua's.

mod actions;
mod questions;
mod verbs;
mod world;

pub use actions::{Action, Evaluation, Figure, Filter as ActionFilter, groups as action_groups};
pub use questions::{OutcomeTable, Question, Step};
pub use verbs::{Arg, ArgKind, ArgSpec, Call, VerbSpec, parse_usage};
pub use world::{Registrations, Shared, World};

//! umpire: an umpire for hex-and-counter wargames. The core holds the map, counters, stacks,
//! dice and game state; each game's rules are Lua in `rulesets/<game>/`. See
//! docs/ARCHITECTURE.md.

pub mod applog;
pub mod board;
pub mod contract;
pub mod datafile;
pub mod dice;
pub mod error;
pub mod game;
pub mod hex;
pub mod journal;
pub mod library;
pub mod lua;
pub mod map;
pub mod mutate;
pub mod names;
pub mod playout;
pub mod render;
pub mod repl;
pub mod ruleset;
pub mod save;
pub mod scenario;
pub mod script;
pub mod search;
pub mod session;
pub mod state;
pub mod text;

pub use error::{Error, Result};
pub use session::{Reply, Session, Status};

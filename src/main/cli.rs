//! The command line of `umpire` (clap): its subcommands and their options.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "umpire", version, about = "An umpire for hex-and-counter wargames")]
pub(super) struct Cli {
    /// More diagnostics on stderr (-v, -vv; -vvv each decision of the bots); RUST_LOG works too.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub(super) verbose: u8,
    /// The library to use: a folder holding rulesets/ and scenarios/ (default: $UMPIRE_LIBRARY,
    /// else the nearest such folder at or above the current one, else the games built into the
    /// program). For `run` and `check` it replaces the library found from each path.
    #[arg(long, global = true, value_name = "DIR")]
    pub(super) library: Option<PathBuf>,
    #[command(subcommand)]
    pub(super) cmd: Cmd,
}

#[derive(Subcommand)]
pub(super) enum Cmd {
    /// Play interactively (or from piped input): `umpire play stargard-solstice`, or
    /// `umpire play game.ump` to resume a save.
    Play {
        /// Scenario to start: <game>, <game>/<scenario> or a .toml path; or a save to resume.
        scenario: Option<String>,
        /// Seed for the dice (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// Scenario options to switch on.
        #[arg(long = "option")]
        options: Vec<String>,
        /// Play under the ruleset in DIR (a copy being edited, anywhere; its lib/ from beside
        /// it or from the library).
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
        /// Resume the game of a session that ended without finishing (a closed terminal, a
        /// killed process): its journal, kept after every command.
        #[arg(long, conflicts_with_all = ["scenario", "seed", "options"])]
        resume: bool,
        /// umpire plays SIDE (with BOT: search, the default, greedy or random); repeat it for more
        /// sides. The session's `opponent` command changes it; saves keep it.
        #[arg(long, value_name = "SIDE[=BOT]")]
        opponent: Vec<String>,
        /// Serve the game to a browser on this machine as it is played (`board` at the prompt
        /// does it later): the URLs are printed; a page for each side under fog of war.
        #[arg(long)]
        board: bool,
    },
    /// Like `play`, for designers: undo is free (it may take back dice rolls).
    Sandbox {
        scenario: Option<String>,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long = "option")]
        options: Vec<String>,
        /// Play under the ruleset in DIR.
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
        /// Serve the game to a browser on this machine (as `play --board`).
        #[arg(long)]
        board: bool,
    },
    /// Run command scripts (.ump) and report `N passed, N failed`.
    Run {
        #[arg(required = true)]
        scripts: Vec<PathBuf>,
        /// Print only failures and the summary.
        #[arg(short, long)]
        quiet: bool,
        /// Profile the rule code: after the scripts, the rule functions and lines that ran
        /// the most Lua instructions, with the time between samples (docs/performance.md).
        #[arg(long)]
        profile: bool,
        /// Run the scripts' games under the ruleset in DIR (a variant's folder).
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
    },
    /// Validate a game (by name), a ruleset folder, a scenario file, a save or a script, without
    /// playing.
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Check scripts (.ump) under the ruleset in DIR.
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
    },
    /// Play whole games by a bot choosing among the listed actions; print the distribution of
    /// outcomes, figures and game lengths (`umpire playout stargard-solstice --games 100`).
    Playout {
        /// Scenario: <game>, <game>/<scenario> or a .toml path.
        scenario: String,
        #[command(flatten)]
        games: GamesArgs,
        /// Save every game to DIR/game-<seed>.ump (`load` resumes it, `umpire run` replays it).
        #[arg(long, value_name = "DIR")]
        save: Option<PathBuf>,
        /// One line per game (seed, result, turns, commands).
        #[arg(long)]
        list: bool,
        /// Profile the rule code over the games (as `run --profile`; best with --jobs 1).
        #[arg(long)]
        profile: bool,
    },
    /// Play the same seeds under two rules folders and report how the outcomes moved:
    /// `umpire compare SCENARIO --rules A --rules B --games 200`.
    Compare {
        scenario: String,
        /// The two rules folders (a ruleset folder, or a library holding rulesets/<game>/);
        /// `--rules .` is the library's own.
        #[arg(long = "rules", value_name = "DIR", num_args = 1, required = true)]
        rules: Vec<PathBuf>,
        #[command(flatten)]
        games: GamesArgs,
    },
    /// Combine the `--json` files of the shards of one playout or comparison (`--shard K/N`) into
    /// the report one run of all the games prints: `umpire merge shard-*.json`.
    Merge {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Report on the games of the shards given when some are missing (said in the report).
        #[arg(long)]
        partial: bool,
        /// Write the merged games as one file (as `--json` would have).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Serve a saved game (or a command script) to a browser on this machine, to step through
    /// every position: first, back, forward, last, or the start of any turn or phase.
    Board { file: PathBuf },
    /// Replay a save or a command script under other rules and list every ruling that changed,
    /// from the first command where the games diverge.
    Replay {
        file: PathBuf,
        /// The other rules folder (a ruleset folder or a library).
        #[arg(long = "rules", value_name = "DIR")]
        rules: PathBuf,
    },
    /// Play listed actions mixed with junk and report any Lua error, refused listed action,
    /// refusal that changed the state, dead end or save that does not load back; each failure
    /// is saved as a script that reproduces it.
    Fuzz {
        scenario: String,
        /// Commands in all (game after game).
        #[arg(long, default_value_t = 2000)]
        commands: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the reproductions go.
        #[arg(long, value_name = "DIR", default_value = "fuzz-failures")]
        out: PathBuf,
        #[arg(long = "option")]
        options: Vec<String>,
        /// Games fuzzed at once, each on its own thread (default: the cores); the report is the
        /// same whatever the number.
        #[arg(long)]
        jobs: Option<usize>,
        /// The bots that pick the listed commands: `--bot BOT` for every side (random, greedy
        /// or search), `--bot SIDE=BOT` for one side (repeat it).
        #[arg(long = "bot", value_name = "[SIDE=]BOT", default_value = "random")]
        bot: Vec<String>,
    },
    /// The games built into the program: `umpire library export DIR` writes a copy to edit.
    Library {
        #[command(subcommand)]
        what: LibraryCmd,
    },
    /// Break the rules one small change at a time and report the changes no script notices:
    /// `umpire mutate fortress-stalingrad --sample 40` (docs/mutate.md).
    Mutate(MutateArgs),
}

/// What `umpire mutate` is asked to do.
#[derive(clap::Args)]
pub(super) struct MutateArgs {
    /// The game: its ruleset is the library's rulesets/<game>, its scripts scripts/<game>/.
    pub(super) game: String,
    /// The ruleset folder to mutate instead (a copy being edited).
    #[arg(long, value_name = "DIR")]
    pub(super) rules: Option<PathBuf>,
    /// Scripts or folders of scripts to run (default: the library's scripts/<game>/).
    #[arg(long = "scripts", value_name = "PATH")]
    pub(super) scripts: Vec<PathBuf>,
    /// Only this rule file (a name in the ruleset folder, e.g. combat.lua); may be repeated.
    #[arg(long = "file", value_name = "NAME")]
    pub(super) files: Vec<String>,
    /// Mutate the files that rule on nothing too (actions, evaluate, views, labels,
    /// testing, validate).
    #[arg(long)]
    pub(super) all_files: bool,
    /// Try only this many mutants, drawn by --seed.
    #[arg(long)]
    pub(super) sample: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub(super) seed: u64,
    /// Mutants tried at once, each job in a copy of the rules of its own (default: the cores).
    #[arg(long)]
    pub(super) jobs: Option<usize>,
    /// Exit 1 when the kill rate of the tables and rule checks is under this percentage.
    #[arg(long, value_name = "PERCENT")]
    pub(super) fail_under: Option<f64>,
}

#[derive(Subcommand)]
pub(super) enum LibraryCmd {
    /// Write the built-in games (rulesets/ and scenarios/) into DIR, a new or empty folder, as
    /// a library to edit and play (`cd DIR && umpire play <game>`).
    Export { dir: PathBuf },
    /// Say which library `play` would use from here, and why.
    Where,
}

/// Which games a playout or comparison plays.
#[derive(clap::Args, Clone)]
pub(super) struct GamesArgs {
    /// How many games.
    #[arg(long, default_value_t = 100)]
    pub(super) games: usize,
    /// The first game's seed (game i has seed S + i).
    #[arg(long, default_value_t = 1)]
    pub(super) seed: u64,
    /// The bots: `--bot BOT` for every side (random, greedy or search), `--bot SIDE=BOT` for one side
    /// (repeat it: `--bot German=greedy --bot Soviet=random`).
    #[arg(long = "bot", value_name = "[SIDE=]BOT", default_value = "random")]
    pub(super) bot: Vec<String>,
    /// Games played at once, each on its own thread and Lua state (default: the cores).
    #[arg(long)]
    pub(super) jobs: Option<usize>,
    /// A game not over after this many commands counts as unfinished.
    #[arg(long, default_value_t = 20_000)]
    pub(super) max_commands: usize,
    #[arg(long = "option")]
    pub(super) options: Vec<String>,
    /// Play only the games K, K+N, K+2N… of the seed range (K from 1 to N): one of N processes
    /// or machines sharing the run; `umpire merge` combines their `--json` files.
    #[arg(long, value_name = "K/N")]
    pub(super) shard: Option<umpire::playout::shards::Shard>,
    /// Write every game's outcome and figures, with the run's scenario, seeds, bot and the
    /// rules' and program's hashes, to FILE (JSON; what `umpire merge` reads).
    #[arg(long, value_name = "FILE")]
    pub(super) json: Option<PathBuf>,
}

impl GamesArgs {
    /// The bots of the `--bot` arguments.
    pub(super) fn bots(&self) -> anyhow::Result<umpire::playout::Lineup> {
        umpire::playout::Lineup::parse(&self.bot).map_err(anyhow::Error::msg)
    }
}

//! The built-in commands: one table holding each command's name, usage, group, help, example
//! and handler. `help`, completion, dispatch and the reserved verb names all read it.

use super::units::units_help;
use super::{Reply, Session, actions, designer, load, mapview, odds, opponent, play, show, status, units};
use crate::contract::VerbSpec;
use crate::error::Result;
use crate::text::did_you_mean;
use std::collections::BTreeMap;

/// One built-in command.
pub struct Builtin {
    pub name: &'static str,
    pub usage: &'static str,
    /// The group `help` lists it under: game, view, history, files, designer.
    pub group: &'static str,
    pub help: &'static str,
    /// Shown by `help <command>` (empty: none).
    pub example: &'static str,
    /// Whether it may run while a decision is pending (views, answers, undo...).
    pub during_decision: bool,
    /// The handler: the session, the arguments (the line without the command) and the whole line.
    pub run: fn(&mut Session, &str, &str) -> Result<Reply>,
}

/// The groups of `help`, in order.
pub const GROUPS: &[&str] = &["game", "view", "history", "files", "designer"];

/// Whether `name` is a built-in command (a ruleset may not register a verb of that name).
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.iter().any(|b| b.name == name)
}

macro_rules! builtin {
    ($name:literal, $group:literal, $usage:expr, $help:literal, $example:literal, $during:literal, $run:expr) => {
        Builtin {
            name: $name,
            usage: $usage,
            group: $group,
            help: $help,
            example: $example,
            during_decision: $during,
            run: $run,
        }
    };
}

#[rustfmt::skip]
pub const BUILTINS: &[Builtin] = &[
    builtin!("new", "files", "new <scenario> [--seed N] [--option NAME]... [--rules DIR]",
        "start a game: <game>, <game>/<scenario> or a .toml path; --rules: under the ruleset in DIR",
        "new <game> --seed 7 --option <name>", true, play::new),
    builtin!("load", "files", "load <file>", "load a saved game (replays it, checking hashes)",
        "load game.sav", true, load::cmd_load),
    builtin!("save", "files", "save [--force] <file>",
        "save the game as a replayable script with the state (--force: replace a file that is no save)",
        "save game.sav", true, load::cmd_save),
    builtin!("map", "view",
        "map [<hex|unit|place> [radius]] | map <overlay> <args> [<place> [radius]] | map --svg [--force] FILE [<overlay> <args>] [<place> [radius]]",
        "the map as text around a place, with an overlay, or as an SVG picture",
        "map <place> 4      map <overlay> <unit>      map moves <unit>      map --svg board.svg", true, mapview::map),
    builtin!("board", "view", "board",
        "serve the game to a browser on this machine, beside the REPL. The map follows every command; under fog of war each side has a page of its own; every position can be stepped through. `umpire play <game> --board` starts with it, `umpire board SAVE` steps through a saved game",
        "", true, |_, _, _| Err(crate::error::Error::Usage(
            "the board is served by `umpire play` (type `board` at its prompt, or `umpire play <game> --board`); `umpire board SAVE` steps through a saved game".into()))),
    builtin!("status", "view", "status", "where the game is: turn, phase, side, pending decision, seed, library",
        "", true, status::status),
    builtin!("show", "view", "show <hex|unit|place>", "a unit's values and markers, or a hex's terrain and stack",
        "show <unit>      show <hex>      show <place>", true, show::show),
    builtin!("units", "view", units::USAGE,
        "list units, filtered by side, box, hex, marker, attr=value or the game's states",
        "units <side>      units dead      units <hex>      units <side> formation=<HQ id>", true, units::units),
    builtin!("actions", "view", "actions [<unit|hex>]", "what may be done now, grouped (the ruleset's list, or the answers of the pending decision)",
        "actions      actions <unit>      actions <hex>", true, actions::actions),
    builtin!("moves", "view", "moves <unit>", "where a unit can go now, at what cost, and what it can attack, with the odds",
        "moves <unit>", true, actions::moves),
    builtin!("evaluate", "view", "evaluate [<side>]",
        "the rules' score of the position for a side (the side to act by default) and the figures they report",
        "evaluate Soviet", true, actions::evaluate),
    builtin!("table", "view", "table [<name>]", "list the game's tables (charts), or print one",
        "table      table <name>", true, status::table),
    builtin!("log", "view", "log [n]", "the last n log entries (default 10)", "log 20", true, status::log),
    builtin!("why", "view", "why", "the last ruling, step by step with rule numbers", "", true, status::why),
    builtin!("hash", "view", "hash", "a digest of the whole game state", "", true, status::hash),
    builtin!("next", "game", "next [--turn-start]",
        "end the current segment and go to the next one (--turn-start: stop at the start of a new turn)",
        "next      next --turn-start", false, play::next),
    builtin!("choose", "game", "choose <answer>", "answer the pending decision (an option typed alone answers it too)",
        "choose <hex|unit|option>", true, play::choose),
    builtin!("auto", "game", "auto", "answer the pending decision with the rule's default", "", true, play::auto),
    builtin!("cancel", "game", "cancel [--past-dice]", "abandon the command waiting for a decision",
        "", true, play::cancel),
    builtin!("odds", "game", "odds <arguments of the combat verb>",
        "the odds and every result's probability, no dice used",
        "odds <hex> with <unit>,<unit>", false, odds::odds),
    builtin!("dice", "game", "dice <face|name>... | dice clear",
        "force the next die rolls or draws (real dice, scripts)",
        "dice 3 5      dice <chit name>      dice clear", false, play::dice),
    builtin!("roll", "game", "roll <NdM> [purpose...]", "roll dice and record it", "roll 2d6 weather", false, play::roll),
    builtin!("seed", "game", "seed <n>", "reseed the game's dice", "seed 12345", false, play::seed),
    builtin!("forward", "game", "forward [--verbose] [turn N | step ID | end]",
        "play on with `next`, answering every question with its default. Alone it answers the questions now pending, or else plays one `next` and its questions: it stops where the players act next. `turn N` stops at the start of turn N, `step ID` at that step of the sequence, `end` at the end of the game; --verbose echoes every `next` and answer",
        "forward      forward turn 3      forward step <step> (listed below)      forward end      forward --verbose", true, play::forward),
    builtin!("opponent", "game", "opponent [<side> [bot|off]]",
        "umpire plays a side (bots: search, the default, greedy or random) and answers its questions; off: a player plays it again",
        "opponent Soviet      opponent Soviet random      opponent Soviet off", true, opponent::cmd_opponent),
    builtin!("undo", "history", "undo [--past-dice] [n]",
        "take back the last n commands (past seen dice only with --past-dice)",
        "undo      undo 3      undo --past-dice", true, play::undo),
    builtin!("redo", "history", "redo", "re-apply the last undone command", "", false, play::redo),
    builtin!("reload", "designer", "reload", "re-read the rule files, keep the game", "", false, designer::reload),
    builtin!("lua", "designer", "lua <code>", "run Lua in the rules' environment (changes are a command)",
        "lua units.get('B1'):move_to('0101')", false, designer::lua),
    builtin!("=", "designer", "= <expression>", "evaluate a Lua expression (read-only)",
        "= units.get('B1').hex", true, designer::eval),
    builtin!("expect", "designer", "expect <expression>", "check that a Lua expression is true (read-only)",
        "expect units.get('B1').hex == '0303'", true, designer::expect),
    builtin!("expect-error", "designer", "expect-error [--rule R] [--kind K] <command> [~ text]",
        "check that a command fails (refused under rule R, of kind K, its message holding text)",
        "expect-error --rule 5.1 move B1 0909      expect-error move B1 0909 ~ not on the map",
        true, designer::expect_error),
    builtin!("expect-ok", "designer", "expect-ok <command> [~ text]",
        "check that a command succeeds (and its output holds text)",
        "expect-ok odds 0404 with B1 ~ 1:2", true, designer::expect_ok),
    builtin!("checkpoint", "designer", "checkpoint <hash>",
        "check the state hash (saves use it to detect divergence)", "", true, designer::checkpoint),
    builtin!("help", "view", "help [command]", "list commands, or explain one", "help move", true, help),
    builtin!("quit", "files", "quit", "leave", "", true, |_, _, _| Ok(Reply::with(vec![], super::Status::Quit))),
];

pub(super) fn help(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let (verbs, overlays) = s.game.as_ref().map(|g| (g.verbs(), g.overlays())).unwrap_or_default();
    let topic = rest.trim();
    if topic.is_empty() {
        let lists = s.game.as_ref().is_some_and(|g| g.lists_actions().unwrap_or(false));
        return Ok(Reply::ok(help_index(&verbs, &overlays, lists)));
    }
    if let Some(v) = verbs.get(topic) {
        let mut out = vec![format!("usage: {}", v.usage), v.help.clone()];
        if !v.example.is_empty() {
            out.push(format!("example: {}", v.example));
        }
        if !v.rule.is_empty() {
            out.push(format!("rules: {}", v.rule));
        }
        if !v.phases.is_empty() {
            out.push(format!("allowed in: {}", v.phases.join(", ")));
        }
        return Ok(Reply::ok(out));
    }
    if let Some(b) = BUILTINS.iter().find(|b| b.name == topic) {
        let mut out = vec![format!("usage: {}", b.usage), b.help.to_string()];
        if !b.example.is_empty() {
            out.push(format!("example: {}", b.example));
        }
        if b.name == "units" {
            out.extend(units_help(s));
        }
        if b.name == "forward"
            && let Ok(g) = s.game()
        {
            out.push("steps (`forward step ID`), where play stops:".into());
            for id in g.stop_ids()? {
                out.push(format!("  {id:<18} {}", g.step_labels(std::slice::from_ref(&id))));
            }
        }
        return Ok(Reply::ok(out));
    }
    if let Some(v) = overlays.get(topic) {
        let mut out = vec![format!("usage: {}", v.usage), v.help.clone()];
        if !v.rule.is_empty() {
            out.push(format!("rules: {}", v.rule));
        }
        return Ok(Reply::ok(out));
    }
    let names = s.command_names();
    Ok(Reply::ok(vec![format!("no command '{topic}'{}", did_you_mean(topic, names.iter()))]))
}

fn help_index(verbs: &BTreeMap<String, VerbSpec>, overlays: &BTreeMap<String, VerbSpec>, lists: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !verbs.is_empty() {
        out.push("rules (this game):".to_string());
        for v in verbs.values() {
            let rule = if v.rule.is_empty() { String::new() } else { format!(" [{}]", v.rule) };
            out.push(format!("  {:<36} {}{rule}", v.usage, v.help));
        }
    }
    if lists && !overlays.contains_key("moves") {
        out.push("map overlays (from the listed actions):".to_string());
        out.push(format!("  {:<36} {}", "map moves <unit>", "where the unit can move now, with the cost of each hex"));
    }
    if !overlays.is_empty() {
        out.push("map overlays (this game):".to_string());
        for v in overlays.values() {
            out.push(format!("  {:<36} {}", v.usage, v.help));
        }
    }
    for group in GROUPS {
        out.push(format!("{group}:"));
        for b in BUILTINS.iter().filter(|b| b.group == *group) {
            // the index gives the first sentence; `help <command>` all of it
            let short = b.help.split_once(". ").map_or(b.help, |(first, _)| first);
            out.push(format!("  {:<36} {short}", b.usage));
        }
    }
    out.push("Unit and hex ids may be abbreviated to a unique prefix; hexes may be named by place.".into());
    out
}

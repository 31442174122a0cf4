//! The interactive line editor's helper: completion of commands (the ruleset's verbs too),
//! unit ids, hex ids and place names (a place completes to its hex), scenario and option
//! names, file paths for `save`/`load`/`map --svg`; hints from history; multi-line `lua`
//! input that continues while the chunk is incomplete (for typing: piped input is read one
//! command a line, see `script::commands`).

use crate::session::Session;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};
use std::cell::RefCell;
use std::rc::Rc;

/// What can be completed, refreshed from the session after every command.
#[derive(Clone, Debug, Default)]
pub struct Words {
    pub commands: Vec<String>,
    pub units: Vec<String>,
    pub hexes: Vec<String>,
    /// (place name, its hex)
    pub places: Vec<(String, String)>,
    pub overlays: Vec<String>,
    pub scenarios: Vec<String>,
    pub options: Vec<String>,
    /// Where scenarios are looked up (the options of the scenario named after `new`).
    pub root: Option<std::path::PathBuf>,
    /// The game these words were taken from (scenario id, rules' content hash).
    pub game: Option<(String, String)>,
}

fn game_key(s: &Session) -> Option<(String, String)> {
    s.game.as_ref().map(|g| (g.scenario.id.clone(), g.ruleset.content_hash.clone()))
}

impl Words {
    pub fn from_session(s: &Session) -> Words {
        let mut w = Words {
            commands: s.command_names(),
            scenarios: s.scenario_names(),
            root: Some(s.root.clone()),
            game: game_key(s),
            ..Default::default()
        };
        if let Some(g) = &s.game {
            let st = g.state();
            w.units = st.units.keys().map(String::from).collect();
            let map = &g.scenario.map;
            w.hexes = map.hexes.keys().map(|h| map.fmt(*h)).collect();
            w.places = map.places.values().filter_map(|(n, hs)| hs.first().map(|h| (n.clone(), map.fmt(*h)))).collect();
            w.overlays = g.shared.borrow().overlays.keys().cloned().collect();
            w.options = g.scenario.options.keys().cloned().collect();
        }
        w
    }

    /// Brings the words up to date after a command. Units, hexes, places, verbs and overlays
    /// change only with the game or its rules (`new`, `load`, `reload`), so they are rebuilt
    /// then; the list of scenarios is read again every time.
    pub fn refresh(&mut self, s: &Session) {
        if game_key(s) == self.game {
            self.scenarios = s.scenario_names();
        } else {
            *self = Words::from_session(s);
        }
    }

    /// Completion candidates for the word being typed at the end of `line`.
    /// Returns the byte offset where the word starts and the candidates.
    pub fn complete(&self, line: &str) -> (usize, Vec<Pair>) {
        self.complete_with(line, None)
    }

    /// Like [`Words::complete`], with what the game says may be typed there (`ruled`: the
    /// pending decision's options after `choose`, a verb's legal arguments; see
    /// `Session::candidates`), which then replaces every unit and hex.
    pub fn complete_with(&self, line: &str, ruled: Option<Vec<String>>) -> (usize, Vec<Pair>) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at_new_word = line.ends_with(char::is_whitespace) || line.is_empty();
        let index = if at_new_word { words.len() } else { words.len() - 1 };
        let mut start = if at_new_word { line.len() } else { line.len() - words.last().map_or(0, |w| w.len()) };
        let mut typed = if at_new_word { "" } else { words[words.len() - 1] };
        // unit lists: complete after the last comma
        if let Some(i) = typed.rfind(',') {
            start += i + 1;
            typed = &typed[i + 1..];
        }
        let lower = typed.to_lowercase();
        let pairs = |items: &mut dyn Iterator<Item = String>| -> Vec<Pair> {
            items
                .filter(|c| c.to_lowercase().starts_with(&lower))
                .map(|c| Pair { display: c.clone(), replacement: c })
                .collect()
        };
        if index == 0 {
            // a command word is followed by its arguments: the space comes with it
            let mut out = pairs(&mut self.commands.iter().cloned());
            for p in &mut out {
                p.replacement.push(' ');
            }
            return (start, out);
        }
        if let Some(ruled) = ruled {
            // a place's name completes to its hex where the hex is one of them
            let mut places: Vec<Pair> = if typed.is_empty() {
                Vec::new()
            } else {
                self.places
                    .iter()
                    .filter(|(n, h)| n.to_lowercase().starts_with(&lower) && ruled.contains(h))
                    .map(|(n, h)| Pair { display: format!("{n} ({h})"), replacement: h.clone() })
                    .collect()
            };
            let mut out = pairs(&mut ruled.into_iter());
            out.append(&mut places);
            return (start, out);
        }
        let verb = words[0];
        match verb {
            "help" => return (start, pairs(&mut self.commands.iter().cloned())),
            "new" => {
                if words.get(index.wrapping_sub(1)) == Some(&"--option") {
                    // the options of the scenario being started, else those of the game loaded
                    let named = match (&self.root, words.get(1)) {
                        (Some(root), Some(name)) if !name.starts_with('-') => {
                            crate::ruleset::resolve_scenario(root, name)
                                .map(|(p, _, _)| crate::scenario::declared_options(&p))
                                .unwrap_or_default()
                        }
                        _ => Vec::new(),
                    };
                    if !named.is_empty() {
                        return (start, pairs(&mut named.into_iter().map(|(k, _)| k)));
                    }
                    return (start, pairs(&mut self.options.iter().cloned()));
                }
                if typed.starts_with('-') {
                    return (start, pairs(&mut ["--seed", "--option"].iter().map(|s| s.to_string())));
                }
                return (start, pairs(&mut self.scenarios.iter().cloned()));
            }
            _ => {}
        }
        let mut out: Vec<Pair> = Vec::new();
        if verb == "map" && index == 1 {
            out.extend(pairs(&mut self.overlays.iter().cloned()));
        }
        out.extend(pairs(&mut self.units.iter().cloned()));
        if !typed.is_empty() {
            out.extend(pairs(&mut self.hexes.iter().cloned()));
            let mut places: Vec<Pair> = self
                .places
                .iter()
                .filter(|(n, _)| n.to_lowercase().starts_with(&lower))
                .map(|(n, h)| Pair { display: format!("{n} ({h})"), replacement: h.clone() })
                .collect();
            out.append(&mut places);
        }
        (start, out)
    }
}

pub struct ReplHelper {
    pub words: Rc<RefCell<Words>>,
    /// The session, asked at Tab what the game says may be typed (skipped while a command runs).
    session: Option<Rc<RefCell<Session>>>,
    /// The state (its hash) at which `next` last warned of something left undone.
    warned_at: Option<String>,
    hinter: HistoryHinter,
    files: FilenameCompleter,
    lua: crate::lua::SyntaxChecker,
}

impl ReplHelper {
    pub fn new(words: Rc<RefCell<Words>>) -> ReplHelper {
        let lua = crate::lua::SyntaxChecker::default();
        ReplHelper {
            words,
            session: None,
            warned_at: None,
            hinter: HistoryHinter::new(),
            files: FilenameCompleter::new(),
            lua,
        }
    }

    /// Completion also asks the session what the game says is legal (`Session::candidates`).
    pub fn with_session(mut self, session: Rc<RefCell<Session>>) -> ReplHelper {
        self.session = Some(session);
        self
    }

    /// At a terminal, before `line` runs: the first `next` while the rules say something is left
    /// undone (`umpire.unfinished`) is held, and these lines are printed instead; a second
    /// `next` on the same state goes on.
    pub fn hold_next(&mut self, session: &Session, line: &str) -> Option<Vec<String>> {
        if line.trim() != "next" {
            return None;
        }
        let here = session.hash();
        if here.is_some() && self.warned_at == here {
            self.warned_at = None;
            return None;
        }
        let mut left = session.unfinished();
        if left.is_empty() {
            return None;
        }
        self.warned_at = here;
        left.push("`next` again ends the segment anyway".into());
        Some(left)
    }

    /// True when `line` is `lua ...` (or `= ...`) whose chunk is not finished yet.
    pub fn lua_incomplete(&self, line: &str) -> bool {
        let t = line.trim_start();
        let code = if let Some(c) = t.strip_prefix("lua ") {
            c.to_string()
        } else if let Some(c) = t.strip_prefix('=') {
            format!("return {c}")
        } else {
            return false;
        };
        self.lua.incomplete(&code)
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;
    fn complete(&self, line: &str, pos: usize, ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        let words: Vec<&str> = head.split_whitespace().collect();
        let wants_file = matches!(words.first(), Some(&"save") | Some(&"load"))
            || (words.first() == Some(&"map")
                && words.get(1) == Some(&"--svg")
                && (words.len() == 3 || head.ends_with(' ') && words.len() == 2));
        if wants_file && (words.len() > 1 || head.ends_with(' ')) {
            return self.files.complete(line, pos, ctx);
        }
        // what the game says may be typed here: looked up now, unless a command is running
        let ruled = self.session.as_ref().and_then(|s| s.try_borrow().ok()).and_then(|s| s.candidates(head));
        Ok(self.words.borrow().complete_with(head, ruled))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        self.hinter.hint(line, pos, ctx)
    }
}

/// A history hint is dimmed, so that it does not look typed (Enter does not take it). The line
/// editor draws it only when its colour mode is on: `main` forces it at a terminal, since
/// rustyline switches highlighting off under `NO_COLOR`, and dimming is no colour.
impl Highlighter for ReplHelper {
    fn highlight_hint<'h>(&self, hint: &'h str) -> std::borrow::Cow<'h, str> {
        std::borrow::Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }
}

/// The prompt fitted to a terminal `width` columns wide: when it would take more than 3/5 of
/// the line, the phase path is shortened (an outer part `Name: detail` keeps its detail, then
/// outer parts go), then the pending question is cut; the turn, the side and the last step
/// stay.
pub fn fit_prompt(prompt: &str, width: usize) -> String {
    let limit = (width * 3 / 5).max(24);
    let len = |p: &str| p.chars().count();
    if len(prompt) <= limit {
        return prompt.to_string();
    }
    let Some(body) = prompt.strip_suffix(" › ") else { return prompt.to_string() };
    let mut parts: Vec<String> = body.split(" · ").map(String::from).collect();
    let join = |parts: &[String]| format!("{} › ", parts.join(" · "));
    // the phase path: the part holding ` › ` (or the third part, after turn and side)
    if let Some(i) = parts.iter().position(|p| p.contains(" › ") && !p.starts_with("? ")) {
        let mut steps: Vec<String> = parts[i].split(" › ").map(String::from).collect();
        let last = steps.len() - 1;
        for s in &mut steps[..last] {
            if let Some((_, detail)) = s.split_once(": ") {
                *s = detail.to_string();
            }
        }
        parts[i] = steps.join(" › ");
        while len(&join(&parts)) > limit && steps.len() > 1 {
            steps.remove(0);
            parts[i] = format!("… › {}", steps.join(" › "));
        }
    }
    // a long question: cut at the limit
    let over = len(&join(&parts)).saturating_sub(limit);
    if over > 0
        && let Some(q) = parts.iter_mut().find(|p| p.starts_with("? "))
    {
        let keep = len(q).saturating_sub(over + 1).max(6);
        *q = format!("{}…", q.chars().take(keep).collect::<String>());
    }
    join(&parts)
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        if self.lua_incomplete(ctx.input()) {
            return Ok(ValidationResult::Incomplete);
        }
        Ok(ValidationResult::Valid(None))
    }
}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        Words {
            commands: vec!["move".into(), "map".into(), "new".into(), "next".into(), "help".into()],
            units: vec!["3SS".into(), "39PzK".into(), "B1".into()],
            hexes: vec!["17.14".into(), "17.15".into()],
            places: vec![("Stargard".into(), "17.14".into()), ("Stettin".into(), "04.18".into())],
            overlays: vec!["zoc".into(), "reach".into()],
            scenarios: vec!["stargard-solstice".into(), "fixture".into()],
            options: vec!["op16_1".into()],
            root: None,
            game: None,
        }
    }

    fn replacements(line: &str) -> Vec<String> {
        words().complete(line).1.into_iter().map(|p| p.replacement).collect()
    }

    #[test]
    fn commands_then_arguments() {
        // a command comes with the space after it
        assert_eq!(replacements("mo"), ["move "]);
        assert_eq!(replacements("n"), ["new ", "next "]);
        assert_eq!(replacements("move 3"), ["3SS", "39PzK"]);
        assert_eq!(replacements("move 3SS,b"), ["B1"]);
        assert_eq!(words().complete("move 3SS,b").0, 9);
        // a place completes to its hex
        assert_eq!(replacements("move 3SS Starg"), ["17.14"]);
        let (_, p) = words().complete("move 3SS Starg");
        assert_eq!(p[0].display, "Stargard (17.14)");
        assert_eq!(replacements("move 3SS 17.1"), ["17.14", "17.15"]);
        assert_eq!(replacements("new st"), ["stargard-solstice"]);
        assert_eq!(replacements("new stargard-solstice --option o"), ["op16_1"]);
        assert_eq!(replacements("map z"), ["zoc"]);
        assert_eq!(replacements("help ma"), ["map"]);
    }

    #[test]
    fn options_come_from_the_scenario_named_before_any_game() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let w = Words::from_session(&Session::with_root(&root));
        assert!(w.options.is_empty());
        let got: Vec<String> =
            w.complete("new stargard-solstice --option op16_").1.into_iter().map(|p| p.replacement).collect();
        assert_eq!(got, ["op16_1", "op16_2", "op16_3", "op16_4"]);
        let got: Vec<String> = w
            .complete("new stargard-solstice/campaign --option op16_3 --option op16_2")
            .1
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert_eq!(got, ["op16_2"]);
    }

    #[test]
    fn words_are_rebuilt_when_the_game_changes() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut s = Session::with_root(&root);
        let mut w = Words::from_session(&s);
        assert!(w.units.is_empty());
        s.execute("new tests/fixtures/scenarios/fixture/basic.toml");
        w.refresh(&s);
        assert!(w.units.iter().any(|u| u == "BA") && !w.hexes.is_empty());
        let before = w.units.clone();
        s.execute("auto");
        w.refresh(&s);
        assert_eq!(w.units, before);
    }

    #[test]
    fn what_the_game_says_replaces_units_and_hexes() {
        let w = words();
        let ruled = || Some(vec!["17.14".to_string(), "0418".to_string()]);
        let got: Vec<String> = w.complete_with("choose ", ruled()).1.into_iter().map(|p| p.replacement).collect();
        assert_eq!(got, ["17.14", "0418"]);
        let got: Vec<String> = w.complete_with("attack 1", ruled()).1.into_iter().map(|p| p.replacement).collect();
        assert_eq!(got, ["17.14"]);
        // without it, every unit (and hex once something is typed)
        assert_eq!(w.complete_with("choose ", None).1.len(), 3);
    }

    #[test]
    fn the_prompt_is_shortened_to_fit() {
        let long = "T1 · German · Command Phase: 3SS-PZ-HQ activated › Movement › ";
        assert_eq!(fit_prompt(long, 120), long);
        let short = fit_prompt(long, 80);
        assert_eq!(short, "T1 · German · 3SS-PZ-HQ activated › Movement › ");
        assert!(short.chars().count() <= 48);
        let narrow = fit_prompt(long, 50);
        assert_eq!(narrow, "T1 · German · … › Movement › ");
        let q = "T1 · ? German: set up 139/233 within 1 of 16.17 and then something more › ";
        let cut = fit_prompt(q, 80);
        assert!(
            cut.chars().count() <= 48 && cut.starts_with("T1 · ? German: set up") && cut.ends_with("… › "),
            "{cut}"
        );
    }

    #[test]
    fn multi_line_lua() {
        let h = ReplHelper::new(Rc::new(RefCell::new(words())));
        assert!(h.lua_incomplete("lua for i = 1, 3 do"));
        assert!(h.lua_incomplete("lua function f()\n  return 1"));
        assert!(!h.lua_incomplete("lua for i = 1, 3 do end"));
        assert!(!h.lua_incomplete("lua x = = 1"));
        assert!(h.lua_incomplete("= {1, 2"));
        assert!(!h.lua_incomplete("move B1 0101"));
    }
}

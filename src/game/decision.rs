//! The decision a command waits for: the rule thread suspended on `umpire.ask`, its
//! question, and the answers (`choose`, `auto`) checked against the question.

use super::{Flow, Game};
use crate::contract::Call;
use crate::contract::Question;
use crate::error::{Error, Result};
use crate::names::{resolve_hex, resolve_unit};
use crate::state::GameState;
use crate::text::{Pick, pick};

pub struct Pending {
    pub(super) thread: crate::lua::RuleThread,
    pub question: Question,
    pub(super) before: GameState,
    pub(super) lines: Vec<String>,
    /// How the command's thread started (None: it cannot be started again).
    pub(super) start: Option<Call>,
}

impl Pending {
    /// The state before the command that waits.
    pub fn before(&self) -> &GameState {
        &self.before
    }
    /// The command and the answers given so far.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }
}

/// A question as players read it: prompt, rule, options and the default.
pub fn describe_question(q: &Question) -> String {
    let mut s = match &q.side {
        Some(side) => format!("{side}: {}", q.prompt),
        None => q.prompt.clone(),
    };
    if let Some(r) = &q.rule {
        s = format!("{s} [{r}]");
    }
    if !q.options.is_empty() {
        s.push_str(&format!(" — options: {}", q.options.join(", ")));
    } else if q.kind != "text" {
        s.push_str(&format!(" — a {}", q.kind));
    }
    if let Some(d) = &q.default {
        s.push_str(&format!(" (auto: {d})"));
    }
    s
}

impl Game {
    /// Lines of the pending command so far (for saves).
    pub fn pending_lines(&self) -> Vec<String> {
        self.pending.as_ref().map(|p| p.lines.clone()).unwrap_or_default()
    }

    /// Answers the pending decision (`None`: the rule's default) and runs the command on to
    /// its end or its next question. A bad answer leaves the decision pending.
    pub fn answer(&mut self, answer: Option<&str>) -> Result<Vec<String>> {
        let Some(p) = self.pending.take() else {
            return Err(Error::Usage("no decision is pending".into()));
        };
        let checked = match answer {
            Some(a) => self
                .check_answer(&p.question, a)
                .map_err(|e| Error::Usage(format!("{e}; {}", describe_question(&p.question)))),
            None => match &p.question.default {
                Some(d) => self.check_answer(&p.question, d).map_err(|e| {
                    Error::Lua(format!(
                        "the rule's default answer is not valid ({e}): a bug in the ruleset; choose instead: {}",
                        describe_question(&p.question)
                    ))
                }),
                None => Err(Error::Usage(format!("this decision has no default: {}", describe_question(&p.question)))),
            },
        };
        let value = match checked {
            Ok(v) => v,
            Err(e) => {
                self.pending = Some(p);
                return Err(e);
            }
        };
        let mut lines = p.lines.clone();
        lines.push(format!("choose {value}"));
        let mut out = vec![format!("→ {value}")];
        let r = self.host.resume(&p.thread, &value).and_then(|s| Flow::of(&p.thread, s));
        if let Err(e) = r {
            // a refused (or failed) answer: the command goes back to its question, the state
            // (dice included) as it was before the answer
            let printed = self.take_out();
            return match self.rewind(&p) {
                Ok(pending) => {
                    let mut printed = printed;
                    printed.push(format!("? still to decide: {}", describe_question(&pending.question)));
                    self.pending = Some(pending);
                    self.shared.borrow_mut().out = printed;
                    Err(e)
                }
                Err(why) => {
                    self.shared.borrow_mut().out = printed;
                    let note =
                        format!("\n(the command could not be brought back to its question: {why}; it was rolled back)");
                    self.finish(Err(e), p.before, lines).map(|_| vec![]).map_err(|e| match e {
                        Error::Lua(m) => Error::Lua(m + &note),
                        Error::Refused { rule, msg } => Error::Refused { rule, msg: msg + &note },
                        other => other,
                    })
                }
            };
        }
        // a next question of the same command is asked again from the same start
        self.last_start = p.start;
        out.extend(self.finish(r, p.before, lines)?);
        Ok(out)
    }

    /// Runs the pending command again from the state before it, giving the answers given so
    /// far, back to the same question: the rules are deterministic, so this is the state the
    /// question was asked in.
    fn rewind(&mut self, p: &Pending) -> std::result::Result<Pending, String> {
        self.rewind_to(p.start.clone(), &p.before, &p.lines, &p.question.prompt)
    }

    /// Starts a command (`start`, from `before`) again and gives it the answers of `lines`
    /// (after its first), expecting the question `prompt`. On failure the state is `before`.
    pub(super) fn rewind_to(
        &mut self,
        start: Option<Call>,
        before: &GameState,
        lines: &[String],
        prompt: &str,
    ) -> std::result::Result<Pending, String> {
        let start = start.ok_or("its start was not kept")?;
        self.restore(before.clone());
        // running the command again is the host's work: it has a budget of its own
        let _budget = self.host.own_budget();
        let mut flow = self.run(start.clone()).map_err(|e| e.to_string());
        for line in &lines[1..] {
            let Some(answer) = line.strip_prefix("choose ") else {
                flow = Err(format!("unexpected line `{line}`"));
                break;
            };
            flow = match flow {
                Ok(Flow::Ask(thread, _)) => {
                    self.host.resume(&thread, answer).and_then(|s| Flow::of(&thread, s)).map_err(|e| e.to_string())
                }
                Ok(Flow::Done(_)) => Err("it ended before its question".into()),
                Err(e) => Err(e),
            };
        }
        self.take_out();
        self.last_start = None;
        let why = match flow {
            Ok(Flow::Ask(thread, question)) if question.prompt == prompt => {
                return Ok(Pending {
                    thread,
                    question,
                    before: before.clone(),
                    lines: lines.to_vec(),
                    start: Some(start),
                });
            }
            Ok(_) => "it did not reach the same question again".to_string(),
            Err(e) => e,
        };
        self.restore(before.clone());
        Err(why)
    }

    /// Whether a line typed while a decision is pending is an answer given without `choose`:
    /// one word that is one of the options (ignoring case) or, for a question without options,
    /// a unit or hex of the kind asked for. A prefix of an option is not enough (it could be a
    /// mistyped command); `choose` takes prefixes.
    pub fn is_bare_answer(&self, line: &str) -> bool {
        let Some(p) = &self.pending else { return false };
        let q = &p.question;
        let line = line.trim();
        if line.is_empty() || line.contains(char::is_whitespace) {
            return false;
        }
        if !q.options.is_empty() {
            let hex = || {
                let w = self.shared.borrow();
                resolve_hex(&w.map, line).map(|h| w.map.fmt(h)).ok()
            };
            return q.options.iter().any(|o| o.eq_ignore_ascii_case(line))
                || (q.kind == "hex" && hex().is_some_and(|h| q.options.contains(&h)));
        }
        matches!(q.kind.as_str(), "unit" | "hex" | "yesno") && self.check_answer(q, line).is_ok()
    }

    /// The answer as the rules get it: one of the options (unique prefix), a unit id, a printed
    /// hex id, a number, yes/no, or free text.
    fn check_answer(&self, q: &Question, a: &str) -> std::result::Result<String, String> {
        let a = a.trim();
        if a.is_empty() {
            return Err("choose what?".into());
        }
        if !q.options.is_empty() {
            return match pick(a, q.options.iter().map(String::as_str)) {
                Pick::One(o) => Ok(o.to_string()),
                Pick::None(_) => Err(format!("'{a}' is not one of the options")),
                Pick::Many(hits) => Err(format!("'{a}' could be {}", hits.join(", "))),
            };
        }
        let w = self.shared.borrow();
        match q.kind.as_str() {
            "unit" => resolve_unit(&w.state, a),
            "hex" => resolve_hex(&w.map, a).map(|h| w.map.fmt(h)),
            "number" => match a.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(a.to_string()),
                _ => Err(format!("'{a}' is not a number")),
            },
            "yesno" => match a.to_lowercase().as_str() {
                "y" | "yes" => Ok("yes".into()),
                "n" | "no" => Ok("no".into()),
                _ => Err("answer yes or no".into()),
            },
            _ => Ok(a.to_string()),
        }
    }
}

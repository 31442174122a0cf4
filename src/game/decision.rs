//! The decision a command waits for: the rule thread suspended on `umpire.ask`, its
//! question, and the answers (`choose`, `auto`) checked against the question.

use super::{Flow, Game};
use crate::error::{Error, Result};
use crate::lua::Question;
use crate::names::{resolve_hex, resolve_unit};
use crate::state::GameState;
use crate::text::{Pick, pick};
use mlua::Thread;

pub struct Pending {
    pub(super) thread: Thread,
    pub question: Question,
    pub(super) before: GameState,
    pub(super) lines: Vec<String>,
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
    let mut s = q.prompt.clone();
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
        let r = self.host.resume(&p.thread, value.clone()).and_then(|s| Flow::of(&p.thread, s));
        out.extend(self.finish(r, p.before, lines)?);
        Ok(out)
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

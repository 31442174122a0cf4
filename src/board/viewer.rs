//! The board's view of the game: a session of its own on a thread of its own, made from a
//! snapshot of the game (its own VM over a copy of the state), that answers what the pages ask
//! of the rules: the picture of a position as a side sees it, `show`, the overlays.

use super::Shared;
use crate::session::{Session, Snapshot};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

/// What a page asks.
pub(super) enum What {
    /// The map as SVG, with `map`'s arguments (an overlay and its arguments, or nothing).
    Svg(String),
    /// What `show <what>` says, as a JSON list of lines.
    Show(String),
    /// The rules' overlays, as JSON.
    Overlays,
    /// The step's command and what it printed, as JSON, without the lines that name a unit the
    /// side may not see before or after it (fog of war).
    Log,
}

/// A question for the view: of position `step` of the timeline, as `side` sees it.
pub(super) struct Ask {
    pub step: usize,
    pub side: Option<String>,
    pub what: What,
    pub reply: Sender<Result<String, String>>,
}

pub(super) struct Viewer {
    root: PathBuf,
    shared: Arc<Shared>,
    /// The session and the snapshot it was made from (made again for another game or rules).
    session: Option<(Snapshot, Session)>,
}

impl Viewer {
    /// Answers the questions of `asked` on a thread of its own until the board stops.
    pub(super) fn spawn(root: PathBuf, shared: Arc<Shared>, asked: Receiver<Ask>) {
        let _ = std::thread::Builder::new().name("board view".into()).spawn(move || {
            let mut v = Viewer { root, shared, session: None };
            for a in asked {
                let r = v.answer(&a);
                let _ = a.reply.send(r);
            }
        });
    }

    fn answer(&mut self, a: &Ask) -> Result<String, String> {
        let (step, before) = {
            let t = self.shared.timeline.lock().map_err(|_| "the board's timeline is lost".to_string())?;
            let step = t.steps.get(a.step).cloned().ok_or("no such step")?;
            (step, a.step.checked_sub(1).and_then(|i| t.steps.get(i)).map(|s| s.snap.clone()))
        };
        let snap = step.snap.clone();
        if !self.session.as_ref().is_some_and(|(s, _)| s.same_game(&snap)) {
            let s = Session::viewer(self.root.clone(), &snap).map_err(|e| e.to_string())?;
            self.session = Some((snap.clone(), s));
        }
        let (_, s) = self.session.as_mut().expect("made above");
        s.view(&snap.state, a.side.as_deref()).map_err(|e| e.to_string())?;
        match &a.what {
            What::Svg(args) => s.svg(args).map_err(|e| e.to_string()),
            What::Show(what) => s.show_lines(what).map(|l| serde_json::json!(l).to_string()).map_err(|e| e.to_string()),
            What::Log => {
                let mut hidden = s.game.as_ref().map(|g| g.hidden_units()).unwrap_or_default();
                if let Some(b) = before.filter(|b| b.same_game(&snap)) {
                    s.view(&b.state, a.side.as_deref()).map_err(|e| e.to_string())?;
                    hidden.extend(s.game.as_ref().map(|g| g.hidden_units()).unwrap_or_default());
                }
                let names = |l: &str| hidden.iter().any(|id| names_unit(l, id));
                let shown = |l: &String| {
                    if names(l) {
                        "(a line on a unit this side may not see: fog of war)".to_string()
                    } else {
                        l.clone()
                    }
                };
                let line = if names(&step.line) {
                    "(a command on a unit this side may not see)".to_string()
                } else {
                    step.line.clone()
                };
                let out: Vec<String> = step.out.iter().map(shown).collect();
                Ok(serde_json::json!({ "i": a.step, "line": line, "out": out }).to_string())
            }
            What::Overlays => {
                let list: Vec<serde_json::Value> = s
                    .overlay_infos()
                    .into_iter()
                    .map(|o| serde_json::json!({ "name": o.name, "usage": o.usage, "help": o.help }))
                    .collect();
                Ok(serde_json::Value::Array(list).to_string())
            }
        }
    }
}

/// Whether `line` names the unit `id` (as a word of its own: `9J` is not in `19J`).
fn names_unit(line: &str, id: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '_' || c == '-');
    line.match_indices(id)
        .any(|(i, _)| !part(line[..i].chars().next_back()) && !part(line[i + id.len()..].chars().next()))
}

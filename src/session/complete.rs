//! What Tab may offer for the word being typed: a pending question's options, or what a verb's
//! completer (`umpire.complete`) says is legal at that argument.

use super::Session;
use super::odds::odds_verbs;
use crate::contract::{ArgKind, ArgSpec, VerbSpec};

impl Session {
    /// What Tab may offer for the word being typed at the end of `line`, when the game can tell
    /// (`None`: complete from every unit and hex): the pending decision's options after
    /// `choose`, or what the verb's completer (`umpire.complete`) says is legal there. Looks
    /// only: the state is put back.
    pub fn candidates(&self, line: &str) -> Option<Vec<String>> {
        let g = self.game.as_ref()?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let at_new_word = line.is_empty() || line.ends_with(char::is_whitespace);
        let index = if at_new_word { words.len() } else { words.len().checked_sub(1)? };
        let verb = *words.first()?;
        if index == 0 {
            return None;
        }
        if verb == "choose" {
            let p = g.pending.as_ref()?;
            return (!p.question.options.is_empty()).then(|| p.question.options.clone());
        }
        // `odds` completes as the combat verb it evaluates (named first, or the one of this step)
        let (verb, words, index) = if verb == "odds" {
            let now = odds_verbs(g);
            match now.iter().find(|v| words.get(1).is_some_and(|w| *w == v.spec.name) && index > 1) {
                Some(v) => (v.spec.name.clone(), words[1..].to_vec(), index - 1),
                None => match now.iter().filter(|v| v.allowed).collect::<Vec<_>>().as_slice() {
                    [one] => (one.spec.name.clone(), words, index),
                    _ => return None,
                },
            }
        } else {
            (verb.to_string(), words, index)
        };
        let verb = verb.as_str();
        if !g.verbs().contains_key(verb) {
            return None;
        }
        let before: Vec<String> = words[1..index].iter().map(|w| w.to_string()).collect();
        let (r, _) = g.read_only(|g| g.host().complete(verb, index, &before));
        if let Some(list) = r.ok().flatten() {
            return Some(list);
        }
        // what the ruleset lists as legal now (`umpire.actions`): the word at this place of each
        // listed command that begins with the words typed
        if let Ok(Some(listed)) = g.actions(&crate::contract::ActionFilter::default()) {
            let mut out: Vec<String> = Vec::new();
            for a in &listed {
                let w: Vec<&str> = a.cmd.split_whitespace().collect();
                if w.first() == Some(&verb) && w.len() > index && w[1..index].iter().zip(&before).all(|(x, y)| x == y) {
                    let c = w[index].to_string();
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
            if !out.is_empty() {
                return Some(out);
            }
        }
        // the rules cannot tell: what the verb's usage line asks for there
        let spec = g.verbs().get(verb).cloned()?;
        let map = &g.scenario.map;
        match arg_at(&spec, &before)?.kind {
            // (once something is typed, the editor's own completion also turns a place's name
            // into its hex)
            ArgKind::Hex if at_new_word => Some(map.hexes.keys().map(|h| map.fmt(*h)).collect()),
            ArgKind::Unit | ArgKind::Units => {
                let st = g.state();
                Some(st.units.values().filter(|u| !g.is_hidden(&st, u)).map(|u| u.id.clone()).collect())
            }
            _ => None,
        }
    }

    /// What the rules say is left undone before `next` ends the segment (`umpire.unfinished`).
    pub fn unfinished(&self) -> Vec<String> {
        let Some(g) = self.game.as_ref().filter(|g| g.pending.is_none()) else { return vec![] };
        let (r, _) = g.read_only(|g| g.host().hook_lines("unfinished"));
        r.unwrap_or_default()
    }
}

/// The argument of `spec` that the word after `before` would be, by the usage line: keywords
/// typed are matched, optional ones skipped, a repeated argument goes on to its keyword.
fn arg_at<'a>(spec: &'a VerbSpec, before: &[String]) -> Option<&'a ArgSpec> {
    let mut at = 0;
    for w in before {
        loop {
            let a = spec.args.get(at)?;
            match &a.kind {
                ArgKind::Literal(l) if l.eq_ignore_ascii_case(w) => {
                    at += 1;
                    break;
                }
                ArgKind::Literal(_) if a.optional => at += 1,
                ArgKind::Literal(_) => return None,
                // a repetition goes on to a keyword a later argument expects (as `parse_args`)
                _ if a.repeated => {
                    if super::args::keywords_after(spec, at).iter().any(|l| l.eq_ignore_ascii_case(w)) {
                        at += 1;
                        continue;
                    }
                    break;
                }
                _ => {
                    at += 1;
                    break;
                }
            }
        }
    }
    // an optional keyword not typed yet: the argument after it
    spec.args[at.min(spec.args.len())..].iter().find(|a| !matches!(a.kind, ArgKind::Literal(_)) || !a.optional)
}

//! `odds`: every outcome of a combat verb (one marked `odds = true`) and its probability,
//! found by running the verb once per sequence of die faces with the dice forced, answering
//! its questions with their defaults. A run ends when the verb returns, or as soon as the
//! rules declare its outcome (`umpire.outcome`, before they apply it). A run that reaches
//! `umpire.outcome_of` ends there with the outcomes of every face of the dice it names (the
//! rules' decision called once per combination, no die rolled), so a combat whose result is
//! read off both sides' dice takes one run, not one per pair of faces. Nothing is committed
//! and the state is put back.
//!
//! A question asked with `odds = true` is a choice that changes the result (a defender's
//! tactical air): the outcomes are enumerated once more for each of its options, the first
//! such question of the first run forced to that option.

use super::Game;
use crate::contract::{Arg, Call, Question, Step};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// Runs of the verb at most (each one a sequence of die faces).
const MAX_RUNS: usize = 20_000;
/// Questions one run may ask at most.
const MAX_QUESTIONS: usize = 100;

/// The outcomes of a command.
pub struct Odds {
    /// The log of the first run up to its first roll: how the odds were worked out.
    pub explanation: Vec<String>,
    /// Each result in the order first seen, with its probability and the die sequences that
    /// give it.
    pub results: Results,
    /// A choice that changes the result (`umpire.ask{ odds = true }`): the question, and the
    /// results for each of its options.
    pub by_answer: Option<(Question, Vec<(String, Results)>)>,
}

/// Results with their probabilities and die sequences.
pub type Results = Vec<(String, f64, Vec<Vec<u32>>)>;

impl Game {
    /// Enumerates the outcomes of `verb` with its arguments (made afresh for every run: rule
    /// code may change the tables it is handed).
    pub fn odds(&self, verb: &str, args: &[Arg]) -> Result<Odds> {
        let before = self.snapshot();
        let r = self.enumerate(verb, args, &before, None).and_then(|(mut odds, choice)| {
            if let Some(q) = choice {
                let mut each = Vec::new();
                for option in &q.options {
                    each.push((option.clone(), self.enumerate(verb, args, &before, Some(option))?.0.results));
                }
                odds.by_answer = Some((q, each));
            }
            Ok(odds)
        });
        {
            let mut w = self.shared.borrow_mut();
            w.state = before;
            w.probe = false;
            w.out.clear();
        }
        r
    }

    fn enumerate(
        &self,
        verb: &str,
        args: &[Arg],
        before: &crate::state::GameState,
        answer: Option<&String>,
    ) -> Result<(Odds, Option<Question>)> {
        let mut prefix: Vec<u32> = Vec::new();
        let mut choice = None;
        let mut results: BTreeMap<String, (usize, f64, Vec<Vec<u32>>)> = BTreeMap::new();
        let mut explanation = Vec::new();
        for run in 1.. {
            if run > MAX_RUNS {
                return Err(Error::Usage(format!(
                    "odds: too many outcomes to enumerate (over {MAX_RUNS} dice sequences)"
                )));
            }
            {
                let mut w = self.shared.borrow_mut();
                w.state = before.clone();
                w.state.dice.forced = prefix.iter().map(|&v| crate::dice::Forced::Face(v)).collect();
                w.state.dice.probe = Some(Vec::new());
                w.probe = true;
                w.probe_first_roll_log = None;
                w.probe_outcomes = None;
                w.out.clear();
            }
            let result = self.probe_run(verb, args, answer, if run == 1 { Some(&mut choice) } else { None })?;
            let (faces, first_roll) = {
                let w = self.shared.borrow();
                (w.state.dice.probe.clone().unwrap_or_default(), w.probe_first_roll_log)
            };
            if run == 1 {
                explanation = self.explain(before.log.len(), first_roll);
            }
            // the probability of this sequence, and the next sequence (odometer over faces)
            let mut values = prefix.clone();
            values.resize(faces.len(), 1);
            let p: f64 = faces.iter().map(|&f| 1.0 / f as f64).product();
            // (a run that reached `umpire.outcome_of` brings the outcomes of its last dice)
            for (r, q, tails) in result {
                let n = results.len();
                let e = results.entry(r).or_insert((n, 0.0, Vec::new()));
                e.1 += p * q;
                e.2.extend(tails.iter().map(|tail| values.iter().chain(tail).copied().collect::<Vec<u32>>()));
            }
            match (0..faces.len()).rev().find(|&i| values[i] < faces[i]) {
                Some(i) => {
                    prefix = values[..i].to_vec();
                    prefix.push(values[i] + 1);
                }
                None => break,
            }
        }
        let mut results: Vec<(usize, String, f64, Vec<Vec<u32>>)> =
            results.into_iter().map(|(r, (n, p, paths))| (n, r, p, paths)).collect();
        results.sort_by_key(|r| r.0);
        let results = results.into_iter().map(|(_, r, p, paths)| (r, p, paths)).collect();
        Ok((Odds { explanation, results, by_answer: None }, choice))
    }

    /// One run of the verb with the dice as forced, questions answered by their defaults (the
    /// first `odds = true` question by `answer` when given, else kept in `choice`): its
    /// outcomes, each with its probability given the dice rolled so far and the faces of the
    /// dice `umpire.outcome_of` tabulated (one outcome of probability 1 where there are none).
    fn probe_run(
        &self,
        verb: &str,
        args: &[Arg],
        answer: Option<&String>,
        mut choice: Option<&mut Option<Question>>,
    ) -> Result<crate::contract::OutcomeTable> {
        let one = |r: String| vec![(r, 1.0, vec![Vec::new()])];
        let call = Call::Verb { name: verb.to_string(), args: args.to_vec() };
        let mut step = self.host.start(&call)?;
        let mut first_choice = true;
        for _ in 0..MAX_QUESTIONS {
            match step {
                (t, Step::Ask(q)) => {
                    let mut ans = q.default.clone().unwrap_or_default();
                    if q.odds && !q.options.is_empty() && std::mem::take(&mut first_choice) {
                        match answer {
                            Some(a) => ans = a.clone(),
                            None => {
                                if let Some(c) = choice.as_deref_mut() {
                                    *c = Some(q.clone());
                                }
                            }
                        }
                    }
                    step = (t.clone(), self.host.resume(&t, &ans)?);
                }
                (_, Step::Done(v)) => return Ok(one(v.unwrap_or_else(|| "(no result)".into()))),
                (_, Step::Outcome(r)) => return Ok(one(r)),
                (_, Step::Outcomes(t)) => return Ok(t),
            }
        }
        match step.1 {
            Step::Ask(q) => Err(Error::Usage(format!("odds: too many questions ({})", q.prompt))),
            Step::Done(v) => Ok(one(v.unwrap_or_else(|| "(no result)".into()))),
            Step::Outcome(r) => Ok(one(r)),
            Step::Outcomes(t) => Ok(t),
        }
    }

    /// The log lines of the first run up to its first roll.
    fn explain(&self, log_start: usize, first_roll: Option<usize>) -> Vec<String> {
        let w = self.shared.borrow();
        let end = first_roll.unwrap_or(w.state.log.len());
        w.state
            .log
            .since(log_start)
            .take(end.saturating_sub(log_start))
            .map(|e| format!("{}{}", e.rule.as_ref().map(|r| format!("[{r}] ")).unwrap_or_default(), e.text))
            .collect()
    }
}

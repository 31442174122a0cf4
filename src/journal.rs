//! The journal of a session at the terminal: after every command that changed the game, the
//! whole game is written as a save (atomically: a complete file or the one before) to
//! `<data dir>/journals/<pid>.ump`. A closed terminal, a killed process or a crash then loses
//! nothing: the next `umpire play` says a journal is there, and `umpire play --resume` loads
//! it. A session that ends normally (the game saved, or the player chose to leave it) removes
//! its journal.

use crate::session::Session;
use std::path::{Path, PathBuf};

/// Where journals are kept.
pub fn dir() -> Option<PathBuf> {
    Some(crate::library::data_dir()?.join("journals"))
}

/// The journal this process keeps.
pub struct Journal {
    path: PathBuf,
    /// What the game was when last written (its hash, history and redo lengths), so that a
    /// command that changed nothing (a view) writes nothing.
    last: Option<(String, usize, usize)>,
    /// Why writing failed, once said (the session goes on without it).
    failed: bool,
}

impl Journal {
    /// The journal of this process, in `dir`.
    pub fn new(dir: &Path) -> Journal {
        Journal { path: dir.join(format!("{}.ump", std::process::id())), last: None, failed: false }
    }

    /// Writes the game if it changed since the last write; what to tell the player if writing
    /// failed (said once).
    pub fn update(&mut self, session: &Session) -> Option<String> {
        let g = session.game.as_ref()?;
        let now = (g.hash(), g.history.len(), g.redo_len());
        if self.failed || self.last.as_ref() == Some(&now) {
            return None;
        }
        let written = self
            .path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(|e| e.to_string())
            .and_then(|_| crate::save::write(g, &self.path, None).map_err(|e| e.to_string()));
        match written {
            Ok(()) => {
                self.last = Some(now);
                None
            }
            Err(e) => {
                self.failed = true;
                Some(format!(
                    "the session's journal cannot be written ({e}): a closed terminal would lose the game; `save` often"
                ))
            }
        }
    }

    /// The session ended as the player chose: its journal goes.
    pub fn finish(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The journals of sessions that ended without finishing (their process is gone), newest first.
pub fn left_behind(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![] };
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ump"))
        .filter(|p| !running(p))
        .filter_map(|p| Some((p.metadata().and_then(|m| m.modified()).ok()?, p)))
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, p)| p).collect()
}

/// Whether the process that keeps the journal `p` (named by its pid) still runs: another
/// terminal's session is not offered for resuming. (Where processes cannot be looked up, it
/// is taken as gone.)
fn running(p: &Path) -> bool {
    let Some(pid) = p.file_stem().and_then(|s| s.to_str()).and_then(|s| s.parse::<u32>().ok()) else { return false };
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

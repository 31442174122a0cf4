//! An append-only list that snapshots share: the game log and the record of rolls grow all
//! game long, and every undo snapshot holds a copy of the state. Entries are `Arc`s in a
//! persistent vector (`imbl::Vector`), so a clone costs nothing and an append to a shared list
//! copies at most a short chunk of pointers.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

#[derive(Clone)]
pub struct AppendLog<T> {
    entries: imbl::Vector<Arc<T>>,
    /// A digest of every entry so far, chained as they are pushed (the state hash uses it
    /// instead of serialising a log that grows all game long).
    digest: [u8; 32],
}

impl<T> Default for AppendLog<T> {
    fn default() -> Self {
        AppendLog { entries: imbl::Vector::new(), digest: [0; 32] }
    }
}

impl<T: Clone + Serialize> AppendLog<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, t: T) {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(self.digest);
        h.update(serde_json::to_vec(&t).expect("entries serialise"));
        self.digest = h.finalize().into();
        self.entries.push_back(Arc::new(t));
    }
}

impl<T> AppendLog<T> {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The chained digest of every entry.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.entries.get(i).map(|t| &**t)
    }

    pub fn last(&self) -> Option<&T> {
        self.entries.back().map(|t| &**t)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.entries.iter().map(|t| &**t)
    }

    /// The entries from `start` on.
    pub fn since(&self, start: usize) -> impl Iterator<Item = &T> + '_ {
        self.iter().skip(start)
    }
}

impl<T> std::ops::Index<usize> for AppendLog<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("index within the log")
    }
}

/// Two logs are equal when they hold the same entries: the same length and the same chained
/// digest (SHA-256 over every entry), so comparing them does not walk a log that grows all game.
impl<T> PartialEq for AppendLog<T> {
    fn eq(&self, o: &Self) -> bool {
        self.len() == o.len() && self.digest == o.digest
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for AppendLog<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Serialize> Serialize for AppendLog<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de, T: Deserialize<'de> + Clone + Serialize> Deserialize<'de> for AppendLog<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<T>::deserialize(d)?;
        let mut out = AppendLog::new();
        for t in v {
            out.push(t);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_and_append_independently() {
        let mut a = AppendLog::new();
        for i in 0..1000 {
            a.push(i);
        }
        let mut b = a.clone();
        b.push(1000);
        assert_eq!(a.len(), 1000);
        assert_eq!(b.len(), 1001);
        assert_eq!(b[1000], 1000);
        assert_eq!(a.last(), Some(&999));
        assert_eq!(a.since(998).copied().collect::<Vec<_>>(), vec![998, 999]);
        assert_eq!(a.iter().next_back(), Some(&999));
        let json = serde_json::to_string(&b).unwrap();
        let c: AppendLog<i32> = serde_json::from_str(&json).unwrap();
        assert_eq!(c, b);
        assert_ne!(c, a);
    }
}

//! Reading the library's TOML data files (scenarios, `ruleset.toml`) with `file:line:column`
//! on every syntax or shape error.
//!
//! [`parse_toml`] reads a whole file into one type and stops at its first problem. A
//! [`Reader`] reads a file part by part instead, so that one bad value does not hide the next:
//! every syntax error of the file (the parser recovers), then each part deserialized on its
//! own ([`Reader::part`]), each problem kept with its place.

use crate::error::{Error, Located, Result};
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Reads and parses a TOML file; `shown` is the name errors give it.
pub fn parse_toml<T: serde::de::DeserializeOwned>(path: &Path, shown: &str) -> Result<(T, String)> {
    let src = std::fs::read_to_string(path).map_err(|e| Error::io(shown, e))?;
    let t = toml::from_str::<T>(&src)
        .map_err(|e| Error::Data(Located::at(shown, &src, e.span(), e.message().trim().to_string())))?;
    Ok((t, src))
}

/// A TOML value of a parsed file, with its place.
pub type Part<'a> = Spanned<DeValue<'a>>;

/// The problems of one data file, collected as it is read.
pub struct Reader<'a> {
    pub file: String,
    pub src: &'a str,
    pub errors: Vec<Located>,
}

impl<'a> Reader<'a> {
    pub fn new(file: &str, src: &'a str) -> Reader<'a> {
        Reader { file: file.to_string(), src, errors: Vec::new() }
    }

    /// Notes a problem at a byte span of the file (an empty span at 0: the file as a whole).
    pub fn err<T>(&mut self, span: std::ops::Range<usize>, msg: impl Into<String>) -> Option<T> {
        let span = if span.is_empty() && span.start == 0 { None } else { Some(span) };
        self.errors.push(Located::at(&self.file, self.src, span, msg));
        None
    }

    /// The file's top-level table; None, with the problem noted, at a syntax error. Only the
    /// first syntax error is reported: what the parser makes of the rest of a broken file (an
    /// unclosed bracket swallows every line after it) would be noise.
    pub fn document(&mut self) -> Option<Spanned<DeTable<'a>>> {
        match DeTable::parse(self.src) {
            Ok(doc) => Some(doc),
            Err(e) => self.err(e.span().unwrap_or(0..0), e.message().trim().to_string()),
        }
    }

    /// One part deserialized on its own (None, with the problem noted, if it has the wrong
    /// shape).
    pub fn part<T: serde::de::DeserializeOwned>(&mut self, v: &Part<'a>) -> Option<T> {
        match T::deserialize(toml::de::ValueDeserializer::from(v.clone())) {
            Ok(t) => Some(t),
            Err(e) => self.err(e.span().unwrap_or(v.span()), e.message().trim().to_string()),
        }
    }

    /// [`Reader::part`], its problem prefixed with what the part is (`unit R2: …`).
    pub fn part_of<T: serde::de::DeserializeOwned>(&mut self, v: &Part<'a>, what: &str) -> Option<T> {
        let before = self.errors.len();
        let t = self.part(v);
        for e in &mut self.errors[before..] {
            e.msg = format!("{what}: {}", e.msg);
        }
        t
    }

    /// The entries of a table part, each key with its place (a part that is not a table is
    /// noted, and has none).
    pub fn entries<'v>(&mut self, v: &'v Part<'a>, what: &str) -> Vec<(Spanned<String>, &'v Part<'a>)> {
        match v.get_ref() {
            DeValue::Table(t) => t.iter().map(|(k, x)| (Spanned::new(k.span(), k.get_ref().to_string()), x)).collect(),
            other => {
                self.err::<()>(v.span(), format!("{what}: expected a table, found {}", other.type_str()));
                vec![]
            }
        }
    }

    /// Each entry of a table part read by `f` (an entry `f` rejects is left out).
    pub fn each<T>(
        &mut self,
        v: &Part<'a>,
        what: &str,
        mut f: impl FnMut(&mut Self, &Part<'a>) -> Option<T>,
    ) -> Vec<(Spanned<String>, T)> {
        let entries = self.entries(v, what);
        entries.into_iter().filter_map(|(k, x)| f(self, x).map(|t| (k, t))).collect()
    }

    /// The items of an array part (a part that is not an array is noted, and has none).
    pub fn items<'v>(&mut self, v: &'v Part<'a>, what: &str) -> &'v [Part<'a>] {
        match v.get_ref() {
            DeValue::Array(a) => a,
            other => {
                self.err::<()>(v.span(), format!("{what}: expected an array, found {}", other.type_str()));
                &[]
            }
        }
    }
}

/// What data files were read into, kept by their text: a file read again with the same text
/// (byte for byte) and the same key (its path, the name it is known by...) gives a copy of what
/// it gave before instead of being parsed again. Only what read without a problem is kept, so
/// a file with problems reports them afresh every time.
pub struct Memo<T> {
    kept: Mutex<Vec<(Vec<String>, String, T)>>,
}

impl<T: Clone> Default for Memo<T> {
    fn default() -> Memo<T> {
        Memo::new()
    }
}

/// Most files a [`Memo`] keeps (the oldest goes first).
const MEMO_FILES: usize = 8;

impl<T: Clone> Memo<T> {
    pub const fn new() -> Memo<T> {
        Memo { kept: Mutex::new(Vec::new()) }
    }

    /// What `src` (the text of the file `key` names) reads into: kept, else `read()`.
    pub fn read<E>(
        &self,
        key: &[&str],
        src: &str,
        read: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let same_key = |k: &Vec<String>| k.len() == key.len() && k.iter().zip(key).all(|(a, b)| a == b);
        {
            let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((_, _, t)) = kept.iter().find(|(k, s, _)| same_key(k) && s == src) {
                return Ok(t.clone());
            }
        }
        let t = read()?;
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|(k, _, _)| !same_key(k));
        if kept.len() >= MEMO_FILES {
            kept.remove(0);
        }
        kept.push((key.iter().map(|k| k.to_string()).collect(), src.to_string(), t.clone()));
        Ok(t)
    }
}

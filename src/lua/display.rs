//! Lua values as players read them (`=`, results, `show`): bounded in nodes and text, tables
//! in a fixed order.

use super::*;
use mlua::{Function, Table, Value};

/// Most bytes of text one display ([`display_value`], a line of `print`) shows: a longer one is
/// cut there and ends in "…" (display is for people).
pub const MAX_DISPLAY: usize = 64 << 10;

/// Most values and table entries one display visits (a table reached twice counts twice): a
/// wide table shared many times over is cut, not walked for ever.
pub const MAX_DISPLAY_NODES: usize = 20_000;

/// What `print` is charged: per value or table entry it shows, and per bytes of the line.
pub(super) const PRINT_CHARGE_PER_NODE: u64 = 16;

pub(super) const PRINT_BYTES_PER_CHARGE: u64 = 16;

/// Renders a Lua value for people: tables with sorted keys, handles by their `__tostring`. At
/// most [`MAX_DISPLAY`] bytes and [`MAX_DISPLAY_NODES`] values: beyond, the text ends in "…".
pub(super) fn display_value(v: &Value) -> String {
    display_values(std::slice::from_ref(v)).0
}

/// Values rendered as [`display_value`] does, separated by tabs, within one allowance of text
/// and nodes; also returns the nodes visited.
pub(super) fn display_values(vals: &[Value]) -> (String, usize) {
    let mut r = Render { out: String::new(), nodes: 0, cut: false };
    for (i, v) in vals.iter().enumerate() {
        if i > 0 {
            r.push("\t");
        }
        r.value(v, 0);
        if r.cut {
            break;
        }
    }
    (r.out, r.nodes)
}

/// A display being written: its text, the nodes visited, and whether it has been cut.
pub(super) struct Render {
    out: String,
    nodes: usize,
    cut: bool,
}

impl Render {
    /// Counts one more node; false (and the text cut) once there are too many.
    fn visit(&mut self, n: usize) -> bool {
        self.nodes += n;
        if self.nodes > MAX_DISPLAY_NODES {
            self.cut();
        }
        !self.cut
    }

    fn push(&mut self, s: &str) {
        if self.cut {
            return;
        }
        self.out.push_str(s);
        if self.out.len() > MAX_DISPLAY {
            self.cut();
        }
    }

    /// Ends the text with "…", at most [`MAX_DISPLAY`] bytes before it.
    fn cut(&mut self) {
        if self.cut {
            return;
        }
        let mut at = self.out.len().min(MAX_DISPLAY);
        while !self.out.is_char_boundary(at) {
            at -= 1;
        }
        self.out.truncate(at);
        self.out.push('…');
        self.cut = true;
    }

    /// A Lua string's text, read only as far as the display has room for (a huge string is
    /// not copied whole to show its first bytes).
    fn text(&self, s: &mlua::LuaString) -> String {
        let b = s.as_bytes();
        let room = MAX_DISPLAY.saturating_sub(self.out.len()) + 4;
        String::from_utf8_lossy(&b[..b.len().min(room)]).into_owned()
    }

    fn value(&mut self, v: &Value, depth: usize) {
        if !self.visit(1) {
            return;
        }
        match v {
            Value::Nil => self.push("nil"),
            Value::Boolean(b) => self.push(&b.to_string()),
            Value::Integer(i) => self.push(&i.to_string()),
            Value::Number(n) => {
                if n.fract() == 0.0 && n.abs() < 1e15 {
                    self.push(&format!("{n:.1}"))
                } else {
                    self.push(&format!("{n}"))
                }
            }
            Value::String(s) => {
                let t = self.text(s);
                self.push(&t)
            }
            Value::Table(t) => self.table(t, depth),
            Value::UserData(ud) => {
                let s = ud
                    .metatable()
                    .ok()
                    .and_then(|mt| mt.get::<Function>("__tostring").ok())
                    .and_then(|f| f.call::<String>(ud.clone()).ok());
                self.push(&s.unwrap_or_else(|| "<userdata>".into()));
            }
            Value::Function(_) => self.push("<function>"),
            Value::Thread(_) => self.push("<thread>"),
            Value::Error(e) => self.push(&e.to_string()),
            _ => self.push("<value>"),
        }
    }

    fn table(&mut self, t: &Table, depth: usize) {
        let t = &seal::seen_through(t.clone());
        if depth > 3 {
            self.push("{…}");
            return;
        }
        // the entries are sorted, so all of them are read, within the allowance of nodes; a
        // table with more shows its sequence part, as far as there is room
        let len = t.raw_len();
        let room = MAX_DISPLAY_NODES.saturating_sub(self.nodes);
        let mut entries: Vec<(Value, Value)> = Vec::new();
        for p in t.pairs::<Value, Value>() {
            if entries.len() >= room {
                return self.sequence(t, len, depth);
            }
            if let Ok(e) = p {
                entries.push(e);
            }
        }
        self.visit(entries.len());
        entries.sort_by(|a, b| key_order(&a.0, &b.0));
        self.push("{");
        let mut first = true;
        for (k, val) in entries {
            if self.cut {
                return;
            }
            if !first {
                self.push(", ");
            }
            first = false;
            match &k {
                Value::Integer(i) if *i >= 1 && (*i as usize) <= len => {}
                Value::String(s) => {
                    let s = self.text(s);
                    self.push(&s);
                    self.push(" = ");
                }
                other => {
                    self.push("[");
                    self.value(other, depth + 1);
                    self.push("] = ");
                }
            }
            self.inner(&val, depth);
        }
        self.push("}");
    }

    /// A table too large to sort: its sequence part, as far as there is room, then "…".
    fn sequence(&mut self, t: &Table, len: usize, depth: usize) {
        self.push("{");
        for i in 1..=len {
            if self.cut {
                return;
            }
            if i > 1 {
                self.push(", ");
            }
            match t.raw_get::<Value>(i) {
                Ok(v) => self.inner(&v, depth),
                Err(_) => break,
            }
        }
        self.cut();
    }

    /// A value inside a table at `depth`: strings quoted.
    fn inner(&mut self, v: &Value, depth: usize) {
        match v {
            Value::String(s) if self.visit(1) => {
                let s = self.text(s);
                self.push(&format!("{s:?}"));
            }
            Value::String(_) => {}
            other => self.value(other, depth + 1),
        }
    }
}

pub(super) fn key_order(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Integer(_) | Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Boolean(_) => 2,
            _ => 3,
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(&y.as_bytes()),
        _ => {
            let (ra, rb) = (rank(a), rank(b));
            if ra != rb {
                return ra.cmp(&rb);
            }
            let fa = a.as_f64().unwrap_or(0.0);
            let fb = b.as_f64().unwrap_or(0.0);
            fa.partial_cmp(&fb).unwrap_or(Ordering::Equal)
        }
    }
}

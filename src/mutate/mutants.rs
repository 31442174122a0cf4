//! The mutants of a rule file: one small change each, found by parsing the file as Lua 5.4
//! (full_moon) and kept as a span of the source and the text that replaces it, so that the
//! rest of the file, comments and layout included, is untouched.
//!
//! The changes (the [`Kind`]s):
//! * a number in a table, or compared with, one more (`3` → `4`);
//! * a comparison made strict or loose (`<` ↔ `<=`, `>` ↔ `>=`);
//! * `and` ↔ `or`;
//! * the condition of `umpire.check`, or of an `if` whose block refuses, negated;
//! * a call statement dropped.

use full_moon::ast::{
    self, Call, Expression, Field, FunctionArgs, FunctionCall, Index, Prefix, Stmt, Suffix, TableConstructor,
};
use full_moon::node::Node;
use full_moon::tokenizer::TokenReference;
use full_moon::visitors::Visitor;

/// What a mutant changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A number in a table constructor.
    Table,
    /// A comparison operator, or a number compared with.
    Comparison,
    /// `and` ↔ `or`.
    Logic,
    /// The condition of a rule check negated.
    Check,
    /// A call statement dropped.
    Statement,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::Table, Kind::Comparison, Kind::Logic, Kind::Check, Kind::Statement];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Table => "table value",
            Kind::Comparison => "comparison",
            Kind::Logic => "and/or",
            Kind::Check => "check negated",
            Kind::Statement => "statement dropped",
        }
    }

    /// The kinds that make up a ruleset's tables and rule checks (the kill rate's headline).
    pub fn is_rule_check(self) -> bool {
        self != Kind::Statement
    }
}

/// One change to one file.
#[derive(Clone, Debug)]
pub struct Mutant {
    /// The rule file, relative to the ruleset folder (`combat.lua`).
    pub file: String,
    /// The line of the change (1-based).
    pub line: usize,
    /// The bytes of the source replaced, and what replaces them.
    pub start: usize,
    pub end: usize,
    pub replacement: String,
    pub kind: Kind,
    /// The lines whose running means the change can matter (a script that runs none of them
    /// cannot notice it).
    pub reach: (usize, usize),
    /// The first line of the enclosing function or top-level statement (where the rule the
    /// change belongs to is cited).
    pub anchor: usize,
}

impl Mutant {
    /// The file's text with the change made.
    pub fn apply(&self, src: &str) -> String {
        format!("{}{}{}", &src[..self.start], self.replacement, &src[self.end..])
    }

    /// The changed line before and after, trimmed (a statement dropped over several lines
    /// shows its first line).
    pub fn diff(&self, src: &str) -> (String, String) {
        let line_start = src[..self.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[self.start..].find('\n').map_or(src.len(), |i| self.start + i);
        let before = &src[line_start..line_end];
        let after = if self.end <= line_end {
            format!("{}{}{}", &src[line_start..self.start], self.replacement, &src[self.end..line_end])
        } else {
            format!("{}{}", &src[line_start..self.start], self.replacement)
        };
        (before.trim().to_string(), after.trim().to_string())
    }
}

/// The mutants of one rule file, in source order; `Err` is the parser's first error.
pub fn of_file(file: &str, src: &str) -> Result<Vec<Mutant>, String> {
    let ast = full_moon::parse_fallible(src, full_moon::LuaVersion::lua54()).into_result().map_err(|errors| {
        errors.first().map(|e| format!("{file}: {e}")).unwrap_or_else(|| format!("{file}: does not parse"))
    })?;
    let mut c =
        Collector { file: file.to_string(), src, out: Vec::new(), statements: Vec::new(), functions: Vec::new() };
    c.visit_ast(&ast);
    c.out.sort_by_key(|m| (m.start, m.kind));
    c.out.dedup_by_key(|m| (m.start, m.end, m.replacement.clone()));
    Ok(c.out)
}

struct Collector<'a> {
    file: String,
    src: &'a str,
    out: Vec<Mutant>,
    /// The line spans of the statements around the node visited, innermost last, and whether
    /// each is simple (holds no block).
    statements: Vec<(usize, usize, bool)>,
    /// The first lines of the functions around the node visited.
    functions: Vec<usize>,
}

fn span<N: Node>(n: &N) -> Option<(usize, usize, usize, usize)> {
    let (a, b) = n.range()?;
    Some((a.bytes(), b.bytes(), a.line(), b.line()))
}

fn is_comparison(op: &ast::BinOp) -> bool {
    matches!(
        op,
        ast::BinOp::LessThan(_)
            | ast::BinOp::LessThanEqual(_)
            | ast::BinOp::GreaterThan(_)
            | ast::BinOp::GreaterThanEqual(_)
            | ast::BinOp::TwoEqual(_)
            | ast::BinOp::TildeEqual(_)
    )
}

/// `name.field(...)`: the call's first arguments, when it calls exactly that.
fn call_args<'c>(call: &'c FunctionCall, name: &str, field: &str) -> Option<Vec<&'c Expression>> {
    let Prefix::Name(n) = call.prefix() else { return None };
    if n.token().to_string() != name {
        return None;
    }
    let mut suffixes = call.suffixes();
    let Some(Suffix::Index(Index::Dot { name: f, .. })) = suffixes.next() else { return None };
    if f.token().to_string() != field {
        return None;
    }
    match suffixes.next() {
        Some(Suffix::Call(Call::AnonymousCall(args))) if suffixes.next().is_none() => match &**args {
            FunctionArgs::Parentheses { arguments, .. } => Some(arguments.iter().collect()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a block refuses directly (`umpire.refuse(...)` among its statements).
fn refuses(block: &ast::Block) -> bool {
    block.stmts().any(|s| matches!(s, Stmt::FunctionCall(c) if call_args(c, "umpire", "refuse").is_some()))
}

impl Collector<'_> {
    fn push(&mut self, at: (usize, usize, usize, usize), replacement: String, kind: Kind) {
        let (start, end, line, _) = at;
        // a change is noticed when its own line runs or, inside a simple statement (a table
        // written over several lines), when any line of the statement runs
        let reach = match self.statements.last() {
            Some(&(a, b, true)) => (a, b),
            _ => (line, line),
        };
        let anchor = self.functions.last().copied().or_else(|| self.statements.first().map(|s| s.0)).unwrap_or(line);
        self.out.push(Mutant { file: self.file.clone(), line, start, end, replacement, kind, reach, anchor });
    }

    fn number(&mut self, t: &TokenReference, kind: Kind) {
        let text = t.token().to_string();
        let Some(at) = span(t) else { return };
        let next = if let Ok(i) = text.parse::<i64>() {
            (i + 1).to_string()
        } else if let Ok(f) = text.parse::<f64>() {
            format!("{}", f + 1.0)
        } else {
            return; // hexadecimal and the like: left alone
        };
        self.push(at, next, kind);
    }

    fn negate(&mut self, e: &Expression) {
        let Some(at) = span(e) else { return };
        let text = &self.src[at.0..at.1];
        self.push(at, format!("not ({text})"), Kind::Check);
    }
}

impl Visitor for Collector<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        let simple = matches!(s, Stmt::Assignment(_) | Stmt::LocalAssignment(_) | Stmt::FunctionCall(_));
        if let Some((_, _, a, b)) = span(s) {
            self.statements.push((a, b, simple));
        }
        match s {
            Stmt::FunctionCall(c) => {
                if let Some(at) = span(c) {
                    self.push(at, "do end".into(), Kind::Statement);
                }
            }
            Stmt::If(i) if i.else_if().is_none() && refuses(i.block()) => self.negate(i.condition()),
            _ => {}
        }
    }

    fn visit_stmt_end(&mut self, s: &Stmt) {
        if span(s).is_some() {
            self.statements.pop();
        }
    }

    fn visit_function_body(&mut self, b: &ast::FunctionBody) {
        let line = span(b).map(|s| s.2).unwrap_or(0);
        self.functions.push(line);
    }

    fn visit_function_body_end(&mut self, _: &ast::FunctionBody) {
        self.functions.pop();
    }

    fn visit_function_call(&mut self, c: &FunctionCall) {
        if let Some(args) = call_args(c, "umpire", "check")
            && let Some(cond) = args.first()
        {
            self.negate(cond);
        }
    }

    fn visit_table_constructor(&mut self, t: &TableConstructor) {
        for field in t.fields() {
            let value = match field {
                Field::ExpressionKey { value, .. } | Field::NameKey { value, .. } => value,
                Field::NoKey(value) => value,
                _ => continue,
            };
            if let Some(n) = number_of(value) {
                self.number(n, Kind::Table);
            }
        }
    }

    fn visit_expression(&mut self, e: &Expression) {
        let Expression::BinaryOperator { lhs, binop, rhs } = e else { return };
        let swapped = match binop {
            ast::BinOp::LessThan(_) => Some("<="),
            ast::BinOp::LessThanEqual(_) => Some("<"),
            ast::BinOp::GreaterThan(_) => Some(">="),
            ast::BinOp::GreaterThanEqual(_) => Some(">"),
            ast::BinOp::And(_) => Some("or"),
            ast::BinOp::Or(_) => Some("and"),
            _ => None,
        };
        if let (Some(to), Some(at)) = (swapped, span(binop.token())) {
            let kind =
                if matches!(binop, ast::BinOp::And(_) | ast::BinOp::Or(_)) { Kind::Logic } else { Kind::Comparison };
            self.push(at, to.to_string(), kind);
        }
        if is_comparison(binop) {
            for side in [lhs, rhs] {
                if let Some(n) = number_of(side) {
                    self.number(n, Kind::Comparison);
                }
            }
        }
    }
}

/// The number token of a literal (`3`, `-3`).
fn number_of(e: &Expression) -> Option<&TokenReference> {
    match e {
        Expression::Number(n) => Some(n),
        Expression::UnaryOperator { unop: ast::UnOp::Minus(_), expression } => match &**expression {
            Expression::Number(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(src: &str) -> Vec<(Kind, String)> {
        of_file("t.lua", src).unwrap().iter().map(|m| (m.kind, m.apply(src))).collect()
    }

    #[test]
    fn each_kind_of_change() {
        let src = "local T = { a = 3, { 1.5 } }\nif x < 2 and y then umpire.refuse('1.1', 'no') end\n";
        let got = changes(src);
        let want = [
            (Kind::Table, "local T = { a = 4, { 1.5 } }"),
            (Kind::Table, "local T = { a = 3, { 2.5 } }"),
            (Kind::Check, "if not (x < 2 and y) then"),
            (Kind::Comparison, "if x <= 2 and y then"),
            (Kind::Comparison, "if x < 3 and y then"),
            (Kind::Logic, "if x < 2 or y then"),
            (Kind::Statement, "then do end end"),
        ];
        for (kind, text) in want {
            assert!(
                got.iter().any(|(k, s)| *k == kind && s.contains(text)),
                "no {kind:?} change to `{text}` in {got:#?}"
            );
        }
        assert_eq!(got.len(), want.len(), "{got:#?}");
    }

    #[test]
    fn a_check_is_negated_and_a_dropped_call_keeps_the_rest() {
        let src = "function f(u)\n  umpire.check(u.mp >= 2, '5.1', 'x')\n  u:reduce(1)\nend\n";
        let ms = of_file("t.lua", src).unwrap();
        let neg = ms.iter().find(|m| m.kind == Kind::Check).unwrap();
        assert_eq!(
            neg.diff(src),
            ("umpire.check(u.mp >= 2, '5.1', 'x')".into(), "umpire.check(not (u.mp >= 2), '5.1', 'x')".into())
        );
        assert_eq!(neg.anchor, 1);
        let drop = ms.iter().find(|m| m.kind == Kind::Statement && m.line == 3).unwrap();
        assert_eq!(drop.diff(src).1, "do end");
        assert!(full_moon::parse(&drop.apply(src)).is_ok());
    }

    #[test]
    fn a_table_over_several_lines_is_reached_by_any_of_its_lines() {
        let src = "local T = {\n  1,\n  2,\n}\n";
        let ms = of_file("t.lua", src).unwrap();
        assert_eq!(ms.len(), 2);
        assert!(ms.iter().all(|m| m.reach == (1, 4) && m.anchor == 1));
    }

    #[test]
    fn a_file_that_does_not_parse_is_named() {
        assert!(of_file("bad.lua", "local x = ").unwrap_err().starts_with("bad.lua: "));
    }
}

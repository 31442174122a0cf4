//! Verbs as the rules register them (`umpire.command { usage = "move <units> <hex>" }`), and
//! the typed arguments a command hands them: the session parses a line into [`Arg`]s by the
//! verb's usage, and the game runs the verb by name with them ([`Call`]).

/// One argument of a verb, parsed from its usage line.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgKind {
    Unit,
    Units,
    Hex,
    Int,
    Number,
    Word,
    Text,
    Side,
    Literal(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArgSpec {
    pub kind: ArgKind,
    pub optional: bool,
    pub repeated: bool,
    pub name: String,
}

/// A verb registered by the ruleset.
#[derive(Clone, Debug)]
pub struct VerbSpec {
    pub name: String,
    pub usage: String,
    pub help: String,
    pub rule: String,
    /// Sequence step ids where the verb may be used (empty: anywhere).
    pub phases: Vec<String>,
    pub args: Vec<ArgSpec>,
    /// `odds <same arguments>` enumerates this verb's outcomes.
    pub odds: bool,
    /// An example of use, shown by `help <verb>`.
    pub example: String,
}

/// Parses `move <units> <hex> [<hex>...]` into the verb name and its argument specs.
pub fn parse_usage(usage: &str) -> Result<(String, Vec<ArgSpec>), String> {
    let mut words = usage.split_whitespace();
    let name = words.next().ok_or("empty usage")?.to_string();
    let mut args = Vec::new();
    for w in words {
        let (optional, inner) = match w.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            Some(i) => (true, i),
            None => (false, w),
        };
        let (repeated, inner) = match inner.strip_suffix("...").or_else(|| inner.strip_suffix('…')) {
            Some(i) => (true, i),
            None => (false, inner),
        };
        let kind = match inner.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
            Some(k) => {
                let base = k.split(':').next_back().unwrap_or(k);
                match base {
                    "unit" => ArgKind::Unit,
                    "units" => ArgKind::Units,
                    "hex" => ArgKind::Hex,
                    "int" | "n" => ArgKind::Int,
                    "number" => ArgKind::Number,
                    "word" | "option" => ArgKind::Word,
                    "text" => ArgKind::Text,
                    "side" => ArgKind::Side,
                    other => {
                        return Err(format!(
                            "unknown argument type <{other}> in usage '{usage}' (known: unit, units, hex, int, number, word, text, side)"
                        ));
                    }
                }
            }
            None => ArgKind::Literal(inner.to_string()),
        };
        let name = inner.trim_matches(|c| c == '<' || c == '>').split(':').next().unwrap_or("").to_string();
        if kind == ArgKind::Text && repeated {
            return Err(format!("<text> takes the rest of the line and cannot repeat ({usage})"));
        }
        args.push(ArgSpec { kind, optional, repeated, name });
    }
    Ok((name, args))
}

/// One argument of a command, parsed and resolved by its verb's usage line; the host hands it
/// to the rules as the Lua value of its kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// An optional argument left out (`nil`).
    Absent,
    /// An optional keyword: whether it was typed.
    Flag(bool),
    /// A unit by its id (a unit handle).
    Unit(String),
    /// Units by their ids (a list of unit handles).
    Units(Vec<String>),
    /// A hex by its printed id.
    Hex(String),
    Int(i64),
    Number(f64),
    Word(String),
    /// A side by its name.
    Side(String),
    /// The rest of the line.
    Text(String),
    /// A repeated argument: each of its values (a list).
    List(Vec<Arg>),
    /// Data of the state (a unit's attribute), as stored.
    Data(serde_json::Value),
}

/// What a command asks the rules to run, from the start.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    /// The start of the game: the sequence of play up to its first stop (and the set-up).
    Start,
    /// On to the next stop of the sequence of play (`hold`: stop at the start of the next turn).
    Next { hold: bool },
    /// A verb of the rules, by name, with its arguments.
    Verb { name: String, args: Vec<Arg> },
    /// A designer's chunk of Lua (`lua`).
    Chunk(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_lines() {
        let (n, a) = parse_usage("move <units> <hex> [<hex>...]").unwrap();
        assert_eq!(n, "move");
        assert_eq!(a.len(), 3);
        assert_eq!(a[0].kind, ArgKind::Units);
        assert!(!a[1].optional && !a[1].repeated);
        assert!(a[2].optional && a[2].repeated);
        let (_, a) = parse_usage("attack <hex> with <units> [<word>...]").unwrap();
        assert_eq!(a[1].kind, ArgKind::Literal("with".into()));
        assert!(parse_usage("x <bogus>").is_err());
    }
}

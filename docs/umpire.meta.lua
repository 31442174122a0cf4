---@meta
-- LuaLS: the repository's .luarc.json lists this file in "workspace.library"; see
-- docs/lua-api.md §7 (Editor completion) for VS Code and Neovim.

-- Type stubs for the umpire Lua API (docs/lua-api.md). Nothing here runs: umpire provides
-- these globals itself. Also useful in .luarc.json, since the sandbox removes these:
--   "runtime.version": "Lua 5.4",
--   "runtime.builtin": { "io": "disable", "os": "disable", "debug": "disable", "package": "disable" }
--
-- The sandbox (docs/lua-api.md §1.8): 64 MiB of Lua memory; 200,000,000 instructions per
-- command (the limit, the same on every machine), which also pays for the work done in Rust:
-- map searches; pattern matching (string.find/match/gmatch/gsub are Umpire's port of Lua 5.4's
-- matcher, src/lua/patterns.rs: one instruction per matching step, 100 per call; there is no
-- limit on a pattern's repetitions, only Lua's own: 32 captures, a match that recurses more
-- than 200 deep is "too complex"; a gsub result at most half the memory limit, 32 MiB); every
-- call of the API tables and of string.byte/char/lower/pack/rep/reverse/upper, table.concat/
-- unpack and utf8.char/codepoint (src/lua/charged.rs: 8 per call, plus 8 an entry of a
-- returned list and 1 per 16 bytes of a returned string); a 60 s wall-clock backstop per
-- command for time the budget cannot see. Once the rule files have loaded, the libraries, the
-- API tables below and every table the rule files reach (modules, nested tables, metatables,
-- upvalues) are read-only, no global may be created or assigned, and a module's upvalue
-- reassigned during a command is put back and fails it (§1.1); the lua, = and expect commands
-- run in an environment of their own.

---A hex id as printed on the map ("0418"). Inputs may also be "04.18" or "04-18";
---results are always in the printed form.
---@alias Umpire.Hex string

---A set of hexes kept in Rust (map.hexset): `s[hex]` is true or nil, `#s` its size, pairs walks
---it in id order; never changed.
---@class Umpire.HexSet

---A value the game state can store: nil (removes), boolean, finite number (NaN and inf are
---errors), string, a table of these (sequence -> array, otherwise string keys), or a UnitRef
---(stored as its id).
---@alias Umpire.Storable nil|boolean|number|string|table|UnitRef

---A movement cost: MP (an integer or a multiple of 1/60), "no"/false (prohibited),
---"stop" (free, ends the move) or { cost = n, stop = true }.
---@alias Umpire.Cost number|false|"no"|"stop"|{ cost?: number, stop?: boolean }

---@alias Umpire.Direction "N"|"NE"|"SE"|"S"|"SW"|"NW"

---@alias Umpire.QuestionKind "choice"|"text"|"unit"|"hex"|"number"|"yesno"

-- ---------------------------------------------------------------- standard globals

---Writes one line to the command's output (not the log); values joined by tabs, tables
---shown with their contents.
---@param ... any
function print(...) end

---Compiles a text chunk (binary chunks are refused; `mode` is ignored, always "t").
---@param chunk string|function
---@param chunkname? string default "=(load)"
---@param mode? string ignored
---@param env? table default: the rules' globals
---@return function|nil f
---@return string|nil err
function load(chunk, chunkname, mode, env) end

---Loads a module once (cached): dotted words resolved as <ruleset>/a/b.lua, then
---rulesets/lib/a/b.lua. The chunk gets the name as `...`; a nil result is cached as true.
---The entry script is required by its path: "main.lua" -> require("main"),
---"src/main.lua" -> require("src.main").
---@param name string
---@return any
function require(name) end

---Deterministic pairs: numbers ascending, then strings, then false, true, then unit handles
---by id. Errors on a table keyed by tables, functions or coroutines (no fixed order).
---Honours __pairs.
---@generic K, V
---@param t table<K, V>
---@return fun(): K, V
---@return table<K, V>
---@return nil
function pairs(t) end

---Ordered next: the order of pairs (and the same refusal). Each call sorts the keys: walk
---tables with pairs; next(t) == nil tests for emptiness.
---@generic K, V
---@param t table<K, V>
---@param k? K
---@return K|nil
---@return V|nil
function next(t, k) end

---The standard setmetatable, except that a metatable with a __gc field (a finalizer) is
---refused.
---@generic T: table
---@param t T
---@param mt table|nil
---@return T
function setmetatable(t, mt) end

-- ---------------------------------------------------------------- records

---@class Umpire.Clock
---@field turn integer
---@field phase string names of the current node chain joined by " › "
---@field step string id of the current node (verb `phases` match this)
---@field side string|nil
---@field over string|nil the result once the game has ended
---@field position any the sequence walker's opaque position

---@class Umpire.ClockUpdate
---@field turn? integer
---@field phase? string
---@field step? string
---@field side? string|false a side of the scenario (else an error); false clears the side; nil leaves it unchanged
---@field position? Umpire.Storable

---@class Umpire.Question
---@field prompt string
---@field rule? string
---@field options? string[] non-empty if given; answers must match one (or a unique prefix)
---@field default? string what `auto` answers (checked like a typed answer); defaults to options[1]
---@field kind? Umpire.QuestionKind default "choice" with options, "text" without
---@field side? string the side that answers (shown "Side: prompt"), when it is not the side to act
---@field odds? boolean a choice that changes the result: `odds` shows the outcomes of each option

---@class Umpire.CommandSpec
---@field usage string e.g. "move <units> <hex> [<hex>...]"; the first word is the verb
---@field run fun(...: any): any? receives the parsed arguments; a non-nil first result is shown as `result: x`
---@field name? string must equal the verb of `usage`
---@field help? string
---@field example? string shown by `help <verb>`, e.g. "move B1,B2 0303"
---@field rule? string
---@field phases? string|string[] sequence step ids where the verb is allowed (nil or {}: anywhere)
---@field odds? boolean `odds` may enumerate this verb's outcomes
---@field complete? fun(index: integer, words: string[]): string[]|nil Tab candidates of argument `index` (nil: every unit and hex)

---@class Umpire.OverlaySpec
---@field usage string e.g. "reach <unit>"; the first word is the overlay's name (`map reach B1`)
---@field run fun(...: any): table<Umpire.Hex, any>? labels by hex (called outside any coroutine; the state is restored afterwards; no dice or draws)
---@field help? string
---@field rule? string shown by `help <name>`
---@field example? string without "map", e.g. "reach B1" (accepted; not shown by `help` yet)

---@class Umpire.DescribeSpec
---@field unit? fun(u: UnitRef): any[]? lines added to `show <unit>`
---@field hex? fun(hex: Umpire.Hex): any[]? lines added to `show <hex>` / `show <place>`
---@field marker? fun(kind: "unit"|"hex", name: string, value: integer, owner: UnitRef|Umpire.Hex): string|false|nil how `show` prints one marker of a unit or a hex: the text, false to hide it, nil to print it as stored
---@field track? fun(name: string, value: integer): string|false|nil how `status` prints a track: the text, false to leave it out, nil for `track <name>: <value>`
---@field attr? fun(kind: "unit"|"hex", name: string, value: any, owner: UnitRef|Umpire.Hex): string|false|nil how `show` prints one attribute of a unit, or one value of a hex (`[map.values.*]`): the text, false to hide it, nil to print it as stored
---@field strength? fun(u: UnitRef): string? a unit's strength in the rules' words for `show`, `units` and the SVG map; nil for the kernel's (`full, 2 of 2 steps`)
---@field cannot_move? fun(u: UnitRef): string? why `moves <unit>` finds no move of it listed, with its rule; nil when the rules know no reason

---One roll or draw, as returned by dice.rolls().
---@class Umpire.Roll
---@field purpose string
---@field what string "1d6", "2d6"... or "draw <cup>"
---@field result string the total, or the chit drawn
---@field forced boolean

---@class Umpire.SequenceNode
---@field id string
---@field name? string
---@field rule? string informational only
---@field side? string|fun(): string? side for this step and below (a function is called at each publish)
---@field sides? string[]|fun(): string[] groups only (error on a leaf): the steps run once per side
---@field skip_if? fun(): boolean asked once when the walk reaches the step
---@field repeat_while? fun(): boolean groups only: asked after each pass (after the last side)
---@field enter? fun() called at the start of every pass (each side, each repetition)
---@field leave? fun() called at the end of every pass
---@field auto? boolean leaves only: do not wait for the players
---@field steps? Umpire.SequenceNode[]

---@class Umpire.SequenceSpec
---@field steps Umpire.SequenceNode[]
---@field turns? integer|fun(): integer nil: no limit
---@field first_turn? integer default 1; greater than turns: the game ends at `new`
---@field start? fun() run once at `new`; may ask set-up questions
---@field turn_start? fun(turn: integer)
---@field turn_end? fun(turn: integer)
---@field finish? fun(): string? the game's result after the last turn (default "no result")

---@class Umpire.ScenarioInfo
---@field id string "game/scenario"
---@field name string
---@field options string[] options switched on

---@class Umpire.HexInfo
---@field id Umpire.Hex
---@field terrain string
---@field features string[]
---@field name string|nil
---@field values table<string, number>
---@field markers table<string, integer>

---@class Umpire.UnitFilter
---@field side? string
---@field kind? string|string[] one kind, or any of a list
---@field not_kind? string|string[] units of none of these kinds
---@field box? string
---@field on_map? boolean
---@field attr? table<string, Umpire.Storable> attributes that must equal these values
---@field marked? string|string[] units carrying at least one of these markers
---@field unmarked? string|string[] units carrying none of these markers
---@field within? Umpire.Hex[]|table<Umpire.Hex, any>|Umpire.HexSet units standing in one of these hexes
---@field outside? Umpire.Hex[]|table<Umpire.Hex, any>|Umpire.HexSet units standing in none of these hexes (a unit off the map stands in none)
---@field at_least? table<string, number> units whose value (u:value, their step now) is at least this for each key

---A movement or tracing profile for map.reach / map.route / map.path_cost.
---@class Umpire.Profile
---@field from? Umpire.Hex|Umpire.Hex[]|table<Umpire.Hex, number>|Umpire.HexSet|table[] sources at cost 0, or { [hex] = start count }, or a list of such sets and hexsets (required by reach and route; ignored by path_cost)
---@field mp? number maximum cost (nil: unlimited)
---@field terrain? table<string, Umpire.Cost> cost to enter, by terrain (empty and no default: 1 per hex)
---@field default? Umpire.Cost cost of terrains not listed
---@field features? table<string, Umpire.Cost> cost of hex features
---@field combine? "max"|"add" features vs terrain (default "max")
---@field hexsides? table<string, Umpire.Cost> extra cost of crossing a hexside feature or marker
---@field paths? table<string, Umpire.Cost> hexside map features followed as paths (replace other costs)
---@field paths_only? boolean only path hexsides may be crossed
---@field enter_extra? table<Umpire.Hex, number> extra MP to enter
---@field leave_extra? table<Umpire.Hex, number> extra MP to leave
---@field blocked? Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet cannot be entered
---@field hex_cost? table<Umpire.Hex, Umpire.Cost> cost to enter these hexes, replacing terrain and feature costs
---@field cancels? table<string, string[]> hexside features that cancel others, e.g. { bridge = { "river", "major_river" } }
---@field stop? Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet entering ends the move
---@field always_one? boolean may always move one hex from a source
---@field open? Umpire.Hex[]|table<Umpire.Hex, boolean> entered for 1 MP whatever the terrain
---@field unblocked? Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet taken out of blocked again (friendly units negating an EZOC)
---@field only? Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet the only hexes that may be entered (blocked ones stay blocked)
---@field side_cost? table<string, Umpire.Cost> per-search price of one crossing, "A>B" one way or "A/B" both, replacing the hexside's feature costs
---@field directions? string[] every step goes in one of these directions (as map.direction names them): a compass
---@field targets? Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet map.reach: answer only for these hexes
---@field routes? boolean map.reach: false leaves the `from` result empty
---@field as_set? boolean map.reach: answer a map.hexset of the hexes reached (of `targets` only, if given) instead of the two tables

-- ---------------------------------------------------------------- UnitRef

---A unit handle: holds only the id, resolved against the game state on every use.
---`tostring(u)` is the id; `u1 == u2` compares ids. Fields are read-only.
---@class UnitRef
---@field id string
---@field exists boolean
---@field hidden boolean under fog of war, whether the side to act may not examine it (an enemy unit below the top of its stack)
---@field name string
---@field side string
---@field kind string
---@field hex Umpire.Hex|nil nil when in a box
---@field box string|nil nil when on the map
---@field step integer current step, 1 = full strength
---@field steps integer number of steps
---@field steps_left integer steps - step + 1
local UnitRef = {}

---A printed value of the current step.
---@param key string
---@return any
function UnitRef:value(key) end

---All printed values of the current step.
---@return table<string, any>
function UnitRef:values() end

---True if the scenario marks this value as approximated.
---@param key string
---@return boolean
function UnitRef:is_approx(key) end

---@param key string
---@return any
function UnitRef:attr(key) end

---@param key string
---@param value Umpire.Storable nil removes
function UnitRef:set_attr(key, value) end

---@param name string
---@return integer|nil
function UnitRef:marker(name) end

---@return table<string, integer>
function UnitRef:markers() end

---@param name string
---@param v integer|boolean|nil true stores 1; false/nil remove
function UnitRef:set_marker(name, v) end

---Places the unit on top of the stack in a hex of the map, or under it (`"under"`).
---@param hex Umpire.Hex
---@param where? "top"|"under"
function UnitRef:move_to(hex, where) end

---Moves the unit into an off-map box; the box must be one the scenario declares.
---@param box string
function UnitRef:put_in(box) end

---Loses n steps (default 1). Returns true and steps_left when the unit has no step left
---(it stays where it is, on its last step); otherwise false and n.
---@param n? integer
---@return boolean eliminated
---@return integer lost
function UnitRef:lose_steps(n) end

---Moves up to n steps (default 1) back toward full strength.
---@param n? integer
---@return integer restored
function UnitRef:restore_steps(n) end

---@param s integer 1..steps
function UnitRef:set_step(s) end

-- ---------------------------------------------------------------- umpire

---@class umpirelib
umpire = {}

---Registers a verb. Only while the rule files load (an error during play).
---@param spec Umpire.CommandSpec
function umpire.command(spec) end

---Registers a map overlay, shown with `map <name> <args>`. Only while the rule files load.
---@param spec Umpire.OverlaySpec
function umpire.overlay(spec) end

---Adds the rules' lines to `show <unit>` and `show <hex>`. Only while the rule files load.
---The functions are called outside any coroutine; the state is restored afterwards and they
---may not roll dice or draw chits. A call replaces only the functions it gives.
---@param spec Umpire.DescribeSpec
function umpire.describe(spec) end

---A named unit state: `units <name>` keeps the units for which `test(u)` is true; `units --help`
---lists it. Only while the rule files load; `test` runs look-only, once per unit kept so far.
---@param spec { name: string, help?: string, test: fun(u: UnitRef): any }
function umpire.unit_filter(spec) end

---Lines `status` prints after its own (what matters now). Only while the rule files load.
---@param fn fun(): string[]|nil
function umpire.status(fn) end

---A chart for `table <name>`, printed as aligned columns; `rows` may be a function returning the
---rows, called when printed. Only while the rule files load.
---@param spec { name: string, title?: string, rule?: string, columns?: string[], rows: any[][]|fun(): any[][], notes?: string[] }
function umpire.table(spec) end

---What is left undone in the segment: at a terminal the first `next` prints these lines and a
---second `next` goes on (scripts never ask). Only while the rule files load.
---@param fn fun(): string[]|nil
function umpire.unfinished(fn) end

---Tab candidates of `verb`'s argument `index` (1 = the first word after the verb), `words`
---being the arguments before it; `nil`: every unit and hex. Only while the rule files load.
---@param verb string
---@param fn fun(index: integer, words: string[]): string[]|nil
function umpire.complete(verb, fn) end

---Fog of war (default off): `show` and `units` hide, from the active side, units of other
---sides that are under the top of their stack; `map --svg` does not name them. The rules and
---`odds` see every unit. Not part of the game state; only while the rule files load.
---@param on boolean
function umpire.fog_of_war(on) end

---Runs fn() at the end of every command that finishes (verb, next, set-up, a completing answer,
---a designer's chunk), inside its transaction: its changes are part of the command and an error
---in it takes the command back. For derived state such as hex control. Only while loading.
---@param fn fun()
function umpire.after_command(fn) end

---A problem found in the ruleset's data: the module the table is in (as `require` names it),
---the key path of the bad entry ({"crt", 3, 8} for T.crt[3][8]) and what is wrong.
---@class Umpire.Problem
---@field file string
---@field path (string|integer)[]
---@field msg string

---Registers a check of the ruleset's data, run once the rule files have loaded (new, reload,
---load, umpire check). It returns nil or a list of problems, each reported by the host as
---file:line:column of the entry; any problem stops the load (the game does not start, reload
---keeps the old rules). rulesets/lib/schema.lua builds such checks. Only while the rule files
---load.
---@param fn fun(): (Umpire.Problem|string)[]|nil
function umpire.validate(fn) end

---Declares the sequence of play. Only while the rule files load.
---@param spec Umpire.SequenceSpec
function umpire.sequence(spec) end

---Refuses the current command with a rule number; does not return.
---@param rule string
---@param msg string
function umpire.refuse(rule, msg) end

---A rule's check as umpire.check has it (rulesets/lib/checks.lua passes its own, which stops
---without refusing): returns `ok`, or stops at the first condition that fails.
---@alias Umpire.CheckFn fun(ok: any, rule?: string, msg?: string, ...: any): any

---Refuses with `rule` unless `ok`; the message is msg:format(...) when extra arguments are given.
---@generic T
---@param ok T
---@param rule string
---@param msg string
---@param ... any
---@return T
function umpire.check(ok, rule, msg, ...) end

---Asks a player and waits for `choose` or `auto`. Must run inside the command's coroutine.
---Returns a string (option, unit id, printed hex, text), a number for kind "number", a
---boolean for kind "yesno".
---@param q Umpire.Question
---@return string|number|boolean|nil
function umpire.ask(q) end

---Declares the command's outcome as soon as it is known: while `odds` enumerates the command
---its run ends here; otherwise it does nothing. Returns `result`.
---@generic T
---@param result T
---@return T
function umpire.outcome(result) end

---Rolls the dice of `rolls` (each a dice expression such as "1d6", or { expression, purpose })
---and returns what `decide(total1, total2, ...)` returns; its first result is the command's
---outcome. `decide` only looks (no roll, no change to the game state). While `odds` enumerates
---the command, `decide` runs for every combination of faces instead and the run ends there.
---@param rolls (string|string[])[]
---@param decide fun(...: integer): any, ...
---@return any ...
function umpire.outcome_of(rolls, decide) end

---@class Umpire.Action
---@field cmd string the command line, as typed
---@field group? string the heading `actions` shows it under (default: the verb)
---@field unit? string the unit it moves or that takes part
---@field units? string[] every unit that takes part
---@field hex? string where it goes or what it acts on
---@field note? string a cost, the strengths
---@field side? string the side that does it (where the step has no side to act, or both act)
---@field weight? number how likely a bot choosing at random is to pick it (0 or more; default 1)
---@field sweep? boolean on a `next` weighed below 1: false, the search bot ends the step without moving the idle units first

---Registers the list of what may be done now (once, while loading): every command listed,
---executed now, is accepted. `opts.unit` / `opts.hex` ask only for what concerns them.
---@param fn fun(side: string, opts: { unit?: string, hex?: string }): (string|Umpire.Action|userdata)[]
function umpire.actions(fn) end

---Registers how a position stands (once, while loading), for bots and playouts: the score for
---`side` (a finite number, higher is better for it) and figures of the game (numbers, strings;
---`result`: the outcome's category once the game is over). Runs look-only. `figures` is false
---when the caller reads the score alone (the bots): the figures may then be left out.
---@param fn fun(side: string, figures: boolean): number, table<string, number|string|boolean>?
function umpire.evaluate(fn) end

---Registers where a side's commands matter most now (once, while loading), for the search bot:
---hexes (a list, a set or a map.hexset; nil for none). The bot tries the listed commands to
---those hexes first in each group. Runs look-only, once a decision.
---@param fn fun(side: string): (string[]|table<string, boolean>|userdata)?
function umpire.focus(fn) end

---@return Umpire.Clock
function umpire.clock() end

---Sets the given fields; `side = false` clears the side. Errors on an unknown side.
---@param t Umpire.ClockUpdate
function umpire.set_clock(t) end

---@param side string|nil
function umpire.set_side(side) end

---Ends the game and logs "Game over: <result>".
---@param result string
function umpire.game_over(result) end

---@param name string
---@return boolean
function umpire.option(name) end

---@return Umpire.ScenarioInfo
function umpire.scenario() end

---True while `odds` enumerates outcomes (nothing is committed).
---@return boolean
function umpire.is_probe() end

-- ---------------------------------------------------------------- vars

---@class varslib
vars = {}

---@param key string
---@return any
function vars.get(key) end

---@param key string
---@param value Umpire.Storable nil removes
function vars.set(key, value) end

-- ---------------------------------------------------------------- tracks

---@class trackslib
tracks = {}

---@param name string
---@return integer value 0 if unset
function tracks.get(name) end

---@param name string
---@param n integer
function tracks.set(name, n) end

---Adds delta; errors when the value overflows.
---@param name string
---@param delta integer
---@return integer new_value
function tracks.add(name, delta) end

-- ---------------------------------------------------------------- sides

---@class sideslib
sides = {}

---@return string[]
function sides.list() end

---The other side of a two-sided game (errors otherwise).
---@param side string
---@return string
function sides.other(side) end

---@return string|nil
function sides.active() end

---@param side string
---@param key string
---@return any
function sides.get(side, key) end

---@param side string
---@param key string
---@param value Umpire.Storable nil removes
function sides.set(side, key, value) end

-- ---------------------------------------------------------------- cups

---The cups are those the scenario declares (`[cups]`): any other name is an error.
---@class cupslib
cups = {}

---@param name string
---@return string[]
function cups.contents(name) end

---@param name string
---@return integer
function cups.count(name) end

---@param name string
---@param chit string
function cups.add(name, chit) end

---Removes the first chit equal to `chit`.
---@param name string
---@param chit string
---@return boolean found
function cups.remove(name, chit) end

---@param name string
function cups.clear(name) end

---Draws and removes a chit at random (or as forced); nil and a message if the cup is empty.
---A forced number draws the chit of that name if there is one, else the chit at that position.
---Errors in a look-only command (=, expect, show, map overlays).
---@param name string
---@param purpose? string default "draw from <name>"
---@return string|nil chit
---@return string|nil err
function cups.draw(name, purpose) end

-- ---------------------------------------------------------------- log

---@class loglib
log = {}

---Appends a log entry with a rule number; echoed as "[rule] text".
---@param rule string
---@param text string
function log.rule(rule, text) end

---Appends a log entry without a rule.
---@param text string
function log.say(text) end

-- ---------------------------------------------------------------- units

---@class unitslib
units = {}

---@param id string exact id
---@return UnitRef|nil unit
---@return string|nil err
function units.get(id) end

---Resolves typed text: exact id, case-insensitive id, or unique case-insensitive prefix.
---@param text string
---@return UnitRef|nil unit
---@return string|nil err
function units.find(text) end

---The stack in a hex, top first.
---@param hex Umpire.Hex
---@return UnitRef[]
function units.at(hex) end

---Every occupied hex with its stack (top first), in one call.
---@return table<Umpire.Hex, UnitRef[]>
function units.stacks() end

---Units in a box, in the order they were put there.
---@param name string
---@return UnitRef[]
function units.in_box(name) end

---All units sorted by id, optionally filtered.
---@param filter? Umpire.UnitFilter
---@return UnitRef[]
function units.all(filter) end

---The hexes where the units that pass the filter stand, with how many stand there (`what`
---"units", the default) or the steps they have left ("steps"); no handle is made.
---@param filter? Umpire.UnitFilter
---@param what? "units"|"steps"
---@return table<Umpire.Hex, integer>
function units.hexes(filter, what) end

---The hexes where the units that pass the filter stand on the map, as a map.hexset.
---@param filter? Umpire.UnitFilter
---@return Umpire.HexSet
function units.hexset(filter) end

---How many units pass the filter, on the map or not (`what` "units", the default), or the
---steps they have left ("steps"); no handle and no table is made.
---@param filter? Umpire.UnitFilter
---@param what? "units"|"steps"
---@return integer
function units.count(filter, what) end

-- ---------------------------------------------------------------- map

---@class maplib
map = {}

---@param hex Umpire.Hex
---@return Umpire.HexInfo|nil info
---@return string|nil err
function map.hex(hex) end

---The printed id if `text` is a hex of the map, else nil.
---@param text string
---@return Umpire.Hex|nil
function map.is_hex(text) end

---@return Umpire.Hex[]
function map.hexes() end

---@param hex Umpire.Hex
---@return string
function map.terrain(hex) end

---True if the hex's terrain is `name` or it has the feature `name`.
---@param hex Umpire.Hex
---@param name string
---@return boolean
function map.has(hex, name) end

---On-map neighbours, clockwise from north.
---@param hex Umpire.Hex
---@return Umpire.Hex[]
function map.neighbours(hex) end

---@param a Umpire.Hex
---@param b Umpire.Hex
---@return integer
function map.distance(a, b) end

---The hex of `hexes` nearest to `hex` and its distance (ties: the id first as text); nil if none.
---@param hex Umpire.Hex
---@param hexes table<Umpire.Hex, boolean>|Umpire.Hex[]
---@return Umpire.Hex|nil, integer|nil
function map.nearest(hex, hexes) end

---For each hex of `hexes`, in order, the distance to the nearest of `targets` (empty when there is none).
---@param hexes Umpire.Hex[]|Umpire.HexSet a hexset's hexes in the order of their ids
---@param targets Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet
---@return integer[]
function map.distances(hexes, targets) end

---@param a Umpire.Hex
---@param b Umpire.Hex
---@return Umpire.Direction|nil
function map.direction(a, b) end

---The off-map hexes next to `hex` (none unless it is on the map edge), clockwise from N, as
---their distances from `from`: where a retreat or move pushed across the edge would go.
---@param hex Umpire.Hex
---@param from Umpire.Hex
---@return integer[]
function map.beyond_edge(hex, from) end

---On-map hexes within r of hex (including it); of `among` only, when given.
---@param hex Umpire.Hex
---@param r integer 0..200
---@param among? Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet
---@return Umpire.Hex[]
function map.within(hex, r, among) end

---Features of the hexside between two adjacent hexes, including hexside markers.
---@param a Umpire.Hex
---@param b Umpire.Hex
---@return string[]
function map.hexside(a, b) end

---@param a Umpire.Hex
---@param b Umpire.Hex
---@param name string
---@param v? integer|boolean true stores 1; false/nil remove
function map.set_side_marker(a, b, name, v) end

---The value of a hexside marker.
---@param a Umpire.Hex
---@param b Umpire.Hex
---@param name string
---@return integer|nil
function map.side_marker(a, b, name) end

---@param name string case-insensitive, unique prefix accepted
---@return Umpire.Hex[]|nil hexes
---@return string|nil err
function map.place(name) end

---@param name string an area of the scenario or edge:N, edge:S, edge:E, edge:W
---@return Umpire.Hex[]|nil hexes
---@return string|nil err
function map.area(name) end

---@param name string
---@param hex Umpire.Hex
---@return boolean
function map.in_area(name, hex) end

---@param hex Umpire.Hex
---@param name string
---@return integer|nil
function map.marker(hex, name) end

---@param hex Umpire.Hex
---@param name string
---@param v? integer|boolean true stores 1; false/nil remove
function map.set_marker(hex, name, v) end

---Every hex whose terrain or one of whose features is `name`, by column then row.
---@param name string
---@return Umpire.Hex[]
function map.having(name) end

---Every hexside with the map feature `name`, each as its two hexes (lower id first), in order.
---@param name string
---@return Umpire.Hex[][]
function map.hexsides_having(name) end

---Sets marker `name` on many hexes at once (false removes it there); every hex is checked
---before any is written.
---@param name string
---@param values table<Umpire.Hex, integer|boolean>
function map.set_markers(name, values) end

---Removes marker `name` from every hex.
---@param name string
---@return integer count how many hexes had it
function map.clear_markers(name) end

---Every hex with the scenario value `key`, with it.
---@param key string
---@return table<Umpire.Hex, number>
function map.valued(key) end

---The hexes next to any hex of `from` (a zone of control), computed in Rust.
---@param spec { from: Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet, not_across?: string[], not_into?: string[], as_set?: boolean } not_into: terrains or hex features; as_set: answer a hexset
---@return table<Umpire.Hex, boolean>|Umpire.HexSet
function map.adjacent(spec) end

---Every hex carrying the marker, with its value; `only.value`: those with that value,
---`only.except`: those with any other; `only.as_set`: a map.hexset of those hexes instead.
---@param name string
---@param only? { value?: integer, except?: integer, as_set?: boolean }
---@return table<Umpire.Hex, integer>|Umpire.HexSet
function map.marked(name, only) end

---The moves of units for a list of actions (umpire.actions), built in Rust from the searches:
---every hex the profile reaches but its `from` and the `exclude` sets, each a command from the
---`cmd` template (`{unit}`, `{hex}`, `{cost}` filled in) with its `note`; `dear` leaves a hex
---out when it is reached for its amount or more. One unit (`spec.unit`,
---the profile's own from and mp), or several sharing the profile (`spec.units`). The value
---stands in the list of actions for all of them.
---@param profile Umpire.Profile
---@param spec { cmd: string, group?: string, note?: string, unit?: string, exclude?: table, dear?: table<Umpire.Hex, number>, units?: { unit: string, from: Umpire.Hex, mp?: number, exclude?: table, dear?: table<Umpire.Hex, number> }[] }
---@return userdata moves
function map.moves(profile, spec) end

---Every hex reachable from profile.from (required): its cheapest cost in MP, and the previous
---hex of that cheapest arrival (use map.route for a path that can be followed). Charged to
---the command's instruction budget (2,000 a search and 500 per hex reached), as is map.route.
---With profile.as_set, a map.hexset of the hexes reached instead, and nil.
---@param profile Umpire.Profile
---@return table<Umpire.Hex, number>|Umpire.HexSet costs
---@return table<Umpire.Hex, Umpire.Hex>|nil from
function map.reach(profile) end

---The cheapest path from the nearest source to `to` (both included); profile.from is required.
---@param profile Umpire.Profile
---@param to Umpire.Hex
---@return number|nil cost
---@return Umpire.Hex[]|string path_or_err
function map.route(profile, to) end

---The cost of following `path` (path[1] is the start); on failure nil, the reason and the
---1-based index of the offending hex.
---@param profile Umpire.Profile
---@param path Umpire.Hex[]
---@return number|nil cost
---@return string|nil why
---@return integer|nil index
function map.path_cost(profile, path) end

---What one step from the profile's `from` into each neighbour costs (the profile's mp aside);
---the neighbours it cannot enter are left out.
---@param profile Umpire.Profile
---@return table<Umpire.Hex, number>
function map.step_costs(profile) end

---A set of hexes read once and kept in Rust, never changed: index it (`s[hex]`), count it
---(`#s`), walk it with pairs (in id order); every function taking a set of hexes takes it.
---`opts.without` leaves out the hexes of a set (or a list of sets), `opts.within` keeps only its own.
---@param hexes Umpire.Hex[]|table<Umpire.Hex, boolean>|Umpire.HexSet
---@param opts? { without?: table|Umpire.HexSet, within?: table|Umpire.HexSet }
---@return Umpire.HexSet
function map.hexset(hexes, opts) end

---Formats MP: "2", "1.5", "2 1/3".
---@param mp number
---@return string
function map.fmt_cost(mp) end

-- ---------------------------------------------------------------- dice

---@class dicelib
dice = {}

---Rolls NdM ("2d6", "d10") with the game's generator (or forced results); recorded with its purpose.
---Errors in a look-only command (=, expect, show, map overlays).
---@param expr string
---@param purpose? string default: expr
---@return integer total
---@return integer[] faces
function dice.roll(expr, purpose) end

---Same as (dice.roll("1d6", purpose)).
---@param purpose? string
---@return integer
function dice.d6(purpose) end

---Forced results still queued.
---@return string[]
function dice.pending() end

---The result of the last roll or draw, as a string (a total or a chit).
---@return string|nil
function dice.last() end

---Every roll and draw so far, oldest first (including those taken back by `undo --past-dice`).
---@return Umpire.Roll[]
function dice.rolls() end

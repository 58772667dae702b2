// The program: a game's IR as the VM holds it (cardlang/compiler/ir.py makes the IR).
//
// Everything here is fixed when the game is loaded, but for the tables of names the VM
// makes while playing (strings such as "HAND#3", location and storage keys, card types
// of named decks, point maps): those only grow, are shared by every state of the game,
// and are numbered in the order they are first needed.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

// The node kinds (enum Op: O_INT ... O_COUNT) and the checker's types (enum Type: T_INT
// ...), with their names: generated at build time from OPS and TYPES in
// cardlang/compiler/ir.py (native/generate_tables.py), so they cannot drift apart.
#include "ir_tables.h"

namespace cardlang {

using i64 = int64_t;
using i32 = int32_t;
using Coll = std::vector<i64>;

// a type whose values are collections (VM::evv holds them as lists, not numbers)
inline bool is_collection_type(int t) {
  switch (t) {
    case T_CARDS: case T_PLAYERS: case T_TEAMS: case T_STRS: case T_INTS: case T_LOCS:
    case T_CARDSS:
      return true;
    default:
      return false;
  }
}

constexpr int HAS_DECISION = 1;
constexpr int PURE = 2;
constexpr int FIXED = 4;
// set by Program::prepare: a comparison that orders strings (their text, not numbers)
constexpr int STRING_ORDER = 1 << 8;
// set by Program::prepare: a DO whose every part lists as one action step
constexpr int PLAIN_ACTIONS = 1 << 9;
// set by Program::prepare: an expression that the top-level guards of one choice hold
// more than once, or that an (any ...) body's guard holds (evaluated once per element);
// its value is computed once per listing (Program::memo_slot)
constexpr int MEMO = 1 << 10;
// set by Program::prepare: a MOVE of the top or bottom card of one location to the top or
// bottom of another, both named by a register or by literal parts (so no move changes
// which locations they are): repeated, it moves card after card (VM::move_many)
constexpr int STEADY_MOVE = 1 << 11;
// set by Program::prepare: a CALL whose arguments are all single values (no collection),
// bound without making a list of values (VM::call_atomic)
constexpr int SCALAR_CALL = 1 << 12;
constexpr int MAX_SCALAR_ARGS = 8;
constexpr i64 NO_CARD = -1;
// engine/gamemaster.py: Limits.max_work (the engines are always given it; this is for
// a state made without limits)
constexpr i64 DEFAULT_MAX_WORK = 10000000;
// engine/work.py: DEFAULT_MAX_GAME_WORK -- a whole game's work, its steps included
constexpr i64 DEFAULT_MAX_GAME_WORK = 10000000;
constexpr int KIND_VLOC = 0;

// The evaluator's fast paths (VM::ev_hot), set by Program::prepare: the commonest
// expressions of guards and conditions, evaluated without the general evaluator's large
// frame (most of an expression's cost was the call, not the work).
enum Hot : int16_t {
  H_NONE,      // the general evaluator (VM::ev_node)
  H_SIZE_REG,  // (size 'L): a register holding a location
  H_CAP_REG,   // (top 'L) / (bottom 'L): the same
  H_SIZE_LOC,  // (size (OWNER kind NAME))
  H_CAP_LOC,   // (top (OWNER kind NAME)) / (bottom ...)
  H_ATTR,      // (attr NAME CARD)
  H_ATTR_REG,  // (attr NAME 'C): a register holding a card
  H_ATTR_CAP,  // (attr NAME (top 'L)): the top or bottom card of a register's location
  H_CMP,       // a comparison of numbers (not strings, not cards)
  H_CMP_CARD,  // a comparison of cards, by identity
  H_AND,
  H_OR,
  H_NOT,
  H_STO_INT,   // an integer storage
};

struct Node {
  int16_t op;
  int16_t type;
  i32 span;
  i32 flags;
  int16_t hot = H_NONE;  // in what was padding: a node stays 64 bytes
  // a filter's (or any/all's) condition that reads nothing of its card but attributes
  // (its value is its card type's): 1 + its slot in VM::type_tests_, 0 for none
  int16_t type_test = 0;
  i64 p[4];
  i32 kid0;   // first child in Program::kids
  i32 nkids;
  // a block (DO, STAGE, WHILE): its items, runs of statements with no decision or one
  // statement with a decision, in Program::items
  i32 item0 = 0;
  i32 nitems = 0;
};

// A typed constant: an attribute's value, or an award condition's.
struct Typed {
  int tag;  // 0 integer, 1 string, 2 string list (an index into Program::lists)
  i64 v;
  bool operator==(const Typed& o) const { return tag == o.tag && v == o.v; }
};

struct CardType {
  std::vector<std::pair<i32, Typed>> attrs;  // in order (a card's name joins the values)
  std::string name;                           // what a card of this type is called
  i32 kind = -1;                              // the string of its KIND, -1 for none
  // attrs by name (a string), for reading one in constant time; tag -1 where unset
  std::vector<Typed> by_name;

  void index() {
    by_name.clear();
    for (const auto& a : attrs) {
      if ((size_t)a.first >= by_name.size()) by_name.resize(a.first + 1, Typed{-1, 0});
      by_name[a.first] = a.second;
    }
  }
};

struct ZoneKey {
  i32 owner;  // -1 the game, a seat, -2 - t a team
  i32 kind;   // 0 vloc, 1 iloc, 2 hloc, 3 mem
  i32 name;   // a string
};

struct Award {
  std::vector<std::pair<i32, Typed>> conds;
  i64 points;
};

struct PointMap {
  std::vector<Award> awards;
  std::vector<i64> cache;  // per card type, its score; INT64_MIN until computed
};

// A point map's identity: its awards as bytes (Program::pointmap_ids, keyed by it, gives
// the same map the same id whichever node made it).
inline std::string awards_key(const PointMap& pm) {
  std::string key;
  auto put = [&key](i64 v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const Award& a : pm.awards) {
    put(a.points);
    put((i64)a.conds.size());
    for (const auto& c : a.conds) {
      put(c.first);
      put(c.second.tag);
      put(c.second.v);
    }
  }
  return key;
}

struct Procedure {
  i32 name;
  std::vector<i32> param_slots;
  std::vector<int> param_types;  // a card collection parameter takes a snapshot
  i32 low, high;
  bool recursive, has_decision;
  i32 body;                                  // its default body: a DO node
  std::vector<std::pair<i32, i32>> hooks;    // (kind string, DO node)
};

struct Limits {
  i64 max_options = 20000, max_call_depth = 200, max_range = 1000000,
      max_repeat = 1000000, max_subset_cards = 16, max_cards = 100000,
      max_option_passes = 100;  // engine/runtime.py: MAX_OPTION_PASSES
};

struct Program {
  i32 nplayers = 0;
  i32 n_registers = 0;
  std::vector<Node> nodes;
  std::vector<i32> kids;
  std::vector<std::pair<i32, i32>> items;  // a block's item: [first, last) of its kids
  std::vector<std::string> strings;
  std::unordered_map<std::string, i32> string_ids;
  std::vector<Coll> lists;
  std::vector<Typed> values;
  std::vector<CardType> card_types;
  std::unordered_map<i32, i32> kind_types;  // kind name -> card type
  std::vector<std::vector<std::vector<std::pair<i32, i32>>>> decks;
  std::unordered_map<i64, i32> deck_types;  // (deck, deck name) -> first card type
  std::vector<ZoneKey> keys;
  std::unordered_map<i64, i32> key_ids;
  std::vector<std::pair<i32, i32>> storage_keys;  // (owner, name)
  std::unordered_map<i64, i32> storage_ids;
  std::vector<PointMap> pointmaps;
  std::vector<Procedure> procedures;
  std::vector<i32> setup;
  i32 program = -1;
  std::vector<std::pair<int, i32>> scoring;  // (1 max / 0 min, node)
  i32 table_score = -1;  // (table-score ...)'s node, -1 for none: for people, never played
  std::vector<i32> ending;  // (end-reason ...)s, then (score-part ...)s: for people, at the end
  std::vector<int16_t> slot_types;
  std::vector<i32> snippets;
  Limits limits;
  // caches, filled as play goes
  std::vector<std::vector<i32>> key_cache;   // LOCATION/STORAGE with a literal name: by owner
  std::vector<std::vector<i32>> choice_slots; // per CHOICE: the registers its listing binds
  std::unordered_map<std::string, i32> pointmap_ids;  // awards (serialized) -> point map
  // per AWARDS node, the point maps it made: (the values of its parts that are not
  // constants, the map)
  std::unordered_map<i32, std::vector<std::pair<Coll, i32>>> pointmap_cache;
  // per (indexed owner kind NAME): per location key, its index among them (-1: none)
  std::unordered_map<i64, std::vector<i64>> indexed_match;
  Coll counting;  // 0 .. nplayers - 1: (all player ...) without a new list
  i32 empty_string = -1;  // the string "", interned by prepare()
  // set by prepare(): the program holds a (simultaneous ...) block, whose secret picks
  // the engine's own search cannot determinize (agents/search/in_engine.py)
  bool has_simultaneous = false;
  // NAME#index location names made so far: (name, index) -> (index, the name's string)
  std::unordered_map<i64, std::pair<i64, i32>> location_names;

  // the index of an owner in a key cache: the game, the seats, the teams
  size_t owner_index(i64 owner) const { return (size_t)(owner + nplayers + 2); }

  const Node& node(i32 n) const { return nodes[n]; }
  i32 kid(const Node& n, int i) const { return kids[n.kid0 + i]; }

  i32 intern(const std::string& s) {
    auto it = string_ids.find(s);
    if (it != string_ids.end()) return it->second;
    i32 id = (i32)strings.size();
    strings.push_back(s);
    string_ids.emplace(s, id);
    return id;
  }

  i32 zone_key(i32 owner, i32 kind, i32 name) {
    i64 packed = ((i64)owner * 8 + kind) * 4294967296LL + (i64)(uint32_t)name;
    auto it = key_ids.find(packed);
    if (it != key_ids.end()) return it->second;
    i32 id = (i32)keys.size();
    keys.push_back({owner, kind, name});
    key_ids.emplace(packed, id);
    return id;
  }

  i32 storage_key(i32 owner, i32 name) {
    i64 packed = (i64)owner * 4294967296LL + (i64)(uint32_t)name;
    auto it = storage_ids.find(packed);
    if (it != storage_ids.end()) return it->second;
    i32 id = (i32)storage_keys.size();
    storage_keys.push_back({owner, name});
    storage_ids.emplace(packed, id);
    return id;
  }

  // Called once the IR is read (ir_loader.cpp): blocks, card types of kinds, the fast
  // paths' marks (program_prepare.cpp).
  void prepare();
  void prepare_block(Node& n, int first);
  void bound_slots(i32 node, std::vector<i32>& out) const;
  bool plain_actions(const Node& n) const;
  void find_shared_guards(i32 choice);
  void find_hot_paths();
  bool steady_location(i32 node) const;
  bool reads_type_only(i32 node, i64 var, bool& reads) const;
  void mark_type_test(i32 cond, i64 var, i32 coll);
  i32 n_type_tests = 0;
  bool steady_move(const Node& n) const;
  bool scalar_call(const Node& n) const;
  bool memoizable(i32 node) const;
  std::string shape(i32 node, std::vector<i32>& binders, const std::vector<i32>& inner,
                    bool& shareable) const;
  std::vector<i32> memo_slot;  // per node: its slot among the shared guard expressions
  i32 n_memo_slots = 0;
  std::string card_type_name(const CardType& t) const;
  std::string card_type_text(const CardType& t) const;
  std::string typed_text(const Typed& t) const;
};

}  // namespace cardlang

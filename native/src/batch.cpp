// Lockstep games inside the engine (batch.h): a VectorEnv's rows stepped, observed and
// tokenized here.  Each function names the Python code it mirrors (env/vector.py's
// VectorEnv, information/encode.py's StateWriter, information/vocabulary.py and
// information/tokens.py): read that for the why.
#include "batch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace cardlang {

// runs/planned.py: agent_seeds (SplitMix64 of the game's seed and the seat)
uint64_t agent_seed(uint64_t game_seed, size_t seat) {
  uint64_t x = game_seed ^ (0xA5A55A5A0F0FF0F0ULL + seat);
  return splitmix_next(x);
}

// numpy's SeedSequence(entropy, spawn_key=(index,)).generate_state(1, uint64)[0]: the
// seeds of a batch's games (runs/simulate.py: game_seeds), made here because numpy
// takes tens of microseconds a seed.  ``entropy`` is the root seed as numpy reads it,
// 32-bit words from the lowest.  A test holds it to numpy's.
uint64_t seed_sequence_child(const std::vector<uint32_t>& entropy, uint64_t index) {
  const uint32_t INIT_A = 0x43b0d7e5, MULT_A = 0x931e8875, INIT_B = 0x8b51f9dd,
                 MULT_B = 0x58f38ded, MIX_MULT_L = 0xca01f9dd, MIX_MULT_R = 0x4973f715;
  const int XSHIFT = 16, POOL = 4;
  std::vector<uint32_t> words = entropy;
  if (words.size() < (size_t)POOL) words.resize(POOL, 0);  // a spawn key pads the entropy
  if (index == 0) words.push_back(0);
  for (uint64_t k = index; k > 0; k >>= 32) words.push_back((uint32_t)(k & 0xffffffffu));
  uint32_t hash_const = INIT_A;
  auto hashmix = [&](uint32_t value) {
    value ^= hash_const;
    hash_const *= MULT_A;
    value *= hash_const;
    value ^= value >> XSHIFT;
    return value;
  };
  auto mix = [&](uint32_t x, uint32_t y) {
    uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y;
    result ^= result >> XSHIFT;
    return result;
  };
  uint32_t pool[POOL];
  for (int i = 0; i < POOL; i++) pool[i] = hashmix(i < (int)words.size() ? words[i] : 0);
  for (int src = 0; src < POOL; src++)
    for (int dst = 0; dst < POOL; dst++)
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
  for (size_t src = POOL; src < words.size(); src++)
    for (int dst = 0; dst < POOL; dst++) pool[dst] = mix(pool[dst], hashmix(words[src]));
  uint32_t out[2];
  uint32_t hb = INIT_B;
  for (int i = 0; i < 2; i++) {
    uint32_t v = pool[i % POOL];
    v ^= hb;
    hb *= MULT_B;
    v *= hb;
    v ^= v >> XSHIFT;
    out[i] = v;
  }
  return (uint64_t)out[0] | ((uint64_t)out[1] << 32);
}

VectorBatch::VectorBatch(VM& vm, BatchPlan plan, i32 n, EngineLimits limits)
    : vm_(vm), plan_(std::move(plan)), limits_(limits), rows_((size_t)n) {
  type_names_.resize((size_t)plan_.n_types);
  for (const auto& kv : plan_.type_ids)
    if (kv.second >= 0 && kv.second < plan_.n_types) type_names_[kv.second] = kv.first;
  for (Row& row : rows_) {
    row.agents.resize((size_t)plan_.nplayers);
    row.seats.assign((size_t)plan_.nplayers, nullptr);
    row.first_option.assign((size_t)plan_.n_actions, -1);
  }
}

void VectorBatch::set_agents(const std::vector<NativeAgent*>& prototypes) {
  if (prototypes.size() != (size_t)plan_.nplayers)
    throw std::invalid_argument("one agent (or none) per seat");
  for (Row& row : rows_)
    for (size_t seat = 0; seat < prototypes.size(); seat++) {
      row.agents[seat] = prototypes[seat] ? prototypes[seat]->clone() : nullptr;
      row.seats[seat] = row.agents[seat].get();
    }
}

void VectorBatch::reset(std::vector<uint32_t> root_words) {
  root_ = std::move(root_words);
  for (i32 i = 0; i < size(); i++) {
    rows_[i].episode = 0;
    start(i);
  }
}

std::vector<i32> VectorBatch::step(const int64_t* actions) {
  // VectorEnv.step: every action is checked before any is applied (the Python rows check
  // each as they come to it), so that a refused step leaves every row as it was
  for (i32 i = 0; i < size(); i++) {
    int64_t a = actions[i];
    if (a == HOLD) continue;
    if (a < 0 || a >= plan_.n_actions || rows_[i].first_option[(size_t)a] < 0)
      throw BatchError{BatchError::ILLEGAL, i, a};
  }
  const size_t n = (size_t)size();
  std::fill(out_.rewards, out_.rewards + n * (plan_.learner >= 0 ? 1 : (size_t)plan_.nplayers),
            0.0f);
  std::fill(out_.terminated, out_.terminated + n, false);
  std::fill(out_.truncated, out_.truncated + n, false);
  std::fill(out_.has_final, out_.has_final + n, false);
  std::vector<i32> finished;
  for (i32 i = 0; i < size(); i++) {
    if (actions[i] == HOLD) continue;
    Row& row = rows_[i];
    vm_.apply(row.st, (size_t)row.first_option[(size_t)actions[i]], limits_);
    if (plan_.learner >= 0) vm_.play(row.st, row.seats, INT64_MAX, limits_);
    if (row.st.status != RUNNING) {
      finish(i);
      finished.push_back(i);
      start(i);
    } else {
      observe(i);
    }
  }
  return finished;
}

void VectorBatch::fork(i32 src, i32 dst) {
  if (src == dst) return;
  const Row& from = rows_[(size_t)src];
  Row& to = rows_[(size_t)dst];
  to.st = from.st;
  to.seed = from.seed;
  for (size_t seat = 0; seat < from.agents.size(); seat++) {
    to.agents[seat] = from.agents[seat] ? from.agents[seat]->clone() : nullptr;
    to.seats[seat] = to.agents[seat].get();
  }
  observe(dst);
}

// VectorEnv._start: the row's next game, played on to its first decision for the caller
void VectorBatch::start(i32 i) {
  Row& row = rows_[i];
  for (int tries = 0; tries < MAX_SKIPPED_GAMES; tries++) {
    row.seed = seed_sequence_child(root_, (uint64_t)(row.episode * size() + i)) >> 1;
    row.episode++;
    row.st = vm_.new_game(row.seed, false, limits_);
    row.st.tallying = plan_.cards;  // no decision is taken before the first
    if (plan_.learner >= 0) {
      for (size_t seat = 0; seat < row.agents.size(); seat++)
        if (row.agents[seat]) row.agents[seat]->start_game(agent_seed(row.seed, seat));
      vm_.play(row.st, row.seats, INT64_MAX, limits_);
    }
    if (row.st.status == RUNNING) {
      observe(i);
      return;
    }
    if (row.st.status == FAILED) {  // VectorEnv._check: the game file's error
      row.done = std::move(row.st);
      row.done_seed = row.seed;
      throw BatchError{BatchError::FAILED, i, 0};
    }
  }
  throw BatchError{BatchError::NO_DECISION, i, 0};
}

// VectorEnv._finish: the finished game's flags, rewards and final observation
void VectorBatch::finish(i32 i) {
  Row& row = rows_[i];
  State& st = row.st;
  if (st.status == FAILED) {
    row.done = std::move(st);
    row.done_seed = row.seed;
    throw BatchError{BatchError::FAILED, i, 0};
  }
  // engine/gamemaster.py: result_of, and env/core.py: rewards_of
  const size_t n = (size_t)plan_.nplayers, nkeys = plan_.ranking_signs.size();
  std::vector<std::vector<i64>> keys =
      st.has_scores ? st.scores : std::vector<std::vector<i64>>(n, std::vector<i64>(nkeys, 0));
  std::vector<std::vector<i64>> keyed(n, std::vector<i64>(nkeys));
  for (size_t p = 0; p < n; p++)
    for (size_t j = 0; j < nkeys; j++) keyed[p][j] = keys[p][j] * plan_.ranking_signs[j];
  bool completed = st.status == COMPLETED;
  std::vector<double> values(n, 0.0);
  if (plan_.score_reward) {
    for (size_t p = 0; p < n; p++) values[p] = plan_.score_sign * (double)keys[p][0];
  } else if (completed) {
    std::vector<size_t> ranks(n);
    size_t winners = 0;
    for (size_t p = 0; p < n; p++) {
      ranks[p] = 1;
      for (size_t q = 0; q < n; q++) ranks[p] += keyed[q] < keyed[p];
      winners += ranks[p] == 1;
    }
    double share = 1.0 / (double)winners;
    for (size_t p = 0; p < n; p++) {
      double credit = ranks[p] == 1 ? share : 0.0;
      values[p] = n == 1 ? credit : ((double)n * credit - 1.0) / (double)(n - 1);
    }
  }
  out_.terminated[i] = completed;
  out_.truncated[i] = !completed;
  int seat;
  if (plan_.learner < 0) {
    for (size_t p = 0; p < n; p++) out_.rewards[(size_t)i * n + p] = (float)values[p];
    seat = (int)out_.seat[i];  // the seat that moved last
  } else {
    out_.rewards[i] = (float)values[(size_t)plan_.learner];
    seat = plan_.learner;
  }
  float* final_row = out_.final_obs + (size_t)i * (size_t)plan_.width;
  write_obs(st, seat, -1, final_row);
  out_.has_final[i] = true;
  row.done = std::move(st);
  row.done_seed = row.seed;
}

const KeySite& VectorBatch::site_of(const State& st) const {
  auto it = plan_.sites.find(st.pending);
  if (it == plan_.sites.end()) throw std::runtime_error("a decision at a choice the plan lacks");
  return it->second;
}

// VectorEnv._observe: the row's observation and mask of its pending decision, and the
// option each legal key plays (information/vocabulary.py StepKeys.indices)
void VectorBatch::observe(i32 i) {
  Row& row = rows_[i];
  State& st = row.st;
  const int seat = st.mover;
  const KeySite& site = site_of(st);
  out_.situation[i] = site.situation;
  out_.seat[i] = seat;
  float* obs = out_.obs + (size_t)i * (size_t)plan_.width;
  write_obs(st, seat, site.situation, obs);
  bool* mask = out_.mask + (size_t)i * (size_t)plan_.n_actions;
  std::fill(mask, mask + plan_.n_actions, false);
  std::fill(row.first_option.begin(), row.first_option.end(), -1);
  row.actions.clear();
  const OptionList& options = vm_.legal_options(st);
  const auto& index = plan_.key_index[(size_t)site.situation];
  for (size_t o = 0; o < options.size(); o++) {
    OptionRef option = options[o];
    bool has_action = false, has_part = false;
    part_.clear();
    for (const Step& s : option) {
      if (s.slot < 0) {
        has_action = true;
        continue;
      }
      auto found = site.parts.find(s.slot);
      if (found == site.parts.end()) continue;
      if (has_part) part_ += ',';
      has_part = true;
      write_part(st, found->second, option.value(s), seat);
    }
    size_t branch = has_action ? options.branches[o] : 0;
    if (branch >= site.bare.size()) branch = 0;
    if (has_part) {
      key_ = site.heads[branch];
      key_ += part_;
    } else {
      key_ = site.bare[branch];
    }
    auto k = index.find(key_);
    if (k == index.end()) continue;  // a key the vocabulary lacks: no action plays it
    if (row.first_option[(size_t)k->second] < 0) {
      row.first_option[(size_t)k->second] = (i32)o;
      mask[k->second] = true;
      row.actions.push_back(k->second);
    }
  }
  if (plan_.tokens.on && tok_.names) write_tokens(i);
}

static const char* const UNSEEN = "?";  // information/vocabulary.py: UNSEEN
static const char* const EMPTY = "-";   // and EMPTY
static const i64 MAX_COLLECTION_KEY = 16;

// vocabulary.py: _part_fn, one bound value of a keyed fork as the mover sees it
void VectorBatch::write_part(const State& st, const KeyPart& part, const Val& v, int seat) {
  const Program& P = vm_.P;
  const i64 n = plan_.nplayers;
  part_ += part.pre;
  switch (part.kind) {
    case PART_CARD: {
      i64 card = v.i;
      i32 zone = card >= 0 && card < (i64)st.card_zone.size() ? st.card_zone[card] : -1;
      if (zone >= 0 && seat_sees(P, zone, seat))
        part_ += type_names_[(size_t)type_of(st, card)];
      else
        part_ += UNSEEN;
      break;
    }
    case PART_PLAYER:
      part_ += "P+" + std::to_string(((v.i - seat) % n + n) % n);
      break;
    case PART_TEAM:
      part_ += "T" + std::to_string(v.i);
      break;
    case PART_INT:
      part_ += std::to_string(v.i);
      break;
    case PART_STR:
      part_ += P.strings[(size_t)v.i];
      break;
    case PART_BOOL:
      part_ += v.i ? "True" : "False";
      break;
    case PART_LOC: {  // vocabulary.py: _location_text
      const ZoneKey& key = P.keys[(size_t)v.i];
      if (key.owner == -1) {
      } else if (key.owner >= 0) {
        part_ += "P+" + std::to_string(((key.owner - seat) % n + n) % n) + ".";
      } else {
        part_ += "T" + std::to_string(-2 - key.owner) + ".";
      }
      const std::string& name = P.strings[(size_t)key.name];
      part_.append(name, 0, name.find('#'));
      part_ += ':';
      const Coll& cards = st.zone((i32)v.i);
      if (cards.empty())
        part_ += EMPTY;
      else if (seat_sees(P, (i32)v.i, seat))
        part_ += type_names_[(size_t)type_of(st, cards.back())];
      else
        part_ += UNSEEN;
      break;
    }
    case PART_CARDS: {  // vocabulary.py: _size_text
      i64 size = v.list ? (i64)v.list->size() : 0;
      part_ += size < MAX_COLLECTION_KEY ? "#" + std::to_string(size)
                                         : "#" + std::to_string(MAX_COLLECTION_KEY) + "+";
      break;
    }
  }
}

// StateWriter.type_id, as a BoardReader's boards give it: a card's type id (its type's
// text among the encoder's card types, else a number past them, given in the order types
// are met)
i32 VectorBatch::type_of(const State& st, i64 card) {
  size_t native = (size_t)st.card_type[(size_t)card];
  if (native >= type_of_native_.size()) {
    const Program& P = vm_.P;
    for (size_t t = type_of_native_.size(); t < P.card_types.size(); t++) {
      std::string text = P.card_type_text(P.card_types[t]);
      auto found = plan_.type_ids.find(text);
      i32 id;
      if (found != plan_.type_ids.end()) {
        id = found->second;
      } else {
        id = (i32)type_names_.size();
        plan_.type_ids.emplace(text, id);
        type_names_.push_back(text);
      }
      type_of_native_.push_back(id);
    }
  }
  return type_of_native_[native];
}

// StateWriter._unseen (and PlayerView._unseen_odds): per type id, how many cards lie in no
// location the seat sees (memories aside), the types in the order their first card is
// met by id, and how many such cards in all
void VectorBatch::count_unseen(const State& st, int seat, i64& total) {
  const Program& P = vm_.P;
  seen_.assign(st.card_type.size(), 0);
  for (i32 key : st.zone_order) {
    const ZoneKey& k = P.keys[(size_t)key];
    if (k.kind != 3 && seat_sees(P, key, seat))
      for (i64 c : st.zones[(size_t)key]) seen_[(size_t)c] = 1;
  }
  unseen_counts_.assign(type_names_.size(), 0);
  unseen_order_.clear();
  total = 0;
  for (size_t c = 0; c < seen_.size(); c++)
    if (!seen_[c]) {
      total++;
      size_t t = (size_t)type_of(st, (i64)c);
      if (t >= unseen_counts_.size()) unseen_counts_.resize(type_names_.size(), 0);
      if (unseen_counts_[t]++ == 0) unseen_order_.push_back((i32)t);
    }
}

// StateWriter.write: Encoder.encode's vector of ``seat``'s view into ``out`` (situation -1:
// the situation-free part alone)
void VectorBatch::write_obs(const State& st, int seat, int situation, float* out) {
  const Program& P = vm_.P;
  const ObsSeat& plan = plan_.seats[(size_t)seat];
  const i32 n_types = plan_.n_types;
  std::fill(out, out + plan_.width, 0.0f);
  i64 current = st.stack.empty() ? 0 : st.stack[(size_t)st.stage_idx].f[S_PLAYER];
  const i64 n = plan_.nplayers;
  out[plan.current + ((current - seat) % n + n) % n] = 1.0f;
  for (const auto& s : plan.storages) out[s.first] = (float)st.ints.get(s.second, 0);
  bool counted = false;
  i64 total = 0;
  for (const ObsZone& z : plan.zones) {
    const Coll& cards = st.zone(z.key);
    if (cards.empty()) continue;
    const i64 size = (i64)cards.size();
    out[z.size_at] = (float)size;
    if (z.expected_at < 0) {  // the seat sees it: its cards by type
      for (i64 c : cards) {
        i32 t = type_of(st, c);
        if (t < n_types) out[z.cards_at + t] += 1.0f;
      }
      continue;
    }
    if (!counted) {
      counted = true;
      count_unseen(st, seat, total);
    }
    for (i32 t = 0; t < n_types && t < (i32)unseen_counts_.size(); t++)
      if (unseen_counts_[(size_t)t])  // size * count / total, divided as Python divides
        out[z.expected_at + t] =
            (float)((double)(size * unseen_counts_[(size_t)t]) / (double)total);
  }
  if (situation < 0) return;
  for (const ObsEnd& e : plan.ends[(size_t)situation]) {  // StateWriter._write_ends
    const Coll& cards = st.zone(e.key);
    if (cards.empty()) continue;
    i32 t = type_of(st, e.top ? cards.back() : cards.front());
    if (t < n_types) out[e.pos + t] = 1.0f;
  }
}

// ---------------------------------------------------------------- tokens
// information/tokens.py: Tokenizer.tokenize, for an unrecorded game (a hidden location's
// cards are the uniform odds over the cards the seat does not see)

static constexpr double EPS = 1e-3;  // tokens.py: EPS

// tokens.py: bucket (Python's round: halves to even, as nearbyint rounds by default)
static int8_t count_bucket(double n) {
  if (n < 0) return 14;
  double r = std::nearbyint(n);
  return (int8_t)(r >= 13 ? 13 : (int)r);
}

void VectorBatch::rewrite_tokens() {
  for (i32 i = 0; i < size(); i++)
    if (rows_[i].st.status == RUNNING) write_tokens(i);
}

void VectorBatch::write_tokens(i32 i) {
  const Program& P = vm_.P;
  const TokenPlan& tp = plan_.tokens;
  Row& row = rows_[i];
  const State& st = row.st;
  const int seat = st.mover;
  const i32 situation = (i32)out_.situation[i];
  const size_t T = (size_t)tp.max_tokens, N = MAX_TOKEN_NAMES;
  int32_t* names = tok_.names + (size_t)i * T * N;
  int8_t* kinds = tok_.kinds + (size_t)i * T;
  int8_t* buckets = tok_.buckets + (size_t)i * T;
  float* cont = tok_.cont + (size_t)i * T * 3;
  std::fill(names, names + T * N, 0);
  std::fill(kinds, kinds + T, (int8_t)0);
  std::fill(buckets, buckets + T, (int8_t)0);
  std::fill(cont, cont + T * 3, 0.0f);
  size_t count = 0;
  // one token: its names (a first id, then a card's components), cut at N
  auto add = [&](int kind, i32 first, const std::vector<i32>* more, int8_t bucket, double c0,
                 double c1, double c2) {
    if (count < T) {
      int32_t* row_names = names + count * N;
      row_names[0] = first;
      if (more)
        for (size_t k = 0; k < more->size() && k + 1 < N; k++) row_names[k + 1] = (*more)[k];
      kinds[count] = (int8_t)kind;
      buckets[count] = bucket;
      cont[count * 3] = (float)c0;
      cont[count * 3 + 1] = (float)c1;
      cont[count * 3 + 2] = (float)c2;
    }
    count++;
  };
  auto components = [&](i32 t) -> const std::vector<i32>* {
    static const std::vector<i32> unknown{0};  // a type the plan lacks: the unknown name
    return (size_t)t < tp.components.size() ? &tp.components[(size_t)t] : &unknown;
  };
  auto card_token = [&](i32 label, i32 t, double n, double total) {
    double share = total > 0 ? n / total : 0.0;  // tokens.py: count_features
    add(0, label, components(t), count_bucket(n), std::log(n + EPS), share,
        std::log(share + EPS));
  };
  const TokenSeat& plan = tp.seats[(size_t)seat];
  bool counted = false;
  i64 unseen_total = 0;
  for (const TokenZone& z : plan.zones) {  // Tokenizer._zone_tokens
    const Coll& cards = st.zone(z.key);
    if (cards.empty()) continue;
    const i64 size = (i64)cards.size();
    add(2, z.label, nullptr, count_bucket((double)size), std::log((double)size + EPS), 0.0, 0.0);
    bool sees = seat_sees(P, z.key, seat);
    if (sees) {  // the known counts, types in the order their first card lies
      first_type_at_.clear();
      for (i64 c : cards) {
        size_t t = (size_t)type_of(st, c);
        if (t >= type_count_.size()) type_count_.resize(t + 1, 0);
        if (type_count_[t]++ == 0) first_type_at_.push_back((i32)t);
      }
      for (i32 t : first_type_at_) {
        card_token(z.label, t, (double)type_count_[(size_t)t], (double)size);
        type_count_[(size_t)t] = 0;
      }
    } else {
      if (!counted) {
        counted = true;
        count_unseen(st, seat, unseen_total);
      }
      if (unseen_total > 0)
        for (i32 t : unseen_order_) {
          double expected = (double)(size * unseen_counts_[(size_t)t]) / (double)unseen_total;
          if (expected > 1e-6) card_token(z.label, t, expected, (double)size);
        }
    }
    if (z.reads_top && sees) add(1, z.label, components(type_of(st, cards.back())), 1, 0, 0, 0);
  }
  for (const auto& sto : plan.storages) {  // tokens.py: scalar_features
    i64 v = st.ints.get(sto.first, 0);
    if (!v) continue;
    double value = (double)v;
    add(3, sto.second, nullptr, count_bucket(value), std::copysign(std::log1p(std::fabs(value)), value),
        value > 0 ? 1.0 : -1.0, 0.0);
  }
  double turns = (double)st.turns;
  add(3, tp.turns, nullptr, count_bucket(turns), std::copysign(std::log1p(std::fabs(turns)), turns),
      turns > 0 ? 1.0 : (turns < 0 ? -1.0 : 0.0), 0.0);
  const i64 n = plan_.nplayers;
  i64 current = st.stack.empty() ? 0 : st.stack[(size_t)st.stage_idx].f[S_PLAYER];
  add(4, tp.situations[(size_t)situation], nullptr, count_bucket((double)(((current - seat) % n + n) % n)),
      0, 0, 0);
  tok_.count[i] = (int32_t)count;
  // the action tokens: one per legal key, in the order the options first name it
  const size_t A = (size_t)plan_.n_actions;
  int32_t* act_names = tok_.act_names + (size_t)i * A * N;
  int64_t* act_key = tok_.act_key + (size_t)i * A;
  std::fill(act_names, act_names + A * N, 0);
  std::fill(act_key, act_key + A, (int64_t)-1);
  const auto& names_of = tp.actions[(size_t)situation];
  for (size_t j = 0; j < row.actions.size(); j++) {
    i32 k = row.actions[j];
    act_key[j] = k;
    const std::vector<i32>& ids = names_of[(size_t)k];
    for (size_t m = 0; m < ids.size() && m < N; m++) act_names[j * N + m] = ids[m];
  }
  tok_.act_count[i] = (int32_t)row.actions.size();
}

}  // namespace cardlang

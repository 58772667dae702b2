// The route maps of (connects ...) and (longest-path ...): a collection of cards read as
// an undirected multigraph, each card an edge between two cities (engine/collections.py:
// connected, longest_trail; the VM reads the cards into routes, VM::routes).
#pragma once

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "program.h"

namespace cardlang {

// A route: its two ends (string ids: equal names are equal ids) and its length.
struct Route {
  i64 a, b, length;
};

// engine/collections.py: connected (always, when x and y are equal)
inline bool connected(const std::vector<Route>& edges, i64 x, i64 y) {
  std::unordered_map<i64, std::vector<i64>> neighbours;
  for (const Route& e : edges) {
    neighbours[e.a].push_back(e.b);
    neighbours[e.b].push_back(e.a);
  }
  std::unordered_set<i64> seen{x};
  std::vector<i64> todo{x};
  while (!todo.empty()) {
    auto it = neighbours.find(todo.back());
    todo.pop_back();
    if (it == neighbours.end()) continue;
    for (i64 city : it->second)
      if (seen.insert(city).second) todo.push_back(city);
  }
  return seen.count(y) > 0;
}

// engine/collections.py: longest_trail.  The greatest total length of a trail (each edge
// at most once, cities may repeat), 0 for the empty trail; a depth-first search over the
// unused edges from every city, exponential in the worst case.  A maximum, so the order
// of the search cannot change it.
class TrailSearch {
 public:
  // thrown when the search would take more than ``budget`` routes
  struct OverBudget {};

  // ``budget``: the routes the search may take in all (one unit of work each: the
  // Python engine counts them in the same order)
  TrailSearch(const std::vector<Route>& edges, i64 budget)
      : edges_(edges), used_(edges.size()), budget_(budget) {
    for (size_t i = 0; i < edges.size(); i++) {
      size_t a = city(edges[i].a), b = city(edges[i].b);
      ends_.push_back({a, b});
      incident_[a].push_back(i);
      if (b != a) incident_[b].push_back(i);  // a loop is one way out of its city, not two
    }
  }

  // exact (lengths may be near the 64-bit edge; the caller checks the range)
  __int128 longest() {
    __int128 best = 0;
    for (size_t c = 0; c < incident_.size(); c++) best = std::max(best, walk(c));
    return best;
  }

  // the routes taken so far
  i64 taken() const { return taken_; }

 private:
  const std::vector<Route>& edges_;
  std::vector<char> used_;
  i64 budget_, taken_ = 0;
  std::vector<std::pair<size_t, size_t>> ends_;  // per edge, its cities' numbers
  std::vector<std::vector<size_t>> incident_;    // per city, its edges
  std::unordered_map<i64, size_t> numbers_;      // city -> its number

  size_t city(i64 name) {
    auto [it, fresh] = numbers_.emplace(name, incident_.size());
    if (fresh) incident_.emplace_back();
    return it->second;
  }

  // the longest continuation from a city over the unused edges
  __int128 walk(size_t from) {
    __int128 best = 0;
    for (size_t i : incident_[from]) {
      if (used_[i]) continue;
      if (++taken_ > budget_) throw OverBudget{};
      used_[i] = 1;
      size_t to = ends_[i].first == from ? ends_[i].second : ends_[i].first;
      best = std::max(best, (__int128)edges_[i].length + walk(to));
      used_[i] = 0;
    }
    return best;
  }
};

}  // namespace cardlang

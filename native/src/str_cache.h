// StrCache: the Python str of each entry of a table of texts that only grows (the
// program's strings, the search's key texts, the card types' texts), made on its first
// use and kept, so that a reader called at every decision hands Python the same str
// rather than making a new one.
#pragma once

#include <string>
#include <vector>

#include <nanobind/nanobind.h>

namespace cardlang {

class StrCache {
 public:
  // texts[id] as a Python str; ``texts`` is the same table at every call
  nanobind::object get(const std::vector<std::string>& texts, size_t id) {
    if (id >= made_.size()) made_.resize(texts.size());
    nanobind::object& found = made_[id];
    if (!found.is_valid()) found = nanobind::str(texts[id].c_str());
    return found;
  }

 private:
  std::vector<nanobind::object> made_;  // per id, its str once made (else not valid)
};

}  // namespace cardlang

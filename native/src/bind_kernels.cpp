// The module's own attributes and functions (bindings.h): the IR's tables by name, the
// game seeds and the random stream, and the Deep Sets network's kernels
// (tensor_kernels.h).
#include <cstdint>
#include <vector>

#include <nanobind/ndarray.h>

#include "batch.h"
#include "bindings.h"
#include "ir_loader.h"
#include "tensor_kernels.h"
#include "vm.h"

namespace cardlang {

void bind_tables(nb::module_& m) {
  m.attr("IR_VERSION") = IR_VERSION;
  m.attr("OP_COUNT") = (int)O_COUNT;
  // the tables' names, as generated from ir.py (tests/test_native.py reads them by name)
  nb::list op_names, type_names;
  for (int i = 0; i < O_COUNT; i++) op_names.append(OP_NAMES[i]);
  for (int i = 0; i < TYPE_COUNT; i++) type_names.append(TYPE_NAMES[i]);
  m.attr("OP_NAMES") = op_names;
  m.attr("TYPE_NAMES") = type_names;
  m.def("game_seeds", [](std::vector<uint32_t> entropy, uint64_t start, uint64_t count) {
    // runs/simulate.py: game_seeds, for games start .. start + count - 1
    std::vector<uint64_t> out;
    out.reserve(count);
    for (uint64_t i = start; i < start + count; i++)
      out.push_back(seed_sequence_child(entropy, i) >> 1);
    return out;
  });
  m.def("splitmix64", [](uint64_t x) {
    uint64_t out = splitmix_next(x);
    return nb::make_tuple(x, out);
  });
}

// the Deep Sets network's kernels (agents/neural/kernels.py passes its tensors' memory)
void bind_kernels(nb::module_& m) {
  m.def("distinct_rows",
        [](std::vector<nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>> blocks,
           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> rows,
           nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> first,
           nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> inverse) {
          if (blocks.empty()) throw nb::value_error("distinct_rows: no columns");
          const size_t count = blocks[0].shape(0), n = rows.shape(0);
          std::vector<RowBytes> parts;
          for (auto& block : blocks) {
            if (block.shape(0) != count) throw nb::value_error("distinct_rows: blocks of unequal rows");
            parts.push_back(RowBytes{block.data(), block.shape(1)});
          }
          if (first.shape(0) < n || inverse.shape(0) != n)
            throw nb::value_error("distinct_rows: an output of the wrong size");
          for (size_t i = 0; i < n; i++)
            if (rows.data()[i] < 0 || (size_t)rows.data()[i] >= count)
              throw nb::index_error("distinct_rows: a row out of range");
          return distinct_rows(parts, rows.data(), n, first.data(), inverse.data());
        });
  m.def("max_winners",
        [](nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> table,
           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> slot,
           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> index, size_t t,
           int64_t fallback, nb::ndarray<int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> winner) {
          const size_t rows = table.shape(0), d = table.shape(1), n = slot.shape(0), b = winner.shape(0);
          if (index.shape(0) != n || winner.shape(1) != d)
            throw nb::value_error("max_winners: arrays of unequal sizes");
          if (t == 0) throw nb::value_error("max_winners: rows of no slots");
          if (fallback < 0 || (size_t)fallback >= rows) throw nb::index_error("max_winners: no such fallback row");
          if (rows > (size_t)INT32_MAX) throw nb::value_error("max_winners: a table of 2^31 rows or more");
          for (size_t i = 0; i < n; i++)
            if (slot.data()[i] < 0 || (size_t)slot.data()[i] >= b * t || index.data()[i] < 0 ||
                (size_t)index.data()[i] >= rows)
              throw nb::index_error("max_winners: a token out of range");
          max_winners(table.data(), d, slot.data(), t, index.data(), n, b, fallback, winner.data());
        });
}

}  // namespace cardlang

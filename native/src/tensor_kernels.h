// Two kernels of the Deep Sets network's packed forward (agents/neural/network.py),
// over plain CPU buffers: no torch here, the network passes its tensors' memory.
//
// They replace what torch does slowly on a CPU for this one shape of work: telling
// repeated rows apart (torch: two 64-bit hashes by matrix products, then a sort) and
// finding each row's largest token per feature with its index (torch: argmax over a
// transposed copy of the slots).  Each is a single pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cardlang {

// One column block of the rows to tell apart: `width` bytes per row, row r at
// data + r * width (a C-contiguous [R, k] array of any element type, seen as bytes).
struct RowBytes {
  const uint8_t* data;
  size_t width;
};

// The distinct rows among `rows` (indices into the blocks; every block has a row for
// each), rows equal when every block's bytes are equal: for each distinct row in order
// of first appearance, `first` (room for n) gets the position in `rows` of its first
// occurrence; `inverse[i]` the distinct row that rows[i] is.  Returns how many there
// are.  Exact: a hash finds candidates, the bytes decide.
size_t distinct_rows(const std::vector<RowBytes>& blocks, const int64_t* rows, size_t n,
                     int64_t* first, int64_t* inverse);

// The max pool's winners: `table` is [V, d] floats; token i (of n) lies in slot
// slot[i] of b rows of t slots (its pool row slot[i] / t) and has the values of table
// row index[i].  For every pool row and feature, winner[row * d + j] is the table row
// of its largest value, the earliest token on a tie; a row starts at `fallback` (a
// table row: the padding), which a token must exceed to win.
void max_winners(const float* table, size_t d, const int64_t* slot, size_t t,
                 const int64_t* index, size_t n, size_t b, int64_t fallback, int64_t* winner);

}  // namespace cardlang

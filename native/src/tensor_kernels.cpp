// The network's kernels (tensor_kernels.h).
#include "tensor_kernels.h"

#include <cstring>

namespace cardlang {

namespace {

inline uint64_t mix(uint64_t h) {  // splitmix64's finaliser
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// A row's bytes, gathered from its blocks into one buffer.
void gather_row(const std::vector<RowBytes>& blocks, int64_t row, uint8_t* out) {
  for (const RowBytes& block : blocks) {
    std::memcpy(out, block.data + (size_t)row * block.width, block.width);
    out += block.width;
  }
}

// Four independent multiply chains over the bytes' 8-byte words (one chain would wait
// on each multiply), mixed.  `p` is padded: the words past `width` read as zeros.
uint64_t hash_bytes(const uint8_t* p, size_t width) {
  uint64_t a = 1, b = 2, c = 3, d = 4, w[4];
  for (size_t i = 0; i < width; i += 32) {
    std::memcpy(w, p + i, 32);
    a = (a ^ w[0]) * 0x9e3779b97f4a7c15ULL;
    b = (b ^ w[1]) * 0xc2b2ae3d27d4eb4fULL;
    c = (c ^ w[2]) * 0x165667b19e3779f9ULL;
    d = (d ^ w[3]) * 0xd6e8feb86659fd93ULL;
  }
  return mix(a ^ mix(b ^ mix(c ^ mix(d))));
}

}  // namespace

size_t distinct_rows(const std::vector<RowBytes>& blocks, const int64_t* rows, size_t n,
                     int64_t* first, int64_t* inverse) {
  size_t found = 0;
  size_t width = 0;
  for (const RowBytes& block : blocks) width += block.width;
  const size_t stride = (width + 31) & ~(size_t)31;  // hash_bytes reads 32 bytes at a time
  // The distinct rows' bytes, packed: a repeated row is compared with its first
  // occurrence here, in a few hundred kilobytes the cache holds, not where it lay in
  // the blocks (four arrays, megabytes: a cache miss per block per comparison).
  std::vector<uint8_t> distinct;
  std::vector<uint8_t> row_bytes(stride, 0);
  // open addressing, sized by the distinct rows found (a Dominion minibatch: 1 in 6),
  // not by the rows: a slot holds a distinct row's number + 1 (0: empty) beside its hash
  struct Slot {
    uint64_t hash;
    int64_t held;
  };
  std::vector<Slot> slots(64, Slot{0, 0});
  size_t mask = slots.size() - 1;
  auto place = [&](uint64_t h, int64_t held) {
    size_t at = (size_t)h & mask;
    while (slots[at].held != 0) at = (at + 1) & mask;
    slots[at] = Slot{h, held};
  };
  for (size_t i = 0; i < n; i++) {
    gather_row(blocks, rows[i], row_bytes.data());
    const uint64_t h = hash_bytes(row_bytes.data(), width);
    size_t at = (size_t)h & mask;
    while (true) {
      const Slot& slot = slots[at];
      if (slot.held == 0) {
        first[found] = (int64_t)i;
        inverse[i] = (int64_t)found++;
        distinct.insert(distinct.end(), row_bytes.begin(), row_bytes.end());
        if (2 * found > slots.size()) {  // half full: double and place anew
          std::vector<Slot> old(slots.size() * 2, Slot{0, 0});
          old.swap(slots);
          mask = slots.size() - 1;
          for (const Slot& kept : old)
            if (kept.held != 0) place(kept.hash, kept.held);
        }
        place(h, (int64_t)found);
        break;
      }
      if (slot.hash == h &&
          std::memcmp(distinct.data() + (size_t)(slot.held - 1) * stride, row_bytes.data(), width) == 0) {
        inverse[i] = slot.held - 1;
        break;
      }
      at = (at + 1) & mask;
    }
  }
  return found;
}

void max_winners(const float* table, size_t d, const int64_t* slot, size_t t,
                 const int64_t* index, size_t n, size_t b, int64_t fallback, int64_t* winner) {
  // 32-bit winners beside 32-bit floats: the compare and the blend vectorise together
  // (with 64-bit winners the loop ran three times as long)
  std::vector<float> best(b * d);
  std::vector<int32_t> wins(b * d, (int32_t)fallback);
  const float* pad = table + (size_t)fallback * d;
  for (size_t r = 0; r < b; r++) std::memcpy(&best[r * d], pad, d * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    const int32_t u = (int32_t)index[i];
    const float* __restrict values = table + (size_t)index[i] * d;
    const size_t row = (size_t)slot[i] / t;
    float* __restrict top = &best[row * d];
    int32_t* __restrict win = &wins[row * d];
    for (size_t j = 0; j < d; j++) {
      const int32_t more = -(int32_t)(values[j] > top[j]);  // all ones where it wins
      top[j] = values[j] > top[j] ? values[j] : top[j];
      win[j] = (u & more) | (win[j] & ~more);
    }
  }
  for (size_t k = 0; k < b * d; k++) winner[k] = wins[k];
}

}  // namespace cardlang

#include "memory/dram/address_mapping.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/text.h"

namespace strata {
namespace {

int log2_exact(std::uint64_t v) {
  int b = 0;
  while ((std::uint64_t{1} << b) < v) ++b;
  return b;
}

}  // namespace

const char* AddressMapping::schemes_help() {
  return "a dash-separated order of row, rank, bankgroup, bank, column, channel from the most significant bits "
         "(e.g. row-bank-rank-column-channel), mop4clxor, or mop4clxor_channels";
}

void AddressMapping::add(Field f, int bits, int& shift, int& dest_shift) {
  if (bits > 0) slices_.push_back(Slice{f, shift, bits, dest_shift});
  shift += bits;
  dest_shift += bits;
}

AddressMapping::AddressMapping(const std::string& scheme, const DramOrganization& org) {
  offset_bits_ = log2_exact(org.access_bytes());
  field_bits_[kChannel] = log2_exact(static_cast<std::uint64_t>(org.controllers()));
  field_bits_[kRank] = log2_exact(static_cast<std::uint64_t>(org.ranks));
  field_bits_[kBankGroup] = log2_exact(static_cast<std::uint64_t>(org.bank_groups));
  field_bits_[kBank] = log2_exact(static_cast<std::uint64_t>(org.banks_per_group));
  field_bits_[kRow] = log2_exact(static_cast<std::uint64_t>(org.rows));
  field_bits_[kColumn] = log2_exact(static_cast<std::uint64_t>(org.bursts_per_row()));

  int shift = offset_bits_;
  int dest[kFields] = {};
  if (scheme == "mop4clxor" || scheme == "mop4clxor_channels") {
    xor_ = true;
    channel_xor_ = scheme == "mop4clxor_channels";
    const int low_column = std::min(2, field_bits_[kColumn]);
    add(kColumn, low_column, shift, dest[kColumn]);
    channel_shift_ = shift;
    for (Field f : {kChannel, kBankGroup, kBank, kRank}) add(f, field_bits_[f], shift, dest[f]);
    column_shift_ = shift;
    column_bits_ = field_bits_[kColumn] - low_column;
    add(kColumn, field_bits_[kColumn] - low_column, shift, dest[kColumn]);
    add(kRow, field_bits_[kRow], shift, dest[kRow]);
    address_bits_ = shift;
    return;
  }

  const std::vector<std::string> names = split(scheme, '-');
  static const char* kNames[kFields] = {"channel", "rank", "bankgroup", "bank", "row", "column"};
  std::vector<Field> order;
  bool seen[kFields] = {};
  for (const std::string& n : names) {
    int f = 0;
    while (f < kFields && n != kNames[f]) ++f;
    if (f == kFields)
      throw std::invalid_argument(fmt::format("unknown field \"{}\" in \"{}\": expected {}", n, scheme, schemes_help()));
    if (seen[f]) throw std::invalid_argument(fmt::format("field \"{}\" appears twice in \"{}\"", n, scheme));
    seen[f] = true;
    order.push_back(static_cast<Field>(f));
  }
  for (Field f : {kChannel, kRank, kBank, kRow, kColumn})
    if (!seen[f]) throw std::invalid_argument(fmt::format("\"{}\" lacks the field \"{}\"", scheme, kNames[f]));
  // Least significant first.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (*it == kBank && !seen[kBankGroup]) add(kBankGroup, field_bits_[kBankGroup], shift, dest[kBankGroup]);
    add(*it, field_bits_[*it], shift, dest[*it]);
  }
}

void AddressMapping::hash_banks(std::uint32_t* v) const {
  const std::uint32_t row = v[kRow];
  v[kBankGroup] ^= row & ((1u << field_bits_[kBankGroup]) - 1);
  v[kBank] ^= (row >> field_bits_[kBankGroup]) & ((1u << field_bits_[kBank]) - 1);
  v[kRank] ^= (row >> (field_bits_[kBankGroup] + field_bits_[kBank])) & ((1u << field_bits_[kRank]) - 1);
}

std::uint32_t AddressMapping::channel_fold(std::uint64_t address) const {
  const int bits = field_bits_[kChannel];
  if (bits == 0) return 0;
  const int above = channel_shift_ + bits;
  // A bank row's columns stay on one channel (its row-buffer hits), so the high column bits
  // are left out.
  address &= ~(((std::uint64_t{1} << column_bits_) - 1) << column_shift_);
  const std::uint64_t rest =
      address_bits_ > above ? (address >> above) & ((std::uint64_t{1} << (address_bits_ - above)) - 1) : 0;
  // A multiplicative (Fibonacci) hash: every bit above moves the channel, each differently.
  return static_cast<std::uint32_t>((rest * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

DramAddress AddressMapping::decode(std::uint64_t address) const {
  std::uint32_t v[kFields] = {};
  for (const Slice& s : slices_)
    v[s.field] |= static_cast<std::uint32_t>((address >> s.shift) & ((std::uint64_t{1} << s.bits) - 1)) << s.dest_shift;
  if (xor_) hash_banks(v);
  if (channel_xor_) v[kChannel] ^= channel_fold(address);
  DramAddress a;
  a.channel = static_cast<int>(v[kChannel]);
  a.rank = static_cast<int>(v[kRank]);
  a.bank_group = static_cast<int>(v[kBankGroup]);
  a.bank = static_cast<int>(v[kBank]);
  a.row = v[kRow];
  a.column = v[kColumn];
  return a;
}

std::uint64_t AddressMapping::encode(const DramAddress& a) const {
  std::uint32_t v[kFields] = {static_cast<std::uint32_t>(a.channel), static_cast<std::uint32_t>(a.rank),
                              static_cast<std::uint32_t>(a.bank_group), static_cast<std::uint32_t>(a.bank), a.row,
                              a.column};
  if (xor_) hash_banks(v);  // XOR with the row is its own inverse
  std::uint64_t address = 0;
  for (const Slice& s : slices_)
    address |= static_cast<std::uint64_t>((v[s.field] >> s.dest_shift) & ((1u << s.bits) - 1)) << s.shift;
  // The fold reads only bits above the channel field, so XORing it in again undoes decode's.
  if (channel_xor_) address ^= static_cast<std::uint64_t>(channel_fold(address)) << channel_shift_;
  return address;
}

}  // namespace strata

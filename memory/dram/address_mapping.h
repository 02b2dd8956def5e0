// Physical address -> (channel, rank, bank group, bank, row, column) for a DRAM organisation.
//
// A scheme is either a permutation of the fields written from the most to the least
// significant bits, dash-separated: "row-bank-rank-column-channel" (Ramulator's RoBaRaCoCh),
// "row-rank-bankgroup-bank-column-channel", ... where `bank` without `bankgroup` covers both
// (bank-group bits lowest, so neighbouring bank numbers alternate bank groups); or
// "mop4clxor": from the least significant bits, 2 column bits (4 bursts per bank stripe, the
// "minimalist open page"), channel, bank group, bank, rank, the other column bits, row; then
// bank-group, bank and rank bits are XORed with the row's low bits, so that streams spread
// across bank groups and rows that would collide in one bank land in different ones.
// "mop4clxor_channels": mop4clxor, and the channel bits XORed with a hash (multiplicative) of
// the bank-group, bank, rank and row bits above them (not the high column bits: a bank row
// stays on one channel), as GPUs hash addresses over their memory partitions
// (Accel-Sim's IPOLY-style partition hashing): rows of a tile a power-of-two pitch apart spread
// over every channel instead of camping on a few.
//
// The low log2(access bytes) bits are the offset inside one burst. Addresses beyond the
// capacity wrap around (their high bits are ignored).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory/dram/dram_spec.h"

namespace strata {

struct DramAddress {
  int channel = 0;  // the controller: channel * pseudo_channels + pseudo-channel
  int rank = 0;
  int bank_group = 0;
  int bank = 0;  // within its bank group
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // in bursts
};

class AddressMapping {
 public:
  // Throws std::invalid_argument with a one-line reason for a malformed scheme.
  AddressMapping(const std::string& scheme, const DramOrganization& org);
  DramAddress decode(std::uint64_t address) const;
  // The address of the first byte of (channel, rank, bank group, bank, row, column): decode's
  // inverse, used by tests and synthetic generators that aim at one bank.
  std::uint64_t encode(const DramAddress& a) const;
  static const char* schemes_help();

 private:
  enum Field { kChannel, kRank, kBankGroup, kBank, kRow, kColumn, kFields };
  struct Slice {
    Field field;
    int shift;       // position in the address
    int bits;        // width
    int dest_shift;  // position in the field's value
  };
  void add(Field f, int bits, int& shift, int& dest_shift);
  void hash_banks(std::uint32_t* v) const;  // the mop4clxor XOR of bank bits with row bits
  // mop4clxor_channels: the hash of the address bits above the channel field.
  std::uint32_t channel_fold(std::uint64_t address) const;
  bool channel_xor_ = false;
  int channel_shift_ = 0;                   // where the channel field sits in the address
  int column_shift_ = 0, column_bits_ = 0;  // the high column bits (left out of the fold)
  int address_bits_ = 0;                    // bits of the capacity
  std::vector<Slice> slices_;
  int offset_bits_ = 0;
  bool xor_ = false;
  int field_bits_[kFields] = {};
};

}  // namespace strata

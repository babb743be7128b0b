#include "benches/collective/collective_model.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace gpubench::collective {

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                                 "reduce",     "alltoall",   "sendrecv"};
  return names;
}

Kind kind_from_name(const std::string& name) {
  const auto& names = kind_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw std::invalid_argument("unknown collective '" + name + "'");
  return static_cast<Kind>(it - names.begin());
}

const char* kind_name(Kind kind) { return kind_names().at(static_cast<std::size_t>(kind)).c_str(); }

double bus_factor(Kind kind, int ranks) {
  const double n = ranks;
  switch (kind) {
    case Kind::kAllReduce:
      return 2 * (n - 1) / n;
    case Kind::kAllGather:
    case Kind::kReduceScatter:
    case Kind::kAllToAll:
      return (n - 1) / n;
    case Kind::kBroadcast:
    case Kind::kReduce:
    case Kind::kSendRecv:
      return 1;
  }
  return 0;
}

bool bus_bandwidth_meaningful(Kind kind, int ranks) { return ranks > 1 && bus_factor(kind, ranks) > 0; }

std::string bus_bandwidth_absent_reason(Kind kind, int ranks) {
  return bus_bandwidth_meaningful(kind, ranks) ? "" : std::to_string(ranks) + " rank";
}

bool moves_data(int ranks, bool in_place) { return ranks > 1 || !in_place; }

namespace {
// nccl-tests' per-rank block: whole 16-byte units, so every rank's block stays aligned; a block
// smaller than 16 B is left as it is rather than made empty.
std::size_t block_elements(std::size_t elements, std::size_t element_bytes, std::size_t ranks) {
  const std::size_t block = elements / ranks;
  const std::size_t aligned = block & ~(16 / element_bytes - 1);
  return aligned > 0 ? aligned : block;
}
}  // namespace

Counts counts(Kind kind, std::int64_t bytes, std::size_t element_bytes, int ranks) {
  if (bytes < kMinBytes || bytes > kMaxBytes)
    throw std::invalid_argument("collective size " + std::to_string(bytes) + " B is outside 8 B to 8 GiB");
  const std::size_t elements = static_cast<std::size_t>(bytes) / element_bytes;
  const std::size_t n = static_cast<std::size_t>(ranks);
  Counts c;
  switch (kind) {
    case Kind::kAllGather:  // send one chunk, receive every rank's
      c.chunk = block_elements(elements, element_bytes, n);
      c.send = c.chunk;
      c.recv = c.chunk * n;
      break;
    case Kind::kReduceScatter:  // send every rank's chunk, receive one
      c.chunk = block_elements(elements, element_bytes, n);
      c.send = c.chunk * n;
      c.recv = c.chunk;
      break;
    case Kind::kAllToAll:  // one chunk to and from every rank
      c.chunk = block_elements(elements, element_bytes, n);
      c.send = c.recv = c.chunk * n;
      break;
    default:
      c.chunk = c.send = c.recv = elements;
  }
  if (c.chunk == 0)
    throw std::invalid_argument(std::to_string(bytes) + " B gives no element per rank for " + kind_name(kind) +
                                " over " + std::to_string(ranks) + " ranks");
  c.bytes = std::max(c.send, c.recv) * element_bytes;
  return c;
}

std::int64_t parse_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) throw std::invalid_argument("'" + text + "' is not a size (e.g. 1024, 4K, 1GiB)");
  const std::int64_t number = std::stoll(text.substr(0, digits));
  std::string unit = text.substr(digits);
  if (unit.size() == 3 && unit.compare(1, 2, "iB") == 0) unit.resize(1);
  if (unit == "B") unit.clear();
  int shift = 0;
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (!unit.empty()) throw std::invalid_argument("'" + text + "' has an unknown unit (B, K, M, G, KiB, MiB, GiB)");
  const std::int64_t size = number << shift;
  if (size < kMinBytes || size > kMaxBytes) throw std::invalid_argument("size '" + text + "' is outside 8 B to 8 GiB");
  return size;
}

bool host_timed(std::int64_t bytes, bool moves) { return !moves || bytes <= kHostTimedMaxBytes; }

std::vector<std::int64_t> default_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t b = 1 << 10; b <= (std::int64_t{4} << 30); b *= 4) sizes.push_back(b);
  return sizes;
}

std::vector<std::int64_t> quick_sizes() { return {1 << 26}; }

std::size_t element_bytes(const std::string& type) {
  if (type == "fp32") return 4;
  if (type == "bf16" || type == "fp16") return 2;
  throw std::invalid_argument("unknown collective type '" + type + "' (fp32, bf16, fp16)");
}

int rank_device(int local_rank, const std::vector<int>& devices) {
  if (local_rank >= 0 && devices.size() == 1) return devices.front();
  if (local_rank < 0 || local_rank >= static_cast<int>(devices.size()))
    throw std::invalid_argument("local rank " + std::to_string(local_rank) + " has no GPU of its own: it sees " +
                                std::to_string(devices.size()) +
                                " usable GPU(s); start one rank per GPU, each seeing the node's GPUs or one "
                                "of its own (srun --gpus-per-task=1)");
  return devices[static_cast<std::size_t>(local_rank)];
}

std::size_t rotation_slots(std::size_t footprint_bytes, std::size_t l2_bytes) {
  if (footprint_bytes == 0 || footprint_bytes >= 2 * l2_bytes) return 1;
  return (2 * l2_bytes + footprint_bytes - 1) / footprint_bytes;
}

}  // namespace gpubench::collective

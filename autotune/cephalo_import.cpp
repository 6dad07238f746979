#include "autotune/cephalo_import.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

namespace scaletune::autotune {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kUsableFraction = 0.75;           // MAX_MEMORY_THRESHOLD, runtime_estimator.py
constexpr double kCommOverheadGiB = 2.0;           // comm_mem_overhead, split_workload.py
constexpr double kAccumulationOverhead_ms = 10.0;  // ga_overhead, split_workload.py
constexpr double kStateBytesPerParameter = 16.0;   // parameters * 4 * 4 (fp32 Adam state)
constexpr int kLargestStoredSize = 1024;           // samples
constexpr double kMinTime_s = 1e-9;                // a stored time is at least 1 ns
constexpr double kMaxTime_s = 1e9;                 // and at most ~30 years
constexpr double kMaxLayers = 4096;                // the job file's limits (workload.layers)
constexpr double kMaxHidden = 1 << 20;             // (workload.hidden)
constexpr double kMaxParameters = 1e15;
constexpr double kMaxMemoryGiB = 1 << 20;  // a profiled compute memory, GiB

/// A JSON value and where it is: its file and key path ("model/gpu/512/float16[0]").
struct Node {
  const Json& value;
  std::string file;
  std::string keys;

  std::string where() const { return keys.empty() ? file : file + ": " + keys; }
  [[noreturn]] void fail(const std::string& expected) const {
    throw std::invalid_argument(where() + ": expected " + expected + ", got " +
                                value.dump().substr(0, 80));
  }
  Node child(const Json& v, const std::string& key) const {
    return {v, file, keys.empty() ? key : keys + "/" + key};
  }
  Node at(const std::string& key) const {
    if (!value.is_object()) fail("an object with key '" + key + "'");
    const auto it = value.find(key);
    if (it == value.end()) throw std::invalid_argument(where() + ": no key '" + key + "'");
    return child(*it, key);
  }
  Node at(std::size_t index) const {
    return {value.at(index), file, keys + "[" + std::to_string(index) + "]"};
  }
  double number() const {
    if (!value.is_number() || !std::isfinite(value.get<double>())) fail("a finite number");
    return value.get<double>();
  }
  double positive() const {
    const double v = number();
    if (!(v > 0)) fail("a number > 0");
    return v;
  }
  /// An integer in [1, largest].
  double count(double largest) const {
    const double v = number();
    if (!(v >= 1 && v <= largest && v == std::floor(v)))
      fail("an integer from 1 to " + std::to_string(static_cast<std::int64_t>(largest)));
    return v;
  }
  /// The elements of a list of 1 or more numbers.
  std::vector<double> numbers() const {
    if (!value.is_array() || value.empty()) fail("a list of numbers");
    std::vector<double> out;
    for (std::size_t i = 0; i < value.size(); ++i) out.push_back(at(i).number());
    return out;
  }
};

struct Document {
  Json json;
  std::string path;
  Node root() const { return {json, path, ""}; }
};

Document read_json(const std::string& dir, const char* name) {
  Document doc;
  doc.path = dir + "/" + name;
  std::error_code error;
  if (!std::filesystem::is_regular_file(doc.path, error))
    throw std::invalid_argument(
        doc.path + ": " +
        (std::filesystem::exists(doc.path, error) ? "not a regular file" : "no such file") +
        "; expected Cephalo's " + name);
  std::ifstream in(doc.path);
  if (!in) throw std::invalid_argument(doc.path + ": cannot be opened");
  try {
    doc.json = Json::parse(in);
  } catch (const Json::exception& e) {
    throw std::invalid_argument(doc.path + ": not valid JSON: " + e.what());
  }
  return doc;
}

/// Cephalo's GPU_MEMORY, GiB (utils/runtime_estimator.py at 16b5ed3).
const std::map<std::string, double>& gpu_memory_gib() {
  static const std::map<std::string, double> table = {
      {"watgpu", 47.99}, {"a6000", 47.99},  {"l4", 22.50},          {"p40", 22.50},
      {"t4", 15.0},      {"v100", 16.0},    {"a10g", 22.49},        {"rtx_3090", 24},
      {"p100", 12},      {"v100x16", 16.0}, {"v100-pciex16", 16.0}, {"v100x32", 32.0},
      {"a100x40", 40.0}, {"a100x80", 80.0}, {"h100-nvl", 94.0}};
  return table;
}

std::string cephalo_dtype(const std::string& precision) {
  if (precision == "fp16") return "float16";
  if (precision == "fp32") return "float32";
  if (precision == "bf16") return "bfloat16";
  throw std::invalid_argument("precision '" + precision + "': expected fp16, fp32 or bf16");
}

/// One GPU's forward or backward latency, ms per layer: measured where it has, else the line.
struct Latency {
  double slope = 0, intercept = 0;
  std::vector<double> measured;  // at micro-batches 1, 2, ...
  double at(int m) const {
    return m <= static_cast<int>(measured.size()) ? measured[m - 1] : slope * m + intercept;
  }
};

/// Whether `entry` is one of Cephalo's legacy latency formats: a number, or a list of numbers
/// (split_workload.py reads the first as a forward slope and fails on the second).
bool legacy_latency(const Json& entry) {
  return entry.is_number() || (entry.is_array() && std::ranges::all_of(entry, [](const Json& v) {
                                 return v.is_number();
                               }));
}

/// Forward and backward of an entry [[fs, fi], [bs, bi]] or [[fs, fi], [bs, bi], [f..], [b..]].
std::pair<Latency, Latency> parse_latency(const Node& entry) {
  const char* form =
      "[[fwd slope, intercept], [bwd slope, intercept]] or that with the measured forward and "
      "backward lists appended (runtime_estimator.py's format; the legacy single numbers are "
      "not read)";
  if (!entry.value.is_array() || (entry.value.size() != 2 && entry.value.size() != 4))
    entry.fail(form);
  std::pair<Latency, Latency> out;
  Latency* parts[] = {&out.first, &out.second};
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<double> line = entry.at(k).numbers();
    if (line.size() != 2) entry.at(k).fail("[slope, intercept]");
    parts[k]->slope = line[0], parts[k]->intercept = line[1];
    if (entry.value.size() == 4) parts[k]->measured = entry.at(k + 2).numbers();
  }
  if (out.first.measured.size() != out.second.measured.size())
    entry.fail("forward and backward lists of the same length");
  return out;
}

/// The micro-batch sizes to store for a latency measured at 1..n: those, n + 1, then doublings.
std::vector<std::int64_t> stored_sizes(std::size_t measured) {
  std::vector<std::int64_t> sizes;
  for (std::size_t m = 1; m <= measured; ++m) sizes.push_back(static_cast<std::int64_t>(m));
  for (std::int64_t m = static_cast<std::int64_t>(measured) + 1; m <= kLargestStoredSize; m *= 2)
    sizes.push_back(m);
  if (sizes.back() < kLargestStoredSize) sizes.push_back(kLargestStoredSize);
  return sizes;
}

/// Cephalo's memory model of `request`'s model from model_memory.json.
results::ProfileTable::MemoryTerms memory_terms(const Document& memory,
                                                const CephaloImportRequest& request) {
  const Node model = memory.root().at(request.cluster).at(request.model);
  const double parameters = model.at("parameters").count(kMaxParameters);
  const Node profiled = model.at("profiled_compute_memory").at(cephalo_dtype(request.precision));
  const std::vector<double> p = profiled.numbers();
  if (p.size() < 2) profiled.fail("at least 2 profiled micro-batch sizes");
  for (std::size_t m = 0; m < p.size(); ++m)
    if (!(p[m] > 0 && p[m] < kMaxMemoryGiB))
      profiled.at(m).fail("GiB > 0 and below " +
                          std::to_string(static_cast<std::int64_t>(kMaxMemoryGiB)));
  const std::size_t n = p.size(), k = std::min<std::size_t>(5, n);
  const double growth = (p[n - 1] - p[n - k]) / static_cast<double>(k - 1);
  if (!(growth >= 0)) profiled.fail("memory that does not shrink with the micro-batch");
  double base = p[0] - growth;
  for (std::size_t m = 1; m <= n; ++m) base = std::max(base, p[m - 1] - growth * m);
  return {parameters * kStateBytesPerParameter, (std::max(0.0, base) + kCommOverheadGiB) * kGiB,
          growth * kGiB};
}

/// The model's layer count and hidden size as configuration attributes, with the sequence.
void add_model(const Document& stats, const CephaloImportRequest& request,
               results::ConfigResult& c) {
  const Node model = stats.root().at(request.model);
  c.number_attrs["layers"] = model.at("num_layers").count(kMaxLayers);
  c.number_attrs["hidden"] = model.at("hidden_size").count(kMaxHidden);
  c.number_attrs["seq_len"] = request.seq_len;
}

/// One GPU type's parsed latency entry.
struct GpuLatency {
  std::string gpu;
  Node entry;  ///< where it is, for messages
  Latency forward, backward;
};

/// Appends `g`'s row to `profile`, whose sizes are set.
void add_rank(const GpuLatency& g, double layers, results::ProfileTable& profile) {
  for (const std::int64_t m : profile.micro_batches) {
    const int size = static_cast<int>(m);
    const double ms = layers * (2 * g.forward.at(size) + g.backward.at(size));
    if (!(ms >= kMinTime_s * 1e3 && ms <= kMaxTime_s * 1e3))
      g.entry.fail("latencies giving a step of 1 ns to 1e9 s at micro-batch " + std::to_string(m) +
                   " (got " + std::to_string(ms) + " ms)");
    profile.time_s.push_back(ms / 1e3);
    profile.spread.push_back(0.0);
  }
  profile.capacity_bytes.push_back(cephalo_capacity_bytes(g.gpu));
  profile.devices.push_back(g.gpu);
  profile.accumulation_overhead_s.push_back(layers * kAccumulationOverhead_ms / 1e3);
  ++profile.ranks;
}

/// The parsed latency entries of model_latencies.json for the request, in the file's order;
/// GPU types in a legacy format or without a capacity are left out and named in `out`.
std::vector<GpuLatency> latency_entries(const Document& latencies,
                                        const CephaloImportRequest& request, CephaloImport& out) {
  const Node model = latencies.root().at(request.model);
  if (!model.value.is_object()) model.fail("an object of GPU types");
  std::vector<GpuLatency> entries;
  const std::string seq = std::to_string(request.seq_len), dtype = cephalo_dtype(request.precision);
  for (const auto& [gpu, by_seq] : model.value.items()) {
    if (!by_seq.is_object() || !by_seq.contains(seq) || !by_seq[seq].is_object()) continue;
    const auto d = by_seq[seq].find(dtype);
    if (d == by_seq[seq].end()) continue;
    if (legacy_latency(*d)) {
      out.legacy.push_back(gpu);
    } else if (cephalo_capacity_bytes(gpu) == 0) {
      out.skipped.push_back(gpu);
    } else {
      const Node entry = model.child(*d, gpu + "/" + seq + "/" + dtype);
      const auto [forward, backward] = parse_latency(entry);
      entries.push_back({gpu, entry, forward, backward});
    }
  }
  return entries;
}

/// The size every rank's row is stored at: the longest measured list among `entries`.
std::size_t longest_measured(const std::vector<GpuLatency>& entries) {
  std::size_t longest = 0;
  for (const GpuLatency& g : entries) longest = std::max(longest, g.forward.measured.size());
  return longest;
}

}  // namespace

std::int64_t cephalo_capacity_bytes(const std::string& gpu) {
  const auto it = gpu_memory_gib().find(gpu);
  return it == gpu_memory_gib().end()
             ? 0
             : static_cast<std::int64_t>(std::floor(kUsableFraction * it->second * kGiB));
}

CephaloImport read_cephalo_profiles(const CephaloImportRequest& request) {
  if (request.seq_len <= 0)
    throw std::invalid_argument("sequence length " + std::to_string(request.seq_len) +
                                ": expected > 0");
  const Document latencies = read_json(request.dir, "model_latencies.json");
  const Document memory = read_json(request.dir, "model_memory.json");
  const Document stats = read_json(request.dir, "model_stats.json");
  CephaloImport out;
  results::ConfigResult& c = out.config;
  c.id =
      "cephalo-" + request.model + "-s" + std::to_string(request.seq_len) + "-" + request.precision;
  c.workload = "cephalo:" + request.model;  // imported, as "mlperf:resnet50"
  c.batch_split = "auto";
  c.precision = request.precision;
  c.device_kind = "cuda";
  c.status = results::Status::skipped;
  c.error = "imported from Cephalo's profiles; nothing ran here";
  results::ProfileTable profile;
  profile.memory_model = memory_terms(memory, request);
  c.params = profile.memory_model->state_bytes / kStateBytesPerParameter;
  add_model(stats, request, c);
  const std::vector<GpuLatency> entries = latency_entries(latencies, request, out);
  profile.micro_batches = stored_sizes(longest_measured(entries));
  for (const GpuLatency& g : entries) add_rank(g, c.number_attrs.at("layers"), profile);
  if (profile.ranks == 0)
    throw std::invalid_argument(latencies.path +
                                ": no GPU type with a known memory capacity has "
                                "latencies for " +
                                request.model + "/" + std::to_string(request.seq_len) + "/" +
                                cephalo_dtype(request.precision));
  c.ranks = profile.ranks;
  c.global_batch = c.ranks;
  c.text_attrs["source"] = request.dir + " (Cephalo; memory cluster " + request.cluster + ")";
  c.profile = std::move(profile);
  return out;
}

}  // namespace scaletune::autotune

#include "autotune/performance_model.hpp"

#include <algorithm>
#include <cmath>

#include "autotune/detail/format.hpp"

namespace scaletune::autotune {
namespace {

/// The uniform op whose models stand in for a v-op without its own.
std::string uniform_op(const std::string& op) {
  if (op == "alltoallv") return "alltoall";
  if (op == "reduce_scatterv") return "reduce_scatter";
  if (op == "all_gatherv") return "all_gather";
  if (op == "barrier") return "all_reduce";
  return op;
}

}  // namespace

OpModel op_model_of(const results::OpModelRecord& r) {
  OpModel m;
  m.op = r.op;
  m.dtype = r.dtype;
  m.device_kind = r.device_kind;
  m.form = op_model_form_from(r.form);
  m.inputs = r.inputs;
  m.weights = r.weights;
  m.range_names = r.range_names;
  m.range_low = r.range_low;
  m.range_high = r.range_high;
  m.points = r.points;
  m.cv_mape = r.cv_mape;
  m.other_cv_mape = r.other_cv_mape;
  if (!r.other_form.empty()) m.runner_up = op_model_form_from(r.other_form);
  m.residual = {r.kernel_offset, r.kernel_scale, r.kernel_centers, r.kernel_alpha, r.kernel_gamma};
  return m;
}

results::OpModelRecord record_of(const OpModel& m) {
  return {m.op,
          m.dtype,
          m.device_kind,
          op_model_form_name(m.form),
          m.inputs,
          m.weights,
          m.range_names,
          m.range_low,
          m.range_high,
          m.points,
          m.cv_mape,
          m.other_cv_mape,
          m.runner_up ? op_model_form_name(*m.runner_up) : "",
          m.residual.offset,
          m.residual.scale,
          m.residual.centers,
          m.residual.alpha,
          m.residual.gamma};
}

CollectiveCurve curve_of(const results::CollectiveModelRecord& r) {
  if (r.parameters.size() != 6)
    throw std::invalid_argument("collective curve " + r.op + ": " +
                                std::to_string(r.parameters.size()) + " parameters, expected 6");
  CollectiveCurve c;
  c.op = r.op;
  c.ranks = r.ranks;
  c.nodes = r.nodes;
  c.bus_factor = r.parameters[0];
  c.floor_us = r.parameters[1];
  c.peak_gbps = r.parameters[2];
  c.slope = r.parameters[3];
  c.mid_log2 = r.parameters[4];
  c.fit_rms_log = r.parameters[5];
  c.log2_sizes = r.log2_sizes;
  c.residuals = r.residuals;
  return c;
}

RankCountModel rank_count_model_of(const results::CollectiveModelRecord& r) {
  const std::vector<double>& p = r.parameters;
  if (p.size() != 4 && p.size() != 8)
    throw std::invalid_argument("rank-count model " + r.op + ": " + std::to_string(p.size()) +
                                " parameters, expected 4 (one node) or 8");
  RankCountModel m{.op = r.op,
                   .alpha0 = p[0],
                   .alpha1 = p[1],
                   .beta0 = p[2],
                   .beta1 = p[3],
                   .min_ranks = r.min_ranks,
                   .max_ranks = r.max_ranks};
  if (p.size() == 8) {
    m.alpha_inter = p[4];
    m.beta_inter = p[5];
    m.ranks_per_node = static_cast<int>(p[6]);
    m.max_nodes = static_cast<int>(p[7]);
    if (m.ranks_per_node < 0 || m.max_nodes < 1 || (m.max_nodes > 1) != (m.ranks_per_node > 0))
      throw std::invalid_argument("rank-count model " + r.op + ": ranks per node " +
                                  std::to_string(m.ranks_per_node) + " and nodes " +
                                  std::to_string(m.max_nodes) +
                                  "; expected both > 1 with inter-node terms, else 0 and 1");
  }
  return m;
}

PerformanceModel::PerformanceModel(const results::ModelSet& models) {
  for (const results::OpModelRecord& r : models.ops) {
    if (m_device_kind.empty()) m_device_kind = r.device_kind;
    m_ops.emplace(std::make_pair(r.op, r.dtype), op_model_of(r));
  }
  for (const results::CollectiveModelRecord& r : models.collectives) {
    const bool curve = r.form == "curve";
    m_sources[{r.op, curve ? r.ranks : 0, curve ? r.nodes : 1}] = r.sources;
    if (curve)
      m_curves.emplace(std::make_tuple(r.op, r.ranks, r.nodes), curve_of(r));
    else if (r.form == "rank_count")
      m_rank_models.emplace(r.op, rank_count_model_of(r));
    else
      throw std::invalid_argument("collective model " + r.op + ": form '" + r.form + "'");
  }
}

const OpModel& PerformanceModel::op_model(const trace::ComputeOp& op) const {
  const auto it = m_ops.find(std::pair<std::string_view, std::string_view>(op.op, op.dtype));
  if (it != m_ops.end()) return it->second;
  throw MissingModel("the model has no " + op.op + " " + op.dtype +
                     " model; profile that op with `scaletune profile --jobs JOB.toml` on the "
                     "devices to predict, then fit again");
}

double PerformanceModel::op_time_s(const trace::ComputeOp& op) const {
  return op_model(op).time_s(op);
}

std::vector<std::string> PerformanceModel::extrapolation(const trace::ComputeOp& op) const {
  return op_model(op).extrapolation(op);
}

bool PerformanceModel::extrapolates(const trace::ComputeOp& op) const {
  return op_model(op).extrapolates(op);
}

const CollectiveCurve* PerformanceModel::curve_at(const std::string& op, int ranks,
                                                  int nodes) const {
  const auto it = m_curves.lower_bound({op, ranks, nodes});
  if (it == m_curves.end() || std::get<0>(it->first) != op || std::get<1>(it->first) != ranks)
    return nullptr;
  return nodes == 0 || std::get<2>(it->first) == nodes ? &it->second : nullptr;
}

int PerformanceModel::placed_nodes(const std::string& op, int ranks) const {
  return m_ranks_per_node > 0 || m_rank_models.contains(op) ? nodes_for(op, ranks) : 0;
}

PerformanceModel::Source PerformanceModel::source_for(const std::string& op, int ranks) const {
  const std::string uniform = uniform_op(op);
  for (const std::string& name : {op, uniform})
    if (const CollectiveCurve* c = curve_at(name, ranks, placed_nodes(name, ranks)))
      return {name, c};
  for (const std::string& name : {op, uniform})
    if (m_rank_models.contains(name)) return {name, nullptr};
  for (const std::string& name : {op, uniform})
    if (const CollectiveCurve* c = curve_at(name, ranks, 0)) return {name, c};
  throw MissingCollectiveModel("the model has no " + op + " model on " + std::to_string(ranks) +
                               " ranks nor one across rank counts; profile on " +
                               std::to_string(ranks) + " ranks (mpirun -np " +
                               std::to_string(ranks) +
                               " scaletune profile), or import nccl-tests or OSU logs of " +
                               uniform + " on several rank counts, then fit again");
}

double PerformanceModel::collective_time_s(const trace::Collective& c) const {
  if (c.participants <= 1) return 0.0;
  const double bytes =
      std::max<double>(c.op == "barrier" ? 8.0 : static_cast<double>(c.bytes), 1.0);
  const auto [op, curve] = source_for(c.op, c.participants);
  if (curve != nullptr) return curve->time_us(bytes) * 1e-6;
  const RankCountModel& m = m_rank_models.at(op);
  const double us = m.time_us(c.participants, bytes, nodes_for(op, c.participants));
  if (!(us > 0.0))
    throw MissingCollectiveModel(
        "the " + op + " model across " + std::to_string(m.min_ranks) + ".." +
        std::to_string(m.max_ranks) + " ranks gives " + detail::significant(us, 3) + " us for " +
        detail::significant(bytes, 3) + " bytes on " + std::to_string(c.participants) +
        " ranks, no time at all (its rows disagree: logs of different clusters?); fit it on "
        "the logs of one cluster, or profile on " +
        std::to_string(c.participants) + " ranks");
  return us * 1e-6;
}

std::string CollectiveBasis::text() const {
  std::string out = model;
  for (const std::string& b : beyond) out += ", " + b;
  return files.empty() ? out : out + " (from " + files + ")";
}

CollectiveBasis PerformanceModel::collective_basis(const trace::Collective& c) const {
  if (c.participants <= 1) return {"one rank: no communication", {}, ""};
  const auto [op, curve] = source_for(c.op, c.participants);
  if (curve == nullptr) {
    CollectiveBasis b = rank_count_basis(m_rank_models.at(op), c.participants);
    b.files = m_sources.at({op, 0, 1});
    return b;
  }
  CollectiveBasis b{op + " curve at " + std::to_string(c.participants) + " ranks",
                    {},
                    m_sources.at({op, c.participants, curve->nodes})};
  const int nodes = placed_nodes(op, c.participants);
  if (nodes != 0 && curve->nodes != nodes)
    b.beyond.push_back(
        "measured on " + detail::counted(static_cast<std::size_t>(curve->nodes), "node") +
        ", extrapolated to " + detail::counted(static_cast<std::size_t>(nodes), "node"));
  if (curve->extrapolates(std::max<double>(static_cast<double>(c.bytes), 1.0)))
    b.beyond.push_back("extrapolated outside its fitted sizes of " +
                       detail::significant(std::exp2(curve->log2_sizes.front()), 3) + ".." +
                       detail::significant(std::exp2(curve->log2_sizes.back()), 3) + " bytes");
  return b;
}

CollectiveBasis PerformanceModel::rank_count_basis(const RankCountModel& m, int ranks) const {
  const int nodes = nodes_for(m.op, ranks);
  const int per_node = (ranks + nodes - 1) / nodes;  // the most on one node
  CollectiveBasis b{m.op + " across " + std::to_string(m.min_ranks) + ".." +
                        std::to_string(m.max_ranks) + " ranks",
                    {},
                    ""};
  if (m.spans_nodes())
    b.model += " (" + std::to_string(m.ranks_per_node) + " per node, up to " +
               detail::counted(static_cast<std::size_t>(m.max_nodes), "node") + ")";
  const std::string on_nodes =
      " on " + detail::counted(static_cast<std::size_t>(nodes), "node") +
      (ranks % nodes != 0 ? " of up to " + std::to_string(per_node) + " ranks" : "");
  const bool beyond =
      ranks > m.max_ranks || ranks < m.min_ranks || (m.spans_nodes() && nodes > m.max_nodes);
  if (beyond)
    b.beyond.push_back("extrapolated to " + std::to_string(ranks) + " ranks" +
                       (m.spans_nodes() ? on_nodes : ""));
  // One node, or uneven nodes "of up to g ranks", already say the ranks per node.
  const bool per_node_said = beyond && m.spans_nodes() && (nodes == 1 || ranks % nodes != 0);
  if (m.spans_nodes() && per_node != m.ranks_per_node &&
      (nodes > 1 || per_node > m.ranks_per_node) && !per_node_said)
    b.beyond.push_back("extrapolated to " +
                       detail::counted(static_cast<std::size_t>(per_node), "rank") + " per node");
  if (!m.spans_nodes() && nodes > 1)
    b.beyond.push_back("extrapolated as one node for " + std::to_string(ranks) + " ranks" +
                       on_nodes + " (its rows never spanned nodes)");
  return b;
}

void PerformanceModel::set_ranks_per_node(int ranks_per_node) {
  if (ranks_per_node < 0)
    throw std::invalid_argument("ranks per node " + std::to_string(ranks_per_node) +
                                "; expected >= 1, or 0 for the models' own layout");
  m_ranks_per_node = ranks_per_node;
}

int PerformanceModel::nodes_for(const std::string& op, int ranks) const {
  const auto it = m_rank_models.find(op);
  const int per_node = m_ranks_per_node > 0        ? m_ranks_per_node
                       : it != m_rank_models.end() ? it->second.ranks_per_node
                                                   : 0;
  return per_node > 0 ? (ranks + per_node - 1) / per_node : 1;
}

}  // namespace scaletune::autotune

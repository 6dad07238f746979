#pragma once
// The models of a model file (scaletune fit) ready to time a described step: an op's time from
// the model of its kind and element type, a collective's from the curve of its op at its rank
// count, else from the op's model across rank counts. What it cannot time it refuses, naming
// what to profile.

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "autotune/collective_curve.hpp"
#include "autotune/op_model.hpp"
#include "autotune/rank_count_model.hpp"
#include "harness/results/model_file.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::autotune {

/// A model the step needs is not in the file. what() names the op (kind and element type, or
/// collective and rank count) and how to get it profiled.
class MissingModel : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The model has no collective model for a rank count a configuration needs (a configuration
/// of other rank counts may still be predicted).
class MissingCollectiveModel : public MissingModel {
 public:
  using MissingModel::MissingModel;
};

/// What timed a collective (PerformanceModel::collective_basis): the model and its range, what
/// the collective takes it beyond, and the files it was fitted on.
struct CollectiveBasis {
  /// "all_reduce curve at 16 ranks", "all_reduce across 8..16 ranks (8 per node, up to 2
  /// nodes)", "one rank: no communication"
  std::string model;
  /// "extrapolated to 64 ranks on 8 nodes", "extrapolated outside its fitted sizes of 8..2.1e+06
  /// bytes", ...; empty inside the model's range
  std::vector<std::string> beyond;
  std::string files;  ///< "nccl.h5, profile.h5"; empty where the model file names none

  /// model, each of beyond after ", ", then " (from FILES)".
  std::string text() const;
  bool extrapolates() const { return !beyond.empty(); }
};

/// results::ModelSet's records as models.
OpModel op_model_of(const results::OpModelRecord& r);
results::OpModelRecord record_of(const OpModel& m);
CollectiveCurve curve_of(const results::CollectiveModelRecord& r);
RankCountModel rank_count_model_of(const results::CollectiveModelRecord& r);

/// Times ops and collectives with the models of one file.
class PerformanceModel {
 public:
  /// Throws std::invalid_argument for a record that is not a model (an unknown form).
  explicit PerformanceModel(const results::ModelSet& models);

  /// The device kind of the op models ("host", "cuda"; "" without op models; the first one's
  /// when they mix).
  const std::string& device_kind() const { return m_device_kind; }
  /// The op's time, s. Throws MissingModel when the file has no model of its kind and dtype.
  double op_time_s(const trace::ComputeOp& op) const;
  /// What the op's model extrapolates in (op_model.hpp); MissingModel as op_time_s.
  std::vector<std::string> extrapolation(const trace::ComputeOp& op) const;
  /// Whether extrapolation(op) is not empty, without formatting it; MissingModel as op_time_s.
  bool extrapolates(const trace::ComputeOp& op) const;
  /// The collective's time once all participants have joined, s: 0 on one rank; the curve of
  /// its op (v-ops: of the uniform op where the file has no curve of their own; barrier: an
  /// 8-byte all_reduce) at its rank count on the nodes nodes_for places it on, else the op's
  /// model across rank counts, else a curve at its rank count on other nodes (on any nodes
  /// where no layout is known: placed_nodes). Throws MissingCollectiveModel when none exists,
  /// or when the model across rank counts gives no positive time.
  double collective_time_s(const trace::Collective& c) const;
  /// Which model timed `c`, what it extrapolates from and the files it was fitted on (text()):
  /// "alltoall curve at 2 ranks (from profile.h5)", "all_reduce curve at 16 ranks, measured on
  /// 2 nodes, extrapolated to 1 node (from nccl.h5)", "all_reduce across 2..8 ranks,
  /// extrapolated to 64 ranks (from nccl.h5)" or, for a model with inter-node terms,
  /// "all_reduce across 8..16 ranks (8 per node, up to 2 nodes), extrapolated to 64 ranks on 8
  /// nodes (from nccl.h5)"; the files are left out where the model file does not name them.
  CollectiveBasis collective_basis(const trace::Collective& c) const;
  /// Places the ranks of the collectives timed by models across rank counts `ranks_per_node`
  /// to a node (the job's [slurm] tasks_per_node); 0, the default: as the multi-node rows
  /// those models were fitted on were placed (one node when none spanned nodes). Throws
  /// std::invalid_argument when ranks_per_node < 0.
  void set_ranks_per_node(int ranks_per_node);
  /// Nodes `ranks` ranks of `op` are placed on: ceil(ranks / ranks per node) with
  /// set_ranks_per_node's, else with that of the multi-node rows of op's model across rank
  /// counts; 1 when neither gives a layout.
  int nodes_for(const std::string& op, int ranks) const;

 private:
  const OpModel& op_model(const trace::ComputeOp& op) const;
  /// The models that time a collective: the op whose models do, and its curve (null: the model
  /// across rank counts).
  struct Source {
    std::string op;
    const CollectiveCurve* curve = nullptr;
  };
  /// The models that time `op` at `ranks` (collective_time_s's order); MissingCollectiveModel.
  Source source_for(const std::string& op, int ranks) const;
  /// Nodes the job places `ranks` ranks of `op` on (nodes_for) when a layout is known (set by
  /// set_ranks_per_node, or op's model across rank counts); 0 when none is.
  int placed_nodes(const std::string& op, int ranks) const;
  /// The curve of `op` at `ranks` on `nodes` nodes (nodes 0: on any, the fewest), else null.
  const CollectiveCurve* curve_at(const std::string& op, int ranks, int nodes) const;
  /// collective_basis of `ranks` ranks timed by the model across rank counts `m`, without files.
  CollectiveBasis rank_count_basis(const RankCountModel& m, int ranks) const;

  std::string m_device_kind;
  int m_ranks_per_node = 0;  ///< set_ranks_per_node's; 0: the models' own
  /// Orders (op, dtype) keys and finds one from string views, without copying the names.
  struct OpKeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::pair<std::string_view, std::string_view>(a.first, a.second) <
             std::pair<std::string_view, std::string_view>(b.first, b.second);
    }
  };
  std::map<std::pair<std::string, std::string>, OpModel, OpKeyLess> m_ops;  ///< (op, dtype)
  std::map<std::tuple<std::string, int, int>, CollectiveCurve> m_curves;    ///< (op, ranks, nodes)
  std::map<std::string, RankCountModel> m_rank_models;                      ///< op
  /// The files each collective model was fitted on: (op, ranks, nodes) of a curve, (op, 0, 1) of
  /// a model across rank counts
  std::map<std::tuple<std::string, int, int>, std::string> m_sources;
};

}  // namespace scaletune::autotune

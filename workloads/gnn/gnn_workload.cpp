#include "workloads/gnn/gnn_workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/input_error.h"
#include "workloads/graph/binary_csr.h"
#include "workloads/graph/graph_loaders.h"
#include "workloads/graph/synthetic_graphs.h"
#include "workloads/opgraph/graph_builder.h"
#include "workloads/quant_section.h"

namespace strata {

namespace {

const KindSpec& graph_section_spec() {
  static const KindSpec spec = [] {
    KindSpec s;
    s.name = "graph";
    s.category = "section";
    s.description = "the graph: a dataset file or a seeded synthetic graph";
    s.add(param::choice("source", {"planetoid", "edge_list", "linqs", "binary", "rmat", "power_law"},
                        "planetoid: <name>.edges.txt with optional features/feature_stats/labels beside it; edge_list: "
                        "'u v' lines; linqs: .cites; binary: Strata's binary CSR; rmat, power_law: synthetic")
              .def("planetoid"));
    s.add(param::path("path", "the graph file (planetoid: the <name>.edges.txt file)").def(""));
    s.add(param::boolean("directed", "edge_list: keep edges one-way instead of storing both directions").def("false"));
    s.add(param::integer("scale", "rmat: 2^scale nodes").def("14").range("1", "31"));
    s.add(param::real("edge_factor", "rmat: generated edges per node").def("16").range("0.001", "1e6"));
    s.add(param::real("a", "rmat: top-left quadrant probability").def("0.57").range("0", "1"));
    s.add(param::real("b", "rmat: top-right quadrant probability").def("0.19").range("0", "1"));
    s.add(param::real("c", "rmat: bottom-left quadrant probability").def("0.19").range("0", "1"));
    s.add(param::integer("nodes", "power_law: node count").def("10000").range("2", "2147483648"));
    s.add(param::real("avg_degree", "power_law: average degree").def("8").range("0.001", "1e9"));
    s.add(param::real("gamma", "power_law: degree exponent (> 2)").def("2.5").range("2.0001", "100"));
    return s;
  }();
  return spec;
}

}  // namespace

KindSpec GnnWorkload::spec() {
  KindSpec s;
  s.name = "gnn";
  s.description = "GNN layers (GCN, GraphSAGE-mean, GIN) as aggregation SpMM plus combination GEMM on a graph";
  s.add(param::choice("model", {"gcn", "sage", "gin"}, "layer kind").def("gcn"));
  s.add(param::list("layer_dims", "feature widths: input, then each layer's output (e.g. [1433, 16, 7])")
            .of(ParamType::Int)
            .at_least("1"));
  s.add(param::list("order", "per layer (or one for all): combine_first = A(XW), aggregate_first = (AX)W, auto")
            .of_choices({"combine_first", "aggregate_first", "auto"})
            .def("auto"));
  s.add(param::list("feature_density",
                    "per layer: density of the layer's input features in (0, 1]; empty: the dataset's for layer 1, then 1")
            .of(ParamType::Float)
            .range("1e-12", "1")
            .def(""));
  s.add(param::boolean("self_loops", "gcn: aggregate over A + I").def("true"));
  s.slot(SlotSpec{"graph", "the graph", "section", "", true, &graph_section_spec()});
  s.slot(SlotSpec{"quant", "number formats (degree-aware feature formats allowed)", "section", "", false,
                  &quant_section_spec(QuantExtras::Degrees)});
  return s;
}

GnnWorkload::GnnWorkload(const ValidatedNode& cfg, SimContext& ctx) : GraphWorkload(cfg, ctx) {
  const ValidatedNode& gs = cfg.child("graph");
  const Params& g = gs.params;
  const std::string source = g.string("source");
  const std::string path = g.path("path");
  const bool file = source == "planetoid" || source == "edge_list" || source == "linqs" || source == "binary";
  if (file && path.empty()) throw InputError(g.where("source"), gs.path + ".path", fmt::format("source {} needs a path", source));
  try {
    if (source == "planetoid") {
      const std::string suffix = ".edges.txt";
      const std::string file_name = std::filesystem::path(path).filename().string();
      if (file_name.size() <= suffix.size() || file_name.substr(file_name.size() - suffix.size()) != suffix)
        throw InputError(g.where("path"), gs.path + ".path", "planetoid needs the <name>.edges.txt file");
      GraphDataset d = load_planetoid(std::filesystem::path(path).parent_path().string(),
                                      file_name.substr(0, file_name.size() - suffix.size()));
      graph_ = std::move(d.graph);
      features_ = std::move(d.features);
    } else if (source == "edge_list") {
      graph_ = load_edge_list(path, !g.flag("directed"));
    } else if (source == "linqs") {
      graph_ = load_linqs_cites(path);
    } else if (source == "binary") {
      graph_ = map_binary_csr(path);
    } else if (source == "rmat") {
      graph_ = rmat_graph(static_cast<int>(g.integer("scale")), g.real("edge_factor"), g.real("a"), g.real("b"),
                          g.real("c"), ctx.seed());
    } else {
      graph_ = power_law_graph(g.integer("nodes"), g.real("avg_degree"), g.real("gamma"), ctx.seed());
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(gs.loc, gs.path, e.what());
  } catch (const InputError& e) {
    // Generators name only their parameter; point at the section that set it.
    if (!e.loc().file.empty()) throw;
    throw InputError(gs.loc, e.key().empty() ? gs.path : gs.path + "." + e.key(), e.message());
  }

  model_ = cfg.params.string("model");
  const std::vector<std::int64_t>& dims = cfg.params.integers("layer_dims");
  if (dims.size() < 2) throw InputError(cfg.params.where("layer_dims"), cfg.path + ".layer_dims", "needs an input width and at least one layer");
  if (features_ && features_->columns != dims[0])
    throw InputError(cfg.params.where("layer_dims"), cfg.path + ".layer_dims[0]",
                     fmt::format("the dataset has {} input features, not {}", features_->columns, dims[0]));
  const size_t n_layers = dims.size() - 1;
  const auto& order = cfg.params.list("order");
  const auto& dens = cfg.params.reals("feature_density");
  if (order.size() != 1 && order.size() != n_layers)
    throw InputError(cfg.params.where("order"), cfg.path + ".order", fmt::format("give one order or {}", n_layers));
  if (!dens.empty() && dens.size() != n_layers)
    throw InputError(cfg.params.where("feature_density"), cfg.path + ".feature_density",
                     fmt::format("give one density per layer ({})", n_layers));
  const bool loops = model_ == "gin" || (model_ == "gcn" && cfg.params.flag("self_loops"));
  self_loops_ = loops;
  adjacency_nnz_ = SparseStructure{graph_, loops}.nnz();
  const auto N = graph_.num_nodes();
  for (size_t l = 0; l < n_layers; ++l) {
    Layer layer;
    layer.in = dims[l];
    layer.out = dims[l + 1];
    if (!dens.empty()) {
      layer.density = dens[l];
    } else if (l == 0 && features_) {
      layer.density = features_->density();
    }
    layer.input_nnz = l == 0 && features_ && dens.empty()
                          ? features_->nnz
                          : static_cast<std::int64_t>(std::llround(layer.density * static_cast<double>(N * layer.in)));
    if (layer.input_nnz < 1) layer.density = 1;  // too sparse to mean anything: treat as dense
    const std::string& o = order.size() == 1 ? order[0] : order[l];
    layer.combine_first = o == "auto" ? layer_flops(layer, true) <= layer_flops(layer, false) : o == "combine_first";
    layers_.push_back(layer);
  }
  quant_ = read_quant_section(cfg.child("quant"));
}

double GnnWorkload::layer_flops(const Layer& l, bool combine_first) const {
  const double N = static_cast<double>(graph_.num_nodes()), A = static_cast<double>(adjacency_nnz_);
  const double in = static_cast<double>(l.in), out = static_cast<double>(l.out);
  const bool sparse = l.density < 1;
  auto combine = [&](double width) { return sparse ? 2 * static_cast<double>(l.input_nnz) * width : 2 * N * in * width; };
  double f = 0;
  if (model_ == "gin") {
    // MLP: in → out → out; aggregation before or after the first matrix.
    f = combine_first ? combine(out) + 2 * A * out : 2 * A * in + 2 * N * in * out;
    f += N * out + 2 * N * out * out;  // ReLU and the second matrix
  } else if (model_ == "sage") {
    f = combine(out) + (combine_first ? combine(out) + 2 * A * out : 2 * A * in + 2 * N * in * out) + N * out;
  } else {
    f = combine_first ? combine(out) + 2 * A * out : 2 * A * in + 2 * N * in * out;
  }
  return f;
}

OpGraph GnnWorkload::build() const {
  const QuantChoice& q = quant_;
  OpGraph g;
  g.name = fmt::format("{} on {}", model_, graph_.name());
  GraphBuilder b(g, q);
  const std::int64_t N = graph_.num_nodes();

  // The adjacency in CSR: 32-bit offsets and indices, plus per-edge values where the model
  // weights edges (gcn's normalization, sage's 1/degree).
  const bool values = model_ != "gin";
  const std::uint64_t adj_bytes = static_cast<std::uint64_t>(N + 1) * 4 + static_cast<std::uint64_t>(adjacency_nnz_) * 4 +
                                  (values ? parse_quant_spec(q.activations).storage_bytes(adjacency_nnz_, adjacency_nnz_) : 0);
  Tensor adjacency;
  adjacency.name = "adjacency";
  adjacency.cls = TensorClass::Graph;
  adjacency.shape = {adjacency_nnz_};
  adjacency.format = "index";
  adjacency.bytes = adj_bytes;
  adjacency.structure = std::make_shared<const SparseStructure>(SparseStructure{graph_, self_loops_});
  const TensorId adj = g.add_tensor(std::move(adjacency));

  // Dense node features [N, width], split into per-degree-bucket formats when asked.
  auto node_tensor = [&](const std::string& name, std::int64_t width) {
    if (q.degree_bounds.empty()) return b.activation(name, {N, width});
    const auto hist = graph_.degree_histogram(q.degree_bounds);
    std::vector<FormatPart> parts;
    for (size_t i = 0; i < hist.size(); ++i)
      if (hist[i] > 0) parts.push_back({q.degree_formats[i], hist[i] * width});
    return b.mixed_activation(name, {N, width}, std::move(parts));
  };

  TensorId x;
  const Layer& first = layers_.front();
  if (first.density < 1) {
    // Sparse input features in CSR: offsets, column indices and values; with degree-aware
    // formats each node's values in its bucket's format (the dataset's nonzeros per row, or an
    // even spread of them for a given density).
    std::uint64_t bytes = static_cast<std::uint64_t>(N + 1) * 4 + static_cast<std::uint64_t>(first.input_nnz) * 4;
    if (q.degree_bounds.empty()) {
      bytes += parse_quant_spec(q.activations).storage_bytes(first.input_nnz, first.input_nnz);
    } else {
      std::vector<std::int64_t> bucket_nnz(q.degree_formats.size(), 0);
      const auto spread = [&](std::int64_t v) {
        return static_cast<std::int64_t>(static_cast<double>(v) * static_cast<double>(first.input_nnz) /
                                         static_cast<double>(N));
      };
      const bool rows_known =
          features_ && static_cast<std::int64_t>(features_->row_nnz.size()) == N && first.input_nnz == features_->nnz;
      for (std::int64_t v = 0; v < N; ++v) {
        const std::int64_t d = graph_.degree(v);
        const auto bucket = static_cast<std::size_t>(
            std::upper_bound(q.degree_bounds.begin(), q.degree_bounds.end(), d) - q.degree_bounds.begin());
        bucket_nnz[bucket] += rows_known ? features_->row_nnz[static_cast<std::size_t>(v)] : spread(v + 1) - spread(v);
      }
      for (std::size_t i = 0; i < bucket_nnz.size(); ++i)
        bytes += parse_quant_spec(q.degree_formats[i]).storage_bytes(bucket_nnz[i], bucket_nnz[i]);
    }
    x = g.add_tensor("features", TensorClass::Activations, {first.input_nnz}, "index", bytes);
  } else {
    x = node_tensor("features", first.in);
  }
  bool x_csr = first.density < 1;

  for (size_t li = 0; li < layers_.size(); ++li) {
    const Layer& L = layers_[li];
    const auto l = static_cast<std::int32_t>(li);
    b.at(l, fmt::format("l{}.", l));
    const std::string w = fmt::format("l{}.", l);
    // A sparse input enters the combination as the SpMM's sparse operand, which touches only its
    // nonzeros: the dataset's CSR features, or a previous layer's output at the given density.
    const bool sparse = L.density < 1;
    auto combine = [&](const std::string& name, TensorId in, bool in_sparse, std::int64_t k, std::int64_t n,
                       const std::string& weight) {
      const TensorId wt = b.weight(weight, {n, k});
      const TensorId y = node_tensor(name, n);
      if (in_sparse)
        b.emit(OpKind::SpMM, name, {{"rows", N}, {"cols", k}, {"nnz", L.input_nnz}, {"n", n}}, {in, wt}, {y}, true);
      else
        b.emit(OpKind::Gemm, name, {{"m", N}, {"n", n}, {"k", k}}, {in, wt}, {y}, true);
      return y;
    };
    // b_nnz: aggregation first over a sparse input, whose nonzeros an engine may skip.
    auto aggregate = [&](const std::string& name, TensorId in, std::int64_t width, std::int64_t b_nnz) {
      const TensorId y = node_tensor(name, width);
      b.emit(OpKind::SpMM, name, {{"rows", N}, {"cols", N}, {"nnz", adjacency_nnz_}, {"n", width}, {"b_nnz", b_nnz}},
             {adj, in}, {y}, true);
      return y;
    };
    // A dense copy of CSR input features, for aggregation first (the SpMM's dense operand).
    auto dense_input = [&]() {
      if (!x_csr) return x;
      const TensorId d = node_tensor("features.dense", L.in);
      b.emit(OpKind::Scatter, "features.dense", {{"rows", L.input_nnz}, {"cols", 1}, {"dst_rows", N * L.in}}, {x}, {d});
      return d;
    };
    TensorId h;
    const std::int64_t first_out = L.out;
    if (L.combine_first) {
      h = aggregate("aggregate", combine("combine", x, sparse, L.in, first_out, w + "weight"), first_out, 0);
    } else {
      h = combine("combine", aggregate("aggregate", dense_input(), L.in, sparse ? L.input_nnz : 0), false, L.in,
                  first_out, w + "weight");
    }
    // Element-wise steps keep the per-node formats of their input.
    auto elementwise = [&](OpKind kind, const std::string& name, std::vector<TensorId> in) {
      const TensorId y = node_tensor(name, L.out);
      b.emit(kind, name, {{"elements", N * L.out}}, std::move(in), {y});
      return y;
    };
    if (model_ == "sage") {
      const TensorId self = combine("self", x, sparse, L.in, L.out, w + "weight_self");
      h = elementwise(OpKind::Add, "sum", {h, self});
    } else if (model_ == "gin") {
      h = elementwise(OpKind::Relu, "mlp.relu", {h});
      h = combine("mlp.combine2", h, false, L.out, L.out, w + "weight2");
    }
    if (li + 1 < layers_.size()) h = elementwise(OpKind::Relu, "relu", {h});
    x = h;
    x_csr = false;
  }
  return g;
}

nlohmann::ordered_json GnnWorkload::details() const {
  nlohmann::ordered_json j;
  nlohmann::ordered_json gj;
  gj["name"] = graph_.name();
  gj["nodes"] = graph_.num_nodes();
  gj["edges"] = graph_.num_edges();
  gj["adjacency_nnz"] = adjacency_nnz_;
  gj["average_degree"] = graph_.average_degree();
  gj["max_degree"] = graph_.max_degree();
  gj["degree_histogram"] = graph_.degree_histogram({1, 2, 4, 8, 16, 32});
  if (features_) gj["feature_density"] = features_->density();
  j["graph"] = gj;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& l : layers_)
    layers.push_back({{"in", l.in},
                      {"out", l.out},
                      {"input_density", l.density},
                      {"order", l.combine_first ? "combine_first" : "aggregate_first"},
                      {"flops_combine_first", layer_flops(l, true)},
                      {"flops_aggregate_first", layer_flops(l, false)}});
  j["layers"] = layers;
  return j;
}

}  // namespace strata

// Fuzzes the graph loaders (workloads/graph/graph_loaders.h, binary_csr.h). The first byte picks
// the reader (its value mod 8; seeds use '0'..'7'), the rest is the file:
//   0 load_edge_list (symmetrized)   1 load_edge_list with num_nodes 64   2 load_linqs_cites
//   3 load_sparse_features           4 load_feature_stats                 5 load_labels (64 nodes)
//   6 load_planetoid: the rest split at lines "%%" into g.edges.txt, g.labels.txt and
//     g.feature_stats.txt (a part left out is no file)
//   7 map_binary_csr
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "workloads/graph/binary_csr.h"
#include "workloads/graph/graph_loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int which = data[0] % 8;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  FUZZ_EXPECT_INPUT_ERROR({
    switch (which) {
      case 0: strata::load_edge_list(strata_fuzz::write_file("g.edges", rest), true); break;
      case 1: strata::load_edge_list(strata_fuzz::write_file("g.edges", rest), false, 64); break;
      case 2: strata::load_linqs_cites(strata_fuzz::write_file("g.cites", rest)); break;
      case 3: strata::load_sparse_features(strata_fuzz::write_file("g.features", rest)); break;
      case 4: strata::load_feature_stats(strata_fuzz::write_file("g.fstats", rest)); break;
      case 5: strata::load_labels(strata_fuzz::write_file("g.labels", rest), 64); break;
      case 6: {
        const std::string dir = strata_fuzz::scratch_dir() + "/planetoid";
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        std::vector<std::string> parts(1);
        std::size_t pos = 0;
        while (pos < rest.size()) {
          std::size_t end = rest.find('\n', pos);
          end = end == std::string_view::npos ? rest.size() : end + 1;
          std::string_view line = rest.substr(pos, end - pos);
          if (line == "%%\n" || line == "%%") parts.emplace_back();
          else parts.back() += line;
          pos = end;
        }
        const char* names[] = {"g.edges.txt", "g.labels.txt", "g.feature_stats.txt"};
        for (std::size_t i = 0; i < parts.size() && i < 3; ++i) strata_fuzz::write_file("planetoid/" + std::string(names[i]), parts[i]);
        strata::load_planetoid(dir, "g");
        break;
      }
      case 7: strata::map_binary_csr(strata_fuzz::write_file("g.csr", rest)); break;
    }
  });
  return 0;
}

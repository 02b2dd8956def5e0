// Registers the GNN accelerator kinds: the gnn_accelerator template.
#pragma once

namespace strata {

class Registry;
void register_gnn_kinds(Registry& registry);

}  // namespace strata

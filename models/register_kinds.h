// Registers the reusable blocks of models/ (matrix engines, vector unit, scratchpad, DMA), each
// with the roles a design's slots ask for. A new block kind adds one line here.
#pragma once

namespace strata {

class Registry;
void register_model_kinds(Registry& registry);

}  // namespace strata

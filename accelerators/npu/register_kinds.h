// Registers the NPU kinds: the blocks of models/ and the npu design.
#pragma once

namespace strata {

class Registry;
void register_npu_kinds(Registry& registry);

}  // namespace strata

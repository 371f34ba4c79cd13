// Specification of module_names.h: Megatron's lists of submodule names as sets of bits.
#include <doctest/doctest.h>

#include <array>
#include <string>

#include "simulator/workload/module_names.h"

using namespace simtrain::workload;

namespace {

constexpr std::array<ModuleName, 3> kTable = {{{"attn", 1}, {"mlp", 2}, {"moe_router", 4}}};

}  // namespace

TEST_CASE("names separated by commas or spaces, in any order, make one set") {
  CHECK(parse_module_names("moe_router, attn", kTable, nullptr) == 5);
  CHECK(parse_module_names("mlp mlp", kTable, nullptr) == 2);
  CHECK(parse_module_names("", kTable, nullptr) == 0);
  CHECK(module_names_string(5, kTable, ' ') == "attn moe_router");  // the table's order
  CHECK(known_module_names(kTable) == "attn, mlp, moe_router");
}

TEST_CASE("an unknown name is refused, the known ones listed") {
  std::string why;
  CHECK_FALSE(parse_module_names("attn,router", kTable, &why));
  CHECK(why == "unknown module 'router' (attn, mlp, moe_router)");
}

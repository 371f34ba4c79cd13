// Specification of "did you mean": typos find their name, other words find nothing.
#include <doctest/doctest.h>

#include "common/suggest.h"

namespace simtrain {

TEST_CASE("edit distance counts insertions, deletions, substitutions and swaps of neighbours") {
  CHECK(edit_distance("gpus", "gpus") == 0);
  CHECK(edit_distance("gpsu", "gpus") == 1);  // a swap
  CHECK(edit_distance("resnt50", "resnet50") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("the closest name within a third of the word, else one it begins") {
  const std::vector<std::string> models = {"resnet50", "densenet121", "gpt3-175b", "llama2-7b"};
  CHECK(closest_name("resnt50", models) == "resnet50");
  CHECK(closest_name("llama2-7", models) == "llama2-7b");
  CHECK(closest_name("gpt3", models) == "gpt3-175b");  // a prefix
  CHECK_FALSE(closest_name("bert-large", models));
  CHECK_FALSE(closest_name("", models));
  CHECK(did_you_mean("densnet121", models) == " (did you mean 'densenet121'?)");
  CHECK(did_you_mean("vgg16", models).empty());
}

}  // namespace simtrain

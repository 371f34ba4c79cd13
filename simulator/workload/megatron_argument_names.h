// The Megatron-LM arguments simtrain knows: how each is read from a command line and whether it changes a
// step's time (megatron_arguments.h applies those that do and lists the others back).
#pragma once

#include <string_view>

namespace simtrain::workload {

// How an argument is read: a switch, one value, or values up to the next option (--data-path takes a
// weighted list of paths).
enum class Arity {
  Switch,
  One,
  List,
  // A switch whose name a simtrain option taking a value shares (Megatron's --profile, simtrain's --profile
  // FILE): Megatron's only where no value follows it.
  BareSwitch,
};

// What an argument does to a step's time: read (apply_megatron_arguments), or nothing (listed back to the
// user).
enum class Effect { Read, None };

struct KnownArgument {
  const char* name;
  Arity arity;
  Effect effect;
};

// The argument named `name` (without its dashes), or nullptr when simtrain does not know it.
const KnownArgument* find_argument(std::string_view name);

}  // namespace simtrain::workload

#pragma once
// The bad-input guard of a command: what the user gave wrong (usage, a job file, a result or
// model file, a model lacking an op) becomes one line on stderr and exit status 2.

#include <iostream>

#include "harness/cli/commands.hpp"

namespace scaletune::cli {
namespace detail {

template <class Body>
int guarded(const char*, Body& body) {
  return body();
}

template <class First, class... Rest, class Body>
int guarded(const char* name, Body& body) {
  try {
    return guarded<Rest...>(name, body);
  } catch (const First& e) {
    std::cerr << "scaletune " << name << ": " << e.what() << "\n";
    return kBadInput;
  }
}

}  // namespace detail

/// body() of command `name` ("fit"), its exit status; when it throws one of `BadInput...`,
/// "scaletune NAME: what()" on stderr and kBadInput. Other exceptions pass through.
template <class... BadInput, class Body>
int guard_bad_input(const char* name, Body body) {
  return detail::guarded<BadInput...>(name, body);
}

}  // namespace scaletune::cli

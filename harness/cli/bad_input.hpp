#pragma once
// The bad-input guard of a command: what the user gave wrong (usage, a job file, a result or
// model file, a model lacking an op) becomes one line on stderr and exit status 2; a file that
// could not be written for want of room, exit status 1.

#include <exception>
#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/results/result_error.hpp"

namespace scaletune::cli {
namespace detail {

/// kBadInput, but kRunFailed for a file that could not be put on disk for want of room (a
/// results::WriteError that is out_of_room: a full disk is no fault of the input).
inline int exit_status_of(const std::exception& e) {
  const auto* write = dynamic_cast<const results::WriteError*>(&e);
  return write != nullptr && write->out_of_room() ? kRunFailed : kBadInput;
}

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
    return exit_status_of(e);
  }
}

}  // namespace detail

/// body() of command `name` ("fit"), its exit status; when it throws one of `BadInput...`,
/// "scaletune NAME: what()" on stderr and kBadInput (exit_status_of). Other exceptions pass
/// through.
template <class... BadInput, class Body>
int guard_bad_input(const char* name, Body body) {
  return detail::guarded<BadInput...>(name, body);
}

}  // namespace scaletune::cli

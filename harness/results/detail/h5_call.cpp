#include "harness/results/detail/h5_call.hpp"

#include "harness/results/result_error.hpp"

namespace scaletune::results::detail {
namespace {

/// H5Ewalk2 callback: keeps the description of the innermost error (the last one walked
/// downward), which says what actually went wrong ("file signature not found").
herr_t keep_innermost(unsigned /*depth*/, const H5E_error2_t* error, void* innermost) {
  if (error->desc != nullptr && *error->desc != '\0')
    *static_cast<std::string*>(innermost) = error->desc;
  return 0;
}

/// "H5Fopen(path, ...)" -> "H5Fopen".
std::string function_name(const char* call_text) {
  const std::string text(call_text);
  return text.substr(0, text.find('('));
}

}  // namespace

H5Where H5Where::child(const std::string& name) const {
  return {file, object == "/" ? "/" + name : object + "/" + name};
}

H5Where H5Where::attribute(const std::string& name) const {
  return {file, object + " attribute " + name};
}

void H5Where::fail(const std::string& what) const {
  throw ResultError(object.empty() ? file + ": " + what : file + ": " + object + ": " + what);
}

void H5Where::missing(const std::string& what) const {
  try {
    fail(what);
  } catch (const ResultError& e) {
    throw MissingPartError(e.what());
  }
}

void silence_hdf5_errors() {
  thread_local bool silenced = false;
  if (silenced) return;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // cannot fail for the default stack
  silenced = true;
}

void throw_h5_error(const char* call_text, const H5Where& where) {
  // The error stack is read and cleared here without the wrapper: this is the wrapper.
  std::string innermost = "no message on the HDF5 error stack";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_innermost, &innermost);
  H5Eclear2(H5E_DEFAULT);
  where.fail(function_name(call_text) + " failed: " + innermost);
}

}  // namespace scaletune::results::detail

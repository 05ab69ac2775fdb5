#include "models/app/inapplicable.hpp"

namespace staghorn::app {
namespace {

const char* const kSides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};

// The user's value at a dotted path, or null.
const io::json* find(const io::json& j, const std::string& dotted) {
  const io::json* node = &j;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = dotted.find('.', from);
    const std::string part = dotted.substr(from, dot == std::string::npos ? dot : dot - from);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) return node;
    from = dot + 1;
  }
}

}  // namespace

std::vector<std::string> inapplicable_keys(const io::json& user, const RunSettings& run) {
  std::vector<std::string> out;
  const std::string& model = run.model;
  const Int3& n = run.grid.n;
  const auto& periodic = run.grid.periodic;
  for (int s = 0; s < 6; ++s) {
    const std::string key = model + ".boundary." + kSides[s];
    if (!find(user, key)) continue;
    const int axis = s / 2;
    if (n[axis] == 1)
      out.push_back(key + " is ignored: grid.n[" + std::to_string(axis) +
                    "] = 1 leaves that axis inactive (no boundary)");
    else if (periodic[axis])
      out.push_back(key + " is ignored: grid.periodic[" + std::to_string(axis) +
                    "] is true (a periodic axis has no boundary)");
  }
  const std::string kernel = model + ".kernel";
  const io::json* k = find(user, kernel);
  const bool three_d = n[2] > 1;
  if (k && k->is_string() &&
      (k->get<std::string>() == "tiled" || k->get<std::string>() == "marching") && !three_d)
    out.push_back(kernel + " = \"" + k->get<std::string>() +
                  "\" is ignored: it is a 3-D kernel and grid.n[2] = 1 (the generic kernel runs)");
  return out;
}

}  // namespace staghorn::app

// project_scaling CALIBRATION.json [--json OUT.json]: projects weak and strong scaling to large GPU
// counts (core/projection.hpp) from measurements of 1, 2 and 4 GPUs. Prints, as markdown: the
// calibrated costs, the model against every measured run, and per network class the projected
// efficiency of each rank count on its fastest process grid. docs/campaigns.md, "Projection".
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/decomposition.hpp"
#include "core/error.hpp"
#include "core/projection.hpp"

namespace {

using json = nlohmann::json;
using namespace staghorn;
using namespace staghorn::projection;

const char* kAxes = "xyz";

Int3 int3(const json& j) { return {j.at(0).get<int>(), j.at(1).get<int>(), j.at(2).get<int>()}; }

std::string str(Int3 v) {
  return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

Link link_of(const json& j) {
  return {j.at("latency_us").get<double>() * 1e-6, j.at("bandwidth_GBs").get<double>() * 1e9};
}

// One model as calibrated: its halo, its grid's axes, its one-GPU rate and shell costs.
struct Case {
  std::string name;
  HaloShape halo;
  std::array<bool, 3> periodic{};
  double t1_strong = 0, t1_weak = 0;  // seconds per iteration on one GPU, per mode's reference
  Costs costs;                        // pi of the strong reference
  const json* spec = nullptr;

  double t1(const std::string& mode) const { return mode == "strong" ? t1_strong : t1_weak; }
  // pi of the mode's own one-GPU run (measured beside each column).
  Costs costs_for(const std::string& mode) const {
    Costs c = costs;
    c.cell_rate *= t1_strong / t1(mode);
    return c;
  }
};

Grid grid_of(const Case& c, Int3 n) {
  Grid g;
  g.n = n;
  g.periodic = c.periodic;
  return g;
}

// The slowest rank's time on process grid `dims` with the costs of `mode`'s reference.
Time time_on(const Case& c, const std::string& mode, Int3 n, Int3 dims, int ranks_per_node) {
  return slowest(rank_work(grid_of(c, n), dims, c.halo, ranks_per_node), c.costs_for(mode));
}

// Measured seconds per iteration of a run given by its efficiency against one GPU.
double measured_time(const Case& c, const json& row) {
  const std::string mode = row.at("mode").get<std::string>();
  const double scale = mode == "strong" ? int3(row.at("dims")).volume() : 1;
  return c.t1(mode) / (scale * row.at("efficiency").get<double>());
}

// pi from the one-GPU run; each axis's shell cost per face cell from the run named for it in
// shell_from (time beyond its compute, the halo hidden), or the cost of the axis shell_as names.
Case calibrate(const json& spec, const Link& node, int ranks_per_node) {
  Case c;
  c.spec = &spec;
  c.name = spec.at("name").get<std::string>();
  const json& h = spec.at("halo");
  c.halo = {h.at("width").get<int>(), h.at("corners").get<bool>(), h.at("fields").get<int>(), 8};
  for (int a = 0; a < 3; ++a) c.periodic[a] = spec.at("periodic").at(a).get<bool>();
  const json& one = spec.at("one_gpu");
  c.t1_strong = one.at("strong_ms").get<double>() * 1e-3;
  c.t1_weak = one.at("weak_ms").get<double>() * 1e-3;
  c.costs.cell_rate = static_cast<double>(int3(one.at("grid")).volume()) / c.t1_strong;
  c.costs.links = {node, node};
  for (auto& [axis, index] : spec.at("shell_from").items()) {
    const int a = static_cast<int>(std::string(kAxes).find(axis));
    const json& row = spec.at("measured").at(index.get<int>());
    const Int3 dims = int3(row.at("dims"));
    const auto work = rank_work(grid_of(c, int3(row.at("grid"))), dims, c.halo, ranks_per_node);
    long long cells = 0, faces = 0;
    for (const RankWork& w : work)
      cells = std::max(cells, w.cells), faces = std::max(faces, w.shell_faces[a]);
    if (faces == 0)
      throw Error(c.name + ": the run calibrating axis " + axis + " does not split it");
    const double compute = cells / c.costs_for(row.at("mode")).cell_rate;
    c.costs.shell_face_s[a] = (measured_time(c, row) - compute) / faces;
  }
  for (auto& [axis, from] : spec.at("shell_as").items())
    c.costs.shell_face_s[std::string(kAxes).find(axis)] =
        c.costs.shell_face_s[std::string(kAxes).find(from.get<std::string>())];
  return c;
}

// The process grid of `ranks` ranks the model finds fastest, and its time.
std::pair<Int3, Time> fastest(const Case& c, const std::string& mode, Int3 n, int ranks,
                              int ranks_per_node) {
  std::pair<Int3, Time> best{{0, 0, 0}, {}};
  best.second.total_s = std::numeric_limits<double>::infinity();
  for (const Int3 d : Decomposition::fitting_dims(grid_of(c, n), ranks, c.halo.width)) {
    const Time t = time_on(c, mode, n, d, ranks_per_node);
    if (t.total_s < best.second.total_s) best = {d, t};
  }
  return best;
}

// Weak scaling's grid: the one-GPU block times the rank count's prime factors, largest first,
// dealt to weak_axes in turn (as scripts/campaign.py grows it).
Int3 weak_grid(const json& spec, int ranks) {
  Int3 n = int3(spec.at("one_gpu").at("grid"));
  const json& axes = spec.at("weak_axes");
  std::vector<int> factors;
  for (int p = 2, r = ranks; r > 1; ++p)
    while (r % p == 0) factors.insert(factors.begin(), p), r /= p;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const std::string axis = axes.at(i % axes.size()).get<std::string>();
    n[static_cast<int>(std::string(kAxes).find(axis))] *= factors[i];
  }
  return n;
}

void print_calibration(const Case& c) {
  std::cout << "| " << c.name << " | " << fixed(c.costs.cell_rate / 1e9, 3) << " | ";
  for (int a = 0; a < 3; ++a)
    std::cout << fixed(c.costs.shell_face_s[a] * 1e12, 1) << (a < 2 ? " / " : "");
  std::cout << " |\n";
}

// The axis whose shell cost run `index` calibrates, or "" (a check of the model).
std::string calibrates(const Case& c, std::size_t index) {
  for (auto& [axis, from] : c.spec->at("shell_from").items())
    if (from.get<std::size_t>() == index) return axis;
  return "";
}

// The model against every measured run: efficiency measured and predicted, and the error of the
// predicted time (none by construction where the run calibrates an axis).
void print_checks(const Case& c, int ranks_per_node, json& out) {
  const json& measured = c.spec->at("measured");
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const json& row = measured[i];
    const std::string axis = calibrates(c, i);
    const Int3 dims = int3(row.at("dims")), n = int3(row.at("grid"));
    const std::string mode = row.at("mode").get<std::string>();
    const double t = measured_time(c, row);
    const Time p = time_on(c, mode, n, dims, ranks_per_node);
    const double error = p.total_s / t - 1;
    const double t1 = c.t1(mode);
    const double scale = mode == "strong" ? dims.volume() : 1;
    std::cout << "| " << c.name << " | " << row.at("mode").get<std::string>() << " | " << str(n)
              << " | " << str(dims) << " | " << fixed(100 * row.at("efficiency").get<double>(), 1)
              << "% | " << fixed(100 * t1 / (scale * p.total_s), 1) << "% | "
              << (axis.empty() ? (error >= 0 ? "+" : "") + fixed(100 * error, 1) + "%"
                               : "calibrates " + axis)
              << " |\n";
    out.push_back({{"case", c.name},
                   {"mode", row.at("mode")},
                   {"dims", {dims.x, dims.y, dims.z}},
                   {"measured", row.at("efficiency")},
                   {"predicted", t1 / (scale * p.total_s)}});
  }
}

void print_projection(const Case& c, const std::string& mode, const json& net, const Link& node,
                      int ranks_per_node, const json& ranks, json& out) {
  Case k = c;
  k.costs.links = {node, link_of(net)};
  const double t1 = c.t1(mode);
  for (const json& r : ranks) {
    const int p = r.get<int>();
    const Int3 n =
        mode == "strong" ? int3(c.spec->at("one_gpu").at("grid")) : weak_grid(*c.spec, p);
    const auto [dims, t] = fastest(k, mode, n, p, ranks_per_node);
    if (dims.volume() == 0) continue;  // more ranks than the grid has room for
    const double eff = t1 / ((mode == "strong" ? p : 1) * t.total_s);
    std::cout << "| " << c.name << " | " << mode << " | " << net.at("name").get<std::string>()
              << " | " << p << " | " << str(n) << " | " << str(dims) << " | "
              << fixed(t.total_s * 1e3, 4) << " | " << fixed(t.compute_s * 1e3, 4) << " / "
              << fixed(t.shell_s * 1e3, 4) << " / " << fixed(t.comm_s * 1e3, 4) << " | **"
              << fixed(100 * eff, 1) << "%** |\n";
    out.push_back({{"case", c.name},
                   {"mode", mode},
                   {"network", net.at("name")},
                   {"ranks", p},
                   {"grid", {n.x, n.y, n.z}},
                   {"dims", {dims.x, dims.y, dims.z}},
                   {"ms_per_iteration", t.total_s * 1e3},
                   {"efficiency", eff}});
  }
}

int project(const std::string& path, const std::string& json_out) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open " + path);
  const json cal = json::parse(in);
  const int per_node = cal.at("gpus_per_node").get<int>();
  const Link node = link_of(cal.at("node_link"));
  std::vector<Case> cases;
  for (const json& spec : cal.at("cases")) cases.push_back(calibrate(spec, node, per_node));

  json out = {{"calibration", path}, {"checks", json::array()}, {"projection", json::array()}};
  std::cout
      << "### Calibrated costs\n\n| case | pi (Gcells/s) | shell per face cell x / y / z (ps) |\n"
         "| --- | --- | --- |\n";
  for (const Case& c : cases) print_calibration(c);
  std::cout
      << "\n### The model against the measured runs\n\n| case | mode | grid | process grid |"
         " measured | predicted | time error |\n| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Case& c : cases) print_checks(c, per_node, out["checks"]);
  std::cout << "\n### Projected (" << per_node
            << " GPUs per node)\n\n| case | mode | network | GPUs |"
               " grid | process grid | ms/iteration | compute / shell / comm (ms) | efficiency |\n"
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Case& c : cases)
    for (const char* mode : {"weak", "strong"})
      for (const json& net : cal.at("networks"))
        print_projection(c, mode, net, node, per_node, cal.at("ranks"), out["projection"]);
  if (!json_out.empty()) std::ofstream(json_out) << out.dump(1) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--json")) {
    std::cerr << "usage: project_scaling CALIBRATION.json [--json OUT.json]\n";
    return 2;
  }
  try {
    return project(argv[1], argc == 4 ? argv[3] : "");
  } catch (const std::exception& e) {
    std::cerr << "project_scaling: error: " << e.what() << "\n";
    return 1;
  }
}

// How the MHD stage fills its halo on 1, 2 and 3 ranks (CPU pencil kernel): periodic images along
// the axes one rank holds whole (and at least two halos thick), an exchange along the others with
// a boundary shell along them alone. After two stages (the second reads the first's halo) the halo
// so filled equals a full exchange of the same state to the bit, edges and corners included.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "mhd_fixture.hpp"
#include "solvers/rk3.hpp"

namespace staghorn::test {
namespace {

io::json config(std::vector<int> n, std::vector<int> dims) {
  return {{"grid", {{"n", n}, {"length", {6.3, 5.1, 4.7}}, {"periodic", {true, true, true}}}},
          {"decomposition", {{"dims", dims}}},
          {"exchange", {{"hide_communication", true}}},  // the hidden stage (the CPU's default: off)
          {"mhd",
           {{"kernel", "tiled"},
            {"order", 6},
            {"K", 1e-3},
            {"B_ext", {0.1, 0.2, 0.3}},
            {"forcing", {{"amplitude", 0.1}}},
            {"initial", {{"type", "noise"}, {"amplitude", 0.05}, {"field_amplitude", 0.05}}}}}};
}

// Cells of every variable (halos included) whose bits differ between two stages' halo fillings:
// the model's own, then a full exchange over the same arrays.
long long halo_against_exchange(MhdRun& r) {
  for (int s = 0; s < 2; ++s) r.model->stage(s, rk3::kAlpha[s], rk3::kBeta[s], 1e-4);
  long long differing = 0;
  std::vector<std::vector<real>> own;
  for (int v = 0; v < r.model->vars(); ++v) own.push_back(r.model->var(v).to_host());
  r.model->refresh();
  for (int v = 0; v < r.model->vars(); ++v) {
    const std::vector<real> exchanged = r.model->var(v).to_host();
    for (std::size_t i = 0; i < exchanged.size(); ++i)
      differing += std::memcmp(&own[v][i], &exchanged[i], sizeof(real)) != 0;
  }
  return differing;
}

TEST(MhdHaloModes, ImagesAlongTheAxesOneRankHoldsExchangeAlongTheOthers) {
  const int p = Comm().size();
  MhdRun r(config({24, 14, 12}, {p, 1, 1}));
  const Int3 n = r.dec->local_cells();
  if (p == 1) {
    EXPECT_STREQ(r.model->halo_mode(), "images");
    EXPECT_EQ(r.model->image_axes(), (Int3{24, 14, 12}));
  } else {
    EXPECT_STREQ(r.model->halo_mode(), "images+hidden");
    EXPECT_EQ(r.model->image_axes(), (Int3{0, n.y, n.z}));
  }
  EXPECT_EQ(halo_against_exchange(r), 0);
}

// An axis held by one rank but thinner than two halos (4 cells, halo 3) is exchanged with itself,
// beside images along the others, on any rank count.
TEST(MhdHaloModes, AThinAxisIsExchangedBesideTheImages) {
  const int p = Comm().size();
  MhdRun r(config({24, 4, 12}, {p, 1, 1}));
  const Int3 n = r.dec->local_cells();
  EXPECT_STREQ(r.model->halo_mode(), "images+hidden");
  EXPECT_EQ(r.model->image_axes(), (Int3{p == 1 ? 24 : 0, 0, n.z}));
  EXPECT_EQ(halo_against_exchange(r), 0);
}

}  // namespace
}  // namespace staghorn::test

// A stop within a solve (abandon_step, also the first half of a retry) takes a PT model back to its
// step's start, pseudo-rates included (models/pt_model.hpp, FieldTable::pseudo_rate): iterating
// again from there gives the bits of a solve that never went away. A pseudo-rate left over from
// the abandoned iterations would carry their momentum into the new ones.
#include <gtest/gtest.h>

#include <vector>

#include "diffusion_fixture.hpp"
#include "hydromech/coupled_fixture.hpp"
#include "hydromech/hydromech_fixture.hpp"

namespace staghorn::test {
namespace {

constexpr int kIterations = 40;

// Solves kIterations, stops, and solves them again (run a); solves them once (run b): the same
// bits of `field` (every point), which the iterations moved.
template <class Run, class FieldOf>
void expect_stop_goes_back_to_rest(Run& a, Run& b, real dt, FieldOf field) {
  const std::vector<real> start = field(b).to_host();
  a.model->begin_solve(dt);
  a.model->iterate(kIterations);
  a.model->abandon_step();
  a.model->iterate(kIterations);
  b.model->begin_solve(dt);
  b.model->iterate(kIterations);
  const std::vector<real> again = field(a).to_host(), once = field(b).to_host();
  EXPECT_EQ(again, once);
  EXPECT_NE(once, start) << "the iterations moved the field";
}

TEST(PtRest, DiffusionStopsBackToRest) {
  const io::json c = {{"grid", {{"n", {32, 32, 1}}, {"periodic", {true, true, true}}}},
                      {"time", {{"dt", 1e-3}}},
                      {"diffusion", {{"initial", {{"type", "gaussian"}, {"sigma", 0.1}}}}}};
  DiffusionRun a(c), b(c);
  expect_stop_goes_back_to_rest(a, b, 1e-3,
                                [](DiffusionRun& r) -> const Field& { return r.model->H(); });
}

// A solitary porosity wave on a periodic column (tests/models/hydromech/hydromech_test.cpp's).
io::json column() {
  return {
      {"grid",
       {{"n", {64, 1, 1}}, {"length", {60.0, 1.0, 1.0}}, {"periodic", {true, false, false}}}},
      {"hydromech",
       {{"bulk_viscosity", {{"exponent", 0}}},
        {"initial", {{"type", "solitary_wave"}, {"amplitude", 3.0}, {"center", {15.0, 0, 0}}}}}}};
}

TEST(PtRest, HydroMechStopsBackToRest) {
  HydroMechRun a(column()), b(column());
  expect_stop_goes_back_to_rest(a, b, 0.1,
                                [](HydroMechRun& r) -> const Field& { return r.model->Pe(); });
}

TEST(PtRest, CoupledHydroMechStopsBackToRest) {
  io::json c = column();
  c["hydromech"]["phi0"] = 1e-3;
  CoupledRun a(c), b(c);
  expect_stop_goes_back_to_rest(a, b, 1e-4,
                                [](CoupledRun& r) -> const Field& { return r.model->Pf(); });
}

}  // namespace
}  // namespace staghorn::test

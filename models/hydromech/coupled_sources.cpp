// Manufactured-solution sources of the coupled variant (verification): the source of each
// equation evaluated on the host at that equation's points, stored once in fields the kernels
// instantiated with sources read (coupled_kernels.hpp, coupled::Sources).
#include "core/field_ops.hpp"
#include "models/hydromech/coupled.hpp"

namespace staghorn::hydromech {

void CoupledHydroMech::set_sources(const SourceFunction& f) {
  const Location where[5] = {Location::face_x, Location::face_y, Location::face_z, Location::cell,
                             Location::cell};
  const char* names[5] = {"source_momentum_x", "source_momentum_y", "source_momentum_z",
                          "source_solid_mass", "source_fluid_mass"};
  auto field = [&](int e) { return Field(names[e], where[e], layout_, ex_.backend()); };
  sources_ = std::make_unique<std::array<Field, 5>>(
      std::array<Field, 5>{field(0), field(1), field(2), field(3), field(4)});
  const Grid& g = dec_.grid();
  const Int3 n = layout_.n, off = dec_.offset();
  for (int e = 0; e < 5; ++e) {
    Field& s = (*sources_)[e];
    std::vector<real> v = s.to_host();
    std::fill(v.begin(), v.end(), real(0));
    // Interior points here, the halo below: a cell's update recomputes its neighbours' new
    // pressure, and with it their solid mass source.
    if (e < 3 && e >= dims()) {
      s.from_host(v);
      continue;
    }
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (int i = 0; i < n.x; ++i) {
          const int idx[3] = {i + off.x, j + off.y, k + off.z};
          double x[3];
          for (int a = 0; a < 3; ++a) x[a] = g.coordinate(where[e], a, idx[a]);
          v[layout_.index(i, j, k)] = static_cast<real>(f(e, x));
        }
    s.from_host(v);
  }
  halo_.exchange(
      {&(*sources_)[0], &(*sources_)[1], &(*sources_)[2], &(*sources_)[3], &(*sources_)[4]});
}

}  // namespace staghorn::hydromech

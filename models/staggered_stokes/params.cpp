#include "models/staggered_stokes/params.hpp"

#include <cmath>

namespace staghorn::stokes {

Params pt_params(const Decomposition& dec, const PtChoice& choice) {
  const Grid& g = dec.grid();
  Params p;
  real rdx[3] = {0, 0, 0}, dmin = g.spacing(0), lmax = g.length[0];
  for (int a = 0; a < g.dims(); ++a) {
    rdx[a] = 1 / g.spacing(a);
    dmin = std::fmin(dmin, g.spacing(a));
    lmax = std::fmax(lmax, g.length[a]);
  }
  p.rdx = rdx[0], p.rdy = rdx[1], p.rdz = rdx[2];
  const real vp_dtau = choice.cfl * dmin / std::sqrt(real(g.dims()));
  p.gdt = choice.Re * vp_dtau / (lmax * (choice.r + 2));
  p.r = choice.r;
  p.vdt = vp_dtau * lmax / choice.Re;
  for (int a = 0; a < 3; ++a) {
    p.g[a] = choice.gravity[a];
    p.wall_lo[a] = a < g.dims() && !g.periodic[a] && dec.at_low(a);
  }
  p.harmonic = choice.harmonic;
  p.deviatoric = choice.deviatoric;
  return p;
}

}  // namespace staghorn::stokes

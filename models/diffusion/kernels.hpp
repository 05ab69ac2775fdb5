#pragma once
// Nonlinear diffusion dH/dt = div(D(H) grad H), D = D0 H^n, on the staggered grid: H at cell
// centres, fluxes q = -D(H) grad H on the faces with D from the face-averaged H. One implicit
// (backward Euler) step solves R = -(H - H_old)/dt - div q = 0 by accelerated PT iterations.

#include <cmath>

#include "core/field.hpp"
#include "core/stencil.hpp"
#include "solvers/pt_update.hpp"

namespace staghorn::diffusion {

using namespace staghorn::stencil;

struct Material {
  real D0 = 1;
  real n = 0;
  int n_int = 0;  // n when it is a small whole number (powers by multiplication), else -1

  SH_HD real D(real H) const {
    if (n_int >= 0) {
      real p = 1;
      for (int m = 0; m < n_int; ++m) p *= H;
      return D0 * p;
    }
    return D0 * pow(H > 0 ? H : real(0), n);
  }
};

// The residual of one implicit step in Dim dimensions.
template <int Dim>
struct Physics {
  View H, H_old;
  Material mat;
  real dt;
  real rdx, rdy, rdz;  // 1 / spacing

  SH_HD real qx(int i, int j, int k) const { return -mat.D(av_xa(H, i, j, k)) * d_xa(H, i, j, k) * rdx; }
  SH_HD real qy(int i, int j, int k) const { return -mat.D(av_ya(H, i, j, k)) * d_ya(H, i, j, k) * rdy; }
  SH_HD real qz(int i, int j, int k) const { return -mat.D(av_za(H, i, j, k)) * d_za(H, i, j, k) * rdz; }

  SH_HD real div_q(int i, int j, int k) const {
    real div = (qx(i + 1, j, k) - qx(i, j, k)) * rdx;
    if constexpr (Dim >= 2) div += (qy(i, j + 1, k) - qy(i, j, k)) * rdy;
    if constexpr (Dim >= 3) div += (qz(i, j, k + 1) - qz(i, j, k)) * rdz;
    return div;
  }

  SH_HD real residual(int i, int j, int k) const {
    return -(H(i, j, k) - H_old(i, j, k)) / dt - div_q(i, j, k);
  }

  // An upper bound of D on the cell's faces (D grows with H): sets the local pseudo-step.
  SH_HD real D_max(int i, int j, int k) const {
    real h = fmax(H(i, j, k), fmax(H(i - 1, j, k), H(i + 1, j, k)));
    if constexpr (Dim >= 2) h = fmax(h, fmax(H(i, j - 1, k), H(i, j + 1, k)));
    if constexpr (Dim >= 3) h = fmax(h, fmax(H(i, j, k - 1), H(i, j, k + 1)));
    return mat.D(h);
  }
};

// One fused PT iteration: residual, local optimal pseudo-step, damped update into H_new.
template <int Dim>
struct Iteration {
  Physics<Dim> phys;
  View H_new, dHdtau;
  real sum_rdx2;    // sum over axes of 1/dx^2: the stencil's largest eigenvalue is 4 D sum_rdx2
  real slowest;     // sum over axes of (pi/L)^2: the domain's slowest mode is D slowest
  real cfl;

  SH_HD void operator()(int i, int j, int k) const {
    const real R = phys.residual(i, j, k);
    const real D = phys.D_max(i, j, k);
    const real rdt = real(1) / phys.dt;
    const pt::Step s = pt::optimal_step(4 * D * sum_rdx2 + rdt, D * slowest + rdt, cfl);
    H_new(i, j, k) = pt::advance(phys.H(i, j, k), R, dHdtau(i, j, k), s);
  }
};

template <int Dim>
struct AbsResidual {
  Physics<Dim> phys;
  SH_HD real operator()(int i, int j, int k) const { return fabs(phys.residual(i, j, k)); }
};

}  // namespace staghorn::diffusion

#pragma once
// A test-only direct solve of the Stokes model's discrete equations in 2-D (docs/models/stokes.md,
// "Reference direct solve"): the same staggered unknowns and stencils as
// models/staggered_stokes/kernels.hpp, written out again from the equations, not from the kernels:
//   tau_xx = 2 mu (d_xa(Vx)/dx - div v / 3)                       (cells)
//   tau_xy = mu_xy (d_yb(Vx)/dy + d_xb(Vy)/dx),  mu_xy = av_xyb(mu) or hav_xyb(mu)   (edges)
//   R_x = d_xb(tau_xx - P)/dx + d_ya(tau_xy)/dy + g_x av_xb(rho)   (x faces off the walls)
//   R_y = d_yb(tau_yy - P)/dy + d_xa(tau_xy)/dx + g_y av_yb(rho)   (y faces off the walls)
//   div v = d_xa(Vx)/dx + d_ya(Vy)/dy = 0                        (cells)
// with the walls of models/staggered_stokes/walls.hpp as ghost values (free slip: the normal
// velocity given on the wall face, tangential ghosts mirrored; no slip: tangential ghosts
// mirrored with a sign change) and zero-gradient viscosity ghosts, assembled into one sparse
// matrix and solved by Eigen's SparseLU. With every wall prescribing its normal velocity P is
// defined up to a constant: a Lagrange multiplier fixes its mean to zero.
//
// Rows are scaled as the model scales its residual norms (momentum L / S, continuity mu_0 / S), so
// that a PT solution's residual in this system is the one the model reports.

#include <array>
#include <memory>
#include <vector>

#include "models/staggered_stokes/walls.hpp"

namespace staghorn::test {

struct DirectStokes2D {
  // The discrete problem: nx x ny cells of dx x dy, cell i + nx j.
  struct Problem {
    int nx = 0, ny = 0;
    double dx = 1, dy = 1;
    bool periodic[2] = {false, false};
    std::array<stokes::Wall, 4> walls{};  // x_lo, x_hi, y_lo, y_hi: free_slip or no_slip
    std::array<double, 4> normal{};       // normal velocity on each wall
    std::vector<double> mu, rho;          // cells
    double g[2] = {0, 0};
    bool harmonic = false;                            // harmonic edge viscosity (else arithmetic)
    double momentum_scale = 1, continuity_scale = 1;  // L / S and mu_0 / S
  };
  // Velocities on every face (Vx: (nx + 1) x ny, i + (nx + 1) j; Vy: nx x (ny + 1), i + nx j; on
  // a periodic axis the closing face repeats the first), P at the cells.
  struct State {
    std::vector<double> vx, vy, p;
  };

  explicit DirectStokes2D(Problem p);
  ~DirectStokes2D();

  // The direct solution (P of zero mean).
  const State& solution() const { return solution_; }
  // Max |scaled residual| of a state in this system: momentum x, momentum y, continuity.
  std::array<double, 3> residuals(const State& s) const;
  // Estimates of the infinity norm of the rows of the inverse (scaled) matrix that give the
  // velocities and the pressures: |dv|_inf <= kappa_v |r|_inf, |dP|_inf <= kappa_p |r|_inf for a
  // residual r. Hager's estimator (Higham 1988): a lower bound, in practice within a factor ~3.
  double kappa_velocity() const { return kappa_v_; }
  double kappa_pressure() const { return kappa_p_; }
  int unknowns() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  State solution_;
  double kappa_v_ = 0, kappa_p_ = 0;
};

}  // namespace staghorn::test

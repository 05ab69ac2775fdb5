#pragma once
// The reduced porosity-wave model's kernels: effective pressure Pe and porosity phi at cell
// centres, Darcy fluxes on faces. One implicit (backward Euler) step solves
//   R = div q - (phi_old - phi) / dt = 0,  q = k(phi) (grad Pe + buoyancy e_up),
//   phi = phi(phi_old, Pe) from dphi/dt = -Pe / eta_phi (in closed form: Material::porosity),
// so phi is a local function of Pe and only Pe is iterated (docs/models/hydromech.md).

#include "core/field.hpp"
#include "models/hydromech/physics.hpp"
#include "solvers/pt_update.hpp"

namespace staghorn::hydromech {

// A cell and its 6 neighbours (w/e along x, s/n along y, b/t along z).
struct Star {
  real c, w, e, s, n, b, t;
};

template <int Dim>
SH_HD inline Star gather(const View& f, std::ptrdiff_t o) {
  const real* c = f.p + o;
  const int sy = static_cast<int>(f.sy), sz = static_cast<int>(f.sz);
  Star v{c[0], c[-1], c[1], 0, 0, 0, 0};
  if constexpr (Dim >= 2) v.s = c[-sy], v.n = c[sy];
  if constexpr (Dim >= 3) v.b = c[-sz], v.t = c[sz];
  return v;
}

// What one cell's stencil yields: the residual and what the pseudo-step needs.
struct CellEval {
  real R;      // div q - (phi_old - phi) / dt
  real r;      // d((phi_old - phi)/dt)/dPe: the compaction term's Jacobian
  real k_c;    // k at the cell
  real k_max;  // largest face permeability
  real dk;     // sum over faces of |dq_f/dk_f| rdx_f (for the Jacobian's dk/dPe part)
  real phi;    // porosity at the cell
};

struct Coefficients {
  Material mat;
  real dt;
  real rdx[3];    // 1 / spacing
  real body[3];   // buoyancy along each axis (only the up axis is non-zero)
  real sum_rdx2;  // sum over active axes of 1/dx^2
  real slowest;   // sum over active axes of (pi/L)^2
  float cfl;

  // Fluxes through the low and high faces along one axis, accumulated into div q and the bounds.
  SH_HD void axis(real P_c, real k_c, real P_lo, real Po_lo, real P_hi, real Po_hi, int a,
                  CellEval& e) const {
    const real k_lo = real(0.5) * (k_c + mat.permeability(mat.porosity(Po_lo, P_lo, dt)));
    const real k_hi = real(0.5) * (k_c + mat.permeability(mat.porosity(Po_hi, P_hi, dt)));
    const real q_lo = darcy_flux(k_lo, P_lo, P_c, rdx[a], body[a]);
    const real q_hi = darcy_flux(k_hi, P_c, P_hi, rdx[a], body[a]);
    e.R += (q_hi - q_lo) * rdx[a];
    e.k_max = fmax(e.k_max, fmax(k_lo, k_hi));
    // |grad Pe + buoyancy| on both faces: how much the fluxes change with the face k.
    e.dk +=
        (fabs((P_c - P_lo) * rdx[a] + body[a]) + fabs((P_hi - P_c) * rdx[a] + body[a])) * rdx[a];
  }

  template <int Dim>
  SH_HD CellEval evaluate(const Star& P, const Star& Po) const {
    CellEval e{};
    e.phi = mat.porosity(Po.c, P.c, dt);
    e.k_c = mat.permeability(e.phi);
    axis(P.c, e.k_c, P.w, Po.w, P.e, Po.e, 0, e);
    if constexpr (Dim >= 2) axis(P.c, e.k_c, P.s, Po.s, P.n, Po.n, 1, e);
    if constexpr (Dim >= 3) axis(P.c, e.k_c, P.b, Po.b, P.t, Po.t, 2, e);
    e.R -= mat.compaction_rate(Po.c, P.c, dt);
    // d/dPe of (phi_old - phi(Pe)) / dt: w / eta0 (m = 0), w phi / (eta0 phi0) (m = 1).
    e.r = mat.compaction_coefficient(e.phi, P.c);
    return e;
  }

  template <int Dim>
  SH_HD real residual(const Star& P, const Star& Po) const {
    return evaluate<Dim>(P, Po).R;
  }

  // Local pseudo-step. The Jacobian of R is bounded (Gershgorin) by r + 4 k_max sum(1/dx^2) + the
  // part from k's dependence on Pe through phi (|dk_c/dPe| = n k_c / phi dt r, half of it on each
  // face); its slowest mode is about r + k slowest. pt::optimal_step takes these as
  // (1 + 4a)/t and (1 + b)/t with t = 1/r.
  SH_HD pt::Step step(const CellEval& e) const {
    const real dkdp = e.phi > 0 ? mat.n * e.k_c / e.phi * dt * e.r : real(0);
    const real stiff = 4 * e.k_max * sum_rdx2 + real(0.5) * dkdp * e.dk;
    const real r = fmax(e.r, real(1e-20) * stiff + real(1e-300));
    const real t = 1 / r;
    return pt::optimal_step(stiff * t / 4, e.k_c * slowest * t, t, cfl);
  }
};

// One fused PT iteration: residual, local pseudo-step and damped update of Pe into Pe_new.
template <int Dim>
struct Iteration {
  Coefficients co;
  View Pe, phi_old, Pe_new, dPedtau;

  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = Pe.offset(i, j, k);  // the same in every field of the layout
    const CellEval e = co.evaluate<Dim>(gather<Dim>(Pe, o), gather<Dim>(phi_old, o));
    Pe_new.p[o] = pt::advance(Pe.p[o], e.R, dPedtau.p[o], co.step(e));
  }
};

// The stored-porosity path (`hydromech.kernel = stored`): phi(Pe) is evaluated once per cell and
// iteration into its own array, so a cell reads its neighbours' porosity instead of recomputing
// it (one exp per cell instead of one per stencil point). The formulas are those of `evaluate`,
// evaluated on the same operands: the result is the generic kernel's to the bit on the CPU.
template <int Dim>
struct StoredIteration {
  Coefficients co;
  View Pe, phi, phi_old, Pe_new, phi_new, dPedtau;

  SH_HD void axis(const Star& P, real k_c, real phi_lo, real P_lo, real phi_hi, real P_hi, int a,
                  CellEval& e) const {
    const real k_lo = real(0.5) * (k_c + co.mat.permeability(phi_lo));
    const real k_hi = real(0.5) * (k_c + co.mat.permeability(phi_hi));
    e.R += (darcy_flux(k_hi, P.c, P_hi, co.rdx[a], co.body[a]) -
            darcy_flux(k_lo, P_lo, P.c, co.rdx[a], co.body[a])) *
           co.rdx[a];
    e.k_max = fmax(e.k_max, fmax(k_lo, k_hi));
    e.dk += (fabs((P.c - P_lo) * co.rdx[a] + co.body[a]) +
             fabs((P_hi - P.c) * co.rdx[a] + co.body[a])) *
            co.rdx[a];
  }

  SH_HD CellEval evaluate(const Star& P, const Star& f, real phi_old_c) const {
    CellEval e{};
    e.phi = f.c;
    e.k_c = co.mat.permeability(f.c);
    axis(P, e.k_c, f.w, P.w, f.e, P.e, 0, e);
    if constexpr (Dim >= 2) axis(P, e.k_c, f.s, P.s, f.n, P.n, 1, e);
    if constexpr (Dim >= 3) axis(P, e.k_c, f.b, P.b, f.t, P.t, 2, e);
    const real w = co.mat.weakening_factor(P.c);  // once: the switch's tanh is not cheap
    e.R -= co.mat.compaction_rate(phi_old_c, P.c, w, co.dt);
    e.r = co.mat.compaction_coefficient(e.phi, P.c, w);
    return e;
  }

  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = Pe.offset(i, j, k);  // the same in every field of the layout
    const real po = phi_old.p[o];
    const CellEval e = evaluate(gather<Dim>(Pe, o), gather<Dim>(phi, o), po);
    const real P = pt::advance(Pe.p[o], e.R, dPedtau.p[o], co.step(e));
    Pe_new.p[o] = P;
    // What the next iteration's stencils read (the halo is filled by HaloPorosity).
    phi_new.p[o] = co.mat.porosity(po, P, co.mat.weakening_factor(P), co.dt);
  }
};

// phi = phi(phi_old, Pe) on both halo slabs across `axis` in one launch: index g in [0, 2h) along
// the axis is halo cell g - h below the interior (g < h) or n + g - h above it.
struct HaloPorosity {
  Material mat;
  real dt;
  View phi, phi_old, Pe;
  int axis, n, h;
  SH_HD void operator()(int i, int j, int k) const {
    int idx[3] = {i, j, k};
    const int g = idx[axis];
    idx[axis] = g < h ? g - h : n + g - h;
    const std::ptrdiff_t o = phi.offset(idx[0], idx[1], idx[2]);
    phi.p[o] = mat.porosity(phi_old.p[o], Pe.p[o], dt);
  }
};

// The porosity of the converged step: phi = phi(phi_old, Pe).
struct PorosityUpdate {
  Material mat;
  real dt;
  View phi, phi_old, Pe;
  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = phi.offset(i, j, k);
    phi.p[o] = mat.porosity(phi_old.p[o], Pe.p[o], dt);
  }
};

// |R| (max-norm) and R dV (sum: the step's fluid volume balance error) per cell.
template <int Dim>
struct CellResidual {
  Coefficients co;
  View Pe, phi_old;
  real weight;
  bool absolute;
  SH_HD real operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = Pe.offset(i, j, k);
    const real R = co.residual<Dim>(gather<Dim>(Pe, o), gather<Dim>(phi_old, o)) * weight;
    return absolute ? fabs(R) : R;
  }
};

}  // namespace staghorn::hydromech

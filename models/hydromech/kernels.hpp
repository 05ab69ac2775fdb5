#pragma once
// The reduced porosity-wave model's kernels: effective pressure Pe and porosity phi at cell
// centres, Darcy fluxes on faces. One implicit (backward Euler) step solves
//   R = div q - (phi_old - phi) / dt = 0,  q = k(phi) (grad Pe + buoyancy e_up),
//   phi = phi(phi_old, Pe) from dphi/dt = -Pe / eta_phi (in closed form: Material::porosity),
// so phi is a local function of Pe and only Pe is iterated (docs/models/hydromech.md).

#include <type_traits>

#include "core/boundary.hpp"
#include "core/face_ghosts.hpp"
#include "core/field.hpp"
#include "core/pair.hpp"
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

// A face's share of its two cells' residual and pseudo-step (Coefficients::face).
struct Face {
  real k;      // face permeability
  real q;      // Darcy flux towards the high side
  real drive;  // |grad Pe + buoyancy| across the face
};

// What one cell's stencil yields: the residual and what the pseudo-step needs.
struct CellEval {
  real R;       // div q - (phi_old - phi) / dt
  real r;       // d((phi_old - phi)/dt)/dPe: the compaction term's Jacobian
  real k_c;     // k at the cell
  real k_max;   // largest face permeability
  real dk;      // sum over faces of |dq_f/dk_f| rdx_f (for the Jacobian's dk/dPe part)
  real phi;     // porosity at the cell
  real dkdphi;  // dk/dphi at the cell
};

struct Coefficients {
  Material mat;
  real dt;
  real rdx[3];    // 1 / spacing
  real body[3];   // buoyancy along each axis (only the up axis is non-zero)
  real sum_rdx2;  // sum over active axes of 1/dx^2
  real slowest;   // sum over active axes of (pi/L)^2
  float cfl;
  real rdt = 0;  // 1 / dt

  // k(phi) with the exponent n compiled in (N >= 0, the powers fold into multiplies) or read at
  // run time (N < 0): the same operations, so the same bits, as Material::permeability.
  template <int N = -1>
  SH_HD real permeability(real phi) const {
    if constexpr (N < 0) {
      return mat.permeability(phi);
    } else {
      return mat.k0 * int_power((phi > 0 ? phi : real(0)) * mat.rphi0, N);
    }
  }

  // dk/dphi = n k0 / phi0 (phi/phi0)^(n-1) (whole n: multiplications only, no division).
  template <int N = -1>
  SH_HD real permeability_slope(real phi) const {
    const int n = N >= 0 ? N : mat.n_int;
    if (n == 0) return 0;
    if (n > 0)
      return mat.n * mat.k0 * mat.rphi0 * int_power((phi > 0 ? phi : real(0)) * mat.rphi0, n - 1);
    return phi > 0 ? mat.n * mat.permeability(phi) / phi : real(0);
  }

  // The compaction term (phi_old - phi) / dt of the step, phi = phi(phi_old, Pe) the porosity at
  // hand: for m = 1 the difference of the very values the porosity update keeps (so the fluid
  // volume balance telescopes to round-off), for m = 0 exactly Pe w / eta0.
  SH_HD real compaction_rate(real phi_old, real phi, real Pe) const {
    if (mat.m == 0) return Pe * mat.weakening_factor(Pe) * mat.reta0;
    return (phi_old - phi) * rdt;
  }

  // The slope of the compaction rate Pe w(Pe) for the pseudo-step only (it sets how fast the
  // iterations converge, not what they converge to): in single precision, as pt::optimal_step.
  // Where the switch turns it exceeds w severalfold, and a step taken from w overshoots.
  SH_HD real step_weakening(real Pe) const {
    if (mat.smoothing > 0)
      return static_cast<real>(
          switch_slope(static_cast<float>(mat.weakening), static_cast<float>(Pe * mat.rsmoothing)));
    return Pe < 0 ? mat.weakening : real(1);
  }

  // d((phi_old - phi)/dt)/dPe = w / eta_phi(phi) (m = 1) or w / eta0 (m = 0), for the pseudo-step.
  SH_HD real compaction_coefficient(real phi, real Pe) const {
    return mat.compaction_coefficient(phi, Pe, step_weakening(Pe));
  }

  // A face between cells lo and hi along axis a: its permeability (the mean of the cells' k), its
  // Darcy flux and |grad Pe + buoyancy| (how much the flux changes with the face's k).
  SH_HD Face face(real k_lo, real k_hi, real P_lo, real P_hi, int a) const {
    const real drive = darcy_drive(P_lo, P_hi, rdx[a], body[a]);
    const real k = real(0.5) * (k_lo + k_hi);
    return {k, k * drive, fabs(drive)};
  }

  // The low and high faces of a cell along axis a, accumulated into div q and the pseudo-step's
  // bounds.
  SH_HD void add_faces(const Face& lo, const Face& hi, int a, CellEval& e) const {
    e.R += (hi.q - lo.q) * rdx[a];
    e.k_max = fmax(e.k_max, fmax(lo.k, hi.k));
    e.dk += (lo.drive + hi.drive) * rdx[a];
  }

  // Both faces of a cell along axis a from the cells' Pe and k.
  SH_HD void axis(real P_c, real k_c, real P_lo, real k_lo_cell, real P_hi, real k_hi_cell, int a,
                  CellEval& e) const {
    add_faces(face(k_lo_cell, k_c, P_lo, P_c, a), face(k_c, k_hi_cell, P_c, P_hi, a), a, e);
  }

  // The compaction term of a cell's residual (e holds its faces' sum and phi).
  SH_HD void add_compaction(real phi_old_c, real P_c, CellEval& e) const {
    e.R -= compaction_rate(phi_old_c, e.phi, P_c);
  }

  // What a cell adds to its faces' sum (e holds that sum, phi and k_c): the compaction term and the
  // pseudo-step's inputs at the cell.
  template <int N = -1>
  SH_HD void add_cell(real phi_old_c, real P_c, CellEval& e) const {
    add_cell<N>(phi_old_c, P_c, step_weakening(P_c), e);
  }
  // The same with the pseudo-step's switch w_step = step_weakening(P_c) at hand (a kernel that
  // computes it in a loop of its own).
  template <int N = -1>
  SH_HD void add_cell(real phi_old_c, real P_c, real w_step, CellEval& e) const {
    add_compaction(phi_old_c, P_c, e);
    e.r = mat.compaction_coefficient(e.phi, P_c, w_step);
    e.dkdphi = permeability_slope<N>(e.phi);
  }

  // The residual and step inputs of a cell from the Pe star and the porosity star (phi(Pe) at
  // each point) with the old porosity at the cell: every kernel ends here, so they agree.
  template <int Dim, int N = -1>
  SH_HD CellEval evaluate(const Star& P, const Star& f, real phi_old_c) const {
    CellEval e{};
    e.phi = f.c;
    e.k_c = permeability<N>(f.c);
    axis(P.c, e.k_c, P.w, permeability<N>(f.w), P.e, permeability<N>(f.e), 0, e);
    if constexpr (Dim >= 2)
      axis(P.c, e.k_c, P.s, permeability<N>(f.s), P.n, permeability<N>(f.n), 1, e);
    if constexpr (Dim >= 3)
      axis(P.c, e.k_c, P.b, permeability<N>(f.b), P.t, permeability<N>(f.t), 2, e);
    add_cell<N>(phi_old_c, P.c, e);
    return e;
  }

  // The generic path: the porosity star recomputed from the Pe and phi_old stars.
  template <int Dim, int N = -1>
  SH_HD CellEval evaluate(const Star& P, const Star& Po) const {
    Star g{mat.porosity(Po.c, P.c, dt),
           mat.porosity(Po.w, P.w, dt),
           mat.porosity(Po.e, P.e, dt),
           0,
           0,
           0,
           0};
    if constexpr (Dim >= 2) g.s = mat.porosity(Po.s, P.s, dt), g.n = mat.porosity(Po.n, P.n, dt);
    if constexpr (Dim >= 3) g.b = mat.porosity(Po.b, P.b, dt), g.t = mat.porosity(Po.t, P.t, dt);
    return evaluate<Dim, N>(P, g, Po.c);
  }

  template <int Dim>
  SH_HD real residual(const Star& P, const Star& Po) const {
    return evaluate<Dim>(P, Po).R;
  }

  // Local pseudo-step. The Jacobian of R is bounded (Gershgorin) by r + 4 k_max sum(1/dx^2) + the
  // part from k's dependence on Pe through phi (|dk_c/dPe| = dk/dphi dt r, half of it on each
  // face); its slowest mode is about r + k slowest. pt::optimal_step takes these as
  // (1 + 4a)/t and (1 + b)/t with t = 1/r.
  SH_HD pt::StepArguments step_arguments(const CellEval& e) const {
    const real dkdp = e.dkdphi * dt * e.r;
    const real stiff = 4 * e.k_max * sum_rdx2 + real(0.5) * dkdp * e.dk;
    const real r = fmax(e.r, real(1e-20) * stiff + real(1e-300));
    const real t = 1 / r;
    return {stiff * t / 4, e.k_c * slowest * t, t};
  }
  SH_HD pt::Step step(const CellEval& e) const {
    const pt::StepArguments s = step_arguments(e);
    return pt::optimal_step(s.a, s.b, s.dt, cfl);
  }
};

// One fused PT iteration: residual, local pseudo-step and damped update of Pe into Pe_new.
template <int Dim, int N = -1>  // N: the permeability exponent when compiled in (else < 0)
struct Iteration {
  Coefficients co;
  View Pe, phi_old, Pe_new, dPedtau;

  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = Pe.offset(i, j, k);  // the same in every field of the layout
    const CellEval e = co.evaluate<Dim, N>(gather<Dim>(Pe, o), gather<Dim>(phi_old, o));
    Pe_new.p[o] = pt::advance(Pe.p[o], e.R, dPedtau.p[o], co.step(e));
  }
};

// Where a stored kernel writes a face ghost: Pe_new and the porosity at the ghost at offset g, from
// the new Pe of the cell it mirrors (distance g - m: -1 on a low side, 1 on a high side). On a
// side in `copies` (bit s for side s) the ghost's porosity is the cell's new one, f: its Pe rule
// copies the cell (GhostRule::symmetric without a step) and its old porosity is the cell's (the
// zero-gradient ghosts of HydroMech::apply_porosity_ghosts), so phi(phi_old, Pe) has the same
// operands there, and so the same bits, without an exponential in the few threads next to an x
// side while the rest of their warp waits.
struct GhostStore {
  const Coefficients& co;
  const View &phi_old, &Pe_new, &phi_new;
  unsigned copies;
  SH_HD void one(std::ptrdiff_t g, const GhostRule& rule, real P, real f, int distance,
                 int side) const {
    const real Pg = rule.ghost(P, distance);
    const real fg = copies >> side & 1 ? f : co.mat.porosity(phi_old.p[g], Pg, co.dt);
    store_face_ghost(Pe_new.p, g, Pg, side);
    store_face_ghost(phi_new.p, g, fg, side);
  }
  // Two ghosts along x at once (16-byte accesses), mirrored from a pair of cells.
  SH_HD void one(std::ptrdiff_t g, const GhostRule& rule, Pair P, Pair f, int distance,
                 int side) const {
    const Pair Pg{rule.ghost(P.a, distance), rule.ghost(P.b, distance)};
    store2(Pe_new.p + g, Pg);
    if (copies >> side & 1) return store2(phi_new.p + g, f);
    const Pair fo = load2(phi_old.p + g);
    store2(phi_new.p + g, {co.mat.porosity(fo.a, Pg.a, co.dt), co.mat.porosity(fo.b, Pg.b, co.dt)});
  }
  // Every face ghost of g next to the cells i0 .. i1 of row (j, k) at offset o (FaceGhosts::visit):
  // P and f the cells' new Pe and porosity (V: one cell's or a pair's), P_lo, f_lo and P_hi, f_hi
  // those of the row's two ends.
  template <int Dim, bool YZ = true, class V>
  SH_HD void faces(const FaceGhosts& g, int i0, int i1, int j, int k, std::ptrdiff_t o, V P, V f,
                   real P_lo, real f_lo, real P_hi, real f_hi) const {
    g.visit<Dim, YZ>(i0, i1, j, k, o, Pe_new.sy, Pe_new.sz, P, P_lo, P_hi,
                     [&](std::ptrdiff_t at, const GhostRule& rule, auto v, int distance, int side) {
                       if constexpr (std::is_same_v<decltype(v), V>)
                         one(at, rule, v, f, distance, side);
                       else  // an x side's ghost of a pair: one end's
                         one(at, rule, v, side == 0 ? f_lo : f_hi, distance, side);
                     });
  }
};

// The stored-porosity path (`hydromech.kernel = stored`): phi(Pe) is evaluated once per cell and
// iteration into its own array, so a cell reads its neighbours' porosity instead of recomputing
// it (one exp per cell instead of one per stencil point). The formulas are those of `evaluate`,
// evaluated on the same operands: the result is the generic kernel's to the bit on the CPU.
template <int Dim, int N = -1>  // N: the permeability exponent when compiled in (else < 0)
struct StoredIteration {
  Coefficients co;
  View Pe, phi, phi_old, Pe_new, phi_new, dPedtau;
  FaceGhosts ghosts;  // none by default: fill_ghosts and HaloPorosity set them after the kernel
  unsigned ghost_copies = 0;  // GhostStore::copies

  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = Pe.offset(i, j, k);  // the same in every field of the layout
    const real po = phi_old.p[o];
    const CellEval e = co.evaluate<Dim, N>(gather<Dim>(Pe, o), gather<Dim>(phi, o), po);
    const real P = pt::advance(Pe.p[o], e.R, dPedtau.p[o], co.step(e));
    Pe_new.p[o] = P;
    // What the next iteration's stencils read (the halo: HaloPorosity; the ghosts: below).
    const real f = co.mat.porosity(po, P, co.dt);
    phi_new.p[o] = f;
    GhostStore{co, phi_old, Pe_new, phi_new, ghost_copies}.faces<Dim>(ghosts, i, i, j, k, o, P, f,
                                                                      P, f, P, f);
  }
};

// The stored-porosity iteration for two cells along x per thread (i = 2 ip, 2 ip + 1; `pairs`,
// the GPU's hot path), with 16-byte loads and stores: half the memory instructions and twice the
// bytes in flight per thread, and the two cells share their x face. Needs regions that start and
// end at an even x. Arithmetic identical to StoredIteration<Dim, N>.
template <int Dim, int N = -1>
struct PairStoredIteration {
  static constexpr int kThreads = 128;  // 32 x 4 blocks (as diffusion's pairs kernel)
  // With the usual exponent (N = 3), 1024 threads per SM, i.e. at most 64 registers: above that
  // (72 with the logistic switch) fewer warps hide its loads (docs/performance.md, the 16-core
  // host again). The general exponent's 90 would spill too much.
  static constexpr int kResidentThreads = N == 3 ? 1024 : 0;
  Coefficients co;
  View Pe, phi, phi_old, Pe_new, phi_new, dPedtau;
  FaceGhosts ghosts;  // none by default: fill_ghosts and HaloPorosity set them after the kernel
  unsigned ghost_copies = 0;  // GhostStore::copies

  // The stars of cells 2 ip and 2 ip + 1 of field f at offset o (of the first).
  SH_HD static void gather_pair(const View& f, std::ptrdiff_t o, Star& s0, Star& s1) {
    const real* c = f.p + o;
    const int sy = static_cast<int>(f.sy), sz = static_cast<int>(f.sz);
    const Pair x = load2(c);
    Pair s{0, 0}, n{0, 0}, b{0, 0}, t{0, 0};
    if constexpr (Dim >= 2) s = load2(c - sy), n = load2(c + sy);
    if constexpr (Dim >= 3) b = load2(c - sz), t = load2(c + sz);
    s0 = {x.a, c[-1], x.b, s.a, n.a, b.a, t.a};
    s1 = {x.b, x.a, c[2], s.b, n.b, b.b, t.b};
  }

  // A warp is a piece of one row (32 x 4 blocks), so whether its row lies next to a y or z side
  // is the same in all its threads: the other rows take a path without those sides' ghost code.
  SH_HD void operator()(int ip, int j, int k) const {
    if (ghosts.row_next_to_y_or_z<Dim>(j, k))
      update<true>(ip, j, k);
    else
      update<false>(ip, j, k);
  }

  template <bool YZ>
  SH_HD void update(int ip, int j, int k) const {
    const std::ptrdiff_t o = Pe.offset(2 * ip, j, k);
    Star P0, P1, f0, f1;
    gather_pair(Pe, o, P0, P1);
    gather_pair(phi, o, f0, f1);
    const Pair po = load2(phi_old.p + o);
    Pair v = load2(dPedtau.p + o);
    // Both cells' residuals and pseudo-steps first, then their updates and porosities: the stars
    // are dead before the double exponentials begin.
    const CellEval e0 = co.evaluate<Dim, N>(P0, f0, po.a);
    const pt::Step s0 = co.step(e0);
    const CellEval e1 = co.evaluate<Dim, N>(P1, f1, po.b);
    const pt::Step s1 = co.step(e1);
    const real Pa = pt::advance(P0.c, e0.R, v.a, s0), Pb = pt::advance(P1.c, e1.R, v.b, s1);
    store2(Pe_new.p + o, {Pa, Pb});
    store2(dPedtau.p + o, v);
    const Pair f{co.mat.porosity(po.a, Pa, co.dt), co.mat.porosity(po.b, Pb, co.dt)};
    store2(phi_new.p + o, f);
    // The face ghosts: one cell's beyond x, both cells' beyond y and z.
    GhostStore{co, phi_old, Pe_new, phi_new, ghost_copies}.template faces<Dim, YZ>(
        ghosts, 2 * ip, 2 * ip + 1, j, k, o, Pair{Pa, Pb}, f, Pa, f.a, Pb, f.b);
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

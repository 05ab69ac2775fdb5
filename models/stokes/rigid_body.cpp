#include "models/stokes/rigid_body.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "core/exact_sum.hpp"
#include "core/for_each.hpp"
#include "core/reduce_each.hpp"

namespace staghorn::stokes {
namespace {

// The rigid modes on a face along axis q at lever arm r: translations k = 0..2 (e_k) and rotations
// k = 3..5 about axis a = k - 3 (e_a x r), component q.
SH_HD inline real mode(int k, int q, const real r[3]) {
  if (k < 3) return k == q ? 1 : 0;
  const int a = k - 3;
  return (a == (q + 1) % 3 ? r[(q + 2) % 3] : 0) - (a == (q + 2) % 3 ? r[(q + 1) % 3] : 0);
}

// Per-cell terms of the sums over the body's faces (each cell contributes its low faces): with
// l < 0, sum phi_k . w dV (the change's component along mode k, w the face's pseudo-viscosity, or
// 1 unweighted); with l >= 0, sum phi_k . phi_l over the body's faces (the modes' Gram matrix),
// or sum pseudo phi_k . phi_l over its rim (weighted: the pseudo-inertia). quantum > 0: the term
// rounded to a multiple of quantum (exact sums); quantum = 0: the largest |term| over all k (and
// l), the bound that sets the quantum.
struct RigidTerm {
  BodyFrame f;
  View v[3], v_old[3];
  int k, l;
  real quantum;
  bool weighted;

  SH_HD real term(int kk, int ll, int i, int j, int kz) const {
    const int idx[3] = {i, j, kz};
    const Off o = f.label.offset(i, j, kz);
    real t = 0;
    for (int q = 0; q < f.dims; ++q) {
      if (ll >= 0 && weighted ? !f.on_rim(q, o, idx) : !f.on_face(q, o)) continue;
      real r[3];
      for (int a = 0; a < 3; ++a) r[a] = f.coordinate(a, q, idx);
      const real other = ll < 0 ? v[q].p[o] - v_old[q].p[o] : mode(ll, q, r);
      t += mode(kk, q, r) * (weighted ? f.pseudo(q, o) * other : other);
    }
    return t;
  }
  SH_HD real operator()(int i, int j, int kz) const {
    if (quantum > 0) return rint(term(k, l, i, j, kz) / quantum) * quantum;
    real m = 0;
    for (int kk = 0; kk < 6; ++kk)
      for (int ll = l < 0 ? -1 : 0; ll < (l < 0 ? 0 : 6); ++ll)
        m = fmax(m, fabs(term(kk, ll, i, j, kz)));
    return m;
  }
};

// The same terms for the velocity change, every mode in one pass (reduce_each): the largest |term|
// (RigidBound, which sets the quantum), then the six quantised terms (RigidSums). Each term is
// accumulated face by face as RigidTerm::term does, so the sums have the same bits.
struct RigidBound {
  RigidTerm t;
  SH_HD Terms<1> operator()(int i, int j, int kz) const { return {{t(i, j, kz)}}; }
};
struct RigidSums {
  RigidTerm t;
  SH_HD Terms<6> operator()(int i, int j, int kz) const {
    Terms<6> out;
    for (int kk = 0; kk < 6; ++kk)
      out.v[kk] = rint(t.term(kk, -1, i, j, kz) / t.quantum) * t.quantum;
    return out;
  }
};

// v += U + w x r on the body's faces.
struct RigidShift {
  BodyFrame f;
  View v[3];
  RigidMotion m;
  SH_HD void operator()(int i, int j, int k) const {
    const int idx[3] = {i, j, k};
    const Off o = f.label.offset(i, j, k);
    for (int q = 0; q < f.dims; ++q) {
      if (!f.on_face(q, o)) continue;
      real r[3];
      for (int a = 0; a < 3; ++a) r[a] = f.coordinate(a, q, idx);
      real dv = m.U[q];
      for (int a = 0; a < 3; ++a) dv += m.w[a] * mode(3 + a, q, r);
      v[q].p[o] += dv;
    }
  }
};

// Solves the small symmetric positive definite system G x = b over the modes in `active`
// (Gaussian elimination: every rank does the same arithmetic on the same numbers).
std::array<double, 6> solve_modes(const std::array<std::array<double, 6>, 6>& G,
                                  const std::array<double, 6>& b, const std::vector<int>& active) {
  const int n = static_cast<int>(active.size());
  std::vector<std::vector<double>> A(n, std::vector<double>(n + 1));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) A[i][j] = G[active[i]][active[j]];
    A[i][n] = b[active[i]];
  }
  for (int c = 0; c < n; ++c)
    for (int i = c + 1; i < n; ++i) {
      const double f = A[i][c] / A[c][c];
      for (int j = c; j <= n; ++j) A[i][j] -= f * A[c][j];
    }
  std::array<double, 6> x{};
  for (int i = n - 1; i >= 0; --i) {
    double s = A[i][n];
    for (int j = i + 1; j < n; ++j) s -= A[i][j] * x[active[j]];
    x[active[i]] = s / A[i][i];
  }
  return x;
}

}  // namespace

RigidBody::RigidBody(const Decomposition& dec, Exec ex, const Field& label, const StiffBody& body,
                     const Field& mu_max, real mobility, unsigned modes)
    : dec_(dec), ex_(ex), body_(body), mobility_(mobility) {
  const Grid& g = dec.grid();
  const Layout& layout = label.layout();
  frame_.label = label.view();
  frame_.id = body.id;
  frame_.mu_max = mu_max.view();
  frame_.offset = dec.offset();
  frame_.n = g.n;
  frame_.dims = g.dims();
  for (int a = 0; a < 3; ++a) {
    const bool on = a < g.dims();
    frame_.dx[a] = on ? static_cast<real>(g.spacing(a)) : 0;
    frame_.bounded[a] = on && !g.periodic[a];
    // The lever arms from the centre of the body's box (any point would span the same motions;
    // a central one keeps the Gram matrix well conditioned).
    const real centre = g.origin[a] + real(0.5) * (body.lo[a] + body.hi[a]) * g.spacing(a);
    frame_.base[a] = on ? static_cast<real>(g.origin[a] - centre) : 0;
    centre_[a] = on ? centre : 0;
    // The box's faces reach one further on the high side.
    const int faces_hi = on ? body.hi[a] + 1 : body.hi[a];
    const int off = dec.offset()[a];
    owned_.lo[a] = std::max(body.lo[a] - off, 0);
    owned_.hi[a] = std::min(faces_hi - off, layout.n[a]);
  }
  // The modes' Gram matrix over the faces and their pseudo-inertia over the rim: exact sums of
  // the geometry and the viscosity. Modes without a face or a rim (a 2-D run's z translation, its
  // rotations about x and y) or that a wall forbids stay out of the system.
  box_cells_ = static_cast<double>(dec.comm().sum(static_cast<long long>(owned_.size())));
  for (bool weighted : {false, true}) {
    std::array<std::array<double, 6>, 6>& m = weighted ? inertia_ : gram_;
    RigidTerm t{frame_, {}, {}, 0, 0, 0, weighted};
    t.quantum = exact_quantum(dec.comm().max(reduce(ex_, owned_, MaxOp{}, t)), box_cells_);
    for (int k = 0; k < 6; ++k)
      for (int l = 0; l <= k; ++l) {
        t.k = k, t.l = l;
        m[k][l] = m[l][k] = dec.comm().sum(double(reduce(ex_, owned_, SumOp{}, t)));
      }
  }
  for (int k = 0; k < 6; ++k)
    if (gram_[k][k] > 0 && inertia_[k][k] > 0 && (modes >> k & 1u)) active_.push_back(k);
}

RigidMotion RigidBody::fit(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old,
                           bool weighted) const {
  RigidTerm t{frame_,
              {V[0].view(), V[1].view(), V[2].view()},
              {V_old[0].view(), V_old[1].view(), V_old[2].view()},
              0,
              -1,
              0,
              weighted};
  const double bound = reduce_each<1>(ex_, owned_, MaxOp{}, RigidBound{t})[0];
  t.quantum = exact_quantum(dec_.comm().max(bound), box_cells_);
  const std::array<double, 6> local = reduce_each<6>(ex_, owned_, SumOp{}, RigidSums{t});
  std::array<double, 6> b{};
  for (int k : active_) b[k] = dec_.comm().sum(local[k]);
  // Unweighted: the least-squares fit; weighted: the rim's pseudo-inertia takes the net force and
  // torque (vdt times them: the velocity change times the faces' pseudo-viscosity).
  const std::array<double, 6> x = solve_modes(weighted ? inertia_ : gram_, b, active_);
  const real scale = weighted ? mobility_ : 1;
  RigidMotion m;
  for (int a = 0; a < 3; ++a)
    m.U[a] = static_cast<real>(scale * x[a]), m.w[a] = static_cast<real>(scale * x[3 + a]);
  return m;
}

RigidMotion RigidBody::rigid_part(const std::array<Field, 3>& V,
                                  const std::array<Field, 3>& V_old) const {
  return fit(V, V_old, false);
}

RigidMotion RigidBody::correction(const std::array<Field, 3>& V,
                                  const std::array<Field, 3>& V_old) const {
  return fit(V, V_old, true);
}

void RigidBody::shift(std::array<Field, 3>& V, const RigidMotion& m) const {
  for_each(ex_, owned_, RigidShift{frame_, {V[0].view(), V[1].view(), V[2].view()}, m});
}

}  // namespace staghorn::stokes

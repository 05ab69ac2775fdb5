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
// l < 0, sum phi_k . dV (the change's component along mode k); with l >= 0, sum phi_k . phi_l (the
// modes' Gram matrix). quantum > 0: the term rounded to a multiple of quantum (exact sums);
// quantum = 0: the largest |term| over all k (and l), the bound that sets the quantum.
struct RigidTerm {
  BodyFrame f;
  View v[3], v_old[3];
  int k, l;
  real quantum;

  SH_HD real term(int kk, int ll, int i, int j, int kz) const {
    const int idx[3] = {i, j, kz};
    const Off o = f.mu.offset(i, j, kz);
    real t = 0;
    for (int q = 0; q < f.dims; ++q) {
      if (!f.on_face(q, o, idx)) continue;
      real r[3];
      for (int a = 0; a < 3; ++a) r[a] = f.coordinate(a, q, idx);
      const real other = ll < 0 ? v[q].p[o] - v_old[q].p[o] : mode(ll, q, r);
      t += mode(kk, q, r) * other;
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
    const Off o = f.mu.offset(i, j, k);
    for (int q = 0; q < f.dims; ++q) {
      if (!f.on_face(q, o, idx)) continue;
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

RigidBody::RigidBody(const Decomposition& dec, const Layout& layout, Exec ex, const Field& mu,
                     real threshold, const std::array<real, 3>& centre, real radius, int margin,
                     real gain)
    : dec_(dec), ex_(ex), gain_(gain) {
  const Grid& g = dec.grid();
  frame_.mu = mu.view();
  frame_.threshold = threshold;
  frame_.offset = dec.offset();
  frame_.dims = g.dims();
  for (int a = 0; a < 3; ++a) {
    const bool on = a < g.dims();
    frame_.dx[a] = on ? static_cast<real>(g.spacing(a)) : 0;
    frame_.base[a] = on ? static_cast<real>(g.origin[a] - centre[a]) : 0;
    // The body's box in global cells; its faces reach one further on the high side.
    int lo = 0, hi = 1;
    if (on) {
      const double h = g.spacing(a);
      lo = std::max(0, int(std::floor((centre[a] - radius - g.origin[a]) / h)) - margin);
      hi = std::min(g.n[a], int(std::ceil((centre[a] + radius - g.origin[a]) / h)) + margin);
    }
    frame_.lo[a] = lo, frame_.hi[a] = hi;
    const int faces_hi = on ? hi + 1 : hi;
    const int off = dec.offset()[a];
    owned_.lo[a] = std::max(lo - off, 0);
    owned_.hi[a] = std::min(faces_hi - off, layout.n[a]);
  }
  // The modes' Gram matrix: exact sums of the geometry (no velocities needed). Modes without a
  // face (a 2-D run's z translation, its rotations about x and y) stay out of the system.
  box_cells_ = static_cast<double>(dec.comm().sum(static_cast<long long>(owned_.size())));
  RigidTerm t{frame_, {}, {}, 0, 0, 0};
  t.quantum = exact_quantum(dec.comm().max(reduce(ex_, owned_, MaxOp{}, t)), box_cells_);
  for (int k = 0; k < 6; ++k)
    for (int l = 0; l <= k; ++l) {
      t.k = k, t.l = l;
      gram_[k][l] = gram_[l][k] = dec.comm().sum(double(reduce(ex_, owned_, SumOp{}, t)));
    }
  for (int k = 0; k < 6; ++k)
    if (gram_[k][k] > 0) active_.push_back(k);
}

RigidMotion RigidBody::rigid_part(const std::array<Field, 3>& V,
                                  const std::array<Field, 3>& V_old) const {
  RigidTerm t{frame_,
              {V[0].view(), V[1].view(), V[2].view()},
              {V_old[0].view(), V_old[1].view(), V_old[2].view()},
              0,
              -1,
              0};
  const double bound = reduce_each<1>(ex_, owned_, MaxOp{}, RigidBound{t})[0];
  t.quantum = exact_quantum(dec_.comm().max(bound), box_cells_);
  const std::array<double, 6> local = reduce_each<6>(ex_, owned_, SumOp{}, RigidSums{t});
  std::array<double, 6> b{};
  for (int k : active_) b[k] = dec_.comm().sum(local[k]);
  const std::array<double, 6> x = solve_modes(gram_, b, active_);
  RigidMotion m;
  for (int a = 0; a < 3; ++a)
    m.U[a] = static_cast<real>(x[a]), m.w[a] = static_cast<real>(x[3 + a]);
  return m;
}

void RigidBody::accelerate(std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const {
  RigidMotion m = rigid_part(V, V_old);
  for (int a = 0; a < 3; ++a) m.U[a] *= gain_, m.w[a] *= gain_;
  for_each(ex_, owned_, RigidShift{frame_, {V[0].view(), V[1].view(), V[2].view()}, m});
}

}  // namespace staghorn::stokes

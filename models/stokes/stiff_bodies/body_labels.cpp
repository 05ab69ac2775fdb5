#include "models/stokes/stiff_bodies/body_labels.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "core/reduce_each.hpp"
#include "io/schema.hpp"

namespace staghorn::stokes {
namespace {

// A seed cell starts with its own id: 1 + its global linear index (unique, the same on any rank).
struct Seed {
  View mu, label;
  real threshold;
  Int3 offset, n;
  SH_HD void operator()(int i, int j, int k) const {
    const real gx = offset.x + i, gy = offset.y + j, gz = offset.z + k;
    label(i, j, k) = mu(i, j, k) > threshold ? 1 + gx + real(n.x) * (gy + real(n.y) * gz) : 0;
  }
};

// Labelling (grow = false): a labelled cell takes the least label among itself and its labelled
// face neighbours. Growing (grow = true): an unlabelled cell whose pseudo-step viscosity exceeds
// the threshold takes the least label of its labelled face neighbours; labelled cells keep theirs.
struct Spread {
  View in, out, mu_max;
  real threshold;
  int dims;
  bool grow;
  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = in.offset(i, j, k);
    const real own = in.p[o];
    real l = grow
                 ? (own == 0 && mu_max.p[o] > threshold ? std::numeric_limits<real>::infinity() : 0)
                 : own;
    if (l != 0)
      for (int a = 0; a < dims; ++a) {
        const std::ptrdiff_t s = a == 0 ? 1 : (a == 1 ? in.sy : in.sz);
        const real lo = in.p[o - s], hi = in.p[o + s];
        if (lo != 0 && lo < l) l = lo;
        if (hi != 0 && hi < l) l = hi;
      }
    out.p[o] = grow ? (own != 0 ? own : (l < std::numeric_limits<real>::infinity() ? l : 0)) : l;
  }
};

struct Changed {
  View a, b;
  SH_HD real operator()(int i, int j, int k) const { return a(i, j, k) != b(i, j, k) ? 1 : 0; }
};

// -(the least label above `after`), as a maximum.
struct NextLabel {
  View label;
  real after;
  SH_HD real operator()(int i, int j, int k) const {
    const real l = label(i, j, k);
    return l > after ? -l : -std::numeric_limits<real>::infinity();
  }
};

// The body's box and its solid part's (its cells above `solid`), each as the largest global index
// and the largest negated one per axis, and its largest viscosity, in one pass.
struct BoxOf {
  View label, mu;
  real id, solid;
  Int3 offset;
  SH_HD Terms<13> operator()(int i, int j, int k) const {
    Terms<13> t;
    const bool in = label(i, j, k) == id;
    const bool solid_cell = in && mu(i, j, k) > solid;
    const real none = -std::numeric_limits<real>::infinity();
    const int g[3] = {offset.x + i, offset.y + j, offset.z + k};
    for (int a = 0; a < 3; ++a) {
      t.v[a] = in ? real(g[a]) : none;
      t.v[3 + a] = in ? -real(g[a]) : none;
      t.v[6 + a] = solid_cell ? real(g[a]) : none;
      t.v[9 + a] = solid_cell ? -real(g[a]) : none;
    }
    t.v[12] = in ? mu(i, j, k) : none;
    return t;
  }
};

// Repeats a Spread pass until no label changes anywhere.
void spread(const Decomposition& dec, Exec ex, Field& label, Field& scratch, const Field& mu_max,
            real threshold, bool grow, const std::function<void(Field&)>& exchange) {
  const Region in = label.layout().interior();
  for (;;) {
    for_each(
        ex, in,
        Spread{label.view(), scratch.view(), mu_max.view(), threshold, dec.grid().dims(), grow});
    const real changed =
        dec.comm().max(reduce(ex, in, MaxOp{}, Changed{label.view(), scratch.view()}));
    label.swap_data(scratch);
    exchange(label);
    if (changed == 0) return;
  }
}

}  // namespace

std::vector<StiffBody> label_stiff_bodies(const Decomposition& dec, Exec ex, const Field& mu,
                                          const Field& mu_max, real seed, real threshold,
                                          real solid, Field& label,
                                          const std::function<void(Field&)>& exchange) {
  const Grid& g = dec.grid();
  const Layout& layout = label.layout();
  const Comm& comm = dec.comm();
  if (static_cast<double>(g.cells()) >= std::ldexp(1.0, std::numeric_limits<real>::digits))
    throw io::ConfigError(
        "stokes.rigid_bodies.mode: the body labels are cell indices, exact in this precision "
        "only below 2^" +
        std::to_string(std::numeric_limits<real>::digits) + " cells; set it to \"off\"");
  Field scratch("body_label_scratch", Location::cell, layout, label.backend());
  fill(ex, label, 0);
  fill(ex, scratch, 0);
  for_each(ex, layout.interior(), Seed{mu.view(), label.view(), seed, dec.offset(), g.n});
  exchange(label);
  // Each pass carries a label one cell further: as many passes as the longest path inside a
  // seed, then as the widest rim grown around one.
  spread(dec, ex, label, scratch, mu_max, threshold, false, exchange);
  spread(dec, ex, label, scratch, mu_max, threshold, true, exchange);
  std::vector<StiffBody> bodies;
  real after = 0;
  for (;;) {
    const real next =
        comm.max(reduce(ex, layout.interior(), MaxOp{}, NextLabel{label.view(), after}));
    if (!(next > -std::numeric_limits<real>::infinity())) break;
    after = -next;
    const std::array<double, 13> local = reduce_each<13>(
        ex, layout.interior(), MaxOp{}, BoxOf{label.view(), mu.view(), after, solid, dec.offset()});
    const std::vector<double> box = comm.max(std::vector<double>(local.begin(), local.end()));
    StiffBody b{after, {0, 0, 0}, {1, 1, 1}, static_cast<real>(box[12]), 0};
    bool wraps = false;
    for (int a = 0; a < g.dims(); ++a) {
      b.lo[a] = static_cast<int>(-box[3 + a]);
      b.hi[a] = static_cast<int>(box[a]) + 1;
      wraps = wraps || (g.periodic[a] && b.lo[a] == 0 && b.hi[a] == g.n[a]);
      // The walls its solid part reaches: a rim or smoothing tail grown to a wall leaves the body
      // free to move along it (the cells between them are soft; the wall's faces stay held).
      const int solid_lo = static_cast<int>(-box[9 + a]);
      const int solid_hi = static_cast<int>(box[6 + a]) + 1;
      if (!g.periodic[a])
        b.walls |=
            (solid_lo == 0 ? 1u << (2 * a) : 0u) | (solid_hi == g.n[a] ? 1u << (2 * a + 1) : 0u);
    }
    if (!wraps) bodies.push_back(b);
  }
  return bodies;
}

}  // namespace staghorn::stokes

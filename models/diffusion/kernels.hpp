#pragma once
// Nonlinear diffusion dH/dt = div(D(H) grad H), D = D0 H^n, on the staggered grid: H at cell
// centres, fluxes q = -D(H) grad H on the faces with D from the face-averaged H. One implicit
// (backward Euler) step solves R = -(H - H_old)/dt - div q = 0 by accelerated PT iterations.

#include <cfloat>
#include <cmath>
#include <type_traits>

#include "core/face_ghosts.hpp"
#include "core/field.hpp"
#include "core/int_power.hpp"
#include "core/pair.hpp"
#include "solvers/pt_update.hpp"

namespace staghorn::diffusion {

struct Material {
  real D0 = 1;
  real n = 0;
  int n_int = 0;  // n when it is a whole number below 16 (powers by multiplication), else -1

  // D / D0 at a face is (S / 2)^n of the sum S = Hl + Hh of its cells; this is S^n, S clamped at
  // 0 (D >= 0: undershoots must not turn into anti-diffusion). The 2^-n and D0 are folded into the
  // axes' flux coefficients (Coefficients::kx): a multiply fewer per face.
  // N >= 0: the exponent known at compile time (the powers fold into a few multiplies);
  // N < 0: read at run time. Both give the same bits. Clamp = false: for a caller that knows S > 0
  // (the clamp is then the identity: the same bits without its compare and selects).
  template <int N = -1, bool Clamp = true>
  SH_HD real face_power(real S) const {
    if constexpr (Clamp) S = S > 0 ? S : real(0);
    const int m = N >= 0 ? N : n_int;
    return m < 0 ? pow(S, n) : int_power(S, m);
  }

  // H^(n-1) for H >= 0 and n > 0: the pseudo-step's bound of D'.
  template <int N = -1>
  SH_HD real power_below(real H) const {
    const int m = N >= 0 ? N : n_int;
    return m > 0 ? int_power(H, m - 1) : (H > 0 ? pow(H, n - 1) : real(0));
  }
};

// The face term S^n (Hh - Hl) of a face between cells with values Hl (low side) and Hh: the flux
// -D(H_face) dH/dx across it, times the axis' 1/dx (the divergence's factor), is -k times this,
// k = D0 2^-n / dx^2 the axis' flux coefficient (Coefficients::kx). The residual multiplies the
// difference of an axis' two terms by k once, instead of each term (Coefficients::residual_of).
template <int N = -1, bool Clamp = true>
SH_HD inline real face_term(const Material& m, real Hl, real Hh) {
  return m.face_power<N, Clamp>(Hh + Hl) * (Hh - Hl);
}

// A cell and its 6 neighbours (w/e along x, s/n along y, b/t along z). Every kernel variant
// gathers these and shares the arithmetic below, so that they agree to the bit.
struct Star {
  real c, w, e, s, n, b, t;
};

// Gathers the star around linear offset o (one address computation for all seven loads).
template <int Dim>
SH_HD inline Star gather(const View& H, std::ptrdiff_t o) {
  const real* c = H.p + o;
  const int sy = static_cast<int>(H.sy), sz = static_cast<int>(H.sz);
  // The inactive axes' members (never read) hold the centre value: constant zeros there are a
  // separate store that keeps GCC from vectorising the CPU row kernel's 1-D and 2-D loops.
  Star v{c[0], c[-1], c[1], c[0], c[0], c[0], c[0]};
  if constexpr (Dim >= 2) v.s = c[-sy], v.n = c[sy];
  if constexpr (Dim >= 3) v.b = c[-sz], v.t = c[sz];
  return v;
}

// The largest and smallest values of a star (the pseudo-step's bounds of D).
template <int Dim>
SH_HD inline real star_max(const Star& H) {
  real hi = fmax(H.c, fmax(H.w, H.e));
  if constexpr (Dim >= 2) hi = fmax(hi, fmax(H.s, H.n));
  if constexpr (Dim >= 3) hi = fmax(hi, fmax(H.b, H.t));
  return hi;
}
template <int Dim>
SH_HD inline real star_min(const Star& H) {
  real lo = fmin(H.c, fmin(H.w, H.e));
  if constexpr (Dim >= 2) lo = fmin(lo, fmin(H.s, H.n));
  if constexpr (Dim >= 3) lo = fmin(lo, fmin(H.b, H.t));
  return lo;
}

// The pseudo-step's bounds in double precision, for its double arguments (step_arguments): the
// star's largest and smallest values rounded to float; a maximum beyond float's range keeps its
// double value (for optimal_step's large-coefficient branch).
template <int Dim>
SH_HD inline void star_bounds(const Star& H, real& hi, real& lo) {
  const real h = star_max<Dim>(H);
  hi = static_cast<float>(h), lo = static_cast<float>(star_min<Dim>(H));
  if (hi > FLT_MAX) hi = h;
}

// Bounds at or beyond this take the double arguments (Coefficients::single_arguments): the single
// precision ones need no rule for values near float's largest.
constexpr float kSingleBoundLimit = 1e38f;

// The same bounds in single precision: the star's largest and smallest values rounded to float,
// the maximum held at kSingleBoundLimit. Two ways to the same bits, since rounding is monotone
// (the maximum of the values rounded is the maximum rounded): max and min over the doubles with one
// rounding after (one instruction each on the CPU, a compare and two selects on the GPU), or over
// float copies of the values (a conversion each, then one instruction per max or min), which the
// pairs kernel takes: its two cells share the conversions of their common values.
template <int Dim>
SH_HD inline void star_bounds_single(const Star& H, float& hi, float& lo) {
  // Held within float's range before rounding: a double beyond it has no float value.
  hi = static_cast<float>(fmin(star_max<Dim>(H), real(kSingleBoundLimit)));
  lo = static_cast<float>(fmax(star_min<Dim>(H), -real(kSingleBoundLimit)));
}
template <int Dim>
SH_HD inline void star_bounds_of_floats(const Star& H, float& hi, float& lo) {
  const float c = static_cast<float>(H.c), w = static_cast<float>(H.w), e = static_cast<float>(H.e);
  float fh = fmax(c, fmax(w, e)), fl = fmin(c, fmin(w, e));
  if constexpr (Dim >= 2) {
    const float s = static_cast<float>(H.s), n = static_cast<float>(H.n);
    fh = fmax(fh, fmax(s, n)), fl = fmin(fl, fmin(s, n));
  }
  if constexpr (Dim >= 3) {
    const float b = static_cast<float>(H.b), t = static_cast<float>(H.t);
    fh = fmax(fh, fmax(b, t)), fl = fmin(fl, fmin(b, t));
  }
  hi = fmin(fh, kSingleBoundLimit), lo = fmax(fl, -kSingleBoundLimit);
}

// The terms of a cell's six faces (w/e along x, s/n along y, b/t along z), each as face_term()
// gives it: a kernel that computes each face's term once and shares it between the face's two
// cells gets the bits of one that computes it twice.
struct FaceTerms {
  real w, e, s, n, b, t;
  // The term of the low (high = 0) or high face along an axis.
  SH_HD real at(int axis, int high) const {
    return axis == 0 ? (high ? e : w) : axis == 1 ? (high ? n : s) : (high ? t : b);
  }
};

// Residual R = -(H - H_old)/dt - div q of one implicit step, in Dim dimensions. Made by
// coefficients_for (below), which folds the constants.
struct Coefficients {
  Material mat;
  real dt, rdt;     // dt and 1 / dt
  real kx, ky, kz;  // flux coefficients D0 2^-n / dx^2 per axis (face_term())
  // D0 dt sum(1/dx^2) and D0 dt slowest, slowest = sum(pi/L)^2: the stencil's largest eigenvalue
  // is 4 D sum(1/dx^2) and the domain's slowest mode D slowest; the step's a and b per unit D / D0.
  real ka, kb;
  float cfl;
  float ka_single, kb_single;  // ka and kb in single precision (pt::single_argument)

  // R from g(axis, high), the term (face_term) of the cell's low (high = 0) or high face along an
  // axis, taken in this order: R = -(H - H_old) / dt + sum over axes of k (g_high - g_low). Each
  // term is asked for where the sum uses it: computed there from a star (the GPU kernels'
  // schedule, and registers, depend on it: computing all six first cost the pairs kernel 4-5% on
  // an H100), or read from terms computed once per face (the CPU rows kernel); the same bits
  // either way.
  template <int Dim, class Term>
  SH_HD real residual_of(real Hc, real H_old, const Term& g) const {
    real R = -(Hc - H_old) * rdt + kx * (g(0, 1) - g(0, 0));
    if constexpr (Dim >= 2) R += ky * (g(1, 1) - g(1, 0));
    if constexpr (Dim >= 3) R += kz * (g(2, 1) - g(2, 0));
    return R;
  }

  template <int Dim>
  SH_HD real residual(real Hc, real H_old, const FaceTerms& g) const {
    return residual_of<Dim>(Hc, H_old, [&](int axis, int high) { return g.at(axis, high); });
  }

  // Clamp = false: every value of the star is known to be positive (face_power).
  template <int Dim, int N = -1, bool Clamp = true>
  SH_HD real residual(const Star& H, real H_old) const {
    const real lo[3] = {H.w, H.s, H.b}, hi[3] = {H.e, H.n, H.t};
    return residual_of<Dim>(H.c, H_old, [&](int axis, int high) {
      return high ? face_term<N, Clamp>(mat, H.c, hi[axis])
                  : face_term<N, Clamp>(mat, lo[axis], H.c);
    });
  }

  // The arguments a and b of pt::optimal_step for a star whose values lie in [lo, hi].
  // By Gershgorin, the Jacobian of R has eigenvalues below 4 sum(1/dx^2) max_f(D_f + |D'(H_f)|
  // |dH_f| / 2) over the faces f of the star: without the D' term, steep fronts of a nonlinear D
  // go unstable. D' = n D / H grows with H, so the bound is D0 hi^(n-1) (hi + n (hi - lo) / 2),
  // and D(hi) = D0 hi^n sets b. Linear (n = 0): D is constant, no D' term, hi and lo unused.
  // In double precision: for the steps single_arguments declines.
  template <int N = -1, bool Clamp = true>  // Clamp = false: lo > 0 is known
  SH_HD void step_arguments(real hi, real lo, real& a, real& b) const {
    if ((N >= 0 ? N : mat.n_int) == 0) {
      a = ka, b = kb;
      return;
    }
    if constexpr (Clamp) {
      hi = hi > 0 ? hi : real(0);
      lo = lo > 0 ? lo : real(0);
    }
    const real half_n = real(0.5) * (N >= 0 ? real(N) : mat.n);
    const real p = mat.power_below<N>(hi);
    a = ka * p * (hi + half_n * (hi - lo)), b = kb * p * hi;
  }

  // The same a and b in single precision from the single bounds (star_bounds_single), where n is
  // a whole number; whether they hold (single_holds): not where hi reaches kSingleBoundLimit (a is
  // then infinite), a reaches pt::kFloatSafe or n is fractional (then the double arguments hold).
  // A linear material's a and b are ka and kb rounded: the bits of step_arguments' through
  // pt::float_step. Straight-line code: the kernels branch once, on the result.
  template <int N = -1, bool Clamp = true>
  SH_HD bool single_arguments(float hi, float lo, float& a, float& b) const {
    using namespace exact;
    const int m = N >= 0 ? N : mat.n_int;
    if (m == 0) {
      a = ka_single, b = kb_single;
      return single_holds(a);
    }
    if (m < 0) return a = INFINITY, b = 0, false;  // fractional: the double arguments
    if constexpr (Clamp) {
      hi = hi > 0 ? hi : 0.0f;
      lo = lo > 0 ? lo : 0.0f;
    }
    const float half_n = 0.5f * static_cast<float>(m);
    const float p = int_power(hi, m - 1);
    a = mul(mul(ka_single, p), add(hi, mul(half_n, add(hi, -lo))));
    b = mul(mul(kb_single, p), hi);
    a = hi < kSingleBoundLimit ? a : INFINITY;
    return single_holds(a);
  }

  // Whether single arguments a (single_arguments) hold: a below kFloatSafe. On the host compared
  // in double (the same answer: no float lies between the two), a mask of the width of the row
  // loops' doubles: with a float one GCC does not vectorise them.
  SH_HD static bool single_holds(float a) {
#if defined(__CUDA_ARCH__)
    return a < pt::kFloatSafeSingle;
#else
    return static_cast<real>(a) < pt::kFloatSafe;
#endif
  }

  // The single bounds of a star (0 where n = 0: unused). FloatCopies: from float copies of the
  // star's values (star_bounds_of_floats), the same bits.
  template <int Dim, int N = -1, bool FloatCopies = false>
  SH_HD void bounds(const Star& H, float& hi, float& lo) const {
    hi = lo = 0;
    if ((N >= 0 ? N : mat.n_int) == 0) return;
    if constexpr (FloatCopies)
      star_bounds_of_floats<Dim>(H, hi, lo);
    else
      star_bounds_single<Dim>(H, hi, lo);
  }

  // Local optimal pseudo-step.
  template <int Dim, int N = -1>
  SH_HD pt::Step step(const Star& H) const {
    float hi, lo;
    bounds<Dim, N>(H, hi, lo);
    return step_of<Dim, N>(H, hi, lo);
  }

  // The step of star H whose single bounds (bounds()) are hi and lo: from the single precision
  // arguments where they hold, else from the double ones (double_step).
  template <int Dim, int N = -1, bool Clamp = true>
  SH_HD pt::Step step_of(const Star& H, float hi, float lo) const {
    if ((N >= 0 ? N : mat.n_int) < 0) return double_step<Dim, N, Clamp>(H);  // n fractional
    float a, b;
    const bool single = single_arguments<N, Clamp>(hi, lo, a, b);
    const pt::Step s = pt::float_safe_step(pt::single_step(a, b, cfl), dt);
    return single ? s : double_step<Dim, N, Clamp>(H);
  }

  // The step from the double arguments: for a fractional exponent, and where single_arguments
  // declines (bounds beyond float's range, a beyond kFloatSafe).
  template <int Dim, int N = -1, bool Clamp = true>
  SH_HD pt::Step double_step(const Star& H) const {
    real a, b;
    double_arguments<Dim, N, Clamp>(H, a, b);
    return pt::optimal_step(a, b, dt, cfl);
  }
  // double_step's arguments: step_arguments from the double bounds of star H.
  template <int Dim, int N = -1, bool Clamp = true>
  SH_HD void double_arguments(const Star& H, real& a, real& b) const {
    real hi = 0, lo = 0;
    if ((N >= 0 ? N : mat.n_int) != 0) star_bounds<Dim>(H, hi, lo);
    step_arguments<N, Clamp>(hi, lo, a, b);
  }
};

// One fused PT iteration (the generic, reference kernel): residual, local optimal pseudo-step,
// damped update into H_new. N: the exponent when compiled in (the CPU's path: without a call to
// pow the row loop vectorises), else < 0; the same bits either way.
template <int Dim, int N = -1>
struct Iteration {
  Coefficients co;
  View H, H_old, H_new, dHdtau;

  // All fields share one layout: one offset addresses the cell in each.
  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = H.offset(i, j, k);
    const Star h = gather<Dim>(H, o);
    const real R = co.residual<Dim, N>(h, H_old.p[o]);
    H_new.p[o] = pt::advance(h.c, R, dHdtau.p[o], co.step<Dim, N>(h));
  }
};

// The same iteration, two cells along x per thread (i = 2 ip, 2 ip + 1), with 16-byte loads and
// stores: half the memory instructions and twice the bytes in flight per thread. Needs an even
// n_x. Arithmetic identical to Iteration<Dim>.
template <int Dim, int N = -1>  // N: the exponent, when known at compile time
struct PairIteration {
  static constexpr int kThreads = 128;  // 32 x 4 blocks: more bytes in flight than 256
  Coefficients co;
  View H, H_old, H_new, dHdtau;
  // The face ghosts of H_new this kernel sets (none by default: fill_ghosts sets them after it).
  FaceGhosts ghosts;

  SH_HD void operator()(int ip, int j, int k) const {
    const std::ptrdiff_t o = H.offset(2 * ip, j, k);
    const int sy = static_cast<int>(H.sy), sz = static_cast<int>(H.sz);
    const real* c = H.p + o;
    const Pair x = load2(c);
    Pair s{0, 0}, n{0, 0}, b{0, 0}, t{0, 0};
    if constexpr (Dim >= 2) s = load2(c - sy), n = load2(c + sy);
    if constexpr (Dim >= 3) b = load2(c - sz), t = load2(c + sz);
    const Star h0{x.a, c[-1], x.b, s.a, n.a, b.a, t.a};
    const Star h1{x.b, x.a, c[2], s.b, n.b, b.b, t.b};
    const Pair old = load2(H_old.p + o);
    Pair v = load2(dHdtau.p + o);
    float hi0, lo0, hi1, lo1;
    co.bounds<Dim, N, true>(h0, hi0, lo0);
    co.bounds<Dim, N, true>(h1, hi1, lo1);
    // Where both stars are positive (lo > 0: float rounding keeps the sign) every face sum is,
    // and the clamps of D and of the bounds are identities: skipped, the same bits.
    auto update = [&](auto clamp) {
      constexpr bool C = decltype(clamp)::value;
      return Pair{pt::advance(h0.c, co.residual<Dim, N, C>(h0, old.a), v.a,
                              co.step_of<Dim, N, C>(h0, hi0, lo0)),
                  pt::advance(h1.c, co.residual<Dim, N, C>(h1, old.b), v.b,
                              co.step_of<Dim, N, C>(h1, hi1, lo1))};
    };
    const Pair out = lo0 > 0 && lo1 > 0 ? update(std::false_type{}) : update(std::true_type{});
    store2(H_new.p + o, out);
    store2(dHdtau.p + o, v);
    ghosts.visit<Dim>(2 * ip, 2 * ip + 1, j, k, o, H.sy, H.sz, out, out.a, out.b,
                      SetGhost{H_new.p});
  }
};

// The same iteration for 3-D grids on the GPU, marching along z: each thread keeps H at k-1 and k
// in registers and loads only the new plane's values.
// Arithmetic identical to Iteration<3, N>.
template <int N = -1>
struct MarchingIteration {
  Coefficients co;
  View H, H_old, H_new, dHdtau;

  struct State {
    real b, c;  // H at k-1 and k
  };
  SH_HD State start(int i, int j, int k) const { return {H(i, j, k - 1), H(i, j, k)}; }
  SH_HD void operator()(State& q, int i, int j, int k) const {
    const std::ptrdiff_t o = H.offset(i, j, k);
    const real* c = H.p + o;
    const int sy = static_cast<int>(H.sy), sz = static_cast<int>(H.sz);
    const Star h{q.c, c[-1], c[1], c[-sy], c[sy], q.b, c[sz]};
    const real R = co.residual<3, N>(h, H_old.p[o]);
    H_new.p[o] = pt::advance(h.c, R, dHdtau.p[o], co.step<3, N>(h));
    q = {h.c, h.t};
  }
};

// The coefficients of a material on a grid of `dims` active axes with the given spacings, for
// implicit steps dt; slowest = sum over axes of (pi/L)^2.
inline Coefficients coefficients_for(const Material& m, real dt, const double (&spacing)[3],
                                     int dims, real slowest, float cfl) {
  const real half_power = m.n_int >= 0 ? int_power(real(0.5), m.n_int) : std::pow(real(0.5), m.n);
  real k[3], sum_rdx2 = 0;
  for (int a = 0; a < 3; ++a) {
    const real rdx2 = 1 / (spacing[a] * spacing[a]);
    k[a] = m.D0 * half_power * rdx2;
    if (a < dims) sum_rdx2 += rdx2;
  }
  const real ka = m.D0 * dt * sum_rdx2, kb = m.D0 * dt * slowest;
  const float ka_single = pt::single_argument(ka), kb_single = pt::single_argument(kb);
  return {m, dt, 1 / dt, k[0], k[1], k[2], ka, kb, cfl, ka_single, kb_single};
}

template <int Dim>
struct AbsResidual {
  Coefficients co;
  View H, H_old;
  SH_HD real operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = H.offset(i, j, k);
    return fabs(co.residual<Dim>(gather<Dim>(H, o), H_old.p[o]));
  }
};

}  // namespace staghorn::diffusion

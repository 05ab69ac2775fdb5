#pragma once
// A manufactured solution of one implicit step of the coupled hydromech variant
// (docs/models/hydromech.md, "Coupled variant"): smooth periodic fields v_s, p, pf and the
// porosity phi_old at the start of the step, and the analytic sources that make them the exact
// solution of the continuous equations of the step,
//   F_v   = -(div tau - grad p + (phi - phi_ref) B e_up)      tau = 2 mu (eps - div v / 3 I)
//   F_s   = div v + E                                         E = (A - phi) / dt
//   F_f   = div q - E                                         q = -k(phi) (grad pf - b e_up)
// (tau = 2 eta_ve (eps - div v / 3 I) + eta_ve / (G dt) tau_old for a Maxwell matrix of shear
// modulus G > 0, 1/eta_ve = 1/mu + 1/(G dt)) with phi = A exp(-dt Pe w(Pe) s / (eta0 phi0))
// (m = 1), Pe = p - pf, k = k0 (phi/phi0)^3, w the smoothed decompaction weakening. In the
// small-porosity limit A = phi_old, s = 1, b = B; in the two-phase system A = phi_old - dt
// div(phi_old v0) carries the porosity by the step's starting velocity v0, s = 1 / ((1 - A) S)
// and b = (1 - phi_ref) B. mu = mu0 exp(-alpha (phi - phi0)) (eps_II / eps_ref)^(1/n - 1), and
// S = (eps_II / eps_ref)^(1/n - 1) where the bulk viscosity follows the power law (else 1).
// Derivatives are exact: the fields are sums of plane waves (differentiated in closed form) and the
// nonlinear laws are evaluated on jets (value and gradient, chain rule), never by differences on
// the grid.
#include <array>
#include <cmath>
#include <vector>

namespace staghorn::test::mms {

// A value and its gradient.
struct Jet {
  double v = 0;
  std::array<double, 3> d{};
};
inline Jet operator+(Jet a, const Jet& b) {
  a.v += b.v;
  for (int i = 0; i < 3; ++i) a.d[i] += b.d[i];
  return a;
}
inline Jet operator*(double s, Jet a) {
  a.v *= s;
  for (double& x : a.d) x *= s;
  return a;
}
inline Jet operator-(const Jet& a, const Jet& b) { return a + (-1.0) * b; }
inline Jet operator+(Jet a, double s) { return a.v += s, a; }
inline Jet operator*(const Jet& a, const Jet& b) {
  Jet c{a.v * b.v, {}};
  for (int i = 0; i < 3; ++i) c.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return c;
}
// f(a) with f'(a.v) = df.
inline Jet chain(const Jet& a, double f, double df) {
  Jet c{f, {}};
  for (int i = 0; i < 3; ++i) c.d[i] = df * a.d[i];
  return c;
}
inline Jet exp(const Jet& a) { return chain(a, std::exp(a.v), std::exp(a.v)); }
inline Jet sqrt(const Jet& a) { return chain(a, std::sqrt(a.v), 0.5 / std::sqrt(a.v)); }
inline Jet pow(const Jet& a, double e) {
  return chain(a, std::pow(a.v, e), e * std::pow(a.v, e - 1));
}
inline Jet reciprocal(const Jet& a) { return chain(a, 1 / a.v, -1 / (a.v * a.v)); }
inline Jet tanh(const Jet& a) {
  const double t = std::tanh(a.v);
  return chain(a, t, 1 - t * t);
}

// a sin(k . x + c).
struct Wave {
  double a;
  std::array<double, 3> k;
  double c;
  double phase(const double x[3]) const { return k[0] * x[0] + k[1] * x[1] + k[2] * x[2] + c; }
  Jet jet(const double x[3]) const {
    Jet j{a * std::sin(phase(x)), {}};
    for (int i = 0; i < 3; ++i) j.d[i] = a * k[i] * std::cos(phase(x));
    return j;
  }
  Wave derivative(int axis) const { return {a * k[axis], k, c + M_PI / 2}; }
};

// a sin(k1 x_ax1 + c1) sin(k2 x_ax2 + c2) as two plane waves (bounded boxes: sines and cosines
// that meet the wall conditions; a cosine is the sine of phase c + pi/2).
inline std::vector<Wave> separable(double a, int ax1, double k1, double c1, int ax2, double k2,
                                   double c2) {
  std::array<double, 3> minus{}, plus{};
  minus[ax1] = plus[ax1] = k1;
  minus[ax2] = -k2;
  plus[ax2] = k2;
  return {{a / 2, minus, c1 - c2 + M_PI / 2}, {-a / 2, plus, c1 + c2 + M_PI / 2}};
}

// A constant plus plane waves.
struct Waves {
  double mean = 0;
  std::vector<Wave> w;
  Waves& operator+=(const std::vector<Wave>& more) {
    w.insert(w.end(), more.begin(), more.end());
    return *this;
  }
  Jet jet(const double x[3]) const {
    Jet j{mean, {}};
    for (const Wave& s : w) j = j + s.jet(x);
    return j;
  }
  double operator()(const double x[3]) const { return jet(x).v; }
  Waves derivative(int axis) const {
    Waves d;
    for (const Wave& s : w) d.w.push_back(s.derivative(axis));
    return d;
  }
};

// Material and step (the model's keys of the same names) and the exact fields.
struct Solution {
  int dims = 2;
  double k0 = 1, n = 3, eta0 = 1, phi0 = 0.1, R = 3, smoothing = 1, B = 1, eta_s = 1;
  double dt = 0.02;
  bool two_phase = false;  // the full system (else its small-porosity limit)
  double alpha = 0, n_power = 1, eps_ref = 1;  // the shear viscosity's law
  bool bulk_follows = false;                   // the bulk viscosity takes the power law's factor
  std::array<Waves, 3> v0;                     // two-phase: the velocity carrying the porosity
  double G = 0;  // shear modulus (0: viscous)
  double phi_ref =
      0.1;  // the model's: phi0 (the key's default), or the mean of phi_old if periodic
  std::array<Waves, 3> v;
  Waves p, pf, phi_old;
  std::array<Waves, 6> tau_old;  // xx, yy, zz, xy, xz, yz: the stresses at the step's start

  // The component of tau_old holding (a, b).
  static int component(int a, int b) {
    if (a == b) return a;
    return a + b == 1 ? 3 : (a + b == 2 ? 4 : 5);
  }
  double eta_ve() const { return G > 0 ? 1 / (1 / eta_s + 1 / (G * dt)) : eta_s; }

  int up() const { return dims - 1; }
  Jet Pe(const double x[3]) const { return p.jet(x) - pf.jet(x); }
  // The porosity at the step's start carried by v0 (two-phase), phi_old - dt div(phi_old v0).
  Jet carried(const double x[3]) const {
    if (!two_phase) return phi_old.jet(x);
    Jet div{};
    for (int a = 0; a < dims; ++a)
      div = div + phi_old.derivative(a).jet(x) * v0[a].jet(x) +
            phi_old.jet(x) * v0[a].derivative(a).jet(x);
    return phi_old.jet(x) - dt * div;
  }
  // The deviatoric strain rate's component (a, b) (a, b < 3; zz in 2-D: plane strain).
  Jet strain(int a, int b, const double x[3]) const {
    Jet e{};
    if (a < dims && b < dims) e = 0.5 * (v[a].derivative(b).jet(x) + v[b].derivative(a).jet(x));
    if (a != b) return e;
    Jet div{};
    for (int c = 0; c < dims; ++c) div = div + v[c].derivative(c).jet(x);
    return e - (1.0 / 3) * div;
  }
  // sqrt(eps_ij eps_ij / 2) of the deviatoric rate (the model's strain_rate_ii).
  Jet strain_ii(const double x[3]) const {
    const int n = dims == 1 ? 1 : 3;
    Jet s{};
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) s = s + strain(a, b, x) * strain(a, b, x);
    return sqrt(0.5 * s);
  }
  // The power law's factor (eps_II / eps_ref)^(1/n - 1).
  Jet power_factor(const double x[3]) const {
    if (n_power == 1) return Jet{1, {}};
    return pow((1 / eps_ref) * strain_ii(x), 1 / n_power - 1);
  }
  // 1 / ((1 - A) S): the compaction scale (1 in the small-porosity limit).
  Jet scale(const double x[3]) const {
    Jet d{1, {}};
    if (two_phase) d = d - carried(x);
    if (bulk_follows) d = d * power_factor(x);
    return reciprocal(d);
  }
  // The shear viscosity of the step (the viscous part before the Maxwell combination).
  Jet mu(const double x[3]) const {
    Jet m{eta_s, {}};
    if (alpha != 0) m = m * exp((-alpha) * (phi(x) + (-phi0)));
    return m * power_factor(x);
  }
  bool varying_viscosity() const { return alpha != 0 || n_power != 1; }
  // What drives the Darcy flux up: (1 - phi_ref) B in the two-phase system, else B.
  double drive() const { return two_phase ? (1 - phi_ref) * B : B; }
  // 1 / (1 - (1 - 1/R) (1 - tanh(Pe / smoothing)) / 2): the viscosity switched by the tanh.
  Jet weakening(const Jet& Pe) const {
    return reciprocal(0.5 * (1 / R - 1) * ((-1.0) * tanh((1 / smoothing) * Pe) + 1.0) + 1.0);
  }
  // phi(A, Pe): the exact porosity after the step at fixed Pe (m = 1).
  Jet phi(const double x[3]) const {
    const Jet Pe_ = Pe(x);
    return carried(x) * exp((-dt / (eta0 * phi0)) * (Pe_ * weakening(Pe_) * scale(x)));
  }
  Jet compaction(const double x[3]) const { return (1 / dt) * (carried(x) - phi(x)); }
  Jet permeability(const Jet& phi) const {
    const Jet r = (1 / phi0) * phi;
    return k0 * (r * r * r);
  }
  double div_v(const double x[3]) const {
    double d = 0;
    for (int a = 0; a < dims; ++a) d += v[a].derivative(a).jet(x).v;
    return d;
  }
  // sum_b d tau_ab / dx_b = eta_ve (lap v_a + d_a div v) - (2/3) eta_ve d_a div v
  //                        + eta_ve / (G dt) sum_b d tau_old_ab / dx_b
  // (a varying viscosity, viscous: sum_b d (2 mu eps_dev_ab) / dx_b on jets).
  double div_tau(int a, const double x[3]) const {
    if (varying_viscosity()) {
      const Jet m = mu(x);
      double s = 0;
      for (int b = 0; b < dims; ++b) s += (2.0 * (m * strain(a, b, x))).d[b];
      return s;
    }
    double s = 0, grad_div = 0, old = 0;
    for (int b = 0; b < dims; ++b) {
      s += v[a].derivative(b).jet(x).d[b] + v[b].derivative(a).jet(x).d[b];
      grad_div += v[b].derivative(b).jet(x).d[a];
      old += tau_old[component(a, b)].jet(x).d[b];
    }
    const double eta = eta_ve(), memory = G > 0 ? eta / (G * dt) : 0;
    return eta * s - 2.0 / 3 * eta * grad_div + memory * old;
  }
  double div_q(const double x[3]) const {
    const Jet k = permeability(phi(x));
    double d = 0;
    for (int a = 0; a < dims; ++a) {
      const Jet q = (-1.0) * (k * (pf.derivative(a).jet(x) + (a == up() ? -drive() : 0.0)));
      d += q.d[a];
    }
    return d;
  }

  // The source of `equation` (0..2 momentum, 3 solid mass, 4 fluid mass) at x.
  double source(int equation, const double x[3]) const {
    if (equation < 3) {
      const int a = equation;
      const double buoyancy = a == up() ? (phi(x).v - phi_ref) * B : 0;
      return -(div_tau(a, x) - p.jet(x).d[a] + buoyancy);
    }
    const double C = compaction(x).v;
    return equation == 3 ? div_v(x) + C : div_q(x) - C;
  }
};

}  // namespace staghorn::test::mms

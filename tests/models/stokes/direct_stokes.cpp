// Assembly and sparse LU solve of the Stokes model's 2-D discrete equations (direct_stokes.hpp).
// Host-only test support (Eigen), compiled by the host compiler in every build.
#include "direct_stokes.hpp"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace staghorn::test {
namespace {

// An affine combination of unknowns: sum c_k u_k + constant. A ghost or wall value is one.
struct Lin {
  std::vector<std::pair<int, double>> terms;
  double constant = 0;
  static Lin unknown(int k) { return {{{k, 1.0}}, 0}; }
  static Lin value(double v) { return {{}, v}; }
  // s * this + shift: how a ghost follows from the point it mirrors.
  Lin scaled(double s, double shift) const {
    Lin out{terms, s * constant + shift};
    for (auto& t : out.terms) t.second *= s;
    return out;
  }
};

int wrap(int i, int n) { return ((i % n) + n) % n; }

}  // namespace

struct DirectStokes2D::Impl {
  Problem p;
  int nvx_x, nvx0, nvy_y, nvy0;  // unknown Vx faces along x and the first; the same for Vy along y
  int n_vx, n_vy, n_p, n;        // unknown counts; n includes the multiplier
  Eigen::SparseMatrix<double> A;
  Eigen::VectorXd b;
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;

  explicit Impl(Problem q) : p(std::move(q)) {
    // On a bounded axis the faces on the walls (0 and n) are not unknowns.
    nvx0 = p.periodic[0] ? 0 : 1;
    nvx_x = p.periodic[0] ? p.nx : p.nx - 1;
    nvy0 = p.periodic[1] ? 0 : 1;
    nvy_y = p.periodic[1] ? p.ny : p.ny - 1;
    n_vx = nvx_x * p.ny;
    n_vy = p.nx * nvy_y;
    n_p = p.nx * p.ny;
    n = n_vx + n_vy + n_p + 1;
    for (int s = 0; s < 4; ++s)
      if (!p.periodic[s / 2] && p.walls[s] == stokes::Wall::prescribed)
        throw std::invalid_argument("DirectStokes2D: prescribed walls are not supported");
  }

  int ux(int i, int j) const { return (i - nvx0) + nvx_x * j; }
  int uy(int i, int j) const { return n_vx + i + p.nx * (j - nvy0); }
  int up(int i, int j) const { return n_vx + n_vy + wrap(i, p.nx) + p.nx * wrap(j, p.ny); }
  int lambda() const { return n - 1; }

  // Vx at face (i, j), ghosts included. Ghosts along y (Vx is cell-centred there) mirror the row
  // inside: as-is on a free-slip wall, with a sign change on a no-slip one (zero on the wall).
  // They are resolved last, as fill_ghosts fills the y sides after the x sides.
  Lin vx(int i, int j) const {
    if (!p.periodic[1] && (j < 0 || j >= p.ny)) {
      const int side = j < 0 ? 2 : 3, m = j < 0 ? -1 - j : 2 * p.ny - 1 - j;
      return vx(i, m).scaled(p.walls[side] == stokes::Wall::no_slip ? -1 : 1, 0);
    }
    j = wrap(j, p.ny);
    if (p.periodic[0]) return Lin::unknown(ux(wrap(i, p.nx), j));
    // Along x Vx is staggered: the wall face holds the normal velocity, a ghost beyond it the
    // value that makes the wall the midpoint (2 v_wall - inside).
    if (i == 0) return Lin::value(p.normal[0]);
    if (i == p.nx) return Lin::value(p.normal[1]);
    if (i < 0) return vx(-i, j).scaled(-1, 2 * p.normal[0]);
    if (i > p.nx) return vx(2 * p.nx - i, j).scaled(-1, 2 * p.normal[1]);
    return Lin::unknown(ux(i, j));
  }
  // Vy at face (i, j): the same with the axes exchanged (the x sides come first).
  Lin vy(int i, int j) const {
    if (!p.periodic[1] && (j <= 0 || j >= p.ny)) {
      if (j == 0) return Lin::value(p.normal[2]);
      if (j == p.ny) return Lin::value(p.normal[3]);
      if (j < 0) return vy(i, -j).scaled(-1, 2 * p.normal[2]);
      return vy(i, 2 * p.ny - j).scaled(-1, 2 * p.normal[3]);
    }
    if (!p.periodic[0] && (i < 0 || i >= p.nx)) {
      const int side = i < 0 ? 0 : 1, m = i < 0 ? -1 - i : 2 * p.nx - 1 - i;
      return vy(m, j).scaled(p.walls[side] == stokes::Wall::no_slip ? -1 : 1, 0);
    }
    return Lin::unknown(uy(wrap(i, p.nx), wrap(j, p.ny)));
  }
  // Cell values with zero-gradient ghosts (mirrored) on bounded axes, wrapped on periodic ones.
  double cell(const std::vector<double>& f, int i, int j) const {
    if (p.periodic[0]) i = wrap(i, p.nx);
    if (p.periodic[1]) j = wrap(j, p.ny);
    if (i < 0) i = -1 - i;
    if (i >= p.nx) i = 2 * p.nx - 1 - i;
    if (j < 0) j = -1 - j;
    if (j >= p.ny) j = 2 * p.ny - 1 - j;
    return f[i + p.nx * j];
  }
  // The viscosity on the edge (i, j), at the corner of cells i - 1, i and j - 1, j.
  double mu_edge(int i, int j) const {
    const double m[4] = {cell(p.mu, i, j), cell(p.mu, i - 1, j), cell(p.mu, i, j - 1),
                         cell(p.mu, i - 1, j - 1)};
    if (p.harmonic) return 4 / (1 / m[0] + 1 / m[1] + 1 / m[2] + 1 / m[3]);
    return (m[0] + m[1] + m[2] + m[3]) / 4;
  }

  // One row: terms (duplicates summed by setFromTriplets) and the constant moved to b.
  struct Row {
    std::vector<std::pair<int, double>> terms;
    double constant = 0;
    void add(const Lin& l, double s) {
      for (const auto& t : l.terms) terms.push_back({t.first, s * t.second});
      constant += s * l.constant;
    }
  };
  // s * (tau_xx - P) at cell (i, j): tau_xx = 2 mu ((2/3) dVx/dx - (1/3) dVy/dy).
  void add_sxx(Row& r, int i, int j, double s) const {
    const double m = 2 * cell(p.mu, i, j);
    r.add(vx(i + 1, j), s * m * 2 / (3 * p.dx));
    r.add(vx(i, j), -s * m * 2 / (3 * p.dx));
    r.add(vy(i, j + 1), -s * m / (3 * p.dy));
    r.add(vy(i, j), s * m / (3 * p.dy));
    r.terms.push_back({up(i, j), -s});
  }
  void add_syy(Row& r, int i, int j, double s) const {
    const double m = 2 * cell(p.mu, i, j);
    r.add(vy(i, j + 1), s * m * 2 / (3 * p.dy));
    r.add(vy(i, j), -s * m * 2 / (3 * p.dy));
    r.add(vx(i + 1, j), -s * m / (3 * p.dx));
    r.add(vx(i, j), s * m / (3 * p.dx));
    r.terms.push_back({up(i, j), -s});
  }
  // s * tau_xy on edge (i, j) = s * 2 mu_xy (dVx/dy + dVy/dx) / 2.
  void add_txy(Row& r, int i, int j, double s) const {
    const double m = mu_edge(i, j);
    r.add(vx(i, j), s * m / p.dy);
    r.add(vx(i, j - 1), -s * m / p.dy);
    r.add(vy(i, j), s * m / p.dx);
    r.add(vy(i - 1, j), -s * m / p.dx);
  }

  void assemble() {
    std::vector<Eigen::Triplet<double>> t;
    b = Eigen::VectorXd::Zero(n);
    auto put = [&](int row, const Row& r) {
      for (const auto& e : r.terms) t.emplace_back(row, e.first, e.second);
      b[row] = -r.constant;
    };
    const double sm = p.momentum_scale, sc = p.continuity_scale;
    for (int j = 0; j < p.ny; ++j)
      for (int i = nvx0; i < nvx0 + nvx_x; ++i) {
        Row r;
        add_sxx(r, i, j, sm / p.dx);
        add_sxx(r, i - 1, j, -sm / p.dx);
        add_txy(r, i, j + 1, sm / p.dy);
        add_txy(r, i, j, -sm / p.dy);
        r.constant += sm * p.g[0] * 0.5 * (cell(p.rho, i - 1, j) + cell(p.rho, i, j));
        put(ux(i, j), r);
      }
    for (int j = nvy0; j < nvy0 + nvy_y; ++j)
      for (int i = 0; i < p.nx; ++i) {
        Row r;
        add_syy(r, i, j, sm / p.dy);
        add_syy(r, i, j - 1, -sm / p.dy);
        add_txy(r, i + 1, j, sm / p.dx);
        add_txy(r, i, j, -sm / p.dx);
        r.constant += sm * p.g[1] * 0.5 * (cell(p.rho, i, j - 1) + cell(p.rho, i, j));
        put(uy(i, j), r);
      }
    for (int j = 0; j < p.ny; ++j)
      for (int i = 0; i < p.nx; ++i) {
        Row r;
        r.add(vx(i + 1, j), sc / p.dx);
        r.add(vx(i, j), -sc / p.dx);
        r.add(vy(i, j + 1), sc / p.dy);
        r.add(vy(i, j), -sc / p.dy);
        // The multiplier of the mean-pressure constraint: zero at the solution, since the
        // divergences of the prescribed wall velocities sum to zero.
        r.terms.push_back({lambda(), 1.0});
        put(up(i, j), r);
      }
    Row mean;
    for (int k = 0; k < n_p; ++k) mean.terms.push_back({n_vx + n_vy + k, 1.0 / n_p});
    put(lambda(), mean);
    A.resize(n, n);
    A.setFromTriplets(t.begin(), t.end());
    A.makeCompressed();
    lu.analyzePattern(A);
    lu.factorize(A);
    if (lu.info() != Eigen::Success)
      throw std::runtime_error("DirectStokes2D: SparseLU failed: " + lu.lastErrorMessage());
  }

  // Unknowns of a state (the multiplier 0; P as given).
  Eigen::VectorXd pack(const State& s) const {
    Eigen::VectorXd u = Eigen::VectorXd::Zero(n);
    for (int j = 0; j < p.ny; ++j)
      for (int i = nvx0; i < nvx0 + nvx_x; ++i) u[ux(i, j)] = s.vx[i + (p.nx + 1) * j];
    for (int j = nvy0; j < nvy0 + nvy_y; ++j)
      for (int i = 0; i < p.nx; ++i) u[uy(i, j)] = s.vy[i + p.nx * j];
    for (int k = 0; k < n_p; ++k) u[n_vx + n_vy + k] = s.p[k];
    return u;
  }
  double eval(const Lin& l, const Eigen::VectorXd& u) const {
    double v = l.constant;
    for (const auto& t : l.terms) v += t.second * u[t.first];
    return v;
  }
  State unpack(const Eigen::VectorXd& u) const {
    State s;
    s.vx.resize((p.nx + 1) * p.ny);
    s.vy.resize(p.nx * (p.ny + 1));
    s.p.resize(n_p);
    for (int j = 0; j < p.ny; ++j)
      for (int i = 0; i <= p.nx; ++i) s.vx[i + (p.nx + 1) * j] = eval(vx(i, j), u);
    for (int j = 0; j <= p.ny; ++j)
      for (int i = 0; i < p.nx; ++i) s.vy[i + p.nx * j] = eval(vy(i, j), u);
    for (int k = 0; k < n_p; ++k) s.p[k] = u[n_vx + n_vy + k];
    return s;
  }

  // Hager's estimate of the infinity norm of the rows [first, last) of A^-1: the 1-norm of its
  // transpose C = A^-T E^T, from products with C (solves with A^T) and C^T (solves with A).
  double hager(int first, int last) {
    const int m = last - first;
    Eigen::VectorXd x = Eigen::VectorXd::Constant(m, 1.0 / m);
    double estimate = 0;
    for (int iter = 0; iter < 5; ++iter) {
      Eigen::VectorXd ex = Eigen::VectorXd::Zero(n);
      ex.segment(first, m) = x;
      const Eigen::VectorXd y = lu.transpose().solve(ex);
      estimate = y.lpNorm<1>();
      const Eigen::VectorXd xi = y.unaryExpr([](double v) { return v >= 0 ? 1.0 : -1.0; });
      const Eigen::VectorXd z = lu.solve(xi).segment(first, m);
      Eigen::Index jmax;
      const double zmax = z.cwiseAbs().maxCoeff(&jmax);
      if (zmax <= z.dot(x)) break;
      x.setZero();
      x[jmax] = 1;
    }
    return estimate;
  }
};

DirectStokes2D::DirectStokes2D(Problem p) : impl_(std::make_unique<Impl>(std::move(p))) {
  impl_->assemble();
  const Eigen::VectorXd u = impl_->lu.solve(impl_->b);
  solution_ = impl_->unpack(u);
  kappa_v_ = impl_->hager(0, impl_->n_vx + impl_->n_vy);
  kappa_p_ = impl_->hager(impl_->n_vx + impl_->n_vy, impl_->n - 1);
}

DirectStokes2D::~DirectStokes2D() = default;

int DirectStokes2D::unknowns() const { return impl_->n; }

std::array<double, 3> DirectStokes2D::residuals(const State& s) const {
  const Impl& m = *impl_;
  const Eigen::VectorXd r = m.A * m.pack(s) - m.b;
  return {r.segment(0, m.n_vx).cwiseAbs().maxCoeff(),
          r.segment(m.n_vx, m.n_vy).cwiseAbs().maxCoeff(),
          r.segment(m.n_vx + m.n_vy, m.n_p).cwiseAbs().maxCoeff()};
}

}  // namespace staghorn::test

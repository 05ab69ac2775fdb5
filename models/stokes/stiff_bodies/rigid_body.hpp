#pragma once
// Rigid-mode correction of the stiff bodies (docs/models/stiff-bodies.md).
//
// The pseudo-steps of the PT iterations come from the largest viscosity around each point, so a
// body mu_i / mu_m times stiffer than its matrix has a pseudo-inertia mu_i / mu_m times the
// matrix's. Its deformation is stiff too, and relaxes at the matrix's pace; its rigid motion
// (translation, rotation) is resisted only by the soft matrix around it, and relaxes mu_i / mu_m
// times slower than anything else. After each iteration this class takes the momentum residual on
// each body's faces (the velocity change times the face's pseudo-inertia), i.e. the net force and
// torque on the body, and moves the body rigidly with the pseudo-inertia of its rim alone (the
// faces between it and the rest, each at its own stable pseudo-step): the rigid motion x with
// I x = sum over the body of phi (rho~ dV), I the rim's pseudo-inertia tensor. Only the rim
// resists a rigid motion, so the body's rigid modes then relax at the rate of its surroundings;
// its deformation keeps the stable local pseudo-steps, and the fixed point is unchanged (the
// correction vanishes with R). The model takes that sum from the body's surface: the stress
// differences of R cancel inside it, so the net force and torque are the stresses at its surface
// plus its buoyancy (rigid_terms.hpp, ForceTerms), a pass over the cells at the surface instead of
// every face (docs/models/stokes.md, "The force from the surface").
// The sums are exact (every term rounded to a power-of-two quantum per body that no partial sum
// outgrows), so any rank count, reduction order and backend gives the same bits. All bodies share
// each pass (reduce_segments.hpp): per iteration one pass for the sums and one for the shift,
// however many bodies there are. The quanta of a pass come from the scale the pass before left
// (the sum of its terms' magnitudes), and the pass counts its own terms' magnitudes in those
// quanta: where that count shows a partial sum that might not have been exact (the terms grew
// some 8 times over in one iteration), the body is not moved that time, only rescaled. The first
// correction takes its quanta from a pass of its terms' bounds. A run on one rank keeps the sums on
// the backend (no copy, no wait), and the block that finishes the sums' pass fits each body's
// motion and its next scale; on several ranks, they go through the host to be combined over the
// ranks, and the host fits them. Either way the fit is the same arithmetic on the same exact
// sums, so both give the same bits.

#include <array>
#include <optional>
#include <vector>

#include "core/backend.hpp"
#include "models/stokes/stiff_bodies/cell_list.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "core/memory.hpp"
#include "models/stokes/stiff_bodies/body_labels.hpp"
#include "models/stokes/stiff_bodies/rigid_terms.hpp"
#include "models/stokes/stiff_bodies/wall_ghosts.hpp"

namespace staghorn::stokes {

// Rigid motion: a translation U and an angular velocity w about the centre.
struct RigidMotion {
  real U[3] = {0, 0, 0}, w[3] = {0, 0, 0};
};

// A body to correct: its cells' label and box, and the rigid modes it may take (bit k:
// translation along k < 3, rotation about k - 3; those the walls it touches allow).
struct CorrectedBody {
  StiffBody body;
  unsigned modes = 63;
};

using ModeMatrix = std::array<std::array<double, 6>, 6>;

// What turns a body's six mode sums s into its motion x = M s (U = x[0..2], w = x[3..5]): the
// inverse of its mode matrix over its active modes, zero in the rows and columns of the others,
// times the mobility for the correction. Precomputed: fitting a body is then a mat-vec, the same
// on the host and on the backend.
struct ModeFit {
  double m[6][6] = {};
};

// The buoyancy on the bodies' faces: the density per cell and gravity (none without rho).
struct Buoyancy {
  const Field* rho = nullptr;
  std::array<real, 3> g{0, 0, 0};
};

class RigidBodies {
 public:
  // Where correct() combines its sums: automatic, on the backend if the run has one rank, else
  // through the host over the ranks; host, through the host whatever the rank count (for tests).
  enum class Path { automatic, host };

  RigidBodies() = default;  // no body
  // The bodies of the labels in `label` (ascending id), each corrected along its modes with
  // `mobility` times the pseudo-step of its rim.
  RigidBodies(const Decomposition& dec, Exec ex, const Field& label,
              const std::vector<CorrectedBody>& bodies, const Field& mu_max, real mobility,
              Buoyancy buoyancy = {}, Path path = Path::automatic);

  std::size_t size() const { return bodies_.size(); }
  bool empty() const { return bodies_.empty(); }
  // The records the corrections visit on this block: a body's faces among a cell's low faces.
  long long face_records() const { return records_.size(); }
  // Whether a correction may move a face near the edges of any rank's block (its halos, the
  // walls): only then must the caller exchange the halos and set the walls again after it (on every
  // rank: the exchange is collective).
  bool near_block_edge() const { return near_edge_; }
  // The sides of this block whose walls a correction may reach (bit 2 a: low along axis a, 2 a + 1:
  // high): only those need their ghosts set again.
  unsigned edge_sides() const { return edge_sides_; }
  // Per side of edge_sides(): the points (ghosts included) within h + 1 of a face near that side
  // that a correction may move; the side's walls need setting again only there.
  const Region& reach(int side) const { return reach_.at(side); }
  // Takes the faces' pseudo-step viscosity from mu_max again (after it changed: a power law).
  void update_pseudo();
  const StiffBody& body(std::size_t b) const { return bodies_.at(b).stiff; }
  // The bodies as given to the constructor, and their mobility.
  std::vector<CorrectedBody> corrected() const;
  real mobility() const { return mobility_; }
  const Buoyancy& buoyancy() const { return buoyancy_; }
  // The records of the surface form: a body's surface among a cell's stresses.
  long long surface_records() const { return shells_.size(); }
  // Whether correct() keeps its sums on the backend (no copy, no wait), or takes them through the
  // host.
  bool resident() const { return resident_; }
  // The point body b's rotations turn about (the centre of its box).
  std::array<real, 3> centre(std::size_t b) const { return bodies_.at(b).centre; }
  // Body b's modes' Gram matrix (sum over its faces of phi_k . phi_l) and pseudo-inertia (over
  // vdt: sum over its rim of pseudo phi_k . phi_l).
  const ModeMatrix& gram(std::size_t b) const { return bodies_.at(b).gram; }
  const ModeMatrix& inertia(std::size_t b) const { return bodies_.at(b).inertia; }

  // Adds each body's correction, the rigid motion of the weighted change V - V_old on its faces,
  // to its faces this block owns (the caller exchanges the halos: a face in the outermost halo
  // layer could not tell whether the cell behind it is in the body). Every correction from the
  // same change first, then all added.
  void correct(std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const;
  // The same correction from the stresses of the iteration that made the change (its new P and
  // tau): the net force and torque from the body's surface (rigid_terms.hpp, ForceTerms) and its
  // buoyancy, which the change's sums equal up to rounding. What the model runs: its pass visits
  // the cells at the bodies' surfaces, not every face of theirs.
  // With the walls of the block: returns whether the ghosts the correction may change are set
  // (on one rank whose sides within its reach are all walls, the shift stores the walls' ghosts of
  // the faces it moves; where it returns false the caller exchanges the halos and sets the walls
  // within reach, as after correct(V, V_old)).
  // The sums and their fit go on the inner lane; the shift waits for what was queued on
  // `shift_after` too (the caller's work that must precede it may run beside the sums).
  bool correct(std::array<Field, 3>& V, const BodyStresses& stresses, const WallGhosts& walls,
               Lane shift_after = Lane::inner) const;

  // Per body, on the host (for tests): the least-squares rigid motion of V - V_old on its faces
  // (unweighted), and that of the weighted change (the correction correct() adds).
  std::vector<RigidMotion> rigid_part(const std::array<Field, 3>& V,
                                      const std::array<Field, 3>& V_old) const;
  std::vector<RigidMotion> correction(const std::array<Field, 3>& V,
                                      const std::array<Field, 3>& V_old) const;
  // Per body, the exact sums over its faces of V - V_old along each mode (weighted by the faces'
  // pseudo-viscosity, or not), on every rank: the right-hand sides of the fits.
  std::vector<std::array<double, 6>> mode_sums(const std::array<Field, 3>& V,
                                               const std::array<Field, 3>& V_old,
                                               bool weighted) const;
  // Per body, vdt (the exact sums of the stresses' surface terms + the buoyancy's): what
  // mode_sums(V, V_old, true) gives for the change those stresses made, up to rounding.
  std::vector<std::array<double, 6>> force_sums(const BodyStresses& stresses) const;

 private:
  struct Body {
    StiffBody stiff;
    unsigned modes = 0;
    BodyAt at;  // labelled 1 + its index in the segment field
    std::array<real, 3> centre{};
    ModeMatrix gram{}, inertia{};
    std::vector<int> active;            // modes with faces and a rim, that the walls allow
    ModeFit rigid_fit, correction_fit;  // of gram, and of inertia times the mobility
  };

  void label_segments(const Field& label);
  // The cells in or beside a body (for the matrices), and the records of their faces (records_).
  CellList list_cells(const Region& boxes);
  // The cells at each body's surface (shells_), from the labels on the host.
  void list_surfaces(const BodyFaces& host, const Region& boxes);
  void set_matrices(const CellList& cells);
  void set_fits();
  ModeTerms change_terms(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const;
  // The six sums per body of t's terms over `list`, exact, with quanta from a pass of their
  // bounds; all ranks', through the host (waits). For the tests; the corrections' scales stay as
  // they are.
  template <class T, class Item>
  std::vector<double> exact_sums(const ItemList<Item>& list, const T& t,
                                 const Buffer<double>& terms) const;
  // The correction's motion of every body, into motions() on the backend, from one pass of t's
  // sums over `list` (terms: per body, the pass's terms per sum, on the host and the backend)
  // whose quanta come from the scales the correction before left (the first from a pass of their
  // bounds); `surface`: t is the surface form, whose sums settle() adds the buoyancy's to and
  // multiplies by vdt. Resident (one rank: its sums are all ranks'): on the backend alone, queued,
  // the motions settled there; else through the host (waits).
  template <class T, class Item>
  void correction_motions(const ItemList<Item>& list, const T& t, const std::vector<double>& terms,
                          const Buffer<double>& terms_on_backend, bool surface, real vdt) const;
  // Adds the bodies' motions to their faces (with `walls`, their walls' ghosts too).
  void shift(std::array<Field, 3>& V, const WallGhosts* walls) const;
  std::vector<RigidMotion> fits(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old,
                                bool weighted) const;
  double* bounds() const { return change_.data(); }
  double* sums() const { return change_.data() + bodies_.size(); }
  double* motions() const { return change_.data() + 9 * bodies_.size(); }

  const Decomposition* dec_ = nullptr;
  Exec ex_;
  std::vector<Body> bodies_;
  real mobility_ = 0;
  bool resident_ = false;
  std::optional<Field> segment_;     // 1 + body index per cell, -1 in a body not corrected, else 0
  BodyFaces faces_{};                // over segment_
  ItemList<BodyCellFaces> records_;  // each body's faces among the low faces of this block's cells
  // The same without their viscosity, for the shift: those far from every side of the block, and
  // those within reach of one (which may move a wall's faces and ghosts).
  ItemList<BodyCell> shift_far_, shift_near_;
  ItemList<ShellCell> shells_;  // the cells at each body's surface, for the surface form
  Buoyancy buoyancy_;
  unsigned edge_sides_ = 0;        // the sides of this block within a record's reach
  std::array<Region, 6> reach_{};  // per side: its records' cells and h + 1 points around
  bool near_edge_ = false;         // edge_sides_ of some rank's block not empty
  // On the backend: each body's BodyAt, the cells of its box (global: terms per sum, which set
  // the quanta) and its correction's fit.
  Buffer<BodyAt> at_;
  Buffer<double> box_cells_;
  std::vector<double> box_cells_host_;
  // Per body, the surface records over all ranks (the terms per sum of the surface form), and
  // its buoyancy's six sums (exact; on the host and the backend).
  Buffer<double> shell_cells_;
  std::vector<double> shell_cells_host_;
  Buffer<double> gravity_;
  std::vector<double> gravity_host_;
  Buffer<ModeFit> correction_fits_;
  // On the backend, rewritten by every correction: each body's bound of its quanta (the largest
  // |term| of the change on a first correction, afterwards the scale the one before it left), then
  // its sums (six, and two counts of its terms' magnitudes: rigid_body.cpp, TermSums), then its
  // motion (U, w).
  mutable Buffer<double> change_;
  mutable bool primed_ = false;         // bounds() holds the scales of a correction before
  mutable std::vector<double> scales_;  // through the host: bounds() as the host keeps them
  // On the backend: the blocks of the sums' pass that finished (the last one fits the motions).
  Buffer<unsigned> passes_done_;
};

}  // namespace staghorn::stokes

#pragma once
// Finite-difference operators on the staggered grid, written so that kernels read like the
// equations (in the spirit of ParallelStencil's @d_xa / @av_xa). Index conventions: a face-x
// value at index i sits between cells i-1 and i.
//   d_xa(A)  at face i   = A(i) - A(i-1)         (difference of cell values onto faces)
//   d_xi(Q)  at cell i   = Q(i+1) - Q(i)         (difference of face values onto the cell)
//   av_xa(A) at face i   = (A(i) + A(i-1)) / 2
// Divide by the spacing at the call site, as in the equations.

#include "core/field.hpp"

namespace staghorn::stencil {

SH_HD inline real d_xa(const View& A, int i, int j, int k) { return A(i, j, k) - A(i - 1, j, k); }
SH_HD inline real d_ya(const View& A, int i, int j, int k) { return A(i, j, k) - A(i, j - 1, k); }
SH_HD inline real d_za(const View& A, int i, int j, int k) { return A(i, j, k) - A(i, j, k - 1); }

SH_HD inline real d_xi(const View& Q, int i, int j, int k) { return Q(i + 1, j, k) - Q(i, j, k); }
SH_HD inline real d_yi(const View& Q, int i, int j, int k) { return Q(i, j + 1, k) - Q(i, j, k); }
SH_HD inline real d_zi(const View& Q, int i, int j, int k) { return Q(i, j, k + 1) - Q(i, j, k); }

SH_HD inline real av_xa(const View& A, int i, int j, int k) {
  return real(0.5) * (A(i, j, k) + A(i - 1, j, k));
}
SH_HD inline real av_ya(const View& A, int i, int j, int k) {
  return real(0.5) * (A(i, j, k) + A(i, j - 1, k));
}
SH_HD inline real av_za(const View& A, int i, int j, int k) {
  return real(0.5) * (A(i, j, k) + A(i, j, k - 1));
}

}  // namespace staghorn::stencil

#pragma once
#include <stdexcept>
#include <string>

namespace staghorn {

// Errors that a user can fix (bad input, impossible request): reported without a stack of context.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run that went numerically wrong (NaN, divergence): the last good snapshot is kept.
class NumericalError : public Error {
 public:
  using Error::Error;
};

// A peer that did not answer within the run's timeout (exchange.timeout_s): it stalled, or died
// without the launcher ending the job. Only the ranks that waited on it know, so the job ends
// through MPI_Abort.
class PeerTimeout : public Error {
 public:
  using Error::Error;
};

}  // namespace staghorn

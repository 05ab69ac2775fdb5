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

}  // namespace staghorn

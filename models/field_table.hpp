#pragma once
// A model's fields, declared once with what each is for, so that the snapshot, restart and
// iteration lists follow from one table instead of being kept in step by hand.

#include <vector>

#include "core/field.hpp"

namespace staghorn {

class FieldTable {
 public:
  // What a field is for (flags, combined with |).
  enum Role : unsigned {
    output = 1u,   // written to snapshots
    state = 2u,    // read back by a restart, exchanged by refresh()
    unknown = 4u,  // solved for: exchanged every iteration, with a buffer for the next iterate
    // The iterations' pseudo-time rate of an unknown (the damped scheme's memory): zero at a step's
    // start and whenever the step goes back to it.
    pseudo_rate = 8u,
  };
  struct Entry {
    Field* field;
    unsigned roles;
    Field* next;   // the next iterate (unknowns), swapped with the field after each iteration
    Field* start;  // the value at the start of a step, restored by a retry; may be null
  };

  // Declares a field; the lists below keep the order of declaration.
  FieldTable& add(Field& field, unsigned roles, Field* next = nullptr, Field* start = nullptr);

  std::vector<Field*> with(Role role) const;
  std::vector<const Field*> const_with(Role role) const;
  // The next-iterate buffers of the unknowns, in the unknowns' order.
  std::vector<Field*> next_unknowns() const;
  const std::vector<Entry>& entries() const { return entries_; }
  // Whether every unknown has a start-of-step copy (and so a step can be taken back to its start).
  bool unknowns_have_starts() const;
  // After an iteration that wrote every unknown's next buffer: they become the iterate.
  void swap_next() const;

 private:
  std::vector<Entry> entries_;
};

}  // namespace staghorn

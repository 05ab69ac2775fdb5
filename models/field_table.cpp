#include "models/field_table.hpp"

#include <stdexcept>

namespace staghorn {

FieldTable& FieldTable::add(Field& field, unsigned roles, Field* next, Field* start) {
  if ((roles & unknown) && next == nullptr)
    throw std::logic_error("FieldTable: the unknown " + field.name() + " needs a next buffer");
  entries_.push_back({&field, roles, next, start});
  return *this;
}

std::vector<Field*> FieldTable::with(Role role) const {
  std::vector<Field*> out;
  for (const Entry& e : entries_)
    if (e.roles & role) out.push_back(e.field);
  return out;
}

std::vector<const Field*> FieldTable::const_with(Role role) const {
  std::vector<const Field*> out;
  for (const Entry& e : entries_)
    if (e.roles & role) out.push_back(e.field);
  return out;
}

std::vector<Field*> FieldTable::next_unknowns() const {
  std::vector<Field*> out;
  for (const Entry& e : entries_)
    if (e.roles & unknown) out.push_back(e.next);
  return out;
}

void FieldTable::swap_next() const {
  for (const Entry& e : entries_)
    if (e.roles & unknown) e.field->swap_data(*e.next);
}

bool FieldTable::unknowns_have_starts() const {
  for (const Entry& e : entries_)
    if ((e.roles & unknown) && !e.start) return false;
  return true;
}

}  // namespace staghorn

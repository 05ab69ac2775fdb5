#include "models/pt_model.hpp"

#include "core/decimal.hpp"
#include "core/field_ops.hpp"

namespace staghorn {

PtModel::PtModel(const ModelContext& ctx, const pt::Options& solver, bool corners)
    : dec_(ctx.dec),
      ex_(ctx.exec),
      layout_(ctx.layout()),
      halo_(ctx.dec, layout_, ctx.exec, corners),
      split_(split_for(halo_, layout_.interior(), ctx.boundary_width())),
      hide_(ctx.hide_communication() && halo_.remote()),
      solver_(solver),
      cfl_(solver.cfl),
      graphs_(solver.graphs && ex_.on_device() && !halo_.remote()) {
  if (!ex_.on_device()) solver_.govern_threads(ex_.thread_governor());
}

StepReport PtModel::advance(real dt) {
  // A solve that fails or is stopped leaves the carried state of the step's start: a restart from
  // the snapshot written then solves this step as the run would have.
  const CarriedState at_start = carried_state();
  pt::SolveReport r;
  try {
    r = solver_.solve(*this, dt);
  } catch (...) {
    set_carried_state(at_start);
    throw;
  }
  end_step();
  last_step_ = {r.iterations, r.residuals};
  return last_step_;
}

void PtModel::abandon_step() {
  to_step_start();
  refresh();
}

// As the factor retries multiplied solver.cfl by (powers of 1/2: exact both ways), so that a
// restart with another solver.cfl applies the same retries to it.
CarriedState PtModel::carried_state() const {
  return {{"pt_cfl_scale", cfl_ / solver_.options().cfl}};
}

void PtModel::set_carried_state(const CarriedState& state) {
  for (const auto& [name, value] : state)
    if (!take_carried(name, value))
      throw io::ConfigError("carries '" + name + "', which this model does not");
}

bool PtModel::take_carried(const std::string& name, double value) {
  if (name != "pt_cfl_scale") return false;
  if (!(value > 0 && value <= 1))
    throw io::ConfigError("carried pt_cfl_scale = " + shortest(value) + " is not within (0, 1]");
  cfl_ = solver_.options().cfl * static_cast<real>(value);
  return true;
}

void PtModel::save_start() {
  for (const FieldTable::Entry& e : fields_.entries()) {
    if (e.start) copy(ex_, *e.start, *e.field);
    if (e.roles & FieldTable::pseudo_rate) fill(ex_, *e.field, 0);
  }
}

void PtModel::restore_start() {
  for (const FieldTable::Entry& e : fields_.entries()) {
    if (e.start) copy(ex_, *e.field, *e.start);
    if (e.roles & FieldTable::pseudo_rate) fill(ex_, *e.field, 0);
  }
}

void PtModel::copy_unknowns_to_next() {
  for (const FieldTable::Entry& e : fields_.entries())
    if (e.roles & FieldTable::unknown) copy(ex_, *e.next, *e.field);
}

}  // namespace staghorn

#include "models/pt_model.hpp"

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
      cfl_(solver.cfl) {}

StepReport PtModel::advance(real dt) {
  const pt::SolveReport r = solver_.solve(*this, dt);
  end_step();
  last_step_ = {r.iterations, r.residuals};
  return last_step_;
}

void PtModel::abandon_step() {
  to_step_start();
  refresh();
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

#include "models/app/diagnostics_files.hpp"

#include <filesystem>

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> csv_columns(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> cols{"step", "time", "iterations", "residual", "seconds"};
  for (const auto& d : diagnostics) cols.push_back(d.first);
  return cols;
}

// diagnostics.nc's columns: the step's cost, then the model's diagnostics with their units.
std::vector<io::SeriesColumn> nc_columns(const Model& model,
                                         const std::vector<Diagnostic>& diagnostics) {
  std::vector<io::SeriesColumn> cols{
      {"iterations", "1", "solver iterations (PT) or RK3 stages of the last time step"},
      {"residual", "1", "largest residual norm at the end of the last time step (PT)"},
      {"seconds", "s", "wall time of the last time step"}};
  const std::vector<io::SeriesColumn> known = model.diagnostic_columns();
  for (const auto& d : diagnostics) {
    io::SeriesColumn c{d.first, "1", ""};
    for (const io::SeriesColumn& k : known)
      if (k.name == d.first) c = k;
    cols.push_back(c);
  }
  return cols;
}

// A step's cost (iterations, residual, seconds) and then the model's diagnostics.
std::vector<double> values(std::vector<double> cost, const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) cost.push_back(d.second);
  return cost;
}

std::vector<double> row(const LoopState& at, const std::vector<double>& values) {
  std::vector<double> r{double(at.step), at.time};
  r.insert(r.end(), values.begin(), values.end());
  return r;
}

}  // namespace

DiagnosticsFiles::DiagnosticsFiles(const std::string& dir, const Model& model,
                                   const std::vector<Diagnostic>& first, const std::string& title,
                                   const io::UnitSystem& units,
                                   std::optional<long long> resume_after)
    : csv_(std::make_unique<io::CsvSeries>((fs::path(dir) / "diagnostics.csv").string(),
                                           csv_columns(first), resume_after)),
      nc_(std::make_unique<io::TimeSeries>((fs::path(dir) / "diagnostics.nc").string(),
                                           nc_columns(model, first), title, resume_after, units)) {}

void DiagnosticsFiles::start(const LoopState& at, const std::vector<Diagnostic>& diagnostics) {
  const std::vector<double> v = values({0, 0, 0}, diagnostics);  // no step taken yet
  if (csv_->fresh()) csv_->row(row(at, v));
  if (nc_->records() == 0) nc_->append(at.step, at.time, v);
}

void DiagnosticsFiles::step(const LoopState& at, const StepReport& report, double seconds,
                            const std::vector<Diagnostic>& diagnostics) {
  const std::vector<double> v =
      values({double(report.iterations), pt::max_norm(report.residuals), seconds}, diagnostics);
  csv_->row(row(at, v));
  nc_->append(at.step, at.time, v);
}

}  // namespace staghorn::app

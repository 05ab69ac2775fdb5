#pragma once
// The run's diagnostics files, kept by rank 0 (the values are already global): diagnostics.csv
// and diagnostics.nc, each with a row at the start and at every output.diagnostics_every-th step,
// where the diagnostics are computed (io/records.hpp, io/time_series.hpp).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/records.hpp"
#include "io/time_series.hpp"
#include "models/app/run.hpp"
#include "models/model.hpp"

namespace staghorn::app {

class DiagnosticsFiles {
 public:
  // Opens both files in `dir`: new ones, or with `resume_after` (a restart in the directory of the
  // run it continues) the existing ones kept up to that step. `first`: the model's diagnostics
  // at the start, which name the columns. Rank 0 only.
  DiagnosticsFiles(const std::string& dir, const Model& model, const std::vector<Diagnostic>& first,
                   const std::string& title, const io::UnitSystem& units,
                   std::optional<long long> resume_after);

  // The start's row and record (no step taken), where the files do not hold them already.
  void start(const LoopState& at, const std::vector<Diagnostic>& diagnostics);
  // A diagnosed step's row and record.
  void step(const LoopState& at, const StepReport& report, double seconds,
            const std::vector<Diagnostic>& diagnostics);

 private:
  std::unique_ptr<io::CsvSeries> csv_;
  std::unique_ptr<io::TimeSeries> nc_;
};

// Runs `write` (diagnostics or metrics on rank 0); a failure becomes OutputWriteError naming
// `last_good` ("the last good snapshot is ...") that ends the job through MPI_Abort when
// `several_ranks` (the others do not know).
template <class F>
void write_or_end(F&& write, const std::string& last_good, bool several_ranks) {
  try {
    write();
  } catch (const OutputWriteError&) {
    throw;
  } catch (const Error& e) {
    throw OutputWriteError(std::string(e.what()) + "; " + last_good, several_ranks);
  }
}

}  // namespace staghorn::app

#pragma once
#include <optional>
#include <string>
#include <vector>

#include "io/schema.hpp"

namespace staghorn::io {

// Appends one compact JSON object as a line (metrics.jsonl), whole or not at all (Error).
void append_json_line(const std::string& path, const json& record);

// A time series of named columns in a CSV file (diagnostics.csv), one row per call. Rows are
// written whole: a write that fails (a full disk, the file-size limit) takes back what it wrote,
// so the file never ends in a partial line.
class CsvSeries {
 public:
  // A new file (replacing one that exists) or, with `resume_after` (a restart in the directory of
  // the run it continues), the existing file's rows up to that step (the first column): later
  // ones are dropped, since the run writes them again; a new file where none exists. The kept
  // rows are copied to a new file that replaces the old one atomically. A header other than
  // `columns`: Error, and the file is left alone.
  CsvSeries(const std::string& path, const std::vector<std::string>& columns,
            std::optional<long long> resume_after);
  ~CsvSeries();
  CsvSeries(const CsvSeries&) = delete;
  CsvSeries& operator=(const CsvSeries&) = delete;

  // Numbers as the shortest decimal that reads back to the same double; Error if the row cannot
  // be written whole (the file as before the call).
  void row(const std::vector<double>& values);
  // Whether this file was started here (its header written by this object).
  bool fresh() const { return fresh_; }

 private:
  std::string path_;
  int fd_ = -1;
  long long size_ = 0;  // bytes of whole lines in the file
  bool fresh_ = false;
};

}  // namespace staghorn::io

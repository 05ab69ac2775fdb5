#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "io/schema.hpp"

namespace staghorn::io {

// Appends one compact JSON object as a line (metrics.jsonl).
void append_json_line(const std::string& path, const json& record);

// A time series of named columns in a CSV file (diagnostics.csv), one row per call.
class CsvSeries {
 public:
  // Starts a new file, or appends to an existing one when `append` (a restarted run).
  CsvSeries(const std::string& path, const std::vector<std::string>& columns, bool append);
  // Numbers as the shortest decimal that reads back to the same double.
  void row(const std::vector<double>& values);
  // Whether this file was started here (its header written by this object).
  bool fresh() const { return fresh_; }

 private:
  std::ofstream out_;
  std::string path_;
  bool fresh_ = false;
};

}  // namespace staghorn::io

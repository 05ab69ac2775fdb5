#include "io/records.hpp"

#include <cstdio>
#include <filesystem>

#include "core/decimal.hpp"
#include "core/error.hpp"

namespace staghorn::io {

void append_json_line(const std::string& path, const json& record) {
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error("cannot append to '" + path + "'");
  out << record.dump() << "\n";
}

CsvSeries::CsvSeries(const std::string& path, const std::vector<std::string>& columns, bool append)
    : path_(path) {
  const bool header = !append || !std::filesystem::exists(path);
  fresh_ = header;
  out_.open(path, append ? std::ios::app : std::ios::trunc);
  if (!out_) throw Error("cannot write '" + path + "'");
  if (header) {
    for (std::size_t c = 0; c < columns.size(); ++c) out_ << (c ? "," : "") << columns[c];
    out_ << "\n";
  }
}

void CsvSeries::row(const std::vector<double>& values) {
  for (std::size_t c = 0; c < values.size(); ++c) out_ << (c ? "," : "") << shortest(values[c]);
  out_ << "\n";
  out_.flush();
}

}  // namespace staghorn::io

#include "io/xdmf.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/decimal.hpp"
#include "core/error.hpp"
#include "io/snapshot.hpp"

namespace staghorn::io {
namespace {

namespace fs = std::filesystem;

// The uniform grid whose cells are centred on the points of a location: per axis x, y, z, the
// number of cells, the coordinate of the first node and the spacing.
struct CellGrid {
  int cells[3];
  double origin[3], spacing[3];
};

CellGrid cell_grid(const Grid& g, Location loc) {
  CellGrid c{};
  for (int a = 0; a < 3; ++a) {
    c.spacing[a] = g.spacing(a);
    if (!g.active(a)) {  // a flat axis: no cells across it, the plane at its low side
      c.cells[a] = 0;
      c.origin[a] = g.origin[a];
      continue;
    }
    c.cells[a] = g.points(loc, a);
    c.origin[a] = g.coordinate(loc, a, 0) - 0.5 * c.spacing[a];
  }
  return c;
}

// XDMF lists axes slowest first (z y x), as HDF5 stores them.
std::string zyx(const int v[3], int add) {
  return std::to_string(v[2] + add) + " " + std::to_string(v[1] + add) + " " +
         std::to_string(v[0] + add);
}
std::string zyx(const double v[3]) {
  return shortest(v[2]) + " " + shortest(v[1]) + " " + shortest(v[0]);
}

// The variable's dims in the file: (time = 1, z, y, x) over the active axes.
std::string data_dims(const Grid& g, Location loc) {
  std::string out = "1";
  for (int a = 2; a >= 0; --a)
    if (g.active(a)) out += " " + std::to_string(g.points(loc, a));
  return out;
}

void write_grid(std::ostream& out, const Grid& g, Location loc,
                const std::vector<XdmfField>& fields, const XdmfSnapshot& s, int real_bytes) {
  const CellGrid c = cell_grid(g, loc);
  out << "        <Grid Name=\"" << to_string(loc) << "\" GridType=\"Uniform\">\n"
      << "          <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << zyx(c.cells, 1)
      << "\"/>\n"
      << "          <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "            <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" "
         "Dimensions=\"3\">"
      << zyx(c.origin) << "</DataItem>\n"
      << "            <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" "
         "Dimensions=\"3\">"
      << zyx(c.spacing) << "</DataItem>\n"
      << "          </Geometry>\n";
  for (const XdmfField& f : fields) {
    if (f.location != loc) continue;
    out << "          <Attribute Name=\"" << f.name
        << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "            <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"" << real_bytes
        << "\" Dimensions=\"" << data_dims(g, loc) << "\">" << s.file << ":/" << f.name
        << "</DataItem>\n"
        << "          </Attribute>\n";
  }
  out << "        </Grid>\n";
}

// The locations the fields use, in the order they first appear.
std::vector<Location> locations(const std::vector<XdmfField>& fields) {
  std::vector<Location> out;
  for (const XdmfField& f : fields)
    if (std::find(out.begin(), out.end(), f.location) == out.end()) out.push_back(f.location);
  return out;
}

}  // namespace

std::string xdmf_text(const Grid& grid, const std::vector<XdmfField>& fields,
                      const std::vector<XdmfSnapshot>& snapshots, int real_bytes) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"2.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"snapshots\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfSnapshot& s : snapshots) {
    out << "      <Grid Name=\"step " << s.step
        << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
        << "        <Time Value=\"" << shortest(s.time) << "\"/>\n";
    for (const Location loc : locations(fields)) write_grid(out, grid, loc, fields, s, real_bytes);
    out << "      </Grid>\n";
  }
  out << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";
  return out.str();
}

XdmfIndex::XdmfIndex(std::string path, Grid grid, std::vector<XdmfField> fields, int real_bytes)
    : path_(std::move(path)),
      grid_(std::move(grid)),
      fields_(std::move(fields)),
      real_bytes_(real_bytes) {}

void XdmfIndex::adopt_existing(const std::string& prefix, long long step) {
  const fs::path dir = fs::path(path_).parent_path().empty() ? "." : fs::path(path_).parent_path();
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::string stem = e.path().stem().string(), head = prefix + "_";
    const std::string digits = stem.size() > head.size() ? stem.substr(head.size()) : "";
    const bool ours =
        stem.rfind(head, 0) == 0 && e.path().extension() == ".nc" && !digits.empty() &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!ours) continue;
    const std::optional<SnapshotStamp> stamp = snapshot_stamp(e.path().string());
    if (stamp && stamp->step <= step) snapshots_.push_back({name, stamp->step, stamp->time});
  }
  std::sort(snapshots_.begin(), snapshots_.end(),
            [](const XdmfSnapshot& a, const XdmfSnapshot& b) { return a.step < b.step; });
}

void XdmfIndex::add(const std::string& snapshot_path, long long step, double time) {
  const XdmfSnapshot s{fs::path(snapshot_path).filename().string(), step, time};
  auto later = std::find_if(snapshots_.begin(), snapshots_.end(),
                            [&](const XdmfSnapshot& o) { return o.step >= step; });
  if (later != snapshots_.end() && later->step == step) {
    *later = s;
  } else {
    snapshots_.insert(later, s);
  }
  write();
}

void XdmfIndex::write() const {
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << xdmf_text(grid_, fields_, snapshots_, real_bytes_);
    if (!out.flush()) throw Error("cannot write the XDMF index '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    throw Error("cannot rename '" + tmp + "' onto '" + path_ + "': " + std::strerror(errno));
}

}  // namespace staghorn::io

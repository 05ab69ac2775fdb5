// The XDMF index: grids whose cells are centred on each location's points, in physical
// coordinates, data read in place from the snapshots, and a file rewritten whole per snapshot.
#include "io/xdmf.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace staghorn::io {
namespace {

namespace fs = std::filesystem;

Grid grid_2d() {
  Grid g;
  g.n = {4, 3, 1};
  g.length = {2.0, 1.5, 1.0};
  g.origin = {-1.0, 0.5, 0.0};
  g.periodic = {true, false, false};
  return g;
}

// The text of the grid element named `name` in the first snapshot.
std::string grid_element(const std::string& text, const std::string& name) {
  const std::size_t at = text.find("<Grid Name=\"" + name + "\"");
  EXPECT_NE(at, std::string::npos) << name;
  return text.substr(at, text.find("</Grid>", at) - at);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Xdmf, GridsAreCentredOnEachLocationsPoints) {
  const std::vector<XdmfField> fields{{"P", Location::cell},
                                      {"Vx", Location::face_x},
                                      {"Vy", Location::face_y},
                                      {"tau_xy", Location::edge_xy}};
  const std::string text = xdmf_text(grid_2d(), fields, {{"s_000002.nc", 2, 0.3}}, 8);
  EXPECT_TRUE(has(text, "<Time Value=\"0.3\"/>"));
  // Cells: 4 x 3 cells on [-1, 1] x [0.5, 2]; spacing 0.5 along both axes.
  const std::string cell = grid_element(text, "cell");
  EXPECT_TRUE(has(cell, "Dimensions=\"1 4 5\"")) << cell;
  EXPECT_TRUE(has(cell, ">0 0.5 -1</DataItem>")) << cell;
  EXPECT_TRUE(has(cell, ">1 0.5 0.5</DataItem>")) << cell;
  EXPECT_TRUE(has(cell, "Dimensions=\"1 3 4\">s_000002.nc:/P</DataItem>")) << cell;
  // x faces on a periodic axis: as many as cells, half a cell lower.
  const std::string fx = grid_element(text, "face_x");
  EXPECT_TRUE(has(fx, "Dimensions=\"1 4 5\"")) << fx;
  EXPECT_TRUE(has(fx, ">0 0.5 -1.25</DataItem>")) << fx;
  // y faces on a bounded axis: one more (the closing face).
  const std::string fy = grid_element(text, "face_y");
  EXPECT_TRUE(has(fy, "Dimensions=\"1 5 5\"")) << fy;
  EXPECT_TRUE(has(fy, ">0 0.25 -1</DataItem>")) << fy;
  EXPECT_TRUE(has(fy, "Dimensions=\"1 4 4\">s_000002.nc:/Vy</DataItem>")) << fy;
  const std::string edge = grid_element(text, "edge_xy");
  EXPECT_TRUE(has(edge, ">0 0.25 -1.25</DataItem>")) << edge;
  EXPECT_TRUE(has(edge, "Center=\"Cell\"")) << edge;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Xdmf, IndexIsRewrittenWholeInStepOrder) {
  const fs::path dir = fs::temp_directory_path() / "staghorn_xdmf_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  XdmfIndex index((dir / "s.xmf").string(), grid_2d(), {{"P", Location::cell}}, 4);
  index.add((dir / "s_000004.nc").string(), 4, 0.4);
  index.add((dir / "s_000002.nc").string(), 2, 0.2);
  index.add((dir / "s_000004.nc").string(), 4, 0.4);  // written again: replaces, no duplicate
  const std::string text = read(dir / "s.xmf");
  EXPECT_FALSE(fs::exists(dir / "s.xmf.tmp"));
  EXPECT_LT(text.find("s_000002.nc:/P"), text.find("s_000004.nc:/P"));
  EXPECT_EQ(index.snapshots().size(), 2u);
  EXPECT_TRUE(has(text, "Precision=\"4\" Dimensions=\"1 3 4\">s_000002.nc:/P"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace staghorn::io

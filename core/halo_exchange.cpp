#include "core/halo_exchange.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "core/comm.hpp"
#include "core/for_each.hpp"
#include "core/network.hpp"

namespace staghorn {
namespace {

int dir_index(Int3 d) { return (d.x + 1) + 3 * (d.y + 1) + 9 * (d.z + 1); }

// Buffer index of (i, j, k) inside region r, x fastest.
SH_HD inline long long packed(const Region& r, int i, int j, int k) {
  const Int3 e = r.extent();
  return (i - r.lo.x) + (long long)e.x * ((j - r.lo.y) + (long long)e.y * (k - r.lo.z));
}

struct Pack {
  View f;
  Region r;
  real* buf;
  SH_HD void operator()(int i, int j, int k) const { buf[packed(r, i, j, k)] = f(i, j, k); }
};

struct Unpack {
  View f;
  Region r;
  const real* buf;
  SH_HD void operator()(int i, int j, int k) const { f(i, j, k) = buf[packed(r, i, j, k)]; }
};

// Every slab of one exchange (each segment's slab of each field) as one launch over the buffer,
// instead of a launch per slab: hundreds of tiny launches otherwise cost more than the bytes.
// Element t of the buffer belongs to segment s (start[s] <= t < start[s + 1]); inside it the
// fields' slabs lie side by side, each in its region's order, x fastest (the layout of at()).
constexpr int kMaxSegments = 26, kMaxFields = 24;
constexpr int kRow = 1024;  // launch shape {kRow, rows, 1}: the rows spread over CPU threads too

struct Slabs {
  int total = 0;
  int start[kMaxSegments + 1] = {};
  Region region[kMaxSegments];
  View f[kMaxFields];

  // Field and cell of element t (t < total); returns the element's place inside its segment.
  SH_HD int locate(int t, int& s, int& field, int& i, int& j, int& k) const {
    s = 0;
    while (t >= start[s + 1]) ++s;
    const int local = t - start[s];
    const Int3 e = region[s].extent();
    const int volume = e.x * e.y * e.z;
    field = local / volume;
    const int c = local - field * volume, row = c / e.x;
    i = region[s].lo.x + (c - row * e.x);
    j = region[s].lo.y + row % e.y;
    k = region[s].lo.z + row / e.y;
    return local;
  }
};

struct PackAll {
  Slabs sl;
  real* buf;
  SH_HD void operator()(int x, int y, int) const {
    const long long t = x + static_cast<long long>(kRow) * y;
    if (t >= sl.total) return;
    int s, f, i, j, k;
    sl.locate(static_cast<int>(t), s, f, i, j, k);
    buf[t] = sl.f[f](i, j, k);
  }
};

struct UnpackAll {
  Slabs sl;
  const real* src[kMaxSegments];  // segment s's data (all fields) as the buffers lay it out
  SH_HD void operator()(int x, int y, int) const {
    const long long t = x + static_cast<long long>(kRow) * y;
    if (t >= sl.total) return;
    int s, f, i, j, k;
    const int local = sl.locate(static_cast<int>(t), s, f, i, j, k);
    sl.f[f](i, j, k) = src[s][local];
  }
};

Region rows_of(int total) { return {{0, 0, 0}, {kRow, (total + kRow - 1) / kRow, 1}}; }

}  // namespace

Region HaloExchange::send_region(const Layout& l, Int3 d) {
  Region r;
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = d[a] < 0 ? 0 : (d[a] > 0 ? l.n[a] - l.h[a] : 0);
    r.hi[a] = d[a] < 0 ? l.h[a] : l.n[a];
  }
  return r;
}

Region HaloExchange::recv_region(const Layout& l, Int3 d) {
  Region r;
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = d[a] < 0 ? -l.h[a] : (d[a] > 0 ? l.n[a] : 0);
    r.hi[a] = d[a] < 0 ? 0 : (d[a] > 0 ? l.n[a] + l.h[a] : l.n[a]);
  }
  return r;
}

HaloExchange::HaloExchange(const Decomposition& dec, const Layout& layout, const Exec& ex,
                           bool corners, Int3 filled)
    : dec_(dec),
      layout_(layout),
      ex_(ex),
      filled_(filled),
      transport_(ex.network() ? ex.network()->transport() : make_mpi_transport(dec.comm(), ex)) {
  for (int a = 0; a < 3; ++a)
    if (filled[a] && !dec.wraps_onto_itself(a))
      throw std::logic_error("HaloExchange: a filled axis must be periodic onto the block itself");
  for (int z = -1; z <= 1; ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x) {
        const Int3 d{x, y, z};
        const int nonzero = (x != 0) + (y != 0) + (z != 0);
        if (nonzero == 0 || (!corners && nonzero > 1)) continue;
        bool active = true;
        for (int a = 0; a < 3; ++a) active = active && (d[a] == 0 || layout.h[a] > 0);
        const int peer = dec.neighbor(d);
        if (!active || peer == MPI_PROC_NULL) continue;
        bool only_filled = true;  // every axis it crosses is filled by the caller: no message
        for (int a = 0; a < 3; ++a) only_filled = only_filled && (d[a] == 0 || filled[a]);
        if (only_filled) continue;
        segs_.push_back({d, peer, -1, send_region(layout, d), recv_region(layout, d), 0, 0});
      }
  // The same axes on every rank: a segment crosses an axis wherever that axis is split over ranks
  // or wraps onto the block (and is not filled), whatever the rank's place in the process grid.
  for (const auto& s : segs_)
    for (int a = 0; a < 3; ++a) crossed_[a] = crossed_[a] || (s.dir[a] != 0 && !filled_[a]);
  if (ex.network() && ex.network()->per_segment())
    waves_ = std::max(1, 2 * (crossed_.x + crossed_.y + crossed_.z));
  for (auto& s : segs_) s.wave = wave_of(s.dir);
  std::stable_sort(segs_.begin(), segs_.end(),
                   [](const Segment& a, const Segment& b) { return a.wave < b.wave; });
  std::vector<int> index_of(27, -1);
  for (std::size_t i = 0; i < segs_.size(); ++i) {
    segs_[i].offset = cells_per_field_;
    cells_per_field_ += static_cast<std::size_t>(segs_[i].send.size());
    index_of[dir_index(segs_[i].dir)] = static_cast<int>(i);
  }
  // The peer across -d exists whenever the peer across d does (periodicity is per axis).
  for (auto& s : segs_) {
    s.opposite = index_of[dir_index({-s.dir.x, -s.dir.y, -s.dir.z})];
    remote_ = remote_ || s.peer != dec.comm().rank();
  }
}

Int3 HaloExchange::axes() const { return crossed_; }

int HaloExchange::wave_of(Int3 d) const {
  if (waves_ == 1) return 0;
  int side = 0;  // the first side of axis a among the waves
  for (int a = 0; a < 3; ++a) {
    if (!crossed_[a]) continue;
    if (d[a] != 0) return side + (d[a] > 0);
    side += 2;
  }
  throw std::logic_error("HaloExchange: a segment crosses no exchanged axis");
}

std::pair<std::size_t, std::size_t> HaloExchange::wave_range(int wave) const {
  std::size_t first = 0;
  while (first < segs_.size() && segs_[first].wave < wave) ++first;
  std::size_t last = first;
  while (last < segs_.size() && segs_[last].wave == wave) ++last;
  return {first, last};
}

std::vector<Region> HaloExchange::wave_sends(int wave) const {
  std::vector<Region> r;
  const auto [first, last] = wave_range(wave);
  for (std::size_t s = first; s < last; ++s) r.push_back(segs_[s].send);
  return r;
}

// Buffers and messages for `fields` fields: segment by segment, each segment's field slabs side by
// side, so that one message per segment carries all of them.
void HaloExchange::prepare(std::size_t fields) {
  if (fields == nfields_) return;
  nfields_ = fields;
  if (send_.size() < fields * cells_per_field_) {
    send_ = Buffer<real>(space_of(ex_.backend()), fields * cells_per_field_);
    recv_ = Buffer<real>(space_of(ex_.backend()), fields * cells_per_field_);
  }
  plan_ = {};
  plan_.total = fields * cells_per_field_;
  plan_.waves = waves_;
  const int me = dec_.comm().rank();
  for (const auto& s : segs_) {
    if (s.peer == me) continue;
    const std::size_t count = fields * static_cast<std::size_t>(s.send.size());
    const Int3 back{-s.dir.x, -s.dir.y, -s.dir.z};
    plan_.sends.push_back({s.peer, dir_index(s.dir), at(s, 0), count, s.wave});
    // What arrives in our halo at d was sent by the peer toward -d, in that segment's wave.
    plan_.recvs.push_back({s.peer, dir_index(back), at(s, 0), count, wave_of(back)});
  }
  auto in_order = [](const Message& a, const Message& b) {
    return a.wave != b.wave ? a.wave < b.wave : a.tag < b.tag;
  };
  std::stable_sort(plan_.sends.begin(), plan_.sends.end(), in_order);
  std::stable_sort(plan_.recvs.begin(), plan_.recvs.end(), in_order);
}

long long HaloExchange::open(Phase phase) {
  return ex_.network() ? ex_.network()->timer().open(phase, Lane::boundary) : -1;
}

void HaloExchange::close(long long span) {
  if (span >= 0) ex_.network()->timer().close(span);
}

void HaloExchange::exchange(const std::vector<Field*>& fields) {
  // Progress also where nothing moves (a rank with no neighbour): each PT iteration exchanges
  // once, and a one-rank run's watchdog must see its iterations between residual checks.
  if (segs_.empty() || fields.empty()) return note_progress();
  ex_.order(Lane::inner, Lane::boundary);  // what was computed must be complete before packing
  begin(fields);
  end(fields);
}

void HaloExchange::begin(const std::vector<Field*>& fields) {
  for (int w = 0; w < waves_; ++w) begin_wave(fields, w);
}

void HaloExchange::begin_wave(const std::vector<Field*>& fields, int wave) {
  if (segs_.empty() || fields.empty()) return;
  if (wave == 0) prepare(fields.size());
  pack(fields, wave);
  if (!remote_) return;
  // On a GPU the transfer starts here, asynchronously; on the CPU it ends in end(). Timed from the
  // last wave on: what the boundary lane waits for once the whole shell is sent.
  if (ex_.on_device() && wave + 1 == waves_) transfer_span_ = open(Phase::transfer);
  transport_->start(plan_, wave, send_.data(), recv_.data());
}

void HaloExchange::end(const std::vector<Field*>& fields) {
  if (segs_.empty() || fields.empty()) return note_progress();  // as in exchange()
  if (remote_) {
    if (!ex_.on_device()) transfer_span_ = open(Phase::transfer);
    const double blocked = transport_->finish(plan_, send_.data(), recv_.data());
    close(transfer_span_);
    if (ex_.network()) ex_.network()->timer().add(Phase::wait, blocked);
  }
  unpack(fields);
  if (remote_) transport_->released();
  ex_.order(Lane::boundary, Lane::inner);
  note_progress();  // also without messages (a periodic axis held by this rank alone)
}

bool HaloExchange::one_launch(std::size_t fields) const {
  return fields <= kMaxFields && segs_.size() <= kMaxSegments &&
         fields * cells_per_field_ <= static_cast<std::size_t>(INT32_MAX);
}

// The buffer's segments and the fields' views, for one launch over the slabs of segments
// [first, last) (send or receive regions: their extents agree segment by segment).
template <class F>
F HaloExchange::slabs(const std::vector<Field*>& fields, bool send, std::size_t first,
                      std::size_t last) const {
  F op{};
  const std::size_t base = at(segs_[first], 0);
  for (std::size_t s = first; s < last; ++s) {
    op.sl.start[s - first] = static_cast<int>(at(segs_[s], 0) - base);
    op.sl.region[s - first] = send ? segs_[s].send : segs_[s].recv;
  }
  const std::size_t end = last < segs_.size() ? at(segs_[last], 0) : fields.size() * cells_per_field_;
  op.sl.total = static_cast<int>(end - base);
  op.sl.start[last - first] = op.sl.total;
  for (std::size_t f = 0; f < fields.size(); ++f) op.sl.f[f] = fields[f]->view();
  return op;
}

void HaloExchange::pack(const std::vector<Field*>& fields, int wave) {
  const auto [first, last] = wave_range(wave);
  if (first == last) return;
  const long long span = open(Phase::pack);
  if (one_launch(fields.size())) {
    PackAll op = slabs<PackAll>(fields, true, first, last);
    op.buf = send_.data() + at(segs_[first], 0);
    for_each(ex_, rows_of(op.sl.total), Lane::boundary, op);
  } else {
    for (std::size_t f = 0; f < fields.size(); ++f)
      for (std::size_t s = first; s < last; ++s)
        for_each(ex_, segs_[s].send, Lane::boundary,
                 Pack{fields[f]->view(), segs_[s].send, send_.data() + at(segs_[s], f)});
  }
  close(span);
}

// Our halo at d holds what the peer sends toward -d; from ourselves that is segment -d.
const real* HaloExchange::source(const Segment& s, std::size_t field) const {
  return s.peer == dec_.comm().rank() ? send_.data() + at(segs_[s.opposite], field)
                                      : recv_.data() + at(s, field);
}

void HaloExchange::unpack(const std::vector<Field*>& fields) {
  const long long span = open(Phase::unpack);
  if (one_launch(fields.size())) {
    UnpackAll op = slabs<UnpackAll>(fields, false, 0, segs_.size());
    for (std::size_t s = 0; s < segs_.size(); ++s) op.src[s] = source(segs_[s], 0);
    for_each(ex_, rows_of(op.sl.total), Lane::boundary, op);
  } else {
    for (std::size_t f = 0; f < fields.size(); ++f)
      for (const auto& s : segs_)
        for_each(ex_, s.recv, Lane::boundary, Unpack{fields[f]->view(), s.recv, source(s, f)});
  }
  close(span);
}

}  // namespace staghorn

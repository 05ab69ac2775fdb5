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
  std::vector<int> index_of(27, -1);
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
        Segment s{d, peer, -1, send_region(layout, d), recv_region(layout, d), cells_per_field_};
        cells_per_field_ += static_cast<std::size_t>(s.send.size());
        index_of[dir_index(d)] = static_cast<int>(segs_.size());
        segs_.push_back(s);
      }
  // The peer across -d exists whenever the peer across d does (periodicity is per axis).
  for (auto& s : segs_) {
    s.opposite = index_of[dir_index({-s.dir.x, -s.dir.y, -s.dir.z})];
    remote_ = remote_ || s.peer != dec.comm().rank();
  }
}

Int3 HaloExchange::axes() const {
  Int3 a;
  for (const auto& s : segs_)
    for (int d = 0; d < 3; ++d) a[d] = a[d] || (s.dir[d] != 0 && !filled_[d]);
  return a;
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
  const int me = dec_.comm().rank();
  for (const auto& s : segs_) {
    if (s.peer == me) continue;
    const std::size_t count = fields * static_cast<std::size_t>(s.send.size());
    plan_.sends.push_back({s.peer, dir_index(s.dir), at(s, 0), count});
    // What arrives in our halo at d was sent by the peer toward -d.
    plan_.recvs.push_back({s.peer, dir_index({-s.dir.x, -s.dir.y, -s.dir.z}), at(s, 0), count});
  }
  auto by_tag = [](const Message& a, const Message& b) { return a.tag < b.tag; };
  std::stable_sort(plan_.sends.begin(), plan_.sends.end(), by_tag);
  std::stable_sort(plan_.recvs.begin(), plan_.recvs.end(), by_tag);
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
  if (segs_.empty() || fields.empty()) return;
  prepare(fields.size());
  pack(fields);
  if (!remote_) return;
  // On a GPU the transfer starts here, asynchronously; on the CPU it all happens in end().
  if (ex_.on_device()) transfer_span_ = open(Phase::transfer);
  transport_->start(plan_, send_.data(), recv_.data());
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

// The buffer's segments and the fields' views, for one launch over all slabs (send or receive
// regions: their extents agree segment by segment).
template <class F>
F HaloExchange::slabs(const std::vector<Field*>& fields, bool send) const {
  F op{};
  for (std::size_t s = 0; s < segs_.size(); ++s) {
    op.sl.start[s] = static_cast<int>(at(segs_[s], 0));
    op.sl.region[s] = send ? segs_[s].send : segs_[s].recv;
  }
  op.sl.total = static_cast<int>(fields.size() * cells_per_field_);
  op.sl.start[segs_.size()] = op.sl.total;
  for (std::size_t f = 0; f < fields.size(); ++f) op.sl.f[f] = fields[f]->view();
  return op;
}

void HaloExchange::pack(const std::vector<Field*>& fields) {
  const long long span = open(Phase::pack);
  if (one_launch(fields.size())) {
    PackAll op = slabs<PackAll>(fields, true);
    op.buf = send_.data();
    for_each(ex_, rows_of(op.sl.total), Lane::boundary, op);
  } else {
    for (std::size_t f = 0; f < fields.size(); ++f)
      for (const auto& s : segs_)
        for_each(ex_, s.send, Lane::boundary,
                 Pack{fields[f]->view(), s.send, send_.data() + at(s, f)});
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
    UnpackAll op = slabs<UnpackAll>(fields, false);
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
